"""A game, a writable board behind ``responses``, and a way to start forumbot again after a kill."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
import requests
import responses

from forumbot.client import BoardClient
from forumbot.config import Game, game_from_dict
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import Outbox
from forumbot.store.db import Store
from tests.boards import ROOT, small_board
from tests.conftest import TEST_UA, FakeClock

ROSTER = ["饺子", "包子", "馄饨", "烧卖", "汤圆", "油条"]
UIDS = {"饺子": 2, "包子": 3, "馄饨": 4, "烧卖": 5, "汤圆": 6, "油条": 7, "法官大人": 14}


def make_game(**outbox: Any) -> Game:
    data: dict[str, Any] = {
        "game": {"name": "美食杀", "ruleset": "R001", "judges": ["法官大人"]},
        "board": {"url": ROOT, "username": "法官大人", "min_interval": 1.0, "user_agent": TEST_UA, "fid": 3},
        "players": {"roster": ROSTER},
        "outbox": {"uids": UIDS, **outbox},
        "days": [{"day": 1, "vote": 5, "discussion": 4, "opens": "2026-06-03 17:20"}],
    }
    game = game_from_dict(data)
    return replace(game, board=replace(game.board, password="hunter2"))


@pytest.fixture(params=["utf-8", "gbk"])
def board(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator[LiveBoard]:
    """The judge's board, UTF-8 (X3.5) and GBK: discussion tid 4, vote tid 5, a running-count floor.

    Its story starts an hour before the test's clock and then keeps up with it (UCenter's 15 s between
    two PMs counted on the test's clock)."""
    b = small_board(users=UIDS, charset=request.param, pmfloodctrl=15, now=clock.now() - timedelta(hours=1))
    b.add_thread(4, 3, subject="【美食杀】第一天讨论")
    b.add_thread(5, 2, subject="【美食杀】第一天投票")
    b.follow(clock.now, catch_up=True)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        b.mock(rsps)
        yield b


@pytest.fixture
def running_count_pid(board: LiveBoard) -> int:
    """The judge's own floor in the vote thread that the running count edits."""
    return board.reply(5, "法官大人", "【实时票数】尚无投票")


@pytest.fixture
def start(clock: FakeClock) -> Callable[[Store, Game], Outbox]:
    """Start forumbot (again): a fresh session (cookies gone, as after a kill) on the same store."""
    lines: list[str] = []

    def make(store: Store, game: Game) -> Outbox:
        client = BoardClient(
            game.board, session=requests.Session(), sleep=clock.sleep, clock=clock.monotonic, now=clock.now
        )
        return Outbox(
            store, game, client=client, sleep=clock.sleep, now=clock.now, progress=lines.append, by="法官大人"
        )

    make.lines = lines  # type: ignore[attr-defined]
    return make
