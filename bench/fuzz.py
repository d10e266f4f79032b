"""`make fuzz`: a long property-based run against the generated OpenAPI document.

Runs tests/functional/test_property_based.py in rounds, each with a new seed and more
requests per operation, until FUZZ_SECONDS (default 600) are spent; prints the requests
sent, the failures found (server errors and contract violations) and where.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/functional/test_property_based.py"


def main() -> int:
    budget = float(os.environ.get("FUZZ_SECONDS", "600"))
    examples = int(os.environ.get("FUZZ_EXAMPLES", "25"))
    started = time.monotonic()
    stats_path = Path(tempfile.mkdtemp()) / "stats.jsonl"
    round_number = 0
    while time.monotonic() - started < budget:
        round_number += 1
        left = budget - (time.monotonic() - started)
        env = {**os.environ, "PROPERTY_SEED": str(1000 + round_number),
               "PROPERTY_EXAMPLES": str(examples),
               # A round stops adding examples when the run's time is nearly up.
               "PROPERTY_BUDGET_SECONDS": str(max(left - 60, 30)),
               "PROPERTY_STATS": str(stats_path)}
        print(f"==> round {round_number}: seed {env['PROPERTY_SEED']}, {examples} requests "
              f"per operation, {left:.0f} s left", flush=True)
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--no-header", "-rN", TEST], cwd=REPO_ROOT, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    rounds = [json.loads(line) for line in stats_path.read_text().splitlines()] \
        if stats_path.exists() else []
    requests = sum(r["requests"] for r in rounds)
    failures = [detail for r in rounds for detail in r["failure_details"]]
    elapsed = time.monotonic() - started
    print(f"fuzz: {len(rounds)} rounds, {requests} requests in {elapsed:.0f} s "
          f"({requests / elapsed:.1f} requests/s), {len(failures)} failing operations")
    for detail in sorted(set(failures)):
        print(f"  {detail}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
