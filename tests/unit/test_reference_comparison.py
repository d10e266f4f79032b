"""The generated document against the reference's, for the operations both declare.

The seed endpoints (the spec's §4, registration, sending and fetching messages, events,
users, channels, subscriptions) may differ from the reference only as listed below: each
difference is either an extension (documented by the spec or deliberate) or a reference
parameter not supported yet (the server lists it in `ignored_parameters_unsupported`).
Both lists only shrink: an entry that is no longer a difference fails the test too.
"""
from __future__ import annotations

import json

import pytest

from chalicelib.apidocs import DOCUMENT
from tests.reference_diff import differences, load_reference

SEED_OPERATIONS = [
    # §4.1-§4.22
    "PATCH /messages/{message_id}", "PATCH /settings", "POST /typing",
    "PATCH /streams/{stream_id}", "GET /events", "POST /users/me/subscriptions/properties",
    "PATCH /users/me/subscriptions/muted_topics", "POST /invites",
    "POST /users/{user_id}/status", "POST /users/me/status", "POST /invites/multiuse",
    "GET /users/me/{stream_id}/topics", "POST /user_groups/{user_group_id}/members",
    "POST /user_groups/{user_group_id}/subgroups", "POST /messages/{message_id}/typing",
    "POST /saved_snippets", "PATCH /saved_snippets/{saved_snippet_id}",
    "POST /realm/playgrounds", "DELETE /users/{user_id}", "GET /users/me",
    "GET /server_settings",
    # registration, messages, events, users, channels, subscriptions
    "POST /register", "POST /messages", "GET /messages", "GET /messages/{message_id}",
    "DELETE /events", "GET /users", "GET /users/{user_id}", "POST /users", "GET /streams",
    "GET /streams/{stream_id}", "GET /get_stream_id", "GET /users/me/subscriptions",
    "POST /users/me/subscriptions", "DELETE /users/me/subscriptions",
]

# Differences that are ours on purpose.
EXTENSIONS = {
    # §4.1: the deprecated alias of `topic`, and the edit-race guard new in 11.0 (379).
    "PATCH /messages/{message_id}: parameter only here: subject",
    "PATCH /messages/{message_id}: parameter only here: prev_content_sha256",
    # The deprecated alias of `topic`, as the edit endpoint takes it.
    "POST /messages: parameter only here: subject",
    # §4.4: 11.0's channel settings (388, 389, 407), newer than the reference.
    "PATCH /streams/{stream_id}: parameter only here: is_archived",
    "PATCH /streams/{stream_id}: parameter only here: folder_id",
    "PATCH /streams/{stream_id}: parameter only here: can_delete_any_message_group",
    "PATCH /streams/{stream_id}: parameter only here: can_delete_own_message_group",
    "PATCH /streams/{stream_id}: parameter only here: can_move_messages_out_of_channel_group",
    # §4.5: the registration parameters instead of `queue_id` register a queue; the
    # answer then carries POST /register's fields too (see registration_fields below).
    "GET /events: parameter queue_id: required here False, in the reference True",
    *(f"GET /events: parameter only here: {name}" for name in (
        "all_public_streams", "apply_markdown", "client_capabilities", "client_gravatar",
        "event_types", "narrow")),
    # §4.8, §4.11: welcome_message_custom_text is new in 11.0 (416).
    "POST /invites: parameter only here: welcome_message_custom_text",
    "POST /invites/multiuse: parameter only here: welcome_message_custom_text",
    # 11.0's channel folders (a fetch type newer than the reference).
    "POST /register: response field only here: channel_folders",
    # Issue 14: where the push channel is served (README, "Real-time events over a
    # WebSocket"); null where it is not. Issue 27: sent only to a client that asks, with
    # the client capability teamchat_websocket or include_teamchat_extensions.
    "GET /server_settings: response field only here: event_queue_websocket_url",
    "GET /server_settings: parameter only here: include_teamchat_extensions",
    "POST /register: response field only here: event_queue_websocket_url",
    # Declared by the user record type GET /users/me shares, but never sent there (a bot
    # reads its type and owner from GET /users/{id}, as in the reference).
    "GET /users/me: response field only here: bot_type",
    "GET /users/me: response field only here: bot_owner_id",
    # Newer than the reference document (docs/feature-levels.md): GET /users user_ids
    # (384), resolved_topic_notice_auto_read_policy (385), navigation views (390).
    "GET /users: parameter only here: user_ids",
    "PATCH /settings: parameter only here: resolved_topic_notice_auto_read_policy",
    "POST /register: response field only here: navigation_views",
    # Levels 446 to 500, newer than the reference document (docs/feature-levels.md).
    "POST /register: parameter only here: idle_queue_timeout",
    *(f"POST /register: response field only here: {name}" for name in (
        "idle_queue_timeout_secs", "devices",
        # Level 409 (the levels branch's work, taken for level 500).
        "realm_require_e2ee_push_notifications")),
    # Levels 467-499 of the levels3 branch, one line each.
    "POST /register: response field only here: realm_media_preview_size",
    "POST /register: response field only here: realm_workplace_users_group",
    # Levels 446-466 (the levels2 branch): the GIF rating's names (453), realm_uuid (466).
    *(f"POST /register: response field only here: {name}" for name in (
        "realm_gif_rating_policy", "gif_rating_policy_options", "realm_uuid",
        "realm_default_avatar_source")),   # level 456
    "DELETE /users/{user_id}: parameter only here: actions",   # level 459
    # One route serves GET /users/{user_id} and GET /users/{email} (and one PATCH
    # /users/{user_id} and PATCH /users/{email}; PATCH is not among the seed operations).
    ("GET /users/{user_id}: parameter user_id: type ['string'] here, ['integer'] in the "
     "reference"),
    # Issue 21: anchor=date with anchor_date, newer than the reference copy here.
    "GET /messages: parameter only here: anchor_date",
    # Levels 391 to 445, newer than the reference document (docs/feature-levels.md).
    *(f"PATCH /streams/{{stream_id}}: parameter only here: {name}" for name in (
        "can_move_messages_within_channel_group", "can_resolve_topics_group",
        "can_create_topic_group")),
    *(f"POST /register: response field only here: {name}" for name in (
        "realm_can_set_delete_message_policy_group", "reminders",
        "max_reminder_note_length", "max_bulk_new_subscription_messages",
        "max_channel_folder_name_length", "max_channel_folder_description_length",
        "gif_rating_options", "realm_owner_full_content_access",
        "server_report_message_types", "tenor_api_key",
        "realm_require_e2ee_push_notifications", "realm_welcome_message_custom_text",
        "realm_send_channel_events_messages")),
    "GET /users/me: response field only here: is_imported_stub",
    "POST /users/me/subscriptions: parameter only here: send_new_subscription_messages",
    "POST /users/me/subscriptions: response field only here: new_subscription_messages_sent",
    *(f"PATCH /settings: parameter only here: {name}" for name in (
        "web_left_sidebar_unreads_count_summary", "web_left_sidebar_show_channel_folders",
        "web_inbox_show_channel_folders", "target_users")),
    # Administrators may create an account without a password (it cannot log in with one).
    "POST /users: parameter password: required here False, in the reference True",
}

