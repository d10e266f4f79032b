"""Per-user topic visibility (§4.7 and POST /user_topics): mute, unmute, follow.

One item per (user, channel, topic) that has a policy; "none" deletes it. The write and
its events are one transaction, conditioned on the policy that was read.
"""
from __future__ import annotations

from typing import Literal, TypedDict

from chalicelib.actions.channels.reads.channels import access_stream_by_id, access_stream_by_name
from chalicelib.actions.channels.reads.user_topics import (
    MutedTopic,
    muted_topic_triples,
    user_topic_dict,
    user_topics,
)
from chalicelib.actions.channels.topics import check_topic
from chalicelib.core.errors import UNKNOWN_CHANNEL_ID, ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import Audience, add_event, to_users
from chalicelib.models.base import transaction
from chalicelib.models.channels import Stream, get_stream, stream_id_by_name, user_key
from chalicelib.models.races import retry_lost_races
from chalicelib.models.realms import Realm, empty_topic_display_name, get_realm
from chalicelib.models.topics import (
    FOLLOWED,
    INHERIT,
    MUTED,
    UNMUTED,
    UserTopic,
    user_topic_key,
)
from chalicelib.rules.timeutil import now_seconds

POLICIES = (INHERIT, MUTED, UNMUTED, FOLLOWED)


class UserTopicEvent(TypedDict):
    type: Literal["user_topic"]
    stream_id: int
    topic_name: str
    last_updated: int
    visibility_policy: int


class MutedTopicsEvent(TypedDict):
    """Deprecated: the whole list of muted topics, for clients that predate user_topic."""

    type: Literal["muted_topics"]
    muted_topics: list[MutedTopic]


def do_set_visibility_policy(caller: Principal, stream_id: int, topic: str,
                             policy: int) -> EmptyResult:
    if policy not in POLICIES:
        raise ApiError("Invalid visibility_policy")
    realm = get_realm(caller.realm_id)
    stream = _access_stream(caller, stream_id, None, policy)
    _set_policy(caller, realm, stream, check_topic(topic, realm, enforce_policy=False), policy)
    return {}


def do_mute_topic(caller: Principal, stream_id: int | None, stream_name: str | None,
                  topic: str, op: str) -> EmptyResult:
    if (stream_id is None) == (stream_name is None):
        raise ApiError("Send either 'stream' or 'stream_id', not both.")
    policy = MUTED if op == "add" else INHERIT
    realm = get_realm(caller.realm_id)
    stream = _access_stream(caller, stream_id, stream_name, policy)
    _set_policy(caller, realm, stream, check_topic(topic, realm, enforce_policy=False), policy)
    return {}


def invalid_channel_name(name: str) -> ApiError:
    """The reference's answer when the deprecated endpoint names no channel it can use."""
    return ApiError(f"No channel named '{name}' exists, or you cannot see it")


def _access_stream(caller: Principal, stream_id: int | None, stream_name: str | None,
                   policy: int) -> Stream:
    """Setting a policy needs access to the channel; removing one needs only that it
    exists, so a user who lost access to a channel can still clear what they set there."""
    if policy != INHERIT:
        if stream_id is not None:
            return access_stream_by_id(caller, stream_id)[0]
        assert stream_name is not None  # nosec B101 # type narrowing (set above)
        try:
            return access_stream_by_name(caller, stream_name)[0]
        except ApiError:
            raise invalid_channel_name(stream_name) from None
    if stream_id is None:
        assert stream_name is not None  # nosec B101 # type narrowing (set above)
        stream_id = stream_id_by_name(caller.realm_id, stream_name)
        if stream_id is None:
            raise invalid_channel_name(stream_name)
    stream = get_stream(caller.realm_id, stream_id)
    if stream is None:
        raise ApiError(UNKNOWN_CHANNEL_ID)
    return stream


def _set_policy(caller: Principal, realm: Realm, stream: Stream, topic: str,
                policy: int) -> None:
    key = (user_key(caller.realm_id, caller.user_id), user_topic_key(stream.stream_id, topic))
    audience: Audience = to_users([caller.user_id])
    def attempt() -> None:
        current = UserTopic.get_or_none(*key)
        if (current.visibility_policy if current else INHERIT) == policy:
            return   # already so: a quiet success
        read = (UserTopic.visibility_policy == current.visibility_policy if current
                else UserTopic.topic_key.does_not_exist())
        item = UserTopic(*key, stream_id=stream.stream_id, topic_name=topic,
                         visibility_policy=policy, last_updated=now_seconds())
        others = [i for i in user_topics(caller.realm_id, caller.user_id)
                  if i.topic_key != item.topic_key]
        after = others + ([item] if policy != INHERIT else [])
        with transaction() as tx:
            if policy == INHERIT:
                tx.delete(item, condition=read)
            else:
                tx.save(item, condition=read)
            # As the reference: the legacy full list first, then the change.
            muted: MutedTopicsEvent = {"type": "muted_topics",
                                       "muted_topics": muted_topic_triples(realm, after)}
            add_event(tx, caller.realm_id, muted, audience)
            changed: UserTopicEvent = {"type": "user_topic", **user_topic_dict(item)}
            # The fan-out shows the empty topic by its display name to clients
            # without empty_topic_name.
            add_event(tx, caller.realm_id, changed, audience,
                      {"empty_topic_display_name": empty_topic_display_name(realm)})

    retry_lost_races(attempt, conflict="The topic's setting changed concurrently; try again.")
