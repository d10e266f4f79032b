"""POST /messages: channel and direct messages, with mentions, in one transaction."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

from pynamodb.exceptions import UpdateError

from chalicelib.actions.channels.access_events import add_records, met_in_conversation
from chalicelib.actions.channels.reads.channels import (
    access_stream_by_id,
    access_stream_by_name,
    channel_access_reads,
)
from chalicelib.actions.channels.topics import (
    check_topic,
    check_topic_creation,
    note_topic_message,
)
from chalicelib.actions.messages.prepare import (
    channel_audience,
    check_wildcard_permission,
    new_channel_message,
    prepare_message,
)
from chalicelib.actions.messages.reads.dicts import (
    recipient_id_for,
)
from chalicelib.actions.messages.reads.recipients import (
    _parse_to,
    direct_recipient_users,
    parse_direct_target,
)
from chalicelib.actions.messages.reads.rendering import (
    RenderedContent,
    check_content,
    render_content,
)
from chalicelib.actions.messages.uploads import plan_links
from chalicelib.actions.messages.webhook_triggers import add_webhook_triggers, triggered_bots
from chalicelib.actions.users.reads.access import realm_restricts_access
from chalicelib.aws import metrics
from chalicelib.aws.aws_errors import best_effort
from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import to_users
from chalicelib.models.base import is_write_condition_failure, transaction
from chalicelib.models.channels import Stream, get_stream
from chalicelib.models.messages import Message, dm_key, sender_key
from chalicelib.models.read_ahead import read_ahead
from chalicelib.models.realms import Realm, get_realm
from chalicelib.models.users import User
from chalicelib.rules.json_values import check_json
from chalicelib.rules.timeutil import now_seconds


class SendMessageResult(TypedDict):
    id: int
    automatic_new_visibility_policy: NotRequired[int]


def check_send_message(caller: Principal, *, message_type: str, to: str, topic: str | None,
                       content: str, client: str = "API", read_by_sender: bool = True,
                       skip_stream_access_check: bool = False,
                       also: Callable[[Any, int], None] | None = None) -> SendMessageResult:
    """`skip_stream_access_check`: for outgoing-webhook bots answering where they were
    mentioned (`to` is then a channel id), as the reference allows. `also(tx, id)` adds
    the caller's own writes to the message's transaction (a scheduled message's claim)."""
    # `to` is checked before anything is read: it may name a thousand people.
    direct = None if message_type in ("stream", "channel") else parse_direct_target(to)
    check_content(content)
    channel = None if direct is not None or skip_stream_access_check \
        else _channel_reference(to)
    stream: Stream | None = None
    subscribed = True   # a bot answering where it was mentioned: accessible to everyone
    # The organization, the sender and the channel, in one request where possible.
    with read_ahead([(Realm, caller.realm_id, None), (User, caller.realm_id, caller.user_id),
                     *([] if channel is None else channel_access_reads(caller, channel))]):
        realm = get_realm(caller.realm_id)
        sender = User.get(caller.realm_id, caller.user_id)
        if message_type in ("stream", "channel"):
            if channel is None:
                stream = _channel_by_id(caller.realm_id, to)
            else:
                stream, subscribed = _channel_target(caller, channel)
    rendered = render_content(caller.realm_id, content, realm, author=caller)
    if stream is not None:
        if stream.is_archived:
            raise ApiError("Cannot send to an archived channel.")
        message = new_channel_message(realm, caller.user_id, stream,
                                      check_topic(topic, realm, stream), rendered, client)
        check_topic_creation(caller, stream, message.topic)
        if rendered.mentions.channel_wildcard or rendered.mentions.topic_wildcard:
            check_wildcard_permission(caller, realm, stream, rendered.mentions)
        audience = channel_audience(stream)
        people = [sender]
        triggers = triggered_bots(sender, content=rendered.content,
                                  mentioned=rendered.resolved.users.values())
    else:
        assert direct is not None  # nosec B101 # type narrowing (set above)
        recipients = direct_recipient_users(caller, direct)
        triggers = triggered_bots(sender, participants=recipients)
        message = _direct_message(caller, recipients, rendered, client)
        audience = to_users(list(message.recipient_ids))
        people = [sender, *recipients]
    # Limited guests of a conversation meet those they could not access (realm_user add),
    # before the message, so their clients show its sender.
    met = met_in_conversation(realm, people) if stream is None else []
    prepared = prepare_message(realm, message, audience, people=people, stream=stream,
                               linkifiers=rendered.linkifiers, read_by_sender=read_by_sender)
    if not subscribed and realm_restricts_access(realm):
        # Subscribers who may not access the sender see them as "Unknown user".
        prepared.facts["actor_outside_channel"] = caller.user_id
    links = plan_links(caller.realm_id, caller.user_id, message.message_id, message.content)
    with transaction() as tx:
        add_records(tx, caller.realm_id, met, room=len(met))
        prepared.add_to(tx)
        links.apply(tx)
        add_webhook_triggers(tx, caller.realm_id, prepared.event["message"],
                             message.content, triggers)
        if also is not None:
            also(tx, message.message_id)
    metrics.count_message_sent("direct" if stream is None else "channel")
    if stream is not None:
        after_channel_message(stream, message)
    return {"id": message.message_id}


def _direct_message(caller: Principal, recipients: list[User], rendered: RenderedContent,
                    client: str) -> Message:
    """A new direct message to these recipients (the sender among its participants)."""
    participants = {u.user_id for u in recipients} | {caller.user_id}
    message = Message(caller.realm_id, 0, sender_id=caller.user_id, type="private",
                      date_sent=now_seconds(), client=client, recipient_id=0,
                      sender_key=sender_key(caller.realm_id, caller.user_id))
    rendered.apply_to(message)
    message.recipient_ids = sorted(participants)
    message.dm_key = dm_key(caller.realm_id, participants)
    message.recipient_id = recipient_id_for(f"dm:{message.dm_key}")
    return message


def after_channel_message(stream: Stream, message: Message) -> None:
    """Derived records a new channel message updates (outside its transaction: both
    are recomputable, and a lost race only means another message got there first).

    The message is sent once its transaction committed: a throttled derived write is
    retried here, and if it still fails it is logged, never answered as a failed send
    (a client retrying that would send the message twice)."""
    if stream.first_message_id is None:
        best_effort(lambda: _set_first_message(stream, message.message_id),
                    "channel's first message")
    best_effort(lambda: note_topic_message(message.realm_id, stream.stream_id, message.topic,
                                           message.message_id), "topic's latest message")


def _channel_reference(to: str) -> int | str:
    """A channel message's `to`: one channel's id, or its name."""
    target = _parse_to(to)
    if isinstance(target, list) and len(target) == 1:
        target = target[0]
    if isinstance(target, int) and not isinstance(target, bool):
        return int(check_json("to", target, int))
    if isinstance(target, str) and target.strip():
        return target.strip()
    raise ApiError("Invalid 'to': name one channel by id or name.")


def _channel_target(caller: Principal, channel: int | str) -> tuple[Stream, bool]:
    """The channel, and whether the caller is subscribed to it."""
    if isinstance(channel, int):
        stream, subscription = access_stream_by_id(caller, channel)
    else:
        stream, subscription = access_stream_by_name(caller, channel)
    return stream, subscription is not None


def _channel_by_id(realm_id: int, to: str) -> Stream:
    stream = get_stream(realm_id, int(to))
    if stream is None:
        raise ApiError(f"No channel with ID {to} exists, or you cannot see it",
                       code=ErrorCode.STREAM_DOES_NOT_EXIST)
    return stream


def _set_first_message(stream: Stream, message_id: int) -> None:
    try:
        stream.update(actions=[Stream.first_message_id.set(message_id)],
                      condition=Stream.first_message_id.does_not_exist())
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise   # else another message got there first
