"""Commands a judge runs now and then, in his words (issue 20): ``judges list`` in the board's time with
«从未», ``login --status`` naming a failure in words (it crashed when the account was locked out: its
lockout line sat outside its ``if``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.cli import main
from forumbot.errors import LoginFailed
from forumbot.i18n import set_language
from forumbot.store.db import open_store
from forumbot.store.logins import record_login_failure

BOARD = "https://bbs.example.com/"


@pytest.fixture(autouse=True)
def chinese(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("LANG", raising=False)
    monkeypatch.delenv("LANGUAGE", raising=False)
    yield
    set_language("zh_CN")


def test_judges_list_in_the_boards_time_and_words(tmp_path: Path, capsys, monkeypatch) -> None:
    store = str(tmp_path / "desk.db")
    monkeypatch.setenv("FB_PW", "a long enough password")
    assert main(["--store", store, "judges", "add", "二号法官", "--password-env", "FB_PW"]) == 0
    capsys.readouterr()
    assert main(["--store", store, "judges", "list"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == "二号法官\t最近登录：从未", out


def test_login_status_names_a_lockout_in_words(tmp_path: Path, capsys) -> None:
    path = tmp_path / "game.db"
    with open_store(path) as store:
        error = LoginFailed(f"{BOARD}member.php?mod=logging&action=login", "登录失败，您还可以尝试 4 次")
        record_login_failure(store, BOARD, "法官大人", error, at=datetime.now(UTC))
    # no game file: the board and its account from the options
    code = main(["--store", str(path), "login", "--status", "--board", BOARD])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "法官大人  登录失败（不会自动重试" in captured.out and "LoginFailed" not in captured.out, (
        captured.out
    )
    assert "IP）：登录失败，您还可以尝试 4 次" in captured.out  # the board's words after «：»


def _game_with_account(tmp_path: Path) -> Path:
    import tomli_w

    from tests.judging.conftest import example_data

    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    data["board"].update(url=BOARD, username="法官大人")
    path = tmp_path / "forumbot.toml"
    path.write_text(tomli_w.dumps(data), "utf-8")
    return path


def test_login_status_with_an_account_and_no_failure_does_not_crash(tmp_path: Path, capsys) -> None:
    """The crash of issue 20's walk: an account in the game file, nothing recorded."""
    game = _game_with_account(tmp_path)
    assert main(["--game", str(game), "login", "--status"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "没有登录失败记录" and captured.err == ""


def test_login_status_says_until_when_a_retry_is_needed(tmp_path: Path, capsys) -> None:
    game = _game_with_account(tmp_path)
    with open_store(tmp_path / "game.db") as store:
        error = LoginFailed(f"{BOARD}member.php?mod=logging&action=login", "密码错误")
        record_login_failure(store, BOARD, "法官大人", error, at=datetime.now(UTC))
    assert main(["--game", str(game), "login", "--status"]) == 0
    captured = capsys.readouterr()
    assert "之前登录需要 --retry" in captured.err, captured.err
