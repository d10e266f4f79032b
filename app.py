"""teamchat's Chalice app: wires blueprints, middleware and event handlers; no logic here."""
from chalice import Chalice

from chalicelib.api import server, users
from chalicelib.http.middleware import register_middleware

app = Chalice(app_name="teamchat")
app.api.binary_types = ["application/octet-stream", "multipart/form-data",
                        "image/*", "application/pdf"]

for blueprint in (server.bp, users.bp):
    app.register_blueprint(blueprint, url_prefix="/api/v1")

register_middleware(app)
