"""End-to-end encrypted mobile push (levels 468 on): the keys and the two ciphers.

- A device gives a push key: one byte naming the cipher (0x31: libsodium's secretbox,
  XSalsa20-Poly1305) and its 32-byte key. Each notification is encrypted for it
  (`seal_notification`: the 24-byte nonce, then the box), so nobody between the server
  and the phone (SNS, FCM, APNs) reads it.
- A device's push token (from FCM or APNs) comes sealed (libsodium's sealed box, X25519)
  to a public key of this server's, with the token kind, a timestamp and, on iOS, the
  app's id (`open_registration`). The reference has its apps seal it to its own push
  service; an app built for this server seals it to one of `public_keys()`, which derive
  from config.push_registration_secrets.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from dataclasses import dataclass
from typing import Literal

from nacl.exceptions import CryptoError
from nacl.public import PrivateKey, SealedBox
from nacl.secret import SecretBox

from chalicelib import config

TokenKind = Literal["fcm", "apns"]
SECRETBOX = 0x31
PUSH_KEY_BYTES = 1 + SecretBox.KEY_SIZE
MAX_PUSH_KEY_ID = 2**32 - 1
TOKEN_ID_BYTES = 8
# A sealed registration older than this is refused (its timestamp says when the app
# sealed it), so a registration seen in transit cannot be replayed later.
REGISTRATION_LIFETIME_SECONDS = 24 * 3600
MAX_TOKEN_LENGTH = 4096
_APP_ID = re.compile(r"[A-Za-z0-9.-]{1,200}")
_KEY_INFO = b"teamchat push registration key\x00"


class PushRegistrationError(Exception):
    """A token registration this server cannot take; `code` is the device's
    push_registration_error_code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


INVALID_BOUNCER_PUBLIC_KEY = "INVALID_BOUNCER_PUBLIC_KEY"
INVALID_ENCRYPTED_PUSH_REGISTRATION = "BAD_REQUEST"
REQUEST_EXPIRED = "REQUEST_EXPIRED"


@dataclass(frozen=True)
class Registration:
    """What a device's sealed registration says."""

    token: str
    token_kind: TokenKind
    ios_app_id: str | None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64decode_strict(text: str) -> bytes | None:
    """Standard Base64 (RFC 4648), or None if the text is not."""
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return None


def private_keys() -> dict[str, PrivateKey]:
    """This server's registration keys by their Base64 public key."""
    keys = {}
    for secret in config.push_registration_secrets():
        key = PrivateKey(hashlib.sha256(_KEY_INFO + secret.encode()).digest())
        keys[_b64(bytes(key.public_key))] = key
    return keys


def public_keys() -> list[str]:
    """The Base64 public keys an app built for this server seals its token to."""
    return list(private_keys())


def check_push_key(text: str) -> bytes | None:
    """The push key's bytes if it is one this server can encrypt with, else None."""
    key = b64decode_strict(text)
    if key is None or len(key) != PUSH_KEY_BYTES or key[0] != SECRETBOX:
        return None
    return key


def token_id_of(token: str) -> str:
    """The id the app gives for a token: the first 8 bytes of its SHA-256, Base64."""
    return _b64(hashlib.sha256(token.encode()).digest()[:TOKEN_ID_BYTES])


def open_registration(bouncer_public_key: str, sealed: str, token_kind: str,
                      token_id: str, now: float | None = None) -> Registration:
    """The registration's token, checked against what the request says of it."""
    key = private_keys().get(bouncer_public_key)
    if key is None:
        raise PushRegistrationError(INVALID_BOUNCER_PUBLIC_KEY)
    box = b64decode_strict(sealed)
    try:
        data = json.loads(SealedBox(key).decrypt(box or b""))
    except (CryptoError, ValueError, TypeError):
        raise PushRegistrationError(INVALID_ENCRYPTED_PUSH_REGISTRATION) from None
    if not isinstance(data, dict):
        raise PushRegistrationError(INVALID_ENCRYPTED_PUSH_REGISTRATION)
    token, kind, app_id, stamp = (data.get("token"), data.get("token_kind"),
                                  data.get("ios_app_id"), data.get("timestamp"))
    valid = (isinstance(token, str) and 0 < len(token) <= MAX_TOKEN_LENGTH
             and kind == token_kind and kind in ("fcm", "apns")
             and isinstance(stamp, int) and not isinstance(stamp, bool)
             and token_id_of(token) == token_id)
    if valid and kind == "apns":
        valid = isinstance(app_id, str) and _APP_ID.fullmatch(app_id) is not None and \
            re.fullmatch(r"[0-9a-fA-F]+", str(token)) is not None
    elif valid:
        valid = app_id is None
    if not valid:
        raise PushRegistrationError(INVALID_ENCRYPTED_PUSH_REGISTRATION)
    assert isinstance(stamp, int)  # nosec B101 # type narrowing (checked above)
    if abs((time.time() if now is None else now) - stamp) > REGISTRATION_LIFETIME_SECONDS:
        raise PushRegistrationError(REQUEST_EXPIRED)
    return Registration(str(token), "apns" if kind == "apns" else "fcm",
                        None if app_id is None else str(app_id))


def seal_notification(push_key: bytes, payload: dict[str, object]) -> str:
    """The payload encrypted for the device: Base64 of the nonce, then the box."""
    if len(push_key) != PUSH_KEY_BYTES or push_key[0] != SECRETBOX:
        raise ValueError("not a secretbox push key")
    box = SecretBox(push_key[1:]).encrypt(json.dumps(payload).encode())
    return _b64(bytes(box))   # PyNaCl's result is the nonce followed by the ciphertext
