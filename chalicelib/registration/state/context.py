"""What every state builder of one registration shares: the caller, the requested
fetch types, and the reads several builders need, each done at most once.

Builders run side by side (registration/initial_state.py), so a shared read is a
`shared_read`: the first builder to want it reads it, any other that wants it
meanwhile waits for that answer instead of reading it again."""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast, overload

from chalicelib.actions.channels.reads.channels import StreamDict, stream_api_dict
from chalicelib.actions.channels.reads.subscribers import IncludeSubscribers
from chalicelib.actions.presence.reads.snapshot import RealmPresence, read_realm_presence
from chalicelib.actions.users.reads.access import UserAccess, viewer_access
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription, user_key
from chalicelib.models.realms import Realm, get_realm
from chalicelib.models.topics import UserTopic
from chalicelib.models.user_rows import UserRow, realm_user_rows
from chalicelib.models.users import User

T = TypeVar("T")


class shared_read(Generic[T]):
    """As functools.cached_property, but computed by one thread only: a thread that
    asks while another computes it waits (cached_property has no lock since 3.12)."""

    def __init__(self, compute: Callable[[StateContext], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, ctx: None, owner: type | None = None) -> shared_read[T]: ...

    @overload
    def __get__(self, ctx: StateContext, owner: type | None = None) -> T: ...

    def __get__(self, ctx: StateContext | None, owner: type | None = None
                ) -> T | shared_read[T]:
        if ctx is None:
            return self
        # Once computed, the instance's own attribute answers (this is a non-data
        # descriptor); until then, the name's lock lets one thread compute it.
        with ctx.lock_for(self.name):
            if self.name not in ctx.__dict__:
                ctx.__dict__[self.name] = self.compute(ctx)
            return cast(T, ctx.__dict__[self.name])


@dataclass(frozen=True)
class PresenceOptions:
    """POST /register's presence parameters: the modern format (keyed by user id), and
    how many days back (None: the default)."""

    slim_presence: bool = False
    history_limit_days: int | None = None


@dataclass
class StateContext:
    caller: Principal
    me: User
    fetch_types: frozenset[str] | None     # None: every type
    capabilities: dict[str, Any]
    include_subscribers: IncludeSubscribers
    presence: PresenceOptions = field(default_factory=PresenceOptions)
    client_gravatar: bool = True   # Gravatar URLs left to the client (realm_users)
    _stream_dicts: dict[int, StreamDict] = field(default_factory=dict, repr=False)
    _locks: dict[str, threading.Lock] = field(default_factory=dict, repr=False)
    _locks_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def lock_for(self, name: str) -> threading.Lock:
        """The lock of one shared read (or of the channels' dicts), made on first use."""
        with self._locks_lock:
            return self._locks.setdefault(name, threading.Lock())

    def wants(self, fetch_type: str) -> bool:
        return self.fetch_types is None or fetch_type in self.fetch_types

    def capable(self, name: str) -> bool:
        return bool(self.capabilities.get(name))

    @shared_read
    def realm(self) -> Realm:
        return get_realm(self.caller.realm_id)

    @shared_read
    def access(self) -> UserAccess:
        """Which users the caller can access; reads only for guests."""
        return viewer_access(self.caller, lambda: self.realm)

    @shared_read
    def users(self) -> list[UserRow]:
        """The realm's users and bots, of only what the state shows of them: one Query,
        paged by DynamoDB (the state lists them all, so this is the one read that grows
        with the organization)."""
        return realm_user_rows(self.caller.realm_id)

    @shared_read
    def streams(self) -> dict[int, Stream]:
        """The realm's channels by id: one Query, paged."""
        return {s.stream_id: s for s in Stream.query(self.caller.realm_id)}

    def stream_dict(self, stream: Stream) -> StreamDict:
        """The channel as clients see it, built once a registration: `streams` and
        `never_subscribed` list most channels both (a copy each, as they are amended)."""
        with self.lock_for("_stream_dicts"):   # `streams` and `never_subscribed` side by side
            built = self._stream_dicts.get(stream.stream_id)
            if built is None:
                built = self._stream_dicts[stream.stream_id] = stream_api_dict(stream)
        return cast(StreamDict, dict(built))

    @shared_read
    def realm_presence(self) -> RealmPresence:
        """The realm's presence items: one Query (the presence state, and who has been
        away long enough that realm_users may leave out their avatar)."""
        return read_realm_presence(self.caller.realm_id)

    @shared_read
    def user_topics(self) -> list[UserTopic]:
        """The caller's topic visibility policies: one Query."""
        return list(UserTopic.query(user_key(self.caller.realm_id, self.caller.user_id)))

    @shared_read
    def subscriptions(self) -> list[Subscription]:
        """The caller's subscription items, current and past: one Query."""
        return list(Subscription.query(user_key(self.caller.realm_id, self.caller.user_id)))
