"""The runner does each due moment once, in the game's order, and picks up after a crash."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from forumbot.runner import ledger
from forumbot.runner.ledger import MomentStatus
from forumbot.runner.plan import DayTimes, Facts, Moment, MomentKind, due, plan
from forumbot.runner.tick import Delay, NotYet, Runner, StepResult, WaitForJudge
from forumbot.store.db import open_store

T0 = datetime(2026, 6, 3, 9, 0, tzinfo=UTC)  # 17:00 Beijing: night 1's deadline


def days(n: int) -> list[DayTimes]:
    out = []
    for d in range(1, n + 1):
        close = T0 + timedelta(days=d, hours=-4)  # 13:00 Beijing the next day
        out.append(DayTimes(d, close - timedelta(minutes=30), close, close + timedelta(hours=4)))
    return out


def r001_plan(n: int = 2, facts: Facts | None = None) -> list[Moment]:
    return plan(cutoff_kind=MomentKind.VOID_CUTOFF, night1_deadline=T0, days=days(n), facts=facts or Facts())


def test_plan_follows_the_game_sequence() -> None:
    keys = [m.key for m in r001_plan(2)]
    assert keys == [
        "night1/deadline",
        "day1/void_cutoff",
        "day1/close",
        "night2/deadline",
        "day2/void_cutoff",
        "day2/close",
    ]
    assert all(a.at <= b.at for a, b in zip(r001_plan(2), r001_plan(2)[1:], strict=False))


def test_a_called_revote_adds_its_deadline_before_the_next_night() -> None:
    close = days(1)[0].closes
    facts = Facts(revotes={1: [(1, close + timedelta(hours=1))]})
    keys = [m.key for m in r001_plan(2, facts)]
    assert keys.index("day1/revote1") == keys.index("day1/close") + 1
    assert keys.index("night2/deadline") == keys.index("day1/revote1") + 1


def test_r001_last_words_end_at_the_next_nights_deadline_before_its_results() -> None:
    """§四.5.3: the check result and the case post wait for the executed officer's words (AMB-31: until
    the next night's 17:00 deadline), so the window's end comes first, at the same minute."""
    night2 = days(2)[0].night_deadline
    ms = r001_plan(2, Facts(last_words={1: night2}))
    keys = [m.key for m in ms]
    assert keys[keys.index("day1/close") + 1 : keys.index("night2/deadline") + 1] == [
        "day1/lastwords",
        "night2/deadline",
    ]
    words, night = ms[keys.index("day1/lastwords")], ms[keys.index("night2/deadline")]
    assert words.kind is MomentKind.LAST_WORDS and words.round == 1
    assert words.deadline == night.deadline and words.at == night.at


def test_r004_last_words_end_when_the_next_day_opens_after_the_night() -> None:
    """R004 遗言: due before the next discussion day starts; the night's dead owe them too (day 0: night
    1's dead, due when day 1 opens)."""
    ds = days(2)
    opens2 = ds[0].night_deadline + timedelta(hours=12)
    opens1 = T0 + timedelta(hours=12)
    ms = plan(
        cutoff_kind=MomentKind.CHANGE_CUTOFF,
        night1_deadline=T0,
        days=ds,
        facts=Facts(last_words={0: opens1, 1: opens2}),
    )
    keys = [m.key for m in ms]
    assert keys[:3] == ["night1/deadline", "day0/lastwords", "day1/change_cutoff"]
    assert keys[keys.index("day1/close") + 1 : keys.index("day1/close") + 3] == [
        "night2/deadline",
        "day1/lastwords",
    ]


def test_the_extra_check_window_follows_its_night() -> None:
    """§五 毒药4: the police checked the poison on night 1 and may check once more, within the window."""
    window_ends = T0 + timedelta(hours=1, minutes=1)
    ms = r001_plan(1, Facts(extra_checks={1: window_ends}))
    assert [(m.key, m.kind) for m in ms[:2]] == [
        ("night1/deadline", MomentKind.NIGHT_DEADLINE),
        ("night1/extra_check", MomentKind.EXTRA_CHECK),
    ]
    assert ms[1].deadline == window_ends and ms[1].at == window_ends + timedelta(minutes=1)


