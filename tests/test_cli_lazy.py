"""A command line naming one command is parsed by its module's parser alone (forumbot/cli.py, issue 21):
the table of which module registers which command is right, and every line reads as the whole parser
reads it (the same values, the same errors and help), only without importing the other modules."""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from forumbot import cli

REPO = Path(__file__).resolve().parents[1]


def test_the_table_names_what_each_module_registers() -> None:
    for name, module in zip(cli.COMMAND_TABLE, cli.command_modules(), strict=True):
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers(dest="command")
        module.register(sub)
        assert tuple(sorted(sub.choices)) == cli.COMMAND_TABLE[name], name


def _namespace(args: argparse.Namespace) -> dict[str, object]:
    out = dict(vars(args))
    func = out.pop("func", None)
    out["func"] = getattr(func, "__qualname__", func)
    return out


LINES = [
    ["poll"],
    ["poll", "--full", "--json"],
    ["poll", "--ful"],  # an abbreviation: the whole parser reads it
    ["--game", "g.toml", "poll", "-t", "3", "-t", "4"],
    ["--game=g.toml", "--lang", "en", "tally", "--day", "2"],
    ["-g", "g.toml", "--store", "s.db", "--judge", "法官", "outbox", "approve", "4", "5"],
    ["night", "submit", "--night", "1", "kill", "--target", "饺子"],
    ["run", "--once"],
    ["override", "23", "--as", "void", "--why", "执法团认定无效"],
]


@pytest.mark.parametrize("line", LINES, ids=" ".join)
def test_a_line_reads_as_the_whole_parser_reads_it(line: list[str]) -> None:
    assert _namespace(cli.parse(line)) == _namespace(cli.build_parser().parse_args(line))


def _outcome(call: object) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = call()  # type: ignore[operator]
        except SystemExit as exc:
            result = ("exit", exc.code)
    return (result if isinstance(result, tuple) else "parsed"), out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "line",
    [
        ["poll", "--bogus"],
        ["tally", "--day", "x"],
        ["poll", "--help"],
        ["-h", "poll"],
        ["--version", "poll"],
        ["--lang", "xx", "poll"],
        ["night", "submit", "--night", "1", "poison"],
        ["nosuchcommand"],
    ],
    ids=" ".join,
)
def test_help_and_errors_are_the_whole_parser_s(line: list[str]) -> None:
    whole = _outcome(lambda: cli.build_parser().parse_args(line))
    assert whole[0] != "parsed"
    assert _outcome(lambda: cli.parse(line)) == whole


def test_a_poll_line_imports_only_the_reading_commands() -> None:
    code = (
        "import sys\nfrom forumbot import cli\n"
        "cli.parse(['--game', 'g.toml', 'poll', '--json'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('forumbot.commands.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "['forumbot.commands.reader']"
