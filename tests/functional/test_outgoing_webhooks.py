"""Outgoing webhooks: triggers, the §4.21 payload through SQS, and the bot's replies."""
from __future__ import annotations

import json
from urllib.parse import parse_qsl

from chalicelib.actions.messages import send as message_send
from chalicelib.delivery.records import OUTGOING_WEBHOOK_RECORD
from chalicelib.models.events import Outbox
from chalicelib.models.messages import Message
from chalicelib.models.users import User
from tests.functional.edit_helpers import channel, send
from tests.functional.webhook_helpers import (
    direct_messages,
    make_bot,
    sent_by,
    topic_messages,
)

PAYLOAD_FIELDS = {"bot_email", "bot_full_name", "data", "trigger", "token", "message"}
# The reference's outgoing-webhook message object (additionalProperties: false).
MESSAGE_FIELDS = {
    "avatar_url", "client", "content", "content_type", "display_recipient", "edit_history",
    "id", "is_me_message", "last_edit_timestamp", "last_moved_timestamp", "reactions",
    "recipient_id", "sender_email", "sender_full_name", "sender_id", "sender_realm_str",
    "stream_id", "subject", "submessages", "timestamp", "topic_links", "type",
    "rendered_content"}


def test_mention_delivers_the_payload_and_posts_the_reply(realm, receiver, webhooks):
    # GIVEN an outgoing-webhook bot and a channel
    bot = make_bot(realm.member, receiver.url)
    [service] = bot["services"]
    channel(realm.owner, "talk", [realm.owner, realm.member])
    # WHEN a member mentions it
    message_id = send(realm.member, "talk", "hello", "@**Echo Bot** ping *now*")
    webhooks.run()
    # THEN the receiver gets the §4.21 body, with the bot's fixed token
    [request] = receiver.requests
    assert request.path == "/hook"
    assert request.headers["Content-Type"] == "application/json"
    payload = request.json
    assert set(payload) == PAYLOAD_FIELDS
    assert payload["token"] == service["token"] and payload["trigger"] == "mention"
    assert payload["bot_email"] == bot["email"] and payload["bot_full_name"] == "Echo Bot"
    assert payload["data"] == "@**Echo Bot** ping *now*"
    # AND the message in the §2.1 format, with raw Markdown content
    message = payload["message"]
    assert set(message) <= MESSAGE_FIELDS
    assert message["id"] == message_id and message["type"] == "stream"
    assert message["content"] == "@**Echo Bot** ping *now*"
    assert message["content_type"] == "text/x-markdown"
    assert "<em>now</em>" in message["rendered_content"]
    assert message["display_recipient"] == "talk" and message["subject"] == "hello"
    assert message["sender_id"] == realm.member.user_id
    assert message["sender_realm_str"] == realm.subdomain
    # AND the reply is the bot's message in the same topic
    replies = [m for m in topic_messages(realm.member, "talk", "hello")
               if m["sender_id"] == bot["user_id"]]
    assert [m["content"] for m in replies] == ["beep boop"]
    assert replies[0]["client"] == "OutgoingWebhookResponse"
    # AND the bot's own reply triggers nothing
    assert len(receiver.requests) == 1


