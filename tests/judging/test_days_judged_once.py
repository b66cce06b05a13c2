"""Each day judged once (issue 12): the desk reads a thread again only when it changed, and day k starts
from the stored result of day k-1 only while nothing that result used has changed.

The oracle is the desk without stored days: with ``day_results`` emptied, a new desk judges every day
again from day 1 (what every tally did before). After each change (a post edited on the board, a new
post, an override, a proxy vote, an undo...) the stored days must give exactly what it gives.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, text

from engine import DayResult, OutcomeKind
from forumbot.commands.day import tally_json, write_tally_json
from forumbot.config import game_from_dict
from forumbot.desk import Desk, vote_count_draft
from forumbot.store import Store, open_store
from forumbot.store.dayresults import load_day_results
from forumbot.store.models import DayResultRow
from forumbot.store.posts import mark_vanished
from tests.judging import daygame
from tests.judging.daygame import closes, discussion_tid, opens, post, store_page, vote_pid, vote_tid


def new_desk(store: Store, days: int = 3) -> Desk:
    return Desk(daygame.game(store.url, days), store, by="test-judge")


def replayed(store: Store, n: int, days: int = 3) -> DayResult:
    """Day ``n`` judged with every day before it judged again (no stored day), in a copy of the store's
    decisions: the stored days are emptied, then restored, so the store under test is left as it was."""
    with store.engine.begin() as conn:
        saved = [dict(r._mapping) for r in conn.execute(DayResultRow.__table__.select())]  # type: ignore[attr-defined]
        conn.execute(delete(DayResultRow))
    try:
        desk = new_desk(store, days)
        judged = desk.tally(n)
        assert desk.threads.reads >= 2 * n - 1  # every day's threads were read
        return judged.result
    finally:
        with store.engine.begin() as conn:
            conn.execute(delete(DayResultRow))
            if saved:
                conn.execute(DayResultRow.__table__.insert(), saved)  # type: ignore[attr-defined]


@pytest.fixture
def filled(store: Store) -> Store:
    daygame.fill(store)
    return store


def later(hours: float) -> Any:
    return closes(3) + timedelta(hours=hours)


# --------------------------------------------------------------------------- one desk across polls


def test_a_long_lived_desk_sees_a_poll_without_being_told(filled: Store) -> None:
    """The runner's desk lives across ticks: a poll between two tallies is seen, and only the thread
    it changed is read again."""
    desk = new_desk(filled)
    assert desk.tally(1).result.counts == {"己": 3, "戊": 1, "丁": 1, "甲": 1}
    reads = desk.threads.reads
    assert desk.tally(1).result.counts == {"己": 3, "戊": 1, "丁": 1, "甲": 1}
    assert desk.threads.reads == reads  # nothing changed: nothing read
    # 丁's vote for 戊 edited on the board (an edited vote is void in R001), seen by the next poll
    edited = post(vote_pid(1, 3), vote_tid(1), "丁", opens(1) + timedelta(hours=4), "投票：己")
    store_page(filled, vote_tid(1), [edited], later(1))
    judged = desk.tally(1)
    assert "戊" not in judged.result.counts
    assert judged.result.verdict(vote_pid(1, 3)).status.value == "edited"
    assert desk.threads.reads == reads + 1  # the vote thread only


def test_a_desk_sees_what_another_process_wrote(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    mine, theirs = open_store(path), open_store(path)
    try:
        daygame.fill(mine)
        desk = new_desk(mine)
        assert desk.tally(2).result.outcome.out == ("戊",)
        # another process (a judge's poll while the runner runs) stores a late-found vote of day 2
        extra = post(vote_pid(2, 9), vote_tid(2), "乙", opens(2) + timedelta(hours=9), "投票：甲")
        store_page(theirs, vote_tid(2), [extra], later(1))
        mark_vanished(
            theirs,
            daygame.BOARD,
            vote_tid(2),
            {vote_pid(2, k) for k in range(-1, 6)} | {extra.pid},
            at=later(2),
        )
        judged = desk.tally(2)
        assert judged.result.verdict(extra.pid).status.value == "duplicate"  # 乙 had voted already
        assert judged.result == replayed(mine, 2)
    finally:
        mine.close()
        theirs.close()


# --------------------------------------------------------------------------- each day judged once


def test_day_k_starts_from_the_stored_day_before(filled: Store) -> None:
    first = new_desk(filled)
    for n in (1, 2):
        first.tally(n)
    assert sorted(load_day_results(filled, first.gid)) == [1, 2]
    desk = new_desk(filled)  # the next command
    judged = desk.tally(3)
    assert desk.threads.reads == 2  # day 3's vote and discussion threads; days 1 and 2 from the store
    assert judged.result == replayed(filled, 3)
    assert judged.result.outcome.out == ("丁",)
    assert sorted(load_day_results(filled, desk.gid)) == [1, 2, 3]


def test_an_edit_of_an_earlier_day_is_seen_by_the_days_after(filled: Store) -> None:
    desk = new_desk(filled)
    before = desk.tally(3).result
    stored_day1 = load_day_results(filled, desk.gid)[1]
    # 甲's and 乙's votes for 己 edited (void in R001): day 1 ties four ways and waits for a revote, so
    # 己 is alive on day 2 and votes there
    store_page(
        filled,
        vote_tid(1),
        [
            post(vote_pid(1, 0), vote_tid(1), "甲", opens(1) + timedelta(hours=1), "投票：丁"),
            post(vote_pid(1, 1), vote_tid(1), "乙", opens(1) + timedelta(hours=2), "投票：丁"),
        ],
        later(1),
    )
    again = new_desk(filled)
    day1 = again.tally(1).result
    assert day1.outcome.kind is OutcomeKind.REVOTE
    day2 = again.tally(2).result
    assert day2.verdict(vote_pid(2, 5)).status.value == "counted"  # 己, alive now
    day3 = again.tally(3).result
    assert day3 != before
    assert load_day_results(filled, desk.gid)[1] != stored_day1
    assert (day2, day3) == (replayed(filled, 2), replayed(filled, 3))
    # and the desk that judged before the poll sees it too
    assert desk.tally(3).result == day3


def test_an_override_of_an_earlier_day_is_seen_by_the_days_after(filled: Store) -> None:
    desk = new_desk(filled)
    before = desk.tally(3).result
    # the judges read 甲's day-1 vote as a vote for 戊: 己 and 戊 tie
    new_desk(filled).override(1, vote_pid(1, 0), "vote", "戊", "看错了名字")
    again = new_desk(filled)
    assert again.tally(1).result.outcome.kind is OutcomeKind.REVOTE
    day3 = again.tally(3).result
    assert day3 != before
    assert day3 == replayed(filled, 3)
    assert desk.tally(3).result == day3  # the first desk too: its kept days are checked at each use


def test_stored_days_give_what_judging_every_day_again_gives(filled: Store) -> None:
    """Random changes to any day, each followed by a tally of the last day in a new desk (a command):
    always what judging days 1..3 again gives."""
    rng = random.Random(20260612)
    hour = 0.0
    desk = new_desk(filled)
    desk.tally(3)
    for _step in range(12):
        day = rng.randint(1, 3)
        hour += 1
        kind = rng.choice(("edit", "new", "override", "proxy", "discussion"))
        who = rng.choice(daygame.ROSTER)
        whom = rng.choice(daygame.ROSTER)
        if kind == "edit":
            k = rng.randrange(len(daygame.VOTES[day]))
            author = daygame.VOTES[day][k][0]
            edited = post(
                vote_pid(day, k), vote_tid(day), author, opens(day) + timedelta(hours=1 + k), f"投票：{whom}"
            )
            store_page(filled, vote_tid(day), [edited], later(hour))
        elif kind == "new":
            pid = vote_pid(day, 50 + _step)
            store_page(
                filled,
                vote_tid(day),
                [post(pid, vote_tid(day), who, opens(day) + timedelta(hours=8), f"投票：{whom}")],
                later(hour),
            )
        elif kind == "override":
            k = rng.randrange(len(daygame.VOTES[day]))
            try:
                new_desk(filled).override(day, vote_pid(day, k), rng.choice(("void", "vote")), whom, "复核")
            except Exception as exc:  # a correction the desk refuses is not a change
                assert "roster" in str(exc) or "override" in str(exc).lower()
        elif kind == "proxy":
            new_desk(filled).proxy_vote(day, who, whom, opens(day) + timedelta(hours=2))
        else:
            pid = 10_000 * day + 8000 + _step
            store_page(
                filled,
                discussion_tid(day),
                [post(pid, discussion_tid(day), who, opens(day) + timedelta(hours=3), "补充一段认真的分析")],
                later(hour),
            )
        fresh = new_desk(filled).tally(3).result
        assert fresh == replayed(filled, 3), (kind, day)
        assert desk.tally(3).result == fresh  # the long-lived desk as well


def test_the_fingerprints_are_the_same_in_every_process(tmp_path: Path) -> None:
    """A stored day is of use to the next command only if that command computes the same fingerprint:
    sets and mappings are written in one order whatever the process's hash seed."""
    path = tmp_path / "game.db"
    with open_store(path) as store:
        daygame.fill(store)
        here = new_desk(store).day_fingerprints(3)
    code = (
        "import json, sys\n"
        "from forumbot.store import open_store\n"
        "from forumbot.desk import Desk\n"
        "from tests.judging import daygame\n"
        f"s = open_store({str(path)!r})\n"
        "print(json.dumps(Desk(daygame.game(s.url), s).day_fingerprints(3)))\n"
    )
    root = Path(__file__).resolve().parents[2]
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert {int(k): v for k, v in json.loads(out.stdout).items()} == here


