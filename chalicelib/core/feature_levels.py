"""The level table: what the reference changed, level by level, and where this server
honours it. The advertised `service_feature_level` is computed here from the table
(docs/feature-levels.md is generated from it: `make feature-levels`). The rows are in
levels_before_11.py, levels_11.py, levels_12.py and levels_12_late.py; their vocabulary
in level_change.py.

The promise a level makes (docs/feature-levels.md, "What a level promises"): for every
change at or below it, the server answers in that level's shape and behaviour
(HONOURED), or has no such endpoint or fetch type at all (NOT_OFFERED: 404, or the key
absent, as from a server without the feature), or lists a parameter it does not apply
in `ignored_parameters_unsupported` (REPORTED, the reference's own way to say so since
level 167). One NOT_HONOURED change caps the advertised level just below it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar, cast

from chalicelib.core.level_change import (
    HONOURED,
    NOT_HONOURED,
    NOT_OFFERED,
    PARTIAL_SUBSCRIBERS_LEVEL,
    REFERENCE_DOCUMENT_LEVEL,
    REPORTED,
    SHAPES,
    Change,
    Status,
)
from chalicelib.core.levels_11 import ZULIP_11
from chalicelib.core.levels_12 import ZULIP_12
from chalicelib.core.levels_12_late import CHANGES_446_500
from chalicelib.core.levels_before_11 import BEFORE_11

__all__ = ["HONOURED", "NOT_HONOURED", "NOT_OFFERED", "PARTIAL_SUBSCRIBERS_LEVEL",
           "REFERENCE_DOCUMENT_LEVEL", "REPORTED", "SHAPES", "Change", "Status"]

# This server's own extensions: sent only to a client that asks for them.
WEBSOCKET_CAPABILITY = "teamchat_websocket"            # POST /register client_capabilities
EXTENSIONS_PARAMETER = "include_teamchat_extensions"   # GET /server_settings
# realm update_dict events for this server's own organization settings (the reference up
# to the advertised level has none of them in update_dict): empty_topic_display_name.
REALM_SETTINGS_CAPABILITY = "teamchat_realm_settings"  # POST /register client_capabilities

CHANGES: tuple[Change, ...] = (*BEFORE_11, *ZULIP_11, *ZULIP_12, *CHANGES_446_500)



def advertised_level(changes: tuple[Change, ...] | None = None) -> int:
    """The highest level the table reaches with no NOT_HONOURED change at or below it."""
    if changes is None:
        return _gates().level
    return _level_of(changes)


def _level_of(changes: tuple[Change, ...]) -> int:
    walked = max(change.level for change in changes)
    broken = [change.level for change in changes if change.status == NOT_HONOURED]
    return min([walked, *(level - 1 for level in broken)])


# ---- what the advertised level lets out ------------------------------------------------

@dataclass(frozen=True)
class _Gates:
    table: tuple[Change, ...]           # the table they were computed from
    level: int
    withheld: dict[str, frozenset[str]]   # shape -> keys added above `level`, or
                                          # removed at or below it


_computed: list[_Gates] = []


def _gates() -> _Gates:
    """Computed once per table (a test may put another table in CHANGES)."""
    if _computed and _computed[0].table is CHANGES:
        return _computed[0]
    level = _level_of(CHANGES)
    withheld: dict[str, set[str]] = {shape: set() for shape in SHAPES}
    for change in CHANGES:
        for name in change.sends if change.level > level else change.removes:
            shape, key = name.split(".", 1)
            withheld[shape].add(key)
    gates = _Gates(CHANGES, level, {k: frozenset(v) for k, v in withheld.items()})
    _computed[:] = [gates]
    return gates


def level_reached(level: int) -> bool:
    """Whether the advertised level includes a change of behaviour made at `level`."""
    return _gates().level >= level


def withheld(shape: str) -> frozenset[str]:
    """The keys of `shape` (SHAPES) that changes above the advertised level add (not sent
    until their level is advertised) or that changes up to it removed."""
    return _gates().withheld[shape]


Shaped = TypeVar("Shaped", bound=Mapping[str, object])


def at_advertised_level(shape: str, value: Shaped) -> Shaped:
    """`value` without the keys of `shape` that the advertised level does not reach (each
    such key is optional in its TypedDict: NotRequired)."""
    keys = withheld(shape)
    if not keys.intersection(value):
        return value
    return cast(Shaped, {k: v for k, v in value.items() if k not in keys})
