"""A message before it is written: its item, event and audience (sending, the notices of a
move, imports), and who may use wildcard mentions."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from pynamodb.transactions import TransactWrite

from chalicelib.actions.groups.reads.settings import caller_has_realm_permission
from chalicelib.actions.messages.reads.dicts import MessageDict, message_api_dict, recipient_id_for
from chalicelib.actions.messages.reads.rendering import RenderedContent
from chalicelib.actions.read_state.reads.pending import mention_facts, pending_record
from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import Audience, add_event, to_channel
from chalicelib.delivery.types import EventFacts
from chalicelib.models.channels import Stream, stream_key
from chalicelib.models.ids import allocate_id
from chalicelib.models.message_properties import add_property_changes, stored_properties
from chalicelib.models.messages import Message, sender_key, topic_key
from chalicelib.models.realms import Realm, empty_topic_display_name, realm_setting
from chalicelib.models.users import User
from chalicelib.rules.linkifiers import LinkifierRule
from chalicelib.rules.mentions import Mentions
from chalicelib.rules.timeutil import now_seconds


class MessageEvent(TypedDict):
    type: Literal["message"]
    message: MessageDict
    flags: list[str]   # the receiving user's


@dataclass
class PreparedMessage:
    """A new message, its event, audience and the facts the fan-out delivers it by:
    what one transaction writes."""

    message: Message
    event: MessageEvent
    audience: Audience
    facts: EventFacts

    def add_to(self, tx: TransactWrite) -> None:
        tx.save(self.message, condition=Message.message_id.does_not_exist())
        # Unread for its recipients until the fan-out has written their markers.
        tx.save(pending_record(self.message, self.facts.get("read_by_sender", True)))
        add_event(tx, self.message.realm_id, self.event, self.audience, self.facts)
        # The has: index: a new message's link, attachment, image and resolved topic.
        add_property_changes(tx, self.message.realm_id, self.message.message_id, (),
                             stored_properties(self.message))


def new_channel_message(realm: Realm, sender_id: int, stream: Stream, topic: str,
                        rendered: RenderedContent, client: str = "API") -> Message:
    message = Message(realm.realm_id, 0, sender_id=sender_id, date_sent=now_seconds(),
                      client=client, recipient_id=0, type="stream",
                      sender_key=sender_key(realm.realm_id, sender_id))
    rendered.apply_to(message)
    message.stream_id = stream.stream_id
    message.stream_key = stream_key(realm.realm_id, stream.stream_id)
    message.topic = topic
    message.topic_key = topic_key(realm.realm_id, stream.stream_id, topic)
    message.recipient_id = recipient_id_for(f"stream:{stream.stream_id}")
    return message


def prepare_message(realm: Realm, message: Message, audience: Audience, *,
                    people: list[User], stream: Stream | None,
                    linkifiers: Sequence[LinkifierRule],
                    read_by_sender: bool = True) -> PreparedMessage:
    """Gives the message its id and builds the message event for its audience.

    Its facts carry, for the fan-out only, what each recipient's flags follow from
    (`mentions`); the fan-out writes their unread markers and flags
    (fanout/recipients.py) and gives each queue its owner's flags. `people` (the sender
    and, for a direct message, its recipients) and `stream` are what the caller read to
    check the message, and `linkifiers` what rendered it (they link the topic too), so
    nothing is read again here.
    """
    message.message_id = allocate_id(realm.realm_id, "message")
    users = {user.user_id: user for user in people}
    streams = {stream.stream_id: stream} if stream is not None else {}
    event: MessageEvent = {"type": "message",
                           "message": message_api_dict(message, users, streams, realm,
                                                       linkifiers=linkifiers),
                           "flags": []}
    # For the fan-out only: the raw content for clients that asked for Markdown, the
    # mentions and whether the sender read it (for the flags), and how the empty topic
    # shows to clients without empty_topic_name; the channel's privacy, for queues
    # narrowed by `channels:` (narrow/events.py).
    facts: EventFacts = {"raw_content": message.content, "mentions": mention_facts(message),
                         "read_by_sender": read_by_sender,
                         "empty_topic_display_name": empty_topic_display_name(realm)}
    if stream is not None:
        facts |= {"channel_public": not stream.invite_only,
                  "channel_web_public": bool(stream.is_web_public)}
    return PreparedMessage(message, event, audience, facts)


def channel_audience(stream: Stream) -> Audience:
    return to_channel(stream.stream_id, public=not stream.invite_only)


def check_wildcard_permission(caller: Principal, realm: Realm, stream: Stream,
                               mentions: Mentions) -> None:
    threshold = realm_setting(realm, "wildcard_mention_large_stream_threshold")
    if stream.subscriber_count <= threshold or caller_has_realm_permission(
            realm, caller.user_id, caller.role, "can_mention_many_users_group"):
        return
    if mentions.channel_wildcard:
        raise ApiError("You are not allowed to mention the whole channel here.",
                       code=ErrorCode.STREAM_WILDCARD_MENTION_NOT_ALLOWED)
    raise ApiError("You are not allowed to mention everyone in this topic.",
                   code=ErrorCode.TOPIC_WILDCARD_MENTION_NOT_ALLOWED)
