"""A renaming proxy for the official clients of the API family, which read the old
branded names (`zulip_feature_level`, `zulip_version`, `zulip_merge_base`) where this
server says `service_*`. It forwards every request unchanged and adds the old names
beside the new ones in JSON answers; the server itself is never bent to a client.

Run: .venv/bin/python -m infra.local.client_proxy [--port 9991] [--to http://127.0.0.1:8000]
     [--realm demo]

With --realm, every request is sent as if to that organization's address
(`<realm>.localhost`): clients that log in with a password (`POST /fetch_api_key`, as
zulip-term's first run and zulip-js do) then reach it from http://127.0.0.1, which names
no organization.
"""
from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import requests

OLD_NAMES = {"service_version": "zulip_version", "service_feature_level": "zulip_feature_level",
             "service_merge_base": "zulip_merge_base"}
# Hop-by-hop headers, and those `requests` recomputes for the re-encoded body.
_NOT_FORWARDED = {"connection", "keep-alive", "transfer-encoding", "content-length",
                  "content-encoding", "host"}


def with_old_names(value: Any) -> Any:
    """`value` with each `service_*` key of OLD_NAMES also under its old name, at any depth."""
    if isinstance(value, list):
        return [with_old_names(v) for v in value]
    if not isinstance(value, dict):
        return value
    renamed = {k: with_old_names(v) for k, v in value.items()}
    for ours, theirs in OLD_NAMES.items():
        if ours in renamed:
            renamed.setdefault(theirs, renamed[ours])
    return renamed


def organization_host(upstream: str, realm: str | None) -> str | None:
    """The Host the server reads the organization from (`<realm>.localhost:<port>`)."""
    if not realm:
        return None
    port = urlsplit(upstream).port
    return f"{realm}.localhost" + (f":{port}" if port else "")


def make_handler(upstream: str, realm: str | None = None) -> type[BaseHTTPRequestHandler]:
    session = requests.Session()
    host = organization_host(upstream, realm)

    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True   # headers and body are two writes

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in _NOT_FORWARDED}
            if host:
                headers["Host"] = host
            answer = session.request(self.command, upstream + self.path, data=body,
                                     headers=headers, timeout=120, allow_redirects=False)
            content = answer.content
            if answer.headers.get("Content-Type", "").startswith("application/json"):
                content = json.dumps(with_old_names(answer.json())).encode()
            self.send_response(answer.status_code)
            for name, value in answer.headers.items():
                if name.lower() not in _NOT_FORWARDED:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _forward

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Forward


def serve(port: int, upstream: str, realm: str | None = None) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", port),
                                 make_handler(upstream.rstrip("/"), realm))
    server.daemon_threads = True
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9991)
    parser.add_argument("--to", default="http://127.0.0.1:8000", help="the teamchat API")
    parser.add_argument("--realm", help="the organization's subdomain (demo on make run), "
                        "for clients that log in with a password")
    args = parser.parse_args()
    server = serve(args.port, args.to, args.realm)
    target = organization_host(args.to, args.realm) or args.to
    print(f"official clients: use http://127.0.0.1:{args.port} (forwarding to {target})",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
