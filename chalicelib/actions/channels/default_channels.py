"""The organization's default channels (new users join them at sign-up): POST and
DELETE /default_streams, which change them through the channel update that
`PATCH /streams/{id}` with `is_default_stream` uses (same checks, same transaction and
`default_streams` event)."""
from __future__ import annotations

from chalicelib.actions.channels.admin import do_update_stream
from chalicelib.actions.channels.reads.permissions import realm_default_stream_ids
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, UNKNOWN_CHANNEL_ID, ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.models.channels import get_stream
from chalicelib.models.realms import get_realm


def do_set_default_channel(caller: Principal, stream_id: int, is_default: bool
                           ) -> EmptyResult:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    stream = get_stream(caller.realm_id, stream_id) if stream_id > 0 else None
    if stream is None:
        raise ApiError(UNKNOWN_CHANNEL_ID)
    if is_default and stream.invite_only:
        raise ApiError("A private channel cannot become a default channel.")
    if is_default == (stream_id in realm_default_stream_ids(get_realm(caller.realm_id))):
        return {}   # already so: nothing to write, as the reference answers
    return do_update_stream(caller, stream_id, {"is_default_stream": is_default})
