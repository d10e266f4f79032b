"""The local stack's child processes (the database, the workers): started with a pipe
on their standard input, whose closing tells them to stop (and which closes by itself
when the stack dies, so no child outlives it). A child prints progress lines, then one
line starting `ready `; what it prints after that is passed on as it comes.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Callable

from infra.local.environment import REPO_ROOT


def start_child(module: str, args: list[str], progress: Callable[[str], None]
                ) -> tuple[subprocess.Popen[str], str]:
    """Starts `python -m module args...`; returns it and what its ready line says."""
    child = spawn_child(module, args)
    return child, wait_until_ready(child, progress)


def spawn_child(module: str, args: list[str]) -> subprocess.Popen[str]:
    # SIGINT ignored from the start (Python keeps an inherited SIG_IGN): a Ctrl-C
    # reaches the terminal's whole process group, and the stack stops its children
    # itself, in order.
    return subprocess.Popen([sys.executable, "-m", module, *args], cwd=REPO_ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            bufsize=1,
                            preexec_fn=_ignore_interrupts)  # noqa: PLW1509 - sets a signal disposition only


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def wait_until_ready(child: subprocess.Popen[str], progress: Callable[[str], None]) -> str:
    """Passes on its progress lines until it is ready; what its ready line says."""
    assert child.stdout is not None
    name = child.args[2] if isinstance(child.args, list) else "child"
    for line in child.stdout:
        if line.startswith("ready "):
            threading.Thread(target=_pass_on, args=(child,), name=f"{name}-output",
                             daemon=True).start()
            return line.split(" ", 1)[1].strip()
        progress(line.rstrip())
    raise RuntimeError(f"{name} exited ({child.wait()}) before it was ready; its error "
                       "is above")


def _pass_on(child: subprocess.Popen[str]) -> None:
    assert child.stdout is not None
    for line in child.stdout:
        print(line, end="", flush=True)


def stop_child(child: subprocess.Popen[str], timeout: float) -> None:
    """Closes its pipe and waits; kills it if it takes longer than `timeout`."""
    assert child.stdin is not None
    child.stdin.close()
    try:
        child.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        raise


def serve_until_told(stop: threading.Event) -> None:
    """In the child: returns once its pipe closes or SIGTERM comes."""
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def until_stdin_closes() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=until_stdin_closes, name="parent-watch", daemon=True).start()
    # In steps: a signal handler runs only when the main thread runs bytecode.
    while not stop.wait(0.5):
        pass


def report(line: str) -> None:
    """In the child: a line for the stack's console (gone if the stack is gone)."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        pass
