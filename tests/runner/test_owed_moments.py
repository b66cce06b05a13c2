"""Moments the game makes owed, played by the runner on variants of 【夜宵杀】 on the living example board:
an executed police officer's last words (R001 §四.5.3, AMB-31), the extra check after the police checked
the poison (§五 毒药4, AMB-15), and the night resolved as soon as every required submission is in
(001 §二.5 “双方名单提交均完成后”, behind the flag night_resolve_early, AMB-NM8).

Times are the board's (Asia/Shanghai): night 1 is due 6/3 17:00, day 1 closes 6/4 13:00 and its revote
14:00, night 2 is due 6/4 17:00.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from forumbot.commands.run import status_data
from forumbot.exampleboard.model import Scenario
from forumbot.runner.fastplay import FastClock, play
from forumbot.runner.ledger import MomentRecord, MomentStatus, records
from forumbot.runner.plan import MomentKind
from forumbot.runner.steps import EARLY_DECISION
from forumbot.store import records as store_records
from tests.runner.yexiao import SCENARIO, START, Played, board, open_runner, variant

SH = ZoneInfo("Asia/Shanghai")


def sh(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=SH)


@contextmanager
def playing(
    tmp_path: Path,
    scenario: Scenario = SCENARIO,
    *,
    roles: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> Iterator[tuple[Played, list[str]]]:
    """A runner on a variant of the game (the judge's draw changed, posts added, flags set); yields it
    and the moments in the order they were done (play with :func:`to`)."""
    clock = FastClock(START)
    done: list[str] = []
    with board(clock, scenario) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock, roles=roles, flags=flags, uids=True)
        try:
            yield p, done
        finally:
            p.store.close()


def to(p: Played, done: list[str], scenario: Scenario, until: str) -> None:
    play(
        p.runner,
        p.clock,
        until=sh(until),
        board_moments=scenario.moments(),
        on_tick=lambda r: done.extend(r.done),
    )


def moment(p: Played, key: str) -> MomentRecord:
    with p.store.session() as s:
        return records(s, p.steps.game_id)[key]


def planned(p: Played, key: str) -> Any:
    return next(m for m in p.steps.plan() if m.key == key)


# ---------------------------------------------------------------- last words (R001 §四.5.3, AMB-31)

# 麻花 dealt the police card (汤圆 the killer's): day 1's revote still executes him, and he owes his
# one post of last words in [讨论] before night 2's check result and case post go out.
MAHUA_POLICE = {"麻花": "警察", "汤圆": "杀手"}
WORDS = {"pid": 900, "tid": 2, "author": "麻花", "at": "2026-06-04 15:00:00", "text": "遗言：月饼是平民。"}


@pytest.mark.parametrize("posted", [True, False], ids=["words posted at 15:00", "no words"])
def test_an_executed_police_officers_last_words_are_due_at_the_next_nights_17_00(
    tmp_path: Path, posted: bool
) -> None:
    scenario = variant(WORDS) if posted else SCENARIO
    with playing(tmp_path, scenario, roles=MAHUA_POLICE) as (p, done):
        to(p, done, scenario, "2026-06-04 16:00")
        assert p.steps.desk.state_labelled("day 1") is not None  # 麻花 executed after the revote
        m = planned(p, "day1/lastwords")
        assert m.kind is MomentKind.LAST_WORDS
        assert m.deadline == sh("2026-06-04 17:00") and m.at == sh("2026-06-04 17:01")
        # `forumbot status` shows it among the next moments, in the board's time
        nxt = [
            {k: v for k, v in m.items() if k != "does"}  # "does": see test_rehearsal.py
            for m in status_data(p.game, p.store, p.steps, sh("2026-06-04 16:00"))["next"]
        ]
        assert {
            "key": "day1/lastwords",
            "kind": "last_words",
            "at": "2026-06-04 17:01",
            "status": "pending",
        } in nxt

        to(p, done, scenario, "2026-06-04 17:30")
        # done once, before night 2's results (which wait for the words)
        assert done.index("day1/lastwords") + 1 == done.index("night2/deadline")
        rec = moment(p, "day1/lastwords")
        assert rec.status is MomentStatus.DONE and rec.attempts == 1
        (window,) = rec.result["windows"]
        assert window["player"] == "麻花" and window["due"] == "6月4日 17:00"
        if posted:
            assert window["status"] == "posted" and window["pid"] == 900
            assert rec.result["held"]["released_at"] == "6月4日 15:00"
            assert "麻花 已留遗言" in rec.note
        else:
            assert window["status"] == "forfeited" and window["pid"] is None
            assert rec.result["held"]["forfeited"] == ["麻花"]
            assert "放弃" in rec.note
        assert p.steps.outbox.by_key("night2/case_post") is not None  # drafted once the window ended


def test_the_words_are_read_although_the_next_days_thread_is_not_open_yet(tmp_path: Path) -> None:
    """Day 2's [讨论] opened only at 17:20 (with the case post that waits for the words): at 17:01 the
    board says it does not exist, so the words can only be in day 1's thread; the window still ends."""
    scenario = variant(WORDS, moved={66: "2026-06-04 17:20:00"})
    with playing(tmp_path, scenario, roles=MAHUA_POLICE) as (p, done):
        to(p, done, scenario, "2026-06-04 17:10")
        rec = moment(p, "day1/lastwords")
        assert rec.status is MomentStatus.DONE and rec.result["windows"][0]["status"] == "posted"


# ---------------------------------------------------------------- the extra check (§五 毒药4, AMB-15)

# 月饼, whom the police check on night 1, dealt the poison (煎饼 a civilian): the police may check once
# more within 60 minutes of the first result (sent at 17:01 when the runner resolves night 1).
MOONCAKE_POISON = {"月饼": "毒药", "煎饼": "平民"}


@pytest.mark.parametrize(
    ("posted_at", "answer"),
    [
        ("2026-06-03 17:30:00", "粽子：杀手"),
        ("2026-06-03 18:01:00", "追加验人超时，不予受理"),
        (None, None),
    ],
    ids=["on time", "at the window's end: late", "none sent"],
)
def test_the_extra_check_after_checking_the_poison_is_answered_within_its_window(
    tmp_path: Path, posted_at: str | None, answer: str | None
) -> None:
    extra = {"pid": 901, "tid": 9, "author": "馄饨", "at": posted_at, "text": "验：粽子"}
    scenario = variant(extra) if posted_at else SCENARIO
    with playing(tmp_path, scenario, roles=MOONCAKE_POISON) as (p, done):
        to(p, done, scenario, "2026-06-03 17:20")
        m = planned(p, "night1/extra_check")
        assert m.kind is MomentKind.EXTRA_CHECK
        assert m.deadline == sh("2026-06-03 18:01")  # the check result went out at 17:01, + 60 minutes
        to(p, done, scenario, "2026-06-03 20:00")
        assert done[:2] == ["night1/deadline", "night1/extra_check"]
        rec = moment(p, "night1/extra_check")
        assert rec.result["window"] == {"opens": "6月3日 17:01", "closes": "6月3日 18:01"}
        items = {i.moment_key: i for i in p.steps.outbox.items()}
        mine = {k: i for k, i in items.items() if k.startswith("night1/extra_check/")}
        labels = [v.label for v in p.steps.desk.live_history()]
        if answer is None:
            assert rec.result["target"] is None and not mine
            assert "night 1 extra check" not in labels
            return
        assert rec.result["target"] == "粽子" and labels.count("night 1 extra check") == 1
        # each living police officer learns it privately, and nobody else
        assert sorted(mine) == ["night1/extra_check/private/汤圆", "night1/extra_check/private/馄饨"]
        assert all(answer in i.body and i.dest == "pm" and i.status == "sent" for i in mine.values())
        assert p.steps.desk.require_state().extra_check_round is None  # used: no second extra check


# ---------------------------------------------------------------- early resolution (AMB-NM8)


@pytest.mark.parametrize("early", [False, True], ids=["default: at the deadline", "night_resolve_early"])
def test_night_1_resolves_when_every_required_submission_is_in_only_where_the_flag_allows(
    tmp_path: Path, early: bool
) -> None:
    """16:05 the police check 月饼, 16:20 the killers send 杀：锅贴 with 生死状 and 杀文, 16:35 they change
    it (改刀) to 春卷. At the deadline the change stands (the careful judge's reading); resolved as soon as
    both lists are in, the night is over at 16:20 and the change comes too late."""
    flags = {"night_resolve_early": True} if early else {}
    with playing(tmp_path, flags=flags) as (p, done):
        to(p, done, SCENARIO, "2026-06-03 17:30")
        rec = moment(p, "night1/deadline")
        assert rec.status is MomentStatus.DONE and rec.attempts == 1
        with p.store.session() as s:
            decided = store_records.decisions_for(s, p.steps.game_id, EARLY_DECISION, 1)
        if not early:
            assert rec.finished_at == sh("2026-06-03 17:01") and rec.result["out"] == ["春卷"]
            assert "early" not in rec.result and not decided
            return
        assert rec.finished_at == sh("2026-06-03 16:20") and rec.result["out"] == ["锅贴"]
        assert datetime.fromisoformat(rec.result["early"]) == sh("2026-06-03 16:20") and len(decided) == 1
        assert "提前于 6月3日 16:20 结算" in rec.note
        # run again later (as after a crash): judged as of 16:20, nothing stored or resolved twice
        again = p.steps.run(planned(p, "night1/deadline"), sh("2026-06-03 17:05"))
        assert again.result["out"] == ["锅贴"] and again.result["stored"] == 0
        assert again.result["verdicts"] == rec.result["verdicts"]  # the same reading as at 16:20
        codes = {v["id"]: v["code"] for v in rec.result["verdicts"]}
        assert codes["pid:28"] == "accepted" and "pid:29" not in codes  # 改刀 at 16:35: not yet written
        assert [v.label for v in p.steps.desk.live_history()].count("night 1") == 1
        with p.store.session() as s:
            stored = store_records.night_submissions(s, p.steps.game_id, 1)
        assert sorted(d["kind"] for d, _at in stored) == ["check", "kill"]  # each stored once


def test_early_resolution_waits_while_a_required_submission_is_missing(tmp_path: Path) -> None:
    """At 16:07 the check is in but no kill: the night is not resolved early."""
    with playing(tmp_path, flags={"night_resolve_early": True}) as (p, done):
        to(p, done, SCENARIO, "2026-06-03 16:10")
        assert moment(p, "night1/deadline").status is MomentStatus.PENDING
        assert p.steps.desk.state_labelled("night 1") is None
        m = planned(p, "night1/deadline")
        assert p.clock.now == sh("2026-06-03 16:07")  # the last post before 16:10: 汤圆's 同意。
        assert not p.steps.ready_early(m, p.clock.now)
