"""API keys: POST /users/me/api_key/regenerate, POST /bots/{bot_id}/api_key/regenerate and
GET /bots/{bot_id}/api_key (the reference server's endpoints; see docs/rate-limits.md)."""
from __future__ import annotations

from chalicelib.actions.users.api_keys import (
    RegenerateApiKeyResult,
    do_get_bot_api_key,
    do_regenerate_api_key,
    do_regenerate_bot_api_key,
)
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/me/api_key/regenerate", "POST")
def regenerate_api_key(caller: Principal) -> RegenerateApiKeyResult:
    """Replaces all of the caller's API keys by one new key, returned once. Every old key
    stops working at once: open event connections are closed and waiting long-polls end
    with the authentication error."""
    return do_regenerate_api_key(caller)


@bp.endpoint("/bots/{bot_id}/api_key/regenerate", "POST")
def regenerate_bot_api_key(caller: Principal, *, bot_id: int) -> RegenerateApiKeyResult:
    """Replaces all of a bot's API keys by one new key, returned once (for the bot's owner
    or an administrator). The old keys stop working at once, as for a user's."""
    return do_regenerate_bot_api_key(caller, bot_id)


@bp.endpoint("/bots/{bot_id}/api_key", "GET")
def get_bot_api_key(caller: Principal, *, bot_id: int) -> RegenerateApiKeyResult:
    """The bot's newest key (level 463), for its owner or an administrator: kept sealed
    beside its hash (rules/secrets.py), as a person's key is never kept."""
    return do_get_bot_api_key(caller, bot_id)
