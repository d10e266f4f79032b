"""What a client's start-up and daily requests cost in an organization of 100, 1,000 and
10,000 people (issue 41), built by bench/large_org.py: answer size (as JSON and as sent
with gzip), DynamoDB requests, read and write units, time, and cost per call at list
prices. Every answer must stay under Lambda's 6 MB and API Gateway's 29 s.

    .venv/bin/python -m bench.scale [sizes...] [--messages-per-user N] [--search]

in-process moto (deterministic counts; times include moto's own work, in this process).
With --url URL --org FILE the same requests go to a running stack (`make run`, an
organization made by `bench.large_org --stack --out FILE`): times only.
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from bench.large_org import Org, OrgSpec
from bench.prices import (
    API_GATEWAY_REST_PER_REQUEST,
    DYNAMODB_PER_READ_UNIT,
    DYNAMODB_PER_WRITE_UNIT,
    LAMBDA_PER_GB_SECOND,
    LAMBDA_PER_REQUEST,
)

LAMBDA_LIMIT = 6 * 1024 * 1024      # a synchronous invocation's answer, bytes
GATEWAY_LIMIT_S = 29.0
API_MEMORY_GB = 0.5                 # the API function (infra/template.json)
TERMINAL_FETCH_TYPES = [            # zulip-term 0.7.0 (zulipterminal/model.py)
    "realm", "presence", "subscription", "message", "starred_messages",
    "update_message_flags", "muted_topics", "realm_user", "realm_user_groups",
    "update_global_notifications", "update_display_settings", "user_settings",
    "realm_emoji", "zulip_version"]
TERMINAL_EVENT_TYPES = ["message", "update_message", "reaction", "subscription", "typing",
                        "update_message_flags", "update_global_notifications",
                        "update_display_settings", "user_settings", "realm_emoji"]
WEB_CAPABILITIES = {                # the reference web app's page load
    "notification_settings_null": True, "bulk_message_deletion": True,
    "user_avatar_url_field_optional": True, "stream_typing_notifications": True,
    "linkifier_url_template": True, "user_list_incomplete": True,
    "include_deactivated_groups": True, "archived_channels": True,
    "empty_topic_name": True, "simplified_presence_events": True}


@dataclass
class Request:
    label: str
    method: str
    path: str
    account: str
    params: dict[str, Any]


@dataclass
class Figure:
    label: str
    status: int
    json_bytes: int
    gzip_bytes: int
    requests: int
    read_units: float
    write_units: float
    ms: float

    @property
    def cost(self) -> float:
        """API Gateway + Lambda (512 MB arm64, the measured time as its duration) +
        DynamoDB on-demand units."""
        return (API_GATEWAY_REST_PER_REQUEST + LAMBDA_PER_REQUEST
                + self.ms / 1000 * API_MEMORY_GB * LAMBDA_PER_GB_SECOND["arm64"]
                + self.read_units * DYNAMODB_PER_READ_UNIT
                + self.write_units * DYNAMODB_PER_WRITE_UNIT)

    @property
    def within_limits(self) -> bool:
        return self.gzip_bytes < LAMBDA_LIMIT and self.ms < GATEWAY_LIMIT_S * 1000


def requests_of(org: Org, partial: bool) -> list[Request]:
    """A client's start-up and a few daily requests."""
    big = org.big_channel
    web = {"apply_markdown": True, "client_gravatar": True, "slim_presence": True,
           "presence_history_limit_days": 365, "client_capabilities": WEB_CAPABILITIES,
           "include_subscribers": "partial" if partial else True}
    terminal = {"event_types": TERMINAL_EVENT_TYPES,
                "fetch_event_types": TERMINAL_FETCH_TYPES, "client_gravatar": True,
                "apply_markdown": True, "include_subscribers": True}
    far_end = {"anchor": "oldest", "num_before": 0, "num_after": 100,
               "narrow": [{"operator": "channel", "operand": big}]}
    return [
        Request("register, web app's set", "POST", "/register", "member", web),
        Request("register, terminal client's set", "POST", "/register", "member", terminal),
        Request("register, web app's set, 60,000 unread", "POST", "/register", "heavy", web),
        Request("GET /users", "GET", "/users", "member", {}),
        Request("GET /users/me/subscriptions", "GET", "/users/me/subscriptions", "member",
                {"include_subscribers": False}),
        Request("GET /users/me/subscriptions, subscribers", "GET",
                "/users/me/subscriptions", "heavy", {"include_subscribers": True}),
        Request("GET /realm/presence", "GET", "/realm/presence", "member", {}),
        Request("GET /messages, oldest 100 of #general", "GET", "/messages", "member",
                far_end),
    ]


def search_requests(org: Org) -> list[Request]:
    def search(text: str) -> dict[str, Any]:
        return {"anchor": "newest", "num_before": 100, "num_after": 0,
                "narrow": [{"operator": "search", "operand": text}]}
    return [Request(f"search, {kind} ({text})", "GET", "/messages", "member", search(text))
            for kind, text in org.words.items()]


def encoded(params: dict[str, Any]) -> str:
    return urlencode({k: v if isinstance(v, str) else json.dumps(v)
                      for k, v in params.items()})


