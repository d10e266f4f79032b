"""GET /server_settings: the only endpoint without authentication."""
from __future__ import annotations

from chalicelib import config
from chalicelib.actions.realm.reads.server_settings import (
    ServerSettingsResult,
    server_settings,
)
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.request import request_host

bp = ApiBlueprint(__name__)


@bp.endpoint("/server_settings", "GET", public=True)
def get_server_settings() -> ServerSettingsResult:
    request = bp.current_request
    scheme = request.headers.get("x-forwarded-proto") or config.external_scheme()
    return server_settings(request_host(request), scheme)
