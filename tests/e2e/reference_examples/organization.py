"""The rows of the reference's test_queues, test_server_organizations, test_errors,
test_invitations and its welcome-bot example, in its order."""
from __future__ import annotations

import json
from collections.abc import Callable

from tests.e2e.example_client import RecordingClient
from tests.e2e.reference_dev_data import DevData
from tests.e2e.reference_examples.base import Example, Result, keep


def _get_queue(x: DevData) -> Result:
    # The example reads a queue with something in it; a message puts it there, so the
    # long poll answers at once.
    x.client.send_message({"type": "stream", "to": "Denmark", "topic": "queue",
                           "content": "Something for the queue."})
    return x.client.get_events(queue_id=x.found["queue"], last_event_id=-1)


def _reorder_linkifiers(x: DevData) -> Result:
    ids = [f["id"] for f in
           x.client.call_endpoint(url="/realm/linkifiers", method="GET")["linkifiers"]]
    return x.client.call_endpoint(url="/realm/linkifiers", method="PATCH",
                                  request={"ordered_linkifier_ids": json.dumps(ids[::-1])})


def _reorder_fields(x: DevData) -> Result:
    ids = [f["id"] for f in
           x.client.call_endpoint(url="/realm/profile_fields", method="GET")["custom_fields"]]
    return x.client.call_endpoint(url="/realm/profile_fields", method="PATCH",
                                  request={"order": json.dumps(ids[::-1])})


def _upload_emoji(x: DevData) -> Result:
    with x.image.open("rb") as fp:
        return x.client.call_endpoint("realm/emoji/my_custom_emoji", method="POST",
                                      files=[fp])


def _wrong_key(x: DevData) -> Result:
    client = RecordingClient(email=x.email("iago"), api_key="X" * 32, site=x.site)
    return client.get_subscriptions()


def _invite_to(x: DevData) -> list[int]:
    return [s["stream_id"] for s in x.client.get_subscriptions()["subscriptions"]][:3]


def _invites(x: DevData) -> list[Result]:
    return list(x.client.call_endpoint(url="/invites", method="GET")["invites"])


def _revoke_email_invitation(x: DevData) -> Result:
    email = "delete-invite@zulip.com"
    x.client.call_endpoint(url="/invites", method="POST",
                           request={"invitee_emails": email, "stream_ids": []})
    [invite] = [i for i in _invites(x) if not i["is_multiuse"] and i["email"] == email]
    return x.client.call_endpoint(url=f"/invites/{invite['id']}", method="DELETE")


def _revoke_link(x: DevData) -> Result:
    link = x.client.call_endpoint(url="/invites/multiuse", method="POST",
                                  request={})["invite_link"]
    [invite] = [i for i in _invites(x) if i["is_multiuse"] and i["link_url"] == link]
    return x.client.call_endpoint(url=f"/invites/multiuse/{invite['id']}", method="DELETE")


def _resend(x: DevData) -> Result:
    invites = [i for i in _invites(x) if not i["is_multiuse"]]
    assert invites
    return x.client.call_endpoint(url=f"/invites/{invites[0]['id']}/resend", method="POST")


def _ten_days(multiuse: bool) -> Callable[[DevData], Result]:
    def call(x: DevData) -> Result:
        request = {"invite_expires_in_minutes": 60 * 24 * 10, "invite_as": 400,
                   "stream_ids": _invite_to(x)}
        if multiuse:
            return x.client.call_endpoint(url="/invites/multiuse", method="POST",
                                          request=request)
        return x.client.call_endpoint(url="/invites", method="POST", request={
            "invitee_emails": "example@zulip.com, logan@zulip.com", **request})
    return call


QUEUES: list[Example] = [
    Example("register_queue", "POST /register",
            lambda x: x.client.register(event_types=["message", "realm_emoji"]),
            keep("queue", lambda r: r["queue_id"])),
    Example("get_queue", "GET /events", _get_queue),
    Example("deregister_queue", "DELETE /events",
            lambda x: x.client.deregister(x.found["queue"])),
    Example("deregister_queue[again]", "DELETE /events",
            lambda x: x.client.deregister(x.found["queue"]), error="BAD_EVENT_QUEUE_ID"),
    Example("register_queue_all_events", "POST /register", lambda x: x.client.register()),
]

