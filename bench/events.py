"""Event pipeline figures: fan-out cost, idle long-poll cost, and delivery delay on `make run`.

Run: .venv/bin/python -m bench.events   (part of `make bench`)

1. DynamoDB requests and write units per fanned-out event per queue (in-process moto,
   the real stream handler on real outbox records).
2. DynamoDB reads of an idle waiting GET /events, scaled to a minute, and the cost per
   hour of one idle connected client on AWS at the list prices in STACK-NOTES.
3. Delay from a POST /messages response to a waiting GET /events returning the message,
   on the local stack that `make run` starts (a subprocess on its own moto).
"""
from __future__ import annotations

import base64
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench.common import RequestCounter, moto_backend

# List prices, us-east-1 (STACK-NOTES.md).
LAMBDA_PER_REQUEST = 0.20 / 1e6
LAMBDA_PER_GB_SECOND = {"x86_64": 0.0000166667, "arm64": 0.0000133334}
API_GATEWAY_PER_REQUEST = 3.50 / 1e6
DYNAMODB_PER_READ_UNIT = 0.125 / 1e6
DYNAMODB_PER_WRITE_UNIT = 0.625 / 1e6
PROD_MEMORY_GB = 512 / 1024   # .chalice/config.json, stage prod
PROD_WAIT_SECONDS = 20.0      # chalicelib/config.py longpoll_wait_seconds default
IDLE_WAIT_SECONDS = 3.0       # shortened wait for the measurement; scaled to the hour


def _auth(email: str, key: str) -> dict[str, str]:
    token = base64.b64encode(f"{email}:{key}".encode()).decode()
    return {"Authorization": f"Basic {token}",
            "Content-Type": "application/x-www-form-urlencoded"}


def in_process_figures() -> None:
    os.environ["LONGPOLL_WAIT_SECONDS"] = str(IDLE_WAIT_SECONDS)
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app
        from chalicelib.actions.realms import do_create_realm
        from chalicelib.actions.users import NewUser, do_create_user
        from infra.local.stream_drain import OutboxDrain

        _, _, owner_key = do_create_realm("Bench", "bench", NewUser(
            email="o@bench.example.com", full_name="Owner", role=100))
        owner = _auth("o@bench.example.com", owner_key)
        members = [owner]
        for n in range(29):
            _, key = do_create_user(1, NewUser(email=f"u{n}@bench.example.com",
                                               full_name=f"User {n}"))
            members.append(_auth(f"u{n}@bench.example.com", key))
        drain = OutboxDrain()
        with Client(app) as client:
            http = client.http
            for headers in members:
                http.post("/api/v1/users/me/subscriptions", headers=headers,
                          body=b'subscriptions=[{"name":"general"}]')
            queues = [http.post("/api/v1/register", headers=h,
                                body=b'event_types=["message"]').json_body["queue_id"]
                      for h in members]
            drain()
            print("1. Fan-out: DynamoDB per fanned-out event per queue "
                  f"({len(queues)} queues on one channel)")
            for messages in (1, 10, 50):
                for n in range(messages):
                    http.post("/api/v1/messages", headers=owner,
                              body=f"type=stream&to=general&topic=t&content=m{n}".encode())
                units_before = counter.units.copy()
                with counter.measure() as delta:
                    result = drain()
                assert result == {"batchItemFailures": []}, result
                units = counter.units - units_before
                requests = sum(n for (svc, _), n in delta.items() if svc == "dynamodb")
                deliveries = messages * len(queues)
                print(f"   batch of {messages:>2} records: {requests / deliveries:.2f} requests, "
                      f"{units['write'] / deliveries:.2f} write units, "
                      f"{units['read'] / deliveries:.3f} read units per event per queue")

            print(f"\n2. Idle long-poll: blocking GET /events with a {IDLE_WAIT_SECONDS:.0f} s wait")
            queue_id, headers = queues[1], members[1]
            last = http.get(f"/api/v1/events?queue_id={queue_id}&last_event_id=-1"
                            "&dont_block=true", headers=headers).json_body["events"][-1]["id"]
            # The first wait also prunes what it acknowledges; the second is an idle
            # client's steady state (acknowledges one heartbeat, appends the next).
            for _ in range(2):
                units_before = counter.units.copy()
                with counter.measure() as delta:
                    started = time.perf_counter()
                    body = http.get(f"/api/v1/events?queue_id={queue_id}&last_event_id={last}",
                                    headers=headers).json_body
                    waited = time.perf_counter() - started
                assert [e["type"] for e in body["events"]] == ["heartbeat"], body
                last = body["events"][-1]["id"]
            units = counter.units - units_before
            gets = delta[("dynamodb", "GetItem")]
            print(f"   {waited:.2f} s, DynamoDB { {op: n for (_, op), n in delta.items()} }")
            print(f"   reads per minute while waiting: {gets / waited * 60:.0f} GetItem "
                  f"(one per {1000 * waited / gets:.0f} ms)")
            _cost_per_hour(units, waited)


