"""Outgoing-webhook rules that need no AWS: answers, request bodies, backoff, SQS batches."""
from __future__ import annotations

import json
from urllib.parse import parse_qs

import pytest

from chalicelib.delivery.webhook_jobs import _sqs_batches
from chalicelib.rules.webhook_interfaces import (
    INTERFACE_GENERIC,
    INTERFACE_SLACK,
    InvalidReplyError,
    UnsupportedConversationError,
    generic_request,
    reply_content,
    slack_request,
)
from chalicelib.webhooks.delivery import retry_delay

MESSAGE = {"id": 7, "type": "stream", "stream_id": 3, "display_recipient": "talk",
           "subject": "t", "content": "@**Echo** hi", "timestamp": 1700000000,
           "sender_id": 5, "sender_full_name": "Ann"}


@pytest.mark.parametrize("answer, content", [
    ({"content": "hi"}, "hi"),
    ({"response_string": "legacy", "content": "new"}, "legacy"),   # legacy first
    ({"response_not_required": True, "content": "x"}, None),
    ({"response_not_required": True, "response_string": "x"}, None),
    ({"content": 42}, "42"),
    ({"content": "   "}, None),
    ({"content": None}, None),
    ({}, None),
    ("", None),                    # old botservers' "nothing to say"
])
def test_generic_answers(answer, content):
    assert reply_content(INTERFACE_GENERIC, json.dumps(answer).encode()) == content


def test_slack_answers_use_text():
    assert reply_content(INTERFACE_SLACK, b'{"text": "yo", "content": "no"}') == "yo"
    assert reply_content(INTERFACE_SLACK, b'{"content": "no"}') is None


@pytest.mark.parametrize("body, problem", [(b"<html>", "The bot's answer cannot be parsed as JSON"),
                                           (b"[1]", "The bot's answer is not a JSON object"),
                                           (b"3", "The bot's answer is not a JSON object")])
def test_unusable_answers(body, problem):
    with pytest.raises(InvalidReplyError, match=problem):
        reply_content(INTERFACE_GENERIC, body)


def test_an_empty_answer_asks_for_nothing():
    assert reply_content(INTERFACE_GENERIC, b"") is None
    assert reply_content(INTERFACE_GENERIC, b"  \n") is None


def test_request_bodies():
    generic = generic_request(bot_email="e@x", bot_full_name="Echo", token="T0k",
                              trigger="mention", message=MESSAGE)
    assert generic.content_type == "application/json"
    assert json.loads(generic.body) == {"bot_email": "e@x", "bot_full_name": "Echo",
                                        "data": "@**Echo** hi", "trigger": "mention",
                                        "token": "T0k", "message": MESSAGE}
    slack = slack_request(token="T0k", realm_id=2, realm_host="acme.example.com", bot_id=9,
                          trigger="mention", message=MESSAGE)
    assert slack.content_type == "application/x-www-form-urlencoded"
    assert parse_qs(slack.body.decode()) == {
        "token": ["T0k"], "team_id": ["T2"], "team_domain": ["acme.example.com"],
        "channel_id": ["C3"], "channel_name": ["talk"], "thread_ts": ["1700000000"],
        "timestamp": ["1700000000"], "user_id": ["U5"], "user_name": ["Ann"],
        "text": ["@**Echo** hi"], "trigger_word": ["mention"], "service_id": ["9"]}
    with pytest.raises(UnsupportedConversationError):
        slack_request(token="T0k", realm_id=2, realm_host="h", bot_id=9,
                      trigger="direct_message", message={**MESSAGE, "type": "private"})


def test_backoff_grows_then_stays(monkeypatch):
    monkeypatch.delenv("WEBHOOK_RETRY_DELAYS_SECONDS", raising=False)
    assert [retry_delay(attempt) for attempt in (1, 2, 3, 4)] == [5, 30, 120, 120]
    monkeypatch.setenv("WEBHOOK_RETRY_DELAYS_SECONDS", "1,2")
    assert [retry_delay(attempt) for attempt in (1, 2, 3)] == [1, 2, 2]


def test_sqs_batches_respect_count_and_size():
    small = [(str(i), "x" * 10) for i in range(23)]
    assert [len(b) for b in _sqs_batches(small)] == [10, 10, 3]
    big = [(str(i), "é" * 60_000) for i in range(5)]   # 120 KB each in UTF-8
    assert [len(b) for b in _sqs_batches(big)] == [2, 2, 1]
