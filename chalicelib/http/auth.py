"""HTTP Basic authentication: email + API key, one DynamoDB read."""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from chalicelib.http.errors import UnauthorizedError
from chalicelib.lib.secrets import hash_api_key
from chalicelib.models.users import ApiKey

ROLE_OWNER = 100
ROLE_ADMINISTRATOR = 200
ROLE_MODERATOR = 300
ROLE_MEMBER = 400
ROLE_GUEST = 600

# Every key this server issues is 32 letters and digits (lib/secrets.new_api_key); the
# reference tells a key of another form ("malformed") from a well-formed wrong one, both
# with its generic 401 code UNAUTHORIZED.
API_KEY_FORMAT = re.compile(r"[A-Za-z0-9]{32}")


@dataclass(frozen=True)
class Principal:
    """Who is calling: what the API-key record says, without another read."""

    realm_id: int
    user_id: int
    email: str
    role: int
    is_bot: bool

    @property
    def is_admin(self) -> bool:
        return self.role <= ROLE_ADMINISTRATOR

    @property
    def is_owner(self) -> bool:
        return self.role == ROLE_OWNER

    @property
    def is_moderator_or_above(self) -> bool:
        return self.role <= ROLE_MODERATOR

    @property
    def is_guest(self) -> bool:
        return self.role == ROLE_GUEST


def parse_basic_auth(header: str | None) -> tuple[str, str]:
    if not header:
        raise UnauthorizedError("Missing 'Authorization' header.")
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic" or not encoded:
        raise UnauthorizedError("This endpoint requires HTTP basic authentication.")
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise UnauthorizedError("Malformed HTTP basic authentication header.") from None
    email, sep, api_key = decoded.partition(":")
    if not sep or not email or not api_key:
        raise UnauthorizedError("Malformed HTTP basic authentication header.")
    return email, api_key


def authenticate(header: str | None) -> Principal:
    email, api_key = parse_basic_auth(header)
    api_key = api_key.strip()
    if not API_KEY_FORMAT.fullmatch(api_key):
        raise UnauthorizedError("Malformed API key: expected 32 letters and digits")
    record = ApiKey.get_or_none(hash_api_key(api_key))
    if record is None or record.email.lower() != email.strip().lower():
        raise UnauthorizedError("Invalid API key")
    if not record.realm_active:
        raise UnauthorizedError("This organization is deactivated", code="REALM_DEACTIVATED")
    if not record.is_active:
        raise UnauthorizedError("Account is deactivated", code="USER_DEACTIVATED")
    return Principal(realm_id=record.realm_id, user_id=record.user_id, email=record.email,
                     role=record.role, is_bot=record.is_bot)
