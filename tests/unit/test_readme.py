"""The README a newcomer reads is true on a fresh clone: it names no file outside the
repository, every repository path it names exists, the client versions it names are the
pinned ones, and the admin CLI it points to answers --help without a running stack."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "docs/api.md", "docs/development.md"]
# Made by the make targets or the local stack, so absent from a fresh clone.
GENERATED = ("build/", ".local-state/", ".venv/")
_PATH = re.compile(r"`((?:app\.py|Makefile|requirements[\w-]*\.txt|(?:chalicelib|infra|tests|"
                   r"bench|docs|\.ci|build|\.local-state)/[\w./-]*))[^`]*`")


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 200


@pytest.mark.parametrize("page", PAGES)
def test_a_page_names_nothing_outside_the_repository(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "../" not in text, f"{page} refers outside the repository"
    assert "shared/" not in text


@pytest.mark.parametrize("page", PAGES)
def test_every_path_a_page_names_exists(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    named = {m.group(1).rstrip(".") for m in _PATH.finditer(text)}
    assert named, page
    missing = sorted(p for p in named if not p.startswith(GENERATED)
                     and not (ROOT / p).exists())
    assert missing == []


def test_the_client_versions_are_the_pinned_ones():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pins = {}
    for name in ("requirements-dev.txt", "requirements-terminal.txt"):
        for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
            package, _, version = line.partition("==")
            pins[package.strip()] = version.strip()
    assert f"zulip-term {pins['zulip-term']}" in readme
    assert f"`zulip` {pins['zulip']}" in readme
    assert f"`zulip-botserver` {pins['zulip-botserver']}" in readme


def test_the_admin_cli_helps_without_a_stack_or_aws(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["LOCAL_STATE_DIR"] = str(tmp_path)   # no stack runs there
    result = subprocess.run([sys.executable, "-m", "chalicelib.admin", "--help"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in re.findall(r"chalicelib\.admin ([a-z-]+) ", readme):
        assert command in result.stdout, command
