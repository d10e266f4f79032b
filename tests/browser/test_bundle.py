"""What the build ships: at most 150 KB of JavaScript gzipped, no inline script, no
source maps."""
from __future__ import annotations

import gzip
import re

from tests.browser.conftest import WEB_DIST, chromium_path

MAX_GZIPPED_JS = 150 * 1024


def test_the_javascript_shipped_is_small():
    chromium_path()   # fails clearly when the client is not built
    scripts = sorted((WEB_DIST / "assets").glob("*.js"))
    assert scripts, "no JavaScript in the build"
    gzipped = sum(len(gzip.compress(path.read_bytes(), compresslevel=9)) for path in scripts)
    print(f"JavaScript shipped: {gzipped / 1024:.1f} KB gzipped in {len(scripts)} file(s)")
    assert gzipped <= MAX_GZIPPED_JS
    assert not list(WEB_DIST.rglob("*.map"))


def test_the_page_loads_its_script_from_a_file():
    page = (WEB_DIST / "index.html").read_text()
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.DOTALL)
    assert scripts and all('src="/assets/' in attrs and not body.strip()
                           for attrs, body in scripts)
    assert " on" not in re.sub(r"\s+", " ", page).replace(" on ", "")   # no inline handlers
