"""teamchat's Chalice app: wires blueprints, middleware and event handlers; no logic here."""
import importlib
import pkgutil

from chalice.app import Chalice, Rate

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib import api, apidocs, config

    # Four view modules also serve links outside /api/v1 (registered below by name).
    from chalicelib.api import accounts, avatars, invites, notifications
    from chalicelib.aws.tracing import traced_invocation
    from chalicelib.fanout.batch import OUTBOX_STREAM_ARN_PLACEHOLDER
    from chalicelib.handlers import (
        keepalive,
        message_schedules,
        notification_queue,
        ses_events,
        stream_fanout,
        webhook_queue,
        websocket,
    )
    from chalicelib.http.method_not_allowed import add_method_fallbacks
    from chalicelib.http.middleware import register_middleware

    # Every module of chalicelib/api/ is a view module with a blueprint `bp`, mounted
    # under /api/v1: a new one is served by being there, with no list to keep.
    VIEWS = [importlib.import_module(f"{api.__name__}.{module.name}")
             for module in pkgutil.iter_modules(api.__path__)]

app = Chalice(app_name="teamchat")
app.experimental_feature_flags.update(["WEBSOCKETS"])
app.api.binary_types = ["application/octet-stream", "multipart/form-data",
                        "image/*", "application/pdf"]
# First, so outermost: each request is an X-Ray subsegment (aws/tracing.py); the other
# functions' entry points (chalicelib/handlers/) are traced themselves.
app.register_middleware(traced_invocation, "http")

for view in VIEWS:
    app.register_blueprint(view.bp, url_prefix="/api/v1")
app.register_blueprint(accounts.confirmations)
app.register_blueprint(invites.links)
app.register_blueprint(notifications.links)
app.register_blueprint(avatars.links)
# The generated OpenAPI document and its docs page: public, outside the API's endpoints.
app.register_blueprint(apidocs.bp)

register_middleware(app)
# Last, once every route exists: the methods a path does not serve answer 405.
add_method_fallbacks(app)


@app.on_dynamodb_record(stream_arn=OUTBOX_STREAM_ARN_PLACEHOLDER, name="fanout",
                        batch_size=100, starting_position="LATEST")
def fanout(event):  # type: ignore[no-untyped-def]
    return stream_fanout.handler(event.to_dict(), event.context)


@app.on_sqs_message(queue=config.webhook_queue_name(), name="outgoing_webhooks", batch_size=5)
def outgoing_webhooks(event):  # type: ignore[no-untyped-def]
    return webhook_queue.handler(event.to_dict(), event.context)


# Missed-message email and mobile push (chalicelib/notifications/): the fan-out records
# what is pending; this queue's messages wake the notifier when a batching period ends.
@app.on_sqs_message(queue=config.notification_queue_name(), name="notifier", batch_size=10)
def notifier(event):  # type: ignore[no-untyped-def]
    return notification_queue.handler(event.to_dict(), event.context)


# SES bounces and complaints, through the configuration set's SNS topic.
@app.on_sns_message(topic=config.mail_events_topic_name(), name="mail_events")
def mail_events(event):  # type: ignore[no-untyped-def]
    ses_events.handler(event.to_dict(), event.context)


# The push channel (chalicelib/realtime/websocket.py); Chalice names these functions
# WebsocketConnect, WebsocketMessage and WebsocketDisconnect.
@app.on_ws_connect()
def ws_connect(event):  # type: ignore[no-untyped-def]
    return websocket.connect(event.to_dict(), event.context)


@app.on_ws_message()
def ws_message(event):  # type: ignore[no-untyped-def]
    return websocket.message(event.to_dict(), event.context)


@app.on_ws_disconnect()
def ws_disconnect(event):  # type: ignore[no-untyped-def]
    return websocket.disconnect(event.to_dict(), event.context)


# A scheduled message's one-time schedule invokes this at its time (EventBridge
# Scheduler; locally infra/local/schedules.py fires the due ones).
@app.lambda_function(name="scheduled_messages")
def scheduled_messages_delivery(event, context):  # type: ignore[no-untyped-def]
    return message_schedules.handler(event, context)


# Heartbeats for push connections (API Gateway drops a connection idle for 10 minutes)
# and cleanup of long-poll wake queues; the rate matches WEBSOCKET_HEARTBEAT_SECONDS.
@app.schedule(Rate(5, unit=Rate.MINUTES), name="events_keepalive")
def events_keepalive(event):  # type: ignore[no-untyped-def]
    keepalive.handler(event.to_dict(), event.context)

