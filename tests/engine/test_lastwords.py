"""Last words (遗言), as the rules read.

R001 §四.5.3 / AMB-31: “遗言时间为宣判投票结果，身份揭示后到新案情发布前 … 执法团需确认被票死的警察
已经发布完毕遗言之后，方可给出当日的验人结果，以及发布新案情。” — at the latest until the next night's
17:00 deadline.
R004 遗言 / AMB-77: “前数个出局的角色可以留下遗言，该数量等于计入轮次的杀手阵营角色的数量。遗言中禁止
使用Discuz!代码。” “红牌罚下出局的角色没有遗言权利。” “次日讨论日开始前：有遗言权利的出局角色未提交遗言，
视为放弃遗言。”
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import engine
from engine import (
    Kill,
    LastWordsStatus,
    Night,
    Submission,
    held_until,
    last_words_windows,
    new_game,
    resolve_night,
    state_from_dict,
    state_to_dict,
)
from tests.engine.helpers import make_state

SH = ZoneInfo("Asia/Shanghai")


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 6, day, hour, minute, tzinfo=SH).astimezone(UTC)


NIGHT2_DEADLINE = at(5, 17)  # R001: the next night's 17:00 deadline


def _night(state: engine.GameState, *actions: engine.NightAction) -> Night:
    night = Night(state.round)
    for a in actions:
        night = night.with_submission(Submission(a, False))
    return night


def r001_after_executing(name: str) -> engine.GameState:
    """An R001 game after night 1 and day 1, whose vote executed ``name``."""
    st = resolve_night(
        make_state("R001", "S12"), _night(make_state("R001", "S12"), Kill("Cole", pledge="Ken"))
    )
    return engine.apply_day(st.state, day=1, executed=name).state


# ---- R001: an executed police officer -------------------------------------------------------------------


def test_an_executed_police_officer_may_post_once_in_the_discussion_until_the_next_night_deadline() -> None:
    (w,) = last_words_windows(r001_after_executing("Pam"), NIGHT2_DEADLINE)
    assert (w.player, w.where, w.due, w.round) == ("Pam", "discussion", NIGHT2_DEADLINE, 2)
    assert w.holds == ("check_result", "case_post")


def test_the_check_result_and_the_case_post_wait_while_he_has_not_posted() -> None:
    windows = last_words_windows(r001_after_executing("Pam"), NIGHT2_DEADLINE)
    held = held_until(windows, {}, at(5, 14), display_tz=SH)
    assert held.held and held.released_at is None and held.pending == ("Pam",)
    assert held.waits_for == ("Pam",) and "等待 Pam 的遗言（最迟至截止 6/5 17:00）" in held.reason


def test_posted_at_15_00_releases_them_at_15_00() -> None:
    windows = last_words_windows(r001_after_executing("Pam"), NIGHT2_DEADLINE)
    held = held_until(windows, {"Pam": at(5, 15)}, at(5, 15, 30))
    assert held.released_at == at(5, 15) and held.forfeited == ()
    assert windows[0].status(at(5, 15, 30), at(5, 15)) is LastWordsStatus.POSTED


def test_never_posted_releases_them_at_17_00_and_the_words_are_forfeited() -> None:
    windows = last_words_windows(r001_after_executing("Pam"), NIGHT2_DEADLINE)
    assert held_until(windows, {}, at(5, 16, 59)).released_at is None
    held = held_until(windows, {}, at(5, 17, 1))
    assert held.released_at == NIGHT2_DEADLINE and held.forfeited == ("Pam",)
    assert "放弃" in windows[0].reason_zh(at(5, 17, 1), None)


def test_words_posted_after_the_deadline_are_forfeited_all_the_same() -> None:
    windows = last_words_windows(r001_after_executing("Pam"), NIGHT2_DEADLINE)
    held = held_until(windows, {"Pam": at(5, 17, 5)}, at(5, 17, 10))
    assert held.released_at == NIGHT2_DEADLINE and held.forfeited == ("Pam",)


def test_the_results_still_wait_for_the_night_submissions() -> None:
    """Words at 15:00, the night's submissions in at 16:40: the results go out at 16:40."""
    windows = last_words_windows(r001_after_executing("Pam"), NIGHT2_DEADLINE)
    held = held_until(windows, {"Pam": at(5, 15)}, at(5, 16, 45), ready_at=at(5, 16, 40))
    assert held.released_at == at(5, 16, 40)


