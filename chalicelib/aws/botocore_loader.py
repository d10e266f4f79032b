"""One botocore data loader for every session of the process.

Each botocore session builds its own loader, which reads and parses the service models
and the ~1 MB endpoint rules from disk again. A function makes several sessions: the
X-Ray SDK two at import (its sampler's clients), boto3 one, PynamoDB one per thread.
With one loader they parse each file once per process: the X-Ray SDK's import costs
about half as much, and each later client is cheaper. The loader only caches parsed
JSON, which botocore treats as read-only, so sessions in other threads may share it.
"""
from __future__ import annotations

import functools

import botocore.session
from botocore.loaders import create_loader

_shared = functools.cache(create_loader)


def share_loader() -> None:
    """Idempotent; call before the first botocore session is made."""
    botocore.session.create_loader = _shared
