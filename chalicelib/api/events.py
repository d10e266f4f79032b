"""Event queues: POST /register and DELETE /events (GET /events: api/event_polling.py)."""
from __future__ import annotations

from typing import Any, Literal

from chalicelib.actions.channels.reads.subscribers import IncludeSubscribers
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.queues import access_queue, delete_queue
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json
from chalicelib.registration.register import IdleQueueTimeout, RegisterResult, do_register

bp = ApiBlueprint(__name__)


def _register(caller: Principal, event_types: list[str] | None,
              fetch_event_types: list[str] | None, narrow: list[Any],
              client_capabilities: dict[str, Any] | None, all_public_streams: bool,
              apply_markdown: bool, client_gravatar: bool,
              include_subscribers: IncludeSubscribers,
              slim_presence: bool = False, presence_history_limit_days: int | None = None,
              idle_queue_timeout: IdleQueueTimeout | None = None) -> RegisterResult:
    return do_register(caller, event_types=event_types, fetch_event_types=fetch_event_types,
                       narrow=narrow, client_capabilities=client_capabilities or {},
                       all_public_streams=all_public_streams, apply_markdown=apply_markdown,
                       client_gravatar=client_gravatar, include_subscribers=include_subscribers,
                       slim_presence=slim_presence,
                       presence_history_limit_days=presence_history_limit_days,
                       idle_queue_timeout=idle_queue_timeout)


@bp.endpoint("/register", "POST")
def register_queue(caller: Principal, *, event_types: Json[list[str]] | None = None,
                   fetch_event_types: Json[list[str]] | None = None,
                   narrow: Json[list[Any]] = [],  # noqa: B006 - never mutated
                   client_capabilities: Json[dict[str, Any]] | None = None,
                   all_public_streams: bool = False, apply_markdown: bool = False,
                   # The reference's default for signed-in clients since level 92.
                   client_gravatar: bool = True,
                   include_subscribers: bool | Literal["partial"] = False,
                   slim_presence: bool = False, presence_history_limit_days: int | None = None,
                   # Level 481: seconds or "mobile", JSON-encoded as the reference takes it.
                   idle_queue_timeout: Json[IdleQueueTimeout] | None = None,
                   ) -> RegisterResult:
    return _register(caller, event_types, fetch_event_types, narrow, client_capabilities,
                     all_public_streams, apply_markdown, client_gravatar, include_subscribers,
                     slim_presence, presence_history_limit_days, idle_queue_timeout)


@bp.endpoint("/events", "DELETE")
def delete_event_queue(caller: Principal, *, queue_id: str) -> EmptyResult:
    delete_queue(access_queue(caller.realm_id, caller.user_id, queue_id))
    return {}
