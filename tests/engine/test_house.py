"""The engine's layout keeps its promises (issue 7): no import circle among its modules, no two classes
with one name, no branch on the rule-set family outside a family's own package, the core never imports a
family package, and code outside engine/ uses only the public API (``from engine import ...``)."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
FAMILIES = ("engine.r001", "engine.r004")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """Every engine module ``path`` imports (TYPE_CHECKING imports included; ``from engine import X``
    counts as engine.X when X is a module)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("engine"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in MODULES else node.module)
    return out & set(MODULES)


def _graph() -> dict[str, set[str]]:
    # engine/__init__ is the public face: it imports everything, nothing inside the engine imports it.
    return {m: _imports(p) - {m} for m, p in MODULES.items() if m != "engine"}


def test_no_module_inside_the_engine_imports_the_public_face() -> None:
    importers = [m for m, deps in _graph().items() if "engine" in deps]
    assert importers == []


def test_no_import_circle_among_the_engine_modules() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for dep in sorted(graph.get(m, ())):
            if state.get(dep) == 1:
                circles.append([*stack[stack.index(dep) :], dep])
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert circles == []


def test_the_core_never_imports_a_family_package() -> None:
    core = {m: deps for m, deps in _graph().items() if not m.startswith(FAMILIES)}
    bad = {m: sorted(d for d in deps if d.startswith(FAMILIES)) for m, deps in core.items()}
    assert {m: d for m, d in bad.items() if d} == {}


def test_no_two_engine_classes_share_a_name() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for m, p in MODULES.items():
        for node in ast.parse(p.read_text("utf-8")).body:
            if isinstance(node, ast.ClassDef):
                where[node.name].append(m)
    assert {name: ms for name, ms in where.items() if len(ms) > 1} == {}


def test_nothing_branches_on_the_family_outside_a_family_package() -> None:
    pattern = re.compile(r"\b(family|procedure|day_procedure)\s*[!=]=")
    found = []
    for folder in (ENGINE, ROOT / "forumbot"):
        for p in folder.rglob("*.py"):
            if _module_name(p).startswith(FAMILIES):
                continue
            for i, line in enumerate(p.read_text("utf-8").splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()}")
    assert found == []


def test_code_outside_the_engine_uses_only_the_public_api() -> None:
    found = []
    for folder in ("forumbot", "tests", "benchmarks", "tools"):
        for p in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(p.read_text("utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine."):
                    found.append(f"{p.relative_to(ROOT)}: from {node.module}")
                elif isinstance(node, ast.ImportFrom) and node.module == "engine":
                    missing = [a.name for a in node.names if a.name not in engine.__all__]
                    if missing:
                        found.append(f"{p.relative_to(ROOT)}: from engine import {missing}")
                elif isinstance(node, ast.Import):
                    found += [
                        f"{p.relative_to(ROOT)}: import {a.name}" for a in node.names if "engine." in a.name
                    ]
    assert found == []


def test_every_public_name_exists() -> None:
    assert [name for name in engine.__all__ if not hasattr(engine, name)] == []
