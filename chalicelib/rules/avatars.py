"""Avatar URLs: Gravatar, or a picture the server generates (rules/identicon.py) for
people created while their organization's default_avatar_source is "J".

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
AVATAR_SOURCE_JDENTICON = "J"  # a picture the server generates (level 466)
AVATAR_SOURCE_UPLOADED = "U"   # how a client below level 466 is told of a generated one
DEFAULT_AVATAR_SOURCES = (AVATAR_SOURCE_GRAVATAR, AVATAR_SOURCE_JDENTICON)
# Where the server draws a generated picture (api/avatars.py): under /user_avatars/,
# as the reference serves its generated and uploaded pictures, without signing in.
GENERATED_PREFIX = "/user_avatars/{realm_id}/generated/"


def for_client(url: str | None, client_gravatar: bool) -> str | None:
    """A client that computes Gravatar URLs itself (`client_gravatar`) gets null instead
    of one; other avatars keep their URL."""
    return None if client_gravatar and url and url.startswith(GRAVATAR_PREFIX) else url


def generated_avatar_seed(realm_uuid: str, user_id: int) -> str:
    """The digest a generated picture is drawn from: the organization's UUID and the
    user's id, as the reference keys its Jdenticons (so one person in two organizations
    gets two pictures), hashed so that the URL says nothing of either."""
    return hashlib.sha256(f"{realm_uuid}:{user_id}".encode()).hexdigest()[:32]


def generated_avatar_url(realm_id: int, seed: str, version: int, medium: bool = False) -> str:
    name = f"{seed}-medium.svg" if medium else f"{seed}.svg"
    return f"{GENERATED_PREFIX.format(realm_id=realm_id)}{name}?version={version}"


def avatar_url_of(realm_id: int, email: str, source: str | None, seed: str | None,
                  version: int, medium: bool = False) -> str:
    """A person's picture: the generated one if they have it, else their Gravatar."""
    if source == AVATAR_SOURCE_JDENTICON and seed:
        return generated_avatar_url(realm_id, seed, version, medium)
    return gravatar_url(email, version, medium)


def gravatar_url(email: str, version: int, medium: bool = False) -> str:
    # Gravatar's address format, not a secret: MD5 is what Gravatar looks addresses up by.
    digest = hashlib.md5(email.strip().lower().encode("utf-8"),
                         usedforsecurity=False).hexdigest()
    size = f"&s={MEDIUM_SIZE_PX}" if medium else ""
    return f"{GRAVATAR_PREFIX}{digest}?d=identicon{size}&version={version}"
