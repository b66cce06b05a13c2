"""R004 威权 handed over, as the rules put it (市长·威权, 行动时限, AMB-61, rules.md §a.3 and §d):

- the 威权 holder who goes out **must** pick another role, which gains 威权 and **is told so**;
- the choice is due **before the next discussion day starts** (with the last words);
- it goes to another role that is **not out** (AMB-61): the holder himself, a role out or a name not in
  the game is refused, and the refusal is explained to the sender;
- without a valid choice by then, the director draws the new holder **at random** among the living;
- the hand-over is private: the words post does not publish «威权交给：…».

The example R004 game with 豆花 dealt the mayor's card: the killers kill him on night 1, he sends the
judge his words and his choice by PM before day 1 opens (6/9 09:00).
"""

from __future__ import annotations

import tomllib
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from forumbot.config import game_from_dict
from forumbot.desk import AuthorityRefused, Desk, read_submissions
from forumbot.parsers.pm import PmMessage
from forumbot.parsers.records import TimeSource
from forumbot.resources import data_dir
from forumbot.runner.steps import BoardSteps
from forumbot.store.db import Store

EXAMPLE = data_dir() / "examples" / "r004"
SH = ZoneInfo("Asia/Shanghai")


def sh(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=SH)


def mayor_killed_on_night_1(store: Store, *, sniped: str | None = None) -> BoardSteps:
    data: dict[str, Any] = tomllib.loads((EXAMPLE / "game.toml").read_text("utf-8"))
    data["game"]["store"] = store.url
    data["board"]["url"] = "https://bbs.example.com/"
    data["night_sources"] = {"pm": True}
    data["outbox"] = {"uids": {name: 100 + i for i, name in enumerate(data["players"]["roster"])}}
    game = game_from_dict(data)
    roles = tomllib.loads((EXAMPLE / "roles.toml").read_text("utf-8"))["roles"]
    roles["豆花"] = "市长"  # the mayor holds 威权 from the start
    judge = Desk(game, store, by="导演")
    judge.setup(roles=roles)
    judge.night_entries(1, read_submissions(EXAMPLE / "night1.toml"))  # the killers kill 豆花
    if sniped is not None:  # the sniper shoots another role the same night
        judge.night_entries(1, [{"kind": "snipe", "by": "米线", "target": sniped, "at": "2026-06-08 22:40"}])
    judge.night_resolve(1)
    assert judge.require_state().authority_pending == "豆花"
    return BoardSteps(game, store, clock=lambda: sh("2026-06-09 09:01"))


def pm(name: str, text: str, at: str, pmid: int) -> PmMessage:
    t = sh(at)
    return PmMessage(pmid, None, 11, name, 1, "导演", t, t, TimeSource.TEXT, text)


def run_words_moment(steps: BoardSteps, pms: list[PmMessage]) -> dict[str, Any]:
    steps.read_pms = lambda: pms  # type: ignore[method-assign]
    m = next(m for m in steps.plan() if m.key == "day0/lastwords")
    return steps.run(m, sh("2026-06-09 09:01")).result


def items_to(steps: BoardSteps, name: str) -> list[str]:
    return [i.body for i in steps.outbox.items() if i.player == name]