def test_nothing_runs_ahead_of_an_earlier_moment() -> None:
    ms = r001_plan(2)
    late = ms[-1].at + timedelta(days=1)
    assert [m.key for m in due(ms, set(), late)] == [m.key for m in ms]
    assert [m.key for m in due(ms, {"night1/deadline"}, ms[1].at)] == ["day1/void_cutoff"]
    assert due(ms, set(), ms[0].at - timedelta(seconds=1)) == []


class FakeSteps:
    """Records what it did; can be told to fail a moment a number of times."""

    game_id = 1

    def __init__(self, moments: list[Moment]) -> None:
        self.moments = moments
        self.ran: list[str] = []
        self.delay: dict[str, int] = {}
        self.wait: set[str] = set()
        self.board_down = False
        self.revote_on: str | None = None
        self.early: set[str] = set()  # moments the steps let run before their time
        self.not_yet: set[str] = set()  # ... which then turn out not to be ready

    def plan(self) -> list[Moment]:
        return self.moments

    def read(self) -> str:
        if self.board_down:
            raise ConnectionError("board down")
        return "nothing new"

    def ready_early(self, moment: Moment, now: datetime) -> bool:
        return moment.key in self.early

    def run(self, moment: Moment, now: datetime) -> StepResult:
        if moment.key in self.not_yet and now < moment.at:
            raise NotYet("a message came in that needs the judge")
        if self.delay.get(moment.key, 0) > 0:
            self.delay[moment.key] -= 1
            raise Delay("the board did not answer")
        if moment.key in self.wait:
            raise WaitForJudge("no roles stored")
        self.ran.append(moment.key)
        if moment.key == self.revote_on:
            extra = Moment(
                moment.at + timedelta(hours=1),
                moment.seq,
                "day1/revote1",
                MomentKind.REVOTE_DEADLINE,
                1,
                moment.deadline + timedelta(hours=1),
                1,
            )
            i = self.moments.index(moment)
            self.moments = [*self.moments[: i + 1], extra, *self.moments[i + 1 :]]
        return StepResult(note="ok", result={"key": moment.key})

    def send(self) -> str:
        return "0 sent"


@pytest.fixture
def store():  # type: ignore[no-untyped-def]
    st = open_store("sqlite://")
    st.create_tables()
    yield st
    st.close()


def make(store, steps: FakeSteps, now: datetime) -> Runner:  # type: ignore[no-untyped-def]
    return Runner(store, steps, clock=lambda: now, log=lambda _line: None)


def test_each_moment_is_done_once_however_often_the_runner_ticks(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(2))
    end = steps.moments[-1].at + timedelta(hours=1)
    for _ in range(3):
        make(store, steps, end).tick()
    assert steps.ran == [m.key for m in r001_plan(2)]
    with store.session() as s:
        recs = ledger.records(s, 1)
    assert all(r.status is MomentStatus.DONE and r.attempts == 1 for r in recs.values())


def test_a_delayed_moment_holds_back_the_rest_and_runs_when_the_board_is_back(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(2))
    steps.delay["day1/close"] = 2
    end = steps.moments[-1].at + timedelta(hours=1)
    rep = make(store, steps, end).tick()
    assert rep.delayed == {"day1/close": "the board did not answer"}
    assert steps.ran == ["night1/deadline", "day1/void_cutoff"]
    with store.session() as s:
        assert ledger.records(s, 1)["day1/close"].status is MomentStatus.DELAYED
    make(store, steps, end).tick()
    assert steps.ran == ["night1/deadline", "day1/void_cutoff"]
    make(store, steps, end).tick()
    assert steps.ran == [m.key for m in r001_plan(2)]


