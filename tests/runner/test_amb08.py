"""AMB-08: a kill and a possession of the same player. The rules record it and void the possession at
resolution (used up, per the flag); they do not refuse it. Whether the judge entered it or the runner read
it from the bandits' thread, the runner resolves night 1 (never «delayed … IllegalActionError [AMB-08]»
at every tick), the possession void and used, and the judge sees why."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from engine import Kill
from forumbot.desk import Desk
from forumbot.runner.fastplay import FastClock, play
from forumbot.runner.ledger import MomentStatus, records
from forumbot.runner.tick import TickReport
from forumbot.web import data
from tests.runner.yexiao import SCENARIO, START, Played, board, open_runner, variant

AFTER_NIGHT_1 = datetime(2026, 6, 3, 9, 30, tzinfo=UTC)  # 17:30 in Beijing: night 1 is due at 17:00
# 粽子 (the ghost) adds a possession of the night's victim 春卷 to the group's kill (麻花's 改刀, 16:35)
SAME_TARGET = {"pid": 900, "tid": 8, "author": "粽子", "at": "2026-06-03 16:40:00", "text": "附体：春卷"}


def _night_1(p: Played) -> tuple[dict[str, object], list[TickReport]]:
    reports = play(p.runner, p.clock, until=AFTER_NIGHT_1, board_moments=SCENARIO.moments())
    with p.store.session() as s:
        rec = records(s, p.steps.game_id)["night1/deadline"]
    assert rec.status is MomentStatus.DONE, rec.note
    return rec.result, reports


def _possession_void_and_used(p: Played) -> None:
    st = p.steps.desk.state_labelled("night 1")
    assert st is not None and st.possession_used  # gp_kill_and_possess_same_target: void_and_consumed
    assert not any(pl.possessed for pl in st.players)
    assert "春卷" not in st.living()


def test_read_from_the_bandits_thread_the_night_is_resolved_with_the_possession_void(tmp_path: Path) -> None:
    clock = FastClock(START)
    with board(clock, variant(SAME_TARGET)) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock, uids=True)
        result, reports = _night_1(p)
        assert not any("AMB-08" in why for r in reports for why in r.delayed.values())
        assert result["out"] == ["春卷"]
        (kill,) = [a for a in result["accepted"] if a["kind"] == "kill"]
        assert kill["victim"] == "春卷" and kill["possess"] == "春卷"
        verdict = next(v for v in result["verdicts"] if v["id"] == "pid:900")
        assert verdict["code"] == "accepted" and "AMB-08" in verdict["reason"]  # the judge sees why
        _possession_void_and_used(p)
        p.store.close()


def test_entered_by_the_judge_the_night_is_resolved_with_the_possession_void(tmp_path: Path) -> None:
    clock = FastClock(START)
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock, uids=True)
        kill = Kill("春卷", pledge="麻花", possess="春卷", text="春卷被人卷进了春饼里。", by="麻花")
        judge = Desk(p.game, p.store, by="法官大人")
        (rec,) = judge.night_record(1, [(kill, datetime(2026, 6, 3, 8, 40, tzinfo=UTC))])
        assert rec.void_rule == "AMB-08"
        result, reports = _night_1(p)
        assert not any(r.delayed for r in reports), [r.delayed for r in reports]
        assert result["by_judge"] == 1 and result["out"] == ["春卷"]
        _possession_void_and_used(p)
        # the web's night page says the possession is recorded and void, not refused
        nv = data.night_view(p.game, p.store, 1)
        (line,) = [x for x in nv.submissions if x.by == "麻花"]
        assert line.ok and "AMB-08" in line.reason
        p.store.close()
