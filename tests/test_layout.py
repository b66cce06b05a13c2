"""The house rules that keep the layout easy to change, checked on the source itself:

- the store never imports the HTTP client (the client's records live in forumbot/fetches.py);
- board URLs are spelled only in forumbot/urls.py (a query-string URL literal anywhere else is a bug);
- commands parse and render: they never touch the store's rows or the judges' records directly, the desk
  does;
- no import goes through ``importlib``: every dependency is visible to the reader and to mypy.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "forumbot"
MODULES = sorted(PACKAGE.rglob("*.py"))


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
