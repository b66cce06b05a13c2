"""engine/ is pure: it imports nothing of forumbot/, requests or sqlmodel, reads no clock and uses no
module-level random (draws take an explicit seed through random.Random(seed)), and opens no files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
MODULES = sorted(ENGINE.rglob("*.py"))
BANNED_IMPORTS = (
    "forumbot",
    "requests",
    "sqlmodel",
    "time",
    "socket",
    "urllib",
    "http",
    "os",
    "subprocess",
    "pathlib",
)
BANNED_CALLS = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "monotonic"),
    ("time", "perf_counter"),
}


def _dotted(node: ast.AST) -> tuple[str, ...]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return tuple(reversed(parts))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ENGINE)) for p in MODULES])
def test_engine_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name.split(".")[0] not in BANNED_IMPORTS, f"{path.name}: import {alias.name}"
        elif isinstance(node, ast.ImportFrom):
            mod = (node.module or "").split(".")[0]
            assert mod not in BANNED_IMPORTS, f"{path.name}: from {node.module} import ..."
            if mod == "random":
                assert all(a.name == "Random" for a in node.names), (
                    f"{path.name}: from random import {node.names}"
                )
        elif isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            assert dotted[-2:] not in BANNED_CALLS, (
                f"{path.name}:{node.lineno}: {'.'.join(dotted)}() reads the clock"
            )
            if len(dotted) == 2 and dotted[0] == "random":
                assert dotted[1] == "Random", f"{path.name}:{node.lineno}: module-level random.{dotted[1]}()"
            assert dotted not in {("open",), ("input",), ("print",)}, (
                f"{path.name}:{node.lineno}: {dotted[0]}()"
            )
            if dotted and dotted[-1] in ("read_text", "read_bytes", "write_text", "open"):
                raise AssertionError(f"{path.name}:{node.lineno}: file I/O {'.'.join(dotted)}()")
        elif isinstance(node, ast.Attribute) and node.attr in ("now", "utcnow"):
            raise AssertionError(f"{path.name}:{node.lineno}: clock access .{node.attr}")
