"""API keys and tokens: generation and the hashes that are stored instead of them."""
from __future__ import annotations

import hashlib
import secrets
import string

_ALPHANUMERIC = string.ascii_letters + string.digits


def random_alphanumeric(length: int = 32) -> str:
    return "".join(secrets.choice(_ALPHANUMERIC) for _ in range(length))


def new_api_key() -> str:
    return random_alphanumeric(32)


def hash_api_key(api_key: str) -> str:
    # API keys are 190 bits of randomness, so a fast hash is enough and lets
    # authentication be a single GetItem on the hash.
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()
