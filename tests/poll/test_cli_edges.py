"""The smaller points of issue 8 that a judge meets at the command line.

- piping output (``forumbot posts 3 | head``) ends quietly, not in a BrokenPipeError traceback;
- a game file saved as GBK gets «save it as UTF-8», not «fix the syntax»;
- a PostgreSQL store without psycopg names the ``[postgres]`` extra;
- a failed poll says so in one clear line, and ``poll --retry-login`` / ``login --retry`` exist.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from forumbot.cli import build_parser, main
from forumbot.errors import GameFileError, StoreError
from forumbot.exampleboard.server import LiveBoard
from forumbot.resources import data_dir
from forumbot.store import open_store
from forumbot.store.posts import thread_posts
from tests.boards import ROOT

# The game-file errors are checked by their English wording (the msgid); the Chinese a judge reads is
# checked in tests/test_error_language.py.
pytestmark = pytest.mark.usefixtures("english_messages")

EXAMPLE_GAME = data_dir() / "examples" / "meishi" / "game.toml"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_a_closed_pipe_ends_quietly(tmp_path: Path, fake_board: LiveBoard) -> None:
    fake_board.add_thread(2, 400)
    db = tmp_path / "s.db"
    args = ["--store", str(db), "poll", "--board", ROOT, "--fid", "3", "--thread", "2", "--min-interval", "0"]
    assert main(args) == 0
    assert len(thread_posts(open_store(db), ROOT, 2)) == 400
    proc = subprocess.Popen(
        [sys.executable, "-m", "forumbot", "--store", str(db), "posts", "2", "--revisions"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()  # `| head -1`: read a line, then go away
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    code = proc.wait(60)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code == 141


def test_a_gbk_saved_game_file_is_told_to_be_saved_as_utf8(tmp_path: Path) -> None:
    game = tmp_path / "forumbot.toml"
    game.write_bytes(EXAMPLE_GAME.read_text("utf-8").encode("gbk"))
    from forumbot.config import load_game

    with pytest.raises(GameFileError) as info:
        load_game(game)
    assert "save it as UTF-8" in str(info.value) and "fix the syntax" not in str(info.value)
    assert main(["--game", str(game), "poll"]) == 2


def test_a_utf8_game_file_with_a_bom_loads(tmp_path: Path) -> None:
    game = tmp_path / "forumbot.toml"
    game.write_bytes(b"\xef\xbb\xbf" + EXAMPLE_GAME.read_bytes())
    from forumbot.config import load_game

    assert load_game(game).roster


def test_a_broken_toml_is_still_told_to_fix_the_syntax(tmp_path: Path) -> None:
    game = tmp_path / "forumbot.toml"
    game.write_text("[game\nname = 1\n", "utf-8")
    from forumbot.config import load_game

    with pytest.raises(GameFileError) as info:
        load_game(game)
    assert "fix the syntax" in str(info.value)


def test_postgresql_without_psycopg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg → ImportError, as on a plain install
    with pytest.raises(StoreError) as info:
        open_store("postgresql://judge@db.example/banssha")
    message = str(info.value)
    assert "[postgres]" in message and "pip install" in message and "psycopg" in message


def test_a_failed_poll_says_so_in_one_line(
    fake_board: LiveBoard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_board.add_thread(2, 3)
    db = str(tmp_path / "s.db")
    args = ["--store", db, "poll", "--board", ROOT, "--fid", "3", "--thread", "2", "--thread", "77"]
    assert main([*args, "--min-interval", "0"]) == 3  # thread 77 does not exist
    err = capsys.readouterr().err
    assert "读取失败：主题 77 未能完整读取" in err and "forumbot poll" in err


def test_the_retry_flags_exist() -> None:
    parser = build_parser()
    assert parser.parse_args(["poll", "--retry-login"]).retry_login is True
    assert parser.parse_args(["login", "--retry"]).retry is True


def test_poll_json_names_the_threads_not_read(
    fake_board: LiveBoard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    fake_board.add_thread(2, 3)
    db = str(tmp_path / "s.db")
    args = ["--store", db, "poll", "--board", ROOT, "--fid", "3", "-t", "2", "-t", "77", "--json"]
    assert main([*args, "--min-interval", "0"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["incomplete_tids"] == [77] and "主题 77" in data["failure"]
