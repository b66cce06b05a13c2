"""Checked game files are kept (forumbot/gamecache.py): the same file loads to the same game without being
checked again, any change checks it again, a wrong file is never kept, and no password is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from forumbot import gamecache
from forumbot.config import load_game
from forumbot.errors import GameFileError

REPO = Path(__file__).resolve().parents[1]

GAME = """[game]
name = "测试局"
ruleset = "鬼毒"
judges = ["法官"]
store = "s.db"

[board]
url = "https://bbs.example.com/"
fid = 3
username = "法官"
password_env = "FB_TEST_CACHE_PASSWORD"

[players]
roster = ["甲", "乙", "丙"]

[timetable]
first_night = "2026-06-03"

[[days]]
day = 1
discussion = 2
vote = 3
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("FORUMBOT_CACHE_DIR", str(folder))
    return folder


def kept(folder: Path) -> list[Path]:
    return sorted((folder / "games").glob("*.pickle")) if (folder / "games").exists() else []


def test_a_kept_game_equals_the_checked_one_and_is_used(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FB_TEST_CACHE_PASSWORD", "secret-1")
    path = tmp_path / "forumbot.toml"
    path.write_text(GAME, "utf-8")
    first = load_game(path)
    (entry,) = kept(cache)
    assert b"secret-1" not in entry.read_bytes()  # the password is never written
    monkeypatch.setattr("forumbot.config.game_from_dict", _must_not_check)
    again = load_game(path)
    assert again == first and again.ruleset == "R001" and again.board.password == "secret-1"
    monkeypatch.setenv("FB_TEST_CACHE_PASSWORD", "secret-2")  # read from the environment at each load
    assert load_game(path).board.password == "secret-2"


def _must_not_check(*args: object, **kwargs: object) -> object:
    raise AssertionError("the kept game should have been used")


def test_a_changed_file_is_checked_again(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "forumbot.toml"
    path.write_text(GAME, "utf-8")
    load_game(path)
    path.write_text(GAME.replace('ruleset = "鬼毒"', 'ruleset = "R009"'), "utf-8")
    with pytest.raises(GameFileError, match="R009"):
        load_game(path)
    assert len(kept(cache)) == 1  # the wrong file was not kept
    path.write_text(GAME.replace("vote = 3", "vote = 7"), "utf-8")
    assert load_game(path).days[0].vote_tid == 7
    assert len(kept(cache)) == 2


def test_a_relative_path_is_kept_per_working_folder(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store beside a game file named relatively depends on where the command runs."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "forumbot.toml").write_text(GAME, "utf-8")
    monkeypatch.chdir(tmp_path / "a")
    assert load_game("forumbot.toml").store_url == str((tmp_path / "a" / "s.db").resolve())
    monkeypatch.chdir(tmp_path / "b")
    assert load_game("forumbot.toml").store_url == str((tmp_path / "b" / "s.db").resolve())


def test_an_edited_reader_or_engine_checks_again(tmp_path: Path) -> None:
    """The key covers the source files the check runs (an upgrade, a checkout's edit)."""
    path = tmp_path / "forumbot.toml"
    raw = GAME.encode()
    key = gamecache.key_of(path, raw)
    assert gamecache.key_of(path, raw) == key
    assert any("engine" in f and "ruleset.py" in f for f in gamecache._fingerprint())
    assert any(f.split(":")[0].endswith("forumbot/config.py") for f in gamecache._fingerprint())
    assert gamecache.key_of(path, raw + b"\n") != key


def test_the_cache_can_be_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORUMBOT_CACHE_DIR", "off")
    assert gamecache.cache_dir() is None
    path = tmp_path / "forumbot.toml"
    path.write_text(GAME, "utf-8")
    assert load_game(path).ruleset == "R001"


def test_an_unwritable_cache_only_means_checking_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", "utf-8")
    monkeypatch.setenv("FORUMBOT_CACHE_DIR", str(blocker / "cache"))
    path = tmp_path / "forumbot.toml"
    path.write_text(GAME, "utf-8")
    assert load_game(path).ruleset == "R001"
    assert load_game(path).ruleset == "R001"


def test_a_kept_game_loads_without_the_engine_or_the_schema(tmp_path: Path, cache: Path) -> None:
    """What the cache is for: a command that only needs the game file's settings (an idle poll) imports
    neither the rules engine nor pydantic once the file was checked."""
    path = tmp_path / "forumbot.toml"
    path.write_text(GAME, "utf-8")
    load_game(path)
    code = (
        "import sys\nfrom forumbot.config import load_game\n"
        f"g = load_game({str(path)!r})\n"
        "print(g.ruleset, 'engine' in sys.modules, 'pydantic' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "FORUMBOT_CACHE_DIR": str(cache)},
    )
    assert done.stdout.split() == ["R001", "False", "False"]
