"""A judge of a Chinese forum reads the errors in Chinese; ``--lang en`` (or LANG=en_*) gives English.

The desk, the game file and the outbox raise their refusals through the catalogs (issue 11): the same
error a judge meets on the command line is checked here in both languages, with the words a judge acts
on (the field, the fix, the command to run).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import tomli_w

from forumbot.cli import main
from forumbot.errors import GameFileError, ThreadNotFound
from forumbot.i18n import set_language
from tests.judging.conftest import example_data


@pytest.fixture(autouse=True)
def judge_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No language asked for in the environment: the default is the judges' language."""
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LANG", raising=False)
    yield
    set_language("zh_CN")


def game_file(tmp_path: Path, **game: str) -> Path:
    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    data["game"].update(game)
    p = tmp_path / "forumbot.toml"
    p.write_text(tomli_w.dumps(data), "utf-8")
    return p


def test_closing_a_day_not_in_the_game_file_is_refused_in_chinese(tmp_path: Path, capsys) -> None:
    assert main(["--game", str(game_file(tmp_path)), "close", "--day", "9"]) == 1
    err = capsys.readouterr().err
    assert "游戏文件中没有第9日" in err and "[[days]]" in err
    assert "is not in the game file" not in err


def test_the_same_refusal_in_english_with_lang_en(tmp_path: Path, capsys) -> None:
    assert main(["--lang", "en", "--game", str(game_file(tmp_path)), "close", "--day", "9"]) == 1
    err = capsys.readouterr().err
    assert "day 9 is not in the game file" in err and "游戏文件中没有" not in err


def test_english_from_the_environment(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert main(["--game", str(game_file(tmp_path)), "close", "--day", "9"]) == 1
    assert "day 9 is not in the game file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (None, ["[game.ruleset]", "未知的规则 'R999'", "改法：使用"]),
        ("en", ["[game.ruleset]", "unknown rule set 'R999'", "Fix: use one of"]),
    ],
)
def test_a_wrong_game_file_names_the_field_and_the_fix_in_the_judges_language(
    tmp_path: Path, capsys, lang: str | None, words: list[str]
) -> None:
    args = ["--lang", lang] if lang else []
    assert main([*args, "--game", str(game_file(tmp_path, ruleset="R999")), "close", "--day", "1"]) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_a_desk_refusal_names_the_command_to_run_in_chinese(tmp_path: Path, capsys) -> None:
    assert main(["--game", str(game_file(tmp_path)), "state"]) == 1
    err = capsys.readouterr().err
    assert "本局还没有保存身份" in err and "forumbot setup" in err


def test_a_game_file_error_raised_in_code_follows_the_current_language(tmp_path: Path) -> None:
    from forumbot.config import load_game

    bad = game_file(tmp_path, timezone="Mars/Olympus")
    set_language("zh_CN")
    with pytest.raises(GameFileError, match=r"未知的时区 'Mars/Olympus'.*改法：例如 Asia/Shanghai"):
        load_game(bad)
    set_language("en")
    with pytest.raises(GameFileError, match=r"unknown time zone 'Mars/Olympus'.*Fix: e.g. Asia/Shanghai"):
        load_game(bad)


def test_what_the_board_answered_is_told_in_the_judges_language() -> None:
    set_language("zh_CN")
    assert str(ThreadNotFound("https://b.example/t/1", "抱歉，指定的主题不存在或已被删除或正在被审核")) == (
        "主题不存在（已删除、已移动或正在审核）：https://b.example/t/1"
        "——论坛原话：抱歉，指定的主题不存在或已被删除或正在被审核"
    )
    set_language("en")
    assert str(ThreadNotFound("https://b.example/t/1")) == (
        "thread not found (deleted, moved or awaiting moderation): https://b.example/t/1"
    )


def test_the_read_status_keeps_its_chinese_words_and_has_english_ones() -> None:
    """Issue 8's reasons (why a day is not read completely) were Chinese literals; they are English msgids
    now, with the same Chinese as their translation: the default output did not change."""
    from datetime import UTC, datetime

    from forumbot.store import open_store
    from forumbot.store.reads import day_read_complete

    after = datetime(2026, 6, 4, 5, 0, tzinfo=UTC)
    with open_store(":memory:") as store:
        set_language("zh_CN")
        ok, [zh] = day_read_complete(store, "https://b.example/", [2], after, full=True)
        assert not ok and zh == (
            "主题 2 从未被读取：需要在 2026-06-04 13:00:00 之后完整读取（从第1页读到最后一页）一次，"
            "请运行 forumbot poll --full"
        )
        set_language("en")
        ok, [en] = day_read_complete(store, "https://b.example/", [2], after, full=True)
        assert en == (
            "thread 2 was never read: it needs a complete read (from page 1 to the last page) after "
            "2026-06-04 13:00:00; run forumbot poll --full"
        )


def test_a_store_that_is_missing_is_told_in_the_judges_language(tmp_path: Path, capsys) -> None:
    missing = str(tmp_path / "nowhere.db")
    assert main(["--store", missing, "posts", "2"]) == 1
    assert "没有存储：先运行 `forumbot poll`，或用 --store 指定" in capsys.readouterr().err
    assert main(["--lang", "en", "--store", missing, "posts", "2"]) == 1
    assert "no store at" in capsys.readouterr().err


def test_what_the_runner_waits_for_is_told_in_the_judges_language(tmp_path: Path, capsys) -> None:
    """A tick with no roles stored waits for a judge, and says so in Chinese (English with --lang en)."""
    from forumbot.resources import data_dir

    game = (data_dir() / "examples" / "yexiao" / "game.toml").read_text("utf-8")
    game = game.replace('url = "http://127.0.0.1:8080/"', 'url = "http://127.0.0.1:9/"\nretries = 0')
    (tmp_path / "game.toml").write_text(game, "utf-8")
    args = ["--game", str(tmp_path / "game.toml"), "--store", str(tmp_path / "game.db"), "tick"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "等待法官：第1夜：行动截止：还没有保存角色：请先运行 forumbot setup" in out, out
    assert "night1/deadline" not in out  # the ledger's key is the runner's, not the judge's word
    assert main(["--lang", "en", *args]) == 0
    assert (
        "waiting for a judge: night 1: deadline: no roles stored yet: run forumbot setup"
        in capsys.readouterr().out
    )
