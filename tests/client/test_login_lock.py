"""After a failed login, no forumbot command logs in again within the lock-out window (issue 22).

Discuz! locks the IP for 15 minutes after 5 failed logins, counted over every request from it, the
right password included. ``poll`` and ``tick`` kept a record of the failure in the store, but
``forumbot outbox send`` built its board client without it and logged in again on every run (four sends
with a wrong password: the judge locked out). Here a wrong password fails once, then every face that
logs in (``outbox send``, ``poll``, the runner's tick, the web desk's send) is started as a fresh
process would be: not one more login reaches the board until the window has passed. On a UTF-8 board
and a GBK board (whose fields are read as GBK bytes: exchanges 80/81), through the PC form (01-03) and
through the mobile API (29, 30: version 2, the charset asked of ``?check`` first).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import responses
import tomli_w

from forumbot.cli import main
from forumbot.client import forget_login_failures
from forumbot.config import Game, load_game
from forumbot.exampleboard.server import LiveBoard
from forumbot.i18n import current_language, set_language
from forumbot.outbox import ItemKind, Outbox, Reply
from forumbot.store import open_store
from forumbot.store.logins import LOCKOUT, login_failures
from tests.boards import ROOT, small_board
from tests.conftest import TEST_UA

PASSWORD_ENV = "FORUMBOT_LOCK_TEST_PASSWORD"
UIDS = {"饺子": 2, "包子": 3, "馄饨": 4, "烧卖": 5, "汤圆": 6, "油条": 7, "法官大人": 14}


def locking_board(charset: str) -> LiveBoard:
    """The example board, in ``charset``, whose judge's password is not the one the game gives.

    PC: the login form, POST → ``alert_error`` «登录失败，您还可以尝试 4 次» (03, 80). API: ``?check`` →
    {"charset": …} (29), POST ``version=2&module=login`` → JSON ``login_invalid`` (30). The board keeps
    every login POST with its raw field bytes (``board.logins``)."""
    return small_board(users=UIDS, charset=charset, password="the right password")


def write_game(tmp_path: Path, route: str) -> Path:
    data: dict[str, Any] = {
        "game": {"name": "美食杀", "ruleset": "R001", "judges": ["法官大人"], "store": "game.db"},
        "board": {
            "url": ROOT,
            "username": "法官大人",
            "password_env": PASSWORD_ENV,
            "login_via": route,
            "min_interval": 0.0,
            "user_agent": TEST_UA,
            "fid": 3,
        },
        "players": {"roster": ["饺子", "包子", "馄饨", "烧卖", "汤圆", "油条"]},
        "outbox": {"uids": UIDS, "via": route},
        "days": [{"day": 1, "vote": 5, "discussion": 4, "opens": "2026-06-03 17:20"}],
    }
    path = tmp_path / "forumbot.toml"
    path.write_text(tomli_w.dumps(data), "utf-8")
    return path


@pytest.fixture
def judge_language() -> Iterator[None]:
    before = current_language()
    yield
    set_language(before)


def fresh_process() -> None:
    """What a new `forumbot` process starts with: no memory of this one's failed logins."""
    forget_login_failures()


def approved_item(game: Game) -> int:
    with open_store(game.store_url) as store:
        ob = Outbox(store, game, by="法官大人")
        item = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】第一天", day=1)
        ob.approve(item, by="法官大人")
        return item


@pytest.mark.parametrize("route", ["web", "api"])
@pytest.mark.parametrize("charset", ["utf-8", "gbk"])
def test_no_command_logs_in_again_within_the_lock_period(
    charset: str,
    route: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    judge_language: None,
) -> None:
    from forumbot.runner.steps import BoardSteps
    from forumbot.runner.tick import Delay
    from forumbot.web.data import outbox_send

    monkeypatch.setenv(PASSWORD_ENV, "wrong password")
    path = write_game(tmp_path, route)
    game = load_game(path)
    item = approved_item(game)
    board = locking_board(charset)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        board.mock(rsps)

        fresh_process()
        assert main(["--game", str(path), "outbox", "send"]) == 3  # the first send: one failed login
        [first] = board.logins
        assert first["username"] == "法官大人".encode(charset)  # the board's charset, on either route

        for command in (["outbox", "send"], ["outbox", "send"], ["outbox", "send"], ["poll"]):
            fresh_process()
            assert main(["--game", str(path), *command]) != 0
            assert "login --retry" in capsys.readouterr().err
        fresh_process()
        with open_store(game.store_url) as store, pytest.raises(Delay):  # `forumbot tick`, a night's end
            BoardSteps(game, store).read_pms()
        fresh_process()
        with open_store(game.store_url) as store:  # the web desk's 发送 button
            _status, words = outbox_send(game, store, item, "法官大人")
            assert "login --retry" in words

        assert len(board.logins) == 1, "a command logged in again within the lock-out window"
        with open_store(game.store_url) as store:
            [failure] = login_failures(store, game.board)
            assert failure.kind == "LoginFailed" and failure.cleared_at is None

        fresh_process()  # the window over: one send tries once more, and is recorded again
        later = failure.at + LOCKOUT + timedelta(minutes=1)
        with open_store(game.store_url) as store:
            report = Outbox(store, game, now=lambda: later, by="法官大人").send()
            assert report.stopped
            assert len(login_failures(store, game.board)) == 2
        assert len(board.logins) == 2
    assert datetime.now(UTC) < failure.at + LOCKOUT  # the commands above ran inside the window
