"""No input makes a 5xx: each case found by fuzzing answers a 4xx naming the parameter,
before any read it would have misused; a genuine fault answers 500 INTERNAL_SERVER_ERROR
(logged with its request ID) and AWS throttling 503 with a retry hint."""
from __future__ import annotations

import json
from typing import Any

from chalicelib.http.params import MAX_LIST_LENGTH
from chalicelib.rules.json_values import MAX_JSON_DEPTH
from tests.functional.aws_hooks import counting, error_response, hooked
from tests.functional.conftest import ApiResponse
from tests.functional.edit_helpers import channel, send

DEEP = "[" * 1000 + "]" * 1000
LONE_SURROGATE = '"\\ud800"'     # JSON text of a string DynamoDB cannot store


def bad(response: ApiResponse, *fragments: str, code: str = "BAD_REQUEST") -> str:
    assert response.status == 400, response.json
    assert response.json["code"] == code, response.json
    for fragment in fragments:
        assert fragment in response.json["msg"], response.json
    assert "var_name" not in response.json   # undocumented for BAD_REQUEST
    return response.json["msg"]


def json_body(account, method: str, path: str, body: str) -> ApiResponse:
    """A request whose body is raw JSON text (which may hold what a form cannot)."""
    response = account.client.http.request(method, "/api/v1" + path, body=body.encode(),
                                           headers={**account.auth_header(),
                                                    "Content-Type": "application/json"})
    return ApiResponse(response.status_code, json.loads(response.body),
                       dict(response.headers))


def test_event_queue_ids_are_checked_before_the_lookup(realm, register_queue):
    for queue_id in ("", "q" * 2000):
        for method in ("GET", "DELETE"):
            response = realm.member.call(method, "/events", {"queue_id": queue_id})
            bad(response, "No event queue", code="BAD_EVENT_QUEUE_ID")
    # A last_event_id the queue never gave out is another queue's position
    queue = register_queue(realm.member)
    response = realm.member.get("/events", {"queue_id": queue["queue_id"],
                                            "last_event_id": queue["last_event_id"] + 5,
                                            "dont_block": True})
    bad(response, code="BAD_EVENT_QUEUE_ID")
    assert response.json["queue_id"] == queue["queue_id"]


def test_narrow_terms_of_the_wrong_shape(realm):
    channel(realm.member, "talk")
    for narrow in ([{"operator": {"a": 1}, "operand": "talk"}],
                   [{"operator": ["channel"], "operand": "talk"}],
                   [[["channel"], "talk"]],
                   [{"operator": "channel", "operand": {"x": 1}}],
                   [{"operator": "topic", "operand": ["t"]}],
                   [{"operator": "channel", "operand": "talk"},
                    {"operator": "topic", "operand": 5}],
                   [{"operator": "channel", "operand": 10**30}],
                   [{"operator": "dm", "operand": [True]}]):
        response = realm.member.get("/messages", {"anchor": "newest", "num_before": 1,
                                                  "num_after": 0, "narrow": narrow})
        bad(response, "narrow")
    # Digits past any message id name no message: BAD_NARROW, as the reference
    response = realm.member.get("/messages", {
        "anchor": "newest", "num_before": 1, "num_after": 0,
        "narrow": [{"operator": "id", "operand": "9" * 5000}]})
    bad(response, "narrow", code="BAD_NARROW")
    for anchor in ("9" * 5000, "1e9", "soon"):
        response = realm.member.get("/messages", {"anchor": anchor, "num_before": 1,
                                                  "num_after": 0})
        bad(response, "anchor")


def test_json_nested_too_deep_in_a_parameter_or_a_body(realm):
    response = realm.member.call("GET", "/messages?anchor=newest&num_before=1&num_after=0"
                                 f"&narrow={DEEP}")
    bad(response, "narrow", "nested too deeply", f"{MAX_JSON_DEPTH}")
    response = realm.member.post("/register", {"client_capabilities":
                                               '{"a":' * 40 + "1" + "}" * 40})
    bad(response, "client_capabilities", "nested too deeply")
    for path in ("/settings", "/saved_snippets", "/messages"):
        method = "PATCH" if path == "/settings" else "POST"
        bad(json_body(realm.member, method, path, '{"x": ' + DEEP + "}"),
            "nested too deeply")
    bad(realm.member.post("/messages", {"type": "direct", "to": DEEP, "content": "x"}),
        "to", "nested too deeply")


def test_strings_dynamodb_cannot_store_are_refused(realm):
    channel(realm.member, "talk")
    cases = [
        ("PATCH", "/settings", {"full_name": None}),
        ("PATCH", "/settings", {"timezone": None}),
        ("POST", "/saved_snippets", {"title": None, "content": "body"}),
        ("POST", "/messages", {"type": "stream", "to": "talk", "topic": "t",
                               "content": None}),
        ("POST", "/messages", {"type": "stream", "to": None, "topic": "t",
                               "content": "hi"}),
    ]
    for method, path, params in cases:
        name = next(k for k, v in params.items() if v is None)
        body = json.dumps({k: "@" if v is None else v for k, v in params.items()}).replace(
            '"@"', LONE_SURROGATE)
        bad(json_body(realm.member, method, path, body), name, "cannot be stored")
    # ...also inside a JSON-encoded value, and as a dictionary key
    bad(realm.member.post("/messages", {"type": "direct", "content": "hi",
                                        "to": '["\\udfff@x.example.com"]'}),
        "to", "cannot be stored")
    bad(realm.member.post("/register", {"client_capabilities": '{"\\ud800": true}'}),
        "client_capabilities", "cannot be stored")


