"""The rows of the reference's test_messages, in its order."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.e2e.reference_dev_data import DevData
from tests.e2e.reference_examples.base import Example, Result, first_subscription, that

CASTLE = {"type": "stream", "to": "Denmark", "topic": "Castle",
          "content": "I come not, friends, to steal away your hearts."}
WRINKLES = "With mirth and laughter let old wrinkles come."


def _sent(key: str, content: str) -> Callable[[DevData, Result], None]:
    """The example's check that the message was sent with its content; keeps its id."""
    def check(x: DevData, result: Result) -> None:
        fetched = x.client.call_endpoint(url=f"messages/{result['id']}", method="GET")
        assert fetched["raw_content"] == content, fetched
        x.found[key] = result["id"]
    return check


def _message_typing(op: str) -> Callable[[DevData], Result]:
    return lambda x: x.client.call_endpoint(f"/messages/{x.found['message']}/typing",
                                            method="POST", request={"op": op})


def _matches_narrow(x: DevData) -> Result:
    message: dict[str, Any] = {"type": "stream", "to": "Verona", "topic": "test_topic",
                               "content": "http://foo.com"}
    ids = [x.client.send_message(message)["id"]]
    ids.append(x.client.send_message({**message, "content": "no link here"})["id"])
    return x.client.call_endpoint(url="messages/matches_narrow", method="GET", request={
        "msg_ids": ids, "narrow": [{"operator": "has", "operand": "link"}]})


def _mark_topic(x: DevData) -> Result:
    channel = first_subscription(x)
    topic = x.client.get_stream_topics(channel)["topics"][0]["name"]
    return x.client.mark_topic_as_read(channel, topic)


def _flags(op: str, flag: str) -> Callable[[DevData], Result]:
    def call(x: DevData) -> Result:
        if "flagged" not in x.found:
            x.found["flagged"] = [x.client.send_message(CASTLE)["id"] for _ in range(3)]
        return x.client.update_message_flags({"messages": x.found["flagged"], "op": op,
                                              "flag": flag})
    return call


def _report(x: DevData) -> Result:
    """The example sets the moderation request channel to a private channel first (its
    set_moderation_request_channel), then reports another user's message (here a direct
    message, so that no other account's message list changes: the terminal client's
    tests read the member's)."""
    x.client.add_subscriptions(streams=[{"name": "core team"}], invite_only=True)
    channel_id = x.client.get_stream_id("core team")["stream_id"]
    assert x.client.call_endpoint("/realm", method="PATCH", request={
        "moderation_request_channel_id": channel_id})["result"] == "success"
    reported = x.owner.send_message({"type": "private", "to": [x.users["iago"]],
                                     "content": WRINKLES})["id"]
    return x.client.call_endpoint(f"/messages/{reported}/report", method="POST", request={
        "report_type": "harassment", "description": "Boromir is bullying Frodo."})


def _not_theirs(action: str) -> Callable[[DevData], Result]:
    def call(x: DevData) -> Result:
        sent = x.client.send_message(CASTLE)
        if action == "edit":
            return x.nonadmin.update_message({"message_id": sent["id"],
                                              "content": "New content"})
        return x.nonadmin.delete_message(sent["id"])
    return call


MESSAGES: list[Example] = [
    Example("render_message", "POST /messages/render",
            lambda x: x.client.render_message({"content": "**foo**"})),
    Example("send_message[channel]", "POST /messages",
            lambda x: x.client.send_message(CASTLE), _sent("channel message", CASTLE["content"])),
    Example("send_message[direct]", "POST /messages",
            lambda x: x.client.send_message({"type": "private", "to": [x.users["hamlet"]],
                                             "content": WRINKLES}),
            _sent("message", WRINKLES)),
    Example("set_message_edit_typing_status[start]", "POST /messages/{message_id}/typing",
            _message_typing("start")),
    Example("set_message_edit_typing_status[stop]", "POST /messages/{message_id}/typing",
            _message_typing("stop")),
    Example("add_reaction", "POST /messages/{message_id}/reactions",
            lambda x: x.client.add_reaction({"message_id": x.found["message"],
                                             "emoji_name": "octopus"})),
    Example("remove_reaction", "DELETE /messages/{message_id}/reactions",
            lambda x: x.client.remove_reaction({"message_id": x.found["message"],
                                                "emoji_name": "octopus"})),
    Example("update_message", "PATCH /messages/{message_id}",
            lambda x: x.client.update_message({"message_id": x.found["message"],
                                               "content": "New content"}),
            lambda x, r: _sent("message", "New content")(x, {"id": x.found["message"]})),
    Example("get_raw_message", "GET /messages/{message_id}",
            lambda x: x.client.get_raw_message(x.found["message"])),
    Example("get_messages", "GET /messages",
            lambda x: x.client.get_messages({
                "anchor": "newest", "num_before": 100, "num_after": 0,
                "narrow": [{"operator": "sender", "operand": x.email("iago")},
                           {"operator": "channel", "operand": "Verona"}]}),
            that(lambda x, r: len(r["messages"]) <= 100, "at most num_before")),
    # The JavaScript example of the same call narrows with the legacy operator "stream".
    Example("javascript get_messages[stream operator]", "GET /messages",
            lambda x: x.client.get_messages({
                "anchor": "newest", "num_before": 100, "num_after": 0,
                "narrow": [{"operator": "sender", "operand": x.email("iago")},
                           {"operator": "stream", "operand": "Verona"}]}),
            that(lambda x, r: len(r["messages"]) >= 1, "iago's messages in Verona")),
    Example("check_messages_match_narrow", "GET /messages/matches_narrow", _matches_narrow),
    Example("get_message_history", "GET /messages/{message_id}/history",
            lambda x: x.client.get_message_history(x.found["message"])),
    Example("get_read_receipts", "GET /messages/{message_id}/read_receipts",
            lambda x: x.client.call_endpoint(f"/messages/{x.found['message']}/read_receipts",
                                             method="GET")),
    Example("report_message", "POST /messages/{message_id}/report", _report),
    Example("delete_message", "DELETE /messages/{message_id}",
            lambda x: x.client.delete_message(x.found["message"])),
    Example("mark_all_as_read", "POST /mark_all_as_read",
            lambda x: x.client.mark_all_as_read()),
    Example("mark_stream_as_read", "POST /mark_stream_as_read",
            lambda x: x.client.mark_stream_as_read(first_subscription(x))),
    Example("mark_topic_as_read", "POST /mark_topic_as_read", _mark_topic),
    Example("update_message_flags[add read]", "POST /messages/flags", _flags("add", "read")),
    Example("update_message_flags[remove starred]", "POST /messages/flags",
            _flags("remove", "starred")),
    Example("test_nonexistent_stream_error", "POST /messages",
            lambda x: x.client.send_message({**CASTLE, "to": "nonexistent-channel"}),
            error="STREAM_DOES_NOT_EXIST"),
    Example("test_private_message_invalid_recipient", "POST /messages",
            lambda x: x.client.send_message({"type": "private", "to": "eeshan@zulip.com",
                                             "content": WRINKLES}), error="BAD_REQUEST"),
    Example("test_update_message_edit_permission_error", "PATCH /messages/{message_id}",
            _not_theirs("edit"), error="BAD_REQUEST"),
    Example("test_delete_message_edit_permission_error", "DELETE /messages/{message_id}",
            _not_theirs("delete"), error="BAD_REQUEST"),
]
