"""Channel folders: POST /channel_folders/create and GET /channel_folders."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.channels.folders import (
    ChannelFolderDict,
    CreateChannelFolderResult,
    do_create_channel_folder,
    get_channel_folders,
)
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


class ChannelFoldersResult(TypedDict):
    channel_folders: list[ChannelFolderDict]


@bp.endpoint("/channel_folders/create", "POST")
def create_channel_folder(caller: Principal, *, name: str,
                          description: str = "") -> CreateChannelFolderResult:
    return do_create_channel_folder(caller, name, description)


@bp.endpoint("/channel_folders", "GET")
def list_channel_folders(caller: Principal, *, include_archived: bool = False
                         ) -> ChannelFoldersResult:
    return {"channel_folders": get_channel_folders(caller.realm_id, include_archived)}
