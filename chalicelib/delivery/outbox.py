"""Outbox records: an event and its audience, written inside the change's transaction."""
from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import NamedTuple, TypedDict, cast

from pynamodb.transactions import TransactWrite

from chalicelib.delivery.types import EventBody, EventFacts
from chalicelib.models.events import Outbox

OUTBOX_RETENTION = timedelta(days=1)


class Audience(TypedDict, total=False):
    """Who receives an event; the fan-out resolves it to live queues.

    users: these user ids; stream: the subscribers of this channel id (plus, for a
    public channel, queues registered with all_public_streams whose owner's role reads
    public channels); streams: the same for
    each of several channels, each queue once, plus the queues of `users` if given;
    realm: every user of the realm; public: whether the
    channel is public (saves a read); subscribers_only: the channel's subscribers even
    when it is public (typing); max_role: only users whose role is this or higher (a
    lower number), e.g. members but not guests; user_access: only users who can access
    this user id under the realm's can_access_all_users_group (with realm: True);
    channel_viewers: everyone with metadata access to this channel id were it public
    (`public`; web-public with `web_public` too) or private, less those who would have
    it under `minus_public` when given (actions/channels/reads/permissions.py).
    """

    users: list[int]
    stream: int
    streams: list[int]
    realm: bool
    public: bool
    subscribers_only: bool
    max_role: int
    channel_viewers: int
    web_public: bool
    minus_public: bool
    user_access: int


def to_users(user_ids: list[int]) -> Audience:
    """These users' queues."""
    return {"users": user_ids}


def to_realm(*, max_role: int | None = None) -> Audience:
    """Everyone in the organization, or only those whose role is `max_role` or higher."""
    return {"realm": True} if max_role is None else {"realm": True, "max_role": max_role}


def to_users_who_can_access(user_id: int) -> Audience:
    """Everyone who may see this user under can_access_all_users_group."""
    return {"realm": True, "user_access": user_id}


def to_channel(stream_id: int, *, public: bool, subscribers_only: bool = False) -> Audience:
    """A channel's subscribers, and for a public one the queues that follow every public
    channel, unless `subscribers_only` (typing)."""
    audience: Audience = {"stream": stream_id, "public": public}
    if subscribers_only:
        audience["subscribers_only"] = True
    return audience


def to_channels(stream_ids: list[int], *, users: list[int] | None = None) -> Audience:
    """The subscribers of several channels, each queue once, and these users."""
    audience: Audience = {"streams": stream_ids}
    if users is not None:
        audience["users"] = users
    return audience


def to_channel_viewers(stream_id: int, *, public: bool, web_public: bool = False,
                       minus_public: bool | None = None) -> Audience:
    """Everyone with metadata access to the channel were it public (`public`, and
    `web_public`) or private; `minus_public` leaves out who could see it were it public
    (True) or private (False)."""
    audience: Audience = {"channel_viewers": stream_id, "public": public}
    if web_public:
        audience["web_public"] = True
    if minus_public is not None:
        audience["minus_public"] = minus_public
    return audience


def stored_audience(stored: Mapping[str, object]) -> Audience:
    """An outbox record's audience as written by one of the constructors above."""
    unknown = set(stored) - set(Audience.__annotations__)
    if unknown:
        raise ValueError(f"unknown audience keys: {sorted(unknown)}")
    return cast(Audience, dict(stored))  # the keys are checked above


class OutboxEntry(NamedTuple):
    """An event, its audience and its facts, built before the transaction that adds
    them: `add_event(tx, realm_id, *entry)`."""

    event: EventBody
    audience: Audience
    facts: EventFacts | None = None


def stored_facts(stored: Mapping[str, object] | None) -> EventFacts:
    """An outbox record's facts as add_event wrote them (none: an empty set)."""
    unknown = set(stored or ()) - set(EventFacts.__annotations__)
    if unknown:
        raise ValueError(f"unknown event facts: {sorted(unknown)}")
    return cast(EventFacts, dict(stored or {}))  # the keys are checked above


def add_event(tx: TransactWrite, realm_id: int, event: EventBody,
              audience: Audience, facts: EventFacts | None = None, *,
              ttl: timedelta = OUTBOX_RETENTION) -> None:
    """Adds the event to the transaction, so it exists iff the change commits; `facts`
    are what the fan-out decides its delivery by (never part of what clients get)."""
    now = time.time()
    tx.save(Outbox(
        outbox_id=uuid.uuid4().hex,
        realm_id=realm_id,
        event=dict(event),
        audience=dict(audience),
        facts=dict(facts) if facts else None,
        created=int(now * 1000),
        expires_at=datetime.now(UTC) + ttl,
    ), condition=Outbox.outbox_id.does_not_exist())
