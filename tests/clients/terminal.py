"""The official terminal client (zulip-term) in a pseudo-terminal, as a person runs it,
behind the renaming proxy; its screen is kept by a terminal emulator so a test can read
what it drew. zulip-term lives in a venv of its own (`make term-client`)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pexpect
import pyte

from infra.local.environment import REPO_ROOT, free_port

TERM_CLIENT = REPO_ROOT / "build" / "term-venv" / "bin" / "zulip-term"


class Terminal:
    """zulip-term in a 160x45 pseudo-terminal, its screen kept by a terminal emulator."""

    def __init__(self, zuliprc: Path, client: Path = TERM_CLIENT) -> None:
        self.screen = pyte.Screen(160, 45)
        self.stream = pyte.ByteStream(self.screen)
        self.output = b""   # everything it wrote, for a traceback printed on exit
        # Not pytest's variables: zulip-term runs its background work in the foreground
        # when it sees PYTEST_CURRENT_TEST (its own tests' switch), and never loads.
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        # Its crash log goes to its working directory: the zuliprc's, not the repository.
        self.child = pexpect.spawn(str(client), ["-c", str(zuliprc)], dimensions=(45, 160),
                                   env=dict(env, TERM="xterm-256color"), cwd=zuliprc.parent)

    def pump(self, seconds: float) -> None:
        """Read what the client draws for `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._read()

    def wait_for(self, text: str, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._read()
            if text in self.text():
                return True
        return False

    def _read(self) -> None:
        try:
            chunk = self.child.read_nonblocking(65536, timeout=0.3)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            time.sleep(0.3)   # the client ended: nothing more will come
            return
        self.output += chunk
        self.stream.feed(chunk)

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def close(self) -> None:
        self.child.terminate(force=True)


def write_zuliprc(directory: Path, account: dict, site: str) -> Path:
    zuliprc = directory / "zuliprc"
    zuliprc.write_text(f"[api]\nemail={account['email']}\nkey={account['api_key']}\n"
                       f"site={site}\n[zterm]\nnotify=disabled\n")
    zuliprc.chmod(0o600)   # the client refuses a key others can read
    return zuliprc


def _wait_for_port(port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextmanager
def renaming_proxy(upstream: str, python: str = sys.executable,
                   realm: str | None = None) -> Iterator[str]:
    """The renaming proxy in front of `upstream`, for as long as the block runs; with
    `realm`, as that organization's address (for clients that log in with a password)."""
    port = free_port()
    command = [python, "-m", "infra.local.client_proxy", "--port", str(port), "--to", upstream]
    proxy = subprocess.Popen(command + (["--realm", realm] if realm else []), cwd=REPO_ROOT)
    try:
        _wait_for_port(port, 20)
        yield f"http://127.0.0.1:{port}"
    finally:
        proxy.terminate()
        proxy.wait(10)
