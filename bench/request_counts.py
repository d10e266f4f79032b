"""DynamoDB requests and wall time per API call on in-process moto, and app import time.

Run: .venv/bin/python -m bench.request_counts   (or `make bench`)
"""
from __future__ import annotations

import base64
import subprocess
import sys
import time

from bench.common import RequestCounter, bench_realm, median_ms, moto_backend


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app
        from chalicelib.actions.users.users import NewUser, do_create_user

        _, _owner_id, key = bench_realm()
        for n in range(50):   # an organization of some size: figures must not depend on it
            do_create_user(1, NewUser(email=f"u{n}@bench.example.com", full_name=f"User {n}"))
        auth = {"Authorization": "Basic " + base64.b64encode(
            f"o@bench.example.com:{key}".encode()).decode()}
        form = {**auth, "Content-Type": "application/x-www-form-urlencoded"}
        with Client(app) as client:
            client.http.post("/api/v1/users/me/subscriptions", headers=form,
                             body=b'subscriptions=[{"name":"general"}]')
            for n in range(30):
                client.http.post("/api/v1/messages", headers=form,
                                 body=f"type=stream&to=general&topic=t&content=m{n}".encode())
            cases = {
                "GET /users/me": lambda: client.http.get("/api/v1/users/me", headers=auth),
                "GET /server_settings": lambda: client.http.get(
                    "/api/v1/server_settings", headers={"Host": "bench.localhost"}),
                "POST /messages (channel)": lambda: client.http.post(
                    "/api/v1/messages", headers=form,
                    body=b"type=stream&to=general&topic=t&content=hello+%40**Owner**"),
                "GET /messages (channel, 20)": lambda: client.http.get(
                    "/api/v1/messages?anchor=newest&num_before=20&num_after=0"
                    "&narrow=%5B%5B%22channel%22%2C%22general%22%5D%5D", headers=auth),
            }
            print(f"{'call':<30} {'DynamoDB requests':<18} {'ms (median of 5)':<17} operations")
            for name, call in cases.items():
                with counter.measure() as delta:
                    response = call()
                assert response.status_code == 200, (name, response.body[:200])
                dynamodb = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                print(f"{name:<30} {sum(dynamodb.values()):<18} {median_ms(call):<17.1f} "
                      f"{dynamodb}")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import app"], check=True)
    total = time.perf_counter() - started
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    baseline = time.perf_counter() - started
    print(f"\nimport app.py in a fresh interpreter: {total - baseline:.2f} s "
          f"(interpreter start {baseline:.2f} s excluded)")


if __name__ == "__main__":
    main()
