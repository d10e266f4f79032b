"""Outgoing webhooks on the local stack, with the official zulip-botserver as the receiver."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import boto3
import requests

from infra.local.environment import REPO_ROOT, free_port


def wait_for(predicate, seconds: float, interval: float = 0.3):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    return None


class Api:
    def __init__(self, stack, account: dict[str, Any]) -> None:
        self.base = f"{stack.url}/api/v1"
        self.auth = (account["email"], account["api_key"])

    def call(self, method: str, path: str, **params: Any) -> dict[str, Any]:
        key = "params" if method == "GET" else "data"
        return requests.request(method, self.base + path, auth=self.auth, timeout=10,
                                **{key: params}).json()

    def create_bot(self, name: str, short_name: str, url: str) -> dict[str, Any]:
        created = self.call("POST", "/bots", full_name=name, short_name=short_name,
                            bot_type="3", payload_url=json.dumps(url))
        assert created["result"] == "success", created
        bots = self.call("GET", "/bots")["bots"]
        return {**next(b for b in bots if b["user_id"] == created["user_id"]),
                "api_key": created["api_key"]}

    def messages(self, narrow: list[dict[str, str]]) -> list[dict[str, Any]]:
        return self.call("GET", "/messages", anchor="newest", num_before=20, num_after=0,
                         apply_markdown="false", narrow=json.dumps(narrow))["messages"]

    def topic(self, topic: str) -> list[dict[str, Any]]:
        return self.messages([{"operator": "channel", "operand": "general"},
                              {"operator": "topic", "operand": topic}])

    def send(self, topic: str, content: str) -> int:
        sent = self.call("POST", "/messages", type="stream", to="general", topic=topic,
                         content=content)
        assert sent["result"] == "success", sent
        return sent["id"]


def from_bot(messages: list[dict[str, Any]], bot: dict[str, Any]) -> list[str]:
    return [m["content"] for m in messages if m["sender_id"] == bot["user_id"]]


def test_botserver_replies_and_a_down_receiver_yields_the_failure_notice(local_stack,
                                                                       tmp_path: Path):
    owner = Api(local_stack, local_stack.accounts()["owner"])
    port = free_port()
    # GIVEN two outgoing-webhook bots served by one botserver: the helloworld bot with
    # its token, and a bot the botserver knows under a different token
    hello = owner.create_bot("Hello Bot", "hello", f"http://127.0.0.1:{port}/")
    wrong = owner.create_bot("Wrong Token Bot", "wrongtoken", f"http://127.0.0.1:{port}/")
    rc = tmp_path / "botserverrc"
    rc.write_text(
        f"[helloworld]\nemail={hello['email']}\nkey={hello['api_key']}\n"
        f"site={local_stack.url}\ntoken={hello['services'][0]['token']}\n\n"
        f"[encrypt]\nemail={wrong['email']}\nkey={wrong['api_key']}\n"
        f"site={local_stack.url}\ntoken=not{wrong['services'][0]['token']}\n")
    with open(tmp_path / "botserver.log", "w") as log:
        server = subprocess.Popen([sys.executable, "-m", "tests.e2e.run_botserver",
                                   "--config-file", str(rc), "--hostname", "127.0.0.1",
                                   "--port", str(port)], cwd=REPO_ROOT,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        assert wait_for(lambda: _listening(port), 30), \
            "botserver did not start: " + (tmp_path / "botserver.log").read_text()[-2000:]
        # WHEN the owner mentions the bot in a channel
        owner.send("bots", "@**Hello Bot** hello")
        # THEN the botserver (which checks the token) answers in the same topic
        reply = wait_for(lambda: from_bot(owner.topic("bots"), hello), 30)
        assert reply == ["beep boop"], (tmp_path / "botserver.log").read_text()[-2000:]
        # WHEN the owner writes to the bot directly THEN it answers in that conversation
        sent = owner.call("POST", "/messages", type="direct", content="hi there",
                          to=json.dumps([hello["user_id"]]))
        assert sent["result"] == "success", sent
        dm = [{"operator": "dm", "operand": hello["email"]}]
        assert wait_for(lambda: from_bot(owner.messages(dm), hello), 30) == ["beep boop"]
        # WHEN the bot whose token the botserver does not accept is mentioned
        owner.send("tokens", "@**Wrong Token Bot** hello")
        # THEN the botserver refuses it, and the conversation is told
        refused = wait_for(lambda: from_bot(owner.topic("tokens"), wrong), 30)
        assert refused == ["Failure! Third party responded with 401"]
    finally:
        server.terminate()
        server.wait(timeout=10)
    # WHEN the receiver is down and the bot is mentioned again
    message_id = owner.send("down", "@**Hello Bot** are you there?")
    # THEN after the retries the conversation gets the failure notice, and the owner too
    notice = wait_for(lambda: from_bot(owner.topic("down"), hello), 60, 0.5)
    assert notice == ["Failure! Bot is unavailable"]
    owner_dm = [{"operator": "dm", "operand": hello["email"]}]
    assert any("Is my bot server down?" in m for m in from_bot(owner.messages(owner_dm), hello))
    # AND the message is kept: still in the channel, and its job is in the dead-letter queue
    assert message_id in [m["id"] for m in owner.topic("down")]
    endpoint = json.loads((local_stack.state_dir / "endpoint.json").read_text())
    sqs = boto3.client("sqs", endpoint_url=endpoint["aws_endpoint_url"],
                       region_name="us-east-1", aws_access_key_id="local",
                       aws_secret_access_key="local")
    dlq = sqs.get_queue_url(QueueName=endpoint["table_prefix"] + "outgoing-webhooks-dlq")
    jobs = wait_for(lambda: sqs.receive_message(QueueUrl=dlq["QueueUrl"], WaitTimeSeconds=1)
                    .get("Messages"), 30)
    assert jobs and json.loads(jobs[0]["Body"])["message_id"] == message_id


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
