"""What the rate limiter adds to a request: DynamoDB requests and write units, and the
p50 of POST /messages with and without it, interleaved in one run (in-process moto).

Run: .venv/bin/python -m bench.rate_limits
"""
from __future__ import annotations

import os
import statistics
import time

from bench.common import (
    OWNER_EMAIL,
    RequestCounter,
    bench_realm,
    form_headers,
    moto_backend,
)

ON = "api_by_user=1000000/60"     # counted (a limit no request here reaches)
OFF = "api_by_user=off"
ROUNDS = 200


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app

        _, _, key = bench_realm()
        form = form_headers(OWNER_EMAIL, key)
        auth = {"Authorization": form["Authorization"]}
        with Client(app) as client:
            client.http.post("/api/v1/users/me/subscriptions", headers=form,
                             body=b'subscriptions=[{"name":"general"}]')

            def send() -> None:
                response = client.http.post(
                    "/api/v1/messages", headers=form,
                    body=b"type=stream&to=general&topic=t&content=hello")
                assert response.status_code == 200, response.body[:200]

            def me() -> None:
                assert client.http.get("/api/v1/users/me", headers=auth).status_code == 200

            for spec in (ON, OFF):   # warm both paths (and the realm's cached limits)
                os.environ["RATE_LIMITS"] = spec
                send()
                me()
            print(f"{'call':<16} {'limiter':<8} {'DynamoDB requests':<18} {'write units':<12}"
                  " operations")
            for name, call in (("GET /users/me", me), ("POST /messages", send)):
                for spec in (OFF, ON):
                    os.environ["RATE_LIMITS"] = spec
                    writes = counter.units["write"]
                    with counter.measure() as delta:
                        call()
                    dynamodb = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                    print(f"{name:<16} {'on' if spec == ON else 'off':<8} "
                          f"{sum(dynamodb.values()):<18} "
                          f"{counter.units['write'] - writes:<12.0f} {dynamodb}")
            timings: dict[str, list[float]] = {ON: [], OFF: []}
            for _ in range(ROUNDS):
                for spec in (ON, OFF):
                    os.environ["RATE_LIMITS"] = spec
                    started = time.perf_counter()
                    send()
                    timings[spec].append((time.perf_counter() - started) * 1000)
            on, off = statistics.median(timings[ON]), statistics.median(timings[OFF])
            print(f"POST /messages p50 over {ROUNDS} interleaved rounds: limiter on "
                  f"{on:.1f} ms, off {off:.1f} ms, ratio {on / off:.3f}")


if __name__ == "__main__":
    main()
