"""Incoming integrations on the local stack, as a person sets one up: the admin CLI makes
the bot and prints the URL, and the tool posts its payload to it over HTTP."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import requests

from infra.local.environment import REPO_ROOT

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "integrations"


def test_a_tool_posts_to_the_url_the_cli_printed(local_stack, stack_state):
    owner = local_stack.accounts()["owner"]
    # GIVEN an incoming-webhook bot for GitHub, made with the admin CLI
    made = subprocess.run(
        [sys.executable, "-m", "chalicelib.admin", "create-bot", "--realm", "demo",
         "--owner-email", owner["email"], "--name", "GitHub", "--short-name", "github",
         "--incoming-webhook", "github", "--stream", "general"],
        cwd=REPO_ROOT, env={**os.environ, "LOCAL_STATE_DIR": str(stack_state)},
        capture_output=True, text=True, timeout=60, check=False)
    assert made.returncode == 0, made.stderr
    url = json.loads(made.stdout)["integration_url"]
    assert url.startswith(f"{local_stack.url}/api/v1/external/github?api_key=")
    # WHEN GitHub posts a pull request to it
    answer = requests.post(url, data=(FIXTURES / "github" / "pull_request__opened.json")
                           .read_bytes(), timeout=15,
                           headers={"X-GitHub-Event": "pull_request",
                                    "Content-Type": "application/json"})
    # THEN it lands in #general, in the pull request's topic
    assert answer.status_code == 200 and answer.json() == {"result": "success", "msg": ""}
    messages = requests.get(f"{local_stack.url}/api/v1/messages", timeout=15,
                            auth=(owner["email"], owner["api_key"]), params={
                                "anchor": "newest", "num_before": 1, "num_after": 0,
                                "apply_markdown": "false", "narrow": json.dumps(
                                    [{"operator": "channel", "operand": "general"}])},
                            ).json()["messages"]
    assert messages[-1]["subject"] == \
        "Hello-World / PR #2 Update the README with new information."
    assert messages[-1]["content"].startswith("Codertocat opened [PR #2](")
    # AND a wrong key, or a bad payload, get the reference's errors
    wrong = requests.post(url.replace("api_key=", "api_key=x"), data=b"{}", timeout=15,
                          headers={"X-GitHub-Event": "pull_request"})
    assert (wrong.status_code, wrong.json()["code"]) == (401, "INVALID_API_KEY")
    broken = requests.post(url, data=b"{not json", timeout=15,
                           headers={"X-GitHub-Event": "pull_request"})
    assert (broken.status_code, broken.json()["code"]) == (400, "INVALID_JSON")
