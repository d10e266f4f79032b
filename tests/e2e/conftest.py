"""End-to-end tier: the local stack started as `make run` starts it, in a subprocess."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from infra.local.environment import REPO_ROOT
from infra.local.launcher import LocalStack, start_stack

__all__ = ["REPO_ROOT", "LocalStack", "start_stack"]


@pytest.fixture(scope="session")
def stack_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stack") / "state"


@pytest.fixture(scope="session")
def local_stack(stack_state: Path) -> Iterator[LocalStack]:
    stack_state.mkdir(parents=True, exist_ok=True)
    # Short webhook backoff, so the down-receiver test sees the final notice quickly;
    # push-channel heartbeats every 2 s instead of 5 minutes, so a test sees one.
    stack = start_stack(stack_state, WEBHOOK_RETRY_DELAYS_SECONDS="1,1,1",
                        LOCAL_SCHEDULE_EVENTS_KEEPALIVE_SECONDS="2")
    yield stack
    if stack.process.poll() is None:
        stack.stop()
