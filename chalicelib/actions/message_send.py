"""POST /messages: channel and direct messages, with mentions, in one transaction."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import UpdateError

from chalicelib import config
from chalicelib.actions.ids import allocate_id
from chalicelib.actions.message_dicts import (flags_for, load_people_and_channels,
                                              message_api_dict, recipient_id_for)
from chalicelib.actions.group_settings import caller_has_realm_permission
from chalicelib.actions.realm_settings import realm_setting
from chalicelib.actions.realms import get_realm
from chalicelib.actions.streams import access_stream_by_id, access_stream_by_name
from chalicelib.actions.users import get_user_by_email
from chalicelib.events.outbox import add_event
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.markdown import MentionTargets, render_message
from chalicelib.lib.mentions import Mentions, find_mentions
from chalicelib.lib.timeutil import now_seconds
from chalicelib.models.base import transaction
from chalicelib.models.messages import Message, dm_key, topic_key
from chalicelib.models.realms import Realm, UniqueName, group_name_key
from chalicelib.models.streams import Stream, stream_key
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User, name_key


def check_content(content: str) -> str:
    if not content.strip():
        raise ApiError("Message must not be empty")
    if len(content) > config.MAX_MESSAGE_LENGTH:
        raise ApiError(f"Message too long (limit: {config.MAX_MESSAGE_LENGTH} characters)")
    return content.rstrip()


def check_topic(topic: str | None, realm: Realm) -> str:
    if topic is None:
        topic = ""
    topic = topic.strip()
    display = realm_setting(realm, "realm_empty_topic_display_name")
    if topic in ("(no topic)", display):
        topic = ""
    if len(topic) > config.MAX_TOPIC_LENGTH:
        raise ApiError(f"Topic too long (limit: {config.MAX_TOPIC_LENGTH} characters)")
    if any(ord(ch) < 32 for ch in topic):
        raise ApiError("Invalid character in topic")
    if topic == "" and realm_setting(realm, "realm_topics_policy") == "disable_empty_topic":
        raise ApiError("Topics are required in this organization.")
    return topic


def _parse_to(to: str) -> Any:
    try:
        return json.loads(to)
    except ValueError:
        return to


@dataclass
class Resolved:
    targets: MentionTargets
    user_ids: set[int]
    group_ids: set[int]
    group_members: set[int]


def resolve_mentions(realm_id: int, mentions: Mentions) -> Resolved:
    """Looks up mentioned people and groups: a fixed number of batched reads per name."""
    targets = MentionTargets()
    by_id = {u.user_id: u for u in User.batch_get([(realm_id, i) for i in mentions.ids])}
    for user in by_id.values():
        if user.is_active:
            targets.users_by_id[user.user_id] = user.full_name
    for name in mentions.names:
        matches = [u for u in User.by_name.query(name_key(realm_id, name)) if u.is_active]
        if len(matches) == 1:   # ambiguous names need the |id form, as the reference says
            targets.users_by_name[name.lower()] = (matches[0].user_id, matches[0].full_name)
    group_ids: set[int] = set()
    members: set[int] = set()
    for name in mentions.groups:
        claim = UniqueName.get_or_none(*group_name_key(realm_id, name))
        group = UserGroup.get_or_none(realm_id, claim.target_id) if claim else None
        if group is None or group.deactivated or group.is_system_group:
            continue
        targets.groups_by_name[name.lower()] = (group.group_id, group.name)
        group_ids.add(group.group_id)
        members |= set(group.direct_members or ())
    user_ids = set(targets.users_by_id) | {i for i, _ in targets.users_by_name.values()}
    return Resolved(targets, user_ids, group_ids, members)


def check_send_message(caller: Principal, *, message_type: str, to: str, topic: str | None,
                       content: str, client: str = "API") -> dict[str, Any]:
    content = check_content(content)
    realm = get_realm(caller.realm_id)
    sender = User.get(caller.realm_id, caller.user_id)
    mentions = find_mentions(content)
    resolved = resolve_mentions(caller.realm_id, mentions)
    message = Message(caller.realm_id, 0, sender_id=caller.user_id, content=content,
                      rendered_content=render_message(content, resolved.targets),
                      content_sha256=hashlib.sha256(content.encode()).hexdigest(),
                      date_sent=now_seconds(), client=client,
                      is_me_message=content.startswith("/me "),
                      mentioned_user_ids=resolved.user_ids or None,
                      mentioned_group_ids=resolved.group_ids or None, recipient_id=0)
    stream: Stream | None = None
    if message_type in ("stream", "channel"):
        stream = _channel_target(caller, to)
        if stream.is_archived:
            raise ApiError("Cannot send to an archived channel.")
        message.type = "stream"
        message.stream_id = stream.stream_id
        message.stream_key = stream_key(caller.realm_id, stream.stream_id)
        message.topic = check_topic(topic, realm)
        message.topic_key = topic_key(caller.realm_id, stream.stream_id, message.topic)
        message.recipient_id = recipient_id_for(f"stream:{stream.stream_id}")
        if mentions.channel_wildcard or mentions.topic_wildcard:
            _check_wildcard_permission(caller, realm, stream, mentions)
            message.wildcard_mention = "stream" if mentions.channel_wildcard else "topic"
        audience: dict[str, Any] = {"stream": stream.stream_id, "public": not stream.invite_only}
    else:
        participants = _direct_recipients(caller, to) | {caller.user_id}
        message.type = "private"
        message.recipient_ids = sorted(participants)
        message.dm_key = dm_key(caller.realm_id, participants)
        message.recipient_id = recipient_id_for(f"dm:{message.dm_key}")
        audience = {"users": sorted(participants)}
    message.message_id = allocate_id(caller.realm_id, "message")
    users, streams = load_people_and_channels(caller.realm_id, [message])
    users[sender.user_id] = sender
    event_message = message_api_dict(message, users, streams, realm)
    event_message["_raw_content"] = content
    audience["user_flags"] = _user_flags(message, resolved, caller.user_id)
    with transaction() as tx:
        tx.save(message, condition=Message.message_id.does_not_exist())
        add_event(tx, caller.realm_id, {
            "type": "message", "message": event_message, "flags": [],
            "_empty_topic_display_name": realm_setting(realm, "realm_empty_topic_display_name"),
        }, audience)
    if stream is not None and stream.first_message_id is None:
        _set_first_message(stream, message.message_id)
    return {"id": message.message_id}


def _user_flags(message: Message, resolved: Resolved, sender_id: int) -> dict[str, list[str]]:
    interested = resolved.user_ids | resolved.group_members | {sender_id}
    flags = {str(uid): flags_for(message, uid, resolved.group_members) for uid in interested}
    return {uid: f for uid, f in flags.items() if f}


def _channel_target(caller: Principal, to: str) -> Stream:
    target = _parse_to(to)
    if isinstance(target, list) and len(target) == 1:
        target = target[0]
    if isinstance(target, int) and not isinstance(target, bool):
        stream, _ = access_stream_by_id(caller, target)
    elif isinstance(target, str) and target.strip():
        stream, _ = access_stream_by_name(caller, target.strip())
    else:
        raise ApiError("Invalid 'to': name one channel by id or name.")
    return stream


def _direct_recipients(caller: Principal, to: str) -> set[int]:
    target = _parse_to(to)
    if isinstance(target, (int, str)) and not isinstance(target, bool):
        target = [t.strip() for t in str(target).split(",") if t.strip()] if isinstance(
            target, str) else [target]
    if not isinstance(target, list) or not target:
        raise ApiError("Invalid 'to': give a list of user ids or emails.")
    ids = {t for t in target if isinstance(t, int) and not isinstance(t, bool)}
    emails = [t for t in target if isinstance(t, str)]
    if len(ids) + len(emails) != len(target):
        raise ApiError("Invalid 'to': give a list of user ids or emails.")
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
    return {u.user_id for u in users}


def _check_wildcard_permission(caller: Principal, realm: Realm, stream: Stream,
                               mentions: Mentions) -> None:
    threshold = realm_setting(realm, "wildcard_mention_large_stream_threshold")
    if stream.subscriber_count <= threshold or caller_has_realm_permission(
            realm, caller.user_id, caller.role, "can_mention_many_users_group"):
        return
    if mentions.channel_wildcard:
        raise ApiError("You do not have permission to use channel wildcard mentions in this "
                       "channel.", code="STREAM_WILDCARD_MENTION_NOT_ALLOWED")
    raise ApiError("You do not have permission to use topic wildcard mentions in this topic.",
                   code="TOPIC_WILDCARD_MENTION_NOT_ALLOWED")


def _set_first_message(stream: Stream, message_id: int) -> None:
    try:
        stream.update(actions=[Stream.first_message_id.set(message_id)],
                      condition=Stream.first_message_id.does_not_exist())
    except UpdateError:
        pass  # another message got there first
