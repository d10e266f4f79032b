"""HTTP Basic authentication: email + API key, one DynamoDB read."""
from __future__ import annotations

import base64
import binascii
import re

from chalicelib.core.errors import ACCOUNT_DEACTIVATED, ErrorCode, UnauthorizedError, WrongApiKeyError
from chalicelib.core.principal import Principal
from chalicelib.models.users import ApiKey
from chalicelib.rules.secrets import hash_api_key

# Every key this server issues is 32 letters and digits (rules/secrets.new_api_key); the
# reference tells a key of another form ("malformed") from a well-formed wrong one, both
# with its generic 401 code UNAUTHORIZED.
API_KEY_FORMAT = re.compile(r"[A-Za-z0-9]{32}")


def parse_basic_auth(header: str | None) -> tuple[str, str]:
    if not header:
        raise UnauthorizedError("Missing 'Authorization' header.")
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic" or not encoded:
        raise UnauthorizedError("Sign in with HTTP basic authentication to use this endpoint.")
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise UnauthorizedError("Malformed HTTP basic authentication header.") from None
    email, sep, api_key = decoded.partition(":")
    if not sep or not email or not api_key:
        raise UnauthorizedError("Malformed HTTP basic authentication header.")
    return email, api_key


def _credentials(header: str | None) -> tuple[str, str]:
    """(email, the hash that keys the API key's item); refuses a header or key that no
    read could match."""
    email, api_key = parse_basic_auth(header)
    api_key = api_key.strip()
    if not API_KEY_FORMAT.fullmatch(api_key):
        raise WrongApiKeyError("Malformed API key: expected 32 letters and digits")
    return email, hash_api_key(api_key)


def api_key_read(header: str | None) -> tuple[type[ApiKey], str, None] | None:
    """The item `authenticate` will read for this header (to read it ahead together with
    a request's own first reads), or None if the header would be refused unread."""
    try:
        return ApiKey, _credentials(header)[1], None
    except UnauthorizedError:   # WrongApiKeyError included
        return None


def authenticate(header: str | None) -> Principal:
    email, key_hash = _credentials(header)
    record = ApiKey.get_or_none(key_hash)
    if record is None or record.email.lower() != email.strip().lower():
        raise WrongApiKeyError("That API key is not valid")
    if not record.realm_active:
        raise UnauthorizedError("This organization is deactivated", code=ErrorCode.REALM_DEACTIVATED)
    if not record.is_active:
        raise UnauthorizedError(ACCOUNT_DEACTIVATED, code=ErrorCode.USER_DEACTIVATED)
    return Principal(realm_id=record.realm_id, user_id=record.user_id, email=record.shown_email,
                     role=record.role, is_bot=record.is_bot, bot_type=record.bot_type)


def authenticate_key(api_key: str) -> tuple[Principal, str]:
    """The account of a bare API key (an integration URL's `api_key`, with no email), and
    the key's hash. Errors as the reference's webhook URLs give them: INVALID_API_KEY."""
    api_key = api_key.strip()
    if not API_KEY_FORMAT.fullmatch(api_key):
        raise UnauthorizedError("That API key is not well formed", code=ErrorCode.INVALID_API_KEY)
    key_hash = hash_api_key(api_key)
    record = ApiKey.get_or_none(key_hash)
    if record is None:
        raise UnauthorizedError("That API key is not valid", code=ErrorCode.INVALID_API_KEY)
    if not record.realm_active:
        raise UnauthorizedError("This organization is deactivated", code=ErrorCode.REALM_DEACTIVATED)
    if not record.is_active:
        raise UnauthorizedError(ACCOUNT_DEACTIVATED, code=ErrorCode.USER_DEACTIVATED)
    return Principal(realm_id=record.realm_id, user_id=record.user_id, email=record.shown_email,
                     role=record.role, is_bot=record.is_bot, bot_type=record.bot_type), key_hash
