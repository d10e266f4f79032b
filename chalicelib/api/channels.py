"""Channels: list, read one, and find one's id by name."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.channels.reads.channels import (
    StreamDict,
    access_stream_by_id,
    access_stream_by_name,
    stream_api_dict,
)
from chalicelib.actions.channels.subscriptions import get_streams
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


class StreamsResult(TypedDict):
    streams: list[StreamDict]


class StreamResult(TypedDict):
    stream: StreamDict


class StreamIdResult(TypedDict):
    stream_id: int


@bp.endpoint("/streams", "GET")
def list_streams(caller: Principal, *, include_public: bool = True,
                 include_subscribed: bool = True, include_all_active: bool = False,
                 include_default: bool = False, include_web_public: bool = False,
                 exclude_archived: bool = True) -> StreamsResult:
    return {"streams": get_streams(caller, include_public, include_subscribed,
                                   include_all_active, include_default, exclude_archived,
                                   include_web_public)}


@bp.endpoint("/streams/{stream_id}", "GET")
def get_stream_by_id(caller: Principal, *, stream_id: int) -> StreamResult:
    stream, _ = access_stream_by_id(caller, stream_id, require_content_access=False)
    return {"stream": stream_api_dict(stream)}


@bp.endpoint("/get_stream_id", "GET")
def get_stream_id(caller: Principal, *, stream: str) -> StreamIdResult:
    try:
        found, _ = access_stream_by_name(caller, stream, require_content_access=False)
    except ApiError:
        # Here the reference answers BAD_REQUEST, not STREAM_DOES_NOT_EXIST.
        raise ApiError(f"No channel is named '{stream}'") from None
    return {"stream_id": found.stream_id}
