"""The reference operations that depend on server configuration this deployment lacks:
POST /dev_fetch_api_key (development servers only) and the video call endpoints (a
BigBlueButton, Constructor Groups, Nextcloud Talk or Webex server), answered as the
reference answers when they are not set up, and a channel's email address (no email
gateway: the empty address the reference gives).
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib import config
from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.users.account import FetchApiKeyResult, add_api_key
from chalicelib.core.errors import ACCOUNT_DEACTIVATED, ApiError, ErrorCode, UnauthorizedError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.models.realms import get_realm_by_subdomain
from chalicelib.models.users import User, get_user_by_email


class ChannelEmailResult(TypedDict):
    email: str


class CallUrlResult(TypedDict):
    url: str


def do_dev_fetch_api_key(subdomain: str | None, username: str) -> FetchApiKeyResult:
    if not config.dev_fetch_api_key_enabled():
        raise ApiError("This endpoint exists only on development servers.")
    realm = get_realm_by_subdomain(subdomain) if subdomain else None
    user = get_user_by_email(realm.realm_id, username) if realm is not None else None
    if user is None or user.is_bot:
        raise UnauthorizedError("No account uses that email.", code=ErrorCode.AUTHENTICATION_FAILED)
    if not user.is_active:
        raise UnauthorizedError(ACCOUNT_DEACTIVATED, code=ErrorCode.USER_DEACTIVATED)
    return {"api_key": add_api_key(user), "email": user.delivery_email, "user_id": user.user_id}


def create_bigbluebutton_call(caller: Principal, meeting_name: str) -> CallUrlResult:
    del caller, meeting_name   # nothing to create without a BigBlueButton server
    raise ApiError("This server has no BigBlueButton set up.")


def create_unconfigured_call(caller: Principal, provider: str) -> CallUrlResult:
    """The video call providers of levels 460, 465 and 493 (Constructor Groups, Nextcloud
    Talk, Webex): each needs the server's own account with the provider, which this
    deployment has none of, so they are not among realm_available_video_chat_providers
    and their endpoints answer as the reference's do when it is not configured."""
    del caller
    raise ApiError(f"{provider} is not configured.")


def get_channel_email(caller: Principal, stream_id: int, sender_id: int | None
                      ) -> ChannelEmailResult:
    stream, _ = access_stream_by_id(caller, stream_id)
    if stream.is_archived and level_reached(448):
        # From level 448 only those who may post to the channel (no one, once archived).
        raise ApiError("You do not have permission to post in this channel.")
    if sender_id is not None and sender_id != caller.user_id:
        sender = User.get_or_none(caller.realm_id, sender_id)
        if sender is None or not sender.is_bot or sender.bot_owner_id != caller.user_id:
            raise ApiError("Invalid user ID")
    return {"email": ""}   # no email gateway is configured on this server
