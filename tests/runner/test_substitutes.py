"""Substitutes (替补/顶替): a new account takes over a slot in the middle of the game.

The rules: R004 «替补：…每个角色只能被替补一次；替补者接替原角色的身份、行动和账号» (rules.md §b.2); R001
names no limit. forumbot's reading (desk/substitutes.py): the slot keeps its role, counters and votes; from
the takeover instant the new account's posts, votes and PMs count for the slot and the old account's
later posts are a non-player's; the drafts from then on name the new account. A judge enters it by hand
(`forumbot substitute OLD NEW --at TIME`) or announces it in a game thread: «顶替：新账号 替换 旧账号».

Played on 【夜宵杀】's day 1: 法官大人 posts «顶替：小笼包 替换 锅贴» at 6/4 09:00 in the discussion thread;
小笼包 votes 包子 at 10:00 for the slot (锅贴 never voted in the story), which breaks the 3–3 tie; 锅贴
votes 麻花 at 11:00 from his old account: not a player any more.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from forumbot.desk import Desk, SubstituteRefused, substitute_lines
from forumbot.exampleboard.model import scenario_from_dict
from forumbot.runner.fastplay import FastClock, play
from forumbot.runner.ledger import MomentStatus, records
from forumbot.store.db import Store
from tests.runner.yexiao import GAME_DIR, START, Played, board, open_runner

DAY1_CLOSED = datetime(2026, 6, 4, 5, 5, tzinfo=UTC)  # 6/4 13:05 Beijing
TAKEOVER = datetime(2026, 6, 4, 1, 0, tzinfo=UTC)  # 6/4 09:00 Beijing


def _story() -> Any:
    raw = tomllib.loads((GAME_DIR / "scenario.toml").read_text("utf-8"))
    raw["users"]["小笼包"] = 40
    for pid, tid, author, at, text in (
        (901, 2, "法官大人", "2026-06-04 09:00:00", "顶替：小笼包 替换 锅贴"),
        (902, 3, "小笼包", "2026-06-04 10:00:00", "投票：包子"),
        (903, 3, "锅贴", "2026-06-04 11:00:00", "投票：麻花"),
    ):
        raw["posts"].append({"pid": pid, "tid": tid, "author": author, "at": at, "text": text})
    return scenario_from_dict(raw, "yexiao with a substitute")


STORY = _story()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    clock = FastClock(START)
    with board(clock, STORY) as b:
        p = open_runner(b.url, tmp_path_factory.mktemp("sub") / "game.db", clock)
        play(p.runner, clock, until=DAY1_CLOSED, board_moments=STORY.moments())
        yield p
        p.store.close()


def _close(p: Played) -> dict[str, Any]:
    with p.store.session() as s:
        rec = records(s, p.steps.game_id)["day1/close"]
    assert rec.status is MomentStatus.DONE, rec.note
    return rec.result


def test_the_judges_post_enters_the_takeover_at_its_time(played: Played) -> None:
    (sub,) = played.steps.desk.substitutions()
    assert (sub.slot, sub.old, sub.new, sub.at, sub.pid) == ("锅贴", "锅贴", "小笼包", TAKEOVER, 901)
    assert sub.by == "forumbot-runner" and "法官大人" in sub.why


def test_the_new_accounts_vote_counts_for_the_slot_and_the_old_accounts_does_not(played: Played) -> None:
    res = _close(played)
    assert res["count"] == {"包子": 4, "麻花": 3, "饺子": 1} and res["executed"] == ["包子"]
    verdicts = {v.pid: v for v in played.steps.desk.tally(1).result.verdicts}
    assert verdicts[902].author == "锅贴" and verdicts[902].status.value == "counted"
    assert verdicts[903].author == "锅贴（已被顶替）" and verdicts[903].status.value == "not_a_player"


def test_the_slot_keeps_its_role_and_no_strike_is_given_for_the_voted_slot(played: Played) -> None:
    st = played.steps.desk.require_state()
    assert st.player("锅贴").role == played.steps.desk.state_labelled("night 1").player("锅贴").role  # type: ignore[union-attr]
    assert st.strikes_of("锅贴") == 0  # 小笼包 voted for the slot (in the story 锅贴 got a strike)


def test_the_drafts_from_then_on_name_the_new_account(played: Played) -> None:
    (count,) = [i for i in played.steps.outbox.items() if i.moment_key == "day1/vote_count"]
    assert "小笼包[url=" in count.body and "锅贴[url=" not in count.body.split("[b]无效票[/b]")[0]
    assert "锅贴（已被顶替）[url=" in count.body  # the old account's late vote, named as it was written
    (elevator,) = [i for i in played.steps.outbox.items() if i.moment_key == "day1/elevator"]
    assert "[b]小笼包[/b]" in elevator.body and "[b]锅贴[/b]" not in elevator.body
    # the case post of night 1, written before the takeover, named nobody new
    (case,) = [i for i in played.steps.outbox.items() if i.moment_key == "night1/case_post"]
    assert "小笼包" not in case.body


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("顶替：小笼包 替换 锅贴", [("小笼包", "锅贴")]),
        ("【替补】: @小笼包 顶替 锅贴\n请大家知悉", [("小笼包", "锅贴")]),
        ("锅贴说他明天可能需要人顶替", []),
    ],
)
def test_the_judges_line_reads_as_documented(text: str, found: list[tuple[str, str]]) -> None:
    assert substitute_lines(text) == found


def _r004_desk(store: Store) -> Desk:
    from tests.runner.test_r004_authority import mayor_killed_on_night_1

    return mayor_killed_on_night_1(store).desk


def test_r004_a_role_is_substituted_once(store: Store) -> None:
    desk = _r004_desk(store)
    at = datetime(2026, 6, 9, 2, 0, tzinfo=UTC)
    desk.substitute("锅盔", "小笼包", at, why="锅盔 出差")
    assert desk.account_of("锅盔") == "小笼包" and desk.posted_as("小笼包", at) == "锅盔"
    with pytest.raises(SubstituteRefused, match="已被替补过"):
        desk.substitute("小笼包", "生煎", datetime(2026, 6, 9, 3, 0, tzinfo=UTC))


def test_what_cannot_be_taken_over_is_refused_in_chinese(store: Store) -> None:
    desk = _r004_desk(store)
    at = datetime(2026, 6, 9, 2, 0, tzinfo=UTC)
    with pytest.raises(SubstituteRefused, match="已出局"):
        desk.substitute("豆花", "小笼包", at)  # out on night 1
    with pytest.raises(SubstituteRefused, match="已经在本局中"):
        desk.substitute("锅盔", "烤串", at)
    with pytest.raises(SubstituteRefused, match="不是本局在场的账号"):
        desk.substitute("路人甲", "小笼包", at)
    with pytest.raises(SubstituteRefused, match="法官账号"):
        desk.substitute("锅盔", "导演", at)
    assert desk.substitutions() == ()
