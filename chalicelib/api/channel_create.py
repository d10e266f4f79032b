"""POST /channels/create (feature level 417)."""
from __future__ import annotations

from chalicelib.actions.channels.create import CreateChannelResult, do_create_channel
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/channels/create", "POST")
def create_channel(caller: Principal, *, name: str, subscribers: Json[list[int]],
                   description: str = "", invite_only: Json[bool] = False,
                   history_public_to_subscribers: Json[bool] | None = None,
                   ) -> CreateChannelResult:
    return do_create_channel(caller, name=name, subscribers=subscribers,
                             description=description, invite_only=invite_only,
                             history_public_to_subscribers=history_public_to_subscribers)
