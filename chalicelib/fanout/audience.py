"""Resolving outbox audiences to live queues, each read done once per fan-out batch.

Reads are in proportion to the audience: a channel's subscribers come from one Query
of the channel's subscriptions, their queues from the per-user directory (BatchGetItem
in hundreds); only audiences that are the whole organization read the realm's queues.
Per-record steps of the fan-out (e.g. per-recipient state) use the same cached reads
through `subscriber_ids` and `stream`.
"""
from __future__ import annotations

import json
from concurrent.futures import Executor, Future
from typing import Any

from pynamodb.expressions.condition import Condition

from chalicelib.delivery.outbox import Audience
from chalicelib.delivery.queues import (
    public_watcher_queues,
    queues_of_realm,
    queues_of_users,
)
from chalicelib.fanout.scope import EVERYONE, Scope
from chalicelib.models.channels import Stream, Subscription, get_stream, stream_key
from chalicelib.models.events import EventQueue
from chalicelib.rules.channel_access import reads_public_channels

# A thousand subscriptions' colours and display settings are a third of the answer to
# parse, and nothing here reads them.
_READ_ATTRIBUTES = ["user_key", "stream_id", "user_id", "active", "first_visible_message_id",
                    "is_muted", "push_notifications", "email_notifications",
                    "wildcard_mentions_notify"]