# --------------------------------------------------------------------------- the JSON written as it is made


def test_the_streamed_json_is_the_same_value(filled: Store) -> None:
    desk = new_desk(filled)
    judged = desk.tally(2)
    draft = vote_count_draft(desk, judged)
    out = StringIO()
    write_tally_json(judged, desk.game, draft, out)
    assert json.loads(out.getvalue()) == tally_json(judged, desk.game, draft)
    lines = out.getvalue().splitlines()
    assert lines[0] == "{" and lines[1] == ' "day": 2,' and lines[-1] == "}"
    assert sum(1 for line in lines if line.startswith('  {"pid": ')) == len(judged.result.verdicts)


# --------------------------------------------------------------------------- any length, both backends


@pytest.mark.postgres
def test_a_70000_post_vote_thread_is_tallied_on_postgresql(pg_schema_store: Callable[[], Store]) -> None:
    """Over PostgreSQL's 65,535 parameters per statement, through the desk (the read path binds none
    per post)."""
    from tests.store.test_readpath import bulk_thread

    store = pg_schema_store()
    bulk_thread(store, 70_000, series="WITH s(g) AS (SELECT generate_series(1, 70000))", json="json")
    with store.engine.begin() as conn:  # the bulk insert's board URL and the game's, the same
        conn.execute(text("UPDATE boards SET url = :u"), {"u": daygame.BOARD})
    roster = [f"p{i}" for i in range(35)]
    game = game_from_dict(
        {
            "game": {"name": "长帖杀", "ruleset": "R001", "timezone": "UTC", "store": store.url},
            "board": {"url": daygame.BOARD, "source": "pc"},
            "players": {"roster": roster},
            "timetable": {"first_night": "2026-06-02", "night_deadline": "17:00", "vote_close": "13:00"},
            "days": [{"day": 1, "vote": 3, "opens": "2026-06-03 17:20"}],
        }
    )
    desk = Desk(game, store, by="test-judge")
    judged = desk.tally(1)
    assert len(judged.result.verdicts) == 70_000
    assert {v.pid for v in judged.result.verdicts} == set(range(1, 70_001))
    assert desk.day_of_vote_post(69_999) == 1
    again = Desk(game, store, by="test-judge").tally(1)  # a second command: the same judgement
    assert again.result == judged.result
