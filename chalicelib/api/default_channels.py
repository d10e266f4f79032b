"""Default channels: POST /default_streams, DELETE /default_streams."""
from __future__ import annotations

from chalicelib.actions.channels.default_channels import do_set_default_channel
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/default_streams", "POST")
def add_default_stream(caller: Principal, *, stream_id: int) -> EmptyResult:
    return do_set_default_channel(caller, stream_id, True)


@bp.endpoint("/default_streams", "DELETE")
def remove_default_stream(caller: Principal, *, stream_id: int) -> EmptyResult:
    return do_set_default_channel(caller, stream_id, False)
