"""The level table up to the reference document's level (378): the document is checked
as a whole, and these rows are what was found answered in an older shape (now fixed)
or a parameter reported as unsupported."""
from __future__ import annotations

from chalicelib.core.level_change import (
    CONFORMANCE as _DOC,
)
from chalicelib.core.level_change import (
    REFERENCE_DOCUMENT_LEVEL,
    REPORTED,
    Change,
)

BEFORE_11: tuple[Change, ...] = (
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
    Change(377, "peer_remove events to the peers of a deactivated user's channels (peer_add "
                "when reactivated)", "actions/users/deactivation.tell_channel_peers",
           "tests/functional/test_deactivation.py::"
           "test_deactivation_tells_the_peers_of_every_channel"),
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
)
