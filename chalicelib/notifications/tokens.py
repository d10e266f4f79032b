"""Signed unsubscribe tokens: who and which setting, verifiable without a stored item."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass

from chalicelib import config

EMAIL_TYPES = {"missed_messages": "enable_offline_email_notifications"}


@dataclass(frozen=True)
class Unsubscribe:
    realm_id: int
    user_id: int
    email_type: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(payload: str) -> str:
    digest = hmac.new(config.notification_signing_key(), payload.encode(), hashlib.sha256)
    return _b64(digest.digest()[:20])


def make_token(realm_id: int, user_id: int, email_type: str = "missed_messages") -> str:
    payload = _b64(json.dumps([realm_id, user_id, email_type]).encode())
    return f"{payload}.{_signature(payload)}"


def read_token(token: str) -> Unsubscribe | None:
    """The token's contents if its signature is ours; None otherwise."""
    payload, _, signature = token.partition(".")
    if not payload or not hmac.compare_digest(signature, _signature(payload)):
        return None
    try:
        realm_id, user_id, email_type = json.loads(_unb64(payload))
    except (ValueError, TypeError):
        return None
    if email_type not in EMAIL_TYPES:
        return None
    return Unsubscribe(int(realm_id), int(user_id), str(email_type))
