"""Property-based run: schemathesis generates requests from the generated OpenAPI document
and sends them to the in-process app (through a WSGI bridge to chalice's test client).

Every operation gets PROPERTY_EXAMPLES generated requests (default 6, so the run stays well
under two minutes in `make test`), as the organization's owner. Checks: no server error,
and status code, content type and body as the document declares them. `make fuzz`
(bench/fuzz.py) runs the same test longer, with other seeds.
"""
from __future__ import annotations

import base64
import gzip
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import schemathesis
from chalice.test import Client
from hypothesis import HealthCheck, Phase, given, seed, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.functional.conftest import make_realm

EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "4"))
# Past this many seconds, the remaining operations get one request each: the bound holds
# on a busy machine too, and every operation is still tried.
BUDGET_SECONDS = float(os.environ.get("PROPERTY_BUDGET_SECONDS", "100"))
SEED = os.environ.get("PROPERTY_SEED")   # unset: derandomized, the same run every time
STATS_FILE = os.environ.get("PROPERTY_STATS")   # bench/fuzz.py collects figures from it
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
STATS: Counter[str] = Counter()
STARTED: list[float] = []
FAILURES: list[str] = []

# Queues the generated requests' events are delivered to, and so checked: one without
# client capabilities (the legacy forms), one with all of them.
CAPABILITIES = ["notification_settings_null", "bulk_message_deletion",
                "user_avatar_url_field_optional", "stream_typing_notifications",
                "user_settings_object", "linkifier_url_template", "user_list_incomplete",
                "include_deactivated_groups", "archived_channels", "empty_topic_name"]


@schemathesis.serializer("application/x-www-form-urlencoded")
def form_serializer(ctx: Any, value: Any) -> dict[str, Any]:
    """As the official client sends forms: strings as they are, other values JSON-encoded."""
    if not isinstance(value, dict):
        return {"data": value}
    return {"data": urlencode({key: item if isinstance(item, str) else json.dumps(item)
                               for key, item in value.items()}),
            "headers": {"Content-Type": "application/x-www-form-urlencoded"}}


class WsgiBridge:
    """A WSGI app that hands each request to chalice's in-process test client."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[[str, list[tuple[str, str]]], Any]
                 ) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        headers = {key[5:].replace("_", "-").title(): value for key, value in environ.items()
                   if key.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["Content-Type"] = environ["CONTENT_TYPE"]
        path = quote(environ.get("PATH_INFO", "/").encode("latin-1").decode("utf-8"),
                     safe="/:@!$&'()*+,;=-._~")
        if environ.get("QUERY_STRING"):
            path += "?" + environ["QUERY_STRING"]
        response = self.client.http.request(environ["REQUEST_METHOD"], path, headers=headers,
                                            body=body)
        body, headers = response.body or b"", list(response.headers.items())
        if response.headers.get("Content-Encoding") == "gzip":   # as an HTTP client undoes it
            body = gzip.decompress(body)
            headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
        start_response(f"{response.status_code} -", headers)
        return [body]


@pytest.fixture(scope="module")
def fuzz_realm(chalice_client: Client) -> Any:
    realm = make_realm(chalice_client)
    for account, capabilities in ((realm.owner, {}),
                                  (realm.member, dict.fromkeys(CAPABILITIES, True))):
        response = account.post("/register", {"client_capabilities": capabilities})
        assert response.ok, response.json
    return realm


@pytest.fixture(scope="module")
def api_schema(chalice_client: Client) -> Any:
    from app import app
    from chalicelib.http.openapi import openapi_document

    document = openapi_document(app)
    document["servers"] = [{"url": "/"}]   # the bridge serves every path from the root
    schema = schemathesis.openapi.from_dict(document)
    schema.app = WsgiBridge(chalice_client)
    return schema


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    STATS.clear()
    FAILURES.clear()
    STARTED[:] = [time.monotonic()]
    yield
    summary = {"requests": sum(STATS.values()), "operations": len(STATS),
               "seconds": round(time.monotonic() - STARTED[0], 1),
               "failures": len(FAILURES), "failure_details": FAILURES}
    print(f"\nproperty run: {summary['requests']} requests over {summary['operations']} "
          f"operations in {summary['seconds']} s, {summary['failures']} failures")
    if STATS_FILE:
        with open(STATS_FILE, "a", encoding="utf-8") as out:
            out.write(json.dumps(summary) + "\n")


def _operation_labels() -> list[str]:
    from chalicelib.apidocs import DOCUMENT

    document = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return [f"{method.upper()} {path}" for path, item in document["paths"].items()
            for method in item]


@pytest.mark.parametrize("label", _operation_labels())
def test_the_api_keeps_its_contract(label: str, api_schema: Any, fuzz_realm: Any) -> None:
    method, path = label.split(" ", 1)
    strategy = api_schema[path][method].as_strategy()
    owner = fuzz_realm.owner
    token = base64.b64encode(f"{owner.email}:{owner.api_key}".encode()).decode()

    over_budget = time.monotonic() - STARTED[0] > BUDGET_SECONDS

    @given(case=strategy)
    @settings(max_examples=1 if over_budget else EXAMPLES, deadline=None, database=None,
              derandomize=SEED is None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    def requests_keep_the_contract(case: Any) -> None:
        STATS[label] += 1
        try:
            case.call_and_validate(headers={"Authorization": f"Basic {token}"},
                                   checks=CHECKS)
        except Exception as error:
            FAILURES.append(f"{label}: {str(error).strip().splitlines()[0][:300]}")
            raise

    if SEED is not None:
        requests_keep_the_contract = seed(int(SEED))(requests_keep_the_contract)
    requests_keep_the_contract()


def test_the_events_of_those_requests_keep_the_contract(fuzz_realm: Any,
                                                         _outbox_drain: Any) -> None:
    """Fans out what the generated requests changed: every form a queue gets is checked
    against the document (conftest.py's checked append; failures fail this test)."""
    _outbox_drain()
