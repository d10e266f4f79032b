"""The video call endpoints of 12.0 (levels 460, 465, 493): POST
/calls/constructorgroups/create, /calls/nextcloud_talk/create and /calls/webex/create,
answered as by a reference server where the provider is not configured."""
from __future__ import annotations

from typing import Annotated

from chalicelib.actions.workflows.unconfigured import CallUrlResult, create_unconfigured_call
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam

bp = ApiBlueprint(__name__)


@bp.endpoint("/calls/constructorgroups/create", "POST")
def create_constructor_groups_video_call(caller: Principal) -> CallUrlResult:
    return create_unconfigured_call(caller, "Constructor Groups")


@bp.endpoint("/calls/nextcloud_talk/create", "POST")
def create_nextcloud_talk_video_call(
        caller: Principal, *, room_name: Annotated[str, ApiParam(max_length=200)]
        ) -> CallUrlResult:
    del room_name
    return create_unconfigured_call(caller, "Nextcloud Talk")


@bp.endpoint("/calls/webex/create", "POST")
def create_webex_video_call(caller: Principal) -> CallUrlResult:
    return create_unconfigured_call(caller, "Webex")
