"""POST /register: a new event queue plus the initial state its client asked for."""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from chalicelib import config
from chalicelib.actions.channels.reads.folders import MAX_FOLDER_DESCRIPTION_LENGTH, MAX_FOLDER_NAME_LENGTH
from chalicelib.actions.channels.reads.subscribers import IncludeSubscribers
from chalicelib.actions.channels.subscriptions import MAX_BULK_NEW_SUBSCRIPTION_MESSAGES
from chalicelib.actions.messages.reads.narrow import queue_narrow
from chalicelib.actions.messages.reads.reminders import MAX_REMINDER_NOTE_LENGTH
from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import (
    WEBSOCKET_CAPABILITY,
    advertised_level,
    at_advertised_level,
)
from chalicelib.core.principal import Principal
from chalicelib.delivery.queues import (
    MAX_QUEUE_IDLE_LIFETIME,
    QUEUE_IDLE_LIFETIME,
    create_queue,
    wait_until_indexed,
)
from chalicelib.models.events import EventQueue
from chalicelib.models.users import User
from chalicelib.narrow.events import parse_event_narrow
from chalicelib.registration.initial_state import InitialState, fetch_initial_state
from chalicelib.registration.state.context import PresenceOptions
from chalicelib.rules.channel_access import reads_public_channels
from chalicelib.rules.user_settings import own_settings

TYPING_STARTED_WAIT_MS = 10000
TYPING_STOPPED_WAIT_MS = 5000
TYPING_STARTED_EXPIRY_MS = 15000
# Bounds on what the queue item stores (DynamoDB refuses items over 400 KB); the
# reference knows a few dozen event types and capabilities.
MAX_TYPES = 200
MAX_NAME_LENGTH = 100
MAX_NARROW_TERMS = 20
MAX_NARROW_OPERAND_LENGTH = 200
MAX_CAPABILITIES = 50
# idle_queue_timeout (level 481): seconds, or "mobile" (the lifetime the reference gives
# its mobile apps); a week at most, as the reference documents it. A queue lives at most
# MAX_QUEUE_IDLE_LIFETIME here, and the answer's idle_queue_timeout_secs says so.
IdleQueueTimeout = int | Literal["mobile"]
MAX_IDLE_QUEUE_TIMEOUT_SECONDS = 7 * 24 * 3600
MOBILE_IDLE_QUEUE_TIMEOUT_SECONDS = 12 * 3600


class QueueRegistration(TypedDict):
    """What every registration returns: the queue, the server's version and limits."""

    queue_id: str
    last_event_id: int
    service_feature_level: int
    service_version: str
    service_merge_base: str
    max_message_length: int
    max_topic_length: int
    max_stream_name_length: int
    max_stream_description_length: int
    # NotRequired: sent once the advertised level reaches theirs (feature_levels.CHANGES)
    max_bulk_new_subscription_messages: NotRequired[int]      # level 397
    max_channel_folder_name_length: NotRequired[int]          # level 410
    max_channel_folder_description_length: NotRequired[int]   # level 410
    max_reminder_note_length: NotRequired[int]                # level 415
    server_typing_started_wait_period_milliseconds: int
    server_typing_stopped_wait_period_milliseconds: int
    server_typing_started_expiry_period_milliseconds: int
    event_queue_longpoll_timeout_seconds: int
    # Level 481: how long the queue lives unpolled (withheld below it).
    idle_queue_timeout_secs: NotRequired[int]
    # Extension, only with the client capability feature_levels.WEBSOCKET_CAPABILITY:
    # where the push channel is served (None when it is not).
    event_queue_websocket_url: NotRequired[str | None]


class RegisterResult(QueueRegistration, InitialState):
    """POST /register: the queue plus the initial state of the requested fetch types."""


def longpoll_timeout_seconds() -> int:
    """What clients should wait for GET /events: well past the server's heartbeat."""
    return max(90, int(config.longpoll_wait_seconds()) + 30)


def check_types(name: str, types: list[str] | None) -> None:
    if types is None:
        return
    if len(types) > MAX_TYPES:
        raise ApiError(f"Too many {name}: at most {MAX_TYPES}.")
    if any(len(t) > MAX_NAME_LENGTH for t in types):
        raise ApiError(f"Invalid {name}: names are at most {MAX_NAME_LENGTH} characters.")


def check_capabilities(capabilities: dict[str, Any]) -> None:
    if len(capabilities) > MAX_CAPABILITIES or any(
            len(k) > MAX_NAME_LENGTH for k in capabilities):
        raise ApiError(f"Invalid client_capabilities: at most {MAX_CAPABILITIES} names of "
                       f"at most {MAX_NAME_LENGTH} characters.")
    if not all(isinstance(v, bool) for v in capabilities.values()):
        raise ApiError("Invalid client_capabilities: each value must be a boolean.")