# Reference parameters not supported yet: sent anyway, they are listed in
# `ignored_parameters_unsupported`. Each is a feature to build, not a type to declare.
NOT_SUPPORTED_YET = {
    "PATCH /streams/{stream_id}: parameter only in the reference: can_send_message_group",
    "PATCH /streams/{stream_id}: parameter only in the reference: can_subscribe_group",
    # POST /register: the keys of fetch types (or parts of them) not implemented yet.
    *(f"POST /register: response field only in the reference: {name}" for name in (
        "demo_organization_scheduled_deletion_date", "giphy_api_key", "has_zoom_token",
        "navigation_tour_video_url", "onboarding_steps", "realm_billing",
        "realm_default_stream_groups", "realm_domains", "realm_embedded_bots",
        "receives_typing_notifications",
        "stop_words")),
    *(f"GET /streams: parameter only in the reference: {name}" for name in (
        "include_all", "include_can_access_content", "include_owner_subscribed")),
    *(f"POST /users/me/subscriptions: parameter only in the reference: {name}" for name in (
        "can_add_subscribers_group", "can_administer_channel_group",
        "can_remove_subscribers_group", "can_send_message_group", "can_subscribe_group",
        "is_default_stream", "message_retention_days", "topics_policy")),
}


@pytest.fixture(scope="module")
def ours() -> dict:
    return json.loads(DOCUMENT.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def found(ours) -> dict[str, list[str]]:
    return differences(ours, load_reference())


def registration_fields(ours: dict) -> set[str]:
    """GET /events without a queue answers with POST /register's fields (§4.5)."""
    fields = ours["components"]["schemas"]["RegisterResult"]["properties"]
    return {f"GET /events: response field only here: {name}" for name in fields
            if name not in ("result", "msg", "ignored_parameters_unsupported")}


def test_seed_endpoints_differ_only_as_documented(found, ours):
    listed = {f"{operation}: {difference}" for operation in SEED_OPERATIONS
              for difference in found.get(operation, [])}
    allowed = EXTENSIONS | NOT_SUPPORTED_YET | registration_fields(ours)
    unexplained = sorted(listed - allowed)
    assert not unexplained, "differences from the reference:\n" + "\n".join(unexplained)
    stale = sorted((EXTENSIONS | NOT_SUPPORTED_YET) - listed)
    assert not stale, "no longer differences (remove them):\n" + "\n".join(stale)


def test_the_comparison_covers_the_seed_operations(found):
    # Every seed operation the reference declares is compared (ours all exist).
    compared = set(found)
    missing = [op for op in SEED_OPERATIONS if op not in compared]
    # The reference has no POST /users/{user_id}/status (new in 11.0, §4.9).
    assert missing == ["POST /users/{user_id}/status"]


# Reference operations this server does not declare under the reference's path, each with
# its reason. Only shrinks: an operation served since fails the test too.
NOT_SERVED = {
    # Not operations: the reference documents concepts and the bots' side under paths.
    "POST /real-time", "POST /rest-error-handling", "POST /service-outgoing-webhook",
    # Served under another spelling of the same path: /users/{user_id} (GET and PATCH
    # take an id or an email), /users/{user_id}/presence, and the upload
    # path with its random segment as a parameter of its own.
    "GET /users/{email}", "PATCH /users/{email}", "GET /users/{user_id_or_email}/presence",
    "GET /user_uploads/{realm_id_str}/{filename}",
}


def _operations(document: dict, prefix: str = "") -> set[str]:
    return {f"{method.upper()} {path.removeprefix(prefix)}"
            for path, item in document["paths"].items() for method in item
            if method in ("get", "post", "put", "patch", "delete")}


def test_every_reference_operation_is_served_or_listed(ours):
    missing = _operations(load_reference()) - _operations(ours, "/api/v1")
    assert sorted(missing - NOT_SERVED) == [], "reference operations not served"
    assert sorted(NOT_SERVED - missing) == [], "served now: remove them from NOT_SERVED"
