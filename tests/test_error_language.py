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


# --------------------------------------------------------------------------- the common failures' pages


def _board_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A game file whose board does not answer (nothing listens on port 9), with a login to try."""
    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    data["board"].update(url="http://127.0.0.1:9/", username="法官大人", password_env="FB_TEST_PW", retries=0)
    path = tmp_path / "forumbot.toml"
    path.write_text(tomli_w.dumps(data), "utf-8")
    monkeypatch.setenv("FB_TEST_PW", "secret")
    return ["--game", str(path), "login"]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            None,
            [
                "forumbot：论坛没有响应：http://127.0.0.1:9/",
                "怎么办：用浏览器打开 http://127.0.0.1:9",
                "[board] url",
            ],
        ),
        (
            "en",
            [
                "forumbot: no answer from the board: http://127.0.0.1:9/",
                "What to do: Open http://127.0.0.1:9",
            ],
        ),
    ],
)
def test_a_board_that_is_down_gets_a_page_saying_what_to_do(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, lang: str | None, words: list[str]
) -> None:
    args = ["--lang", lang] if lang else []
    assert main([*args, *_board_down(tmp_path, monkeypatch)]) == 3
    err = capsys.readouterr().err
    assert all(w in err for w in words), err
    # the library's words (urllib3's «HTTPConnectionPool… Max retries exceeded… [Errno 111]») stay in
    # the log, and the URL is named once, not once per wrapped exception
    for library in (
        "urllib3",
        "HTTPConnectionPool",
        "Max retries",
        "Errno",
        "NewConnectionError",
        "Traceback",
    ):
        assert library not in err, err
    assert err.count("127.0.0.1:9/member.php") == 1, err
    assert len(err.strip().splitlines()) == 2, err


def test_a_locked_store_gets_a_page_naming_who_holds_it_and_what_to_do(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the store's write lock past the busy timeout (shortened here)."""
    import functools
    import threading
    import time

    from sqlalchemy import text

    from forumbot.store import db

    path = tmp_path / "game.db"
    db.open_store(path).close()
    monkeypatch.setattr(db, "open_store", functools.partial(db.open_store, busy_timeout=0.3))
    monkeypatch.setenv("FB_TEST_PW", "a long enough password")
    ready, done = threading.Event(), threading.Event()

    def hold() -> None:
        other = db.open_store(path)
        with other.session() as s:
            s.execute(text("CREATE TABLE IF NOT EXISTS held (x INTEGER)"))
            s.execute(text("INSERT INTO held VALUES (1)"))
            ready.set()
            done.wait(10)
            s.commit()
        other.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert ready.wait(5)
        started = time.monotonic()
        code = main(["--store", str(path), "judges", "add", "二号法官", "--password-env", "FB_TEST_PW"])
        assert time.monotonic() - started < 10
    finally:
        done.set()
        holder.join()
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("forumbot：") and "正忙" in err and str(path) in err, err
    assert "\n  怎么办：等那个进程结束后重新运行本命令" in err, err
    assert "database is locked" not in err and "OperationalError" not in err


def test_what_to_do_follows_the_failure() -> None:
    from forumbot.errors import NetworkError, StoreBusy, StoreFull, ThreadNotFound, error_page, what_to_do

    set_language("zh_CN")
    assert what_to_do(NetworkError("https://bbs.example.com/forum.php?mod=viewthread&tid=2")).startswith(
        "用浏览器打开 https://bbs.example.com，"
    )
    assert "腾出一些磁盘空间" in what_to_do(StoreFull("磁盘已满"))
    assert "等那个进程结束" in error_page(StoreBusy("存储正忙"))
    # a failure whose message already says what to do gets no second line
    assert error_page(ThreadNotFound("https://b.example/t/1")).count("\n") == 0
