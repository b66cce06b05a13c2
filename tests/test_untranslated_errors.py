"""No judge-facing error is written outside the catalogs (issue 11).

An AST walk of forumbot/: every error a judge can meet — :class:`~forumbot.errors.ForumbotError` and its
subclasses wherever they are defined, and the runner's :class:`~forumbot.runner.tick.Delay` (``NotYet``
too) and :class:`~forumbot.runner.tick.WaitForJudge` — raised with a message written in place must pass that
message through ``_()`` (or ``ngettext``). What is checked is the message a judge reads: the first
argument; for the board's errors (``BoardError(url, board_message, detail)``) the ``detail`` only, since
``board_message`` is the board's own words and is kept verbatim; and the ``fix=`` of a ``ConfigError``,
also where it is handed to ``config._need``. A ``fix`` that is a TOML line (``tid = 8``) needs no
translation and passes. tests/web/test_i18n.py then fails on any msgid without its Chinese.

Errors that are not ForumbotErrors (``ValueError`` for a caller's bug, ``RuntimeError``) are programmers'
messages and are not checked; nor are the folders in ``LEFT_OUT``, each with its reason.
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from collections.abc import Set
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "forumbot"
# Folders whose messages are not the judge's to read, each with its reason.
LEFT_OUT = {
    "exampleboard": "the example board's scenario errors are for the developers who write scenarios",
    "parsers": "a page's ``detail`` is technical evidence (bytes, JSON keys, HTTP status) after the "
    "translated ``what`` of the error, and callers match some of it (outbox.py: 'post list is empty')",
}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if not LEFT_OUT.keys() & set(p.parts))
# (module, stripped line) pairs allowed to keep a literal, each with its reason.
ALLOWED: dict[tuple[str, str], str] = {}
TRANSLATORS = {"_", "ngettext", "gettext"}
WORDS = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]")


@functools.cache
def _trees() -> dict[Path, ast.Module]:
    """Every module of forumbot/ parsed once per session: each of the ~100 per-module tests needs the
    whole package's class tree to know which names are errors, and parsing it again for each test was a
    third of this file's CPU time on CI. The trees are only read, never changed."""
    return {p: ast.parse(p.read_text("utf-8"), filename=str(p)) for p in sorted(PACKAGE.rglob("*.py"))}


def _error_classes(trees: dict[Path, ast.Module]) -> tuple[set[str], set[str]]:
    """The names of every ForumbotError subclass defined in forumbot/ (and the runner's Delay and
    WaitForJudge with theirs), and those of the board's side (BoardError's family)."""
    bases: dict[str, set[str]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                bases.setdefault(node.name, set()).update(names)

    def family(root: str) -> set[str]:
        found = {root}
        while True:
            more = {c for c, bs in bases.items() if bs & found} - found
            if not more:
                return found
            found |= more

    return family("ForumbotError") | family("Delay") | family("WaitForJudge"), family("BoardError")


def _written_in_place(node: ast.expr) -> bool:
    """A message made here from literal words (a string, an f-string, a concatenation, a ``.format``
    or ``.join`` on one) rather than through ``_()``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(WORDS.search(node.value))
    if isinstance(node, ast.JoinedStr):
        return any(_written_in_place(v) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _written_in_place(node.value)
    if isinstance(node, ast.IfExp):
        return _written_in_place(node.body) or _written_in_place(node.orelse)
    if isinstance(node, ast.BinOp):
        return _written_in_place(node.left) or _written_in_place(node.right)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return False  # _("..."), str(exc), a helper that builds the message
        if isinstance(func, ast.Attribute) and func.attr in ("format", "join"):
            return _written_in_place(func.value) or any(_written_in_place(a) for a in node.args)
    return False


def _toml_line(node: ast.expr) -> bool:
    """A fix that is a TOML line (``tid = 8``, ``{key} = { fid = 6 }``): the same in every language."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
    else:
        return False
    for candidate in (text, text.replace("] ", "]\n", 1)):
        try:
            tomllib.loads(candidate)
            return True
        except tomllib.TOMLDecodeError:
            continue
    return False


def _messages(call: ast.Call, errors: Set[str], board: Set[str]) -> list[ast.expr]:
    """The arguments of ``call`` that a judge reads as words."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if name in board:
        return [a for a in (call.args[2:3] or [keywords.get("detail")]) if a is not None]
    if name in errors:
        out = call.args[:1] or [v for k, v in keywords.items() if k == "message"]
        fix = keywords.get("fix")
        return [*out, *([fix] if fix is not None and not _toml_line(fix) else [])]
    if name == "_need" and len(call.args) >= 4 and not _toml_line(call.args[3]):
        return [call.args[3]]
    return []


@functools.cache
def _package_errors() -> tuple[frozenset[str], frozenset[str]]:
    """The error classes of the whole package, found once (see ``_trees``)."""
    errors, board = _error_classes(_trees())
    return frozenset(errors), frozenset(board)


def untranslated(paths: list[Path]) -> list[str]:
    trees = _trees()
    errors, board = _package_errors()
    found: list[str] = []
    for path in paths:
        lines = path.read_text("utf-8").splitlines()
        for node in ast.walk(trees[path]):
            if not isinstance(node, ast.Call):
                continue
            for arg in _messages(node, errors, board):
                if _written_in_place(arg):
                    rel = str(path.relative_to(ROOT))
                    if (rel, lines[arg.lineno - 1].strip()) not in ALLOWED:
                        found.append(f"{rel}:{arg.lineno}: {ast.unparse(arg)[:90]}")
    return found


def test_the_walk_knows_the_errors() -> None:
    errors, board = _error_classes(_trees())
    assert {"ConfigError", "GameFileError", "StoreBusy", "OutboxRefused", "WaitForJudge", "NotYet"} <= errors
    assert {"LoginFailed", "TruncatedPage", "ThreadNotFound"} <= board <= errors
    assert len(MODULES) > 60


def test_the_walk_catches_a_bare_message(tmp_path: Path) -> None:
    """The guard itself can fail: each way of writing a message in place is caught, ``_()`` is not."""
    trees = {PACKAGE / "errors.py": ast.parse((PACKAGE / "errors.py").read_text("utf-8"))}
    errors, board = _error_classes(trees)
    errors |= {"Delay"}
    cases = {
        'UsageError("no such day")': True,
        'UsageError(f"day {n} is missing")': True,
        'StoreError("cannot store " + what)': True,
        'ConfigError(_("bad"), fix="use a number")': True,
        'ConfigError(_("bad"), fix="tid = 8")': False,
        'LoginFailed(url, message, "the board locked us out")': True,
        "LoginFailed(url, message)": False,
        'Delay("；".join(reasons))': False,
        'UsageError(_("day {n}").format(n=n))': False,
        "UsageError(str(exc))": False,
        'UsageError("day {n}".format(n=n))': True,
        "RedirectLoop(url, '', f\"{'a loop' if loop else 'too many'}: {shown}\")": True,
        'UsageError(f"{key}: {exc}")': False,
    }
    for source, caught in cases.items():
        call = ast.parse(source, mode="eval").body
        assert isinstance(call, ast.Call)
        got = any(_written_in_place(a) for a in _messages(call, errors, board))
        assert got is caught, source


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_error_message_goes_through_the_catalog(path: Path) -> None:
    assert untranslated([path]) == [], "wrap it in _() and translate it (tools/i18n_catalogs.py)"
