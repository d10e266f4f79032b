"""The web client's built files (web/dist), served at `/` by the local stack's HTTP
server as CloudFront serves them from S3 on AWS, with the same security headers."""
from __future__ import annotations

import mimetypes
import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from infra.local.environment import REPO_ROOT
from infra.web_security import (
    ASSET_CACHE_CONTROL,
    PAGE_CACHE_CONTROL,
    STATIC_HEADERS,
    content_security_policy,
)

WEB_ROOT = REPO_ROOT / "web" / "dist"
# Paths the app serves; everything else is the client's.
APP_PREFIXES = ("/api/", "/accounts/", "/join/", "/user_uploads/", "/user_avatars/")
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png",
          ".json": "application/json", ".ico": "image/x-icon", ".txt": "text/plain; charset=utf-8"}
_NOT_BUILT = (b"The web client is not built: `make web` builds it (make run and make test "
              b"do so by themselves).\n")


def is_client_path(raw_path: str) -> bool:
    path = urlsplit(raw_path).path
    return not path.startswith(APP_PREFIXES) and path != "/api"


def resolve(raw_path: str, root: Path = WEB_ROOT) -> Path | None:
    """The file a path names inside `root` (`/` is index.html), or None: never a file
    outside it, whatever dots or encodings the path holds."""
    path = unquote(urlsplit(raw_path).path)
    relative = "index.html" if path in ("", "/") else path.lstrip("/")
    if "\x00" in relative or any(part.startswith(".") for part in relative.split("/")):
        return None   # never a hidden file (the build's stamp), never a NUL
    base = root.resolve()
    candidate = (base / relative).resolve()
    if candidate != base and base not in candidate.parents:
        return None
    return candidate if candidate.is_file() else None


def headers_for(file: Path, websocket_origin: str) -> dict[str, str]:
    content_type = _TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or \
        "application/octet-stream"
    hashed = file.parent.name == "assets"
    return {"Content-Type": content_type, **STATIC_HEADERS,
            "Content-Security-Policy": content_security_policy(websocket_origin),
            "Cache-Control": ASSET_CACHE_CONTROL if hashed else PAGE_CACHE_CONTROL}


def answer(raw_path: str) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) for a GET of a client path."""
    file = resolve(raw_path)
    if file is None:
        if not WEB_ROOT.is_dir():
            return 503, {"Content-Type": "text/plain; charset=utf-8"}, _NOT_BUILT
        return 404, {"Content-Type": "text/plain; charset=utf-8", **STATIC_HEADERS}, \
            b"Not found\n"
    websocket = os.environ.get("WEBSOCKET_URL", "")
    return 200, headers_for(file, _origin(websocket)), file.read_bytes()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
