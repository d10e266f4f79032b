"""Paths the API does not serve answer 404 in the error envelope, under every prefix (a
path parameter that is not of its type too); a method no route of a served path has
answers 405 with the methods it serves, as the reference.
(Paths no route matches at all never reach the app: the local stack's HTTP server and
API Gateway's NOT_FOUND response answer them; tests/e2e covers that.) Methods API Gateway
never routes (TRACE, CONNECT) reach the app through the local stack's HTTP server too,
started here in-process."""
from __future__ import annotations

import json
import re

import pytest

from app import app
from chalicelib.http.params import param_specs

METHODS = ("GET", "POST", "PATCH", "DELETE", "PUT")
_PARAM = re.compile(r"{(\w+)}")


def _concrete(path: str, value: str = "1") -> str:
    return _PARAM.sub(value, path).removeprefix("/api/v1")


def _assert_not_found(response) -> None:
    assert response.status == 404, response.json
    assert response.json == {"result": "error", "msg": "Endpoint not found",
                             "code": "NOT_FOUND"}


def _served() -> list[tuple[str, set[str]]]:
    """Every API path with the methods its views serve (the 405 fallbacks left out)."""
    from chalicelib.http.method_not_allowed import _SERVED
    return [(path, set(methods)) for path, methods in _SERVED.items()
            if path.startswith("/api/v1/")]


def test_every_route_answers_405_for_methods_it_does_not_serve(realm, anonymous):
    # GIVEN every route of the API, with the methods it serves
    checked = 0
    for path, methods in _served():
        for method in METHODS:
            if method in methods:
                continue
            # WHEN called with another method (with or without credentials)
            response = realm.member.call(method, _concrete(path))
            # THEN a 405 listing the methods it serves, before authentication or
            # parameters matter
            assert response.status == 405, (method, path, response.json)
            assert response.json["result"] == "error"
            assert response.json["allowed_methods"] == sorted(methods)
            assert response.headers["Allow"] == ", ".join(sorted(methods))
            checked += 1
    assert checked > 100   # positive control: the loop saw the whole API
    response = anonymous("DELETE", "/server_settings")
    assert response.status == 405 and response.json["allowed_methods"] == ["GET"]


def test_methods_chalice_never_routes_answer_405(chalice_client):
    # WHEN a method no route can have (as TRACE on the local server) reaches the app
    response = chalice_client.http.request("TRACE", "/api/v1/messages")
    # THEN the same 405 envelope
    assert response.status_code == 405
    body = json.loads(response.body)
    assert body["allowed_methods"] == ["GET", "POST"]


@pytest.mark.parametrize("method, path", [
    ("POST", "/messages/unknown"), ("GET", "/messages/abc"), ("PATCH", "/messages/12x"),
    ("GET", "/streams/general"), ("DELETE", "/drafts/one"),
    ("GET", "/messages/99999999999999999999"),
])
def test_unknown_paths_under_served_prefixes_are_404(realm, method, path):
    _assert_not_found(realm.member.call(method, path))


@pytest.mark.parametrize("method, path, route", [
    ("POST", "/users/12", "/api/v1/users/{user_id}"),
    ("GET", "/users/me/status", "/api/v1/users/me/status"),   # a path of its own
])
def test_served_paths_with_other_methods_are_405(realm, method, path, route):
    response = realm.member.call(method, path)
    allowed = sorted(dict(_served())[route])
    assert method not in allowed
    assert response.status == 405 and response.json["allowed_methods"] == allowed


def _integer_path_routes() -> list[tuple[str, str]]:
    """(path, method) of every route whose view reads a path parameter as an integer."""
    found = []
    for path, entries in app.routes.items():
        for method, entry in entries.items():
            view = getattr(entry.view_function, "__wrapped__", None)
            if view is None:
                continue
            specs = param_specs(view, set(_PARAM.findall(path)))
            if any(s.in_path and s.annotation is int for s in specs):
                found.append((path, method))
    return found


def test_integer_path_parameters_that_are_not_integers_are_404(realm):
    # GIVEN every route that takes an integer in its path
    routes = _integer_path_routes()
    assert len(routes) > 20   # positive control
    for path, method in routes:
        # WHEN that segment is not a number
        response = realm.member.call(method, _concrete(path, "not-a-number"))
        # THEN no route serves the path
        _assert_not_found(response)


def test_served_paths_still_answer(realm):
    # Positive control: a served path and method is not caught by the 404s above.
    assert realm.member.get("/users/me").ok
    missing = realm.member.get("/messages/999999")
    assert missing.status == 400 and missing.json["msg"] == "Message not found, or you cannot see it."


@pytest.fixture
def local_http_server(chalice_client):
    """The local stack's HTTP server (infra/local/http_server.py) around the app, on a free
    port of loopback, in this process (so on the functional tier's moto)."""
    from chalice.local import CustomLocalChalice

    from infra.local.http_server import start_http_server

    original_class, original_bases = app.__class__, CustomLocalChalice.__bases__
    server = start_http_server(app, "127.0.0.1", 0)
    try:
        yield server.server.server_address[1]
    finally:
        server.server.shutdown()
        server.server.server_close()
        # The server made the app a local one; other tests use the plain app.
        app.__class__ = original_class
        CustomLocalChalice.__bases__ = original_bases


def test_local_server_answers_405_for_methods_it_never_routes(local_http_server, realm):
    import http.client

    for method, path, allowed in (("TRACE", "/api/v1/messages", "GET, POST"),
                                  ("TRACE", "/api/v1/users/me", "DELETE, GET"),
                                  ("CONNECT", "/api/v1/messages", "GET, POST")):
        # WHEN the local server gets a method API Gateway never routes
        connection = http.client.HTTPConnection("127.0.0.1", local_http_server, timeout=10)
        connection.request(method, path, headers=realm.member.auth_header())
        response = connection.getresponse()
        raw = response.read()
        connection.close()
        # THEN the app's 405, not http.server's 501
        assert response.status == 405, (method, path, raw)
        body = json.loads(raw)
        assert response.getheader("Allow") == allowed
        assert body["code"] == "BAD_REQUEST" and body["allowed_methods"] == allowed.split(", ")
