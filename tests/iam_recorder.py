"""pytest plugin: records the AWS calls each Lambda function's code makes across the suite.

Every botocore client (existing ones and those created later, boto3's and PynamoDB's) gets a
`provide-client-params` hook, which sees each call (and each presigned URL) with its
parameters. A call is charged to the function whose entry point is running: the REST app
(APIHandler, or LongPollHandler for GET /api/v1/events, as API Gateway routes them) and the
event handlers' entry points (fan-out, webhook worker, WebSocket connect/message/disconnect,
keepalive, notifier, mail events, scheduled messages). Worker threads a handler starts
inherit the function that started them while it runs (the main thread and threads a
test starts itself never inherit).
tests/unit/test_least_privilege.py, collected last, checks the calls against the roles.
"""
from __future__ import annotations

import contextvars
import importlib
import threading
from collections import Counter
from collections.abc import Callable
from functools import wraps
from typing import Any

import pytest
from botocore.client import BaseClient, ClientCreator

from infra.iam_policy import Call, calls_of

# (function logical id, (action, resource)) -> how many times
CALLS: Counter[tuple[str, Call]] = Counter()
UNATTRIBUTED: Counter[Call] = Counter()
_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("iam_function",
                                                                       default=None)
_running: Counter[str] = Counter()
_lock = threading.Lock()

ENTRY_POINTS = {   # module, attribute -> the function (template logical id) it runs in
    ("chalicelib.fanout.batch", "handle_stream_batch"): "Fanout",
    ("chalicelib.webhooks.worker", "handle_webhook_batch"): "OutgoingWebhooks",
    ("chalicelib.realtime.websocket", "on_connect"): "WebsocketConnect",
    ("chalicelib.realtime.websocket", "on_message"): "WebsocketMessage",
    ("chalicelib.realtime.websocket", "on_disconnect"): "WebsocketDisconnect",
    ("chalicelib.realtime.keepalive", "run_keepalive"): "EventsKeepalive",
    ("chalicelib.notifications.notifier", "handle_notifier_batch"): "Notifier",
    ("chalicelib.notifications.bounces", "record_mail_event"): "MailEvents",
    ("chalicelib.actions.messages.scheduled_messages", "deliver_scheduled_message"):
        "ScheduledMessages",
}
LONGPOLL_PATH = "/api/v1/events"


_UNSTAMPED = object()   # a thread started before install(): who started it is unknown


def current_function() -> str | None:
    function = _current.get()
    if function is not None:
        return function
    thread = threading.current_thread()
    if thread is threading.main_thread():
        # The tests' own setup between handlers (fixtures calling actions directly): no
        # function's role pays for it, even while another test's long poll still waits.
        return None
    started_in = getattr(thread, "_iam_started_in", _UNSTAMPED)
    with _lock:
        active = [name for name, count in _running.items() if count > 0]
    if started_in is _UNSTAMPED:   # a pool made before: the one function running, if one
        return active[0] if len(active) == 1 else None
    # A thread inherits the function that started it, while that function runs; one a
    # test started itself (to call the API concurrently, say) inherits nothing.
    return started_in if isinstance(started_in, str) and started_in in active else None


def running_as(function: str, call: Callable[[], Any]) -> Any:
    token = _current.set(function)
    with _lock:
        _running[function] += 1
    try:
        return call()
    finally:
        with _lock:
            _running[function] -= 1
        _current.reset(token)


def charged_to(function: str, call: Callable[[], Any]) -> Any:
    """Runs `call` (a test's direct call of a function's code) with its AWS calls charged
    to `function`, without counting it as running: threads of other functions (the
    fan-out's pool, the tests' outbox drain) keep being charged as before."""
    token = _current.set(function)
    try:
        return call()
    finally:
        _current.reset(token)


def _wrap(function: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(original)
    def entry(*args: Any, **kwargs: Any) -> Any:
        return running_as(function, lambda: original(*args, **kwargs))
    entry.__wrapped_for_iam__ = True  # type: ignore[attr-defined]
    return entry


def _rest_function(event: Any) -> str:
    if not isinstance(event, dict):
        return "APIHandler"
    context = event.get("requestContext") or {}
    path = context.get("resourcePath") or event.get("resource") or event.get("path") or ""
    method = context.get("httpMethod") or event.get("httpMethod") or ""
    return "LongPollHandler" if (path, method) == (LONGPOLL_PATH, "GET") else "APIHandler"


def _on_params(endpoint: str, params: dict[str, Any], model: Any, **_: Any) -> None:
    try:
        calls = calls_of(model.service_model.service_name, model.name, params, endpoint)
    except (KeyError, TypeError):
        calls = [(f"{model.service_model.service_name}:{model.name}", "?")]
    function = current_function()
    with _lock:
        for call in calls:
            if function is None:
                UNATTRIBUTED[call] += 1
            else:
                CALLS[(function, call)] += 1


def _attach(client: BaseClient) -> None:
    endpoint = client.meta.endpoint_url or ""
    client.meta.events.register(
        "provide-client-params", lambda **kw: _on_params(endpoint, **kw),
        unique_id="teamchat-iam-recorder")


def install() -> None:
    import gc

    thread_start = threading.Thread.start

    def start(self: threading.Thread) -> None:
        self._iam_started_in = current_function()  # type: ignore[attr-defined]
        thread_start(self)

    threading.Thread.start = start  # type: ignore[method-assign]

    for obj in gc.get_objects():
        if isinstance(obj, BaseClient):
            _attach(obj)
    original_create = ClientCreator.create_client

    def create_client(self: ClientCreator, *args: Any, **kwargs: Any) -> BaseClient:
        client = original_create(self, *args, **kwargs)
        _attach(client)
        return client

    ClientCreator.create_client = create_client  # type: ignore[method-assign]

    for (module_name, attribute), function in ENTRY_POINTS.items():
        module = importlib.import_module(module_name)
        original = getattr(module, attribute)
        if not getattr(original, "__wrapped_for_iam__", False):
            setattr(module, attribute, _wrap(function, original))

    from chalice.app import Chalice

    rest_call = Chalice.__call__

    def call(self: Chalice, event: Any, context: Any) -> Any:
        return running_as(_rest_function(event), lambda: rest_call(self, event, context))

    Chalice.__call__ = call  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    install()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The least-privilege check reads what the rest of the session recorded: run it last."""
    last = [item for item in items if "test_least_privilege" in item.nodeid]
    items[:] = [item for item in items if item not in last] + last


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Leaves the recorded calls in build/iam-calls.json (for the operator's figures)."""
    import json
    from pathlib import Path

    if not CALLS:
        return
    out = Path(__file__).resolve().parents[1] / "build" / "iam-calls.json"
    out.parent.mkdir(exist_ok=True)
    per_function: dict[str, dict[str, int]] = {}
    for (function, (action, resource)), count in sorted(CALLS.items()):
        per_function.setdefault(function, {})[f"{action} {resource}"] = count
    out.write_text(json.dumps(per_function, indent=1))
