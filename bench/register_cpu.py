"""What a registration sends and costs the app at 10,000 people (issue 48): the answer's
bytes in all and per top-level key, as JSON and as Lambda would return it (the body as a
JSON string, quotes escaped: http/compression.py), and the app's own CPU for the
reference web app's registration set, with moto in a process of its own so that this
process's CPU is the app's alone.

The organization is bench/large_org.py's, saved as a local stack's state by
bench/org_snapshot.py (no item crosses HTTP), then served by the stack's database
process (infra/local/database.py) on a copy of that state:

    .venv/bin/python -m bench.org_snapshot STATE --users 10000 --channels 2000 \
        --messages 20000 --out org.json
    .venv/bin/python -m bench.register_cpu STATE org.json [--repeat 5] [--profile FILE]

prints the sizes, the CPU and wall time of each run of the web app's set (and their
medians), the DynamoDB requests, and the time modelled on AWS at the API function's
memory. `--account heavy` registers the reader with the most unread messages.
"""
from __future__ import annotations

import argparse
import base64
import collections
import gzip
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

# The reference web app's page load (zerver/lib/home.py), as bench/scale.py sends it.
WEB_CAPABILITIES = {
    "notification_settings_null": True, "bulk_message_deletion": True,
    "user_avatar_url_field_optional": True, "stream_typing_notifications": True,
    "linkifier_url_template": True, "user_list_incomplete": True,
    "include_deactivated_groups": True, "archived_channels": True,
    "empty_topic_name": True, "simplified_presence_events": True}
WEB_SET = {"apply_markdown": True, "client_gravatar": True, "slim_presence": True,
           "presence_history_limit_days": 365, "client_capabilities": WEB_CAPABILITIES,
           "include_subscribers": True}
VCPU_MB = 1769               # Lambda gives a function one vCPU at 1,769 MB
REQUEST_MS = 10              # a DynamoDB request's latency, one after another (upper bound)
MEMORIES_MB = (512, 1024, 1536, 1769)
CHANNEL_KEYS = ("streams", "never_subscribed", "subscriptions", "unsubscribed")


def _start_database(state: Path) -> tuple[Any, str]:
    from infra.local import environment
    from infra.local.child import start_child

    return start_child("infra.local.database", [str(state),
                                                 str(environment.free_port())],
                       lambda line: print(f"  database: {line}", flush=True))


def _counting_requests() -> collections.Counter[str]:
    """DynamoDB requests by operation (botocore's one entry point, as bench/common.py)."""
    import botocore.client

    calls: collections.Counter[str] = collections.Counter()
    original = botocore.client.BaseClient._make_api_call

    def counting(client: Any, operation: str, params: dict[str, Any]) -> Any:
        if client.meta.service_model.service_name == "dynamodb":
            calls[operation] += 1
        return original(client, operation, params)

    botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]
    return calls


def key_sizes(answer: dict[str, Any]) -> list[tuple[str, int]]:
    """Each top-level key's share of the answer: `"key":value,` as the app writes it."""
    return sorted(((key, len(json.dumps({key: value}, separators=(",", ":"))) - 1)
                   for key, value in answer.items()), key=lambda pair: -pair[1])


def lambda_bytes(body: str) -> int:
    """The body as a Lambda proxy answer carries it: a JSON string, quotes escaped."""
    return len(json.dumps(body))


def print_sizes(label: str, body: str, people: int, channels: int) -> None:
    answer = json.loads(body)
    print(f"\n{label}: {len(body):,} bytes of JSON, {lambda_bytes(body):,} as Lambda's "
          f"answer (limit {6 * 1024 * 1024:,}), gzip {len(gzip.compress(body.encode(), 5)):,}")
    for key, size in key_sizes(answer)[:12]:
        count = len(answer[key]) if isinstance(answer[key], list | dict) else ""
        print(f"  {key:<28} {size:>10,}  {count!s:>6}")
    channel_bytes = sum(size for key, size in key_sizes(answer) if key in CHANNEL_KEYS)
    print(f"  per person: {len(body) / people:,.0f} bytes; realm_users per entry: "
          f"{_per_entry(answer, 'realm_users')}; streams per entry: "
          f"{_per_entry(answer, 'streams')}; never_subscribed per entry: "
          f"{_per_entry(answer, 'never_subscribed')}; channel lists per channel: "
          f"{channel_bytes / channels:,.0f}", flush=True)


def _per_entry(answer: dict[str, Any], key: str) -> str:
    entries = answer.get(key) or []
    if not entries:
        return "-"
    return f"{len(json.dumps(entries, separators=(',', ':'))) / len(entries):,.0f}"


