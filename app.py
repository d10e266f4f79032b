"""teamchat's Chalice app: wires blueprints, middleware and event handlers; no logic here."""
from chalice import Chalice

from chalicelib.api import (alert_words, events, messages, server, streams, subscriptions,
                            typing_notifications, users)
from chalicelib.http.middleware import register_middleware

app = Chalice(app_name="teamchat")
app.api.binary_types = ["application/octet-stream", "multipart/form-data",
                        "image/*", "application/pdf"]

for area in (server, users, streams, subscriptions, messages, events, typing_notifications,
             alert_words):
    app.register_blueprint(area.bp, url_prefix="/api/v1")

register_middleware(app)
