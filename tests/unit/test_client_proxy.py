"""The renaming proxy for the official clients adds the old branded names and forwards
everything else unchanged."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from infra.local.client_proxy import serve, with_old_names


def test_old_names_are_added_beside_the_new_at_any_depth():
    answer = {"service_feature_level": 390, "realm": [{"service_version": "1.0"}], "x": 1}
    assert with_old_names(answer) == {
        "service_feature_level": 390, "zulip_feature_level": 390, "x": 1,
        "realm": [{"service_version": "1.0", "zulip_version": "1.0"}]}


class _Upstream(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        content = json.dumps({"service_version": "1.0", "got": body.decode(),
                              "auth": self.headers.get("Authorization"),
                              "path": self.path, "host": self.headers.get("Host")}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, *_: object) -> None:
        pass


def test_requests_are_forwarded_as_sent_and_statuses_kept():
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    proxy = serve(0, f"http://127.0.0.1:{upstream.server_address[1]}")
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        answer = requests.post(f"http://127.0.0.1:{proxy.server_address[1]}/api/v1/x?a=1",
                               data={"k": "v"}, auth=("me", "key"), timeout=5)
    finally:
        proxy.shutdown()
        upstream.shutdown()
    assert answer.status_code == 400
    assert answer.json() == {"service_version": "1.0", "zulip_version": "1.0", "got": "k=v",
                             "auth": "Basic bWU6a2V5", "path": "/api/v1/x?a=1",
                             "host": f"127.0.0.1:{upstream.server_address[1]}"}


def test_with_a_realm_requests_go_to_the_organizations_address():
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    port = upstream.server_address[1]
    proxy = serve(0, f"http://127.0.0.1:{port}", realm="demo")
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        answer = requests.post(f"http://127.0.0.1:{proxy.server_address[1]}/api/v1/x",
                               data={"k": "v"}, timeout=5)
    finally:
        proxy.shutdown()
        upstream.shutdown()
    # THEN the server reads the organization from the Host, as from its own address
    assert answer.json()["host"] == f"demo.localhost:{port}"
