"""Shared steps of the invitation and signup tests: inviting, reading the emailed link,
and calling the public link endpoints as a browser or a fresh client would."""
from __future__ import annotations

import json
import re
from typing import Any

from tests.functional.conftest import ApiResponse, encode_params, sent_emails

LINK = re.compile(r"https?://\S+/(accounts/do_confirm|join)/(\w+)")


def invite(account, emails: str, stream_ids: list[int] | None = None,
           **params: Any) -> ApiResponse:
    return account.post("/invites", {"invitee_emails": emails,
                                     "stream_ids": stream_ids or [], **params})


def error(response: ApiResponse, code: str = "BAD_REQUEST") -> str:
    assert response.status == 400 and response.json["code"] == code, response.json
    return response.json["msg"]


def emailed_key(address: str, index: int = -1) -> str:
    """The key in the link of the (last) invitation or confirmation emailed to `address`."""
    emails = sent_emails(address)
    assert emails, f"nothing was emailed to {address}"
    match = LINK.search(emails[index]["body"])
    assert match is not None, emails[index]["body"]
    return match.group(2)


def public(realm, method: str, path: str, params: dict[str, Any] | None = None
           ) -> ApiResponse:
    """A request without credentials to a path outside /api/v1 (the links' addresses)."""
    body = encode_params(params).encode() if params else b""
    response = realm.client.http.request(
        method, path, body=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"} if params else {})
    return ApiResponse(response.status_code, json.loads(response.body or b"{}"),
                       dict(response.headers))


def register(realm, key: str, full_name: str = "Nina Newcomer",
             password: str = "correct horse battery") -> ApiResponse:
    return public(realm, "POST", "/accounts/register",
                  {"key": key, "full_name": full_name, "password": password})


def listed(account) -> list[dict[str, Any]]:
    response = account.get("/invites")
    assert response.ok, response.json
    return response.json["invites"]
