"""Avatar URLs (Gravatar by default, as the reference server does)."""
from __future__ import annotations

import hashlib

# The reference's "medium" avatar: the larger picture of a profile page.
MEDIUM_SIZE_PX = 500


def gravatar_url(email: str, version: int, medium: bool = False) -> str:
    digest = hashlib.md5(email.strip().lower().encode("utf-8")).hexdigest()
    size = f"&s={MEDIUM_SIZE_PX}" if medium else ""
    return f"https://secure.gravatar.com/avatar/{digest}?d=identicon{size}&version={version}"