def test_a_huge_host_label_is_no_realm(anonymous):
    response = anonymous("GET", "/server_settings",
                         headers={"Host": "x" * 1100 + ".localhost"})
    # An unknown subdomain, refused as the reference refuses one (not a fault)
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST"


def test_typing_topics_have_the_topic_limit(realm, drain_events):
    stream_id = channel(realm.member, "talk")
    for topic in ("t" * 61, "t" * 100_000):
        response = realm.member.post("/typing", {"type": "stream", "op": "start",
                                                 "stream_id": stream_id, "topic": topic})
        bad(response, "Topic too long")
    response = realm.member.post("/typing", {"type": "stream", "op": "start",
                                             "stream_id": stream_id, "topic": "t" * 2_000_000})
    bad(response, "topic", "over the limit")
    assert realm.member.post("/typing", {"type": "stream", "op": "start",
                                         "stream_id": stream_id, "topic": "t" * 60}).ok


def test_long_lists_are_refused_before_any_read(realm):
    ids = list(range(1, 100_001))
    with counting() as calls:
        response = realm.member.post("/messages", {"type": "direct", "to": json.dumps(ids),
                                                   "content": "hi"})
        bad(response, "to is over the limit")
        response = realm.member.post("/messages", {"type": "direct", "content": "hi",
                                                   "to": json.dumps(ids[:1001])})
        bad(response, "Too many recipients in 'to' (limit: 1000)")
        response = realm.member.post("/typing", {"op": "start", "to": ids[:1001]})
        bad(response, "to", "too many items", str(MAX_LIST_LENGTH))
    # Authentication is the only read any of them made, besides the rate limiter's: one
    # counter update per request, and the organization's own limits read once (cached)
    assert calls.calls == {"dynamodb.GetItem": 3 + 1, "dynamodb.UpdateItem": 3}, calls.calls
    huge_id = realm.member.post("/messages", {"type": "direct", "to": [10**30],
                                              "content": "hi"})
    bad(huge_id, "to", "out of range")
    bad(realm.member.post("/messages", {"type": "stream", "to": str(10**30), "topic": "t",
                                        "content": "hi"}), "to", "out of range")


def test_emoji_names_longer_than_any_are_not_looked_up(realm):
    # Found by the fuzz run: a 2,000-character name made a key DynamoDB refuses
    response = realm.admin.delete("/realm/emoji/" + "e" * 2000)
    assert response.status == 404 and response.json["msg"].startswith("No emoji called")
    response = realm.member.post("/users/me/status", {"emoji_name": "e" * 2000})
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST", response.json


def test_parameters_have_a_default_length_limit(realm):
    bad(realm.member.post("/saved_snippets", {"title": "t", "content": "x" * 100_001}),
        "content", "over the limit")
    bad(realm.member.get("/messages", {"anchor": "newest", "num_before": "9" * 5000,
                                       "num_after": 0}), "num_before", "out of range")


def test_missing_parameters_keep_var_name(realm):
    response = realm.member.post("/saved_snippets", {"title": "t"})
    assert response.status == 400 and response.json == {
        "result": "error", "msg": "The 'content' parameter is required",
        "code": "REQUEST_VARIABLE_MISSING", "var_name": "content"}


def test_an_internal_error_is_a_logged_500(realm, monkeypatch, caplog):
    from chalicelib.api.saved_snippets import actions

    def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(actions, "do_create_saved_snippet", broken)
    response = realm.member.post("/saved_snippets", {"title": "t", "content": "c"})
    assert response.status == 500, response.json
    assert response.json["code"] == "INTERNAL_SERVER_ERROR"
    assert response.json["msg"].startswith("Internal server error (request ID ")
    request_id = response.json["msg"].split("request ID ")[1].split(")")[0]
    [entry] = [r for r in caplog.records if r.getMessage() == "internal server error"]
    assert entry.request_id == request_id and entry.exc_info[1].args == ("a bug",)


def test_throttling_answers_503_with_a_retry_hint(realm):
    stream_id = channel(realm.member, "talk")
    message_id = send(realm.member, "talk", "t")

    def throttle(service: str, operation: str, _params: dict[str, Any]) -> Any:
        if service == "dynamodb" and operation == "TransactWriteItems":
            return error_response(service, "ThrottlingException", "Rate exceeded")
        return None

    with hooked(throttle):
        response = realm.member.post("/messages", {"type": "stream", "to": stream_id,
                                                   "topic": "t", "content": "again"})
    assert response.status == 503, response.json
    assert response.json["code"] == "RATE_LIMIT_HIT"
    assert response.json["retry-after"] == 1 and response.headers["Retry-After"] == "1"
    # Nothing was written: the channel's newest message is still the first one
    newest = realm.member.get("/messages", {"anchor": "newest", "num_before": 1,
                                            "num_after": 0}).json["messages"]
    assert [m["id"] for m in newest] == [message_id]
