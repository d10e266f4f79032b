"""Rewrites the packaged template without indentation.

`chalice package` indents its JSON; the API's OpenAPI body alone then takes ~700 KB and
the whole file passes CloudFormation's 1 MB template limit (cfn-lint E1002). The same
template written compactly is about half that size.

Run: python -m infra.compact_template build/package/sam.json
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def compact(path: Path) -> tuple[int, int]:
    before = path.stat().st_size
    template = json.loads(path.read_text())
    path.write_text(json.dumps(template, separators=(",", ":")))
    return before, path.stat().st_size


if __name__ == "__main__":
    before, after = compact(Path(sys.argv[1]))
    print(f"==> {sys.argv[1]}: {before:,} -> {after:,} bytes (CloudFormation's limit: 1,000,000)")
