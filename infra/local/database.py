"""The local stack's database process: moto with the project's patches, the saved state,
the write-ahead journal and its checkpoints, and the TTL sweep moto lacks
(infra/local/ttl_sweep.py), served over HTTP on its own port.

`make run` starts it as a child (infra/local/backend.py, infra/local/child.py), so that
moto's request handling does not share one interpreter lock with the app: on two cores
they run side by side. The state on disk is the same as when moto ran inside the stack
(snapshot + journal, infra/local/snapshot.py).

    python -m infra.local.database STATE_DIR PORT

When told to stop it saves everything into one snapshot. A `kill -9` loses nothing
either: every acknowledged write is in the journal.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from infra.local.child import report, serve_until_told

WsgiApp = Callable[[dict[str, Any], Any], Iterable[bytes]]


# Services whose requests name their action in X-Amz-Target: by the target's prefix,
# the moto handler that answers them (most of the stack's requests).
_DIRECT_HANDLERS = {
    "DynamoDB_20120810.": ("moto.dynamodb.responses", "DynamoHandler"),
    "DynamoDBStreams_20120810.": ("moto.dynamodbstreams.responses", "DynamoDBStreamsHandler"),
    "AmazonSQS.": ("moto.sqs.responses", "SQSResponse"),
}


def answered_directly(app: WsgiApp) -> WsgiApp:
    """moto's server, with DynamoDB's, its streams' and SQS's requests answered without
    its Flask layer: the same handler, request class and error mapping as moto's route
    (moto/core/utils.py `convert_to_flask_response`), less Flask's contexts, URL routing
    and CORS hooks, about a third of a GetItem's time here."""
    import importlib

    from botocore.exceptions import ClientError
    from moto.core.request import normalize_request
    from moto.moto_server.werkzeug_app import BackendRequest
    from werkzeug.wrappers import Response

    handlers = {prefix: getattr(importlib.import_module(module), name)
                for prefix, (module, name) in _DIRECT_HANDLERS.items()}

    def wsgi(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        handler = handlers.get(target[:target.find(".") + 1])
        if handler is None:
            return app(environ, start_response)   # S3, SNS, SES, ...: moto's routes
        request = normalize_request(BackendRequest(environ))
        try:
            result = handler.dispatch(request, request.raw_url, dict(request.headers))
        except ClientError as error:
            result = 400, {}, error.response["Error"]["Message"]
        status, headers, content = result if len(result) == 3 else (200, {}, result)
        response = Response(response=content, status=status, headers=headers)
        return response(environ, start_response)

    return wsgi


def start_server(port: int) -> None:
    """moto's backends behind a server that keeps connections open, DynamoDB first."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    from infra.local.keepalive_http import make_server

    app = answered_directly(DomainDispatcherApplication(create_backend_app))
    server = make_server("127.0.0.1", port, app)
    threading.Thread(target=server.serve_forever, name="database-http", daemon=True).start()


def serve(state: Path, port: int) -> None:
    from infra import moto_patches
    from infra.local import snapshot, ttl_sweep

    logging.getLogger("werkzeug").setLevel(logging.ERROR)   # moto's per-request lines
    moto_patches.apply()
    restored = snapshot.restore(state)
    print(f"restored saved state from {state} ({restored.replayed} journal records "
          "replayed)" if restored.saved else "fresh state", flush=True)
    persistence = snapshot.Persistence(state, restored)
    start_server(port)
    stop = threading.Event()
    persistence.run(stop)
    ttl_sweep.start_sweeper(stop)
    print(f"ready http://127.0.0.1:{port}", flush=True)
    serve_until_told(stop)
    persistence.close()
    report("database saved")
    # Skip the interpreter's teardown: its final collection of moto's objects takes
    # seconds with a large state, and everything is saved.
    os._exit(0)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]))