def test_an_executed_civilian_leaves_no_last_words_and_nothing_waits() -> None:
    windows = last_words_windows(r001_after_executing("Cal"), NIGHT2_DEADLINE)
    assert windows == ()
    held = held_until(windows, {}, at(5, 12), ready_at=at(5, 12))
    assert held.released_at == at(5, 12) and held.holds == ()
    assert not held_until(windows, {}, at(5, 12)).held  # nothing waits


def test_once_the_night_is_resolved_no_officer_is_waited_for() -> None:
    st = r001_after_executing("Pam")
    st = resolve_night(st, _night(st, Kill("Cid", pledge="Ken"))).state
    assert last_words_windows(st, at(6, 17)) == ()


# ---- R004: the first L roles out ---------------------------------------------------------------------

R004_ROLES = {
    "K1": "killer",
    "K2": "killer",
    "P1": "police",
    "c1": "civilian",
    "c2": "civilian",
    "c3": "civilian",
    "c4": "civilian",
    "c5": "civilian",
    "c6": "civilian",
}
DAY2_STARTS = at(12, 9)


def r004_day1(red: tuple[str, ...] = (), flags: dict[str, object] | None = None) -> engine.GameState:
    from dataclasses import replace

    fl = replace(engine.get_ruleset("R004").flags, **(flags or {}))
    st = new_game("R004", list(R004_ROLES.items()), flags=fl)
    assert st.lastword_slots == 2  # L = the two counted killers
    st = resolve_night(st, _night(st)).state  # night 1: nobody out
    return engine.apply_day(st, day=1, executed="c1", red_cards=red).state


def test_the_first_l_roles_out_get_a_slot_due_before_the_next_discussion_day() -> None:
    st = r004_day1()
    (w,) = last_words_windows(st, DAY2_STARTS)
    assert (w.player, w.where, w.due, w.holds, w.bbcode_allowed) == (
        "c1",
        "director",
        DAY2_STARTS,
        ("day_start",),
        False,
    )
    st = resolve_night(st, _night(st, Kill("c2"))).state
    assert [w.player for w in last_words_windows(st, DAY2_STARTS)] == ["c1", "c2"]
    # the third role out gets no slot: L = 2 slots are used up
    st = engine.apply_day(st, day=2, executed="c3").state
    assert last_words_windows(st, at(14, 9)) == ()


def test_a_red_carded_role_uses_a_slot_but_gets_no_words() -> None:
    st = r004_day1(red=("c2",))
    assert [w.player for w in last_words_windows(st, DAY2_STARTS)] == ["c1"]
    st = resolve_night(st, _night(st, Kill("c3"))).state
    assert [w.player for w in last_words_windows(st, DAY2_STARTS)] == ["c1"]  # both slots used


def test_red_cards_use_no_slot_under_the_alternative() -> None:
    st = r004_day1(red=("c2",), flags={"r004_red_card_consumes_lastword_slot": False})
    st = resolve_night(st, _night(st, Kill("c3"))).state
    assert [w.player for w in last_words_windows(st, DAY2_STARTS)] == ["c1", "c3"]


def test_the_day_start_post_waits_for_the_words_or_the_start_of_the_discussion_day() -> None:
    st = r004_day1()
    st = resolve_night(st, _night(st, Kill("c2"))).state
    windows = last_words_windows(st, DAY2_STARTS)
    assert held_until(windows, {"c1": at(11, 22)}, at(12, 8)).released_at is None
    assert held_until(windows, {"c1": at(11, 22), "c2": at(12, 0, 30)}, at(12, 1)).released_at == at(
        12, 0, 30
    )
    late = held_until(windows, {"c1": at(11, 22)}, at(12, 9, 1))
    assert late.released_at == DAY2_STARTS and late.forfeited == ("c2",)


def test_the_roles_awaited_survive_a_round_trip_through_the_store() -> None:
    st = r004_day1()
    st = resolve_night(st, _night(st, Kill("c2"))).state
    assert state_from_dict(state_to_dict(st)).day_start_out == ("c1", "c2")


def test_no_discuz_code_in_r004_last_words() -> None:
    st = r004_day1()
    (w,) = last_words_windows(st, DAY2_STARTS)
    text, note = engine.publishable_last_words(w, "[b]K1是杀手[/b]", st.flags)
    assert text is None and "Discuz!代码" in note and "[b]" in note
    assert engine.publishable_last_words(w, "K1是杀手，[我猜]的", st.flags) == ("K1是杀手，[我猜]的", "")
