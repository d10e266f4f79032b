"""`chalice local` in the repository: the app serves the local stack's data.

    .venv/bin/python -m infra.local.chalice_local [--port 8001] [--no-autoreload]

Chalice's development server runs the HTTP routes only, with the stage's environment.
The bare `chalice local` finds a running `make run` through that environment alone (the
AWS configuration file the stack writes, docs/development.md); this entry also works
without one. It (and nothing else: not Lambda, not the tests, not `chalice package`)
calls these two functions around its import of the app, then serves the app with
Chalice's own server:

- `configure()`, before any model is imported: when `.local-state/endpoint.json` (written
  by `make run`) names a stack that answers, boto3 and the models point at its moto, as
  the admin CLI does; otherwise it starts the embedded backend in this process
  (`infra/local/backend.py`: moto, the saved state and its journal, the resources).
- `start_workers(app)`, once the app exists: for an embedded backend, the pollers that
  feed the outbox stream and the webhook queue to the app's handlers, and the demo
  accounts on first start.

`app.py`, the Lambda entry, imports no development code: only this module imports both
infra/ and the app.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import logging
import os
import sys
from pathlib import Path
from typing import Any

from chalice.cli import create_local_server, reloader
from chalice.cli.factory import CLIFactory

from chalicelib.local_endpoint import stack_endpoint, use_stack

REPO = Path(__file__).resolve().parents[2]
_backend: Any = None


def configure() -> None:
    global _backend
    endpoint = stack_endpoint(answering=True)
    if endpoint is not None:
        use_stack(endpoint)
        os.environ["ALLOW_PRIVATE_WEBHOOK_HOSTS"] = "loopback"   # as make run allows
        print(f"chalice local: using the running stack's backend at "
              f"{endpoint['aws_endpoint_url']}", flush=True)
        return
    backend = importlib.import_module("infra.local.backend")
    environment = importlib.import_module("infra.local.environment")
    _backend = backend.start_backend(environment.DEFAULT_PREFIX,
                                     lambda line: print(f"chalice local: {line}", flush=True))


def start_workers(app: Any) -> None:
    if _backend is None:
        return
    seed = importlib.import_module("infra.local.seed")
    environment = importlib.import_module("infra.local.environment")
    _backend.start_workers(app)
    accounts = seed.ensure_demo(_backend.state, None, lambda line: print(line, flush=True))
    port = next((sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--port"),
                "8000")
    environment.write_endpoint_file(_backend.moto_url, _backend.prefix,
                                    f"http://127.0.0.1:{port}")
    print(f"chalice local: embedded backend ready ({len(accounts)} demo accounts in "
          f"{_backend.state / 'demo-accounts.json'})", flush=True)


def _serve(host: str, port: int, stage: str) -> Any:
    # The stage's environment first, as `chalice local` applies it; then the backend.
    factory = CLIFactory(project_dir=str(REPO))
    os.environ.update(factory.create_config_obj(chalice_stage_name=stage)
                      .environment_variables)
    configure()
    app = importlib.import_module("app").app
    start_workers(app)
    return create_local_server(factory, host, port, stage)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.local.chalice_local")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--stage", default="dev")
    parser.add_argument("--autoreload", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)
    # As `chalice local` does: the app's logs on stdout, as Lambda shows them.
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s")
    serve = functools.partial(_serve, args.host, args.port, args.stage)
    if not args.autoreload:
        serve().serve_forever()
        return 0
    # Chalice's reloader starts its worker as sys.argv: make that this module again.
    sys.argv = [sys.executable, "-m", "infra.local.chalice_local", *sys.argv[1:]]
    return int(reloader.run_with_reloader(serve, os.environ, str(REPO)))


if __name__ == "__main__":
    sys.exit(main())
