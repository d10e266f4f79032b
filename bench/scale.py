"""What a client's start-up and daily requests cost in an organization of 100, 1,000 and
10,000 people (issue 41), built by bench/large_org.py: answer size (as JSON and as sent
with gzip), DynamoDB requests, read and write units, time, and cost per call at list
prices; whether each stays within Lambda's 6 MB answer and API Gateway's 29 s.

    .venv/bin/python -m bench.scale [sizes...] [--messages-per-user N] [--search]

runs on in-process moto (deterministic counts; times include moto's own work, in this
process). `--url URL --org FILE` sends the same requests to a running stack (`make run`,
with an organization made by `bench.large_org --stack --out FILE`): times only.
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, replace
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
API_MEMORY_GB = 1.5                 # the API function (infra/template.json, APIHandler)
TERMINAL_FETCH_TYPES = [            # zulip-term 0.7.0 (zulipterminal/model.py)
    "realm", "presence", "subscription", "message", "starred_messages",
    "update_message_flags", "muted_topics", "realm_user", "realm_user_groups",
    "update_global_notifications", "update_display_settings", "user_settings",
    "realm_emoji", "zulip_version"]
TERMINAL_EVENT_TYPES = ["message", "update_message", "reaction", "subscription", "typing",
                        "update_message_flags", "update_global_notifications",
                        "update_display_settings", "user_settings", "realm_emoji"]
WEB_CAPABILITIES = {                # the reference web app's page load (zerver/lib/home.py)
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
    partial_level: bool = False    # with level 412 advertised (partial_subscribers)
    gzip: bool = True              # sent with Accept-Encoding: gzip


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
    longest_ms: float = 0.0   # of several requests (mark all as read): the longest
    cpu_ms: float = 0.0       # this process's CPU (the app's alone with --database-process)

    @property
    def cost(self) -> float:
        """API Gateway + Lambda (512 MB arm64, the measured time as its duration: an upper
        bound, it includes moto's work) + DynamoDB on-demand units."""
        return (API_GATEWAY_REST_PER_REQUEST + LAMBDA_PER_REQUEST
                + self.ms / 1000 * API_MEMORY_GB * LAMBDA_PER_GB_SECOND["arm64"]
                + self.read_units * DYNAMODB_PER_READ_UNIT
                + self.write_units * DYNAMODB_PER_WRITE_UNIT)

    @property
    def within_limits(self) -> bool:
        return self.status == 200 and self.gzip_bytes * 4 / 3 < LAMBDA_LIMIT and \
            max(self.longest_ms or self.ms, 0) < GATEWAY_LIMIT_S * 1000


def start_up(org: Org) -> list[Request]:
    """A client's start-up and a few daily requests."""
    web = {"apply_markdown": True, "client_gravatar": True, "slim_presence": True,
           "presence_history_limit_days": 365, "client_capabilities": WEB_CAPABILITIES,
           "include_subscribers": True}
    terminal = {"event_types": TERMINAL_EVENT_TYPES,
                "fetch_event_types": TERMINAL_FETCH_TYPES, "client_gravatar": True,
                "apply_markdown": True, "include_subscribers": True}
    far_end = {"anchor": "oldest", "num_before": 0, "num_after": 100,
               "narrow": [{"operator": "channel", "operand": org.big_channel}]}
    return [
        Request("register: defaults, no gzip", "POST", "/register", "member", {},
                gzip=False),
        Request("register: web app's set", "POST", "/register", "member", web),
        Request("register: web app's set, partial (level 412)", "POST", "/register",
                "member", {**web, "include_subscribers": "partial"}, partial_level=True),
        Request("register: terminal client's set", "POST", "/register", "member", terminal),
        Request(f"register: web app's set, {org.heavy_unread:,} unread", "POST",
                "/register", "heavy", web),
        Request("GET /users", "GET", "/users", "member", {}),
        Request("GET /users/me/subscriptions", "GET", "/users/me/subscriptions", "heavy",
                {}),
        Request("GET /users/me/subscriptions, subscribers", "GET",
                "/users/me/subscriptions", "heavy", {"include_subscribers": True}),
        Request("GET /realm/presence", "GET", "/realm/presence", "member", {}),
        Request("GET /messages: oldest 100 of #general", "GET", "/messages", "member",
                far_end),
    ]


def searches(org: Org) -> list[Request]:
    def search(text: str) -> dict[str, Any]:
        return {"anchor": "newest", "num_before": 100, "num_after": 0,
                "narrow": [{"operator": "search", "operand": text}]}
    return [Request(f"search: {kind} word" if kind != "phrase" else "search: phrase",
                    "GET", "/messages", "member", search(text))
            for kind, text in org.words.items()]


def encoded(params: dict[str, Any]) -> str:
    return urlencode({k: v if isinstance(v, str) else json.dumps(v)
                      for k, v in params.items()})


Answer = tuple[int, bytes, bytes]         # status, JSON, as sent
Send = Callable[[Request], Answer]


def measure(send: Send, counter: Any, request: Request, repeat: int) -> tuple[Figure, bytes]:
    before_units = counter.units.copy() if counter else {}
    before_calls = sum(counter.calls.values()) if counter else 0
    started, cpu = time.perf_counter(), time.process_time()
    status, body, wire = send(request)
    timings = [(time.perf_counter() - started) * 1000]
    cpu_ms = (time.process_time() - cpu) * 1000
    requests = (sum(counter.calls.values()) - before_calls) if counter else 0
    units = (counter.units - before_units) if counter else {}
    for _ in range(repeat - 1):
        started = time.perf_counter()
        send(request)
        timings.append((time.perf_counter() - started) * 1000)
    return Figure(request.label, status, len(body), len(wire), requests,
                  float(units.get("read", 0)), float(units.get("write", 0)),
                  statistics.median(timings), cpu_ms=cpu_ms), body


FULL_VCPU_MB = 1769          # Lambda gives one vCPU at this memory, in proportion below
REQUEST_SECONDS = 0.010       # a DynamoDB request's typical latency, one after another
MODELLED_MB = (512, 1024, 1536, 1769)


def modelled_seconds(figure: Figure, memory_mb: int) -> float:
    """A request's time on AWS: the app's CPU at the function's share of a vCPU, plus
    its DynamoDB requests one after another (an upper bound: many go side by side)."""
    return figure.cpu_ms / 1000 / min(1.0, memory_mb / FULL_VCPU_MB) + \
        figure.requests * REQUEST_SECONDS


def print_modelled(figures: list[Figure]) -> None:
    print("\nModelled time on AWS (CPU at the memory's share of a vCPU, + 10 ms per "
          "DynamoDB request in sequence): " + ", ".join(f"{mb} MB" for mb in MODELLED_MB))
    for f in figures:
        print(f"  {f.label}: " + ", ".join(f"{modelled_seconds(f, mb):.1f} s"
                                          for mb in MODELLED_MB), flush=True)


def print_header(title: str) -> None:
    print(f"\n{title}")
    print("| operation | status | JSON bytes | gzip bytes | requests | RRU | WRU | ms "
          "| CPU ms | $ per call | within limits |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|", flush=True)


def print_figure(f: Figure) -> None:
    print(f"| {f.label} | {f.status} | {f.json_bytes:,} | {f.gzip_bytes:,} | "
          f"{f.requests:,} | {f.read_units:,.1f} | {f.write_units:,.0f} | {f.ms:,.0f} | "
          f"{f.cpu_ms:,.0f} | {f.cost:.7f} | {'yes' if f.within_limits else 'NO'} |",
          flush=True)


def mark_all_as_read(send: Send, counter: Any, heavy_unread: int) -> Figure:
    """POST /mark_all_as_read until it answers complete: its requests added up."""
    request = Request(f"mark all as read, {heavy_unread:,} unread", "POST",
                      "/mark_all_as_read", "heavy", {})
    total: Figure | None = None
    rounds = 0
    while True:
        figure, body = measure(send, counter, request, 1)
        rounds += 1
        total = replace(figure, longest_ms=figure.ms) if total is None else replace(
            total, status=figure.status, requests=total.requests + figure.requests,
            read_units=total.read_units + figure.read_units,
            write_units=total.write_units + figure.write_units, ms=total.ms + figure.ms,
            longest_ms=max(total.longest_ms, figure.ms))
        if figure.status != 200 or json.loads(body).get("complete", True) or rounds >= 50:
            break
    total.label = (f"{total.label} ({rounds} requests, the longest "
                   f"{total.longest_ms / 1000:,.1f} s; figures added up)")
    return total


def unread_summary(body: bytes) -> str:
    """What registration said of the unread messages: how many it listed, and whether
    it said older ones are left out (MAX_UNREAD_MESSAGES)."""
    state = json.loads(body).get("unread_msgs", {})
    listed = sum(len(entry["unread_message_ids"]) for group in ("streams", "pms", "huddles")
                 for entry in state.get(group, []))
    return (f"  (unread_msgs: {listed:,} message ids listed, count {state.get('count', 0):,}, "
            f"old_unreads_missing {state.get('old_unreads_missing')})")


def export_figures(org: Org, counter: Any) -> str:
    """The whole organization exported by the worker as on AWS: invocations of at most
    EXPORT_INVOCATION_SECONDS each, the job handed back between them."""
    from chalicelib.actions.workflows import export as export_module
    from chalicelib.actions.workflows.export import do_start_export, run_export_job
    from chalicelib.core.principal import Principal
    from chalicelib.models.realm_exports import RealmExport

    owner = org.accounts["owner"]
    caller = Principal(org.realm_id, owner.user_id, owner.email, 100, False)
    export_id = do_start_export(caller, 2)["id"]
    handed_back: list[int] = []
    requeue = export_module._requeue
    export_module._requeue = lambda realm_id, export_id: handed_back.append(export_id)
    invocations, peaks, before = 0, [], sum(counter.calls.values())
    started = time.perf_counter()
    # tracemalloc slows Python several times over: memory is traced on small exports
    # only (the writer holds a part and a page of messages, whatever the size).
    traced = org.spec.messages <= 100_000
    try:
        while True:
            invocations += 1
            if traced:
                tracemalloc.start()
            run_export_job({"realm_id": org.realm_id, "export_id": export_id})
            if traced:
                peaks.append(tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
            item = RealmExport.get(org.realm_id, export_id)
            if item.status != "pending":
                break
    finally:
        export_module._requeue = requeue
    seconds = time.perf_counter() - started
    parts = len((item.progress or {}).get("parts", []))
    return (f"export (standard) of {org.spec.messages:,} messages: {item.status}, "
            f"{(item.size or 0) / 1e6:,.1f} MB in {parts} parts, {invocations} "
            f"invocation(s) of at most {os.environ.get('EXPORT_INVOCATION_SECONDS', '40')} s, "
            f"{seconds:,.0f} s in all here, {sum(counter.calls.values()) - before:,} AWS "
            f"requests" + (f", largest allocation peak of an invocation "
                           f"{max(peaks) / 1e6:,.0f} MB (Python allocations with moto's, "
                           "tracemalloc)" if peaks else ""))


def advertising(level: int) -> tuple[Any, ...]:
    """The level table as if every change up to `level` were honoured and the next were
    not (what raising the level in chalicelib/core/feature_levels.py would do)."""
    from chalicelib.core import feature_levels as table

    honoured = tuple(replace(c, status=table.HONOURED)
                     if c.status == table.NOT_HONOURED and c.level <= level else c
                     for c in table.CHANGES)
    return (*honoured, table.Change(level + 1, "advertised by bench.scale", "", "",
                                    table.NOT_HONOURED))


def in_process_sender(client: Any, org: Org) -> Send:
    from bench.common import form_headers
    from chalicelib.core import feature_levels

    headers = {name: {**form_headers(a.email, a.api_key), "Accept-Encoding": "gzip"}
               for name, a in org.accounts.items()}
    plain = {name: {k: v for k, v in h.items() if k != "Accept-Encoding"}
             for name, h in headers.items()}
    advertised = feature_levels.CHANGES
    partial = advertising(feature_levels.PARTIAL_SUBSCRIBERS_LEVEL)

    def send(request: Request) -> Answer:
        body = encoded(request.params)
        feature_levels.CHANGES = partial if request.partial_level else advertised
        try:
            sent = (headers if request.gzip else plain)[request.account]
            if request.method == "GET":
                response = client.http.request("GET", f"/api/v1{request.path}?{body}",
                                               headers=sent)
            else:
                response = client.http.request(request.method, f"/api/v1{request.path}",
                                               headers=sent, body=body.encode())
        finally:
            feature_levels.CHANGES = advertised
        wire = response.body
        coding = {k.lower(): v for k, v in response.headers.items()}.get("content-encoding")
        return response.status_code, gzip.decompress(wire) if coding == "gzip" else wire, wire
    return send


def run_in_process(sizes: list[int], per_user: int, search: bool, repeat: int,
                   database_process: bool = False) -> None:
    """On in-process moto, or (`database_process`) moto in a process of its own, so that
    this process's CPU is the app's alone (the organization is then written over HTTP:
    keep it small)."""
    from bench.common import RequestCounter, database_process_backend, moto_backend

    counter = RequestCounter()
    counter.install()
    # One database process for every size (clients keep the endpoint they first met);
    # in-process moto afresh for each.
    shared = database_process_backend() if database_process else contextlib.nullcontext()
    with shared:
        for users in sizes:
            with contextlib.nullcontext() if database_process else moto_backend():
                measure_size(users, per_user, search, repeat, database_process, counter)


def measure_size(users: int, per_user: int, search: bool, repeat: int,
                 database_process: bool, counter: Any) -> None:
    """One organization of `users` people built and measured."""
    import boto3
    from chalice.test import Client

    from app import app
    from bench.large_org import build_org
    from bench.org_sink import BatchSink, MotoSink
    from chalicelib import config

    spec = OrgSpec.scaled(users, messages=users * per_user, search_index=search)
    s3 = boto3.client("s3", region_name="us-east-1")
    if config.upload_bucket() not in {b["Name"] for b in s3.list_buckets()["Buckets"]}:
        s3.create_bucket(Bucket=config.upload_bucket())
    started = time.perf_counter()
    org = build_org(spec, BatchSink() if database_process else MotoSink(),
                    f"large{users}")
    print(f"\n{users:,} people, {spec.channels:,} channels, {spec.messages:,} "
          f"messages{' with the search index' if search else ''}: "
          f"{sum(org.counts.values()):,} items written in "
          f"{time.perf_counter() - started:.0f} s "
          f"({', '.join(f'{k} {v:.0f} s' for k, v in org.seconds.items())}); load "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    with Client(app) as client:
        send = in_process_sender(client, org)
        print_header(f"{users:,} people ("
                     + ("moto in its own process: CPU ms is the app's alone)"
                        if database_process else "in-process moto)"))
        registrations = []
        for request in start_up(org) + (searches(org) if search else []):
            figure, body = measure(send, counter, request, repeat)
            print_figure(figure)
            if request.path == "/register":
                registrations.append(figure)
            if request.account == "heavy" and request.path == "/register" \
                    and figure.status == 200:
                print(unread_summary(body), flush=True)
            elif figure.status != 200:
                print(f"  ({json.loads(body).get('msg')})", flush=True)
        if database_process:
            print_modelled(registrations)
        print_figure(mark_all_as_read(send, counter, org.heavy_unread))
        print(export_figures(org, counter), flush=True)


def run_against(url: str, org_file: str, repeat: int) -> None:
    import base64
    import urllib.error
    import urllib.request

    from bench.large_org import Account

    with open(org_file) as handle:
        data = json.load(handle)
    org = Org(data["realm_id"], data["subdomain"], OrgSpec(**data["spec"]),
              {k: Account(**v) for k, v in data["accounts"].items()}, data["big_channel"],
              data["words"], data["heavy_unread"])

    def send(request: Request) -> Answer:
        account = org.accounts[request.account]
        token = base64.b64encode(f"{account.email}:{account.api_key}".encode()).decode()
        body = encoded(request.params)
        target = f"{url}/api/v1{request.path}" + (f"?{body}" if request.method == "GET"
                                                  else "")
        http = urllib.request.Request(
            target, method=request.method, data=None if request.method == "GET"
            else body.encode(), headers={"Authorization": f"Basic {token}",
                                         "Accept-Encoding": "gzip",
                                         "Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(http, timeout=120) as answer:
                status, wire, coding = answer.status, answer.read(), answer.headers.get(
                    "Content-Encoding")
        except urllib.error.HTTPError as error:
            status, wire, coding = error.code, error.read(), error.headers.get(
                "Content-Encoding")
        return status, gzip.decompress(wire) if coding == "gzip" else wire, wire

    print_header(f"{org.spec.users:,} people, {org.spec.messages:,} messages on {url} "
                 f"(times: median of {repeat}; load {os.getloadavg()[0]:.1f})")
    for request in [r for r in start_up(org) if not r.partial_level] + searches(org):
        print_figure(measure(send, None, request, repeat)[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[100, 1000, 10_000])
    parser.add_argument("--messages-per-user", type=int, default=100)
    parser.add_argument("--search", action="store_true",
                        help="write the search index too and search (memory: about 1 GB "
                             "per 100,000 messages)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database-process", action="store_true",
                        help="moto in its own process: the CPU column is the app's own")
    parser.add_argument("--url", help="a running stack: times only")
    parser.add_argument("--org", help="with --url: the file bench.large_org --out wrote")
    args = parser.parse_args()
    if args.url:
        run_against(args.url.rstrip("/"), args.org, args.repeat)
    else:
        run_in_process(args.sizes, args.messages_per_user, args.search, args.repeat,
                       args.database_process)


if __name__ == "__main__":
    main()
