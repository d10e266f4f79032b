"""POST /users/me/subscriptions/properties (§4.6): per-user channel settings."""
from __future__ import annotations

import re
from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import Audience, add_event, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import Stream, Subscription, user_key

BOOLEAN_PROPERTIES = ("is_muted", "in_home_view", "pin_to_top", "desktop_notifications",
                      "audible_notifications", "push_notifications", "email_notifications",
                      "wildcard_mentions_notify")
COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
CHANGES_PER_TRANSACTION = 30   # each change is one update and up to two events


def check_property(index: int, change: Any) -> tuple[int, str, Any]:
    where = f"subscription_data[{index}]"
    if not isinstance(change, dict):
        raise ApiError(f"{where} must be a JSON object")
    for key in ("stream_id", "property", "value"):
        if key not in change:
            raise ApiError(f"{where} is missing '{key}'")
    stream_id, name, value = change["stream_id"], change["property"], change["value"]
    if not isinstance(stream_id, int) or isinstance(stream_id, bool):
        raise ApiError(f"{where}['stream_id'] must be an integer")
    if name == "color":
        if not isinstance(value, str) or not COLOR.match(value):
            raise ApiError(f"{where}['value'] is not a valid hex color (like #c2c2c2)")
    elif name in BOOLEAN_PROPERTIES:
        if not isinstance(value, bool):
            raise ApiError(f"{where}['value'] must be true or false")
    else:
        raise ApiError(f"{name} is not a subscription property")
    return stream_id, name, value


class SubscriptionPropertiesResult(TypedDict):
    """The envelope alone: the echo of the request (`subscription_data`) went at level 111."""


class SubscriptionUpdateEvent(TypedDict):
    type: Literal["subscription"]
    op: Literal["update"]
    stream_id: int
    property: str
    value: bool | str


def do_update_subscription_properties(caller: Principal, changes: list[Any]
                                      ) -> SubscriptionPropertiesResult:
    checked = [check_property(i, change) for i, change in enumerate(changes)]
    if not checked:
        raise ApiError("Nothing to do: subscription_data is empty.")
    stream_ids = list(dict.fromkeys(c[0] for c in checked))   # in request order, once each
    streams = {s.stream_id for s in Stream.batch_get([(caller.realm_id, i) for i in stream_ids])}
    keys = [(user_key(caller.realm_id, caller.user_id), s) for s in stream_ids]
    subscriptions = {s.stream_id: s for s in Subscription.batch_get(keys) if s.active}
    for stream_id in stream_ids:
        if stream_id not in streams:
            raise ApiError(f"No channel with ID {stream_id} exists, or you cannot see it")
        if stream_id not in subscriptions:
            raise ApiError(f"You are not subscribed to channel {stream_id}")
    for start in range(0, len(checked), CHANGES_PER_TRANSACTION):
        _write(caller, checked[start:start + CHANGES_PER_TRANSACTION])
    return {}


def _stored(name: str, value: Any) -> tuple[Any, Any]:
    """The attribute and value a change writes: in_home_view is the inverse of is_muted."""
    if name == "in_home_view":
        return Subscription.is_muted, not value
    return getattr(Subscription, name), value


def _events(name: str, value: Any) -> list[tuple[str, Any]]:
    """Muting is announced in both of its names, as the reference does."""
    if name in ("is_muted", "in_home_view"):
        muted = value if name == "is_muted" else not value
        return [("in_home_view", not muted), ("is_muted", muted)]
    return [(name, value)]


def _write(caller: Principal, changes: list[tuple[int, str, Any]]) -> None:
    audience: Audience = to_users([caller.user_id])
    by_stream: dict[int, dict[str, Any]] = {}
    for stream_id, name, value in changes:   # one update per item; the last value wins
        attribute, stored = _stored(name, value)
        by_stream.setdefault(stream_id, {})[attribute.attr_name] = (attribute, stored)
    try:
        with transaction() as tx:
            for stream_id, writes in by_stream.items():
                tx.update(Subscription(user_key(caller.realm_id, caller.user_id), stream_id),
                          actions=[attribute.set(value) for attribute, value in writes.values()],
                          condition=Subscription.active == True)
            for stream_id, name, value in changes:
                for event_property, event_value in _events(name, value):
                    event: SubscriptionUpdateEvent = {
                        "type": "subscription", "op": "update", "stream_id": stream_id,
                        "property": event_property, "value": event_value}
                    add_event(tx, caller.realm_id, event, audience)
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("Not subscribed to one of these channels any more; "
                           "reload the subscriptions and try again.") from None
        raise
