"""The long-poll function: GET /events alone, on a Chalice app of that one route.

A waiting long-poll holds this function (128 MB) for up to its wait; its cold start
loads the reader, the authentication and the middleware, not the rest of the API.
"""
from __future__ import annotations

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalice.app import Chalice

    from chalicelib.api import event_polling
    from chalicelib.aws.tracing import traced_invocation
    from chalicelib.http.middleware import register_middleware

app = Chalice(app_name="teamchat")
app.register_middleware(traced_invocation, "http")   # first, so outermost
app.register_blueprint(event_polling.routes(), url_prefix="/api/v1")
register_middleware(app)
