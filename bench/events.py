"""Event pipeline figures: fan-out cost, idle client cost, delivery cost, delivery delay.

Run: .venv/bin/python -m bench.events   (part of `make bench`)

In-process moto (the real handlers on real outbox records; "before" replays the previous
design's requests on the same tables, bench/legacy_events.py):
1. DynamoDB requests and units per event per queue, batches of 1 and 50;
2. one message fanned out to 1,000 connected queues, against raw writes of its items;
3. an idle waiting GET /events: DynamoDB and SQS requests per minute;
4. an idle push connection: what the keepalive spends on it;
5. the cost table at list prices (bench/prices.py), arithmetic shown.
On the local stack `make run` starts (a subprocess):
6. delivery delay, POST /messages response -> event at a waiting long-poll / socket.
"""
from __future__ import annotations

import os

from bench.common import RequestCounter, bench_realm, form_headers, moto_backend
from bench.event_costs import cost_tables, idle_longpoll, idle_push, return_poll
from bench.event_delay import delivery_delays
from bench.event_fanout import Channel, chunk_sizes, fanout_figures, per_event_figures

SIZES = (10, 100, 1000)


def in_process_figures() -> None:
    os.environ.update(LONGPOLL_WAIT_SECONDS="20", LONGPOLL_CHECK_SECONDS="5",
                      WEBSOCKET_MANAGEMENT_URL="https://bench.execute-api.us-east-1"
                                               ".amazonaws.com/chat")
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app
        from infra.local.stream_drain import OutboxDrain

        realm, _, owner_key = bench_realm()
        owner = form_headers("o@bench.example.com", owner_key)
        drain = OutboxDrain()
        with Client(app) as client:
            http = client.http
            general = Channel(http, owner, realm.realm_id, "general", 31, 10_000, True)
            channels = [Channel(http, owner, realm.realm_id, f"c{n}", n + 1,
                                20_000 * (i + 1), True) for i, n in enumerate(SIZES)]
            drain()
            per_event_figures(counter, general, drain)
            print(f"   ({chunk_sizes(general.queue_ids)}: forms over 600 bytes are stored "
                  "once and referred to)")
            deliveries = fanout_figures(counter, channels, drain)
            longpoll = idle_longpoll(counter, http, owner)
            poll_return = return_poll(counter, http, owner, drain)
            push = idle_push(counter)
    cost_tables(longpoll, push, poll_return, deliveries)


if __name__ == "__main__":
    in_process_figures()
    delivery_delays()
