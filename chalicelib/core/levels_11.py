"""The level table, the reference's 11.x series: levels 379 to 421, one row (or a few)
per level of its published changelog."""
from __future__ import annotations

from chalicelib.core.level_change import (
    CONFORMANCE as _DOC,
)
from chalicelib.core.level_change import (
    HONOURED,
    NOT_OFFERED,
    PARTIAL_SUBSCRIBERS_LEVEL,
    REPORTED,
    Change,
)

ZULIP_11: tuple[Change, ...] = (
    Change(379, "PATCH /messages/{id}: prev_content_sha256", "actions/messages/edit.py",
           "tests/functional/test_message_edit.py::"
           "test_sender_edits_content_and_history_records_it"),
    Change(380, "POST /register: is_moderator true for administrators and owners",
           "registration/state/users.py", f"{_DOC}::test_is_moderator_covers_administrators"),
    Change(381, "POST /reminders: a reminder of a message the caller can read, sent by the "
                "notification bot at its time", "actions/messages/reminders.py",
           "tests/functional/test_reminders.py::"
           "test_a_reminder_is_listed_told_and_delivered_by_the_notification_bot"),
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
           "actions/channels/folders.py, actions/channels/folder_admin.py (PATCH "
           "/channel_folders/{channel_folder_id}: name, description, archiving an empty one)",
           "tests/functional/test_channel_folders.py::test_create_list_with_event_and_state",
           sends=("channel.folder_id", "register.channel_folders",
                  "stream_property.folder_id")),
    Change(390, "Navigation views: endpoints, navigation_views state, navigation_view events",
           "actions/users/navigation_views.py",
           f"{_DOC}::test_navigation_views_lifecycle_with_events_and_state",
           sends=("register.navigation_views",)),
    Change(391, "Adding and removing members and subgroups of a deactivated group is "
                "allowed", "actions/groups/members.py (check_mutable's deactivated_ok)",
           "tests/functional/test_user_groups.py::test_deactivate"),
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
    Change(395, "Markdown: the Dropbox album preview is removed (an album link renders "
                "as a link)", "rules/markdown.py (no link previews of any kind here)",
           "tests/functional/test_emoji_rendering.py::"
           "test_a_dropbox_album_link_is_a_plain_link"),
    Change(396, "can_move_messages_within_channel_group / can_move_messages_out_of_channel_"
                "group: moving within and out of a channel by its own groups (and its "
                "administrators)",
           "actions/channels/reads/permissions.py, actions/messages/edit.py",
           "tests/functional/test_topic_permissions.py::test_channel_groups_let_members_move_within_and_out_of_a_channel",
           sends=("channel.can_move_messages_within_channel_group",
                  "channel.can_move_messages_out_of_channel_group",
                  "stream_property.can_move_messages_within_channel_group",
                  "stream_property.can_move_messages_out_of_channel_group")),
    Change(396, "POST /users/me/subscriptions: can_move_messages_within_channel_group, "
                "can_move_messages_out_of_channel_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(397, "POST /users/me/subscriptions: send_new_subscription_messages (the "
                "notification bot tells people subscribed to existing channels, up to "
                "max_bulk_new_subscription_messages of them) and new_subscription_messages_"
                "sent", "actions/workflows/subscription_notices.py",
           "tests/functional/test_subscription_notices.py::"
           "test_people_subscribed_by_someone_else_are_told",
           sends=("register.max_bulk_new_subscription_messages",
                  "subscribe.new_subscription_messages_sent")),
    Change(398, "User setting web_left_sidebar_unreads_count_summary",
           "rules/user_settings.py (kept and shown; the web client of this server has no "
           "such summary)", f"{_DOC}::test_display_settings_of_the_channel_folders_era",
           sends=("user_setting.web_left_sidebar_unreads_count_summary",)),
    Change(399, "Reminders: reminders events and state, GET /reminders, DELETE "
                "/reminders/{id}", "actions/messages/reminders.py, "
           "actions/messages/scheduled_messages.py (delivery)",
           "tests/functional/test_reminders.py::test_reminders_are_deleted_and_checked",
           sends=("register.reminders",)),
    Change(400, "Markdown: topic permalinks (#**channel>topic**) open with the topic's "
                "latest message (/with/)",
           "rules/channel_links.py, actions/messages/reads/channel_links.py (the latest "
           "message the sender may read; none named when it did not come to them)",
           "tests/functional/test_channel_links.py::"
           "test_a_member_links_a_channel_a_topic_and_a_message"),
    Change(401, "web_channel_default_view: option 4 (top unread topic)",
           "rules/setting_choices.py", f"{_DOC}::test_new_setting_values_are_accepted"),
    Change(402, "can_resolve_topics_group on channels: resolving by the channel's group "
                "(of the channel moved from or to)", "actions/messages/edit.py",
           "tests/functional/test_topic_permissions.py::test_a_channel_group_lets_members_resolve_topics",
           sends=("channel.can_resolve_topics_group",
                  "stream_property.can_resolve_topics_group")),
    Change(402, "POST /users/me/subscriptions: can_resolve_topics_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(403, "realm_incoming_webhook_bots url_options", "registration/state/integrations.py",
           "tests/functional/test_integrations.py::"
           "test_registration_lists_the_integrations_and_their_options",
           sends=("incoming_webhook_bot.url_options",)),
    Change(404, "topics_policy option empty_topic_only", "actions/channels/admin.py",
           "tests/functional/test_stream_admin_settings.py::"
           "test_empty_topic_only_needs_every_message_in_the_empty_topic"),
    Change(405, "Markdown: a link to an uploaded audio file (aac, flac, mpeg, wav) is an "
                "audio player", "rules/markdown.py, actions/messages/reads/rendering.py",
           "tests/functional/test_emoji_rendering.py::"
           "test_image_syntax_links_the_image_and_uploaded_audio_gets_a_player"),
    Change(406, "push_devices, push_device events, POST /mobile_push/register (E2EE push "
                "through the reference's bouncer)",
           "push_devices and push_device events not offered: level 468 replaced them with "
           "client devices (honoured here: devices, device events, POST "
           "/mobile_push/register in 468's form, actions/users/push_registration.py), and "
           "the official mobile client registers E2EE only from 468; below it, it registers "
           "its token with the legacy endpoints, which this server serves",
           "tests/functional/test_client_devices.py::"
           "test_below_level_468_registration_has_no_devices", NOT_OFFERED),
    Change(407, "Channel can_delete_any_message_group / can_delete_own_message_group, "
                "can_set_delete_message_policy_group, POST /users/{id}/status",
           "actions/channels/admin.py (REALM_GATED), actions/users/status.py",
           "tests/functional/test_topic_permissions.py::test_topics_policy_and_delete_groups_need_the_organizations_setting_too",
           sends=("channel.can_delete_any_message_group",
                  "channel.can_delete_own_message_group",
                  "stream_property.can_delete_any_message_group",
                  "stream_property.can_delete_own_message_group",
                  "register.realm_can_set_delete_message_policy_group",
                  "realm_setting.can_set_delete_message_policy_group")),
    Change(407, "POST /users/me/subscriptions: can_delete_any_message_group, "
                "can_delete_own_message_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(409, "Realm setting require_e2ee_push_notifications: legacy notifications then "
                "carry no content (\"New message\")", "notifications/notifier.send_pushes, "
           "rules/realm_settings.py", "tests/functional/test_notifications.py::"
           "test_push_payloads_of_the_e2ee_era",
           sends=("register.realm_require_e2ee_push_notifications",
                  "realm_setting.require_e2ee_push_notifications")),
    Change(410, "max_channel_folder_name_length, max_channel_folder_description_length; the "
                "APNs payload has no time", "registration/register.py, notifications/push.py",
           "tests/functional/test_channel_folders.py::"
           "test_a_folder_is_renamed_described_and_archived_when_empty",
           sends=("register.max_channel_folder_name_length",
                  "register.max_channel_folder_description_length")),
    Change(411, "User setting web_left_sidebar_show_channel_folders",
           "rules/user_settings.py (kept and shown)",
           f"{_DOC}::test_display_settings_of_the_channel_folders_era",
           sends=("user_setting.web_left_sidebar_show_channel_folders",)),
    Change(PARTIAL_SUBSCRIBERS_LEVEL, "include_subscribers=partial, partial_subscribers "
           "(POST /register, GET /users/me/subscriptions)",
           "actions/channels/reads/subscribers.py (sent only while this level is advertised; "
           "below it partial is answered as true)",
           "tests/functional/test_partial_subscribers.py::"
           "test_large_channels_list_bots_and_the_recently_active",
           sends=("channel.partial_subscribers",)),
    Change(413, "Mobile push payloads: APNs without server and realm_id; FCM removals "
                "without zulip_message_id and messages without content_truncated (never "
                "sent here); the E2EE payload format is not offered (see 406)",
           "notifications/push.publish", "tests/functional/test_notifications.py::"
           "test_push_payloads_of_the_e2ee_era"),
    Change(414, "Channel folders' order (new ones last; GET /channel_folders and the state "
                "in that order); PATCH /channel_folders reorders them all",
           "actions/channels/folder_admin.py, actions/channels/folders.py",
           "tests/functional/test_channel_folders.py::"
           "test_folders_keep_the_order_administrators_give",
           sends=("channel_folder.order",)),
    Change(415, "POST /reminders note (quoted in the reminder); max_reminder_note_length",
           "actions/messages/reminders.py", "tests/functional/test_reminders.py::"
           "test_a_reminder_is_listed_told_and_delivered_by_the_notification_bot",
           sends=("register.max_reminder_note_length",)),
    Change(416, "welcome_message_custom_text on invitations and the realm; "
                "POST /realm/test_welcome_bot_custom_message",
           "actions/invitations/invites.py, actions/invitations/signup.send_custom_welcome "
           "(after the greeting), actions/workflows/welcome_bot.py, "
           "actions/workflows/realm_update.py (the setting)",
           "tests/functional/test_signup.py::"
           "test_welcome_message_text_and_referrer_notice_follow_the_invitation",
           sends=("register.realm_welcome_message_custom_text",
                  "realm_setting.welcome_message_custom_text")),
    Change(417, "POST /channels/create", "actions/channels/create.py",
           f"{_DOC}::test_create_channel"),
    Change(418, "channel_folder reorder event", "actions/channels/folder_admin.py",
           "tests/functional/test_channel_folders.py::"
           "test_folders_keep_the_order_administrators_give"),
    Change(419, "simplified_presence_events client capability: presence events with "
                "`presences` in the modern format (the legacy form to queues without it), "
                "and the modern presence state", "actions/presence/report.py, "
           "registration/state/presence.py", "tests/functional/test_presence.py::"
           "test_simplified_presence_events_for_clients_that_ask",
           sends=("presence_event.presences",)),
    Change(420, "POST /mobile_push/e2ee/test_notification",
           "notifications/e2ee_push.do_e2ee_test_notification",
           "tests/functional/test_client_devices.py::"
           "test_e2ee_test_notification_and_a_new_api_key_ending_registrations"),
    Change(421, "No changes (the 11.0 release)", "", "", HONOURED),
)
