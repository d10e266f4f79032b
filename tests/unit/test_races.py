"""retry_lost_races: what counts as a lost race, how often it tries, how it gives up."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from pynamodb.exceptions import PutError, UpdateError

from chalicelib.core.errors import ConflictError
from chalicelib.models import races
from chalicelib.models.races import LostRace, is_lost_race, retry_lost_races


def failed(error_type: type[PutError | UpdateError], code: str) -> PutError | UpdateError:
    cause = ClientError({"Error": {"Code": code, "Message": code}}, "PutItem")
    return error_type("write failed", cause=cause)


def losing(times: int, error: Exception) -> tuple[list[int], object]:
    """An attempt that raises `error` the first `times` calls, then returns "won"."""
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "won"
    return calls, attempt


def test_a_single_write_failing_on_its_condition_is_a_lost_race():
    assert is_lost_race(failed(PutError, "ConditionalCheckFailedException"))
    assert is_lost_race(failed(UpdateError, "ConditionalCheckFailedException"))
    assert is_lost_race(LostRace())
    # Throttling or a fault is not: it must not be retried as if another writer won.
    assert not is_lost_race(failed(PutError, "ProvisionedThroughputExceededException"))
    assert not is_lost_race(ValueError())


def test_it_reads_again_after_lost_races_and_returns_the_winning_attempt():
    calls, attempt = losing(2, failed(UpdateError, "ConditionalCheckFailedException"))
    assert retry_lost_races(attempt, conflict="try again", attempts=3) == "won"
    assert len(calls) == 3


def test_after_the_last_lost_race_the_client_gets_a_conflict():
    calls, attempt = losing(3, LostRace())
    with pytest.raises(ConflictError, match="try again"):
        retry_lost_races(attempt, conflict="try again", attempts=3)
    assert len(calls) == 3


def test_without_a_conflict_message_it_gives_up_quietly():
    _, attempt = losing(3, LostRace())
    assert retry_lost_races(attempt, conflict=None, attempts=3) is None


def test_other_failures_propagate_at_once():
    throttled = failed(PutError, "ProvisionedThroughputExceededException")
    calls, attempt = losing(1, throttled)
    with pytest.raises(PutError):
        retry_lost_races(attempt, conflict="try again")
    assert len(calls) == 1


def test_backoff_pauses_before_each_retry_growing_with_the_retries(monkeypatch):
    pauses: list[float] = []
    monkeypatch.setattr(races.random, "uniform", lambda low, high: high)
    monkeypatch.setattr(races.time, "sleep", pauses.append)
    _, attempt = losing(3, LostRace())
    assert retry_lost_races(attempt, conflict="try again", backoff=0.01) == "won"
    assert pauses == pytest.approx([0.01, 0.02, 0.03])
