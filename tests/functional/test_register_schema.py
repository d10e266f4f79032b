"""POST /register against the reference's registration schema, fetch type by fetch type.

The reference says in each key's description which fetch type brings it ("Present if
`realm` is present in `fetch_event_types`"); for the few keys whose description says
nothing, UNLABELLED below says where the reference's server puts them. A realm with at
least one of everything is registered with each fetch type alone, with the pairs some
keys need, and with all of them; every key of the requested types must be there with the
reference's JSON types, nested objects included.
"""
from __future__ import annotations

import pytest

from chalicelib.actions.users.system_bots import notification_bot
from chalicelib.core.feature_levels import withheld
from tests.functional.test_realm_emoji import add as add_emoji
from tests.reference_schema import fetch_types_of, problems, register_keys

# The fetch types this API implements (issue 12).
FETCH_TYPES = (
    "realm_user", "user_settings", "realm", "subscription", "message", "update_message_flags",
    "presence", "recent_private_conversations", "muted_users", "realm_user_groups",
    "realm_emoji", "realm_playgrounds", "saved_snippets", "user_status", "user_topic",
    "alert_words", "custom_profile_fields", "default_streams", "realm_bot", "stream",
    "starred_messages",
)
ALWAYS = frozenset()
# Keys whose description names no fetch type: where the reference's server sends them.
UNLABELLED: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(("result", "msg", "queue_id", "last_event_id", "service_feature_level",
                     "service_version", "service_merge_base"), ALWAYS),
    "ignored_parameters_unsupported": None,   # only when unknown parameters were sent
    "demo_organization_scheduled_deletion_date": None,   # only for demo organizations
    "drafts": frozenset({"drafts"}),
    "receives_typing_notifications": frozenset({"update_display_settings"}),
    # The realm's settings and the server's limits come with `realm`.
    **dict.fromkeys((
        "server_presence_ping_interval_seconds", "server_presence_offline_threshold_seconds",
        "realm_date_created", "server_typing_started_expiry_period_milliseconds",
        "server_typing_stopped_wait_period_milliseconds",
        "server_typing_started_wait_period_milliseconds",
        "realm_message_edit_history_visibility_policy", "realm_can_add_subscribers_group",
        "realm_can_create_groups", "realm_can_create_bots_group",
        "realm_can_create_write_only_bots_group", "realm_can_manage_all_groups",
        "realm_can_manage_billing_group", "realm_can_create_public_channel_group",
        "realm_can_create_private_channel_group", "realm_can_create_web_public_channel_group",
        "realm_can_resolve_topics_group", "realm_create_multiuse_invite_group",
        "realm_require_unique_names", "realm_video_chat_provider", "realm_jitsi_server_url",
        "realm_direct_message_initiator_group", "realm_direct_message_permission_group",
        "realm_can_access_all_users_group", "realm_can_summarize_topics_group",
        "server_thumbnail_formats", "server_jitsi_server_url",
        "realm_moderation_request_channel_id"), frozenset({"realm"})),
}
# Nested keys the reference's schema lists but its description says are never there:
# registration's two lists of people leave out is_active (the list says it).
# test_register_state.py::test_listed_people_carry_no_is_active holds them absent.
NEVER_SENT = frozenset({"realm_users[].is_active", "realm_non_active_users[].is_active"})
# Nested keys the reference's own server leaves out in the situation named.
MAY_BE_ABSENT = NEVER_SENT | frozenset({
    # Legacy presence: the "aggregated" entry has no `pushable` (the reference says so).
    "presences{}{}.pushable",
    # Users: bots carry no profile data; humans no bot type or owner.
    "realm_users[].profile_data", "realm_users[].bot_type", "realm_users[].bot_owner_id",
    "realm_non_active_users[].profile_data", "realm_non_active_users[].bot_type",
    "realm_non_active_users[].bot_owner_id",
    "cross_realm_bots[].profile_data", "cross_realm_bots[].bot_owner_id",
    # Rendered only for field types that render Markdown.
    "realm_users[].profile_data{}.rendered_value",
    "realm_non_active_users[].profile_data{}.rendered_value",
    # Subscribers only when include_subscribers is asked for (asked for below).
    # A status lists only what is set.
    "user_status{}.away", "user_status{}.status_text", "user_status{}.emoji_name",
    "user_status{}.emoji_code", "user_status{}.reaction_type",
    # Still images only for animated emoji.
    "realm_emoji{}.still_url",
    # Only for a method that is not available.
    "realm_authentication_methods{}.unavailable_reason",
    # Channel fields of levels above the advertised one (the document marks
    # topics_policy with a placeholder level): held back until that level.
    *(f"{channels}[].{key}" for key in withheld("channel")
      for channels in ("subscriptions", "unsubscribed", "never_subscribed", "streams")),
})


