"""POST /external/{integration}: a tool's webhook, posted as an incoming-webhook bot."""
from __future__ import annotations

from typing import Annotated

from chalicelib import config
from chalicelib.actions.messages.incoming_webhooks import Target, check_incoming_webhook
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.core.tool_requests import ToolRequest
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam, Json
from chalicelib.http.webhooks import webhook_endpoint

bp = ApiBlueprint(__name__)

EventPatterns = Annotated[Json[list[str]] | None, ApiParam(max_length=50)]


@webhook_endpoint(bp, "/external/{integration}")
def post_integration_webhook(
        caller: Principal, *, integration: str, tool_request: ToolRequest,
        stream: Annotated[str | None, ApiParam(max_length=200)] = None,
        topic: Annotated[str | None, ApiParam(max_length=config.MAX_TOPIC_LENGTH * 4)] = None,
        only_events: EventPatterns = None, exclude_events: EventPatterns = None,
) -> EmptyResult:
    """The body is the tool's own payload (JSON; the Slack-compatible webhook also takes a
    form field `payload`); the query string carries the bot's `api_key` (or use HTTP
    Basic), the channel (`stream`, a name or an id; without it, a direct message to the
    bot's owner), the `topic`, the event filters (JSON lists of shell-style patterns) and
    the integration's own URL options. docs/integrations.md lists the integrations."""
    target = Target(stream=stream, topic=topic, only_events=only_events,
                    exclude_events=exclude_events)
    return check_incoming_webhook(caller, integration, tool_request, target)
