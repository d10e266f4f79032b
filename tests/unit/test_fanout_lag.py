"""The fan-out's lag: the local poller's reporter (file and console) and the ages."""
from __future__ import annotations

import time
from datetime import UTC, datetime

from chalicelib.fanout import lag
from infra.local.pollers import LagReporter


def record(age_seconds: float) -> dict:
    created = datetime.fromtimestamp(time.time() - age_seconds, UTC)
    return {"dynamodb": {"ApproximateCreationDateTime": created}}


def test_record_age_reads_datetimes_and_epoch_seconds():
    assert lag.record_age_seconds(datetime.fromtimestamp(100, UTC), now=112.5) == 12.5
    assert lag.record_age_seconds(100.0, now=101.0) == 1.0
    assert lag.record_age_seconds(None) == 0.0
    assert lag.record_age_seconds(200.0, now=100.0) == 0.0   # clocks apart: never negative


def test_reporter_warns_once_while_behind_says_when_caught_up_and_keeps_the_file(
        tmp_path, capsys):
    reporter = LagReporter(tmp_path)
    # GIVEN a batch on time: no warning, and the file says so
    reporter.batch([record(0.5), record(0.2)])
    assert capsys.readouterr().out == ""
    assert lag.read_local(tmp_path)["behind"] is False
    # WHEN batches arrive 8 s late, twice in a row
    reporter.batch([record(8.0)])
    reporter.batch([record(9.0)])
    # THEN one warning line says how far behind, and the file holds it
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("warning: event delivery is 8.")
    saved = lag.read_local(tmp_path)
    assert saved["behind"] is True and saved["lag_seconds"] >= 8 and saved["records"] == 1
    # WHEN the poller finds the stream empty again
    reporter.idle()
    # THEN it says delivery caught up, and the file shows no lag
    assert capsys.readouterr().out.strip() == "event delivery caught up"
    assert lag.read_local(tmp_path)["lag_seconds"] == 0 and not lag.read_local(
        tmp_path)["behind"]
