"""A day's judgement is the desk's, whichever face shows it (issue 18): the result line of ``tally --json``
and of the web's day page is the line the close posts; an override the rules would not apply is refused
before it is recorded, never «recorded, applied at every tally» and then not applied."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from engine import EventKind, Protect
from forumbot.commands.day import tally_json
from forumbot.config import Game
from forumbot.desk import Desk, vote_count_draft
from forumbot.errors import UsageError
from forumbot.store.db import Store
from forumbot.web import data
from tests.judging import daygame

NIGHT1 = datetime(2026, 6, 3, 8, 0, tzinfo=UTC)  # 16:00 in Asia/Shanghai, before night 1's deadline
STRANGER_PID = 19_999  # a vote posted by someone who is not in the game


def _g1_game(store: Store, roles: dict[str, str]) -> tuple[Game, Desk]:
    """The six-player day game under R000-G1 (one guardian); day 1: 己 gets three votes (甲 乙 丙)."""
    game = replace(daygame.game(store.url, days=1), ruleset="R000-G1")
    daygame.fill(store, days=1)
    desk = Desk(game, store, by="法官")
    desk.setup(roles=roles)
    return game, desk


def test_the_guardians_protege_voted_out_reads_as_the_guardian_out_on_every_face(store: Store) -> None:
    """AMB-50: 己 has the most votes, 丙 guards him: 丙 goes out in his place. tally --json, the web day
    page, the vote-count draft and the close all say so; none says «己 被处决»."""
    game, desk = _g1_game(
        store, {"甲": "匪", "乙": "警察", "丙": "守护神", "丁": "平民", "戊": "平民", "己": "平民"}
    )
    desk.night_submit(1, Protect(guardian="丙", target="己"), NIGHT1)
    desk.night_resolve(1)
    judged = desk.tally(1)
    line = desk.outcome_text(judged)
    assert "守护神 丙 代其出局" in line and "己 被处决" not in line
    js = tally_json(judged, game, vote_count_draft(desk, judged), outcome_text=line)
    assert js["outcome"]["text"] == line
    assert data.day_view(game, store, 1).outcome == line
    assert line in vote_count_draft(desk, judged)
    closed = desk.close_day(1, force_why="帖子由测试直接写入存储，未经轮询")
    (said,) = [e.text for e in closed.events if e.kind is EventKind.GUARDED_EXECUTION]
    assert said == line and "丙" in closed.out and "己" not in closed.out


def test_an_unguarded_top_vote_getter_is_executed_with_the_identity_the_close_reveals(store: Store) -> None:
    game, desk = _g1_game(
        store, {"甲": "匪", "乙": "警察", "丙": "守护神", "丁": "平民", "戊": "平民", "己": "平民"}
    )
    desk.night_resolve(1)
    judged = desk.tally(1)
    assert desk.outcome_text(judged) == "己 被处决，身份：平民"
    assert data.day_view(game, store, 1).outcome == "己 被处决，身份：平民"


def _stranger_votes(store: Store) -> None:
    """Someone who is not in the game posts a vote in day 1's vote thread."""
    at = daygame.opens(1) + timedelta(hours=2)
    post = daygame.post(STRANGER_PID, daygame.vote_tid(1), "路人", at, "投票：戊")
    daygame.store_page(store, daygame.vote_tid(1), [*daygame.vote_thread(1), post], daygame.closes(1))


@pytest.mark.parametrize("as_kind", ["vote", "change", "abstain"])
def test_an_override_of_a_non_players_post_that_would_never_count_is_refused_unrecorded(
    store: Store, as_kind: str
) -> None:
    _game, desk = _g1_game(
        store, {"甲": "匪", "乙": "警察", "丙": "守护神", "丁": "平民", "戊": "平民", "己": "平民"}
    )
    _stranger_votes(store)
    assert desk.tally(1).result.verdict(STRANGER_PID).status.value == "not_a_player"
    target = "戊" if as_kind in ("vote", "change") else None
    with pytest.raises(UsageError) as err:
        desk.override(1, STRANGER_PID, as_kind, target, "路人是玩家小号")
    assert "forumbot proxy" in str(err.value) and "路人" in str(err.value)
    assert desk.overrides(1) == ()
    assert desk.tally(1).result.counts.get("戊", 0) == 1  # 丁's vote only


def test_an_override_striking_a_non_players_post_is_recorded_and_applied(store: Store) -> None:
    game, desk = _g1_game(
        store, {"甲": "匪", "乙": "警察", "丙": "守护神", "丁": "平民", "戊": "平民", "己": "平民"}
    )
    _stranger_votes(store)
    desk.override(1, STRANGER_PID, "ignore", None, "旁观者发帖")
    v = desk.tally(1).result.verdict(STRANGER_PID)
    assert v.override is not None and "旁观者发帖" in v.reason
    (line,) = [x for x in data.day_view(game, store, 1).verdicts if x.pid == STRANGER_PID]
    assert line.override_why == "旁观者发帖"
