"""Answers go out gzipped to clients that accept it (a large organization's answers would
pass Lambda's 6 MB otherwise), and one too large to return is a clear error."""
from __future__ import annotations

import base64
import gzip
import json
from urllib.parse import urlencode

from chalicelib.http import compression


def _get(realm, path: str, accept: str | None) -> tuple[int, dict[str, str], bytes]:
    headers = realm.member.auth_header()
    if accept is not None:
        headers["Accept-Encoding"] = accept
    response = realm.client.http.request("GET", f"/api/v1{path}", headers=headers)
    return response.status_code, {k.lower(): v for k, v in response.headers.items()}, \
        response.body


def test_a_large_answer_is_gzipped_when_the_client_accepts_it(realm):
    for n in range(12):   # GET /users: well over a kilobyte
        realm.add_user(f"Person {n}")
    status, headers, plain = _get(realm, "/users", None)
    assert status == 200 and "content-encoding" not in headers
    status, headers, packed = _get(realm, "/users", "br;q=1.0, gzip;q=0.8, *;q=0.1")
    assert status == 200
    assert headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
    assert headers["content-type"] == "application/json"
    assert len(packed) < len(plain) / 3
    assert json.loads(gzip.decompress(packed)) == json.loads(plain)
    # A client that refuses gzip (q=0) gets it plain.
    _, headers, _ = _get(realm, "/users", "gzip;q=0, identity")
    assert "content-encoding" not in headers


def test_a_small_answer_is_not_compressed(realm):
    status, headers, body = _get(realm, "/users/me/alert_words", "gzip")
    assert status == 200 and "content-encoding" not in headers
    assert json.loads(body)["result"] == "success"


def test_an_answer_too_large_to_return_is_an_error_that_says_what_to_do(realm, monkeypatch):
    for n in range(12):
        realm.add_user(f"Person {n}")
    monkeypatch.setattr(compression, "MAX_INVOCATION_ANSWER_BYTES", 1500)
    status, _, body = _get(realm, "/users", None)
    answer = json.loads(body)
    assert status == 400 and answer["code"] == "BAD_REQUEST"
    assert "Accept-Encoding: gzip" in answer["msg"]
    # Compressed, the same answer fits.
    status, headers, packed = _get(realm, "/users", "gzip")
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert len(json.loads(gzip.decompress(packed))["members"]) >= 17


def _proxy_event(realm, method: str, path: str, body: bytes) -> dict:
    """A request as API Gateway hands it over with binary media types */*: every body
    base64-encoded."""
    return {
        "resource": path, "path": path, "httpMethod": method,
        "headers": {**realm.member.auth_header(), "Accept-Encoding": "gzip",
                    "Content-Type": "application/x-www-form-urlencoded"},
        "multiValueHeaders": {}, "queryStringParameters": None,
        "multiValueQueryStringParameters": None, "pathParameters": None,
        "stageVariables": None, "body": base64.b64encode(body).decode() if body else None,
        "isBase64Encoded": bool(body),
        "requestContext": {"resourcePath": path, "httpMethod": method, "stage": "chat",
                           "requestId": "gzip-test", "identity": {"sourceIp": "10.0.0.1"}}}


def test_on_api_gateway_base64_requests_are_read_and_gzip_answers_sent_as_base64(realm):
    from app import app

    # A form body that arrives base64-encoded is read as the form it is.
    sent = app(_proxy_event(realm, "POST", "/api/v1/messages", urlencode({
        "type": "private", "to": json.dumps([realm.owner.user_id]),
        "content": "through the gateway"}).encode()), None)
    assert sent["statusCode"] == 200, sent["body"]
    assert json.loads(sent["body"])["id"] > 0 and not sent.get("isBase64Encoded")
    # A large answer goes back as base64 of its gzip bytes, which the gateway decodes.
    for n in range(12):
        realm.add_user(f"Person {n}")
    answer = app(_proxy_event(realm, "GET", "/api/v1/users", b""), None)
    assert answer["statusCode"] == 200 and answer["isBase64Encoded"] is True
    assert answer["headers"]["Content-Encoding"] == "gzip"
    members = json.loads(gzip.decompress(base64.b64decode(answer["body"])))["members"]
    assert len(members) >= 17
