"""Shapes shared by the event modules: the marker for "any event a queue returns"."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any


@dataclass(frozen=True)
class _AnyQueueEvent:
    """Stands for every `*Event` TypedDict, with the `id` the queue gives each event; the
    OpenAPI generator expands it into their `oneOf` (chalicelib/http/openapi.py)."""


QUEUE_EVENTS = _AnyQueueEvent()
QueuedEvent = Annotated[dict[str, Any], QUEUE_EVENTS]
