"""A generated organization (bench/large_org.py) written straight into a local stack's
state directory: built in this process's moto, each item placed straight into its table
(bench/org_sink.py, TableLoader), then saved as the stack's snapshot
(infra/local/snapshot.py). A stack started on that directory (`make run` with
LOCAL_STATE_DIR, or infra/local/launcher.py's start_stack) serves it at once, the demo
organization beside it. No item crosses HTTP, so it is several times faster than
`bench.large_org --stack`, which sends each to a running stack.

    .venv/bin/python -m bench.org_snapshot STATE_DIR [--users N] [--channels N]
        [--messages N] [--unread-mean N] [--out org.json]

prints (and with --out writes) the organization's accounts and how long each part took.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import time
from pathlib import Path
from typing import Any

from infra.local import environment


def build_into(state_dir: Path, spec: Any, subdomain: str) -> dict[str, Any]:
    """Builds the organization and saves it as `state_dir`'s state; its summary."""
    os.environ.update({
        "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": environment.REGION, "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "TABLE_PREFIX": environment.DEFAULT_PREFIX, "POWERTOOLS_LOG_LEVEL": "ERROR",
        "POWERTOOLS_METRICS_DISABLED": "true", "POWERTOOLS_TRACE_DISABLED": "true"})
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        os.environ.pop(name, None)
    from chalicelib import config

    config.bound_table_prefix()   # the stack's tables, before any model binds its own
    from moto import mock_aws

    from bench.large_org import build_org
    from bench.org_sink import TableLoader
    from infra import moto_patches
    from infra.local.snapshot import save_as_new_state
    from infra.resources import create_all

    moto_patches.apply()
    started = time.perf_counter()
    # What is built stays alive until it is saved: the collector, run again and again
    # meanwhile, would only walk it (a sixth of the build's CPU at 10,000 people).
    gc.disable()
    try:
        with mock_aws():
            create_all(environment.DEFAULT_PREFIX)
            org = build_org(spec, TableLoader(), subdomain)
            built = time.perf_counter()
            state_dir.mkdir(parents=True, exist_ok=True)
            save_as_new_state(state_dir)
    finally:
        gc.enable()
    seconds = {**{k: round(v, 1) for k, v in org.seconds.items()},
               "build": round(built - started, 1),
               "snapshot": round(time.perf_counter() - built, 1)}
    return {"realm_id": org.realm_id, "subdomain": org.subdomain, "spec": vars(spec),
            "accounts": {k: vars(a) for k, a in org.accounts.items()},
            "items": sum(org.counts.values()), "seconds": seconds}


def main() -> None:
    from bench.large_org import OrgSpec

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("state_dir", type=Path)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--channels", type=int, default=2_000)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--unread-mean", type=int, default=25)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--subdomain", default="large")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    spec = OrgSpec(args.users, args.channels, args.messages, args.seed, search_index=False,
                   unread_mean=args.unread_mean)
    summary = build_into(args.state_dir, spec, args.subdomain)
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
