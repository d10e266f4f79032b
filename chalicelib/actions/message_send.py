"""POST /messages: channel and direct messages, with mentions, in one transaction."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from pynamodb.exceptions import UpdateError

from chalicelib import config
from chalicelib.actions.group_settings import caller_has_realm_permission
from chalicelib.actions.ids import allocate_id
from chalicelib.actions.message_dicts import (
    MessageDict,
    message_api_dict,
    recipient_id_for,
)
from chalicelib.actions.outgoing_webhooks import add_webhook_triggers, triggered_bots
from chalicelib.actions.realm_settings import empty_topic_display_name, realm_setting
from chalicelib.actions.realms import get_realm
from chalicelib.actions.streams import access_stream_by_id, access_stream_by_name
from chalicelib.actions.topics import check_topic, note_topic_message
from chalicelib.actions.uploads import plan_links
from chalicelib.actions.users import get_user_by_email
from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.core.principal import Principal
from chalicelib.events.outbox import add_event
from chalicelib.lib.aws_errors import best_effort
from chalicelib.lib.json_values import check_json, check_storable, too_deep
from chalicelib.lib.markdown import MentionTargets, render_message
from chalicelib.lib.mentions import Mentions, find_mentions
from chalicelib.lib.timeutil import now_seconds
from chalicelib.models.base import is_write_condition_failure, transaction
from chalicelib.models.messages import Message, dm_key, topic_key
from chalicelib.models.realms import Realm, UniqueName, group_name_key
from chalicelib.models.streams import Stream, get_stream, stream_key
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User, name_key

# A direct message's recipients are looked up in batches; a list has a bound.
MAX_DIRECT_RECIPIENTS = 1000


def check_content(content: str) -> str:
    if not content.strip():
        raise ApiError("Message must not be empty")
    if len(content) > config.MAX_MESSAGE_LENGTH:
        raise ApiError(f"Message too long (limit: {config.MAX_MESSAGE_LENGTH} characters)")
    return content.rstrip()


def _parse_to(to: str) -> Any:
    """`to` is JSON (an id, a name, a list) or plain text (a name, emails)."""
    try:
        value = json.loads(to)
    except RecursionError:
        raise too_deep("to") from None
    except ValueError:
        return to
    check_storable("to", value)
    return value


@dataclass
class Resolved:
    targets: MentionTargets
    user_ids: set[int]
    group_ids: set[int]
    group_members: set[int]
    users: dict[int, User] = field(default_factory=dict)   # the mentioned people
    # Mentioned aloud (not with "@_"): the users and groups that get the mentioned flag.
    loud_user_ids: set[int] = field(default_factory=set)
    loud_group_ids: set[int] = field(default_factory=set)
    loud_group_members: set[int] = field(default_factory=set)

    @property
    def flagged_user_ids(self) -> set[int]:
        """Who gets the `mentioned` flag: loud mentions of them or of their group."""
        return self.loud_user_ids | self.loud_group_members


def resolve_mentions(realm_id: int, mentions: Mentions) -> Resolved:
    """Looks up mentioned people and groups: a fixed number of batched reads per name."""
    targets = MentionTargets()
    by_id = {u.user_id: u for u in User.batch_get([(realm_id, i) for i in mentions.ids])}
    people: dict[int, User] = {}
    for user in by_id.values():
        if user.is_active:
            targets.users_by_id[user.user_id] = user.full_name
            people[user.user_id] = user
    loud_user_ids = {i for i in mentions.loud_ids if i in targets.users_by_id}
    for name in mentions.names:
        matches = [u for u in User.by_name.query(name_key(realm_id, name)) if u.is_active]
        if len(matches) == 1:   # ambiguous names need the |id form, as the reference says
            targets.users_by_name[name.lower()] = (matches[0].user_id, matches[0].full_name)
            people[matches[0].user_id] = matches[0]
            if name in mentions.loud_names:
                loud_user_ids.add(matches[0].user_id)
    group_ids: set[int] = set()
    members: set[int] = set()
    loud_group_ids: set[int] = set()
    loud_members: set[int] = set()
    for name in mentions.groups:
        claim = UniqueName.get_or_none(*group_name_key(realm_id, name))
        group = UserGroup.get_or_none(realm_id, claim.target_id) if claim else None
        if group is None or group.deactivated or group.is_system_group:
            continue
        targets.groups_by_name[name.lower()] = (group.group_id, group.name)
        group_ids.add(group.group_id)
        members |= set(group.direct_members or ())
        if name in mentions.loud_groups:
            loud_group_ids.add(group.group_id)
            loud_members |= set(group.direct_members or ())
    user_ids = set(targets.users_by_id) | {i for i, _ in targets.users_by_name.values()}
    return Resolved(targets, user_ids, group_ids, members, people, loud_user_ids,
                    loud_group_ids, loud_members)


@dataclass
class RenderedContent:
    """Message content with its mentions looked up and its HTML rendered."""

    content: str
    rendered: str
    mentions: Mentions
    resolved: Resolved

    def apply_to(self, message: Message) -> None:
        message.content = self.content
        message.rendered_content = self.rendered
        message.content_sha256 = content_sha256(self.content)
        message.is_me_message = self.content.startswith("/me ")
        message.mentioned_user_ids = self.resolved.loud_user_ids or None
        message.mentioned_group_ids = self.resolved.loud_group_ids or None
        message.flagged_user_ids = self.resolved.flagged_user_ids or None
        # Wildcards mention a channel's subscribers: a direct message has none.
        message.wildcard_mention = None if message.type != "stream" else (
            "stream" if self.mentions.channel_wildcard else "topic"
            if self.mentions.topic_wildcard else None)


def content_sha256(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def render_content(realm_id: int, content: str) -> RenderedContent:
    content = check_content(content)
    mentions = find_mentions(content)
    resolved = resolve_mentions(realm_id, mentions)
    return RenderedContent(content, render_message(content, resolved.targets), mentions,
                           resolved)


class MessageEvent(TypedDict):
    type: Literal["message"]
    message: MessageDict
    flags: list[str]   # the receiving user's


class SendMessageResult(TypedDict):
    id: int
    automatic_new_visibility_policy: NotRequired[int]


@dataclass
class PreparedMessage:
    """A new message, its event and audience: what one transaction writes."""

    message: Message
    event: dict[str, Any]
    audience: dict[str, Any]

    def add_to(self, tx: Any) -> None:
        tx.save(self.message, condition=Message.message_id.does_not_exist())
        add_event(tx, self.message.realm_id, self.event, self.audience)  # type: ignore[arg-type]


def new_channel_message(realm: Realm, sender_id: int, stream: Stream, topic: str,
                        rendered: RenderedContent, client: str = "API") -> Message:
    message = Message(realm.realm_id, 0, sender_id=sender_id, date_sent=now_seconds(),
                      client=client, recipient_id=0, type="stream")
    rendered.apply_to(message)
    message.stream_id = stream.stream_id
    message.stream_key = stream_key(realm.realm_id, stream.stream_id)
    message.topic = topic
    message.topic_key = topic_key(realm.realm_id, stream.stream_id, topic)
    message.recipient_id = recipient_id_for(f"stream:{stream.stream_id}")
    return message


def prepare_message(realm: Realm, message: Message, audience: dict[str, Any], *,
                    people: list[User], stream: Stream | None,
                    read_by_sender: bool = True) -> PreparedMessage:
    """Gives the message its id and builds the message event for its audience.

    The event carries, for the fan-out only, what each recipient's flags follow from
    (`_mentions`); the fan-out writes their unread markers and flags
    (events/recipients.py) and gives each queue its owner's flags. `people` (the sender
    and, for a direct message, its recipients) and `stream` are what the caller read to
    check the message, so nothing is read again here.
    """
    message.message_id = allocate_id(realm.realm_id, "message")
    users = {user.user_id: user for user in people}
    streams = {stream.stream_id: stream} if stream is not None else {}
    event: MessageEvent = {"type": "message",
                           "message": message_api_dict(message, users, streams, realm),
                           "flags": []}
    # "_" facts stop in the fan-out (events/filters.py): the raw content for clients that
    # asked for Markdown, the mentions and whether the sender read it (for the flags), and
    # how the empty topic shows to clients without empty_topic_name.
    stored = {**event, "message": {**event["message"], "_raw_content": message.content},
              "_mentions": mention_facts(message), "_read_by_sender": read_by_sender,
              "_empty_topic_display_name": empty_topic_display_name(realm)}
    return PreparedMessage(message, stored, audience)


def mention_facts(message: Message) -> dict[str, Any]:
    """Who a message's mentions flag: the mentioned users (and groups' members), and its
    wildcard ("stream", "topic" or None), which flags every recipient."""
    return {"users": sorted(message.flagged_user_ids or ()),
            "wildcard": message.wildcard_mention}


def channel_audience(stream: Stream) -> dict[str, Any]:
    return {"stream": stream.stream_id, "public": not stream.invite_only}


def check_send_message(caller: Principal, *, message_type: str, to: str, topic: str | None,
                       content: str, client: str = "API", read_by_sender: bool = True,
                       skip_stream_access_check: bool = False) -> SendMessageResult:
    """`skip_stream_access_check`: for outgoing-webhook bots answering where they were
    mentioned (`to` is then a channel id), as the reference allows."""
    # `to` is checked before anything is read: it may name a thousand people.
    direct = None if message_type in ("stream", "channel") else parse_direct_target(to)
    rendered = render_content(caller.realm_id, content)
    realm = get_realm(caller.realm_id)
    sender = User.get(caller.realm_id, caller.user_id)
    stream: Stream | None = None
    if message_type in ("stream", "channel"):
        stream = (_channel_by_id(caller.realm_id, to) if skip_stream_access_check
                  else _channel_target(caller, to))
        if stream.is_archived:
            raise ApiError("Cannot send to an archived channel.")
        message = new_channel_message(realm, caller.user_id, stream,
                                      check_topic(topic, realm, stream), rendered, client)
        if rendered.mentions.channel_wildcard or rendered.mentions.topic_wildcard:
            check_wildcard_permission(caller, realm, stream, rendered.mentions)
        audience = channel_audience(stream)
        people = [sender]
        triggers = triggered_bots(sender, content=rendered.content,
                                  mentioned=rendered.resolved.users.values())
    else:
        assert direct is not None
        recipients = direct_recipient_users(caller, direct)
        participants = {u.user_id for u in recipients} | {caller.user_id}
        triggers = triggered_bots(sender, participants=recipients)
        message = Message(caller.realm_id, 0, sender_id=caller.user_id, type="private",
                          date_sent=now_seconds(), client=client, recipient_id=0)
        rendered.apply_to(message)
        message.recipient_ids = sorted(participants)
        message.dm_key = dm_key(caller.realm_id, participants)
        message.recipient_id = recipient_id_for(f"dm:{message.dm_key}")
        audience = {"users": sorted(participants)}
        people = [sender, *recipients]
    prepared = prepare_message(realm, message, audience, people=people, stream=stream,
                               read_by_sender=read_by_sender)
    links = plan_links(caller.realm_id, caller.user_id, message.message_id, message.content)
    with transaction() as tx:
        prepared.add_to(tx)
        links.apply(tx)
        add_webhook_triggers(tx, caller.realm_id, prepared.event["message"], triggers)
    if stream is not None:
        after_channel_message(stream, message)
    return {"id": message.message_id}


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


def _channel_target(caller: Principal, to: str) -> Stream:
    target = _parse_to(to)
    if isinstance(target, list) and len(target) == 1:
        target = target[0]
    if isinstance(target, int) and not isinstance(target, bool):
        stream, _ = access_stream_by_id(caller, check_json("to", target, int))
    elif isinstance(target, str) and target.strip():
        stream, _ = access_stream_by_name(caller, target.strip())
    else:
        raise ApiError("Invalid 'to': name one channel by id or name.")
    return stream


def _channel_by_id(realm_id: int, to: str) -> Stream:
    stream = get_stream(realm_id, int(to))
    if stream is None:
        raise ApiError(f"Channel with ID '{to}' does not exist", code=ErrorCode.STREAM_DOES_NOT_EXIST)
    return stream


@dataclass
class DirectTarget:
    """The recipients a direct message's `to` names, checked before any is looked up."""

    ids: set[int]
    emails: list[str]


