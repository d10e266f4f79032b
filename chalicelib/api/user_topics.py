"""Topic visibility: POST /user_topics and the deprecated muted-topics endpoint."""
from __future__ import annotations

from typing import Literal

from chalicelib.actions.channels.user_topics import (
    do_mute_topic,
    do_set_visibility_policy,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/user_topics", "POST")
def set_visibility_policy(caller: Principal, *, stream_id: int, topic: str,
                          visibility_policy: int) -> EmptyResult:
    return do_set_visibility_policy(caller, stream_id, topic, visibility_policy)


@bp.endpoint("/users/me/subscriptions/muted_topics", "PATCH")
def mute_topic(caller: Principal, *, topic: str, op: Literal["add", "remove"],
               stream_id: int | None = None, stream: str | None = None) -> EmptyResult:
    return do_mute_topic(caller, stream_id, stream, topic, op)
