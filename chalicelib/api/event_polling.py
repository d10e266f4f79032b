"""GET /events, the long-poll: the only route of the long-poll function.

Served by its own small Chalice app on AWS (chalicelib/handlers/longpoll.py), so this
module imports the reader and nothing of the rest of the API; registration (for the
rare call without a queue) is imported when it is needed.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.queues import MAX_QUEUE_ID_LENGTH
from chalicelib.http.auth import authenticate
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json
from chalicelib.models.events import EventQueue
from chalicelib.models.read_ahead import ReadAhead
from chalicelib.realtime.reader import GetEventsResult, get_events


def routes() -> ApiBlueprint:
    """A blueprint with the route. Each Chalice app gets its own: a blueprint answers
    for the app it was registered with last, and the API and the long-poll function
    are two apps in one process when run locally."""
    bp = ApiBlueprint(__name__)

    @bp.endpoint("/events", "GET", reads_with_caller=queue_read)
    def get_events_backend(caller: Principal, *, queue_id: str | None = None,
                           last_event_id: int | None = None, dont_block: bool = False,
                           event_types: Json[list[str]] | None = None,
                           narrow: Json[list[Any]] = [],  # noqa: B006 - never mutated
                           client_capabilities: Json[dict[str, Any]] | None = None,
                           all_public_streams: bool = False, apply_markdown: bool = False,
                           client_gravatar: bool = False) -> GetEventsResult:
        header = bp.current_request.headers.get("authorization")
        return poll(caller, queue_id, last_event_id, dont_block, event_types, narrow,
                    client_capabilities, all_public_streams, apply_markdown,
                    client_gravatar, reauthenticate=lambda: authenticate(header))

    return bp


def queue_read(query: Mapping[str, Any]) -> list[ReadAhead]:
    """The queue a poll names, read with the caller's API key (a waiting client polls
    again after every batch of events: one request instead of two each time)."""
    queue_id = query.get("queue_id")
    if not isinstance(queue_id, str) or not 0 < len(queue_id) <= MAX_QUEUE_ID_LENGTH:
        return []
    return [(EventQueue, queue_id, None)]


bp = routes()


def poll(caller: Principal, queue_id: str | None, last_event_id: int | None,
         dont_block: bool, event_types: list[str] | None, narrow: list[Any],
         client_capabilities: dict[str, Any] | None, all_public_streams: bool,
         apply_markdown: bool, client_gravatar: bool, *,
         reauthenticate: Callable[[], Principal]) -> GetEventsResult:
    if queue_id is None:
        # As the reference: without a queue id, only a non-blocking call may allocate a
        # queue, from the registration parameters it carries (no initial state).
        if not dont_block:
            raise ApiError("A queue_id is needed unless dont_block is true.")
        # Imported here: registration pulls in the whole initial state, which the
        # long-poll function's cold start should not pay for this rare call.
        from chalicelib.registration.register import do_register

        registered = do_register(
            caller, event_types=event_types, fetch_event_types=[], narrow=narrow,
            client_capabilities=client_capabilities or {},
            all_public_streams=all_public_streams, apply_markdown=apply_markdown,
            client_gravatar=client_gravatar, include_subscribers=False)
        # The answer is that of GET /events (§4.5): the events and the new queue's id.
        return get_events(caller, registered["queue_id"], registered["last_event_id"], True)
    return get_events(caller, queue_id, last_event_id, dont_block,
                      reauthenticate=reauthenticate)
