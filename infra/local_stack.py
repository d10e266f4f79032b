"""`make run`: moto, the API on http://127.0.0.1:$PORT, stream/queue pollers, a demo realm.

State lives in .local-state/ (LOCAL_STATE_DIR overrides) and survives restarts;
`make reset` wipes it.
"""
from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
import time

from infra.local import environment

_started = time.perf_counter()


def progress(message: str) -> None:
    print(f"[{time.perf_counter() - _started:6.2f}s] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    port = int(os.environ.get("PORT", "8000"))
    os.environ.setdefault("EXTERNAL_PORT", str(port))   # links in emails reach this server
    prefix = os.environ.get("TABLE_PREFIX", environment.DEFAULT_PREFIX)
    state = environment.state_dir()
    state.mkdir(parents=True, exist_ok=True)
    environment.remove_endpoint_file()   # a killed stack's: it names a dead moto

    from moto.server import ThreadedMotoServer

    from infra import moto_patches
    from infra.local import snapshot

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's per-request lines
    moto_patches.apply()
    restored = snapshot.restore(state)
    progress(f"restored saved state from {state} ({restored.replayed} journal records "
             "replayed)" if restored.saved else "fresh state")
    # From here on every write is journaled before it is acknowledged.
    persistence = snapshot.Persistence(state, restored)
    moto_port = int(os.environ.get("MOTO_PORT") or free_port())
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=moto_port, verbose=False)
    moto.start()
    moto_url = f"http://127.0.0.1:{moto_port}"
    environment.configure(moto_url, prefix)
    progress(f"moto server on {moto_url}")

    import boto3

    from infra.resources import create_all

    create_all(prefix, progress=lambda what: progress(f"created {what}"))
    _create_side_resources()

    from app import app
    from infra.local.http_server import start_http_server
    from infra.local.pollers import start_pollers
    from infra.local.seed import (
        demo_realm_exists,
        load_accounts,
        save_accounts,
        seed_accounts,
        seed_conversations,
    )
    from infra.local.ttl_sweep import start_sweeper

    stop = threading.Event()

    def request_stop(*_: object) -> None:
        stop.set()

    # Before anything is served: a Ctrl-C during startup still stops cleanly and saves.
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    pollers = start_pollers(app, prefix, state, stop)
    progress(f"{len(pollers)} event pollers feeding {', '.join(t.name for t in pollers) or '-'}")
    server = start_http_server(app, "127.0.0.1", port)
    api_url = f"http://127.0.0.1:{port}"
    progress(f"API serving on {api_url}/api/v1")

    accounts = load_accounts(state)
    if accounts is None and demo_realm_exists():
        # Killed while seeding, after the realm was written: its keys are gone (only
        # their hashes are stored). Serve what there is; `make reset` starts afresh.
        progress("warning: the demo accounts file is missing; `make reset` recreates it")
        accounts = []
    elif accounts is None:
        accounts = seed_accounts()
        save_accounts(state, accounts)
        for warning in seed_conversations(api_url, accounts):
            progress("warning: " + warning)
        progress("seeded the demo organization")
    start_sweeper(prefix, stop)
    # Last: tools and tests take this file as the sign that the stack is ready.
    persistence.run(stop)
    environment.write_endpoint_file(moto_url, prefix, api_url)
    if accounts:
        _print_welcome(accounts, port)
    stop.wait()
    progress("stopping: saving state")
    server.server.shutdown()
    for thread in pollers:
        thread.join(timeout=2)
    persistence.close()
    environment.remove_endpoint_file()
    moto.stop()
    progress("stopped")
    del boto3
    return 0


def _create_side_resources() -> None:
    import boto3

    from chalicelib import config

    s3 = boto3.client("s3")
    bucket = config.upload_bucket()
    if bucket not in {b["Name"] for b in s3.list_buckets().get("Buckets", [])}:
        s3.create_bucket(Bucket=bucket)
    boto3.client("ses").verify_email_identity(EmailAddress="noreply@localhost")


def _print_welcome(accounts: list[dict], port: int) -> None:
    print(f"\nDemo organization 'demo' (http://demo.localhost:{port}):")
    for account in accounts:
        print(f"  {account['role']:<7} {account['email']:<28} API key {account['api_key']}")
    owner = accounts[0]
    print("\nTry it:")
    print(f"  curl -sSu {owner['email']}:{owner['api_key']} "
          f"http://127.0.0.1:{port}/api/v1/users/me")
    print("Admin CLI (talks to this stack without flags):")
    print("  .venv/bin/python -m chalicelib.admin list-users --realm demo")
    print("Ctrl-C stops and saves state; `make reset` forgets it.\n", flush=True)


if __name__ == "__main__":
    sys.exit(main())
