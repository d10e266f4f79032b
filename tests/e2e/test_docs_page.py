"""The docs page in a real headless Chromium, served by the local stack."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from chalicelib.apidocs import DOCUMENT
from tests.e2e.conftest import REPO_ROOT

SCREENSHOT = REPO_ROOT / "build" / "docs-page.png"
# As this machine needs them: no sandbox as root, and no background connections, which
# the closed network refuses. Virtual time lets the page's scripts finish before the dump.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=20000"]
KNOWN_OPERATION = "operations-messages-send-message"


def chromium(profile: Path, *args: str) -> str:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.fail("Debian's chromium is not installed: `make browser` installs it")
    done = subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def test_the_document_is_public_and_the_committed_one(local_stack):
    response = requests.get(f"{local_stack.url}/api/v1/openapi.json", timeout=10)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json() == json.loads(DOCUMENT.read_text(encoding="utf-8"))
    page = requests.get(f"{local_stack.url}/api/docs", timeout=10)
    assert page.status_code == 200 and "swagger-ui-bundle.js" in page.text
    # Only the vendored files are served from the docs folder.
    assert requests.get(f"{local_stack.url}/api/docs/openapi.json", timeout=10
                        ).status_code == 404


def test_the_docs_page_renders_an_endpoint_in_chromium(local_stack, tmp_path):
    # GIVEN the docs page, linked to a known operation (Swagger UI opens deep links)
    url = f"{local_stack.url}/api/docs#/messages/send-message"
    # WHEN a real browser renders it
    dom = chromium(tmp_path / "dom", "--dump-dom", url)
    # THEN the operation's section is there, open, with its path and request fields
    section = re.search(rf'<div class="opblock opblock-post is-open" id="{KNOWN_OPERATION}">'
                        r'(.*?)</table>', dom, re.DOTALL)
    assert section is not None, dom[:2000]
    assert 'data-path="/api/v1/messages"' in section.group(1)
    for field in ("type", "to", "content", "topic"):
        assert f'data-property-name="{field}"' in section.group(1)
    # AND a screenshot of the page is kept for people to look at
    SCREENSHOT.parent.mkdir(exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    chromium(tmp_path / "shot", f"--screenshot={SCREENSHOT}", "--window-size=1280,1600",
             f"{local_stack.url}/api/docs")
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert SCREENSHOT.stat().st_size > 20_000   # a rendered page, not a blank one
