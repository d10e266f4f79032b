"""Avatar URLs (Gravatar by default, as the reference server does).

A person's Gravatar is made from their API address (User.email), not their real one:
the URL carries the address's MD5, so a picture made from a hidden address would let
anyone confirm a guessed address. Whoever hides their address therefore has the picture
of its stand-in for every viewer (themself too), and clients that compute Gravatar URLs
(`client_gravatar`) compute the same one from the `email` they are given."""
from __future__ import annotations

import hashlib

# The reference's "medium" avatar: the larger picture of a profile page.
MEDIUM_SIZE_PX = 500


GRAVATAR_PREFIX = "https://secure.gravatar.com/avatar/"
AVATAR_SOURCE_GRAVATAR = "G"   # the reference's avatar_source for a Gravatar picture


def for_client(url: str | None, client_gravatar: bool) -> str | None:
    """A client that computes Gravatar URLs itself (`client_gravatar`) gets null instead
    of one; other avatars keep their URL."""
    return None if client_gravatar and url and url.startswith(GRAVATAR_PREFIX) else url


def gravatar_url(email: str, version: int, medium: bool = False) -> str:
    # Gravatar's address format, not a secret: MD5 is what Gravatar looks addresses up by.
    digest = hashlib.md5(email.strip().lower().encode("utf-8"),
                         usedforsecurity=False).hexdigest()
    size = f"&s={MEDIUM_SIZE_PX}" if medium else ""
    return f"{GRAVATAR_PREFIX}{digest}?d=identicon{size}&version={version}"
