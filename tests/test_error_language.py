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
