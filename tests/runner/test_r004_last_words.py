"""R004 遗言 as a moment of the runner's plan: the roles out since the last day-start post submit their words
to the director before the next discussion day starts (行动时限); the director publishes them with the
day-start post (公示前一天出局角色名单及遗言); words not submitted are forfeited; no Discuz! code (AMB-77).

The example R004 game (data/examples/r004): night 1 puts 豆花 out, the first role out, who has a slot;
discussion day 1 opens 6/9 09:00. The words come to the judge by PM ([night_sources] pm = true).
"""

from __future__ import annotations

import tomllib
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from forumbot.config import game_from_dict
from forumbot.desk import Desk, read_submissions
from forumbot.parsers.pm import PmMessage
from forumbot.parsers.records import TimeSource
from forumbot.resources import data_dir
from forumbot.runner.plan import Moment, MomentKind
from forumbot.runner.steps import BoardSteps
from forumbot.store.db import Store

EXAMPLE = data_dir() / "examples" / "r004"
SH = ZoneInfo("Asia/Shanghai")


def sh(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=SH)


def steps_after_night_1(store: Store, *, pm: bool) -> BoardSteps:
    data: dict[str, Any] = tomllib.loads((EXAMPLE / "game.toml").read_text("utf-8"))
    data["game"]["store"] = store.url
    data["board"]["url"] = "https://bbs.example.com/"
    if pm:
        data["night_sources"] = {"pm": True}
    game = game_from_dict(data)
    judge = Desk(game, store, by="导演")
    judge.setup(roles=tomllib.loads((EXAMPLE / "roles.toml").read_text("utf-8"))["roles"])
    judge.night_entries(1, read_submissions(EXAMPLE / "night1.toml"))
    judge.night_resolve(1)  # 豆花 is out
    return BoardSteps(game, store, clock=lambda: sh("2026-06-09 09:01"))


def words(name: str, text: str, at: str, pmid: int = 1) -> PmMessage:
    t = sh(at)
    return PmMessage(pmid, None, 11, name, 1, "导演", t, t, TimeSource.TEXT, text)


def the_moment(steps: BoardSteps) -> Moment:
    return next(m for m in steps.plan() if m.key == "day0/lastwords")


def test_night_1s_dead_owe_words_due_when_day_1_opens_after_the_night(store: Store) -> None:
    steps = steps_after_night_1(store, pm=True)
    keys = [m.key for m in steps.plan()]
    assert keys[:3] == ["night1/deadline", "day0/lastwords", "day1/change_cutoff"]
    m = the_moment(steps)
    assert m.kind is MomentKind.LAST_WORDS and m.deadline == sh("2026-06-09 09:00")


def test_words_received_by_pm_are_published_in_day_1s_thread(store: Store) -> None:
    steps = steps_after_night_1(store, pm=True)
    steps.read_pms = lambda: [words("豆花", "我是好人，请看好锅盔。", "2026-06-09 07:30")]  # type: ignore[method-assign]
    res = steps.run(the_moment(steps), sh("2026-06-09 09:01"))
    (window,) = res.result["windows"]
    assert window["player"] == "豆花" and window["status"] == "posted" and window["where"] == "director"
    (item_id,) = res.result["outbox"]
    item = steps.outbox.get(item_id)
    assert item.kind == "judge_post" and item.tid == 2  # day 1's discussion thread
    assert "豆花：我是好人，请看好锅盔。" in item.body


def test_words_with_discuz_code_are_not_published(store: Store) -> None:
    steps = steps_after_night_1(store, pm=True)
    steps.read_pms = lambda: [  # type: ignore[method-assign]
        words("豆花", "[color=red]锅盔是杀手[/color]", "2026-06-09 08:00"),
    ]
    res = steps.run(the_moment(steps), sh("2026-06-09 09:01"))
    body = steps.outbox.get(res.result["outbox"][0]).body
    assert "锅盔是杀手" not in body and "Discuz!代码" in body


def test_words_sent_after_day_1_opened_are_forfeited(store: Store) -> None:
    steps = steps_after_night_1(store, pm=True)
    steps.read_pms = lambda: [words("豆花", "迟到的遗言", "2026-06-09 09:30")]  # type: ignore[method-assign]
    res = steps.run(the_moment(steps), sh("2026-06-09 09:31"))
    assert res.result["windows"][0]["status"] == "forfeited"
    assert "豆花：未留遗言" in steps.outbox.get(res.result["outbox"][0]).body


def test_without_the_judges_pms_the_runner_says_the_judges_collect_the_words(store: Store) -> None:
    steps = steps_after_night_1(store, pm=False)
    res = steps.run(the_moment(steps), sh("2026-06-09 09:01"))
    assert res.result["windows"][0]["status"] == "not_read" and res.result["outbox"] == []
    assert "forumbot lastwords --received" in res.note


def test_a_hand_over_of_authority_in_the_words_pm_is_not_published(store: Store) -> None:
    """Passing 威权 is private (the new holder is told, rules §d.3): the words post keeps the words only."""
    steps = steps_after_night_1(store, pm=True)
    steps.read_pms = lambda: [  # type: ignore[method-assign]
        words("豆花", "威权交给：锅盔\n我是好人，请看好锅盔。", "2026-06-09 07:30"),
    ]
    res = steps.run(the_moment(steps), sh("2026-06-09 09:01"))
    body = steps.outbox.get(res.result["outbox"][0]).body
    assert "豆花：我是好人，请看好锅盔。" in body
    assert "威权" not in body


def test_words_that_only_pass_authority_publish_no_words(store: Store) -> None:
    steps = steps_after_night_1(store, pm=True)
    steps.read_pms = lambda: [words("豆花", "传威权给 锅盔", "2026-06-09 07:30")]  # type: ignore[method-assign]
    res = steps.run(the_moment(steps), sh("2026-06-09 09:01"))
    body = steps.outbox.get(res.result["outbox"][0]).body
    assert "威权" not in body and "豆花：未留遗言" in body
