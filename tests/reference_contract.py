"""Strict shapes: a response or event against the reference's own schema, every object
closed (a key the reference does not list is refused), as the reference's test suite
checks its own answers.

The reference document (`../shared/reference/zulip-openapi.yaml`, found by
`tests/reference_schema.py`) describes feature level 378. The functional tests pass
the responses of `STRICT_OPERATIONS` through `check_reference_response` (in `call_api`)
and the events of `STRICT_EVENTS` through `check_reference_event`; operations and
events newer than the document are checked against the generated document only
(tests/contract.py), whose objects are closed too.

The only keys allowed beyond the reference are this server's extensions, each sent only
to a client that asks for it (docs/feature-levels.md, "Extensions").
"""
from __future__ import annotations

import functools
import json
import os
import re
from typing import Any

from tests.reference_schema import _document, _has_type, folded, renamed

API_PREFIX = "/api/v1"

# Key -> how a client asks for it. Nothing else beyond the reference is allowed.
EXTENSIONS: dict[str, str] = {
    "event_queue_websocket_url": "client_capabilities.teamchat_websocket (POST /register), "
                                 "include_teamchat_extensions (GET /server_settings)",
}

# Keys the reference added after its document's level (378), from its published changelog:
# key -> the level that added it. They are the reference's, so a strict client built on
# its current schema knows them.
LATER_REFERENCE_FIELDS: dict[str, int] = {
    "folder_id": 389, "navigation_views": 390, "topics_policy": 392, "subscriber_count": 394,
    "can_move_messages_within_channel_group": 396,
    "can_move_messages_out_of_channel_group": 396, "can_resolve_topics_group": 402,
    "can_delete_any_message_group": 407, "can_delete_own_message_group": 407,
    "resolved_topic_notice_auto_read_policy": 385, "channel_folders": 389,
}

# "METHOD /reference/path/template": the operations whose success responses are refused
# any key the reference does not list.
STRICT_OPERATIONS = frozenset({
    "GET /server_settings",
    "GET /users", "GET /users/{user_id}", "GET /users/{email}", "GET /users/me",
    "POST /users/me/subscriptions", "POST /users/me/subscriptions/properties",
    "GET /users/me/subscriptions", "DELETE /users/me/subscriptions",
    "GET /get_stream_id", "GET /streams", "GET /streams/{stream_id}",
    "GET /messages", "GET /messages/{message_id}", "POST /messages",
    "GET /invites", "POST /invites/multiuse", "POST /invites",
    "DELETE /invites/multiuse/{invite_id}",
    "GET /saved_snippets", "GET /drafts", "GET /alert_words",
})

# Event types whose events are refused any key the reference does not list.
STRICT_EVENTS = frozenset({"subscription", "message", "navigation_view", "saved_snippets",
                           "invites_changed", "alert_words"})


class ReferenceShapeError(AssertionError):
    """A response or event with a key, type or value the reference does not allow."""


# A survey of what strictness everywhere would refuse: with REFERENCE_SURVEY=<file>, every
# operation and event type is checked and each problem is appended to the file instead of
# failing the test (docs/feature-levels.md, "Strict shapes").
SURVEY = os.environ.get("REFERENCE_SURVEY")


def _refuse(message: str) -> None:
    if SURVEY:
        with open(SURVEY, "a", encoding="utf-8") as handle:
            handle.write(message.replace("\n", " || ") + "\n")
        return
    raise ReferenceShapeError(message)


def strict_problems(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    """What in `value` the schema refuses: a missing required key, a value of another
    type or outside an enumeration, or a key the schema does not list (extensions
    excepted)."""
    schema = folded(schema)
    if value is None:
        return [] if schema.get("nullable") else [f"{path}: null, not allowed"]
    alternatives = schema.get("oneOf") or schema.get("anyOf")
    if alternatives:
        found = [strict_problems(value, alternative, path) for alternative in alternatives]
        if any(not problems for problems in found):
            return []
        best = min(found, key=len)
        return [f"{path}: matches no alternative; nearest: " + "; ".join(best[:4])]
    kind = schema.get("type")
    if kind is None and "properties" in schema:
        kind = "object"
    if kind is not None and not _has_type(value, kind):
        return [f"{path}: {type(value).__name__} {value!r:.60}, expected {kind}"]
    # Values follow the naming rule too (zulip_extra_emoji is service_extra_emoji here).
    allowed = [renamed(v) if isinstance(v, str) else v for v in schema.get("enum", ())]
    if "enum" in schema and value not in allowed:
        return [f"{path}: {value!r:.60} not among {allowed}"]
    problems: list[str] = []
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            problems += strict_problems(item, schema["items"], f"{path}[{index}]")
            if problems:
                break   # one bad item tells enough
    if isinstance(value, dict):
        listed = {renamed(name): sub for name, sub in (schema.get("properties") or {}).items()}
        extra = schema.get("additionalProperties")
        for name in schema.get("required") or ():
            if renamed(name) not in value:
                problems.append(f"{path}.{renamed(name)}: missing")
        for key, item in value.items():
            if key in listed:
                problems += strict_problems(item, listed[key], f"{path}.{key}")
            elif isinstance(extra, dict):
                problems += strict_problems(item, extra, f"{path}{{{key}}}")
            elif key not in EXTENSIONS and key not in LATER_REFERENCE_FIELDS and (
                    listed or extra is False):
                problems.append(f"{path}.{key}: not in the reference")
    return problems


@functools.cache
def _routes() -> list[tuple[str, re.Pattern[str], str]]:
    found = []
    for template, item in _document()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "$")
        for method in item:
            found.append((method.upper(), pattern, template))
    # Literal segments first: /users/me before /users/{user_id}.
    return sorted(found, key=lambda r: r[2].count("{"))


def reference_operation(method: str, url: str) -> str | None:
    """"METHOD /template" of the reference operation a request URL is for."""
    path = url.split("?", 1)[0].removeprefix(API_PREFIX)
    for route_method, pattern, template in _routes():
        if route_method == method.upper() and pattern.match(path):
            if template == "/users/{email}" and path.rsplit("/", 1)[-1].isdigit():
                continue
            return f"{route_method} {template}"
    return None


def check_reference_response(method: str, url: str, status: int, body: bytes) -> None:
    if status != 200:
        return
    operation = reference_operation(method, url)
    if operation is None or (operation not in STRICT_OPERATIONS and not SURVEY):
        return
    verb, template = operation.split(" ", 1)
    content = _document()["paths"][template][verb.lower()]["responses"]["200"]
    content = folded(content) if "$ref" in content else content
    schema = content["content"]["application/json"]["schema"]
    problems = strict_problems(json.loads(body), schema, "response")
    if problems:
        _refuse(f"{operation} -> {status}: " + "\n".join(problems[:10]))


@functools.cache
def _event_alternatives() -> list[dict[str, Any]]:
    from tests.reference_schema import response_schema
    events = response_schema("/events", "get")["properties"]["events"]["items"]
    return [folded(alternative) for alternative in folded(events)["oneOf"]]


def check_reference_event(event: dict[str, Any], what: str) -> None:
    """An event as a client receives it (with its `id`)."""
    if event.get("type") not in STRICT_EVENTS and not SURVEY:
        return
    candidates = [a for a in _event_alternatives()
                  if event["type"] in folded(a["properties"]["type"]).get("enum", ())]
    if not candidates:
        return   # an event type newer than the reference: the generated document checks it
    found = [strict_problems(event, alternative, "event") for alternative in candidates]
    if not any(not problems for problems in found):
        best = min(found, key=len)
        _refuse(f"{what}: " + "\n".join(best[:10]))
