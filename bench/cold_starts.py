"""Cold import CPU of each Lambda function, loaded as a deployment loads it.

Run: .venv/bin/python -m bench.cold_starts [FUNCTION ...]   (after `make package`;
     the functions by their template names, e.g. Fanout; all by default)

For every function in build/package/sam.json: a fresh interpreter with that function's
template `Environment` variables imports the module its `Handler` names and resolves the
handler; the CPU seconds of that import are compared with `import boto3, pynamodb.models`
in a fresh interpreter, run in turn with it (pairs, so that this machine's drifting
speed moves both; the ratio is the median of the pairs' ratios). The implied cold
start scales the CPU time to the function's memory size (Lambda gives one vCPU at
1,769 MB, in proportion below it).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

TEMPLATE = Path("build/package/sam.json")
RUNS = 7
FULL_VCPU_MB = 1769
PROBE = """
import time, importlib, sys
started = time.process_time()
{body}
print(time.process_time() - started)
"""


def _env_value(value: Any) -> str:
    """Template values that are intrinsics (Ref, Fn::...) become a placeholder string."""
    return value if isinstance(value, str) else "bench-placeholder"


def import_cpu(body: str, env: dict[str, str]) -> float:
    """CPU seconds of `body` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", PROBE.format(body=body)], env=env,
                         check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


BASELINE = "import boto3, pynamodb.models"


def paired(body: str, env: dict[str, str], base_env: dict[str, str]) \
        -> tuple[float, float, float]:
    """Median CPU of `body`, of the baseline run beside it, and of their ratios."""
    mine, theirs = [], []
    for _ in range(RUNS):
        theirs.append(import_cpu(BASELINE, base_env))
        mine.append(import_cpu(body, env))
    ratios = [m / t for m, t in zip(mine, theirs, strict=True)]
    return statistics.median(mine), statistics.median(theirs), statistics.median(ratios)


def functions(template: dict[str, Any]) -> list[tuple[str, str, int, dict[str, str]]]:
    """(name, handler, memory, environment: the template's globals and the function's)."""
    shared = (((template.get("Globals") or {}).get("Function") or {}).get("Environment")
              or {}).get("Variables") or {}
    found = []
    for name, resource in sorted(template["Resources"].items()):
        if resource["Type"] not in ("AWS::Serverless::Function", "AWS::Lambda::Function"):
            continue
        props = resource["Properties"]
        variables = (props.get("Environment") or {}).get("Variables") or {}
        found.append((name, props["Handler"], int(props.get("MemorySize", 128)),
                      {k: _env_value(v) for k, v in {**shared, **variables}.items()}))
    return found


def main() -> None:
    wanted = set(sys.argv[1:])
    template = json.loads(TEMPLATE.read_text())
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("TABLE_", "STAGE"))}
    base_env.update(AWS_DEFAULT_REGION="us-east-1", AWS_ACCESS_KEY_ID="bench",
                    AWS_SECRET_ACCESS_KEY="bench", PYTHONDONTWRITEBYTECODE="0")
    print(f"Cold import CPU (median of {RUNS} fresh interpreters), each run beside "
          f"`{BASELINE}`\n")
    print(f"{'function':<22} {'handler':<48} {'MB':>5} {'CPU ms':>7} {'base ms':>8}"
          f" {'ratio':>6} {'cold start at MB':>17}")
    for name, handler, memory, variables in functions(template):
        if wanted and name not in wanted:
            continue
        module, _, attribute = handler.rpartition(".")
        body = f"getattr(importlib.import_module({module!r}), {attribute!r})"
        cpu, baseline, ratio = paired(body, {**base_env, **variables}, base_env)
        implied = cpu * max(1.0, FULL_VCPU_MB / memory)
        print(f"{name:<22} {handler:<48} {memory:>5} {cpu * 1000:>7.0f} "
              f"{baseline * 1000:>8.0f} {ratio:>5.2f}x {implied:>15.2f} s")


if __name__ == "__main__":
    main()
