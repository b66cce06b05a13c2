"""An R004 day from the board (data/examples/r004, the 18-player preset): the strict format, change votes
that must reply to the original vote floor (the quoted pid read from the page), the last hour, yellow
cards, and no identity in any public draft."""

from __future__ import annotations

import tomllib

import pytest

from engine import (
    OutcomeKind,
)
from forumbot.client import BoardClient
from forumbot.config import game_from_dict
from forumbot.desk import Desk, case_post_draft, read_submissions, vote_count_draft
from forumbot.poll import poll
from forumbot.store import Store
from tests.judging.conftest import BOARD_URL, EXAMPLE_R004, MockBoard


@pytest.fixture
def judge(store: Store) -> Desk:
    data = tomllib.loads((EXAMPLE_R004 / "game.toml").read_text("utf-8"))
    data["board"]["url"] = BOARD_URL
    data["game"]["store"] = store.url
    game = game_from_dict(data)
    j = Desk(game, store, by="test-director")
    j.setup(roles=tomllib.loads((EXAMPLE_R004 / "roles.toml").read_text("utf-8"))["roles"])
    j.night_entries(1, read_submissions(EXAMPLE_R004 / "night1.toml"))
    return j


def read_board(judge: Desk, board: MockBoard) -> None:
    client = BoardClient(judge.game.board, sleep=lambda _s: None)
    for snap in ("r1", "r2"):
        board.use(snap)
        assert poll(
            client, judge.store, judge.game.board, judge.game.watched_tids(), full=True, progress=False
        ).ok


def test_night_one_day_start_names_the_out_role_without_identity(judge: Desk) -> None:
    res = judge.night_resolve(1)
    assert res.out == ("豆花",)
    draft = case_post_draft(judge, 1, res.events)
    assert "豆花 出局" in draft and "第1讨论日" in draft
    for role in ("平民", "杀手", "警察", "医生", "丘比特"):
        assert role not in draft
    private = {str(e.audience): e.text for e in res.events if not e.public}
    assert private["group:police"] == "豆浆：杀手阵营"


def test_the_r004_day_verdict_by_verdict(judge: Desk, r004_board: MockBoard) -> None:
    judge.night_resolve(1)
    read_board(judge, r004_board)
    r = judge.tally(1).result
    by_author: dict[str, list[str]] = {}
    for v in r.verdicts:
        if v.pid is not None:
            by_author.setdefault(v.author, []).append(v.status.value)
    assert by_author["烧饼"] == ["superseded", "changed"]  # a change replying to the original floor
    assert by_author["炒面"] == ["counted", "change_not_reply"]  # a change that quotes nothing
    assert by_author["汤包"] == [
        "superseded",
        "changed",
        "second_change",
    ]  # 改票对象：弃权, then a 2nd change
    assert by_author["麻团"] == ["counted", "change_last_hour"]  # 20:30, the last hour
    assert by_author["米线"] == ["unreadable"]  # no 投票理由 label (AMB-75)
    assert by_author["凉皮"] == ["unreadable"]  # the R001-style 投票：
    assert by_author["锅盔"] == ["void_wrong_name"]  # 豆花 is out
    assert by_author["酥饼"] == ["edited"]  # edited after the first read (AMB-76)
    assert by_author["春饼"] == ["not_a_vote"]
    assert dict(r.counts) == {"豆浆": 6, "肉夹馍": 3}
    assert r.outcome.kind is OutcomeKind.EXECUTE and r.outcome.out == ("豆浆",)
    assert [(c.player, c.color.value) for c in r.cards] == [("鸡翅", "yellow")]  # never replied


def test_the_r004_vote_count_draft_reveals_no_identity(judge: Desk, r004_board: MockBoard) -> None:
    judge.night_resolve(1)
    read_board(judge, r004_board)
    draft = vote_count_draft(judge, judge.tally(1))
    assert "[b]豆浆[/b]（6票）" in draft
    assert "豆浆 出局" in draft
    assert "鸡翅 黄牌" in draft
    for role in ("杀手", "警察", "医生", "狙击手", "丘比特", "平民", "身份"):
        assert role not in draft
    res = judge.close_day(1)
    assert res.out == ("豆浆",)