def measure(state: Path, org_file: Path, repeat: int, profile: Path | None,
            account: str, database_url: str | None = None) -> None:
    from infra.local import environment
    from infra.local.child import stop_child

    org = json.loads(org_file.read_text())
    people, channels = org["spec"]["users"], org["spec"]["channels"]
    if database_url:            # a database already serving that state
        environment.configure(database_url, environment.DEFAULT_PREFIX)
        os.environ["POWERTOOLS_LOG_LEVEL"] = "ERROR"
        _run(org, people, channels, repeat, profile, account, _counting_requests())
        return
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "state"
        shutil.copytree(state, copy)        # the database writes its journal there
        started = time.perf_counter()
        database, url = _start_database(copy)
        print(f"database restored in {time.perf_counter() - started:.0f} s", flush=True)
        try:
            environment.configure(url, environment.DEFAULT_PREFIX)
            os.environ["POWERTOOLS_LOG_LEVEL"] = "ERROR"
            calls = _counting_requests()
            _run(org, people, channels, repeat, profile, account, calls)
        finally:
            stop_child(database, timeout=30)


def _run(org: dict[str, Any], people: int, channels: int, repeat: int,
         profile: Path | None, account_name: str, calls: collections.Counter[str]) -> None:
    from chalice.test import Client

    from app import app
    from chalicelib.http import compression

    account = org["accounts"][account_name]
    token = base64.b64encode(f"{account['email']}:{account['api_key']}".encode()).decode()
    headers = {"Authorization": f"Basic {token}",
               "Content-Type": "application/x-www-form-urlencoded"}
    with Client(app) as client:
        def send(params: dict[str, Any], gzipped: bool) -> tuple[int, str]:
            body = urlencode({k: v if isinstance(v, str) else json.dumps(v)
                              for k, v in params.items()}).encode()
            sent = {**headers, **({"Accept-Encoding": "gzip"} if gzipped else {})}
            answer = client.http.request("POST", "/api/v1/register", headers=sent,
                                         body=body)
            wire = answer.body
            if {k.lower(): v for k, v in answer.headers.items()}.get(
                    "content-encoding") == "gzip":
                wire = gzip.decompress(wire)
            return answer.status_code, wire.decode()

        send(WEB_SET, True)                 # warm: imports, connections, caches
        status, plain = send({}, False)
        print(f"\nPOST /register, no parameters, no gzip: {status} "
              f"({json.loads(plain).get('msg', '')[:300]})")
        limit = compression.MAX_INVOCATION_ANSWER_BYTES
        compression.MAX_INVOCATION_ANSWER_BYTES = 1 << 40   # to see what it would send
        try:
            print_sizes("the same answer, uncapped", send({}, False)[1], people, channels)
        finally:
            compression.MAX_INVOCATION_ANSWER_BYTES = limit
        cpu, wall = [], []
        for _ in range(repeat):
            calls.clear()
            begun, started = time.process_time(), time.perf_counter()
            status, body = send(WEB_SET, True)
            cpu.append(time.process_time() - begun)
            wall.append(time.perf_counter() - started)
            assert status == 200, body[:300]
        print_sizes("the web app's set", body, people, channels)
        unread = json.loads(body).get("unread_msgs", {})
        print(f"  unread: {unread.get('count')} counted, "
              f"{sum(len(s['unread_message_ids']) for s in unread.get('streams', []))} in "
              f"channels, old_unreads_missing {unread.get('old_unreads_missing')}")
        requests = sum(calls.values())
        median = statistics.median(cpu)
        print(f"\nthe web app's set, the app's CPU: {', '.join(f'{c:.2f}' for c in cpu)} s "
              f"(median {median:.2f} s); {requests} DynamoDB requests "
              f"({dict(calls)}); load {os.getloadavg()[0]:.1f}")
        print(f"the web app's set, wall time on this stack: "
              f"{', '.join(f'{w:.2f}' for w in wall)} s (median {statistics.median(wall):.2f} s)")
        for memory in MEMORIES_MB:
            share = min(1.0, memory / VCPU_MB)
            print(f"  {memory:>5} MB: {share:.2f} of a vCPU, CPU {median / share:.2f} s "
                  f"+ requests {requests * REQUEST_MS / 1000:.2f} s = "
                  f"{median / share + requests * REQUEST_MS / 1000:.2f} s")
        if profile is not None:
            _profile(lambda: send(WEB_SET, True), profile)


def _profile(action: Callable[[], object], out: Path) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile(time.process_time)   # CPU, not the waits for moto
    profiler.runcall(action)
    profiler.dump_stats(out)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("state_dir", type=Path, help="what bench.org_snapshot saved")
    parser.add_argument("org", type=Path, help="its --out file")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--account", default="member")
    parser.add_argument("--profile", type=Path, help="also profile one run (cProfile)")
    parser.add_argument("--database", help="the URL of a database process already serving "
                                           "the state (python -m infra.local.database)")
    args = parser.parse_args()
    measure(args.state_dir, args.org, args.repeat, args.profile, args.account,
            args.database)


if __name__ == "__main__":
    main()
