"""`chalice local` in the repository: the app serves the local stack's data.

Chalice's development server runs the HTTP routes only, with the stage's environment
(`TABLE_PREFIX=teamchat-dev-`) and no backend. Under it (and nowhere else: not on
Lambda, not in tests, not in `chalice package`), `app.py` calls these two functions:

- `configure()`, before any model is imported: when `.local-state/endpoint.json` (written
  by `make run`) names a stack that answers, boto3 and the models point at its moto, as
  the admin CLI does; otherwise it starts the embedded backend in this process
  (`infra/local/backend.py`: moto, the saved state and its journal, the resources).
- `start_workers(app)`, once the app exists: for an embedded backend, the pollers that
  feed the outbox stream and the webhook queue to the app's handlers, and the demo
  accounts on first start.

`infra/` is part of the repository, not of the Lambda package; it is imported only here,
only under `chalice local`.
"""
from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from chalicelib.local_endpoint import stack_endpoint, use_stack

_backend: Any = None


def is_chalice_local() -> bool:
    """The Chalice CLI's `local` command (parent or autoreload worker) imports the app."""
    return (os.environ.get("AWS_CHALICE_CLI_MODE") == "true"
            and "local" in sys.argv[1:] and "AWS_LAMBDA_FUNCTION_NAME" not in os.environ)


def configure() -> None:
    global _backend
    if not is_chalice_local():
        return
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
