"""The official client with every HTTP answer it receives kept, so that a test can check
each one against the reference's schema (tests/reference_contract.py, objects closed) and
the generated document (tests/contract.py), not only the dict the client hands back."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests

from tests.contract import ContractChecker
from tests.e2e.service_client import ServiceClient
from tests.reference_contract import check_reference_event, check_reference_response


@dataclass(frozen=True)
class Answer:
    method: str
    path: str          # with the /api/v1 prefix and the query
    status: int
    body: bytes
    content_type: str


# What every RecordingClient received since the last take_answers(), in order.
_ANSWERS: list[Answer] = []


def take_answers() -> list[Answer]:
    answers = list(_ANSWERS)
    _ANSWERS.clear()
    return answers


class RecordingClient(ServiceClient):
    """A ServiceClient that keeps every answer it receives (take_answers)."""

    def ensure_session(self) -> None:
        fresh = not self.session
        super().ensure_session()
        if fresh:
            self.session.hooks["response"].append(self._keep)

    def _keep(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        parts = urlsplit(response.request.url or "")
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        _ANSWERS.append(Answer(response.request.method or "", path, response.status_code,
                                   response.content,
                                   response.headers.get("Content-Type", "")))


def check_answer(answer: Answer, checker: ContractChecker) -> None:
    """Every answer against the generated document; a success also against the
    reference's own schema with every object closed, and each event of GET /events
    likewise."""
    checker.check_response(answer.method, answer.path, answer.status, answer.body,
                           answer.content_type)
    check_reference_response(answer.method, answer.path, answer.status, answer.body)
    if answer.method == "GET" and answer.path.startswith("/api/v1/events") and \
            answer.status == 200:
        for event in json.loads(answer.body).get("events", []):
            check_reference_event(event, f"event {event.get('type')}/{event.get('op')}")
