"""chalice local in the repository serves the API against the local stack's backend. Its
entry (`python -m infra.local.chalice_local`): a running `make run`'s, or the embedded
one it starts when none runs. The bare `chalice local`: a running `make run`'s, through
the AWS configuration file the stack writes for the dev stage, or an answer that says
what to run."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from infra.local.environment import free_port
from infra.local.launcher import clean_environment
from tests.e2e.conftest import REPO_ROOT


@contextmanager
def chalice_local(state_dir: Path, log: Path, *, bare: bool = False) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "infra.local.chalice_local"]
    cwd = REPO_ROOT
    if bare:
        # `chalice local` as typed in the repository (its file watcher on), in a copy of
        # it made of links whose .local-state links to the test stack's state, as
        # make run's .local-state links to its own (the stage names
        # .local-state/aws-config).
        cwd = log.parent / "project"
        cwd.mkdir(exist_ok=True)
        for name in ("app.py", "chalicelib", ".chalice"):
            (cwd / name).symlink_to(REPO_ROOT / name)
        if state_dir.exists():
            (cwd / ".local-state").symlink_to(state_dir)
        # the console script, as typed: the file watcher's restarts re-run sys.argv
        command = [str(Path(sys.executable).parent / "chalice"), "local"]
    if not bare:
        command.append("--no-autoreload")
    with open(log, "a") as output:
        process = subprocess.Popen(
            [*command, "--port", str(port)], cwd=cwd,
            env=clean_environment(LOCAL_STATE_DIR=str(state_dir)), stdout=output,
            stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if requests.get(f"{url}/api/v1/server_settings", timeout=1).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


def roundtrip(url: str, account: dict) -> int:
    """Reads the profile, registers a queue, sends a message and sees its event."""
    auth = (account["email"], account["api_key"])
    me = requests.get(f"{url}/api/v1/users/me", auth=auth, timeout=10)
    assert me.status_code == 200 and me.json()["email"] == account["email"], me.text
    queue = requests.post(f"{url}/api/v1/register", auth=auth, timeout=10,
                          data={"event_types": '["message"]'}).json()
    sent = requests.post(f"{url}/api/v1/messages", auth=auth, timeout=10, data={
        "type": "direct", "to": json.dumps([account["user_id"]]), "content": "via chalice"})
    assert sent.status_code == 200, sent.text
    events = requests.get(f"{url}/api/v1/events", auth=auth, timeout=30, params={
        "queue_id": queue["queue_id"], "last_event_id": queue["last_event_id"]}).json()
    assert [e["message"]["id"] for e in events["events"] if e["type"] == "message"] == [
        sent.json()["id"]], events
    return int(sent.json()["id"])


def test_chalice_local_uses_the_running_stack(local_stack, tmp_path: Path):
    member = local_stack.accounts()["member"]
    with chalice_local(local_stack.state_dir, tmp_path / "chalice.log") as url:
        message_id = roundtrip(url, member)
    # The same backend: the running stack serves what chalice local wrote
    auth = (member["email"], member["api_key"])
    response = requests.get(f"{local_stack.url}/api/v1/messages/{message_id}", auth=auth,
                            timeout=10)
    assert response.status_code == 200


def test_chalice_local_starts_the_embedded_backend(tmp_path: Path):
    state = tmp_path / "state"
    state.mkdir()
    with chalice_local(state, tmp_path / "chalice.log") as url:
        accounts = {a["role"]: a for a in json.loads(
            (state / "demo-accounts.json").read_text())}
        message_id = roundtrip(url, accounts["member"])
    # Its state is kept like make run's: a second start finds the message
    with chalice_local(state, tmp_path / "chalice.log") as url:
        member = accounts["member"]
        response = requests.get(f"{url}/api/v1/messages/{message_id}", timeout=10,
                                auth=(member["email"], member["api_key"]))
        assert response.status_code == 200, response.text


def test_the_bare_chalice_local_uses_the_running_stack(local_stack, tmp_path: Path):
    member = local_stack.accounts()["member"]
    log = tmp_path / "chalice.log"
    with chalice_local(local_stack.state_dir, log, bare=True) as url:
        message_id = roundtrip(url, member)
        time.sleep(1.5)   # the file watcher polls once a second
        roundtrip(url, member)
    # The stack's writes (its journal) are outside what the file watcher walks
    assert "Restarting" not in log.read_text()
    auth = (member["email"], member["api_key"])
    response = requests.get(f"{local_stack.url}/api/v1/messages/{message_id}", auth=auth,
                            timeout=10)
    assert response.status_code == 200


def test_the_bare_chalice_local_without_a_stack_says_what_to_run(tmp_path: Path):
    with chalice_local(tmp_path / "no-stack", tmp_path / "chalice.log", bare=True) as url:
        answer = requests.get(f"{url}/api/v1/users/me", timeout=10,
                              auth=("someone@example.com", "x" * 32))
    assert answer.status_code == 503, answer.text
    assert "make run" in answer.json()["msg"] and "credentials" in answer.json()["msg"]
