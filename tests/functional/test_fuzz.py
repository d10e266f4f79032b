"""Property: no generated request, on any route, answers a 5xx.

A bounded run (FUZZ_REQUESTS, default 150) in `make test`; a longer one for the figure:
    FUZZ_REQUESTS=5000 .venv/bin/python -m pytest -q -p no:cacheprovider -s \
        tests/functional/test_fuzz.py
"""
from __future__ import annotations

import json
import os
import random
from collections import Counter
from urllib.parse import urlencode

from tests.functional.conftest import ApiResponse, make_realm
from tests.functional.fuzz_inputs import generate, routes

REQUESTS_PER_REALM = 100


def send(account, request) -> ApiResponse:
    headers = account.auth_header()
    url = request.path if request.path.startswith("/") else "/" + request.path
    body = b""
    if request.method == "GET":
        if request.params:
            url += "?" + urlencode(request.params)
    elif request.as_json:
        decoded = {k: _decoded(v) for k, v in request.params.items()}
        body = json.dumps(decoded).encode()
        headers["Content-Type"] = "application/json"
    elif request.params:
        body = urlencode(request.params).encode("utf-8", "surrogatepass")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    response = account.client.http.request(request.method, url, headers=headers, body=body)
    try:
        payload = json.loads(response.body or b"{}")
    except ValueError:
        payload = {"raw": response.body[:200]}
    return ApiResponse(response.status_code, payload if isinstance(payload, dict) else {},
                       dict(response.headers))


def _decoded(value):
    """JSON bodies carry values typed: JSON text becomes its value (surrogates too)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def test_no_generated_request_answers_5xx(chalice_client, request, capsys):
    from app import app

    total = int(os.environ.get("FUZZ_REQUESTS", "150"))
    rng = random.Random(int(os.environ.get("FUZZ_SEED", "15")))
    table = [r for r in routes(app) if not r.path.startswith("/user_uploads")
             or r.method == "GET"]
    statuses: Counter[int] = Counter()
    failures = []
    sent = 0
    while sent < total:
        test_realm = request.getfixturevalue("realm") if sent == 0 else _fresh_realm(request)
        accounts = [test_realm.owner, test_realm.admin, test_realm.member, test_realm.guest]
        for _ in range(min(REQUESTS_PER_REALM, total - sent)):
            route = rng.choice(table)
            generated = generate(rng, route)
            response = send(rng.choice(accounts), generated)
            statuses[response.status] += 1
            sent += 1
            if response.status >= 500:
                failures.append((route.method, route.path, generated.params, response.json))
    with capsys.disabled():
        print(f"\nfuzz: {sent} generated requests over {len(table)} routes; answers "
              f"{dict(sorted(statuses.items()))}; 5xx: {len(failures)}")
    assert not failures, failures[:5]


def _fresh_realm(request):
    """A new organization (the previous one may have deactivated its own accounts)."""
    return make_realm(request.getfixturevalue("chalice_client"))
