"""End-to-end tier: the local stack started as `make run` starts it, in a subprocess."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
import requests

REPO_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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

    def stop(self) -> float:
        """Ctrl-C, as a developer would; returns how long the stack took to exit."""
        started = time.perf_counter()
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=15)
        return time.perf_counter() - started


def start_stack(state_dir: Path, port: int | None = None, timeout: float = 60) -> LocalStack:
    port = port or free_port()
    env = {**os.environ, "PORT": str(port), "LOCAL_STATE_DIR": str(state_dir)}
    for name in ("AWS_ENDPOINT_URL", "TABLE_PREFIX", "AWS_ACCESS_KEY_ID",
                 "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        env.pop(name, None)
    log = open(state_dir.parent / f"stack-{port}.log", "w")
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "infra.local_stack"], cwd=REPO_ROOT,
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = started + timeout
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"local stack exited early; see {log.name}")
        try:
            if (requests.get(f"http://127.0.0.1:{port}/api/v1/server_settings", timeout=1).ok
                    and (state_dir / "endpoint.json").exists()):
                return LocalStack(port, state_dir, process, time.perf_counter() - started)
        except requests.ConnectionError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"local stack did not start in {timeout} s; see {log.name}")


@pytest.fixture(scope="session")
def stack_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stack") / "state"


@pytest.fixture(scope="session")
def local_stack(stack_state: Path) -> Iterator[LocalStack]:
    stack_state.mkdir(parents=True, exist_ok=True)
    stack = start_stack(stack_state)
    yield stack
    if stack.process.poll() is None:
        stack.stop()
