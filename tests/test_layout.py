"""The house rules that keep the layout easy to change, checked on the source itself:

- the store never imports the HTTP client (the client's records live in forumbot/fetches.py);
- board URLs are spelled only in forumbot/urls.py (a query-string URL literal anywhere else is a bug);
- commands parse and render: they never touch the store's rows or the judges' records directly, the desk
  does;
- no import goes through ``importlib``: every dependency is visible to the reader and to mypy;
- no import circle among the modules of forumbot/ and engine/, counting the imports inside functions and
  under ``if TYPE_CHECKING:`` (a circle hidden there is still two modules that cannot be read apart).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "forumbot"
MODULES = sorted(PACKAGE.rglob("*.py"))
ENGINE = PACKAGE.parent / "engine"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String literals that are not docstrings."""
    tree = ast.parse(path.read_text("utf-8"))
    docs: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


@pytest.mark.parametrize("path", [p for p in MODULES if p.parent.name == "store"], ids=_rel)
def test_the_store_does_not_import_the_client(path: Path) -> None:
    assert not {m for m in _imports(path) if m.startswith("forumbot.client")}


# The example board serves a board (its markup and links), it does not ask one for pages.
@pytest.mark.parametrize(
    "path", [p for p in MODULES if p.name != "urls.py" and p.parent.name != "exampleboard"], ids=_rel
)
def test_board_urls_are_built_only_in_urls_py(path: Path) -> None:
    spelled = [(line, s) for line, s in _code_strings(path) if ".php?" in s]
    assert spelled == [], "build board URLs with forumbot.urls.build"


@pytest.mark.parametrize("path", [p for p in MODULES if p.parent.name == "commands"], ids=_rel)
def test_commands_leave_the_judges_records_to_the_desk(path: Path) -> None:
    reaching = {
        m for m in _imports(path) if m.startswith(("forumbot.store.records", "forumbot.store.models"))
    }
    assert reaching == set()


@pytest.mark.parametrize("path", MODULES, ids=_rel)
def test_no_import_through_importlib(path: Path) -> None:
    assert "importlib" not in _imports(path)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_graph() -> dict[str, set[str]]:
    """Every module of forumbot/ and engine/ and the modules of ours it imports, wherever in the module
    the import stands (functions and TYPE_CHECKING blocks included). Relative imports are resolved,
    and ``from pkg import name`` counts as importing ``pkg.name`` when that is a module (else ``pkg``).
    A package's ``__init__`` that Python runs on the way to a submodule is not counted: that is not a
    dependency the module chose."""
    paths = sorted(PACKAGE.rglob("*.py")) + sorted(ENGINE.rglob("*.py"))
    names = {_module_name(p): p for p in paths}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for a in node.names:
                    found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in names else base)
        graph[name] = {m for m in found if m in names and m != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle (a path back to its start) per strongly connected group of modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for group in groups:
        start = min(group)
        # the shortest way back to ``start`` inside the group (breadth first)
        came: dict[str, str] = {}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in sorted(graph[v] & group):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came[path[-1]])
                    out.append([start, *reversed(path[:-1]), start] if v != start else [start, start])
                    queue = []
                    break
                if w not in came:
                    came[w] = v
                    queue.append(w)
    return sorted(out)


def test_the_circle_finder_finds_a_hidden_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c", "a"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle() -> None:
    circles = _circles(_import_graph())
    assert circles == [], "import circles: " + "; ".join(" → ".join(c) for c in circles)


# Packages of the test extra only (pyproject.toml [project.optional-dependencies] test): an installed
# forumbot (`pip install .`, the README's main job) does not have them, so no module of forumbot/ or
# engine/ may import them where it runs (a TYPE_CHECKING block is for the type checker only).
TEST_ONLY = {"responses", "hypothesis", "tomli_w", "playwright", "pytest"}


def _runtime_imports(path: Path) -> set[str]:
    """The top-level packages ``path`` imports anywhere but inside ``if TYPE_CHECKING:``."""
    found: set[str] = set()

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                walk(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
        for child in ast.iter_child_nodes(node):
            walk(child)

    walk(ast.parse(path.read_text("utf-8")))
    return found


@pytest.mark.parametrize("path", MODULES + sorted(ENGINE.rglob("*.py")), ids=_rel)
def test_an_installed_forumbot_needs_no_test_package(path: Path) -> None:
    assert _runtime_imports(path) & TEST_ONLY == set()


def test_the_test_package_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import hypothesis\nimport responses\n"
    )
    assert _runtime_imports(bad) & TEST_ONLY == {"responses"}
