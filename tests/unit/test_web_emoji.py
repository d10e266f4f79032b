"""Every emoji the web client's picker offers is one the server accepts, by name and code."""
from __future__ import annotations

import re

from chalicelib.rules.emoji import UNICODE_EMOJI, check_emoji
from infra.local.environment import REPO_ROOT


def test_the_pickers_emoji_are_accepted_by_the_server():
    source = (REPO_ROOT / "web" / "src" / "emoji.js").read_text()
    pairs = re.findall(r"\['([a-z0-9_\-]+)', '([0-9a-f\-]+)'\]", source)
    assert len(pairs) >= 40
    for name, code in pairs:
        check_emoji(name, code, UNICODE_EMOJI)   # raises on a name or code it refuses


def test_the_clients_emoji_table_is_the_servers():
    """web/src/emoji-data.js is what `make web-emoji` writes from the server's table."""
    from infra.write_web_emoji import TARGET, entries, render

    assert TARGET.read_text() == render(), "run `make web-emoji`"
    for entry in entries()[::50]:
        code, *names = entry.split(" ")
        for name in names:
            check_emoji(name, code, UNICODE_EMOJI)