def test_a_direct_message_triggers_direct_message_and_the_reply_stays_in_it(
        realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    response = realm.owner.post("/messages", {
        "type": "direct", "to": json.dumps([bot["user_id"], realm.admin.user_id]),
        "content": "hi bot"})
    assert response.ok, response.json
    webhooks.run()
    [payload] = receiver.payloads
    assert payload["trigger"] == "direct_message" and payload["data"] == "hi bot"
    assert payload["message"]["type"] == "private" and payload["message"]["subject"] == ""
    assert {r["id"] for r in payload["message"]["display_recipient"]} == {
        realm.owner.user_id, realm.admin.user_id, bot["user_id"]}
    # the reply goes to the same group conversation, which the admin sees too
    [reply] = [m for m in direct_messages(realm.admin) if m["sender_id"] == bot["user_id"]]
    assert reply["content"] == "beep boop"
    assert {r["id"] for r in reply["display_recipient"]} == {
        realm.owner.user_id, realm.admin.user_id, bot["user_id"]}


def test_legacy_response_string_comes_first_and_response_not_required_wins(
        realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    receiver.answer({"response_string": "legacy", "content": "new"})
    send(realm.owner, "talk", "a", "@**Echo Bot** one")
    webhooks.run()
    receiver.answer({"response_not_required": True, "content": "ignored"})
    send(realm.owner, "talk", "b", "@**Echo Bot** two")
    webhooks.run()
    assert len(receiver.requests) == 2
    assert sent_by(topic_messages(realm.owner, "talk", "a"), bot["user_id"]) == ["legacy"]
    assert sent_by(topic_messages(realm.owner, "talk", "b"), bot["user_id"]) == []


def test_which_messages_trigger(realm, receiver, webhooks):
    # GIVEN an outgoing-webhook bot and a generic bot
    bot = make_bot(realm.member, receiver.url)
    generic = realm.member.post("/bots", {"full_name": "Plain Bot", "short_name": "plain"})
    channel(realm.owner, "talk", [realm.owner, realm.member])
    # WHEN messages that do not mention it aloud are sent
    send(realm.owner, "talk", "t", "no mention here")
    send(realm.owner, "talk", "t", "@_**Echo Bot** silently")
    send(realm.owner, "talk", "t", "@**Plain Bot** generic")
    realm.owner.post("/messages", {"type": "direct", "content": "hi plain",
                                   "to": json.dumps([generic.json["user_id"]])})
    webhooks.run()
    # THEN nothing is posted
    assert receiver.requests == []
    # WHEN it is mentioned twice in one message, once by id
    send(realm.owner, "talk", "t", f"@**Echo Bot** and @**Echo Bot|{bot['user_id']}**")
    webhooks.run()
    # THEN it gets one delivery
    assert [p["data"] for p in receiver.payloads] == [
        f"@**Echo Bot** and @**Echo Bot|{bot['user_id']}**"]


def test_the_job_is_written_in_the_sending_transaction(realm, receiver, webhooks,
                                                       monkeypatch):
    bot = make_bot(realm.member, receiver.url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    transactions: list[list[object]] = []
    original = message_send.transaction

    def recording_transaction():
        tx = original()
        saved: list[object] = []
        transactions.append(saved)
        save = tx.save
        tx.save = lambda item, **kwargs: (saved.append(item), save(item, **kwargs))[1]
        return tx

    monkeypatch.setattr(message_send, "transaction", recording_transaction)
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** atomically")
    [items] = [t for t in transactions if any(isinstance(i, Message) for i in t)]
    jobs = [i.event for i in items
            if isinstance(i, Outbox) and i.event["type"] == OUTGOING_WEBHOOK_RECORD]
    assert [(j["message_id"], j["bot_id"], j["trigger"]) for j in jobs] == [
        (message_id, bot["user_id"], "mention")]


def test_the_reply_reaches_a_private_channel_the_bot_is_not_in(realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    channel(realm.owner, "secret", [realm.owner, realm.member], invite_only=True)
    send(realm.owner, "secret", "t", "@**Echo Bot** psst")
    webhooks.run()
    assert len(receiver.requests) == 1
    assert sent_by(topic_messages(realm.owner, "secret", "t"), bot["user_id"]) == [
        "beep boop"]


def test_the_payload_is_the_message_as_sent(realm, receiver, webhooks):
    make_bot(realm.member, receiver.url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** first")
    Message(realm.realm_id, message_id).update(actions=[Message.content.set("changed")])
    webhooks.run()
    assert receiver.payloads[0]["data"] == "@**Echo Bot** first"


def test_a_bot_deactivated_before_delivery_gets_nothing(realm, receiver, webhooks):
    bot = make_bot(realm.member, receiver.url)
    channel(realm.owner, "talk", [realm.owner, realm.member])
    send(realm.owner, "talk", "t", "@**Echo Bot** too late")
    User(realm.realm_id, bot["user_id"]).update(actions=[User.is_active.set(False)])
    webhooks.run()
    assert receiver.requests == []


def test_slack_interface_posts_slack_fields_and_reads_text(realm, receiver, webhooks):
    # GIVEN a bot that speaks Slack's outgoing-webhook format
    bot = make_bot(realm.member, receiver.url, interface_type=2)
    assert bot["services"][0]["interface"] == 2
    stream_id = channel(realm.owner, "talk", [realm.owner, realm.member])
    receiver.answer({"text": "slack says hi", "content": "not this"})
    # WHEN it is mentioned in a channel
    message_id = send(realm.owner, "talk", "t", "@**Echo Bot** hey")
    webhooks.run()
    # THEN it gets a form post with Slack's field names
    [request] = receiver.requests
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    fields = dict(parse_qsl(request.body.decode()))
    sent = next(m for m in topic_messages(realm.owner, "talk", "t") if m["id"] == message_id)
    assert fields == {
        "token": bot["services"][0]["token"], "team_id": f"T{realm.realm_id}",
        "team_domain": fields["team_domain"], "channel_id": f"C{stream_id}",
        "channel_name": "talk", "thread_ts": str(sent["timestamp"]),
        "timestamp": str(sent["timestamp"]), "user_id": f"U{realm.owner.user_id}",
        "user_name": "Olivia Owner", "text": "@**Echo Bot** hey", "trigger_word": "mention",
        "service_id": str(bot["user_id"])}
    assert fields["team_domain"].startswith(realm.subdomain + ".")
    assert sent_by(topic_messages(realm.owner, "talk", "t"), bot["user_id"]) == [
        "slack says hi"]
    # AND a direct message gets the reference's refusal, without a request
    realm.owner.post("/messages", {"type": "direct", "to": json.dumps([bot["user_id"]]),
                                   "content": "dm"})
    webhooks.run()
    assert len(receiver.requests) == 1
    assert sent_by(direct_messages(realm.owner), bot["user_id"]) == [
        "Failure! Slack outgoing webhooks don't support direct messages."]
