"""Start-up stays light (issue 12): building the CLI's parser, ``--help`` and an idle ``forumbot poll``
import neither the store's ORM (SQLAlchemy, SQLModel, pydantic) nor rich, the desk or the engine.

Each check runs in a fresh interpreter (this one has imported everything already) and looks at
``sys.modules``: what was imported, never how long it took (speed lives in benchmarks/startup.py and
benchmarks/poll.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import responses

from forumbot.cli import main
from forumbot.labels import OUTBOX_KIND_LABELS
from forumbot.outbox import ItemKind
from tests.boards import ROOT, small_board

REPO = Path(__file__).resolve().parents[1]
ORM = ("sqlalchemy", "sqlmodel", "pydantic", "forumbot.store.db", "forumbot.store.models")
HEAVY = (*ORM, "rich", "forumbot.desk", "forumbot.runner", "forumbot.web", "engine", "requests", "lxml")


def loaded_after(code: str, names: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of ``names`` a fresh interpreter has imported after running ``code``."""
    script = f"{code}\nimport sys, json\nprint(json.dumps(sorted(m for m in {names!r} if m in sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def quietly(argv: list[str]) -> str:
    """Code that runs ``forumbot ARGV`` in-process, its output and exit discarded."""
    return (
        "import contextlib, io, forumbot.cli\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        f"    forumbot.cli.main({argv!r})"
    )


def test_building_the_parser_imports_nothing_heavy() -> None:
    assert loaded_after("import forumbot.cli\nforumbot.cli.build_parser()") == []


@pytest.mark.parametrize("command", [[], ["poll"], ["tally"], ["outbox", "add"], ["night", "resolve"]])
def test_help_imports_nothing_heavy(command: list[str]) -> None:
    assert loaded_after(quietly([*command, "--help"])) == []


def test_the_night_s_choices_are_read_from_the_engine_only_when_shown_or_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The engine's action kinds, not the desk nor the store.
    assert loaded_after(quietly(["night", "submit", "--help"])) == ["engine"]
    with pytest.raises(SystemExit) as done:
        main(["--lang", "en", "night", "submit", "--night", "1", "poison"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'poison'" in err and "kill" in err


def test_the_outbox_kinds_offered_are_the_outbox_s_kinds() -> None:
    # commands/outbox.py takes them from the light labels module, not from forumbot.outbox (the store).
    assert list(OUTBOX_KIND_LABELS) == [kind.value for kind in ItemKind]


# What reads a thread's posts or a private message: an idle poll reads one forum list and no post (issue 21).
POST_READERS = tuple(
    f"forumbot.parsers.{name}" for name in ("records", "pc", "touch", "api", "pm", "htmltext")
)


def test_an_idle_poll_imports_no_orm(tmp_path: Path) -> None:
    """The first poll (this process) fills the store; the same fake board, made again in a fresh
    process, is polled there: nothing new, so through sqlite3 alone, and no post reader is imported."""
    store = tmp_path / "s.db"
    args = ["--store", str(store), "poll", "--board", ROOT, "--fid", "3", "-t", "2", "--min-interval", "0"]
    board = small_board()
    board.add_thread(2, 12)
    with responses.RequestsMock() as rsps:
        board.mock(rsps, writes=False)
        assert main(args) == 0
    code = (
        "import contextlib, io, responses\n"
        "from forumbot.cli import main\n"
        "from tests.boards import small_board\n"
        "board = small_board()\n"
        "board.add_thread(2, 12)\n"
        "out = io.StringIO()\n"
        "with responses.RequestsMock() as r, contextlib.redirect_stdout(out):\n"
        "    board.mock(r, writes=False)\n"
        f"    assert main({['--lang', 'en', *args]!r}) == 0\n"
        "assert '1 request,' in out.getvalue() and 'unchanged' in out.getvalue(), out.getvalue()\n"
    )
    assert loaded_after(code, (*ORM, "rich", "forumbot.desk", *POST_READERS)) == []


def test_only_forumbot_s_own_process_freezes_its_objects() -> None:
    """cli.main pauses the cyclic collector while the command line is read and, in forumbot's own process
    (``argv`` None), freezes every object on the way out (issue 21); a Python caller passing its own
    line keeps its collector running and its objects collectable."""
    code = (
        "import contextlib, gc, io, sys\n"
        "from forumbot import cli\n"
        "out = io.StringIO()\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(out):\n"
        "    cli.main(['--lang', 'en', 'poll', '--help'])\n"
        "caller = (gc.isenabled(), gc.get_freeze_count())\n"
        "sys.argv = ['forumbot', '--lang', 'en', 'poll', '--help']\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(out):\n"
        "    cli.main()\n"
        "print(caller, gc.get_freeze_count() > 0, 'forumbot poll' in out.getvalue())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "(True, 0) True True"
