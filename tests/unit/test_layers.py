"""The house's layers run one way: each package imports only the layers below it.

core -> rules, aws -> models -> search, narrow -> delivery -> actions (reads below commands)
-> notifications, webhooks -> fanout, registration -> http -> realtime -> api.
Inside actions/ each area imports only the areas below it (AREAS, bottom first), by
chains of at most MAX_CHAIN modules.
A violation here is an arrow that runs back up; the message names the file and import.
"""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "chalicelib"

# What each layer may import from chalicelib (besides itself and config/log helpers).
ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    # Domain rules (settings and their defaults, mentions, markdown, emoji, limits) and the
    # AWS plumbing (clients, item encoding, logs, metrics, traces): side by side, pure.
    "rules": {"core", "rules", "config"},
    "aws": {"core", "aws", "config"},
    "models": {"core", "rules", "aws", "models", "config"},
    # The full-text index (tokenizing, postings, queries): over the models only.
    "search": {"core", "rules", "aws", "models", "search", "config"},
    # The narrow language (parsing, evaluating facts): over the models and search.
    "narrow": {"core", "rules", "aws", "models", "search", "narrow", "config"},
    "delivery": {"core", "rules", "aws", "models", "search", "narrow", "delivery", "config"},
    "actions": {"core", "rules", "aws", "models", "search", "narrow", "delivery",
                "actions", "config"},
    # Missed-message email and push: its rules and jobs sit above the actions (the
    # unsubscribe link changes a setting through them); the fan-out calls it.
    "notifications": {"core", "rules", "aws", "models", "search", "narrow", "delivery",
                      "actions", "notifications", "config"},
    # Outgoing webhooks: the worker, delivery to the bot's receiver and its reply.
    "webhooks": {"core", "rules", "aws", "models", "search", "narrow", "delivery",
                 "actions", "webhooks", "config"},
    # The outbox stream's fan-out: audiences, recipients' rows, slices.
    "fanout": {"core", "rules", "aws", "models", "search", "narrow", "delivery", "actions",
               "notifications", "fanout", "config"},
    # POST /register: the queue and its initial state.
    "registration": {"core", "rules", "aws", "models", "search", "narrow", "delivery",
                     "actions", "registration", "config"},
    # How clients receive events live: the long-poll reader, the WebSocket handlers (an
    # entry point beside the views: they parse a request) and the keepalive.
    "realtime": {"core", "rules", "aws", "models", "delivery", "http", "realtime", "config"},
}
MAX_CHAIN = 6   # the longest chain of imports inside actions/, in modules
# The areas of actions/, bottom first: each imports only the areas below it. Workflows
# are what spans areas (export, import, reindex, PATCH /realm, the welcome bot's preview).
AREAS = ("groups", "realm", "users", "presence", "channels", "read_state", "messages",
         "invitations", "workflows")


def _modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _imports(path: Path) -> tuple[str, ...]:
    """Every chalicelib module this file imports, at any depth (TYPE_CHECKING too); a
    `from package import module` names the module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and \
                (node.module == "chalicelib" or node.module.startswith("chalicelib.")):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                as_path = ROOT.joinpath(*full.split("."))
                is_module = as_path.with_suffix(".py").exists() or (as_path / "__init__.py").exists()
                found.append(full if is_module else node.module)
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name.startswith("chalicelib."))
    return tuple(found)


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = []
    for path in _modules(layer):
        rel = str(path.relative_to(ROOT))
        for module in _imports(path):
            if module.split(".")[1] not in ALLOWED[layer]:
                wrong.append(f"{rel} imports {module}")
    assert wrong == []


def _area(path: Path) -> str | None:
    parts = path.relative_to(PACKAGE / "actions").parts
    return parts[0] if len(parts) > 1 else None


def test_every_area_has_a_place() -> None:
    areas = {p.name for p in (PACKAGE / "actions").iterdir() if (p / "__init__.py").exists()}
    assert areas == set(AREAS), "put the new area in AREAS (and the diagram)"


def test_an_area_imports_only_the_areas_below_it() -> None:
    rank = {area: i for i, area in enumerate(AREAS)}
    wrong = []
    for path in _modules("actions"):
        area = _area(path)
        for module in _imports(path):
            parts = module.split(".")
            if parts[1] != "actions" or len(parts) < 3 or parts[2] == area:
                continue
            if rank.get(parts[2], len(AREAS)) > rank.get(area or "", -1):
                wrong.append(f"{path.relative_to(ROOT)} ({area}) imports {module}")
    assert wrong == []


def test_readers_import_no_command() -> None:
    """Inside each area, modules under reads/ only read: they import no module that writes."""
    wrong = []
    for path in sorted((PACKAGE / "actions").rglob("reads/*.py")):
        for module in _imports(path):
            if module.startswith("chalicelib.actions.") and ".reads" not in module:
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
    assert wrong == []


def test_http_is_only_the_chalice_adapter() -> None:
    """Below api/ (and the entry points), nothing imports chalicelib.http."""
    wrong = []
    for layer in ("core", "rules", "aws", "models", "delivery", "actions"):
        for path in _modules(layer):
            wrong.extend(f"{path.relative_to(ROOT)} imports {m}" for m in _imports(path)
                         if m.startswith("chalicelib.http"))
    assert wrong == []


def test_the_longest_import_chain_in_actions_is_short() -> None:
    paths = {_name(p): p for p in _modules("actions")}
    graph = {m: {d for d in _imports(p) if d in paths and d != m} for m, p in paths.items()}
    longest: dict[str, list[str]] = {}

    def chain(module: str) -> list[str]:   # the graph has no cycle (import_cycles.py)
        if module not in longest:
            longest[module] = [module, *max((chain(d) for d in graph[module]), key=len,
                                             default=[])]
        return longest[module]

    worst = max((chain(m) for m in graph), key=len)
    assert len(worst) <= MAX_CHAIN, " -> ".join(m.removeprefix("chalicelib.actions.")
                                                for m in worst)
