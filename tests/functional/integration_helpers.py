"""Posting a tool's payload to POST /external/{integration} as an incoming-webhook bot,
and reading the message that landed. Payloads are the tools' own samples
(tests/fixtures/integrations/README.md)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.functional.conftest import ApiResponse, TestRealm, check_contract

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "integrations"


def fixture(tool: str, name: str) -> bytes:
    return (FIXTURES / tool / name).read_bytes()


def fixture_json(tool: str, name: str) -> Any:
    return json.loads(fixture(tool, name))


@dataclass
class Hook:
    """An incoming-webhook bot of `realm`, owned by its member, and a channel `dev`."""

    realm: TestRealm
    api_key: str
    bot_id: int
    email: str

    def post(self, integration: str, body: bytes | dict[str, Any] | str, *,
             headers: dict[str, str] | None = None, key: str | None = None,
             content_type: str = "application/json", **query: Any) -> ApiResponse:
        params = {"api_key": self.api_key if key is None else key,
                  **{k: v if isinstance(v, str) else json.dumps(v) for k, v in query.items()}}
        if key == "":
            params.pop("api_key")
        raw = json.dumps(body).encode() if isinstance(body, dict) else \
            body.encode() if isinstance(body, str) else body
        url = f"/api/v1/external/{integration}?{urlencode(params)}"
        response = self.realm.client.http.post(
            url, headers={"Content-Type": content_type, **(headers or {})}, body=raw)
        check_contract("POST", url, response)
        return ApiResponse(response.status_code, json.loads(response.body or b"{}"),
                           dict(response.headers))


def make_hook(realm: TestRealm, short_name: str = "hook", channel: str | None = "dev",
              **bot: Any) -> Hook:
    if channel is not None:
        made = realm.owner.post("/users/me/subscriptions", {"subscriptions": [{"name": channel}]})
        assert made.ok, made.json
    created = realm.member.post("/bots", {"full_name": f"{short_name.title()} Bot",
                                          "short_name": short_name, "bot_type": 2, **bot})
    assert created.ok, created.json
    email = f"{short_name}-bot@{realm.subdomain}.example.com"
    return Hook(realm, created.json["api_key"], created.json["user_id"], email)


def channel_messages(realm: TestRealm, channel: str = "dev", count: int = 20
                     ) -> list[dict[str, Any]]:
    """The channel's latest messages, oldest first, as raw Markdown."""
    fetched = realm.owner.get("/messages", {
        "anchor": "newest", "num_before": count, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "channel", "operand": channel}]})
    assert fetched.ok, fetched.json
    messages: list[dict[str, Any]] = fetched.json["messages"]
    return messages


def last_message(realm: TestRealm, channel: str = "dev") -> dict[str, Any]:
    messages = channel_messages(realm, channel, 1)
    assert messages, "no message landed"
    return messages[-1]


def rendered(realm: TestRealm, message_id: int) -> str:
    content: str = realm.owner.get(f"/messages/{message_id}").json["message"]["content"]
    return content
