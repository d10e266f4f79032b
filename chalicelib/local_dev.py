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
import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any

_backend: Any = None


def is_chalice_local() -> bool:
    """The Chalice CLI's `local` command (parent or autoreload worker) imports the app."""
    return (os.environ.get("AWS_CHALICE_CLI_MODE") == "true"
            and "local" in sys.argv[1:] and "AWS_LAMBDA_FUNCTION_NAME" not in os.environ)


def _state_dir() -> Path:
    return Path(os.environ.get("LOCAL_STATE_DIR", Path(__file__).resolve().parents[1]
                               / ".local-state"))


def stack_endpoint(state_dir: Path | None = None, *, answering: bool = False,
                   ) -> dict[str, Any] | None:
    """What `make run` wrote into its endpoint file; None without one, or (`answering`)
    when its moto does not answer (a killed stack leaves the file behind)."""
    path = (state_dir or _state_dir()) / "endpoint.json"
    if not path.exists():
        return None
    endpoint = dict(json.loads(path.read_text()))
    if answering:
        try:
            # The local stack's own moto on loopback, from the file the stack wrote.
            urllib.request.urlopen(  # nosec B310 # an http URL of our own local stack
                endpoint["aws_endpoint_url"] + "/moto-api/", timeout=2)
        except OSError:
            return None
    return endpoint


LOCAL_CREDENTIAL = "local"   # what the local stack's moto is given for any credential


def use_stack(endpoint: dict[str, Any]) -> None:
    """Points boto3 and the models at the stack's moto (before any model is imported)."""
    os.environ.update({
        "AWS_ENDPOINT_URL": endpoint["aws_endpoint_url"],
        "TABLE_PREFIX": endpoint["table_prefix"],
        "AWS_DEFAULT_REGION": endpoint["region"],
        # moto takes any credentials; these name no AWS account.
        "AWS_ACCESS_KEY_ID": LOCAL_CREDENTIAL, "AWS_SECRET_ACCESS_KEY": LOCAL_CREDENTIAL,
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    })


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
