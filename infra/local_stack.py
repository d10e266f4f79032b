"""`make run`: moto, the API on http://127.0.0.1:$PORT, the push channel's WebSocket
endpoint, stream/queue pollers and schedules, a demo realm.

State lives in .local-state/ (LOCAL_STATE_DIR overrides) and survives restarts;
`make reset` wipes it.
"""
from __future__ import annotations

import os
import signal
import sys
import time

from infra.local import environment
from infra.local.child import spawn_child, stop_child, wait_until_ready
from infra.local.environment import free_port
from infra.local.object_links import link_endpoint

WORKERS_STOP_SECONDS = 30

_started = time.perf_counter()


def progress(message: str) -> None:
    print(f"[{time.perf_counter() - _started:6.2f}s] {message}", flush=True)


def main() -> None:
    port = int(os.environ.get("PORT", "8000"))
    environment.promise_port(port)   # bound only once the workers are up
    os.environ.setdefault("EXTERNAL_PORT", str(port))   # links in emails reach this server
    # Links to stored files (exports, uploads) name this server too, which serves them
    # (infra/local/object_links.py): moto's port changes at every start.
    os.environ.update(link_endpoint(f"http://127.0.0.1:{port}"))
    prefix = os.environ.get("TABLE_PREFIX", environment.DEFAULT_PREFIX)

    from infra.local.backend import start_backend

    backend = start_backend(prefix, progress)
    from infra.local import stage_meter

    stage_meter.install("api", backend.state)   # when the load bench asks for it

    # The push channel's addresses, before the app serves anything that advertises them.
    ws_port = int(os.environ.get("WS_PORT") or free_port())
    ws_management_port = free_port()
    os.environ["WEBSOCKET_URL"] = f"ws://127.0.0.1:{ws_port}"
    os.environ["WEBSOCKET_MANAGEMENT_URL"] = f"http://127.0.0.1:{ws_management_port}"

    # The pollers in a process of their own (infra/local/workers.py), with this
    # environment: the fan-out does not queue for the interpreter lock behind the API.
    # It imports the app meanwhile.
    workers = spawn_child("infra.local.workers", [])

    from app import app
    from infra.local.http_server import start_http_server
    from infra.local.seed import ensure_demo
    from infra.local.websocket_server import LocalWebsocketGateway

    def request_stop(*_: object) -> None:
        backend.stop.set()

    # Before anything is served: a Ctrl-C during startup still stops cleanly and saves.
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    progress(f"workers process {workers.pid}: {wait_until_ready(workers, progress)}")
    server = start_http_server(app, "127.0.0.1", port)
    api_url = f"http://127.0.0.1:{port}"
    progress(f"API serving on {api_url}/api/v1")
    gateway = LocalWebsocketGateway(app, "127.0.0.1", ws_port, ws_management_port)
    gateway.start()
    progress(f"push channel (WebSocket) on {gateway.url}")
    accounts = ensure_demo(backend.state, api_url, progress)
    # Last: tools and tests take this file as the sign that the stack is ready.
    environment.write_endpoint_file(backend.moto_url, prefix, api_url)
    if accounts:
        _print_welcome(accounts, port)
    # With a timeout: a signal delivered to another thread runs its Python handler only
    # when the main thread next runs bytecode; an untimed wait could sleep through Ctrl-C.
    while not backend.stop.wait(0.5):
        pass
    progress("stopping: saving state")
    server.server.shutdown()
    stop_child(workers, WORKERS_STOP_SECONDS)
    gateway.stop()
    backend.shut_down()
    progress("stopped")
    # Everything is saved: skip the interpreter's teardown, whose final collection of
    # moto's objects takes seconds (minutes with a large state).
    sys.stdout.flush()
    os._exit(0)


def _print_welcome(accounts: list[dict], port: int) -> None:
    print(f"\nDemo organization 'demo' (http://demo.localhost:{port}):")
    for account in accounts:
        # A state from before the demo accounts had passwords: `make reset` gives them one.
        password = account.get("password") or "(none: make reset)"
        print(f"  {account['role']:<7} {account['email']:<28} password {password:<16} "
              f"API key {account['api_key']}")
    owner = accounts[0]
    print(f"\nWeb client: http://demo.localhost:{port}/ (log in with an email and password "
          "above)")
    print("\nTry it:")
    print(f"  curl -sSu {owner['email']}:{owner['api_key']} "
          f"http://127.0.0.1:{port}/api/v1/users/me")
    print("Admin CLI (talks to this stack without flags):")
    print("  .venv/bin/python -m chalicelib.admin list-users --realm demo")
    print("Ctrl-C stops and saves state; `make reset` forgets it.\n", flush=True)


if __name__ == "__main__":
    main()
