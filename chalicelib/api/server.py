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
def get_server_settings(*, include_teamchat_extensions: bool = False) -> ServerSettingsResult:
    # include_teamchat_extensions (feature_levels.EXTENSIONS_PARAMETER): this server's
    # own fields too, which a client written against the reference does not expect.
    request = bp.current_request
    scheme = request.headers.get("x-forwarded-proto") or config.external_scheme()
    return server_settings(request_host(request), scheme, include_teamchat_extensions)
