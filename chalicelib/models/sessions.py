"""One botocore session per thread for every PynamoDB connection.

PynamoDB gives each model's connection its own botocore session per thread, and each
new session registers botocore's ~1,200 built-in handlers and re-reads the DynamoDB
service model from disk: about 0.17 s of CPU for every model's first use in every
thread. A cold Lambda touching a dozen tables, or a fan-out thread touching twenty,
paid that again and again. Sharing the session within a thread (sessions are not
thread-safe, so never across threads) and the loader across threads
(aws/botocore_loader.py) makes a model's first use about 0.02 s. Each session reads
item answers and writes item requests without walking the service model when it can
(aws/item_answers.py, aws/item_requests.py).
"""
from __future__ import annotations

import threading
from typing import Any

import botocore.session
from pynamodb.connection import base as pynamodb_connection

from chalicelib.aws.botocore_loader import share_loader
from chalicelib.aws.dynamodb_session import item_session

_per_thread = threading.local()


def thread_session(env_vars: dict[str, Any] | None = None) -> botocore.session.Session:
    """This thread's session (PynamoDB calls it where it called botocore's get_session,
    with no arguments)."""
    session: botocore.session.Session | None = getattr(_per_thread, "session", None)
    if session is None:
        session = _per_thread.session = item_session(env_vars)
    return session


def install() -> None:
    """Idempotent. No model passes its own credentials to PynamoDB (they would be set on
    the shared session), so the environment's credentials serve every table."""
    share_loader()
    pynamodb_connection.get_session = thread_session  # type: ignore[attr-defined]
