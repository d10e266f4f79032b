"""Typing notifications: POST /typing and POST /messages/{message_id}/typing."""
from __future__ import annotations

from typing import Annotated, Literal

from chalicelib.actions.messages.typing import check_send_edit_typing, check_send_typing
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam, Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/typing", "POST")
def set_typing_status(caller: Principal, *, op: Literal["start", "stop"],
                      kind: Annotated[Literal["direct", "stream", "channel"],
                                      ApiParam(alias="type")] = "direct",
                      to: Json[list[int]] | None = None, stream_id: int | None = None,
                      topic: str | None = None) -> EmptyResult:
    check_send_typing(caller, kind=kind, op=op, to=to, stream_id=stream_id, topic=topic)
    return {}


@bp.endpoint("/messages/{message_id}/typing", "POST")
def set_edit_typing_status(caller: Principal, *, message_id: int,
                           op: Literal["start", "stop"]) -> EmptyResult:
    check_send_edit_typing(caller, message_id, op)
    return {}