SERVER_ORGANIZATIONS: list[Example] = [
    Example("get_realm_linkifiers", "GET /realm/linkifiers",
            lambda x: x.client.call_endpoint(url="/realm/linkifiers", method="GET")),
    Example("add_realm_filter", "POST /realm/filters",
            lambda x: x.client.call_endpoint("/realm/filters", method="POST", request={
                "pattern": "#(?P<id>[0-9]+)",
                "url_template": "https://github.com/zulip/zulip/issues/{id}"}),
            keep("filter", lambda r: r["id"])),
    Example("update_realm_filter", "PATCH /realm/filters/{filter_id}",
            lambda x: x.client.call_endpoint(f"/realm/filters/{x.found['filter']}",
                                             method="PATCH", request={
                "pattern": "#(?P<id>[0-9]+)",
                "url_template": "https://github.com/zulip/zulip/issues/{id}"})),
    Example("add_realm_playground", "POST /realm/playgrounds",
            lambda x: x.client.call_endpoint(url="/realm/playgrounds", method="POST", request={
                "name": "Python playground", "pygments_language": "Python",
                "url_template": "https://python.example.com?code={code}"}),
            keep("playground", lambda r: r["id"])),
    Example("get_server_settings", "GET /server_settings",
            lambda x: x.client.get_server_settings()),
    Example("reorder_realm_linkifiers", "PATCH /realm/linkifiers", _reorder_linkifiers),
    Example("remove_realm_filter", "DELETE /realm/filters/{filter_id}",
            lambda x: x.client.remove_realm_filter(x.found["filter"])),
    # The reference removes playground 1, the one it made.
    Example("remove_realm_playground", "DELETE /realm/playgrounds/{playground_id}",
            lambda x: x.client.call_endpoint(url=f"/realm/playgrounds/{x.found['playground']}",
                                             method="DELETE")),
    Example("get_realm_emoji", "GET /realm/emoji", lambda x: x.client.get_realm_emoji()),
    Example("upload_custom_emoji", "POST /realm/emoji/{emoji_name}", _upload_emoji),
    Example("delete_custom_emoji", "DELETE /realm/emoji/{emoji_name}",
            lambda x: x.client.call_endpoint("realm/emoji/my_custom_emoji", method="DELETE")),
    Example("get_realm_profile_fields", "GET /realm/profile_fields",
            lambda x: x.client.call_endpoint(url="/realm/profile_fields", method="GET")),
    Example("reorder_realm_profile_fields", "PATCH /realm/profile_fields", _reorder_fields),
    Example("create_realm_profile_field", "POST /realm/profile_fields",
            lambda x: x.client.call_endpoint(url="/realm/profile_fields", method="POST",
                                             request={"name": "Phone", "hint": "Contact no.",
                                                      "field_type": 1})),
    Example("export_realm", "POST /export/realm",
            lambda x: x.client.call_endpoint(url="/export/realm", method="POST")),
    Example("get_realm_exports", "GET /export/realm",
            lambda x: x.client.call_endpoint(url="/export/realm", method="GET")),
    Example("get_realm_export_consents", "GET /export/realm/consents",
            lambda x: x.client.call_endpoint(url="/export/realm/consents", method="GET")),
]

ERRORS: list[Example] = [
    Example("test_missing_request_argument", "POST /messages/render",
            lambda x: x.client.render_message({}), error="REQUEST_VARIABLE_MISSING"),
    Example("test_invalid_stream_error", "GET /get_stream_id",
            lambda x: x.client.get_stream_id("nonexistent"), error="BAD_REQUEST"),
    Example("test_invalid_api_key", "GET /users/me/subscriptions", _wrong_key,
            error="UNAUTHORIZED"),
]

INVITATIONS: list[Example] = [
    Example("send_invitations", "POST /invites", _ten_days(multiuse=False)),
    Example("revoke_email_invitation", "DELETE /invites/{invite_id}", _revoke_email_invitation),
    Example("create_reusable_invitation_link", "POST /invites/multiuse",
            _ten_days(multiuse=True)),
    Example("revoke_reusable_invitation_link", "DELETE /invites/multiuse/{invite_id}",
            _revoke_link),
    Example("get_invitations", "GET /invites",
            lambda x: x.client.call_endpoint(url="/invites", method="GET")),
    Example("resend_email_invitation", "POST /invites/{invite_id}/resend", _resend),
    Example("test_welcome_bot_custom_message", "POST /realm/test_welcome_bot_custom_message",
            lambda x: x.client.call_endpoint(
                "/realm/test_welcome_bot_custom_message", method="POST",
                request={"welcome_message_custom_text": "Custom Welcome Message Text"})),
]
