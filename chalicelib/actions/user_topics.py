"""Per-user topic visibility (§4.7 and POST /user_topics): mute, unmute, follow.

One item per (user, channel, topic) that has a policy; "none" deletes it. The write and
its events are one transaction, conditioned on the policy that was read.
"""
from __future__ import annotations

from typing import Any

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.message_send import check_topic
from chalicelib.actions.realms import get_realm
from chalicelib.actions.streams import access_stream_by_id, access_stream_by_name
from chalicelib.events.outbox import add_event
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError, ConflictError
from chalicelib.lib.timeutil import now_seconds
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.streams import Stream, user_key
from chalicelib.models.topics import UserTopic, user_topic_key

INHERIT, MUTED, UNMUTED, FOLLOWED = 0, 1, 2, 3
POLICIES = (INHERIT, MUTED, UNMUTED, FOLLOWED)
MAX_ATTEMPTS = 5


def user_topics(realm_id: int, user_id: int) -> list[UserTopic]:
    return list(UserTopic.query(user_key(realm_id, user_id)))


def user_topic_dict(item: UserTopic) -> dict[str, Any]:
    return {"stream_id": item.stream_id, "topic_name": item.topic_name,
            "last_updated": item.last_updated, "visibility_policy": item.visibility_policy}


def muted_topic_triples(realm_id: int, items: list[UserTopic]) -> list[list[Any]]:
    """The deprecated muted_topics shape: [channel name, topic, last_updated]."""
    muted = [i for i in items if i.visibility_policy == MUTED]
    names = {s.stream_id: s.name for s in Stream.batch_get(
        [(realm_id, i) for i in {m.stream_id for m in muted}])}
    return [[names[m.stream_id], m.topic_name, m.last_updated] for m in muted
            if m.stream_id in names]


def do_set_visibility_policy(caller: Principal, stream_id: int, topic: str,
                             policy: int) -> dict[str, Any]:
    if policy not in POLICIES:
        raise ApiError("Invalid visibility_policy")
    stream, _ = access_stream_by_id(caller, stream_id)
    _set_policy(caller, stream, check_topic(topic, get_realm(caller.realm_id)), policy)
    return {}


def do_mute_topic(caller: Principal, stream_id: int | None, stream_name: str | None,
                  topic: str, op: str) -> dict[str, Any]:
    if (stream_id is None) == (stream_name is None):
        raise ApiError("Please choose one: 'stream' or 'stream_id'.")
    if stream_id is not None:
        stream, _ = access_stream_by_id(caller, stream_id)
    else:
        assert stream_name is not None
        stream, _ = access_stream_by_name(caller, stream_name)
    topic = check_topic(topic, get_realm(caller.realm_id))
    _set_policy(caller, stream, topic, MUTED if op == "add" else INHERIT)
    return {}


def _set_policy(caller: Principal, stream: Stream, topic: str, policy: int) -> None:
    key = (user_key(caller.realm_id, caller.user_id), user_topic_key(stream.stream_id, topic))
    for _ in range(MAX_ATTEMPTS):
        current = UserTopic.get_or_none(*key)
        if (current.visibility_policy if current else INHERIT) == policy:
            return   # already so: a quiet success
        read = (UserTopic.visibility_policy == current.visibility_policy if current
                else UserTopic.topic_key.does_not_exist())
        now = now_seconds()
        item = UserTopic(*key, stream_id=stream.stream_id, topic_name=topic,
                         visibility_policy=policy, last_updated=now)
        try:
            with transaction() as tx:
                if policy == INHERIT:
                    tx.delete(item, condition=read)
                else:
                    tx.save(item, condition=read)
                audience = {"users": [caller.user_id]}
                add_event(tx, caller.realm_id, {"type": "user_topic",
                                                **user_topic_dict(item)}, audience)
                others = [i for i in user_topics(caller.realm_id, caller.user_id)
                          if i.topic_key != item.topic_key]
                after = others + ([item] if policy != INHERIT else [])
                add_event(tx, caller.realm_id, {
                    "type": "muted_topics",
                    "muted_topics": muted_topic_triples(caller.realm_id, after)}, audience)
        except TransactWriteError as error:
            if is_condition_failure(error):
                continue   # changed meanwhile: read again
            raise
        return
    raise ConflictError("The topic's setting changed concurrently; try again.")