def requirements() -> dict[str, frozenset[str] | None]:
    """Every top-level key (renamed) with the fetch types it needs."""
    keys = register_keys()
    found = {name: fetch_types_of(schema) for name, schema in keys.items()}
    unlabelled = {name for name, needs in found.items() if needs is None}
    assert unlabelled == set(UNLABELLED), (
        "keys without a 'Present if' description changed: "
        f"new {sorted(unlabelled - set(UNLABELLED))}, gone {sorted(set(UNLABELLED) - unlabelled)}")
    # Keys the document lists from levels above the advertised one (it marks a few with a
    # placeholder level) are held back until that level (feature_levels.CHANGES).
    return {name: needs for name, needs in {**found, **UNLABELLED}.items()
            if name not in withheld("register")}


def test_the_mapping_finds_keys_for_every_fetch_type():
    needs = requirements()
    # The reference lists far more than this API implements: a mapping that found
    # nothing would make the registration test below check nothing.
    assert len(needs) > 200
    for fetch_type in FETCH_TYPES:
        keys = [name for name, types in needs.items() if types and fetch_type in types]
        assert keys, f"no key of the reference belongs to {fetch_type}"
    assert needs["unread_msgs"] == {"message", "update_message_flags"}
    assert needs["service_feature_level"] == ALWAYS
    assert needs["realm_service_update_announcements_stream_id"] == {"realm"}


def _populate(realm, drain_events) -> None:
    """One of everything the state lists, seen by the owner, so item shapes are checked."""
    owner = realm.owner
    assert owner.post("/users/me/subscriptions", {"subscriptions": [
        {"name": "general"}, {"name": "design"}]}).ok
    assert realm.member.post("/users/me/subscriptions", {"subscriptions": [
        {"name": "elsewhere"}]}).ok
    streams = {s["name"]: s["stream_id"] for s in owner.get("/streams").json["streams"]}
    assert owner.patch(f"/streams/{streams['general']}", {"is_default_stream": True}).ok
    sent = owner.post("/messages", {"type": "stream", "to": "general", "topic": "hello",
                                    "content": "hi @**Max Member**"})
    assert sent.ok
    assert owner.post("/messages/flags", {"messages": [sent.json["id"]], "op": "add",
                                          "flag": "starred"}).ok
    assert realm.member.post("/messages", {"type": "direct", "to": [owner.user_id],
                                           "content": "hello"}).ok
    assert owner.post("/bots", {"full_name": "Helper Bot", "short_name": "helper"}).ok
    assert add_emoji(owner, "green_tick").ok
    assert owner.post("/realm/playgrounds", {"name": "Python", "pygments_language": "Python",
                                             "url_template": "https://p.example/?c={code}"}).ok
    assert owner.post("/saved_snippets", {"title": "Hi", "content": "Hello!"}).ok
    assert owner.post("/users/me/status", {"status_text": "Busy"}).ok
    assert realm.member.post("/users/me/presence", {"status": "active"}).ok
    assert owner.post("/user_topics", {"stream_id": streams["general"], "topic": "hello",
                                       "visibility_policy": 1}).ok
    assert owner.post("/users/me/alert_words", {"alert_words": ["urgent"]}).ok
    assert owner.post("/realm/profile_fields", {"field_type": 1, "name": "Team"}).ok
    assert owner.post("/user_groups/create", {"name": "Leads", "description": "They lead",
                                              "members": [owner.user_id]}).ok
    assert owner.delete(f"/users/{realm.add_user('Gone Soon').user_id}").ok
    notification_bot(realm.realm_id)   # made on first use, e.g. by a topic move
    assert owner.delete("/users/me/subscriptions", {"subscriptions": ["design"]}).ok
    drain_events()   # the fan-out records conversations and unread messages


