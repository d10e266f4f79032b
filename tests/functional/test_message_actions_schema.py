"""Reactions, deletion, edit history, preview and presence against the reference's
schemas: every response and event has each key the reference lists (but those it says
may be absent), of its JSON type, and no key it does not list."""
from __future__ import annotations

from typing import Any

from tests.functional.edit_helpers import channel, send
from tests.reference_schema import event_schemas, problems, renamed, response_schema

ENVELOPE_ONLY = frozenset({"ignored_parameters_unsupported"})


def check(value: dict[str, Any], schema: dict[str, Any], may_be_absent: frozenset[str],
          path: str = "response") -> list[str]:
    """Schema problems, plus keys the schema does not list (its objects are closed)."""
    found = problems(value, schema, path, may_be_absent | {f"{path}.{k}" for k in
                                                           ENVELOPE_ONLY})
    listed = {renamed(k) for k in schema.get("properties", {})}
    found += [f"{path}.{k}: not in the reference" for k in set(value) - listed]
    return found


def test_responses_have_the_reference_shapes(realm, drain_events, advertise):
    advertise(473)  # the reference document's shapes, before 484's reactions and 487's presence
    channel(realm.owner, "general", [realm.owner, realm.member])
    stream_id = realm.owner.get("/get_stream_id", {"stream": "general"}).json["stream_id"]
    message_id = send(realm.member, "general", "lunch", "first")
    assert realm.member.patch(f"/messages/{message_id}", {"content": "second",
                                                          "topic": "dinner"}).ok
    cases = [
        ("/messages/{message_id}/history", "get",
         realm.owner.get(f"/messages/{message_id}/history"),
         # absent where that edit did not change them, as the reference says
         {"response.message_history[].prev_topic", "response.message_history[].stream",
          "response.message_history[].prev_stream", "response.message_history[].prev_content",
          "response.message_history[].prev_rendered_content",
          "response.message_history[].content_html_diff"}),
        ("/messages/render", "post", realm.owner.post("/messages/render",
                                                      {"content": "**x**"}), set()),
        ("/messages/matches_narrow", "get", realm.owner.get("/messages/matches_narrow", {
            "msg_ids": [message_id], "narrow": [["channel", "general"]]}), set()),
        ("/users/me/presence", "post", realm.member.post("/users/me/presence", {
            "status": "active"}),
         {"response.zephyr_mirror_active",   # deprecated; only for mirror realms
          "response.presences{}{}.pushable"}),   # not in the "aggregated" entry
        ("/users/me/presence", "post", realm.owner.post("/users/me/presence", {
            "status": "idle", "last_update_id": -1}),
         {"response.zephyr_mirror_active"}),
        ("/realm/presence", "get", realm.owner.get("/realm/presence"),
         {"response.presences{}{}.pushable"}),
        ("/users/{user_id_or_email}/presence", "get",
         realm.owner.get(f"/users/{realm.member.user_id}/presence"), set()),
        ("/streams/{stream_id}/delete_topic", "post",
         realm.owner.post(f"/streams/{stream_id}/delete_topic", {"topic_name": "other"}),
         set()),
    ]
    failures = []
    for path, method, response, absent in cases:
        assert response.ok, (path, response.json)
        failures += [f"{method.upper()} {path}: {p}" for p in check(
            response.json, response_schema(path, method), frozenset(absent))]
    assert not failures, "\n".join(failures)


def test_events_have_the_reference_shapes(
        realm, register_queue, fetch_events, drain_events, advertise):
    advertise(473)  # the reference document's shapes, before 484's reactions and 487's presence
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.member, "general", "t", "x")
    drain_events()
    bulk = register_queue(realm.owner, event_types=["reaction", "delete_message", "presence"],
                          client_capabilities={"bulk_message_deletion": True})["queue_id"]
    legacy = register_queue(realm.owner, event_types=["delete_message"])["queue_id"]
    assert realm.member.post(f"/messages/{message_id}/reactions", {"emoji_name": "tada"}).ok
    assert realm.member.delete(f"/messages/{message_id}/reactions",
                               {"emoji_name": "tada"}).ok
    assert realm.member.post("/users/me/presence", {"status": "active"}).ok
    assert realm.member.delete(f"/messages/{message_id}").ok
    drain_events()
    events = fetch_events(realm.owner, bulk) + fetch_events(realm.owner, legacy)
    assert sorted(e["type"] for e in events) == [
        "delete_message", "delete_message", "presence", "reaction", "reaction"]
    # The user object's is_mirror_dummy is left out by the reference's own server; each
    # delete_message form carries one of message_id and message_ids.
    absent = frozenset({"event.user.is_mirror_dummy", "event.message_id", "event.message_ids"})
    failures = []
    for event in events:
        alternatives = [check(event, schema, absent, "event")
                        for schema in event_schemas(event["type"])]
        if all(alternatives):
            failures.append(f"{event['type']}: " + " | ".join("; ".join(a) for a in alternatives))
    assert not failures, "\n".join(failures)
