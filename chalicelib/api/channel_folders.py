"""Channel folders: POST /channel_folders/create, GET and PATCH /channel_folders (their
order), PATCH /channel_folders/{channel_folder_id}."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.channels.folder_admin import (
    do_reorder_channel_folders,
    do_update_channel_folder,
)
from chalicelib.actions.channels.folders import CreateChannelFolderResult, do_create_channel_folder
from chalicelib.actions.channels.reads.folders import ChannelFolderDict, get_channel_folders
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

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


@bp.endpoint("/channel_folders", "PATCH")
def patch_channel_folders(caller: Principal, *, order: Json[list[int]]) -> EmptyResult:
    do_reorder_channel_folders(caller, order)
    return {}


@bp.endpoint("/channel_folders/{channel_folder_id}", "PATCH")
def update_channel_folder(caller: Principal, *, channel_folder_id: int,
                          name: str | None = None, description: str | None = None,
                          is_archived: bool | None = None) -> EmptyResult:
    do_update_channel_folder(caller, channel_folder_id, name, description, is_archived)
    return {}
