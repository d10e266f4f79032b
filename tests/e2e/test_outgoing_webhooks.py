"""Outgoing webhooks on the local stack, with the official zulip-botserver as the receiver."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import boto3
import requests

from infra.local.environment import REPO_ROOT
from infra.local.launcher import free_port


def wait_for(predicate, seconds: float, interval: float = 0.3):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    return None


def topic_messages(stack, auth, topic: str) -> list[dict]:
    response = requests.get(f"{stack.url}/api/v1/messages", auth=auth, timeout=10, params={
        "anchor": "newest", "num_before": 20, "num_after": 0, "apply_markdown": "false",
        "narrow": json.dumps([{"operator": "channel", "operand": "general"},
                              {"operator": "topic", "operand": topic}])})
    return response.json()["messages"]


def test_botserver_replies_and_a_down_receiver_yields_the_failure_notice(local_stack,
                                                                       tmp_path: Path):
    accounts = local_stack.accounts()
    owner = (accounts["owner"]["email"], accounts["owner"]["api_key"])
    port = free_port()
    # GIVEN an outgoing-webhook bot pointing at a botserver running the helloworld bot
    created = requests.post(f"{local_stack.url}/api/v1/bots", auth=owner, timeout=10, data={
        "full_name": "Hello Bot", "short_name": "hello", "bot_type": "3",
        "payload_url": json.dumps(f"http://127.0.0.1:{port}/")}).json()
    assert created["result"] == "success", created
    bots = requests.get(f"{local_stack.url}/api/v1/bots", auth=owner, timeout=10).json()["bots"]
    bot = next(b for b in bots if b["user_id"] == created["user_id"])
    rc = tmp_path / "botserverrc"
    rc.write_text(f"[helloworld]\nemail={bot['email']}\nkey={created['api_key']}\n"
                  f"site={local_stack.url}\ntoken={bot['services'][0]['token']}\n")
    log = open(tmp_path / "botserver.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "tests.e2e.run_botserver",
                               "--config-file", str(rc), "--hostname", "127.0.0.1",
                               "--port", str(port)], cwd=REPO_ROOT,
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        assert wait_for(lambda: _listening(port), 30), \
            "botserver did not start: " + (tmp_path / "botserver.log").read_text()[-2000:]
        # WHEN the owner mentions the bot in a channel
        sent = requests.post(f"{local_stack.url}/api/v1/messages", auth=owner, timeout=10,
                             data={"type": "stream", "to": "general", "topic": "bots",
                                   "content": "@**Hello Bot** hello"}).json()
        assert sent["result"] == "success", sent
        # THEN the botserver (which checks the token) answers in the same topic
        reply = wait_for(lambda: [m for m in topic_messages(local_stack, owner, "bots")
                                  if m["sender_id"] == bot["user_id"]], 30)
        assert reply, "no reply from the botserver"
        assert reply[0]["content"] == "beep boop"
    finally:
        server.terminate()
        server.wait(timeout=10)
    # WHEN the receiver is down and the bot is mentioned again
    sent = requests.post(f"{local_stack.url}/api/v1/messages", auth=owner, timeout=10,
                         data={"type": "stream", "to": "general", "topic": "down",
                               "content": "@**Hello Bot** are you there?"}).json()
    # THEN after the retries the conversation gets the failure notice
    notice = wait_for(lambda: [m for m in topic_messages(local_stack, owner, "down")
                               if m["sender_id"] == bot["user_id"]], 60, 0.5)
    assert notice and notice[0]["content"].startswith("Failure! Maximum retries exceeded!")
    # AND the message is kept: still in the channel, and its job is in the dead-letter queue
    assert sent["id"] in [m["id"] for m in topic_messages(local_stack, owner, "down")]
    endpoint = json.loads((local_stack.state_dir / "endpoint.json").read_text())
    sqs = boto3.client("sqs", endpoint_url=endpoint["aws_endpoint_url"],
                       region_name="us-east-1", aws_access_key_id="local",
                       aws_secret_access_key="local")
    dlq = sqs.get_queue_url(QueueName=endpoint["table_prefix"] + "outgoing-webhooks-dlq")
    jobs = wait_for(lambda: sqs.receive_message(QueueUrl=dlq["QueueUrl"], WaitTimeSeconds=1)
                    .get("Messages"), 30)
    assert jobs and json.loads(jobs[0]["Body"])["message_id"] == sent["id"]


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
