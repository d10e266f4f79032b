"""The local stack as a developer uses it: the official client, the admin CLI, restarts."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import requests

from infra.local.launcher import clean_environment
from tests.e2e.conftest import REPO_ROOT, start_stack
from tests.e2e.service_client import ServiceClient


def client_for(stack, role: str) -> ServiceClient:
    account = stack.accounts()[role]
    return ServiceClient(email=account["email"], api_key=account["api_key"], site=stack.url)


def test_official_client_reads_profile_and_members(local_stack):
    client = client_for(local_stack, "member")
    assert client.feature_level > 0
    profile = client.get_profile()
    assert profile["result"] == "success" and profile["email"] == "member@demo.example.com"
    members = client.get_members()
    assert {m["email"] for m in members["members"]} >= {
        "owner@demo.example.com", "admin@demo.example.com", "member@demo.example.com",
        "guest@demo.example.com"}


def test_official_client_chats(local_stack):
    client = client_for(local_stack, "member")
    subscribed = client.add_subscriptions(streams=[{"name": "e2e"}])
    assert subscribed["result"] == "success", subscribed
    sent = client.send_message({"type": "stream", "to": "e2e", "topic": "hello",
                                "content": "Hi from the **official** client"})
    assert sent["result"] == "success", sent
    fetched = client.get_messages({"anchor": "newest", "num_before": 5, "num_after": 0,
                                   "narrow": [{"operator": "channel", "operand": "e2e"}]})
    assert fetched["result"] == "success", fetched
    assert fetched["messages"][-1]["id"] == sent["id"]
    assert "<strong>official</strong>" in fetched["messages"][-1]["content"]


def test_unknown_route_is_a_404_envelope(local_stack):
    account = local_stack.accounts()["member"]
    auth = (account["email"], account["api_key"])
    # Paths no route matches (answered before the app) and paths a route matches with a
    # method or parameter it does not serve (answered by the app), under several prefixes.
    for method, path in (("GET", "/no/such/route"), ("POST", "/users/me/unknown"),
                         ("POST", "/messages/unknown"), ("GET", "/streams/general")):
        response = requests.request(method, f"{local_stack.url}/api/v1{path}", auth=auth,
                                    timeout=5)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json() == {"result": "error", "msg": "Endpoint not found",
                                   "code": "NOT_FOUND"}
    # A served path with a method it does not serve: 405 with the methods it serves.
    for method, path, allowed in (("POST", "/messages/12", "DELETE, GET, PATCH"),
                                  ("DELETE", "/server_settings", "GET")):
        response = requests.request(method, f"{local_stack.url}/api/v1{path}", auth=auth,
                                    timeout=5)
        assert response.status_code == 405, (method, path, response.text)
        assert response.headers["Allow"] == allowed


def test_realm_from_host_subdomain(local_stack):
    response = requests.get(f"{local_stack.url}/api/v1/server_settings", timeout=5,
                            headers={"Host": f"demo.localhost:{local_stack.port}"})
    assert response.json()["realm_name"] == "Demo Org"


def test_admin_cli_finds_the_running_stack(local_stack):
    env = clean_environment(LOCAL_STATE_DIR=str(local_stack.state_dir))
    result = subprocess.run(
        [sys.executable, "-m", "chalicelib.admin", "create-user", "--realm", "demo", "--email",
         "cli@demo.example.com", "--name", "Cli Person", "--role", "member"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    created = json.loads(result.stdout)
    response = requests.get(f"{local_stack.url}/api/v1/users/me", timeout=5,
                            auth=(created["email"], created["api_key"]))
    assert response.json()["user_id"] == created["user_id"]


def test_state_survives_a_restart(tmp_path):
    # GIVEN a stack that created the demo realm and was stopped with Ctrl-C
    state = tmp_path / "state"
    state.mkdir()
    first = start_stack(state)
    owner = first.accounts()["owner"]
    assert first.stop() < 10
    # WHEN it starts again on the same state folder
    second = start_stack(state)
    try:
        # THEN the same key still works and the demo realm was not seeded twice
        response = requests.get(f"{second.url}/api/v1/users/me", timeout=5,
                                auth=(owner["email"], owner["api_key"]))
        assert response.ok and response.json()["user_id"] == owner["user_id"]
        print(f"second start: first successful request after {second.startup_seconds:.2f} s")
    finally:
        second.stop()


def _children(pid: int) -> dict[int, str]:
    found = subprocess.run(["pgrep", "-P", str(pid), "-a"], capture_output=True, text=True,
                           check=False).stdout
    return {int(line.split()[0]): line for line in found.splitlines()}


def test_database_and_workers_run_beside_the_stack_and_end_with_it(tmp_path):
    # GIVEN a running stack: moto (with its journal) and the pollers in processes of
    # their own, so that neither waits for the API's interpreter lock
    state = tmp_path / "state"
    state.mkdir()
    stack = start_stack(state)
    children = _children(stack.process.pid)
    assert any("infra.local.database" in line for line in children.values()), children
    assert any("infra.local.workers" in line for line in children.values()), children
    # WHEN the stack dies without stopping them (kill -9 of its process alone)
    os.kill(stack.process.pid, signal.SIGKILL)
    stack.process.wait(timeout=15)
    # THEN they see their pipe close, the database saves, and nothing outlives the stack
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(
            os.path.exists(f"/proc/{pid}") for pid in children):
        time.sleep(0.2)
    assert not [pid for pid in children if os.path.exists(f"/proc/{pid}")]
    assert (state / "moto-backends.pickle").exists()
    # and the next start finds everything
    again = start_stack(state)
    try:
        owner = again.accounts()["owner"]
        assert requests.get(f"{again.url}/api/v1/users/me", timeout=5,
                            auth=(owner["email"], owner["api_key"])).ok
    finally:
        again.stop()


def test_make_run_prints_passwords_that_log_in(local_stack):
    # GIVEN what `make run` printed when it seeded the demo organization
    printed = (local_stack.state_dir.parent / f"stack-{local_stack.port}.log").read_text()
    assert f"http://demo.localhost:{local_stack.port}/" in printed   # the web client's address
    for account in local_stack.accounts().values():
        # THEN each account's line carries its password
        assert re.search(rf"{re.escape(account['email'])}\s+password "
                         rf"{re.escape(account['password'])}\s", printed), account["email"]
        # AND the password logs in at the organization's address, as the web client does
        response = requests.post(f"{local_stack.url}/api/v1/fetch_api_key", timeout=10,
                                 headers={"Host": f"demo.localhost:{local_stack.port}"},
                                 data={"username": account["email"],
                                       "password": account["password"]})
        assert response.status_code == 200, response.text
        assert response.json()["email"] == account["email"]
