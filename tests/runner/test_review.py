"""The 复盘 at the game's end: drafted by the runner once the game is over, with every role, each night's
actions (a check with its answer) and who went out, each day's tally; refused before the end, so no
hidden role can leak through it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from forumbot.desk.drafts import review_draft, winner_draft
from forumbot.errors import UsageError
from forumbot.runner.fastplay import FastClock, example_roles, play
from tests.runner.yexiao import SCENARIO, START, UNTIL, Finished, board, copy_of, open_runner


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, yexiao_finished: Finished) -> Iterator[Any]:
    p = copy_of(yexiao_finished, Path(tmp_path_factory.mktemp("review")) / "game.db")
    yield p, yexiao_finished.board
    p.store.close()


def test_the_review_is_sent_once_the_game_is_over_with_every_role(played: Any) -> None:
    p, b = played
    item = p.steps.outbox.get(p.steps.outbox.by_key("game/review"))
    assert item.kind == "game_review" and item.status == "sent" and item.dest == "reply" and item.tid == 5
    assert sum(1 for w in b.writer.posts if w.text == item.body) == 1
    body = item.body
    assert body.startswith("[b]【夜宵杀】复盘[/b]") and "结果：警察与平民胜" in body
    for name, role in example_roles("yexiao").items():
        assert f"\n{name}：{role}" in body
    assert "烧卖：平民（被附体匪）（出局）" in body
    for section in ("第1夜", "第1日", "第2夜", "第2日", "第3夜"):
        assert f"[b]{section}[/b]" in body
    assert (
        "馄饨：验人 包子 → 平民" in body and "出局：烧卖（平民，被附体匪）、煎饼（毒药）" in body
    )  # night 3's check, with its answer
    assert "票数：" in body and "出局：" in body


def test_before_the_end_the_review_is_refused_and_names_no_role(played: Any) -> None:
    p, _b = played
    before_night3 = datetime(2026, 6, 5, 8, 0, tzinfo=UTC)  # 6/5 16:00 Beijing
    with pytest.raises(UsageError) as err:
        review_draft(p.steps.desk, before_night3)
    assert not any(role in str(err.value) for role in ("杀手", "鬼匪", "警察", "毒药"))
    assert not any(name in str(err.value) for name in example_roles("yexiao"))


def test_the_winner_s_announcement_is_the_desk_s_draft_as_of_the_end(played: Any) -> None:
    p, _b = played
    end = datetime(2026, 6, 5, 9, 1, tzinfo=UTC)  # night 3's deadline (17:00) and its grace minute
    text = winner_draft(p.steps.desk, end)
    assert text.startswith("[b]【夜宵杀】游戏结束[/b]\n游戏结束：警察与平民胜\n")
    assert "粽子：鬼匪（已附体）（出局）" in text and "月饼：平民\n" in text  # as the case post names them
    with pytest.raises(UsageError):
        winner_draft(p.steps.desk, datetime(2026, 6, 5, 8, 0, tzinfo=UTC))


def test_a_day_that_ends_the_game_posts_the_winner_then_the_review(tmp_path: Path) -> None:
    """烧卖 dealt the police card: the ghost's possession fails, day 2's execution wipes the bandits out."""
    clock = FastClock(START)
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "g.db", clock, roles={"烧卖": "警察", "汤圆": "平民"})
        play(p.runner, clock, until=UNTIL, board_moments=SCENARIO.moments())
        assert p.steps.desk.live_history()[-1].label == "day 2"
        over = p.steps.outbox.get(p.steps.outbox.by_key("game/over"))
        review = p.steps.outbox.get(p.steps.outbox.by_key("game/review"))
        assert over.id < review.id and over.status == review.status == "sent" and over.tid == review.tid == 5
        assert over.body.startswith("[b]【夜宵杀】游戏结束[/b]\n游戏结束：警察与平民胜\n")
        assert "烧卖：警察\n" in over.body and "烧卖：警察\n" in review.body
        assert "[b]第3夜[/b]" not in review.body and "[b]第2日[/b]" in review.body
        p.store.close()