def _cost_per_hour(units_of_one_poll: dict[str, float], measured_wait: float) -> None:
    """One idle client: back-to-back long-polls of PROD_WAIT_SECONDS for an hour."""
    polls = 3600 / PROD_WAIT_SECONDS
    # Reads scale with the time spent waiting; writes are per poll (ack + heartbeat).
    read_units = units_of_one_poll["read"] / measured_wait * 3600
    write_units = units_of_one_poll["write"] * polls
    dynamodb = read_units * DYNAMODB_PER_READ_UNIT + write_units * DYNAMODB_PER_WRITE_UNIT
    gateway = polls * API_GATEWAY_PER_REQUEST
    print(f"\n   Cost of one idle connected client per hour on AWS ({PROD_WAIT_SECONDS:.0f} s "
          f"waits, {polls:.0f} polls/hour):")
    print(f"   API Gateway  {polls:.0f} requests x $3.50/M = ${gateway:.5f}")
    print(f"   DynamoDB     {read_units:,.0f} RRU x $0.125/M + {write_units:,.0f} WRU x $0.625/M"
          f" = ${dynamodb:.5f}")
    for arch, memory_gb in (("x86_64", PROD_MEMORY_GB), ("arm64", PROD_MEMORY_GB),
                            ("arm64", 0.25)):
        lambda_cost = (polls * LAMBDA_PER_REQUEST
                       + 3600 * memory_gb * LAMBDA_PER_GB_SECOND[arch])
        total = lambda_cost + gateway + dynamodb
        print(f"   Lambda {arch:<6} {memory_gb * 1024:.0f} MB: 3600 s x {memory_gb} GB x "
              f"${LAMBDA_PER_GB_SECOND[arch]}/GB-s + requests = ${lambda_cost:.5f}"
              f"  -> total ${total:.4f}/hour (${total * 730:.2f}/month)")


def delivery_delay(rounds: int = 40) -> None:
    import requests

    from infra.local.launcher import start_stack

    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        state.mkdir()
        stack = start_stack(state)
        try:
            accounts = stack.accounts()
            member = (accounts["member"]["email"], accounts["member"]["api_key"])
            owner = (accounts["owner"]["email"], accounts["owner"]["api_key"])
            api = f"{stack.url}/api/v1"
            registered = requests.post(f"{api}/register", auth=member, timeout=10,
                                       data={"event_types": '["message"]'}).json()
            queue_id, last = registered["queue_id"], registered["last_event_id"]
            delays: list[float] = []
            for n in range(rounds):
                returned: dict[str, float] = {}
                result: dict[str, list] = {}

                def poll(after: int = last, returned: dict[str, float] = returned,
                         result: dict[str, list] = result) -> None:
                    body = requests.get(f"{api}/events", auth=member, timeout=30, params={
                        "queue_id": queue_id, "last_event_id": after}).json()
                    returned["at"] = time.perf_counter()
                    result["events"] = body["events"]

                waiter = threading.Thread(target=poll)
                waiter.start()
                time.sleep(0.3)   # the poll is waiting before the message is sent
                sent = requests.post(f"{api}/messages", auth=owner, timeout=10, data={
                    "type": "direct", "to": f'[{accounts["member"]["user_id"]}]',
                    "content": f"delay probe {n}"})
                responded = time.perf_counter()
                assert sent.ok, sent.text
                waiter.join(timeout=30)
                events = result["events"]
                assert any(e.get("message", {}).get("id") == sent.json()["id"] for e in events)
                delays.append((returned["at"] - responded) * 1000)
                last = events[-1]["id"]
        finally:
            stack.stop()
    delays.sort()
    p95 = delays[min(len(delays) - 1, round(0.95 * len(delays)) - 1)]
    print(f"\n3. Delivery on the local stack ({rounds} direct messages): POST /messages "
          f"response -> waiting GET /events returns")
    print(f"   p50 {statistics.median(delays):.0f} ms, p95 {p95:.0f} ms, "
          f"min {delays[0]:.0f} ms, max {delays[-1]:.0f} ms (target: p50 <= 150 ms)")


if __name__ == "__main__":
    in_process_figures()
    delivery_delay()
