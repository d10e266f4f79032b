"""The level table: what the reference changed, level by level, and where this server
honours it. The advertised `service_feature_level` is computed here from the table
(docs/feature-levels.md is generated from it: `make feature-levels`).

The promise a level makes (docs/feature-levels.md, "What a level promises"): for every
change at or below it, the server answers in that level's shape and behaviour
(HONOURED), or has no such endpoint or fetch type at all (NOT_OFFERED: 404, or the key
absent, as from a server without the feature), or lists a parameter it does not apply
in `ignored_parameters_unsupported` (REPORTED, the reference's own way to say so since
level 167). One NOT_HONOURED change caps the advertised level just below it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar, cast

from chalicelib.core.level_change import (
    CONFORMANCE,
    HONOURED,
    NOT_HONOURED,
    NOT_OFFERED,
    PARTIAL_SUBSCRIBERS_LEVEL,
    REFERENCE_DOCUMENT_LEVEL,
    REPORTED,
    SHAPES,
    Change,
    Status,
)
from chalicelib.core.levels_12_late import CHANGES_446_500

__all__ = ["HONOURED", "NOT_HONOURED", "NOT_OFFERED", "PARTIAL_SUBSCRIBERS_LEVEL",
           "REFERENCE_DOCUMENT_LEVEL", "REPORTED", "SHAPES", "Change", "Status"]

# This server's own extensions: sent only to a client that asks for them.
WEBSOCKET_CAPABILITY = "teamchat_websocket"            # POST /register client_capabilities
EXTENSIONS_PARAMETER = "include_teamchat_extensions"   # GET /server_settings
# realm update_dict events for this server's own organization settings (the reference up
# to the advertised level has none of them in update_dict): empty_topic_display_name.
REALM_SETTINGS_CAPABILITY = "teamchat_realm_settings"  # POST /register client_capabilities


_DOC = CONFORMANCE

CHANGES: tuple[Change, ...] = (
    # ---- up to the reference document's level: checked against that document as a whole
    Change(REFERENCE_DOCUMENT_LEVEL,
           "Every shape the reference document (level 378) gives for the operations both "
           "declare: parameters and response fields",
           "all of chalicelib/api; the listed differences are extensions or REPORTED rows",
           "tests/unit/test_reference_comparison.py::test_seed_endpoints_differ_only_as_documented"),
    Change(REFERENCE_DOCUMENT_LEVEL,
           "Responses and events of every operation and event type the reference declares "
           "carry no key it does not list (this server's extensions only when asked for)",
           "tests/reference_contract.py, on every functional test's calls and every "
           "published example's", f"{_DOC}::test_strict_checker_refuses_an_unlisted_key"),
    Change(17, "POST /users/me/subscriptions: message_retention_days",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(46, "topic_links: objects with the matched text and its URL, from the realm's "
               "linkifiers (messages and topic-moving update_message events)",
           "actions/messages/reads/dicts.topic_link_dicts, rules/linkifiers.topic_links",
           "tests/functional/test_linkifiers.py::test_topic_names_carry_their_links"),
    Change(92, "GET /users, GET /users/{id}: client_gravatar defaults to true "
               "(avatar_url null for Gravatar avatars)",
           "api/users.py, rules/avatars.for_client", f"{_DOC}::test_users_client_gravatar_default"),
    Change(111, "POST /users/me/subscriptions/properties: no subscription_data echo",
           "actions/channels/subscription_properties.py",
           f"{_DOC}::test_subscription_properties_answer_is_the_envelope"),
    Change(163, "POST /register: realm_email_address_visibility removed",
           "registration/state/realm.py NOT_SHOWN", f"{_DOC}::test_register_has_no_removed_realm_keys"),
    Change(200, "POST /users/me/subscriptions: is_default_stream",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(285, "PATCH /users/{id}: new_email (owners with the can_change_user_emails "
                "special permission)", "actions/users/admin.py",
           "tests/functional/test_user_admin.py::"
           "test_owner_with_the_permission_changes_a_users_email"),
    Change(289, "POST /users/me/subscriptions: subscribed/already_subscribed keyed by user id",
           "actions/channels/subscriptions.py", f"{_DOC}::test_subscribe_results_are_keyed_by_user_id"),
    Change(300, "GET /messages: message_ids (and num_before/num_after optional with it)",
           "actions/messages (issue 21)", f"{_DOC}::test_messages_by_ids"),
    Change(333, "PATCH /streams/{id}, POST /users/me/subscriptions: can_send_message_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(342, "POST /users/me/subscriptions: can_add_subscribers_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(349, "POST /users/me/subscriptions: can_administer_channel_group, "
                "can_remove_subscribers_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(356, "GET /streams: include_all, include_can_access_content",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(357, "PATCH /streams/{id}, POST /users/me/subscriptions: can_subscribe_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(REFERENCE_DOCUMENT_LEVEL, "GET /messages/{id}: the message has no rendered_content "
           "(only outgoing-webhook payloads carry it)",
           "actions/messages/reads/dicts.py, actions/messages/webhook_triggers.receiver_message",
           f"{_DOC}::test_fetched_message_has_no_rendered_content"),
    Change(REFERENCE_DOCUMENT_LEVEL, "GET /invites: link_url for reusable invitation links",
           "actions/invitations/admin.py, models/invitations.link_key",
           f"{_DOC}::test_invites_list_the_link_url"),
    Change(REFERENCE_DOCUMENT_LEVEL, "GET /users/{email}", "api/users.get_user (one route)",
           f"{_DOC}::test_get_user_by_email"),
    Change(313, "PATCH /users/{email}", "api/user_admin.update_user (one route with "
           "PATCH /users/{id})", f"{_DOC}::test_update_user_by_email"),
    Change(REFERENCE_DOCUMENT_LEVEL, "GET /get_stream_id: an unknown name is BAD_REQUEST",
           "api/channels.get_stream_id", f"{_DOC}::test_get_stream_id_unknown_name"),
    Change(REFERENCE_DOCUMENT_LEVEL, "Authentication: a malformed API key and a wrong one "
           "are both 401 UNAUTHORIZED, told apart by the message",
           "http/auth.authenticate", f"{_DOC}::test_malformed_and_wrong_api_keys"),
    # ---- after the reference document: the published changelog, level by level
    Change(379, "PATCH /messages/{id}: prev_content_sha256", "actions/messages/edit.py",
           "tests/functional/test_message_edit.py::"
           "test_sender_edits_content_and_history_records_it"),
    Change(380, "POST /register: is_moderator true for administrators and owners",
           "registration/state/users.py", f"{_DOC}::test_is_moderator_covers_administrators"),
    Change(381, "POST /reminders", "no reminders here", "", NOT_OFFERED),
    Change(382, "POST /messages/{id}/report (to the moderation request channel, which "
                "PATCH /realm moderation_request_channel_id sets)",
           "actions/messages/report.py, actions/workflows/realm_update.py",
           "tests/functional/test_message_reports.py::test_a_report_reaches_the_moderators"),
    Change(383, "web_channel_default_view: option 3 (inbox-style list)",
           "rules/setting_choices.py", f"{_DOC}::test_new_setting_values_are_accepted"),
    Change(384, "GET /users: user_ids", "api/users.get_users",
           f"{_DOC}::test_users_filtered_by_user_ids"),
    Change(385, "User setting resolved_topic_notice_auto_read_policy",
           "rules/user_settings.py (kept and shown; no notice is marked read automatically)",
           f"{_DOC}::test_new_setting_values_are_accepted",
           sends=("user_setting.resolved_topic_notice_auto_read_policy",)),
    Change(386, "PATCH /user_groups/{id}: deactivated=false reactivates a group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(387, "GET /users without authentication in organizations with public access",
           "no organization here enables public access (PATCH /realm does not take "
           "enable_spectator_access), so authentication stays required as the reference "
           "requires it there", f"{_DOC}::test_get_users_needs_authentication"),
    Change(388, "PATCH /streams/{id}: is_archived=false unarchives", "actions/channels/admin.py",
           "tests/functional/test_stream_admin_settings.py::test_archive_and_unarchive"),
    Change(389, "Channel folders: endpoints, channel_folders state and events, folder_id",
           "actions/channels/folders.py",
           "tests/functional/test_channel_folders.py::test_create_list_with_event_and_state",
           sends=("channel.folder_id", "register.channel_folders",
                  "stream_property.folder_id")),
    Change(390, "Navigation views: endpoints, navigation_views state, navigation_view events",
           "actions/users/navigation_views.py",
           f"{_DOC}::test_navigation_views_lifecycle_with_events_and_state",
           sends=("register.navigation_views",)),
    Change(391, "Adding members and subgroups to a deactivated group is allowed",
           "actions/groups/user_groups.check_mutable still refuses", "", NOT_HONOURED),
    Change(392, "topics_policy on channels and the realm; mandatory_topics deprecated",
           "actions/channels/topics.py, actions/channels/admin.py (POST /users/me/subscriptions "
           "topics_policy is REPORTED)",
           "tests/functional/test_stream_admin_settings.py::test_topics_policy",
           sends=("channel.topics_policy", "stream_property.topics_policy",
                  "register.realm_topics_policy", "register.realm_can_set_topics_policy_group",
                  "realm_setting.topics_policy", "realm_setting.can_set_topics_policy_group")),
    Change(393, "message_ids sorted in delete_message and update_message events",
           "actions/messages/delete.py, actions/messages/move.py",
           f"{_DOC}::test_moved_message_ids_are_sorted"),
    Change(394, "subscriber_count in Stream and Subscription objects", "actions/channels/reads/channels.py",
           f"{_DOC}::test_subscriber_count_in_channel_objects",
           sends=("channel.subscriber_count",)),
    Change(395, "Markdown: no Dropbox album previews", "no previews of that kind here", "",
           NOT_OFFERED),
    Change(396, "can_move_messages_within_channel_group / can_move_messages_out_of_channel_"
                "group", "actions/channels/admin.py (within_channel missing)", "",
           NOT_HONOURED,
           sends=("channel.can_move_messages_within_channel_group",
                  "channel.can_move_messages_out_of_channel_group",
                  "stream_property.can_move_messages_within_channel_group",
                  "stream_property.can_move_messages_out_of_channel_group")),
    Change(397, "POST /users/me/subscriptions: send_new_subscription_messages; "
                "max_bulk_new_subscription_messages", "", "", NOT_HONOURED),
    Change(398, "User setting web_left_sidebar_unreads_count_summary", "", "", NOT_HONOURED),
    Change(399, "Reminders: events, GET /reminders, DELETE /reminders/{id}",
           "no reminders here", "", NOT_OFFERED),
    Change(400, "Markdown: topic permalinks prefer the latest message", "", "", NOT_HONOURED),
    Change(401, "web_channel_default_view: option 4 (top unread topic)",
           "rules/setting_choices.py", f"{_DOC}::test_new_setting_values_are_accepted"),
    Change(402, "can_resolve_topics_group on channels", "", "", NOT_HONOURED,
           sends=("channel.can_resolve_topics_group",
                  "stream_property.can_resolve_topics_group")),
    Change(403, "realm_incoming_webhook_bots url_options", "registration/state/integrations.py",
           "tests/functional/test_integrations.py::"
           "test_registration_lists_the_integrations_and_their_options",
           sends=("incoming_webhook_bot.url_options",)),
    Change(404, "topics_policy option empty_topic_only", "actions/channels/admin.py",
           "tests/functional/test_stream_admin_settings.py::"
           "test_empty_topic_only_needs_every_message_in_the_empty_topic"),
    Change(405, "Markdown: audio player for uploaded audio files", "", "", NOT_HONOURED),
    Change(406, "push_devices, push_device events, POST /mobile_push/register",
           "the notifications issue's work", "", NOT_OFFERED),
    Change(407, "Channel can_delete_any_message_group / can_delete_own_message_group, "
                "can_set_delete_message_policy_group, POST /users/{id}/status",
           "actions/channels/admin.py, actions/users/status.py "
           "(can_set_delete_message_policy_group missing)", "", NOT_HONOURED,
           sends=("channel.can_delete_any_message_group",
                  "channel.can_delete_own_message_group",
                  "stream_property.can_delete_any_message_group",
                  "stream_property.can_delete_own_message_group",
                  "register.realm_can_set_delete_message_policy_group",
                  "realm_setting.can_set_delete_message_policy_group")),
    Change(409, "Realm setting require_e2ee_push_notifications: legacy notifications then "
                "carry no content (\"New message\")", "notifications/notifier.send_pushes, "
           "rules/realm_settings.py", "tests/functional/test_notifications.py::"
           "test_push_payloads_of_the_e2ee_era",
           sends=("register.realm_require_e2ee_push_notifications",
                  "realm_setting.require_e2ee_push_notifications")),
    Change(410, "max_channel_folder_name_length, max_channel_folder_description_length", "", "",
           NOT_HONOURED),
    Change(411, "User setting web_left_sidebar_show_channel_folders", "", "", NOT_HONOURED),
    Change(PARTIAL_SUBSCRIBERS_LEVEL, "include_subscribers=partial, partial_subscribers "
           "(POST /register, GET /users/me/subscriptions)",
           "actions/channels/reads/subscribers.py (sent only while this level is advertised; "
           "below it partial is answered as true)",
           "tests/functional/test_partial_subscribers.py::"
           "test_large_channels_list_bots_and_the_recently_active",
           sends=("channel.partial_subscribers",)),
    Change(413, "Mobile push payload changes", "no mobile push here", "", NOT_OFFERED),
    Change(414, "Channel folder order, PATCH /channel_folders", "", "", NOT_HONOURED),
    Change(415, "Reminder note, max_reminder_note_length", "no reminders here", "",
           NOT_OFFERED),
    Change(416, "welcome_message_custom_text on invitations and the realm; "
                "POST /realm/test_welcome_bot_custom_message",
           "actions/invitations/invites.py, actions/workflows/welcome_bot.py (the realm setting is missing)",
           f"{_DOC}::test_welcome_bot_custom_message", NOT_HONOURED),
    Change(417, "POST /channels/create", "actions/channels/create.py",
           f"{_DOC}::test_create_channel"),
    Change(418, "channel_folder reorder event", "", "", NOT_HONOURED),
    Change(419, "simplified_presence_events client capability", "", "", NOT_HONOURED),
    Change(420, "POST /mobile_push/e2ee/test_notification", "no mobile push here", "",
           NOT_OFFERED),
    Change(421, "No changes (the 11.0 release)", "", "", HONOURED),
    *CHANGES_446_500,
)


def advertised_level(changes: tuple[Change, ...] | None = None) -> int:
    """The highest level the table reaches with no NOT_HONOURED change at or below it."""
    if changes is None:
        return _gates().level
    return _level_of(changes)


def _level_of(changes: tuple[Change, ...]) -> int:
    walked = max(change.level for change in changes)
    broken = [change.level for change in changes if change.status == NOT_HONOURED]
    return min([walked, *(level - 1 for level in broken)])


# ---- what the advertised level lets out ------------------------------------------------

@dataclass(frozen=True)
class _Gates:
    table: tuple[Change, ...]           # the table they were computed from
    level: int
    withheld: dict[str, frozenset[str]]   # shape -> keys added above `level`, or
                                          # removed at or below it


_computed: list[_Gates] = []


def _gates() -> _Gates:
    """Computed once per table (a test may put another table in CHANGES)."""
    if _computed and _computed[0].table is CHANGES:
        return _computed[0]
    level = _level_of(CHANGES)
    withheld: dict[str, set[str]] = {shape: set() for shape in SHAPES}
    for change in CHANGES:
        for name in change.sends if change.level > level else change.removes:
            shape, key = name.split(".", 1)
            withheld[shape].add(key)
    gates = _Gates(CHANGES, level, {k: frozenset(v) for k, v in withheld.items()})
    _computed[:] = [gates]
    return gates


def level_reached(level: int) -> bool:
    """Whether the advertised level includes a change of behaviour made at `level`."""
    return _gates().level >= level


def withheld(shape: str) -> frozenset[str]:
    """The keys of `shape` (SHAPES) that changes above the advertised level add (not sent
    until their level is advertised) or that changes up to it removed."""
    return _gates().withheld[shape]


Shaped = TypeVar("Shaped", bound=Mapping[str, object])


def at_advertised_level(shape: str, value: Shaped) -> Shaped:
    """`value` without the keys of `shape` that the advertised level does not reach (each
    such key is optional in its TypedDict: NotRequired)."""
    keys = withheld(shape)
    if not keys.intersection(value):
        return value
    return cast(Shaped, {k: v for k, v in value.items() if k not in keys})
