"""The level table, the reference's 12.x series: from level 426 (422 to 425 are reserved
or unused there), one row (or a few) per level of its published changelog."""
from __future__ import annotations

from chalicelib.core.level_change import CONFORMANCE as _DOC
from chalicelib.core.level_change import REPORTED, Change

ZULIP_12: tuple[Change, ...] = (
    Change(426, "POST /register: no realm_is_zephyr_mirror_realm (sent below this level)",
           "core/feature_levels.withheld (removes)",
           f"{_DOC}::test_registration_keys_of_the_12_series",
           removes=("register.realm_is_zephyr_mirror_realm",)),
    Change(427, "server_supported_permission_settings: default_group_name channel_creator "
                "(stream_creator_or_nobody below this level)", "registration/state/server.py",
           f"{_DOC}::test_registration_keys_of_the_12_series"),
    Change(428, "peer_remove events for archived channels too when a user is deactivated "
                "(and peer_add when reactivated)", "actions/users/deactivation.py "
           "(tell_channel_peers)", "tests/functional/test_deactivation.py::"
           "test_deactivation_tells_the_peers_of_every_channel"),
    Change(429, "E2EE push payloads: recipient_user_ids instead of pm_users",
           "notifications/e2ee_push.py (the legacy payloads keep pm_users, as the "
           "reference's do)", "tests/functional/test_client_devices.py::"
           "test_push_registration_opens_the_token_and_notifications_are_encrypted"),
    Change(430, "GET /export/realm/consents: each user's email_address_visibility",
           "actions/workflows/export.get_export_consents",
           "tests/functional/test_realm_export.py::"
           "test_export_writes_the_realm_and_tells_the_requester",
           sends=("export_consent.email_address_visibility",)),
    Change(431, "User setting web_inbox_show_channel_folders",
           "rules/user_settings.py (kept and shown)",
           f"{_DOC}::test_display_settings_of_the_channel_folders_era",
           sends=("user_setting.web_inbox_show_channel_folders",)),
    Change(432, "POST /mobile_push/register: push_key instead of push_public_key",
           "actions/users/push_registration.py", "tests/functional/test_client_devices.py::"
           "test_keys_and_tokens_rotate_alone_and_bad_requests_change_nothing"),
    Change(433, "is_imported_stub on user objects (is_imported in realm_users and "
                "cross_realm_bots); an imported user's first login clears it, with a "
                "realm_user update event", "actions/users/users.user_api_dict, "
           "actions/users/first_login.note_first_login, registration/state/users.py",
           "tests/functional/test_realm_export.py::"
           "test_imported_users_are_stubs_until_they_log_in",
           sends=("user.is_imported_stub", "user.is_imported")),
    Change(434, "Realm setting send_channel_events_messages: the notification bot's "
                "messages in a channel's \"channel events\" topic when it is renamed, "
                "described or its privacy changes", "actions/workflows/channel_event_notices.py",
           "tests/functional/test_stream_admin_settings.py::"
           "test_channel_events_are_told_in_the_channel_unless_turned_off",
           sends=("register.realm_send_channel_events_messages",
                  "realm_setting.send_channel_events_messages")),
    Change(435, "server_report_message_types; report_type values from it",
           "registration/state/server.py, actions/messages/report.py",
           f"{_DOC}::test_registration_keys_of_the_12_series",
           sends=("register.server_report_message_types",)),
    Change(436, "Markdown: emoji-only messages show enlarged emoji (a client's rendering of "
                "a paragraph of emoji alone, which is what such a message's markup is)",
           "rules/markdown.py", "tests/functional/test_emoji_rendering.py::"
           "test_emoji_only_messages_are_one_paragraph_of_emoji"),
    Change(437, "Markdown image syntax (a link to the image: this server shows no image "
                "previews); GET /users: no \"Unknown user\" placeholders for guests",
           "rules/markdown.py, actions/users/users.get_members",
           "tests/functional/test_emoji_rendering.py::"
           "test_image_syntax_links_the_image_and_uploaded_audio_gets_a_player"),
    Change(438, "POST /register: realm_owner_full_content_access (false: exports of private "
                "data need consent)", "rules/realm_settings.py",
           f"{_DOC}::test_registration_keys_of_the_12_series",
           sends=("register.realm_owner_full_content_access",)),
    Change(439, "update_display_settings and update_global_notifications events are no "
                "longer sent (below this level, to clients without user_settings_object)",
           "delivery/filters.py", "tests/functional/test_settings.py::"
           "test_old_clients_get_the_deprecated_forms"),
    Change(440, "GET /users/{user_id}/channels: the ids of the user's channels the caller "
                "has metadata access to", "actions/channels/member_lists.get_user_channels",
           "tests/functional/test_member_lists.py::"
           "test_another_users_channels_as_far_as_the_caller_may_see_them"),
    Change(441, "can_create_topic_group on channels: who may start a topic (by sending or "
                "moving); everyone in private channels with protected history",
           "actions/channels/topics.check_topic_creation, actions/channels/admin.py",
           "tests/functional/test_topic_permissions.py::"
           "test_only_the_channels_topic_creators_start_new_topics",
           sends=("channel.can_create_topic_group", "stream_property.can_create_topic_group")),
    Change(441, "POST /users/me/subscriptions: can_create_topic_group",
           "ignored_parameters_unsupported", f"{_DOC}::test_unsupported_parameters_are_reported",
           REPORTED),
    Change(442, "tenor_api_key (empty: no GIF picker here); gif_rating_options (was "
                "giphy_rating_options, sent below this level) without the Y rating, and "
                "realm_giphy_rating in its numbering", "registration/state/server.py, "
           "registration/state/realm.py",
           f"{_DOC}::test_registration_keys_of_the_12_series",
           sends=("register.gif_rating_options", "register.tenor_api_key"),
           removes=("register.giphy_rating_options",)),
    Change(443, "Attachments (GET /attachments, events, detached_uploads): create_time and "
                "date_sent in seconds (milliseconds below this level)",
           "actions/messages/uploads.attachment_dict", "tests/functional/test_attachments.py::"
           "test_list_own_uploads_with_linking_messages_and_space_used"),
    Change(444, "PATCH /settings: target_users (user_ids, group_ids) and "
                "skip_if_already_edited: administrators change others' settings, at most "
                "1,000 people a request, never their privacy settings",
           "actions/users/bulk_settings.py", "tests/functional/test_settings.py::"
           "test_administrators_change_others_settings_in_bulk"),
    Change(445, "GET /messages: anchor=date with anchor_date (the first readable message "
                "of the narrow sent then or later; else the newest end)",
           "actions/messages/reads/date_anchor.py",
           "tests/functional/test_narrow_anchors.py::test_date_anchor"),
)
