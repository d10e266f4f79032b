"""Avatar URLs (Gravatar by default, as the reference server does)."""
from __future__ import annotations

import hashlib


def gravatar_url(email: str, version: int) -> str:
    digest = hashlib.md5(email.strip().lower().encode("utf-8")).hexdigest()
    return f"https://secure.gravatar.com/avatar/{digest}?d=identicon&version={version}"
