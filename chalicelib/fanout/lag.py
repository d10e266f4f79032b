"""How far the fan-out runs behind: the age of the oldest record in its latest batch.

On AWS the fan-out publishes that age as the `FanoutDelay` metric (aws/metrics.py) and
`status` reads it back from CloudWatch; the local stack's stream poller writes it into
the state directory, where `status` reads it, and prints a warning while it is high.
"""
from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypedDict

from chalicelib import config
from chalicelib.aws import metrics

BEHIND_SECONDS = 5.0          # delivery later than this is "behind"
LAG_FILE = "fanout-lag.json"
CLOUDWATCH_WINDOW = timedelta(minutes=5)


class LocalLag(TypedDict):
    lag_seconds: float       # the oldest record's age when its batch was handed over
    records: int             # how many records that batch held
    as_of: str               # when (ISO 8601, UTC)
    behind: bool


def record_age_seconds(created: Any, now: float | None = None) -> float:
    """Age of a stream record from its ApproximateCreationDateTime (a datetime from
    boto3, or epoch seconds as Lambda passes it); 0 when it carries none."""
    now = time.time() if now is None else now
    if isinstance(created, datetime):
        created = created.timestamp()
    if not isinstance(created, (int, float)):
        return 0.0
    return max(0.0, now - float(created))


def write_local(state_dir: Path, lag_seconds: float, records: int) -> LocalLag:
    """Replaces the local lag file whole (a reader never sees half of it)."""
    lag: LocalLag = {"lag_seconds": round(lag_seconds, 3), "records": records,
                     "as_of": datetime.now(UTC).isoformat(timespec="seconds"),
                     "behind": lag_seconds > BEHIND_SECONDS}
    path = state_dir / LAG_FILE
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(lag))
    os.replace(temporary, path)
    return lag


def read_local(state_dir: Path) -> LocalLag | None:
    path = state_dir / LAG_FILE
    if not path.exists():
        return None
    lag: LocalLag = json.loads(path.read_text())
    return lag


def read_cloudwatch(cloudwatch: Any, now: datetime | None = None) -> dict[str, Any]:
    """The fan-out delay over the last five minutes, from the FanoutDelay metric."""
    end = now or datetime.now(UTC)
    points = cloudwatch.get_metric_statistics(
        Namespace=config.metrics_namespace(), MetricName=metrics.FANOUT_DELAY,
        Dimensions=[{"Name": "service", "Value": metrics.SERVICE}],
        # The end a minute ahead: a point stamped this very second is in the window.
        StartTime=end - CLOUDWATCH_WINDOW, EndTime=end + timedelta(minutes=1), Period=60,
        Statistics=["Maximum", "Average", "SampleCount"])["Datapoints"]
    if not points:
        return {"window_minutes": 5, "batches": 0, "max_ms": None, "average_ms": None,
                "behind": False}
    batches = sum(p["SampleCount"] for p in points)
    worst = max(p["Maximum"] for p in points)
    average = sum(p["Average"] * p["SampleCount"] for p in points) / batches
    return {"window_minutes": 5, "batches": int(batches), "max_ms": round(worst),
            "average_ms": round(average), "behind": worst > BEHIND_SECONDS * 1000}
