"""What every state builder of one registration shares: the caller, the requested
fetch types, and the reads several builders need, each done at most once."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

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

    def wants(self, fetch_type: str) -> bool:
        return self.fetch_types is None or fetch_type in self.fetch_types

    def capable(self, name: str) -> bool:
        return bool(self.capabilities.get(name))

    @cached_property
    def realm(self) -> Realm:
        return get_realm(self.caller.realm_id)

    @cached_property
    def access(self) -> UserAccess:
        """Which users the caller can access; reads only for guests."""
        return viewer_access(self.caller, lambda: self.realm)

    @cached_property
    def users(self) -> list[UserRow]:
        """The realm's users and bots, of only what the state shows of them: one Query,
        paged by DynamoDB (the state lists them all, so this is the one read that grows
        with the organization)."""
        return realm_user_rows(self.caller.realm_id)

    @cached_property
    def streams(self) -> dict[int, Stream]:
        """The realm's channels by id: one Query, paged."""
        return {s.stream_id: s for s in Stream.query(self.caller.realm_id)}

    def stream_dict(self, stream: Stream) -> StreamDict:
        """The channel as clients see it, built once a registration: `streams` and
        `never_subscribed` list most channels both (a copy each, as they are amended)."""
        built = self._stream_dicts.get(stream.stream_id)
        if built is None:
            built = self._stream_dicts[stream.stream_id] = stream_api_dict(stream)
        return cast(StreamDict, dict(built))

    @cached_property
    def realm_presence(self) -> RealmPresence:
        """The realm's presence items: one Query (the presence state, and who has been
        away long enough that realm_users may leave out their avatar)."""
        return read_realm_presence(self.caller.realm_id)

    @cached_property
    def user_topics(self) -> list[UserTopic]:
        """The caller's topic visibility policies: one Query."""
        return list(UserTopic.query(user_key(self.caller.realm_id, self.caller.user_id)))

    @cached_property
    def subscriptions(self) -> list[Subscription]:
        """The caller's subscription items, current and past: one Query."""
        return list(Subscription.query(user_key(self.caller.realm_id, self.caller.user_id)))
