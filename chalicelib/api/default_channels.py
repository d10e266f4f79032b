"""Default channels: POST /default_streams, DELETE /default_streams."""
from __future__ import annotations

from chalicelib.actions.default_channels import do_set_default_channel
from chalicelib.http.auth import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.response import EmptyResult

bp = ApiBlueprint(__name__)


@bp.endpoint("/default_streams", "POST")
def add_default_stream(caller: Principal, *, stream_id: int) -> EmptyResult:
    return do_set_default_channel(caller, stream_id, True)


@bp.endpoint("/default_streams", "DELETE")
def remove_default_stream(caller: Principal, *, stream_id: int) -> EmptyResult:
    return do_set_default_channel(caller, stream_id, False)
