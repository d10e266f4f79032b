"""API keys and tokens: generation and the hashes that are stored instead of them."""
from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
import string

from nacl.exceptions import CryptoError
from nacl.secret import SecretBox

_ALPHANUMERIC = string.ascii_letters + string.digits


def random_alphanumeric(length: int = 32) -> str:
    return "".join(secrets.choice(_ALPHANUMERIC) for _ in range(length))


def new_api_key() -> str:
    return random_alphanumeric(32)


def hash_api_key(api_key: str) -> str:
    # API keys are 190 bits of randomness, so a fast hash is enough and lets
    # authentication be a single GetItem on the hash.
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


# A bot's API key is also kept sealed (GET /bots/{id}/api_key shows it to its owner and
# administrators, as the reference does): a secret box under a key that lives outside
# the tables (config.bot_key_sealing_key), so the tables alone reveal no key.
def seal_secret(value: str, key: bytes) -> str:
    return base64.b64encode(SecretBox(key).encrypt(value.encode("utf-8"))).decode("ascii")


def open_secret(sealed: str, key: bytes) -> str | None:
    """The sealed value, or None if it was sealed under another key (or is damaged)."""
    try:
        return SecretBox(key).decrypt(base64.b64decode(sealed, validate=True)).decode("utf-8")
    except (CryptoError, binascii.Error, ValueError):
        return None
