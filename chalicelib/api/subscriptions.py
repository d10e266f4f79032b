"""The caller's subscriptions: subscribe (creating channels), unsubscribe and list."""
from __future__ import annotations

from typing import Any, Literal, TypedDict

from chalicelib.actions.channels import subscriptions as actions
from chalicelib.actions.channels.reads.channels import SubscriptionDict
from chalicelib.actions.channels.subscription_properties import (
    SubscriptionPropertiesResult,
    do_update_subscription_properties,
)
from chalicelib.actions.channels.subscriptions import SubscribeResult
from chalicelib.actions.channels.unsubscribe import UnsubscribeResult, check_unsubscribe
from chalicelib.actions.workflows.subscription_notices import subscribe_with_notices
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


class SubscriptionsResult(TypedDict):
    subscriptions: list[SubscriptionDict]


@bp.endpoint("/users/me/subscriptions", "POST")
def subscribe(caller: Principal, *, subscriptions: Json[list[dict[str, Any]]],
              principals: Json[list[int] | list[str]] | None = None, invite_only: bool = False,
              history_public_to_subscribers: bool | None = None, is_web_public: bool = False,
              announce: bool = False, authorization_errors_fatal: bool = True,
              send_new_subscription_messages: bool = True) -> SubscribeResult:
    if is_web_public:
        raise ApiError("Web-public channels are not enabled on this server.")
    return subscribe_with_notices(caller, subscriptions, principals, invite_only,
                                  history_public_to_subscribers, authorization_errors_fatal,
                                  send_new_subscription_messages)


@bp.endpoint("/users/me/subscriptions", "DELETE")
def unsubscribe(caller: Principal, *, subscriptions: Json[list[str]],
                principals: Json[list[int] | list[str]] | None = None) -> UnsubscribeResult:
    return check_unsubscribe(caller, subscriptions, principals)


@bp.endpoint("/users/me/subscriptions", "GET")
def list_subscriptions(caller: Principal, *,
                       include_subscribers: bool | Literal["partial"] = False
                       ) -> SubscriptionsResult:
    return {"subscriptions": actions.get_subscriptions(caller, include_subscribers)}


@bp.endpoint("/users/me/subscriptions/properties", "POST")
def update_subscription_properties(caller: Principal, *,
                                   subscription_data: Json[list[Any]]
                                   ) -> SubscriptionPropertiesResult:
    return do_update_subscription_properties(caller, subscription_data)
