"""【猎人局】: the 13-player 猎人 variant (this package's rule set) played by the runner for a night and a
day on the living example board, as `forumbot run` would: the bandits' kill read from their group
thread, the hunter's registered shot from his PM to the judge, the night resolved with the shot fired,
the case post and the day's vote count and close written to the outbox and sent.

Nothing outside this package knows the hunter: the runner, the night verdicts and the message reader
take his word, who may send it and where from the rule set's night vocabulary.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine import RoleId, register, unregister
from forumbot.client import BoardClient
from forumbot.desk import Desk
from forumbot.exampleboard.model import scenario_from_dict
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import ItemKind
from forumbot.runner.fastplay import FastClock, example_game, example_roles, play
from forumbot.runner.ledger import MomentStatus, records
from forumbot.runner.steps import BoardSteps
from forumbot.runner.tick import Runner
from forumbot.store.db import open_store
from tests.engine.hunter import HERE, HUNTER, SHOT, Hunter

START = datetime(2026, 6, 3, 0, 0, tzinfo=UTC)  # 08:00 Beijing, before night 1's deadline (17:00)
UNTIL = datetime(2026, 6, 4, 7, 0, tzinfo=UTC)  # 15:00 Beijing on day 1's closing date: after the close
ROLES = example_roles("yexiao") | {"猎户": "猎人"}  # 【夜宵杀】's draw plus the hunter


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BoardSteps, LiveBoard]]:
    rs = register(Hunter())
    raw: dict[str, Any] = tomllib.loads((HERE / "scenario.toml").read_text("utf-8"))
    scenario = scenario_from_dict(raw, "hunter scenario")
    clock = FastClock(START)
    board = LiveBoard(scenario, now=clock.now)
    board.follow(clock)
    db = Path(tmp_path_factory.mktemp("hunter")) / "game.db"
    try:
        with board as b:
            game = example_game("yexiao", b.url, str(db), auto_approve=[k.value for k in ItemKind])
            game = replace(
                game,
                name="猎人局",
                ruleset=rs.id,
                roster=(*game.roster, "猎户"),
                days=tuple(d for d in game.days if d.day == 1),
            )
            store = open_store(game.store_url)
            Desk(game, store, by="法官大人").setup(roles=ROLES)
            steps = BoardSteps(game, store, client=BoardClient(game.board, now=clock), clock=clock)
            steps.outbox.sleep = lambda _s: None
            runner = Runner(store, steps, clock=clock, log=lambda _line: None)
            play(runner, clock, until=UNTIL, board_moments=scenario.moments())
            yield steps, b
            store.close()
    finally:
        unregister(rs.id)


def _moment(steps: BoardSteps, key: str) -> dict[str, Any]:
    with steps.store.session() as s:
        rec = records(s, steps.game_id)[key]
    assert rec.status is MomentStatus.DONE, (key, rec.note)
    result: dict[str, Any] = rec.result
    return result


def test_the_setup_seats_thirteen_with_the_variants_hunter(played: tuple[BoardSteps, LiveBoard]) -> None:
    steps, _ = played
    first = steps.desk.state_labelled("setup (roles given by the judges)")
    assert first is not None and len(first.players) == 13
    assert first.player("猎户").role is HUNTER and "hunter" not in {m.value for m in RoleId}


def test_night_one_reads_the_kill_from_the_group_thread_and_the_shot_from_the_pm(
    played: tuple[BoardSteps, LiveBoard],
) -> None:
    steps, _ = played
    res = _moment(steps, "night1/deadline")
    codes = {v["id"]: v["code"] for v in res["verdicts"]}
    assert codes["pid:26"] == "accepted"  # 杀：猎户 in the 匪帮讨论组
    assert codes["pm:1"] == "accepted"  # 开枪：粽子 by the hunter, by PM
    assert codes["pm:2"] == "not_member"  # a civilian holds no gun
    reasons = {v["id"]: v["reason"] for v in res["verdicts"]}
    assert "开枪 粽子" in reasons["pm:1"] and "猎人" in reasons["pm:2"]
    accepted = {(a["kind"], a.get("victim") or a.get("target")) for a in res["accepted"]}
    assert accepted == {("kill", "猎户"), ("check", "月饼"), ("shoot", "粽子")}
    assert res["out"] == ["猎户", "粽子"]


def test_the_engine_fires_the_shot_in_the_nights_resolution(played: tuple[BoardSteps, LiveBoard]) -> None:
    steps, _ = played
    st = steps.desk.state_labelled("night 1")
    assert st is not None
    assert not st.is_alive("猎户") and st.player("粽子").cause is SHOT and st.armed == {}
    case1 = next(i for i in steps.outbox.items() if i.kind == "case_post" and i.night == 1)
    assert "死者：猎户" in case1.body and "猎户进山打猎，再也没有回来。" in case1.body
    assert "猎户 是猎人，出局时开枪：粽子 出局" in case1.body
    assert case1.status == "sent"


def test_day_one_is_counted_and_closed_with_the_living_only(played: tuple[BoardSteps, LiveBoard]) -> None:
    steps, b = played
    assert _moment(steps, "day1/close")
    steps.desk.refresh()
    r = steps.desk.tally(1).result
    assert list(r.executed) == ["锅贴"]
    voters = {pv.player for pv in r.players}
    assert "猎户" not in voters and "粽子" not in voters and len(voters) == 11
    bodies = {i.kind: i.body for i in steps.outbox.items() if i.day == 1}
    assert "锅贴 被处决，身份：平民" in bodies["execution_notice"]
    st = steps.desk.require_state()
    assert sorted(st.living()) == sorted(n for n in ROLES if n not in ("猎户", "粽子", "锅贴"))
    items = steps.outbox.items()
    assert items and all(i.status == "sent" for i in items)
    assert len(b.writer.posts) == sum(1 for i in items if i.dest != "pm")
