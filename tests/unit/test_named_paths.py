"""Prose that names a file names one that exists: docs/*.md, README.md, the level table
(chalicelib/core/feature_levels.py and its rows, the levels_ modules beside it) whole,
and the docstrings and comments of chalicelib/, infra/ and app.py. A named path is a
token like `actions/users/admin.py` or `chalicelib/api/` whose first segment is a folder
of this repository, or a dotted `chalicelib.x.y`; it exists when it resolves from the
naming file's folder or any folder above it. Not checked: paths outside the repository
(`../shared/...`) and what the build writes (the folders .gitignore names, such as
build/ and web/dist/). The level table's tests (`tests/<path>::<test>`) must exist too."""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from chalicelib.core.feature_levels import CHANGES

ROOT = Path(__file__).resolve().parents[2]
FILE = re.compile(r"(?<![\w/.:#-])((?:[A-Za-z_][\w-]*/)+(?:[\w-]+\.(?:py|md|json|yaml|yml|txt|"
                  r"toml|ini|html|js)|))(?![\w/])")
DOTTED = re.compile(r"(?<![\w.])(chalicelib(?:\.[a-z_][a-z0-9_]*)+)")
# `api/users.get_user`: a module (as a path) and a name it defines
NAMED = re.compile(r"(?<![\w/.:#-])((?:[a-z_]+/)+[a-z_]+)\.([a-z_][a-z0-9_]*)\b")
SUFFIXES = {"py", "md", "json", "yaml", "yml", "txt", "toml", "ini", "html", "js", "png",
            "svg", "css", "eml", "zip", "gz", "sh", "cfg", "lock"}
NOT_OURS = {".git", ".venv", "build", "node_modules", "__pycache__", ".mypy_cache",
            ".ruff_cache", ".pytest_cache", ".hypothesis", ".local-state", ".chalice"}
# Folders the build writes (ignored by git): named in the prose, absent from a fresh clone.
GENERATED = tuple(line.strip().lstrip("/") for line in (ROOT / ".gitignore").read_text().splitlines()
                  if line.strip().endswith("/") and not line.startswith("#"))
WHOLE = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md",
         ROOT / "chalicelib/core/feature_levels.py",
         *sorted((ROOT / "chalicelib/core").glob("levels_*.py"))]
CODE = [p for d in ("chalicelib", "infra") for p in sorted((ROOT / d).rglob("*.py"))
        if p not in WHOLE and not NOT_OURS & set(p.parts)] + [ROOT / "app.py"]


def _folders() -> set[str]:
    return {p.name for p in ROOT.rglob("*")
            if p.is_dir() and not NOT_OURS & set(p.relative_to(ROOT).parts)}


def _prose(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    if path in WHOLE:
        return list(enumerate(text.splitlines(), 1))
    lines = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
             if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                first = node.body[0].lineno
                lines += [(first + i, line) for i, line in enumerate(doc.splitlines())]
    return lines


def _exists(path: Path, token: str) -> bool:
    token = token.rstrip("/")
    folder = path.parent
    while True:
        if (folder / token).exists():
            return True
        if folder == ROOT:
            return (ROOT / "chalicelib" / token).exists()
        folder = folder.parent


def _defines(module: Path, name: str) -> bool:
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node.name == name:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def _named_exists(path: Path, module: str, name: str) -> bool:
    folder = path.parent
    while True:
        for candidate in (folder / f"{module}.py", ROOT / "chalicelib" / f"{module}.py"):
            if candidate.exists():
                return _defines(candidate, name)
        if folder == ROOT:
            return False
        folder = folder.parent


def _module_exists(dotted: str) -> bool:
    parts = dotted.split(".")
    return any(ROOT.joinpath(*parts[:n]).with_suffix(".py").exists()
               or (ROOT.joinpath(*parts[:n]) / "__init__.py").exists()
               for n in range(len(parts), 1, -1))


def stale_paths() -> list[str]:
    folders = _folders()
    found = []
    for path in [*WHOLE, *CODE]:
        for lineno, line in _prose(path):
            where = f"{path.relative_to(ROOT)}:{lineno}"
            for match in FILE.finditer(line):
                token = match.group(1)
                first = token.split("/", 1)[0]
                if token.count("/") == 1 and token.endswith("/"):
                    continue   # a bare folder name ("under reads/") names a kind of folder
                if first in folders and not token.startswith(GENERATED) and \
                        not line[:match.start()].endswith("../") and not _exists(path, token):
                    found.append(f"{where}: {token}")
            found += [f"{where}: {m.group(1)}" for m in DOTTED.finditer(line)
                      if not _module_exists(m.group(1))]
            found += [f"{where}: {m.group(0)}" for m in NAMED.finditer(line)
                      if m.group(2) not in SUFFIXES and m.group(1).split("/")[0] in folders
                      and not _named_exists(path, m.group(1), m.group(2))]
    return found


def test_every_path_the_prose_names_exists() -> None:
    assert stale_paths() == []


@pytest.mark.parametrize("change", [c for c in CHANGES if c.test], ids=lambda c: str(c.level))
def test_the_level_tables_tests_exist(change) -> None:
    for reference in re.findall(r"tests/[\w/]+\.py::\w+", change.test):
        file, name = reference.split("::")
        tree = ast.parse((ROOT / file).read_text())
        assert any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
                   for n in ast.walk(tree)), reference