def parse_direct_target(to: str) -> DirectTarget:
    target = _parse_to(to)
    if isinstance(target, (int, str)) and not isinstance(target, bool):
        target = [t.strip() for t in str(target).split(",") if t.strip()] if isinstance(
            target, str) else [target]
    if not isinstance(target, list) or not target:
        raise ApiError("Invalid 'to': give a list of user ids or emails.")
    if len(target) > MAX_DIRECT_RECIPIENTS:   # before any of them is looked up
        raise ApiError(f"Too many recipients in 'to' (limit: {MAX_DIRECT_RECIPIENTS}).")
    numbers = [t for t in target if isinstance(t, int) and not isinstance(t, bool)]
    emails = [t for t in target if isinstance(t, str)]
    if len(numbers) + len(emails) != len(target):
        raise ApiError("Invalid 'to': give a list of user ids or emails.")
    return DirectTarget({check_json("to", t, int) for t in numbers}, emails)


def direct_recipient_users(caller: Principal, to: str | DirectTarget) -> list[User]:
    parsed = to if isinstance(to, DirectTarget) else parse_direct_target(to)
    ids, emails = parsed.ids, parsed.emails
    users = list(User.batch_get([(caller.realm_id, i) for i in ids]))
    missing = ids - {u.user_id for u in users}
    for email in emails:
        user = get_user_by_email(caller.realm_id, email)
        if user is None:
            raise ApiError(f"Invalid email '{email}'")
        users.append(user)
    if missing:
        raise ApiError(f"Invalid user ID {min(missing)}")
    for user in users:
        if not user.is_active:
            raise ApiError(f"'{user.email}' is no longer using this organization.")
    return users


def check_wildcard_permission(caller: Principal, realm: Realm, stream: Stream,
                               mentions: Mentions) -> None:
    threshold = realm_setting(realm, "wildcard_mention_large_stream_threshold")
    if stream.subscriber_count <= threshold or caller_has_realm_permission(
            realm, caller.user_id, caller.role, "can_mention_many_users_group"):
        return
    if mentions.channel_wildcard:
        raise ApiError("You do not have permission to use channel wildcard mentions in this "
                       "channel.", code=ErrorCode.STREAM_WILDCARD_MENTION_NOT_ALLOWED)
    raise ApiError("You do not have permission to use topic wildcard mentions in this topic.",
                   code=ErrorCode.TOPIC_WILDCARD_MENTION_NOT_ALLOWED)


def _set_first_message(stream: Stream, message_id: int) -> None:
    try:
        stream.update(actions=[Stream.first_message_id.set(message_id)],
                      condition=Stream.first_message_id.does_not_exist())
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise   # else another message got there first
