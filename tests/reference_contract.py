"""Strict shapes: a response or event against the reference's own schema, every object
closed (a key the reference does not list is refused), as the reference's test suite
checks its own answers.

The reference document (`../shared/reference/zulip-openapi.yaml`, found by
`tests/reference_schema.py`) describes feature level 378. The functional tests pass
every success response through `check_reference_response` (in `call_api`) and every
event through `check_reference_event`: whatever operation or event type the reference
declares is checked strictly. Operations and events newer than the document are
checked against the generated document only (tests/contract.py), whose objects are
closed too. (Strictness began as a list of operations and grew with each survey; when
a survey of the whole functional tier found no problem, the list gave way to all.)

The only keys allowed beyond the reference are this server's extensions, each sent only
to a client that asks for it (docs/feature-levels.md, "Extensions").
"""
from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from typing import Any

from chalicelib.core import feature_levels
from tests.reference_schema import _document, _has_type, folded, renamed

API_PREFIX = "/api/v1"

# Key -> how a client asks for it. Nothing else beyond the reference is allowed.
EXTENSIONS: dict[str, str] = {
    "event_queue_websocket_url": "client_capabilities.teamchat_websocket (POST /register), "
                                 "include_teamchat_extensions (GET /server_settings)",
    # An organization setting of this server's own, in realm update_dict events.
    "empty_topic_display_name": "client_capabilities.teamchat_realm_settings (POST /register)",
}

# Keys the reference added after its document's level (378) come from the level table
# (chalicelib/core/feature_levels.py, each change's `sends`): a key is allowed only while
# the advertised level reaches the change that adds it, as a client of that level
# expects. The document marks some keys of later levels with a placeholder level
# ("feature level ZF-..."): those are held to the table too.
_PLACEHOLDER_LEVEL = re.compile(r"New in Zulip [\d.]+ \(feature level ZF-")


def later_reference_fields() -> dict[str, int]:
    """key -> the lowest level of the table that sends it."""
    levels: dict[str, int] = {}
    for change in feature_levels.CHANGES:
        for name in change.sends:
            key = name.split(".", 1)[1]
            levels[key] = min(levels.get(key, change.level), change.level)
    return levels


def later_event_ops() -> dict[str, int]:
    """"type/op" of events newer than the reference document -> the level that adds it
    (the table's `sends` of shape "event")."""
    levels: dict[str, int] = {}
    for change in feature_levels.CHANGES:
        for name in change.sends:
            shape, key = name.split(".", 1)
            if shape == "event":
                levels[key] = min(levels.get(key, change.level), change.level)
    return levels


def _later_field_problem(key: str, path: str) -> str | None:
    level = later_reference_fields().get(key)
    if level is None:
        return f"{path}.{key}: not in the reference"
    if level > feature_levels.advertised_level():
        return (f"{path}.{key}: added at level {level}, above the advertised "
                f"{feature_levels.advertised_level()}")
    return None


# Where the reference's own server sends what its document's schema leaves out, as its own
# event checks (zerver/lib/event_types.py) or the field's description say: (event type,
# the start of the problem, which events) let through.
REFERENCE_SCHEMA_GAPS: list[tuple[str, str, Callable[[dict[str, Any]], bool]]] = [
    # check_stream_update accepts None for message_retention_days (back to the
    # organization's default); folder_id is null out of a folder (level 389).
    ("stream", "event.value: null, not allowed",
     lambda event: event.get("property") in {"message_retention_days", "folder_id"}),
    # The description: "" when the status has no emoji; the enumeration omits it.
    ("user_status", "event.reaction_type: '' not among", lambda event: True),
]

class ReferenceShapeError(AssertionError):
    """A response or event with a key, type or value the reference does not allow."""


# A survey: with REFERENCE_SURVEY=<file>, each problem is appended to the file instead of
# failing the test, with a "CHECKED <operation or event type>" line per check, so what
# passed can be told from what no test reached.
SURVEY = os.environ.get("REFERENCE_SURVEY")


def _surveyed(what: str) -> None:
    """In a survey, notes that `what` was checked, so that what passed can be told from
    what no test reached."""
    if SURVEY:
        with open(SURVEY, "a", encoding="utf-8") as handle:
            handle.write(f"CHECKED {what}\n")


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
                if _PLACEHOLDER_LEVEL.search(str(folded(listed[key]).get("description", ""))):
                    later = _later_field_problem(key, path)
                    problems += [later] if later else []
                problems += strict_problems(item, listed[key], f"{path}.{key}")
            elif isinstance(extra, dict):
                entry = strict_problems(item, extra, f"{path}{{{key}}}")
                if entry and key in later_reference_fields():
                    # Not an entry: a named key a later level added beside the keyed
                    # entries (the presence object's active_timestamp beside clients).
                    later = _later_field_problem(key, path)
                    entry = [later] if later else []
                problems += entry
            elif key not in EXTENSIONS and (listed or extra is False):
                later = _later_field_problem(key, path)
                problems += [later] if later else []
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
    """A success response against the reference's schema, if the reference declares its
    operation."""
    if status != 200:
        return
    operation = reference_operation(method, url)
    if operation is None:
        return
    _surveyed(operation)
    verb, template = operation.split(" ", 1)
    content = _document()["paths"][template][verb.lower()]["responses"]["200"]
    content = folded(content) if "$ref" in content else content
    schema = content["content"]["application/json"]["schema"]
    value = json.loads(body)
    if operation == "GET /events":
        # The envelope only: each event is checked by itself (check_reference_event);
        # some types are newer than the reference.
        value = {**value, "events": []}
    problems = strict_problems(value, schema, "response")
    if problems:
        _refuse(f"{operation} -> {status}: " + "\n".join(problems[:10]))


@functools.cache
def _event_alternatives() -> list[dict[str, Any]]:
    from tests.reference_schema import response_schema
    events = response_schema("/events", "get")["properties"]["events"]["items"]
    return [folded(alternative) for alternative in folded(events)["oneOf"]]


def _reference_gap(event: dict[str, Any], problem: str) -> bool:
    return any(event.get("type") == kind and problem.startswith(start) and applies(event)
               for kind, start, applies in REFERENCE_SCHEMA_GAPS)


def check_reference_event(event: dict[str, Any], what: str) -> None:
    """An event as a client receives it (with its `id`), if the reference declares its
    type."""
    later = later_event_ops().get(f"{event['type']}/{event.get('op')}")
    if later is not None:
        # An op the reference added after its document (the generated document checks
        # its shape): only once the advertised level reaches it.
        if later > feature_levels.advertised_level():
            _refuse(f"{what}: added at level {later}, above the advertised "
                    f"{feature_levels.advertised_level()}")
        return
    candidates = [a for a in _event_alternatives()
                  if event["type"] in folded(a["properties"]["type"]).get("enum", ())]
    if not candidates:
        return   # an event type newer than the reference: the generated document checks it
    _surveyed(f"event {event['type']}")
    found = [[problem for problem in strict_problems(event, alternative, "event")
              if not _reference_gap(event, problem)] for alternative in candidates]
    if not any(not problems for problems in found):
        best = min(found, key=len)
        _refuse(f"{what}: " + "\n".join(best[:10]))
