"""The level table's rows for the reference's levels 446 to 500 (its 12.x series, up to
12.2): the published changelog (to 478), the endpoint pages' "Changes" notes (479 to
500). The vocabulary (`Change`, the statuses, the shapes) is in level_change.py."""
from __future__ import annotations

from chalicelib.core.level_change import (
    CONFORMANCE,
    NOT_OFFERED,
    Change,
)

_DOC = CONFORMANCE
_DEVICES = "tests/functional/test_client_devices.py::"

CHANGES_446_500: tuple[Change, ...] = (
    Change(446, "Narrow operator mentions",
           "narrow/parser.py (unknown below 446), narrow/evaluate.visibly_mentions (a "
           "user's mention that notifies: not silent, group or wildcard); the history "
           "rule (narrow/history.py) is unchanged: beside a channel it reads its history",
           "tests/functional/test_narrow_mentions.py::"
           "test_mentions_finds_visible_direct_mentions_of_the_user"),
    Change(447, "PATCH /bots/{id}: short_name",
           "actions/users/bot_admin.py (PATCH /bots/{id} with full_name, and short_name "
           "from 447: the address <short_name>-bot@<its domain>, moved as a person's is)",
           "tests/functional/test_bot_admin.py::"
           "test_the_owner_renames_and_readdresses_a_bot_with_its_events"),
    Change(448, "GET /streams/{id}/email_address only for those who may post to the "
                "channel",
           "actions/workflows/unconfigured.get_channel_email (content access, and not "
           "archived from 448; the address is empty: no email gateway here)",
           "tests/functional/test_channel_reads_by_level.py::"
           "test_a_channels_email_address_is_for_those_who_may_post"),
    Change(449, "Export types as strings; full_without_consent",
           "actions/workflows/export.py (names taken and shown from 449; "
           "full_without_consent refused: it needs owner_full_content_access, which no "
           "organization here has)",
           "tests/functional/test_realm_export.py::test_export_types_by_name_from_level_449"),
    Change(450, "push_device events: push_account_id an integer",
           "push_device events are not sent here (the level-406 registration they belong "
           "to is not offered, and level 468 removed them); clients of 468 read devices "
           "and device events", "", NOT_OFFERED),
    Change(451, "Markdown: invalid global times as plain text",
           "rules/markdown_time.py (global times <time:...> render as <time datetime>; "
           "one that does not parse is an error span below 451, the escaped text from it)",
           "tests/functional/test_global_times.py::"
           "test_an_invalid_time_is_an_error_span_and_from_level_451_plain_text"),
    Change(452, "Retention-policy deletions send delete_message",
           "no retention job here: a channel's message_retention_days is kept and shown "
           "(PATCH /streams/{id}) but deletes nothing, so there is no such deletion to "
           "announce; every deletion here (actions/messages/delete.py) sends "
           "delete_message", "", NOT_OFFERED),
    Change(453, "GIF rating renamed gif_rating_policy",
           "registration/state/realm.py, server.py: POST /register names the rating and "
           "its options by the advertised level; PATCH /realm does not change the rating "
           "here and no event tells it (no GIF picker is configured)",
           "tests/functional/test_registration_by_level.py::"
           "test_the_gif_rating_is_named_gif_rating_policy_from_level_453",
           sends=("register.realm_gif_rating_policy", "register.gif_rating_policy_options"),
           removes=("register.realm_giphy_rating", "register.giphy_rating_options",
                    "register.gif_rating_options")),
    Change(454, "web_home_view: the recent view named \"recent\" (was \"recent_topics\", "
                "still taken from older clients)",
           "rules/setting_choices.shown_setting (settings, their events, the realm's "
           "defaults)",
           "tests/functional/test_settings.py::"
           "test_the_recent_view_is_named_recent_from_level_454"),
    Change(455, "Custom profile fields: use_for_user_matching",
           "actions/users/profile_fields.py (the field's object, its POST parameter: "
           "stored and shown; clients' typeahead does the matching)",
           "tests/functional/test_profile_fields.py::"
           "test_fields_say_whether_typeahead_matches_users_by_them_from_level_455",
           sends=("profile_field.use_for_user_matching",)),
    Change(456, "Realm setting default_avatar_source",
           "PATCH /realm default_avatar_source (\"G\" or \"J\"), realm_default_avatar_source "
           "in registration and realm update_dict events (rules/realm_settings.py); \"J\" "
           "for a new organization (actions/workflows/realms.py), \"G\" for older ones; people "
           "created under \"J\" get a picture the server draws from a digest of "
           "realm_uuid:user_id (rules/identicon.py, api/avatars.py at /user_avatars/)",
           "tests/functional/test_generated_avatars.py::"
           "test_new_users_get_generated_pictures_after_the_setting_changes",
           sends=("register.realm_default_avatar_source",
                  "realm_setting.default_avatar_source")),
    Change(457, "delete_message to the deleter only for messages they can read",
           "actions/messages/delete.py: here a deletion already needs content access to "
           "each message it deletes (DELETE /messages/{id} through access_message; topic "
           "deletion only what the administrator can read), so the deleter's event holds "
           "only those",
           "tests/functional/test_topic_delete.py::"
           "test_the_deleter_hears_only_of_messages_they_can_read"),
    Change(458, "Bots in subscription, channel and group-membership queries",
           "actions/users/reads/users.access_user_by_id takes bots (GET /users/{id}/"
           "subscriptions/{stream_id}, GET /user_groups/{id}/members/{user_id}, and GET "
           "/users/{id}/channels of level 440)",
           "tests/functional/test_bot_queries.py::"
           "test_a_bots_subscriptions_and_group_membership_can_be_asked"),
    Change(459, "DELETE /users/{id}: actions",
           "actions/users/deactivation.py (the name and the deletion job in the "
           "deactivation's transaction), actions/messages/sender_deletion.py (the job: the "
           "user's messages by kind, a conversation's batch at a time, resumable)",
           "tests/functional/test_deactivation_actions.py::"
           "test_deactivation_deletes_the_messages_and_profile_asked_for"),
    Change(460, "Constructor Groups video calls: the provider option, POST "
                "/calls/constructorgroups/create",
           "api/video_calls.py: answered as by a reference server without Constructor "
           "Groups configured (not among realm_available_video_chat_providers)",
           f"{_DOC}::test_video_call_providers_of_12_0_answer_as_unconfigured"),
    Change(461, "realm_bot update on a bot's email change",
           "actions/users/bot_admin._change_address (to the owner and the administrators; "
           "not from level 474, which ends such updates)",
           "tests/functional/test_bot_admin.py::"
           "test_the_owner_renames_and_readdresses_a_bot_with_its_events",
           sends=("bot_update.email",)),
    Change(462, "realm update event: rendered_description",
           "actions/realm/description.legacy_description_event (PATCH /realm description)",
           "tests/functional/test_realm_description.py::"
           "test_a_description_change_is_told_in_the_levels_form",
           sends=("realm_setting.rendered_description",)),
    Change(463, "GET /bots/{id}/api_key",
           "actions/users/api_keys.do_get_bot_api_key: a bot's newest key is kept sealed "
           "beside its hash (rules/secrets.seal_secret, under config.bot_key_sealing_key) "
           "when issued or rotated; a bot made before that is told to regenerate",
           "tests/functional/test_bot_admin.py::"
           "test_a_bots_key_is_shown_to_its_owner_and_administrators"),
    Change(464, "Realm description changes as update_dict",
           "actions/workflows/realm_update._description_event",
           "tests/functional/test_realm_description.py::"
           "test_a_description_change_is_told_in_the_levels_form",
           sends=("realm_setting.description",)),
    Change(465, "Nextcloud Talk video calls: the provider option, POST "
                "/calls/nextcloud_talk/create",
           "api/video_calls.py: answered as by a reference server without Nextcloud Talk "
           "configured (not among realm_available_video_chat_providers)",
           f"{_DOC}::test_video_call_providers_of_12_0_answer_as_unconfigured"),
    Change(466, "realm_uuid; avatar_source J (Jdenticon)",
           "registration/state/realm.py, models/realms.realm_uuid (random, made at "
           "creation, or once on first use for an older organization); avatar_source "
           "\"J\" for a generated picture (models/users.user_avatar_source; \"U\", a "
           "picture the server hosts, below this level)",
           "tests/functional/test_registration_by_level.py::"
           "test_realm_uuid_from_level_466_is_the_organizations_own",
           sends=("register.realm_uuid",)),
    Change(467, "Markdown image syntax only for uploaded images",
           "rules/markdown._apply_media: another site's image is a link to it "
           "named by its text (content is rendered once, when sent, for readers of every "
           "level)",
           "tests/functional/test_markdown_images.py::"
           "test_image_syntax_shows_only_uploaded_images"),
    Change(468, "Client devices: POST /register_client_device, `devices` (fetch type "
                "device) and device events; POST /mobile_push/register redesigned (push "
                "key and token, each rotating alone; E2EE notifications keyed by "
                "push_key_id); POST /mobile_push/e2ee/test_notification by device_id; "
                "push_devices and push_device events gone (never sent here)",
           "actions/users/devices.py, actions/users/push_registration.py, "
           "notifications/e2ee_push.py, rules/push_crypto.py: this server is its own push "
           "service: the token is sealed to its key (config.push_registration_secrets), "
           "opened at once, and pushed to through SNS, each notification sealed for the "
           "device's key (PyNaCl secretbox)",
           _DEVICES + "test_push_registration_opens_the_token_and_notifications_are_"
           "encrypted",
           sends=("register.devices", "event.device/add", "event.device/update")),
    Change(469, "Realm setting media_preview_size (100, 150 or 200 percent)",
           "actions/workflows/realm_update.py, rules/realm_settings.py (kept and shown; "
           "this server's messages carry no previews to size)",
           "tests/functional/test_realm_settings_late.py::"
           "test_media_preview_size_is_changed_and_told_from_level_469",
           sends=("register.realm_media_preview_size",
                  "realm_setting.media_preview_size")),
    Change(470, "POST /remove_client_device (its device event remove)",
           "actions/users/devices.do_remove_client_device (the device's SNS endpoint goes "
           "too)",
           _DEVICES + "test_a_device_registers_and_is_removed_with_its_events_and_state",
           sends=("event.device/remove",)),
    Change(471, "Linkifiers: example_input, reverse_template (POST and PATCH "
                "/realm/filters; an empty string clears one)",
           "actions/realm/linkifiers.py, rules/reverse_linkifiers.py (kept and shown; "
           "clients reverse-linkify)",
           "tests/functional/test_linkifiers.py::"
           "test_reverse_linkification_values_from_levels_471_and_478",
           sends=("linkifier.example_input", "linkifier.reverse_template")),
    Change(472, "Attachment objects: message_ids (the ids of the messages linking the "
                "file) instead of messages (ids and dates)",
           "actions/messages/uploads.attachment_dict (from that level GET /attachments "
           "reads no message)",
           "tests/functional/test_attachments.py::"
           "test_from_level_472_attachments_list_their_message_ids",
           sends=("attachment.message_ids",), removes=("attachment.messages",)),
    Change(473, "Administrator bots may use POST /users/{id}/status",
           "actions/users/status.check_update_user_status (bots refused below the level)",
           "tests/functional/test_bots_by_level.py::"
           "test_administrator_bots_set_users_statuses_from_level_473"),
    Change(474, "Slim bot objects (no api_key, avatar_url, bot_type, email, full_name, "
                "is_active, owner_id); fewer realm_bot update events",
           "actions/users/reads/bots.administered_bots (POST /register realm_bots; the fields "
           "are the bot's user object's). No realm_bot events are sent here at any level "
           "(clients read bots' changes from realm_user events), so none is left to drop",
           "tests/functional/test_bots_by_level.py::"
           "test_registration_lists_slim_bot_objects_from_level_474",
           removes=("bot.api_key", "bot.avatar_url", "bot.bot_type", "bot.email",
                    "bot.full_name", "bot.is_active", "bot.owner_id")),
    Change(475, "date_joined at first login of imported and API-created users (a "
                "realm_user update tells it)",
           "actions/users/first_login.note_first_login, after POST /fetch_api_key, for "
           "accounts POST /users or an import (admin import-realm) created",
           "tests/functional/test_first_login.py::"
           "test_an_api_created_account_joins_at_its_first_login",
           sends=("person_update.date_joined",)),
    Change(476, "Paragraph profile fields may be display_in_profile_summary",
           "actions/users/profile_fields.do_create_profile_field (below the level refused "
           "as before)",
           "tests/functional/test_profile_fields.py::"
           "test_paragraph_fields_may_be_in_the_summary_from_level_476"),
    Change(477, "Realm setting workplace_users_group (a group whose membership only "
                "administrators change)",
           "actions/workflows/realm_update.py, actions/groups/reads/settings."
           "check_admin_managed_membership (kept and shown; nothing is billed here)",
           "tests/functional/test_realm_settings_late.py::"
           "test_workplace_users_group_names_only_groups_administrators_manage",
           sends=("register.realm_workplace_users_group",
                  "realm_setting.workplace_users_group")),
    Change(478, "Linkifiers: alternative_url_templates (URL templates only reverse "
                "linkification reads)",
           "actions/realm/linkifiers.py, rules/reverse_linkifiers.py",
           "tests/functional/test_linkifiers.py::"
           "test_reverse_linkification_values_from_levels_471_and_478",
           sends=("linkifier.alternative_url_templates",)),
    Change(479, "GET /thumbnail/status/{realm_id_str}/{filename}",
           "actions/messages/thumbnails.thumbnail_status (no thumbnails are made here, so "
           "the uploader's image has all there are: has_thumbnail true; another's upload "
           "or a file that is no image is an invalid attachment)",
           "tests/functional/test_uploads.py::"
           "test_thumbnail_status_answers_the_uploader_of_an_image"),
    Change(480, "GET /streams/{id} and GET /users/me/{stream_id}/topics answer for "
                "archived channels",
           "actions/channels/reads/channels.access_stream_by_id (archiving changes no "
           "one's access)",
           "tests/functional/test_channel_reads_by_level.py::"
           "test_archived_channels_answer_by_id_and_list_their_topics"),
    Change(481, "POST /register: idle_queue_timeout (seconds or \"mobile\") and "
                "idle_queue_timeout_secs",
           "registration/register.idle_seconds, delivery/queues.idle_lifetime (a queue "
           "lives at most 12 hours unpolled here, its events a day; the answer says so)",
           "tests/functional/test_queue_lifetime.py::"
           "test_a_mobile_queue_lives_twelve_hours_unpolled_and_says_so",
           sends=("register.idle_queue_timeout_secs",)),
    Change(482, "recipient_id of 1:1 direct messages changed value (still one per "
                "conversation, whoever sends)",
           "actions/messages/reads/dicts.recipient_id_for: an opaque value per "
           "conversation, as the reference's now is",
           "tests/functional/test_messages.py::"
           "test_a_one_to_one_conversation_has_one_recipient_id_both_ways"),
    Change(483, "A successful E2EE push registration removes the user's legacy "
                "registration of the same token",
           "actions/users/push_registration.py (in the registration's transaction)",
           _DEVICES + "test_push_registration_opens_the_token_and_notifications_are_"
           "encrypted"),
    Change(484, "Reaction events without the deprecated user object (user_id alone)",
           "actions/messages/reactions.py (the object, and its read, only below 484)",
           "tests/functional/test_reactions.py::"
           "test_from_level_484_reaction_events_have_no_user_object",
           removes=("reaction_event.user",)),
    Change(485, "Webhook URL options: input_type, the name of validator before it "
                "(configuration options keep validator)",
           "registration/state/integrations._url_options (the values are this server's "
           "check_bool and check_string as before: no other value list of the reference "
           "was found)",
           "tests/functional/test_integrations.py::"
           "test_url_options_name_their_input_type_from_level_485",
           sends=("incoming_webhook_option.input_type",),
           removes=("incoming_webhook_option.validator",)),
    Change(487, "GET /users/{id}/presence: the modern active_timestamp and "
                "idle_timestamp instead of the legacy website and aggregated",
           "actions/presence/reads/snapshot.get_user_presence",
           "tests/functional/test_presence.py::"
           "test_one_users_presence_in_the_modern_format_and_then_in_both",
           sends=("user_presence.active_timestamp", "user_presence.idle_timestamp")),
    Change(490, "User objects: is_deleted (present, true, only for permanently deleted "
                "users)",
           "no user is ever permanently deleted here (DELETE /users/{id} deactivates: "
           "is_active false), so no user object carries the key, as on a reference "
           "server where no one was deleted", "", NOT_OFFERED),
    Change(491, "Client capability individual_emoji_changes: realm_emoji add and "
                "update_one events for one emoji (the whole set, update, for the others)",
           "actions/realm/emoji.py (delivery/filters.py's per-capability forms)",
           "tests/functional/test_realm_emoji.py::"
           "test_clients_with_individual_emoji_changes_get_one_emoji_per_event",
           sends=("event.realm_emoji/add", "event.realm_emoji/update_one")),
    Change(492, "A new API key ends the user's E2EE push registrations (their devices "
                "are removed, with their device events)",
           "actions/users/api_keys.do_rotate_api_key, actions/users/devices.py",
           _DEVICES + "test_e2ee_test_notification_and_a_new_api_key_ending_"
           "registrations"),
    Change(493, "Webex video calls: the provider option, POST /calls/webex/create, "
                "has_webex_token (the video_calls fetch type) and its event",
           "needs the server's own Webex OAuth application, which this deployment has "
           "not: Webex is not among realm_available_video_chat_providers (clients offer "
           "only those), POST /calls/webex/create answers as unconfigured "
           "(api/video_calls.py), and the video_calls fetch type is not offered (as "
           "has_zoom_token before it)",
           f"{_DOC}::test_video_call_providers_of_12_0_answer_as_unconfigured", NOT_OFFERED),
    Change(494, "Bot storage (GET, PUT, DELETE /bot_storage) only for bots",
           "this server has no bot storage (no /bot_storage route, for bots or people; "
           "no interactive bots run here to need it), so there is nothing to limit",
           "", NOT_OFFERED),
    Change(496, "Bots may create user groups and read them (GET /user_groups, a group's "
                "members and subgroups, whether a user is a member)",
           "actions/groups/reads/user_groups.require_member_admin_or_bot (bots refused "
           "below the level; changing groups stays for people)",
           "tests/functional/test_bots_by_level.py::"
           "test_bots_create_and_read_user_groups_from_level_496"),
    Change(497, "GET /users/{id}/presence: the legacy website and aggregated again "
                "beside the modern timestamps; server_timestamp",
           "actions/presence/reads/snapshot.get_user_presence",
           "tests/functional/test_presence.py::"
           "test_one_users_presence_in_the_modern_format_and_then_in_both",
           sends=("user_presence.server_timestamp",)),
    Change(499, "Exports: export_from_prior_server (true for records carried across an "
                "import, which cannot be deleted)",
           "actions/workflows/export.export_dict: always false, since an import here "
           "(chalicelib.admin import-realm) carries no export records: the new "
           "organization starts with none",
           "tests/functional/test_realm_export.py::"
           "test_exports_say_they_are_not_from_a_prior_server_from_level_499",
           sends=("realm_export.export_from_prior_server",)),
    Change(500, "require_e2ee_push_notifications disables legacy push entirely (only "
                "E2EE registrations are notified)",
           "notifications/notifier.send_pushes",
           _DEVICES + "test_required_e2ee_ends_legacy_push_from_level_500"),
)