def _register(account, fetch_types: list[str]) -> dict:
    response = account.post("/register", {
        "fetch_event_types": fetch_types, "include_subscribers": True,
        "client_capabilities": {"user_settings_object": True, "empty_topic_name": True,
                                "include_deactivated_groups": True,
                                "archived_channels": True}})
    assert response.ok, response.json
    return response.json


def test_register_has_every_reference_key_of_each_fetch_type(realm, drain_events, advertise):
    advertise(473)  # the reference document's shapes: bots slim from 474
    # GIVEN an organization with one of everything, and the reference's keys by fetch type
    _populate(realm, drain_events)
    needs = requirements()
    keys = register_keys()
    asked: list[frozenset[str]] = [frozenset({t}) for t in FETCH_TYPES]
    asked += sorted({types for types in needs.values() if types and len(types) > 1
                     and types <= set(FETCH_TYPES)}, key=sorted)
    asked.append(frozenset(FETCH_TYPES))
    failures: list[str] = []
    for fetch_types in asked:
        # WHEN the owner registers with these fetch types
        body = _register(realm.owner, sorted(fetch_types))
        # THEN every key they bring is there, of the reference's types
        label = "+".join(sorted(fetch_types)) if len(fetch_types) < 3 else "all"
        for name, types in needs.items():
            if types is None or not types <= fetch_types:
                continue
            if name not in body:
                failures.append(f"[{label}] {name}: missing")
                continue
            failures += [f"[{label}] {p}" for p in problems(body[name], keys[name], name,
                                                             MAY_BE_ABSENT)]
    assert not failures, f"{len(failures)} problems:\n" + "\n".join(failures)
    # AND the lists had items, so their items' shapes were checked too
    empty = {name for name, value in body.items()
             if isinstance(value, (list, dict)) and not value}
    assert empty == EMPTY_FOR_NOW


# Lists no feature fills yet (their items' shapes are checked once one does).
EMPTY_FOR_NOW = {"muted_users", "server_thumbnail_formats"}


@pytest.mark.parametrize("role", ["member", "guest"])
def test_every_role_gets_every_key(realm, drain_events, role):
    # GIVEN an organization with one of everything
    _populate(realm, drain_events)
    needs = requirements()
    keys = register_keys()
    # WHEN a member or a guest registers with every fetch type
    body = _register(getattr(realm, role), list(FETCH_TYPES))
    # THEN every key is there with the reference's types
    failures = [f"{name}: missing" for name, types in needs.items()
                if types and types <= set(FETCH_TYPES) and name not in body]
    failures += [p for name, types in needs.items() if types and name in body
                 and types <= set(FETCH_TYPES)
                 for p in problems(body[name], keys[name], name, MAY_BE_ABSENT)]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("param", ["fetch_event_types", "event_types"])
def test_unknown_types_are_ignored(realm, param):
    # GIVEN a client that names a type this server does not know, beside a known one
    response = realm.member.post("/register", {param: ["no_such_type", "alert_words"]})
    # THEN registration succeeds with the known type's state
    assert response.ok, response.json
    assert response.json["alert_words"] == []
    assert "no_such_type" not in response.json


@pytest.mark.parametrize("params, message", [
    ({"event_types": ["x"] * 201}, "Too many event_types: at most 200."),
    ({"fetch_event_types": ["x" * 101]},
     "Invalid fetch_event_types: names are at most 100 characters."),
    ({"narrow": [["topic", "y" * 201]]},
     "Invalid narrow term: operands are at most 200 characters."),
    ({"narrow": [["topic", "t"]] * 21}, "Invalid narrow: at most 20 terms."),
    ({"client_capabilities": {"k" * 101: True}},
     "Invalid client_capabilities: at most 50 names of at most 100 characters."),
    ({"client_capabilities": {"notification_settings_null": "x" * 1000}},
     "Invalid client_capabilities: each value must be a boolean."),
])
def test_oversized_registrations_are_refused(realm, params, message):
    # Queues store these: too large an item would make DynamoDB refuse the write.
    response = realm.member.post("/register", params)
    assert (response.status, response.json["code"], response.json["msg"]) == (
        400, "BAD_REQUEST", message)