def test_the_holders_choice_by_pm_hands_over_authority_and_the_new_holder_is_told(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    res = run_words_moment(
        steps, [pm("豆花", "威权交给：锅盔\n我是好人，请看好锅盔。", "2026-06-09 07:30", 1)]
    )
    assert res["authority"]["passer"] == "豆花" and res["authority"]["holder"] == "锅盔"
    assert not res["authority"]["drawn"]
    st = steps.desk.require_state()
    assert st.authority_holder == "锅盔" and st.authority_pending is None
    # day 1's vote (whose tie the holder decides) is judged from the state with the new holder
    day_state = steps.desk.day_start_state(1)
    assert day_state is not None and day_state.authority_holder == "锅盔"
    (notice,) = items_to(steps, "锅盔")
    assert "你获得<威权>" in notice and "豆花" in notice
    words = next(i.body for i in steps.outbox.items() if i.kind == "judge_post")
    assert "威权" not in words and "我是好人" in words  # the hand-over is private


def test_the_hand_over_is_in_the_history_and_undone_like_any_step(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    run_words_moment(steps, [pm("豆花", "威权给 锅盔", "2026-06-09 07:30", 1)])
    assert steps.desk.live_history()[-1].label == "authority 1"
    steps.desk.undo()
    assert steps.desk.require_state().authority_pending == "豆花"
    assert steps.desk.day_start_state(1).authority_holder is None  # type: ignore[union-attr]


def test_a_hand_over_to_himself_is_refused_and_he_is_told_why_then_a_valid_one_stands(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    res = run_words_moment(
        steps,
        [
            pm("豆花", "威权交给：豆花", "2026-06-09 07:00", 1),
            pm("豆花", "威权交给：麻团", "2026-06-09 08:00", 2),
        ],
    )
    verdicts = {v["pmid"]: v for v in res["authority"]["verdicts"]}
    assert not verdicts[1]["ok"] and "不能交给自己" in verdicts[1]["reason"]
    assert verdicts[2]["ok"] and res["authority"]["holder"] == "麻团"
    (refusal,) = items_to(steps, "豆花")
    assert "未被受理" in refusal and "不能交给自己" in refusal and "AMB" not in refusal


def test_only_the_holder_who_went_out_may_hand_it_over(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    res = run_words_moment(
        steps,
        [
            pm("锅盔", "威权交给：锅盔", "2026-06-09 07:00", 1),  # a living civilian claims it
            pm("豆花", "威权交给：烤串", "2026-06-09 08:00", 2),
        ],
    )
    assert res["authority"]["holder"] == "烤串"
    (refusal,) = items_to(steps, "锅盔")
    assert "不是出局的威权持有者" in refusal


def test_a_role_out_cannot_receive_authority(store: Store) -> None:
    steps = mayor_killed_on_night_1(store, sniped="鸡翅")
    base = steps.desk.require_state()
    assert not base.is_alive("鸡翅")
    assert "已出局" in (steps.desk.authority_problem(base, "豆花", "鸡翅") or "")
    with pytest.raises(AuthorityRefused, match="已出局"):
        steps.desk.pass_authority("鸡翅", sh("2026-06-09 08:00"))
    with pytest.raises(AuthorityRefused, match="不是本局的角色"):
        steps.desk.pass_authority("路人甲", sh("2026-06-09 08:00"))
    assert steps.desk.require_state().authority_pending == "豆花"  # nothing changed


def test_without_a_valid_choice_by_the_deadline_the_director_draws_the_new_holder(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    res = run_words_moment(
        steps,
        [
            pm("豆花", "我是好人", "2026-06-09 07:00", 1),
            pm("豆花", "威权交给：锅盔", "2026-06-09 09:30", 2),  # after day 1 opened: late
        ],
    )
    late = next(v for v in res["authority"]["verdicts"] if v["pmid"] == 2)
    assert not late["ok"] and "超时" in late["reason"]
    holder = res["authority"]["holder"]
    assert res["authority"]["drawn"] and holder not in (None, "豆花")
    assert steps.desk.require_state().is_alive(holder)
    assert any("你获得<威权>" in body for body in items_to(steps, holder))


def test_run_again_after_a_crash_hands_over_once_and_adds_nothing(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    pms = [
        pm("豆花", "威权交给：豆花", "2026-06-09 07:00", 1),
        pm("豆花", "威权交给：锅盔", "2026-06-09 08:00", 2),
    ]
    first = run_words_moment(steps, pms)
    versions = len(steps.desk.live_history())
    again = run_words_moment(steps, pms)
    assert again["authority"]["holder"] == first["authority"]["holder"] == "锅盔"
    assert len(steps.desk.live_history()) == versions
    assert sorted(again["outbox"]) == sorted(first["outbox"])


def test_a_judge_enters_the_hand_over_by_hand_and_the_runner_keeps_it(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    judge = Desk(steps.game, store, by="导演")
    done = judge.pass_authority("麻团", sh("2026-06-09 08:00"), why="豆花 在QQ上告诉导演")
    assert done.holder == "麻团" and not done.drawn
    res = run_words_moment(steps, [pm("豆花", "威权交给：锅盔", "2026-06-09 08:30", 1)])
    assert res["authority"]["holder"] == "麻团" and res["authority"]["by"] == "导演"
    assert steps.desk.require_state().authority_holder == "麻团"


def test_a_day_judged_before_the_hand_over_is_judged_again_after_it(store: Store) -> None:
    """The stored judgement of a day (desk/carry.py) is keyed by what it was judged from: the hand-over
    is part of it, so day 1's tie is never decided from a judgement made before 威权 changed hands."""
    steps = mayor_killed_on_night_1(store)
    before = steps.desk.day_fingerprints(1)[1]
    run_words_moment(steps, [pm("豆花", "威权交给：锅盔", "2026-06-09 07:30", 1)])
    assert steps.desk.day_fingerprints(1)[1] != before


def test_a_question_about_authority_is_no_hand_over_and_is_not_answered(store: Store) -> None:
    steps = mayor_killed_on_night_1(store)
    res = run_words_moment(
        steps,
        [
            pm("锅盔", "威权现在在谁手里？", "2026-06-09 07:00", 1),
            pm("豆花", "威权交给：烤串", "2026-06-09 08:00", 2),
        ],
    )
    assert [v["pmid"] for v in res["authority"]["verdicts"]] == [2]
    assert items_to(steps, "锅盔") == []
