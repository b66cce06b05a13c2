"""A doubtful night message stops the night until a judge overrides it; the runner's next tick then
resolves the night with the override (issue 10: «The judge can override, as for votes»).

【夜宵杀】 on the living example board with one message more: at 16:40 on night 1 the ghost bandit 粽子
asks the judge by PM «要不要改杀锅贴？» — a question, so doubtful (AMB-NM5), after 麻花's 改刀 on 春卷 (pid
29, with his 生死状 and 杀文). Only a judge can say whether the bandits changed their kill.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from forumbot.desk import Desk
from forumbot.exampleboard.model import Pm
from forumbot.exampleboard.server import LiveBoard
from forumbot.runner.fastplay import FastClock
from forumbot.store import records
from tests.runner.yexiao import SCENARIO, START, Played, open_runner

NIGHT1_DUE = START + timedelta(hours=9, minutes=1)  # 6/3 17:01 Beijing
ASKED = Pm(7, "粽子", "法官大人", datetime(2026, 6, 3, 8, 40, tzinfo=UTC), "要不要改杀锅贴？")


def board_with_the_question(clock: FastClock) -> LiveBoard:
    b = LiveBoard(replace(SCENARIO, pms=[*SCENARIO.pms, ASKED]), now=clock.now)
    b.follow(clock)
    return b


def waiting_at_night1(p: Played, clock: FastClock) -> None:
    p.runner.tick()
    clock.now = NIGHT1_DUE
    report = p.runner.tick()
    assert list(report.waiting) == ["night1/deadline"]
    why = report.waiting["night1/deadline"]
    assert "pm:7" in why and "forumbot night override" in why
    assert p.steps.desk.state_labelled("night 1") is None  # nothing final changed
    assert p.steps.desk.night(1)[1].submissions == ()


def out_of_night1(p: Played) -> tuple[str, ...]:
    before = p.steps.desk.state_before_night(1)
    after = p.steps.desk.state_labelled("night 1")
    assert before is not None and after is not None
    return tuple(n for n in before.living() if n not in after.living())


def test_a_judge_accepts_the_doubtful_kill_and_the_next_tick_resolves_the_night_with_it(
    tmp_path: Path,
) -> None:
    clock = FastClock(START)
    with board_with_the_question(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        waiting_at_night1(p, clock)
        judge = Desk(p.game, p.store, by="法官大人")
        listed = {line.message.id: line.verdict for line in judge.night_listing(1).lines}
        assert listed["pm:7"].code.value == "ambiguous" and listed["pid:29"].code.value == "accepted"

        judge.night_override("pm:7", "accept", "匪帮私信确认改刀锅贴", kind="kill", targets=["锅贴"])
        clock.now += timedelta(minutes=5)
        report = p.runner.tick()
        assert "night1/deadline" in report.done
        assert out_of_night1(p) == ("锅贴",)  # not 春卷: the bandits' last word, as the judge read it
        with p.store.session() as s:
            kills = [d for d, _at in records.night_submissions(s, p.steps.game_id, 1) if d["kind"] == "kill"]
        assert [(d["victim"], d["pledge"], d["by"]) for d in kills] == [("锅贴", "麻花", "粽子")]
        verdicts = {v.message_id: v for v in judge.night_mail(1).verdicts}
        assert verdicts["pm:7"].code.value == "accepted"
        assert "法官大人" in verdicts["pm:7"].reason and "匪帮私信确认改刀锅贴" in verdicts["pm:7"].reason


def test_a_judge_ignores_it_and_the_night_resolves_as_the_group_thread_said(tmp_path: Path) -> None:
    clock = FastClock(START)
    with board_with_the_question(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        waiting_at_night1(p, clock)
        Desk(p.game, p.store, by="法官大人").night_override("pm:7", "ignore", "只是问问，匪帮没有改刀")
        clock.now += timedelta(minutes=5)
        assert "night1/deadline" in p.runner.tick().done
        assert out_of_night1(p) == ("春卷",)


def test_an_undone_override_makes_the_night_wait_again(tmp_path: Path) -> None:
    clock = FastClock(START)
    with board_with_the_question(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        waiting_at_night1(p, clock)
        judge = Desk(p.game, p.store, by="法官大人")
        judge.night_override("pm:7", "ignore", "只是问问")
        judge.night_override_undo("pm:7", "先问清楚匪帮")
        clock.now += timedelta(minutes=5)
        report = p.runner.tick()
        assert list(report.waiting) == ["night1/deadline"] and p.steps.desk.state_labelled("night 1") is None


def test_a_judge_corrects_the_kill_the_runner_stored_and_every_face_resolves_the_corrected_night(
    tmp_path: Path,
) -> None:
    """Issue 20: after the runner resolved night 1 from 麻花's 改刀 (春卷), the judges learn the bandits
    meant 锅贴: they undo the resolution, correct the stored kill (kept, with who and why), and the night
    resolved again — by `night resolve` or the desk's button — kills 锅贴; the runner, which stored the
    kill, now counts the judges' correction and never adds the struck kill back."""
    from forumbot.web import data

    clock = FastClock(START)
    with board_with_the_question(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        waiting_at_night1(p, clock)
        judge = Desk(p.game, p.store, by="法官大人")
        judge.night_override("pm:7", "ignore", "只是问问")
        clock.now += timedelta(minutes=5)
        assert "night1/deadline" in p.runner.tick().done
        assert out_of_night1(p) == ("春卷",) and p.steps.judged_entries(1) == 0

        judge = Desk(p.game, p.store, by="法官大人")  # a fresh read: the runner resolved since
        judge.undo()
        st = judge.require_state()
        kill = next(s for s in judge.stored_submissions(1, st) if s.data["kind"] == "kill")
        assert kill.entered_by == p.steps.by  # the runner stored it
        fixed = replace(kill.action, victim="锅贴")
        judge.night_correct(1, kill.row_id, fixed, "匪帮私信确认改刀锅贴")
        assert p.steps.judged_entries(1) == 2  # the judge's kill, and the runner's he struck
        preview = data.night_view(p.game, p.store, 1)
        assert preview.out == judge.night_preview(1).out == ("锅贴",)
        assert any(
            line.withdrawn and "匪帮私信确认改刀锅贴" in line.withdrawn for line in preview.submissions
        )
        judge.night_resolve(1)
        assert out_of_night1(p) == ("锅贴",)


def test_after_an_undo_a_message_override_re_reads_what_the_runner_stored(tmp_path: Path) -> None:
    """Issue 20 («改判已记录，但不改变已保存的提交»): the runner stored night 1's kill from the messages
    (春卷, the question PM ignored) and resolved it; the judges undo the resolution and accept the PM as
    the bandits' real kill: the stored kill read from the messages is withdrawn (with who and why) and
    锅贴's stored in its place, so the night resolved again kills 锅贴 — no second correction needed."""
    clock = FastClock(START)
    with board_with_the_question(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        waiting_at_night1(p, clock)
        Desk(p.game, p.store, by="法官大人").night_override("pm:7", "ignore", "只是问问")
        clock.now += timedelta(minutes=5)
        assert "night1/deadline" in p.runner.tick().done
        assert out_of_night1(p) == ("春卷",)

        judge = Desk(p.game, p.store, by="法官大人")
        judge.undo()
        done = judge.night_override("pm:7", "accept", "匪帮私信确认改刀锅贴", kind="kill", targets=["锅贴"])
        assert done.reread and not done.warning
        rows = judge.night_submission_records(1)
        struck = [r for r in rows if r.withdrawn]
        assert [r.data["victim"] for r in struck] == ["春卷"]
        assert struck[0].withdrawn_by == "法官大人" and "匪帮私信确认改刀锅贴" in struck[0].withdrawn_why
        live = [r.data["victim"] for r in rows if not r.withdrawn and r.data["kind"] == "kill"]
        assert live == ["锅贴"]
        judge.night_resolve(1)
        assert out_of_night1(p) == ("锅贴",)
