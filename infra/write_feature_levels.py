"""`make feature-levels`: writes docs/feature-levels.md from the level table
(chalicelib/core/feature_levels.py and its rows; a unit test fails when the two differ)."""
from __future__ import annotations

import sys
from pathlib import Path

from chalicelib.core.feature_levels import (
    CHANGES,
    EXTENSIONS_PARAMETER,
    HONOURED,
    NOT_HONOURED,
    NOT_OFFERED,
    REALM_SETTINGS_CAPABILITY,
    REFERENCE_DOCUMENT_LEVEL,
    REPORTED,
    WEBSOCKET_CAPABILITY,
    advertised_level,
)

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "feature-levels.md"

_HEAD = """\
# Feature levels: what this server promises

<!-- Generated from the level table by `make feature-levels`: edit its rows in
chalicelib/core/levels_before_11.py, levels_11.py, levels_12.py and levels_12_late.py. -->

`GET /server_settings` and `POST /register` advertise `service_feature_level`
**{level}**. Clients written against the reference read that number and rely on every
change the reference made up to it, so the number is computed from the table below
(`chalicelib/core/feature_levels.advertised_level`), never typed: it is the highest level the
table reaches with no *{not_honoured}* change at or below it.

## What a level promises

For every change at or below the advertised level, one of:

- **{honoured}**: the server answers in that level's shape and behaviour; the test named
  in the row fails if it stops doing so.
- **{not_offered}**: the server has no such endpoint or fetch type at all (404, or the
  key absent), exactly as a server without that feature; nothing answers in an older
  shape.
- **{reported}**: the parameter is accepted but not applied, and the answer lists it in
  `ignored_parameters_unsupported` (the reference's own way to tell a client so, since
  level 167).

A change that is none of these is **{not_honoured}** and caps the level just below it.

## How the walk was done

Up to level {doc_level}, the reference document (`../shared/reference/zulip-openapi.yaml`,
whose shapes are those of level {doc_level}) is the authority: the generated document is
compared with it operation by operation (`tests/unit/test_reference_comparison.py`), and
the responses and events of the operations in `tests/reference_contract.py` are checked
against the reference's own schemas with every object closed, on every functional test's
calls. The rows below {doc_level} are the changes found answered in an older shape (now
fixed) and the parameters reported as unsupported. After level {doc_level}, each level of
the reference's published changelog has a row. The next level is a new row in
`chalicelib/core/levels_12.py`, then `make feature-levels`.

## Extensions

This server's own fields, sent only to a client that asks for them (a client that
validates answers against the reference's schema would refuse them otherwise):

| Field | Where | How a client asks |
|---|---|---|
| `event_queue_websocket_url` | `POST /register` | client capability `{websocket}` |
| `event_queue_websocket_url` | `GET /server_settings` | parameter `{parameter}=true` |
| `empty_topic_display_name` (organization setting) | `realm` `update_dict` events \
| client capability `{realm_settings}` |

## Fields of later levels

What a change above the advertised level adds to answers and events is held back until
its level is advertised: each row's `sends` in the table names them, and one function
(`feature_levels.at_advertised_level`) leaves them out of channel objects, registration,
organization and user settings events, and stream update events (a property the level
does not know is changed without an event). Raising the advertised level lets them out
with no other change. What a change removed or renamed (a row's `removes`) is sent only
below its level, so a client never gets both forms. Held back now (added above the
advertised level):

{withheld}

## The table

| Level | Change | Where it is honoured | Status | Test |
|---:|---|---|---|---|
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|") or "-"


def _withheld() -> str:
    level = advertised_level()
    rows = [f"- level {c.level}: " + ", ".join(f"`{name}`" for name in c.sends)
            for c in sorted(CHANGES, key=lambda c: c.level) if c.level > level and c.sends]
    return "\n".join(rows) or "- nothing"


def render() -> str:
    head = _HEAD.format(withheld=_withheld(), level=advertised_level(), honoured=HONOURED,
                        not_offered=NOT_OFFERED, reported=REPORTED,
                        not_honoured=NOT_HONOURED, doc_level=REFERENCE_DOCUMENT_LEVEL,
                        websocket=WEBSOCKET_CAPABILITY, parameter=EXTENSIONS_PARAMETER,
                        realm_settings=REALM_SETTINGS_CAPABILITY)
    rows = [f"| {c.level} | {_cell(c.change)} | {_cell(c.where)} | {c.status} | "
            f"{_cell(f'`{c.test}`' if c.test else '')} |"
            for c in sorted(CHANGES, key=lambda c: c.level)]
    return head + "\n".join(rows) + "\n"


def main() -> int:
    DOCUMENT.write_text(render(), encoding="utf-8")
    print(f"==> {DOCUMENT}: {len(CHANGES)} changes, level {advertised_level()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
