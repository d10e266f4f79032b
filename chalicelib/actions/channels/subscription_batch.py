"""PATCH /users/me/subscriptions: subscribing and unsubscribing in one request, as the
two operations that POST and DELETE /users/me/subscriptions are."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.subscriptions import check_subscribe
from chalicelib.actions.channels.unsubscribe import check_unsubscribe
from chalicelib.core.errors import ApiError, unknown_channel_name
from chalicelib.core.principal import Principal
from chalicelib.models.channels import stream_id_by_name


class UpdateSubscriptionsResult(TypedDict):
    subscribed: dict[str, list[str]]
    already_subscribed: dict[str, list[str]]
    removed: list[str]
    not_removed: list[str]


def update_subscriptions(caller: Principal, add: list[dict[str, Any]], delete: list[str]
                         ) -> UpdateSubscriptionsResult:
    if not add and not delete:
        raise ApiError('Nothing was asked for: send "add", "delete" or both.')
    result: UpdateSubscriptionsResult = {"subscribed": {}, "already_subscribed": {},
                                         "removed": [], "not_removed": []}
    for name in dict.fromkeys(n.strip() for n in delete):
        # Checked before anything is written, so a bad name leaves no half-done request.
        stream_id = stream_id_by_name(caller.realm_id, name)
        if stream_id is None:
            raise unknown_channel_name(name)
        access_stream_by_id(caller, stream_id, require_content_access=False)
    if add:
        added = check_subscribe(caller, add, None, False, None, True)
        result["subscribed"] = added["subscribed"]
        result["already_subscribed"] = added["already_subscribed"]
    if delete:
        removed = check_unsubscribe(caller, delete, None)
        result["removed"], result["not_removed"] = removed["removed"], removed["not_removed"]
    return result
