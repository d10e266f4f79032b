"""teamchat's Chalice app: wires blueprints, middleware and event handlers; no logic here."""
from chalice import Chalice

from chalicelib.api import (
    accounts,
    alert_words,
    deactivation,
    drafts,
    events,
    messages,
    realm,
    server,
    settings,
    streams,
    subscriptions,
    topics,
    typing_notifications,
    uploads,
    user_topics,
    users,
)
from chalicelib.events.fanout import OUTBOX_STREAM_ARN_PLACEHOLDER, handle_stream_batch
from chalicelib.http.middleware import register_middleware

app = Chalice(app_name="teamchat")
app.api.binary_types = ["application/octet-stream", "multipart/form-data",
                        "image/*", "application/pdf"]

for area in (
    server,
    users,
    streams,
    subscriptions,
    messages,
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
):
    app.register_blueprint(area.bp, url_prefix="/api/v1")
app.register_blueprint(accounts.confirmations)

register_middleware(app)


@app.on_dynamodb_record(stream_arn=OUTBOX_STREAM_ARN_PLACEHOLDER, name="fanout",
                        batch_size=100, starting_position="LATEST")
def fanout(event):  # type: ignore[no-untyped-def]
    return handle_stream_batch(event.to_dict(), event.context)
