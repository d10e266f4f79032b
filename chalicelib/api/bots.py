"""POST /bots, GET /bots (the caller's bots) and PATCH /bots/{bot_id}."""
from __future__ import annotations

import contextlib
import json
from typing import Annotated, TypedDict

from chalicelib.actions.users.bot_admin import do_update_bot
from chalicelib.actions.users.bots import CreateBotResult, check_create_bot, get_own_bots
from chalicelib.actions.users.reads.bots import BotDict
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam, Json

bp = ApiBlueprint(__name__)


class BotsResult(TypedDict):
    bots: list[BotDict]


@bp.endpoint("/bots", "POST")
def create_bot(caller: Principal, *, full_name: str, short_name: str, bot_type: int = 1,
               payload_url: str | None = None, interface_type: int = 1,
               service_name: Annotated[str | None, ApiParam(max_length=100)] = None,
               config_data: Json[dict[str, str]] | None = None) -> CreateBotResult:
    """An incoming-webhook bot (`bot_type` 2) may name the integration it serves
    (`service_name`) and give that integration's configuration (`config_data`, e.g. a
    `webhook_secret` to check the tool's signatures: docs/integrations.md)."""
    if payload_url is not None and payload_url.startswith('"'):
        # The reference sends payload_url JSON-encoded; a bare URL is accepted too.
        with contextlib.suppress(ValueError):
            payload_url = str(json.loads(payload_url))
    return check_create_bot(caller, full_name=full_name, short_name=short_name,
                            bot_type=bot_type, payload_url=payload_url,
                            interface_type=interface_type, service_name=service_name,
                            config_data=config_data)


@bp.endpoint("/bots", "GET")
def list_bots(caller: Principal) -> BotsResult:
    return {"bots": get_own_bots(caller)}


@bp.endpoint("/bots/{bot_id}", "PATCH")
def update_bot(caller: Principal, *, bot_id: int,
               full_name: Annotated[str | None, ApiParam(max_length=100)] = None,
               short_name: Annotated[str | None, ApiParam(max_length=100)] = None
               ) -> EmptyResult:
    """For the bot's owner or an administrator: its name, and from level 447 its address
    (`short_name`)."""
    return do_update_bot(caller, bot_id, full_name, short_name)
