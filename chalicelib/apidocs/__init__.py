"""The API's own documentation: the generated OpenAPI document and a page that renders it.

`GET /api/v1/openapi.json` serves `openapi.json` beside this module, which `make openapi`
writes from the code (a unit test fails when it is stale). `GET /api/docs` is a Swagger UI
page; its script and style are vendored from the npm registry by `make` into `static/`
(pinned in the Makefile), so the page needs nothing from the internet. Both are public,
like the reference's documentation, and neither is an endpoint of the API itself.
"""
from __future__ import annotations

from pathlib import Path

from chalice.app import Blueprint, Response

from chalicelib.core.errors import ResourceNotFoundError
from chalicelib.http.response import json_error

HERE = Path(__file__).parent
DOCUMENT = HERE / "openapi.json"
STATIC = HERE / "static"
# The vendored files the page loads, and their media types; nothing else is served.
ASSETS = {"swagger-ui-bundle.js": "application/javascript; charset=utf-8",
          "swagger-ui.css": "text/css; charset=utf-8",
          "LICENSE": "text/plain; charset=utf-8"}
CACHE = {"Cache-Control": "public, max-age=300"}

bp = Blueprint(__name__)

# Relative links, so the page works under any stage prefix (e.g. /chat/api/docs).
PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>teamchat REST API</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: "v1/openapi.json",
      dom_id: "#swagger-ui",
      deepLinking: true,
      docExpansion: "none",
      defaultModelsExpandDepth: 0,
      layout: "BaseLayout"
    });
  </script>
</body>
</html>
"""


@bp.route("/api/v1/openapi.json", methods=["GET"])
def serve_openapi_document() -> Response:
    return Response(body=DOCUMENT.read_text(encoding="utf-8"), status_code=200,
                    headers={"Content-Type": "application/json", **CACHE})


@bp.route("/api/docs", methods=["GET"])
def docs_page() -> Response:
    return Response(body=PAGE, status_code=200,
                    headers={"Content-Type": "text/html; charset=utf-8", **CACHE})


@bp.route("/api/docs/{asset}", methods=["GET"])
def docs_asset(asset: str) -> Response:
    path = STATIC / asset
    if asset not in ASSETS or not path.is_file():   # not built: `make docs-assets`
        return json_error(ResourceNotFoundError(f"Documentation file '{asset}' not found"))
    return Response(body=path.read_text(encoding="utf-8"), status_code=200,
                    headers={"Content-Type": ASSETS[asset], **CACHE})
