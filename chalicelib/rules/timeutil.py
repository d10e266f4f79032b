"""Time helpers: UNIX seconds and the ISO text the API shows."""
from __future__ import annotations

import time
from datetime import UTC, datetime


def now_seconds() -> int:
    return int(time.time())


def iso_from_seconds(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat()
