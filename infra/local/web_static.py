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


def headers_for(file: Path, websocket_origin: str, upload_origin: str = "") -> dict[str, str]:
    content_type = _TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or \
        "application/octet-stream"
    hashed = file.parent.name == "assets"
    return {"Content-Type": content_type, **STATIC_HEADERS,
            "Content-Security-Policy": content_security_policy(websocket_origin, upload_origin),
            "Cache-Control": ASSET_CACHE_CONTROL if hashed else PAGE_CACHE_CONTROL,
            "Vary": "Accept-Encoding"}


def accepted_encoding(file: Path, accept_encoding: str) -> str | None:
    """The precompressed copy of `file` to send ("br" or "gzip", written by the build
    beside it), if the browser takes it."""
    offered = {part.split(";")[0].strip().lower() for part in accept_encoding.split(",")}
    for encoding, suffix in (("br", ".br"), ("gzip", ".gz")):
        if encoding in offered and file.with_name(file.name + suffix).is_file():
            return encoding
    return None


def answer(raw_path: str, accept_encoding: str = "", root: Path | None = None
           ) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) for a GET of a client path: the precompressed copy when
    the browser takes it."""
    root = root or WEB_ROOT
    file = resolve(raw_path, root)
    if file is None:
        if not root.is_dir():
            return 503, {"Content-Type": "text/plain; charset=utf-8"}, _NOT_BUILT
        return 404, {"Content-Type": "text/plain; charset=utf-8", **STATIC_HEADERS}, \
            b"Not found\n"
    websocket = os.environ.get("WEBSOCKET_URL", "")
    uploads = os.environ.get("S3_LINK_ENDPOINT_URL", "")
    headers = headers_for(file, _origin(websocket, any_port=True), _origin(uploads))
    encoding = accepted_encoding(file, accept_encoding)
    if encoding is None:
        return 200, headers, file.read_bytes()
    suffix = ".br" if encoding == "br" else ".gz"
    return 200, {**headers, "Content-Encoding": encoding}, \
        file.with_name(file.name + suffix).read_bytes()


def _origin(url: str, any_port: bool = False) -> str:
    """A URL's origin. `any_port`, for the local push channel: its port is chosen anew at
    each start, and a page open across a restart must reach the new one."""
    parts = urlsplit(url)
    if not (parts.scheme and parts.netloc):
        return ""
    if any_port and parts.hostname in ("127.0.0.1", "localhost"):
        return f"{parts.scheme}://{parts.hostname}:*"
    return f"{parts.scheme}://{parts.netloc}"
