"""Shapes shared by the event modules: any event a client receives, the facts the
fan-out decides delivery by (kept apart from it), and the marker for "any event a queue
returns"."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

if TYPE_CHECKING:
    from typing_extensions import ReadOnly


class EventBody(TypedDict):
    """Any event as clients receive it: one of the `*Event` TypedDicts, each declared
    beside the action that builds it (the OpenAPI document lists them).

    `type` is read-only, so every event TypedDict (whose `type` is a Literal) is one of
    these, while a plain dict, or an event with a key its TypedDict does not declare, is
    not: what the fan-out alone needs travels in `EventFacts`, beside the event.
    """

    type: ReadOnly[str]


class MentionFacts(TypedDict):
    """Who a message's mentions flag: the mentioned users (and groups' members), and its
    wildcard ("stream", "topic" or None), which flags every recipient."""

    users: list[int]
    wildcard: str | None


class MentionChange(TypedDict):
    """An edit's mentions, before and after it."""

    before: MentionFacts
    after: MentionFacts


class CapabilityFallback(TypedDict):
    """What queues without a client capability get instead of the event: an older
    form, or nothing (None)."""

    capability: str
    event: EventBody | None


class PersonsByReceiver(TypedDict):
    """A realm_user add or remove naming several people: each person as shown, by id,
    and the ids of the persons each receiver (by user id) gets, one event each."""

    persons: dict[str, dict[str, object]]
    receivers: dict[str, list[int]]


class EventFacts(TypedDict, total=False):
    """What the fan-out decides delivery by, beside an event and never inside it, so none
    of it can reach a client. Each key is set by the events that need it."""

    # The actor (a message's sender, a reaction's user) without a subscription to the
    # channel, whom some receivers may not access: they see "Unknown user".
    actor_outside_channel: int
    # The person's email_address_visibility, on events carrying their real address,
    # and before a change of it, its old value (actions/users/reads/email_access.py).
    email_visibility: int
    email_visibility_was: int
    # The acting user's address, for the deprecated forms of user_settings events.
    user_email: str
    without_capability: CapabilityFallback
    # How the empty topic shows to clients without empty_topic_name.
    empty_topic_display_name: str
    # A new message: whom its mentions flag, whether its sender has read it, its raw
    # Markdown (clients that asked for it, alert words, `search` narrows) and its
    # channel's privacy (`channels:` narrows).
    mentions: MentionFacts
    read_by_sender: bool
    raw_content: str
    channel_public: bool
    channel_web_public: bool
    # An edit: the mentions it adds and removes.
    mention_change: MentionChange
    # A deleted direct message's participants (their markers go).
    participants: list[int]
    # Guests told whom they gain or lose access to (actions/channels/access_events.py).
    persons_by_receiver: PersonsByReceiver


@dataclass(frozen=True)
class _AnyQueueEvent:
    """Stands for every `*Event` TypedDict, with the `id` the queue gives each event; the
    OpenAPI generator expands it into their `oneOf` (chalicelib/http/openapi.py)."""


QUEUE_EVENTS = _AnyQueueEvent()
QueuedEvent = Annotated[dict[str, Any], QUEUE_EVENTS]