def idle_seconds(requested: IdleQueueTimeout | None) -> int:
    """The queue's idle lifetime in seconds for what the client asked."""
    if requested is None:
        return int(QUEUE_IDLE_LIFETIME.total_seconds())
    if requested == "mobile":
        seconds = MOBILE_IDLE_QUEUE_TIMEOUT_SECONDS
    elif not 0 < int(requested) <= MAX_IDLE_QUEUE_TIMEOUT_SECONDS:
        raise ApiError(f"Invalid idle_queue_timeout: give seconds from 1 to "
                       f"{MAX_IDLE_QUEUE_TIMEOUT_SECONDS}, or \"mobile\".")
    else:
        seconds = int(requested)
    return min(seconds, int(MAX_QUEUE_IDLE_LIFETIME.total_seconds()))


def check_narrow(caller: Principal, narrow: list[Any]) -> list[dict[str, object]]:
    """The narrow as the queue stores it: parsed, resolved to ids, and limited to what a
    message event can tell."""
    if len(narrow) > MAX_NARROW_TERMS:
        raise ApiError(f"Invalid narrow: at most {MAX_NARROW_TERMS} terms.")
    for term in narrow:
        operand = term.get("operand") if isinstance(term, dict) else (
            term[1] if isinstance(term, list) and len(term) == 2 else None)
        if len(str(operand)) > MAX_NARROW_OPERAND_LENGTH:
            raise ApiError(f"Invalid narrow term: operands are at most "
                           f"{MAX_NARROW_OPERAND_LENGTH} characters.")
    return queue_narrow(caller, parse_event_narrow(narrow))


def do_register(caller: Principal, *, event_types: list[str] | None,
                fetch_event_types: list[str] | None, narrow: list[Any],
                client_capabilities: dict[str, Any], all_public_streams: bool,
                apply_markdown: bool, client_gravatar: bool,
                include_subscribers: IncludeSubscribers, slim_presence: bool = False,
                presence_history_limit_days: int | None = None,
                idle_queue_timeout: IdleQueueTimeout | None = None) -> RegisterResult:
    check_types("event_types", event_types)
    lifetime = idle_seconds(idle_queue_timeout)
    if all_public_streams and not reads_public_channels(caller.role):
        # As the reference (and its advisory on guests reading public channels).
        raise ApiError("Only members and above may follow every public channel.")
    if presence_history_limit_days is not None and presence_history_limit_days < 0:
        raise ApiError("Invalid presence_history_limit_days")
    check_types("fetch_event_types", fetch_event_types)
    check_capabilities(client_capabilities)
    options = {
        "event_types": event_types,
        "narrow": check_narrow(caller, narrow),
        "client_capabilities": client_capabilities,
        "all_public_streams": all_public_streams,
        "apply_markdown": apply_markdown,
        "client_gravatar": client_gravatar,
    }
    # The queue exists before the state is read, so no change between the two is lost.
    queue = create_queue(caller.realm_id, caller.user_id, options, caller.role,
                         None if idle_queue_timeout is None else lifetime)
    wait_until_indexed(queue)
    me = User.get(caller.realm_id, caller.user_id)
    if own_settings(me.stored_settings(), me.timezone)["receives_typing_notifications"] is False:
        # Read after the queue exists: a later change updates this queue itself.
        queue.update(actions=[EventQueue.receives_typing_notifications.set(False)])
    state_types = fetch_event_types if fetch_event_types is not None else event_types
    result: QueueRegistration = {
        "queue_id": queue.queue_id,
        "last_event_id": -1,   # a new queue is empty
        "service_feature_level": advertised_level(),
        "service_version": config.SERVICE_VERSION,
        "service_merge_base": config.SERVICE_MERGE_BASE,
        "max_message_length": config.MAX_MESSAGE_LENGTH,
        "max_topic_length": config.MAX_TOPIC_LENGTH,
        "max_stream_name_length": config.MAX_STREAM_NAME_LENGTH,
        "max_stream_description_length": config.MAX_STREAM_DESCRIPTION_LENGTH,
        "max_bulk_new_subscription_messages": MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
        "max_channel_folder_name_length": MAX_FOLDER_NAME_LENGTH,
        "max_channel_folder_description_length": MAX_FOLDER_DESCRIPTION_LENGTH,
        "max_reminder_note_length": MAX_REMINDER_NOTE_LENGTH,
        "server_typing_started_wait_period_milliseconds": TYPING_STARTED_WAIT_MS,
        "server_typing_stopped_wait_period_milliseconds": TYPING_STOPPED_WAIT_MS,
        "server_typing_started_expiry_period_milliseconds": TYPING_STARTED_EXPIRY_MS,
        "event_queue_longpoll_timeout_seconds": longpoll_timeout_seconds(),
        "idle_queue_timeout_secs": lifetime,
    }
    if client_capabilities.get(WEBSOCKET_CAPABILITY):
        # Extension: the push channel (README, "Real-time events over a WebSocket").
        result["event_queue_websocket_url"] = config.websocket_url()
    return at_advertised_level("register", RegisterResult(**result, **fetch_initial_state(
        caller, me, state_types, client_capabilities, include_subscribers,
        PresenceOptions(slim_presence, presence_history_limit_days), client_gravatar)))