Send = Callable[[Request], tuple[int, bytes, bytes]]   # status, JSON, as sent


def measure(send: Send, counter: Any, request: Request, repeat: int = 1) -> Figure:
    before_units = counter.units.copy() if counter else {}
    before_calls = sum(counter.calls.values()) if counter else 0
    started = time.perf_counter()
    status, body, wire = send(request)
    timings = [(time.perf_counter() - started) * 1000]
    requests = (sum(counter.calls.values()) - before_calls) if counter else 0
    units = (counter.units - before_units) if counter else {}
    for _ in range(repeat - 1):
        started = time.perf_counter()
        send(request)
        timings.append((time.perf_counter() - started) * 1000)
    return Figure(request.label, status, len(body), len(wire), requests,
                  float(units.get("read", 0)), float(units.get("write", 0)),
                  statistics.median(timings))


def print_figures(users: int, figures: list[Figure]) -> None:
    print(f"\n{users:,} users")
    print(f"{'operation':<46} {'status':>6} {'JSON bytes':>12} {'gzip bytes':>11} "
          f"{'requests':>8} {'RRU':>9} {'WRU':>7} {'ms':>8} {'$/call':>10} ok")
    for f in figures:
        print(f"{f.label:<46} {f.status:>6} {f.json_bytes:>12,} {f.gzip_bytes:>11,} "
              f"{f.requests:>8,} {f.read_units:>9,.1f} {f.write_units:>7,.0f} "
              f"{f.ms:>8,.0f} {f.cost:>10.7f} {'yes' if f.within_limits else 'NO'}")
    sys.stdout.flush()


def in_process_sender(client: Any, org: Org) -> Send:
    from bench.common import form_headers

    headers = {name: {**form_headers(a.email, a.api_key), "Accept-Encoding": "gzip"}
               for name, a in org.accounts.items()}

    def send(request: Request) -> tuple[int, bytes, bytes]:
        body = encoded(request.params)
        if request.method == "GET":
            response = client.http.request("GET", f"/api/v1{request.path}?{body}",
                                           headers=headers[request.account])
        else:
            response = client.http.request(request.method, f"/api/v1{request.path}",
                                           headers=headers[request.account],
                                           body=body.encode())
        wire = response.body
        plain = gzip.decompress(wire) if response.headers.get(
            "content-encoding") == "gzip" else wire
        return response.status_code, plain, wire
    return send


def mark_all_as_read(send: Send, counter: Any) -> Figure:
    """POST /mark_all_as_read until it answers complete: the rounds added up."""
    request = Request("mark all as read, 60,000 unread", "POST", "/mark_all_as_read",
                      "heavy", {})
    total: Figure | None = None
    rounds = 0
    while True:
        figure = measure(send, counter, request)
        rounds += 1
        complete = json.loads(figure_body_cache.pop())["complete"] if figure_body_cache \
            else True
        total = figure if total is None else Figure(
            total.label, figure.status, total.json_bytes, total.gzip_bytes,
            total.requests + figure.requests, total.read_units + figure.read_units,
            total.write_units + figure.write_units, total.ms + figure.ms)
        if complete or figure.status != 200 or rounds >= 50:
            break
    total.label = f"{total.label} ({rounds} requests)"
    return total


figure_body_cache: list[bytes] = []


def run_in_process(sizes: list[int], per_user: int, search: bool) -> None:
    from bench.common import RequestCounter, moto_backend
    from bench.large_org import build_org
    from bench.org_sink import MotoSink

    counter = RequestCounter()
    counter.install()
    for users in sizes:
        spec = OrgSpec.scaled(users, messages=users * per_user, search_index=search)
        with moto_backend():
            from chalice.test import Client

            from app import app

            started = time.perf_counter()
            org = build_org(spec, MotoSink(), f"large{users}")
            print(f"\n{users:,} users, {spec.channels:,} channels, {spec.messages:,} "
                  f"messages: {sum(org.counts.values()):,} items written in "
                  f"{time.perf_counter() - started:.0f} s ({org.heavy_unread:,} unread "
                  f"for `heavy`)", flush=True)
            with Client(app) as client:
                send = in_process_sender(client, org)

                def recording(request: Request) -> tuple[int, bytes, bytes]:
                    status, body, wire = send(request)
                    figure_body_cache[:] = [body]
                    return status, body, wire

                figures = [measure(send, counter, r, repeat=3)
                           for r in requests_of(org, partial=False)]
                figures.append(measure(send, counter, Request(
                    "register, web app's set, partial", "POST", "/register", "member",
                    {**requests_of(org, True)[0].params}), repeat=3))
                if search:
                    figures += [measure(send, counter, r, repeat=3)
                                for r in search_requests(org)]
                figures.append(mark_all_as_read(recording, counter))
                print_figures(users, figures)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[100, 1000, 10_000])
    parser.add_argument("--messages-per-user", type=int, default=100)
    parser.add_argument("--search", action="store_true",
                        help="write the search index too and search (memory: ~1 GB "
                             "per 100,000 messages)")
    args = parser.parse_args()
    run_in_process(args.sizes, args.messages_per_user, args.search)


if __name__ == "__main__":
    main()
