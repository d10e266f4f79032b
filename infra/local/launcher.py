"""Starts the local stack (`make run`) in a subprocess: for the e2e tests and benchmarks."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

from infra.local.environment import REPO_ROOT, free_port

# Variables that would point the child at something other than its own moto backend.
_INHERITED_AWS = ("AWS_ENDPOINT_URL", "TABLE_PREFIX", "AWS_ACCESS_KEY_ID",
                  "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                  "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE",
                  "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")


def clean_environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _INHERITED_AWS}
    env.update(extra)
    return env


@dataclass
class LocalStack:
    port: int
    state_dir: Path
    process: subprocess.Popen
    startup_seconds: float

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def accounts(self) -> dict[str, dict]:
        data = json.loads((self.state_dir / "demo-accounts.json").read_text())
        return {account["role"]: account for account in data}

    def kill(self) -> None:
        """`kill -9` of the stack's process group (the stack and its checkpoint process)."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=15)

    def stop(self, timeout: float = 30) -> float:
        """Ctrl-C, as a developer would; returns how long the stack took to exit."""
        started = time.perf_counter()
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()   # never leave a stack behind (its journal keeps its state)
            raise
        return time.perf_counter() - started


def start_stack(state_dir: Path, port: int | None = None, timeout: float = 60,
                **extra_env: str) -> LocalStack:
    port = port or free_port()
    env = clean_environment(PORT=str(port), LOCAL_STATE_DIR=str(state_dir), **extra_env)
    # The child writes to it for its whole life; closing it here would cut its output.
    log = open(state_dir.parent / f"stack-{port}.log", "a")  # noqa: SIM115
    started = time.perf_counter()
    # Its own process group, as `make run` in a terminal: kill() reaches its children too.
    process = subprocess.Popen([sys.executable, "-m", "infra.local_stack"], cwd=REPO_ROOT,
                               env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    deadline = started + timeout
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"local stack exited early; see {log.name}")
        try:
            if (requests.get(f"http://127.0.0.1:{port}/api/v1/server_settings", timeout=1).ok
                    and (state_dir / "endpoint.json").exists()):
                return LocalStack(port, state_dir, process, time.perf_counter() - started)
        except requests.RequestException:   # not listening yet, or too busy to answer
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"local stack did not start in {timeout} s; see {log.name}")


@contextmanager
def fresh_stack(**extra_env: str) -> Iterator[LocalStack]:
    """A stack on a new, empty state directory, stopped (Ctrl-C) and forgotten after."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        state.mkdir()
        stack = start_stack(state, **extra_env)
        try:
            yield stack
        finally:
            stack.stop()
