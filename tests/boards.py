"""Small boards for the unit tests: the example board (:mod:`forumbot.exampleboard`) playing a scenario
built here from a dict, behind ``responses`` (``board.mock(rsps)``) or on 127.0.0.1 (``with board:``).

Why one helper: the client, poll and outbox tests each need a board of a few threads whose story goes on
while they run (``board.add_thread(7, 12)``, ``board.reply``, ``board.edit``, ``board.delete``); they
all get the same living board the demo and the runner use, set as they need it (a GBK board, offset
paging where a deletion moves pids to earlier pages, a closed mobile API, flood control).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from forumbot.exampleboard.model import scenario_from_dict
from forumbot.exampleboard.server import MOCK_ROOT, LiveBoard

ROOT = MOCK_ROOT  # http://bbs.example.com/, the URL of tests.conftest.make_board
T0 = datetime(2026, 6, 4, 3, 0, 0, tzinfo=UTC)  # 11:00 board time: the board's clock when it opens


def small_board(
    *,
    users: dict[str, int] | None = None,
    judge: str = "法官大人",
    password: str = "hunter2",
    ppp: int = 10,
    fid: int = 3,
    paging: str = "offset",
    now: datetime = T0,
    **board: Any,
) -> LiveBoard:
    """An empty board (forum ``fid`` 版杀区, the judge's account, ``users``) open at ``now``; ``board``:
    more ``[board]`` options of the scenario format (charset, mobile_api, floodctrl, pmfloodctrl…)."""
    raw: dict[str, Any] = {
        "board": {
            "name": "测试论坛",
            "ppp": ppp,
            "judge": judge,
            "password": password,
            "paging": paging,
            **board,
        },
        "users": {judge: 14, **(users or {})},
        "forums": [{"fid": fid, "name": "版杀区"}],
    }
    return LiveBoard(scenario_from_dict(raw, "test board"), now=now)