class AudienceResolver:
    """The audience reads of one fan-out batch, cached: channels, subscribers, queues.
    With a `scope` of a range of user ids (fanout/scope.py), only the people of that
    range: their subscriptions, their queues (a queue goes to its owner's range)."""

    def __init__(self, scope: Scope = EVERYONE) -> None:
        self.scope = scope
        self._subscriptions: dict[tuple[int, int], list[Subscription]] = {}
        self._streams: dict[tuple[int, int], Stream | None] = {}
        self._user_queues: dict[tuple[int, int], list[EventQueue]] = {}
        self._realm_queues: dict[int, list[EventQueue]] = {}
        self._watchers: dict[int, list[EventQueue]] = {}
        self._audiences: dict[str, Future[list[EventQueue]]] = {}

    # ---- cached reads, for the audiences and for per-record steps --------------------

    def subscriptions(self, realm_id: int, stream_id: int) -> list[Subscription]:
        """The channel's active subscriptions (one Query per channel and batch), with
        what the fan-out reads of them: who, from which message, and the settings that
        decide notifications (_READ_ATTRIBUTES)."""
        key = (realm_id, stream_id)
        if key not in self._subscriptions:
            if self.scope.nobody:
                return []
            self._subscriptions[key] = [
                s for s in Subscription.by_stream.query(
                    stream_key(realm_id, stream_id), _user_range(Subscription.user_id,
                                                                 self.scope),
                    attributes_to_get=_READ_ATTRIBUTES)
                if s.active]
        return self._subscriptions[key]

    def subscriber_ids(self, realm_id: int, stream_id: int) -> list[int]:
        """The channel's active subscribers, from the same read."""
        return [int(s.user_id) for s in self.subscriptions(realm_id, stream_id)]

    def stream(self, realm_id: int, stream_id: int) -> Stream | None:
        key = (realm_id, stream_id)
        if key not in self._streams:
            self._streams[key] = get_stream(realm_id, stream_id)
        return self._streams[key]

    def queues_of_users(self, realm_id: int, user_ids: list[int] | set[int]
                        ) -> list[EventQueue]:
        """Live queues of these users; users already looked up in this batch cost nothing."""
        user_ids = {u for u in user_ids if self.scope.has(u)}
        missing = sorted({u for u in user_ids if (realm_id, u) not in self._user_queues})
        if missing:
            found: dict[int, list[EventQueue]] = {u: [] for u in missing}
            for queue in queues_of_users(realm_id, missing):
                found[int(queue.user_id)].append(queue)
            self._user_queues.update(((realm_id, u), qs) for u, qs in found.items())
        return [q for u in sorted(set(user_ids)) for q in self._user_queues[(realm_id, u)]]

    def realm_queues(self, realm_id: int) -> list[EventQueue]:
        if realm_id not in self._realm_queues:
            self._realm_queues[realm_id] = queues_of_realm(
                realm_id, _user_range(EventQueue.user_id, self.scope))
        return self._realm_queues[realm_id]

    def public_watchers(self, realm_id: int) -> list[EventQueue]:
        if realm_id not in self._watchers:
            self._watchers[realm_id] = public_watcher_queues(realm_id)
        return self._watchers[realm_id]

    # ---- audiences --------------------------------------------------------------------

    def prefetch(self, realm_id: int, audience: Audience, pool: Executor) -> None:
        """Starts reading an audience's queues on `pool` (not the side_by_side pool its
        reads use), for a later `queues`; an audience already read or started is not."""
        key = _audience_key(realm_id, audience)
        if key not in self._audiences:
            self._audiences[key] = pool.submit(self._resolve, realm_id, audience)

    def queues(self, realm_id: int, audience: Audience) -> list[EventQueue]:
        """The live queues an audience names (records of a batch often share one); a
        prefetch's error is raised here, for its record."""
        key = _audience_key(realm_id, audience)
        if key not in self._audiences:
            read: Future[list[EventQueue]] = Future()
            read.set_result(self._resolve(realm_id, audience))
            self._audiences[key] = read
        return self._audiences[key].result()

    def _resolve(self, realm_id: int, audience: Audience) -> list[EventQueue]:
        if self.scope.nobody:
            return []
        found = self._queues_named(realm_id, audience)
        if self.scope.whole:
            return found
        # A queue that every public channel reaches (listed under PUBLIC_WATCHERS) is
        # appended to by its owner's range only, like the owner's other queues.
        return [q for q in found if self.scope.has(int(q.user_id))]

    def _queues_named(self, realm_id: int, audience: Audience) -> list[EventQueue]:
        if audience.get("realm"):
            return self.realm_queues(realm_id)
        if "channel_viewers" in audience:
            stream_id = int(audience["channel_viewers"])
            # Loaded for channel changes only, not in the function's cold start.
            from chalicelib.actions.channels.reads.permissions import channel_viewers

            viewers = channel_viewers(realm_id, audience,
                                      lambda: set(self.subscriber_ids(realm_id, stream_id)))
            candidates = (self.realm_queues(realm_id) if viewers.candidates is None
                          else self.queues_of_users(realm_id, viewers.candidates))
            return [q for q in candidates if viewers.sees(q)]
        if "stream" in audience:
            return self._channel_queues(realm_id, int(audience["stream"]), audience)
        if "streams" in audience:   # e.g. a move: the channels' readers plus named users
            found: dict[str, EventQueue] = {}
            for stream_id in audience["streams"]:
                found.update((q.queue_id, q) for q in self._channel_queues(
                    realm_id, int(stream_id), {}))
            if audience.get("users"):
                found.update((q.queue_id, q) for q in self.queues_of_users(
                    realm_id, [int(u) for u in audience["users"]]))
            return list(found.values())
        return self.queues_of_users(realm_id, [int(u) for u in audience.get("users", [])])

    def _channel_queues(self, realm_id: int, stream_id: int, audience: Audience
                        ) -> list[EventQueue]:
        subscribers = self.subscriber_ids(realm_id, stream_id)
        queues = self.queues_of_users(realm_id, subscribers)
        if audience.get("subscribers_only"):   # e.g. typing: never all_public_streams queues
            return queues
        is_public = audience.get("public")
        if is_public is None:
            stream = self.stream(realm_id, stream_id)
            is_public = stream is not None and not stream.invite_only
        if not is_public:
            return queues
        # Public channel: subscribers, plus queues that asked for every public channel,
        # while their owner's role still reads them (a guest's never does).
        seen = {q.queue_id for q in queues}
        return queues + [q for q in self.public_watchers(realm_id)
                         if q.queue_id not in seen and reads_public_channels(q.role)]


def _user_range(attribute: Any, scope: Scope) -> Condition | None:
    """The range key condition of a Query keyed by user id, for the scope's range."""
    if scope.low is not None and scope.high is not None:
        return attribute.between(scope.low, scope.high)  # type: ignore[no-any-return]
    if scope.low is not None:
        return attribute >= scope.low  # type: ignore[no-any-return]
    if scope.high is not None:
        return attribute <= scope.high  # type: ignore[no-any-return]
    return None


def _audience_key(realm_id: int, audience: Audience) -> str:
    return json.dumps([realm_id, audience], sort_keys=True)
