"""teamchat's Chalice app: wires blueprints, middleware and event handlers; no logic here."""
from chalice.app import Chalice, Rate

from chalicelib import local_dev

# Under `chalice local` only: point at the local stack's backend before models load.
local_dev.configure()

from chalicelib import apidocs, config
from chalicelib.api import (
    accounts,
    alert_words,
    bots,
    channel_admin,
    channel_folders,
    channels,
    deactivation,
    drafts,
    events,
    invites,
    message_flags,
    messages,
    playgrounds,
    presence,
    profile_fields,
    reactions,
    realm,
    realm_emoji,
    saved_snippets,
    server,
    settings,
    subscriptions,
    topics,
    typing_notifications,
    uploads,
    user_groups,
    user_status,
    user_topics,
    users,
)
from chalicelib.events import websocket
from chalicelib.events.fanout import OUTBOX_STREAM_ARN_PLACEHOLDER, handle_stream_batch
from chalicelib.events.keepalive import run_keepalive
from chalicelib.events.webhook_worker import handle_webhook_batch
from chalicelib.http.middleware import register_middleware

app = Chalice(app_name="teamchat")
app.experimental_feature_flags.update(["WEBSOCKETS"])
app.api.binary_types = ["application/octet-stream", "multipart/form-data",
                        "image/*", "application/pdf"]

for area in (
    server,
    users,
    channels,
    subscriptions,
    messages,
    message_flags,
    reactions,
    events,
    typing_notifications,
    alert_words,
    settings,
    realm,
    topics,
    uploads,
    user_topics,
    deactivation,
    drafts,
    accounts,
    bots,
    user_status,
    presence,
    realm_emoji,
    profile_fields,
    saved_snippets,
    playgrounds,
    user_groups,
    channel_admin,
    channel_folders,
    invites,
):
    app.register_blueprint(area.bp, url_prefix="/api/v1")
app.register_blueprint(accounts.confirmations)
app.register_blueprint(invites.links)
# The generated OpenAPI document and its docs page: public, outside the API's endpoints.
app.register_blueprint(apidocs.bp)

register_middleware(app)


@app.on_dynamodb_record(stream_arn=OUTBOX_STREAM_ARN_PLACEHOLDER, name="fanout",
                        batch_size=100, starting_position="LATEST")
def fanout(event):  # type: ignore[no-untyped-def]
    return handle_stream_batch(event.to_dict(), event.context)


@app.on_sqs_message(queue=config.webhook_queue_name(), name="outgoing_webhooks", batch_size=5)
def outgoing_webhooks(event):  # type: ignore[no-untyped-def]
    return handle_webhook_batch(event.to_dict(), event.context)


# The push channel (chalicelib/events/websocket.py); Chalice names these functions
# WebsocketConnect, WebsocketMessage and WebsocketDisconnect.
@app.on_ws_connect()
def ws_connect(event):  # type: ignore[no-untyped-def]
    return websocket.on_connect(event.to_dict())


@app.on_ws_message()
def ws_message(event):  # type: ignore[no-untyped-def]
    websocket.on_message(event.to_dict())


@app.on_ws_disconnect()
def ws_disconnect(event):  # type: ignore[no-untyped-def]
    websocket.on_disconnect(event.to_dict())


# Heartbeats for push connections (API Gateway drops a connection idle for 10 minutes)
# and cleanup of long-poll wake queues; the rate matches WEBSOCKET_HEARTBEAT_SECONDS.
@app.schedule(Rate(5, unit=Rate.MINUTES), name="events_keepalive")
def events_keepalive(event):  # type: ignore[no-untyped-def]
    run_keepalive()


local_dev.start_workers(app)   # `chalice local` with its own backend: feeds the handlers
