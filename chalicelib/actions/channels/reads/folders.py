"""The organization's channel folders as the API shows them (GET /channel_folders, POST
/register), and their limits; the writes are in actions/channels/folders.py and
folder_admin.py.
"""
from __future__ import annotations

from typing import NotRequired, TypedDict

from chalicelib.core.feature_levels import at_advertised_level, level_reached
from chalicelib.models.channel_folders import ChannelFolder

MAX_FOLDER_NAME_LENGTH = 60            # as the reference's ChannelFolder


MAX_FOLDER_DESCRIPTION_LENGTH = 1024


class ChannelFolderDict(TypedDict):
    id: int
    name: str
    description: str
    rendered_description: str
    creator_id: int | None
    date_created: int
    is_archived: bool
    order: NotRequired[int]   # level 414: sent once the advertised level reaches it


def channel_folder_dict(folder: ChannelFolder, order: int) -> ChannelFolderDict:
    """`order`: its place among the organization's folders (0 first)."""
    data: ChannelFolderDict = {
        "id": folder.folder_id,
        "name": folder.name,
        "description": folder.description,
        "rendered_description": folder.rendered_description,
        "creator_id": folder.creator_id,
        "date_created": folder.date_created,
        "is_archived": folder.is_archived,
        "order": order,
    }
    return at_advertised_level("channel_folder", data)


def realm_folders(realm_id: int) -> list[ChannelFolder]:
    """The organization's folders in their order (one Query: a realm has few folders)."""
    return sorted(ChannelFolder.query(realm_id),
                  key=lambda f: (int(f.order or 0), f.folder_id))


def get_channel_folders(realm_id: int, include_archived: bool) -> list[ChannelFolderDict]:
    """In their order (by id below level 414, where the order did not exist)."""
    folders = realm_folders(realm_id)
    if not level_reached(414):
        folders.sort(key=lambda f: f.folder_id)
    return [channel_folder_dict(f, n) for n, f in enumerate(folders)
            if include_archived or not f.is_archived]


def channel_folders_state(realm_id: int) -> list[ChannelFolderDict]:
    return get_channel_folders(realm_id, include_archived=True)
