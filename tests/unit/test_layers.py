"""The house's layers run one way: each package imports only the layers below it, and
inside actions/ each area imports only the areas below it, by chains of at most six.

Packages, bottom first (packages of one row import each other not at all):
  core | rules, aws | integrations | models | search | narrow | delivery | actions
  | notifications, webhooks | fanout, registration | http | realtime | api | handlers
Areas of actions/, bottom first: groups < realm < users < presence < channels
  < read_state < messages < invitations < workflows (inside each, reads/ below commands).
docs/architecture.md draws this order; test_the_diagram_draws_the_enforced_order holds
the two together. A violation is an arrow that runs back up; the message names the
file and the import.
"""
from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "chalicelib"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",), ("rules", "aws"), ("integrations",), ("models",), ("search",), ("narrow",),
    ("delivery",), ("actions",), ("notifications", "webhooks"), ("fanout", "registration"), ("http",),
    ("realtime",), ("api",), ("handlers",))
AREAS = ("groups", "realm", "users", "presence", "channels", "read_state", "messages",
         "invitations", "workflows")
MAX_CHAIN = 6
# The Chalice adapter: only what parses a request uses it (the views, the long-poll
# reader and WebSocket handlers, the functions' entry points).
HTTP_USERS = {"http", "realtime", "api", "handlers"}
HTTP_MAY_IMPORT = {"core", "rules", "aws", "models", "delivery", "http", "config"}


def allowed(layer: str) -> set[str]:
    if layer == "http":
        return HTTP_MAY_IMPORT
    tier = next(i for i, row in enumerate(LAYERS) if layer in row)
    below = {name for row in LAYERS[:tier] for name in row}
    return ({*below, layer, "config"} - {"http"}) | ({"http"} if layer in HTTP_USERS else set())


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


@pytest.mark.parametrize("layer", [name for row in LAYERS for name in row])
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = [f"{path.relative_to(ROOT)} imports {module}"
             for path in _modules(layer) for module in _imports(path)
             if module.count(".") and module.split(".")[1] not in allowed(layer)]
    assert wrong == []


def test_every_package_has_a_place() -> None:
    placed = {name for row in LAYERS for name in row}
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages - placed <= {"apidocs"}, "put the new package in LAYERS (and the diagram)"


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
            if parts[1] != "actions" or len(parts) < 4 or parts[2] == area:
                continue
            if rank.get(parts[2], len(AREAS)) > rank.get(area or "", -1):
                wrong.append(f"{path.relative_to(ROOT)} ({area}) imports {module}")
    assert wrong == []


def test_readers_import_no_command() -> None:
    """Inside each area, modules under reads/ only read: they import no module that writes."""
    wrong = [f"{path.relative_to(ROOT)} imports {module}"
             for path in sorted((PACKAGE / "actions").rglob("reads/*.py"))
             for module in _imports(path)
             if module.startswith("chalicelib.actions.") and ".reads" not in module]
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


def test_http_is_only_the_chalice_adapter() -> None:
    """Below the entry points, nothing imports chalicelib.http."""
    wrong = [f"{path.relative_to(ROOT)} imports {m}"
             for row in LAYERS for layer in row if layer not in HTTP_USERS
             for path in _modules(layer) for m in _imports(path)
             if m.startswith("chalicelib.http")]
    assert wrong == []


def test_the_diagram_draws_the_enforced_order() -> None:
    """docs/architecture.md's layer diagram: one row of packages per line, top first, and
    the areas of actions/ bottom first, joined by `<`."""
    text = (ROOT / "docs/architecture.md").read_text()
    block = text.split("## The layers", 1)[1].split("```")[1]
    rows = [tuple(re.findall(r"([a-z_]+)/", m.group(1)))
            for m in re.finditer(r"^  ((?:[a-z_]+/ ?)+)", block, re.MULTILINE)]
    assert rows == list(reversed(LAYERS))
    chain = " ".join(line.strip() for line in block.splitlines() if " < " in line)
    assert tuple(w.strip() for w in chain.split("<") if w.strip()) == AREAS


# What registration takes from actions/ that is not a reader, and why.
REGISTRATION_NOT_READS = {
    # A limit the subscribe command checks, which the server settings advertise.
    "chalicelib.actions.channels.subscriptions",
    # Users as a viewer sees them: user creation builds its event with them, and moving
    # them under reads/ would make the chain from messages.edit to them seven long.
    "chalicelib.actions.users.users",
}


def test_registration_reads_through_readers() -> None:
    """POST /register's state comes from the areas' reads/ modules (the exceptions say why)."""
    wrong = sorted({module for path in _modules("registration") for module in _imports(path)
                    if module.startswith("chalicelib.actions.") and ".reads." not in module
                    and module not in REGISTRATION_NOT_READS})
    assert wrong == []
