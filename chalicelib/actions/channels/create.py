"""POST /channels/create (feature level 417): a new channel and its first subscribers, apart
from subscribing (POST /users/me/subscriptions also creates channels, as before)."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.channels.principals import principal_users
from chalicelib.actions.channels.reads.channels import channel_already_exists
from chalicelib.actions.channels.subscriptions import (
    check_new_channels,
    create_channel,
    new_channel,
)
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import stream_id_by_name
from chalicelib.rules.names import check_stream_name


class CreateChannelResult(TypedDict):
    id: int


def do_create_channel(caller: Principal, *, name: str, subscribers: list[int],
                      description: str, invite_only: bool,
                      history_public_to_subscribers: bool | None) -> CreateChannelResult:
    name = check_stream_name(name)
    if stream_id_by_name(caller.realm_id, name) is not None:
        raise channel_already_exists(name)
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in subscribers):
        raise ApiError("subscribers is not a list of user IDs.")
    # Unlike subscribing, an empty list subscribes nobody (not even the creator).
    users = principal_users(caller, subscribers) if subscribers else []
    check_new_channels(caller, [description])
    channel = new_channel(caller, name, description, invite_only,
                          bool(history_public_to_subscribers))
    stream, _ = create_channel(caller, channel, users)
    if stream is not channel.stream:
        raise channel_already_exists(name)   # another request created it meanwhile
    return {"id": stream.stream_id}
