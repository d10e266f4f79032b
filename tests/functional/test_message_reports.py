"""Message reports (feature level 382): the organization's moderation request channel, set
with PATCH /realm, and POST /messages/{message_id}/report, which the notification bot
turns into a message there."""
from __future__ import annotations

import pytest

from chalicelib.actions.users.system_bots import NOTIFICATION_BOT_EMAIL
from tests.functional.edit_helpers import channel, send


def moderation_channel(realm) -> int:
    """A private channel for the moderators, set as the moderation request channel."""
    stream_id = channel(realm.admin, "moderation", [realm.admin, realm.moderator],
                        invite_only=True)
    assert realm.admin.patch("/realm", {"moderation_request_channel_id": stream_id}).ok
    return stream_id


def reports(realm, stream_id: int) -> list[dict]:
    """The messages in the moderation channel, as a moderator reads them."""
    response = realm.moderator.get("/messages", {
        "anchor": "newest", "num_before": 20, "num_after": 0,
        "narrow": [{"operator": "channel", "operand": stream_id}], "apply_markdown": False})
    assert response.ok, response.json
    return response.json["messages"]


def report(account, message_id: int, **params):
    return account.post(f"/messages/{message_id}/report", params)


def test_the_moderation_channel_is_an_organization_setting(
        realm, register_queue, fetch_events, drain_events):
    queue_id = register_queue(realm.member, event_types=["realm"])["queue_id"]
    assert register_queue(realm.member, event_types=["realm"])[
        "realm_moderation_request_channel_id"] == -1
    stream_id = moderation_channel(realm)
    drain_events()
    [event] = fetch_events(realm.member, queue_id)
    assert event["data"] == {"moderation_request_channel_id": stream_id}
    assert register_queue(realm.member, event_types=["realm"])[
        "realm_moderation_request_channel_id"] == stream_id
    # Administrators only; a channel of the organization; -1 turns reports off
    refused = realm.moderator.patch("/realm", {"moderation_request_channel_id": stream_id})
    assert refused.status == 400
    for wrong in (99999, -5):
        bad = realm.admin.patch("/realm", {"moderation_request_channel_id": wrong})
        assert (bad.status, bad.json["msg"]) == (400, "No channel you can see has that ID.")
    assert realm.admin.patch("/realm", {"moderation_request_channel_id": -1}).ok
    assert register_queue(realm.member, event_types=["realm"])[
        "realm_moderation_request_channel_id"] == -1


def test_a_report_reaches_the_moderators(realm, drain_events):
    stream_id = moderation_channel(realm)
    channel(realm.owner, "general", [realm.owner, realm.member, realm.guest])
    message_id = send(realm.owner, "general", "plans",
                      "Everyone look @**all**, and @**Max Member** ```ha```")
    # WHEN a guest who can read it reports it
    response = report(realm.guest, message_id, report_type="harassment",
                      description="Not kind.\n@**Olivia Owner** should stop")
    assert response.ok, response.json
    # THEN the notification bot posts the report in the moderation channel, one topic per
    # reported person, naming who reported what and quoting the message
    [posted] = reports(realm, stream_id)
    assert posted["sender_email"] == NOTIFICATION_BOT_EMAIL
    assert posted["subject"] == "Reports: Olivia Owner"
    content = posted["content"]
    assert content.startswith(f"@_**Gus Guest|{realm.guest.user_id}** reported a message "
                              f"@_**Olivia Owner|{realm.owner.user_id}** sent in "
                              f"#**general>plans** (message {message_id})")
    assert "> **Harassment**\n> Not kind.\n> @_**Olivia Owner** should stop" in content
    assert "````text\nEveryone look @_**all**, and @_**Max Member** ```ha```\n````" in content
    # AND nobody the reported message or the description named is notified by the report
    rendered = realm.moderator.get(f"/messages/{posted['id']}").json["message"]["content"]
    assert "wildcard" not in rendered and 'class="user-mention"' not in rendered
    assert rendered.count("user-mention silent") == 4   # reporter, sender, two named


def test_direct_messages_can_be_reported_by_their_recipients(realm):
    stream_id = moderation_channel(realm)
    dm = realm.owner.post("/messages", {"type": "direct", "to": [realm.member.user_id],
                                        "content": "buy my stuff"}).json["id"]
    assert report(realm.member, dm, report_type="spam").ok
    [posted] = reports(realm, stream_id)
    assert f"sent to @_**Max Member|{realm.member.user_id}** in a direct message " \
           f"(message {dm})" in posted["content"]
    assert "> **Spam**\n\nThe message:" in posted["content"]
    # Someone outside the conversation cannot report it, as if it did not exist
    refused = report(realm.guest, dm, report_type="spam")
    assert (refused.status, refused.json["msg"]) == (400, "Message not found, or you cannot see it.")


@pytest.mark.parametrize("params, message", [
    ({"report_type": "rude"}, "report_type has an unacceptable value"),
    ({"report_type": "other"}, "a description is required"),
    ({"report_type": "spam", "description": "x" * 1001}, "description is over the limit"),
    ({}, "report_type"),
])
def test_refused_reports(realm, params, message):
    moderation_channel(realm)
    channel(realm.owner, "general", [realm.owner])
    message_id = send(realm.owner, "general", "t")
    response = report(realm.owner, message_id, **params)
    assert response.status == 400 and message in response.json["msg"], response.json


def test_reports_need_the_channel_and_a_readable_message(realm):
    channel(realm.owner, "secret", [realm.owner], invite_only=True)
    secret = send(realm.owner, "secret", "t")
    # No moderation channel: reporting is off
    off = report(realm.member, secret, report_type="spam")
    assert off.status == 400 and "no moderation request channel" in off.json["msg"]
    stream_id = moderation_channel(realm)
    # A message the caller cannot read, or none at all, is refused alike
    for message_id in (secret, 99999):
        refused = report(realm.member, message_id, report_type="spam")
        assert (refused.status, refused.json["msg"]) == (400, "Message not found, or you cannot see it.")
    # An archived moderation channel turns reporting off too
    assert realm.admin.delete(f"/streams/{stream_id}").ok
    assert "no moderation request channel" in report(
        realm.owner, secret, report_type="spam").json["msg"]
    assert reports(realm, stream_id) == []


def test_a_channel_of_the_empty_topic_alone_gets_reports_there(realm):
    stream_id = moderation_channel(realm)
    assert realm.admin.patch(f"/streams/{stream_id}", {
        "topics_policy": "empty_topic_only"}).ok
    channel(realm.owner, "general", [realm.owner, realm.member])
    message_id = send(realm.owner, "general", "t")
    assert report(realm.member, message_id, report_type="norms").ok
    [posted] = reports(realm, stream_id)
    assert posted["subject"] == "general chat"
