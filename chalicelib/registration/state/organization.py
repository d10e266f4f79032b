"""POST /register's organization-wide lists: custom emoji, code playgrounds, custom
profile fields, user groups and channel folders."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.actions.channels.reads.folders import ChannelFolderDict
from chalicelib.actions.channels.reads.folders import channel_folders_state as realm_folders
from chalicelib.actions.groups.reads.user_groups import UserGroupDict, user_groups_state
from chalicelib.actions.realm.reads.emoji import RealmEmojiDict
from chalicelib.actions.realm.reads.emoji import realm_emoji_state as realm_emoji
from chalicelib.actions.realm.reads.playgrounds import PlaygroundDict
from chalicelib.actions.realm.reads.playgrounds import realm_playgrounds_state as realm_playgrounds
from chalicelib.actions.users.reads.profile_fields import profile_fields_state
from chalicelib.registration.state.context import StateContext


class RealmEmojiState(TypedDict, total=False):
    """Present when `realm_emoji` is among the fetch types: custom emoji by id."""

    realm_emoji: dict[str, RealmEmojiDict]


class RealmPlaygroundsState(TypedDict, total=False):
    """Present when `realm_playgrounds` is among the fetch types."""

    realm_playgrounds: list[PlaygroundDict]


class CustomProfileFieldsState(TypedDict, total=False):
    """Present when `custom_profile_fields` is among the fetch types."""

    custom_profile_fields: list[dict[str, Any]]
    custom_profile_field_types: dict[str, dict[str, Any]]


class RealmUserGroupsState(TypedDict, total=False):
    """Present when `realm_user_groups` is among the fetch types."""

    realm_user_groups: list[UserGroupDict]


class ChannelFoldersState(TypedDict, total=False):
    """Present when `channel_folder` (or `channel_folders`) is among the fetch types."""

    channel_folders: list[ChannelFolderDict]


def realm_emoji_state(ctx: StateContext) -> RealmEmojiState:
    return {"realm_emoji": realm_emoji(ctx.caller.realm_id)}


def realm_playgrounds_state(ctx: StateContext) -> RealmPlaygroundsState:
    return {"realm_playgrounds": realm_playgrounds(ctx.caller.realm_id)}


def custom_profile_fields_state(ctx: StateContext) -> CustomProfileFieldsState:
    fields = profile_fields_state(ctx.caller.realm_id)
    return {"custom_profile_fields": fields["custom_profile_fields"],
            "custom_profile_field_types": fields["custom_profile_field_types"]}


def realm_user_groups_state(ctx: StateContext) -> RealmUserGroupsState:
    """One Query of the groups; the system groups' members from the realm's users."""
    return {"realm_user_groups": user_groups_state(
        ctx.caller.realm_id, ctx.capable("include_deactivated_groups"), ctx.users)}


def channel_folders_state(ctx: StateContext) -> ChannelFoldersState:
    return {"channel_folders": realm_folders(ctx.caller.realm_id)}