def test_a_moment_found_running_was_interrupted_and_runs_again(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(1))
    runner = make(store, steps, steps.moments[0].at)
    runner.sync()
    with store.session() as s:
        ledger.claim(s, 1, "night1/deadline", steps.moments[0].at)
        s.commit()  # the process died here, after claiming, before finishing
    runner.tick()
    assert steps.ran == ["night1/deadline"]
    with store.session() as s:
        rec = ledger.records(s, 1)["night1/deadline"]
    assert rec.status is MomentStatus.DONE and rec.attempts == 2


def test_a_moment_waiting_for_a_judge_says_why(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(1))
    steps.wait.add("night1/deadline")
    rep = make(store, steps, steps.moments[-1].at).tick()
    assert rep.waiting == {"night1/deadline": "no roles stored"}
    assert steps.ran == []


def test_a_revote_called_at_the_close_is_planned_and_done_in_the_same_tick(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(2))
    steps.revote_on = "day1/close"
    end = steps.moments[-1].at + timedelta(days=1)
    make(store, steps, end).tick()
    assert steps.ran.index("day1/revote1") == steps.ran.index("day1/close") + 1


def test_a_board_down_at_the_tick_is_reported_not_raised(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(1))
    steps.board_down = True
    rep = make(store, steps, steps.moments[0].at - timedelta(hours=1)).tick()
    assert "board down" in rep.read_error


def test_a_board_that_does_not_answer_is_reported_in_the_judges_words(store) -> None:  # type: ignore[no-untyped-def]
    """Our own errors are one sentence already (the URL and the cause): no English class name before it."""
    from forumbot.errors import NetworkError

    steps = FakeSteps(r001_plan(1))
    down = NetworkError("http://bbs.example.com/forum.php", "", "连接被拒绝，论坛可能已关闭，已尝试 3 次")

    def read() -> str:
        raise down

    steps.read = read  # type: ignore[method-assign]
    rep = make(store, steps, steps.moments[0].at - timedelta(hours=1)).tick()
    assert rep.read_error == str(down) and "NetworkError" not in rep.read_error


def test_a_moment_the_steps_find_ready_is_done_before_its_time_once(store) -> None:  # type: ignore[no-untyped-def]
    """Early resolution (AMB-NM8): the night is done at the poll that finds it ready, recorded done,
    and not done again at its time."""
    steps = FakeSteps(r001_plan(1))
    steps.early.add("night1/deadline")
    before = steps.moments[0].at - timedelta(minutes=40)
    rep = make(store, steps, before).tick()
    assert rep.done == ["night1/deadline"]
    make(store, steps, steps.moments[0].at).tick()
    assert steps.ran == ["night1/deadline"]  # not again at its time
    with store.session() as s:
        rec = ledger.records(s, 1)["night1/deadline"]
    assert rec.status is MomentStatus.DONE and rec.attempts == 1 and rec.finished_at == before


def test_only_the_next_moment_may_go_early(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(2))
    steps.early.add("night2/deadline")  # ready, but day 1 is not over
    make(store, steps, steps.moments[0].at).tick()
    assert steps.ran == ["night1/deadline"]


def test_an_early_try_that_is_not_ready_after_all_goes_back_to_pending(store) -> None:  # type: ignore[no-untyped-def]
    steps = FakeSteps(r001_plan(1))
    steps.early.add("night1/deadline")
    steps.not_yet.add("night1/deadline")
    rep = make(store, steps, steps.moments[0].at - timedelta(minutes=40)).tick()
    assert rep.not_yet and not rep.done and not rep.delayed
    with store.session() as s:
        assert ledger.records(s, 1)["night1/deadline"].status is MomentStatus.PENDING
    make(store, steps, steps.moments[0].at).tick()  # at its time it runs as usual
    assert steps.ran[0] == "night1/deadline"
