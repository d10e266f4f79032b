"""`make lint`'s security gate: checkov over the packaged template, no unexplained finding.

Passes when checkov reports no failed check and no parsing error, and every skipped check
carries a written reason (checkov's inline skip on the resource:
`Metadata: {checkov: {skip: [{id, comment}]}}`). Prints the counts and the skips, grouped
by check, so a reviewer reads the decisions in one place.

    python -m infra.checkov_gate --checkov build/checkov-venv/bin/checkov build/package/sam.json
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from typing import Any

MIN_REASON = 20   # characters: "ok", "n/a" or "false positive" alone explain nothing


def run_checkov(checkov: str, template: str) -> dict[str, Any]:
    done = subprocess.run(
        [checkov, "-f", template, "--framework", "cloudformation", "--skip-download",
         "-o", "json"],
        capture_output=True, text=True, check=False)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise SystemExit(f"checkov gave no report (exit {done.returncode}):\n"
                         f"{done.stderr[-2000:]}") from error
    if isinstance(report, list):
        report = report[0]
    if "results" not in report:   # a template with no finding of any kind
        report = {"summary": report, "results": {"failed_checks": [], "skipped_checks": []}}
    return report


def problems_of(report: dict[str, Any]) -> list[str]:
    problems = []
    if report["summary"].get("parsing_errors"):
        problems.append(f"checkov could not parse: {report['summary']['parsing_errors']}")
    for failed in report["results"].get("failed_checks", []):
        problems.append(f"FAILED {failed['check_id']} on {failed['resource']}: "
                        f"{failed['check_name']}")
    for skipped in report["results"].get("skipped_checks", []):
        reason = (skipped["check_result"].get("suppress_comment") or "").strip()
        if len(reason) < MIN_REASON:
            problems.append(f"SKIPPED WITHOUT A REASON {skipped['check_id']} on "
                            f"{skipped['resource']}: {reason!r}")
    return problems


def skips_by_check(report: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    for skipped in report["results"].get("skipped_checks", []):
        reason = (skipped["check_result"].get("suppress_comment") or "").strip()
        grouped[(skipped["check_id"], reason)].append(skipped["resource"].split(".")[-1])
    return grouped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkov", default="checkov")
    parser.add_argument("template")
    args = parser.parse_args(argv)
    report = run_checkov(args.checkov, args.template)
    summary = report["summary"]
    for (check_id, reason), resources in sorted(skips_by_check(report).items()):
        print(f"  skip {check_id} x{len(resources)} ({', '.join(resources[:4])}"
              f"{', ...' if len(resources) > 4 else ''}): {reason}")
    problems = problems_of(report)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"==> checkov {summary.get('checkov_version', '?')}: passed {summary['passed']}, "
          f"failed {summary['failed']}, skipped {summary['skipped']} with reasons")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
