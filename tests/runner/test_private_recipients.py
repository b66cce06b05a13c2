"""Every recipient the engine names gets his private message, the dead included (issue 18): the runner
sends what the desk's one operation says, never a list of its own filtered to the living."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from typing import Any

from engine import (
    JUDGE,
    Audience,
    AudienceKind,
    Event,
    EventKind,
    GroupId,
    Kill,
    new_game,
    new_night,
    resolve_night,
    submit,
)
from forumbot.config import game_from_dict
from forumbot.desk import Desk, read_submissions
from forumbot.desk.private import private_notes
from forumbot.runner.steps import BoardSteps
from forumbot.store.db import Store
from tests.runner.test_r004_last_words import EXAMPLE, sh


def _r004_steps(store: Store) -> BoardSteps:
    data: dict[str, Any] = tomllib.loads((EXAMPLE / "game.toml").read_text("utf-8"))
    data["game"]["store"] = store.url
    data["board"]["url"] = "https://bbs.example.com/"
    data["outbox"] = {"uids": {name: 100 + i for i, name in enumerate(data["players"]["roster"])}}
    game = game_from_dict(data)
    judge = Desk(game, store, by="导演")
    judge.setup(roles=tomllib.loads((EXAMPLE / "roles.toml").read_text("utf-8"))["roles"])
    judge.night_entries(1, read_submissions(EXAMPLE / "night1.toml"))
    return BoardSteps(game, store, clock=lambda: sh("2026-06-09 08:00"))


def test_the_nights_dead_get_their_out_notice_from_the_runner(store: Store) -> None:
    """R004: night 1 puts 豆花 out; he learns it privately, and that he may leave last words."""
    steps = _r004_steps(store)
    moment = next(m for m in steps.plan() if m.key == "night1/deadline")
    res = steps.run(moment, sh("2026-06-09 08:00"))
    assert res.result["out"] == ["豆花"]
    items = {i.moment_key: i for i in steps.outbox.items()}
    notice = items["night1/private/豆花"]
    assert notice.dest == "pm" and tuple(notice.uids) == (100 + steps.game.roster.index("豆花"),)
    assert "今晚出局名单：豆花。你已出局，可以留下遗言" in notice.body
    # the same messages the desk gives every face (the web's night page, night resolve --json)
    before = steps.desk.state_before_night(1)
    assert before is not None
    preview = steps.desk.night_preview(1, state=before)
    desk_notes = {m.player: m.body for m in steps.desk.night_private_messages(1, preview, before)}
    sent = {k.rsplit("/", 1)[1]: i.body for k, i in items.items() if k.startswith("night1/private/")}
    assert sent == desk_notes


def test_a_message_to_a_dead_player_is_kept_and_a_group_reaches_who_was_in_it() -> None:
    """A player's own message reaches him dead or alive; a group's message reaches its members who were
    alive when the step began (one killed in it too), not a member dead since an earlier night."""
    st = new_game(
        "R000-G1",
        [("甲", "匪"), ("乙", "匪"), ("丙", "警察"), ("丁", "平民"), ("戊", "守护神"), ("己", "平民")],
    )
    after = resolve_night(st, submit(st, new_night(st), Kill("丁", by="甲"))).state
    assert "丁" not in after.living()
    told = (
        Event(EventKind.OUT_NOTICE, Audience(AudienceKind.PLAYER, "丁"), "你已出局"),
        Event(EventKind.NOTE, Audience(AudienceKind.GROUP, GroupId.BANDITS.value), "匪帮：今晚的刀已执行"),
        Event(EventKind.NOTE, JUDGE, "法官备忘"),
    )
    notes = {n.player: n.texts for n in private_notes(told, st, after, "【测试】第1夜（仅你可见）")}
    assert notes == {"丁": ("你已出局",), "甲": ("匪帮：今晚的刀已执行",), "乙": ("匪帮：今晚的刀已执行",)}


def test_the_day_closes_private_message_reaches_the_executed(store: Store) -> None:
    """R001 family: an executed police officer is told privately when and where his last words go."""
    from dataclasses import replace

    from engine import Protect
    from tests.judging import daygame

    game = replace(daygame.game(store.url, days=1), ruleset="R000-G1")
    daygame.fill(store, days=1)
    desk = Desk(game, store, by="法官")
    desk.setup(roles={"甲": "匪", "乙": "平民", "丙": "守护神", "丁": "平民", "戊": "平民", "己": "警察"})
    desk.night_submit(1, Protect(guardian="丙", target="甲"), datetime(2026, 6, 3, 8, 0, tzinfo=UTC))
    desk.night_resolve(1)
    judged = desk.tally(1)
    preview = desk.preview_close(judged)
    assert preview is not None and "己" in preview.out
    (note,) = desk.day_private_messages(judged, preview)
    assert note.player == "己" and "你被票死" in note.body
