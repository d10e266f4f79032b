"""How actions write to the outbox: every audience through its `to_*()` helper (never a
dict literal), and nothing on the way to a client strips private keys, since none are
in an event (what the fan-out alone needs travels in the record's facts)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "chalicelib"


def _calls(name: str) -> list[tuple[Path, ast.Call]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == name:
                found.append((path, node))
    return found


def test_every_audience_is_built_by_a_helper() -> None:
    calls = _calls("add_event")
    assert len(calls) > 50   # the search finds them
    entries = _calls("OutboxEntry")
    assert entries
    literal = [f"{path.relative_to(ROOT)}:{call.lineno}"
               for path, call, position in [*((p, c, 3) for p, c in calls),
                                            *((p, c, 1) for p, c in entries)]
               if (len(call.args) > position and isinstance(call.args[position], ast.Dict))
               or any(k.arg == "audience" and isinstance(k.value, ast.Dict)
                      for k in call.keywords)]
    assert literal == []


def test_no_filter_strips_private_keys() -> None:
    delivery = (PACKAGE / "delivery" / "filters.py").read_text()
    assert 'startswith("_")' not in delivery
