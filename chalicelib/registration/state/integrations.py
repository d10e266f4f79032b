"""POST /register's `realm_incoming_webhook_bots`: the integrations this server offers,
with their event types and the options their URLs and bots take (the same for every
caller; static, so no event updates it)."""
from __future__ import annotations

from typing import NotRequired, TypedDict

from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.integrations import INTEGRATIONS
from chalicelib.integrations.base import Integration, Option
from chalicelib.registration.state.context import StateContext


class WebhookOptionDict(TypedDict):
    key: str
    label: str
    validator: NotRequired[str]    # of URL options: below level 485 only
    input_type: NotRequired[str]   # of URL options: level 485's name of `validator`


class IncomingWebhookBotDict(TypedDict):
    name: str
    display_name: str
    all_event_types: list[str] | None
    config_options: list[WebhookOptionDict]
    # Level 403; withheld below it (feature_levels.at_advertised_level).
    url_options: NotRequired[list[WebhookOptionDict]]


class IncomingWebhookBotsState(TypedDict, total=False):
    """Present when `realm_incoming_webhook_bots` is among the fetch types."""

    realm_incoming_webhook_bots: list[IncomingWebhookBotDict]


def _options(options: tuple[Option, ...]) -> list[WebhookOptionDict]:
    return [{"key": o.key, "label": o.label, "validator": o.validator} for o in options]


def _url_options(options: tuple[Option, ...]) -> list[WebhookOptionDict]:
    """URL options: from level 485 the input type is `input_type` (configuration options
    keep `validator`)."""
    shown: list[WebhookOptionDict] = []
    for option in options:
        item: WebhookOptionDict = {"key": option.key, "label": option.label,
                                   "validator": option.validator,
                                   "input_type": option.validator}
        shown.append(at_advertised_level("incoming_webhook_option", item))
    return shown


def integration_dict(integration: Integration) -> IncomingWebhookBotDict:
    item: IncomingWebhookBotDict = {
        "name": integration.name, "display_name": integration.display_name,
        "all_event_types": None if integration.all_event_types is None
        else list(integration.all_event_types),
        "config_options": _options(integration.config_options),
        "url_options": _url_options(integration.url_options)}
    return at_advertised_level("incoming_webhook_bot", item)


def incoming_webhook_bots_state(ctx: StateContext) -> IncomingWebhookBotsState:
    return {"realm_incoming_webhook_bots": [integration_dict(INTEGRATIONS[name])
                                            for name in sorted(INTEGRATIONS)]}
