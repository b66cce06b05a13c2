"""The second whole example game, 【杀人游戏】 (R004, 18 players), played by the runner as `forumbot run`
would, on the living example board with a fast clock and every outbox kind approved automatically: from the
sign-up thread (data/examples/r004game/signup.toml: the list confirmed at the close, the judges' own cards
dealt by the recorded seed, each identity notice sent by PM) to the killer camp's win and the 复盘, with no
judge command (issue 19, done-when).

The story (data/examples/r004game/scenario.toml): 威权 handed over in the last words by PM deciding
day 2's tie, the lovers (a kill on one takes the other), the kidnapper (two hostages, then 撕票), last
words by PM (one in time, one late: forfeited), a proxy vote asked by PM in the last hour (refused). What
a careful director decides at each step is asserted below, with the rule it follows (rules.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from forumbot.client import BoardClient
from forumbot.commands.demo import judge_commands
from forumbot.exampleboard.model import Scenario, load_scenario
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import ItemKind
from forumbot.resources import data_dir
from forumbot.runner.fastplay import FastClock, example_game, example_roles, play
from forumbot.runner.ledger import MomentStatus, records
from forumbot.runner.steps import RUNNER_BY, BoardSteps
from forumbot.runner.tick import Runner
from forumbot.store import records as store_records
from forumbot.store.db import Store, open_store
from tests.runner.test_public_words import assert_public

NAME = "r004game"
SCENARIO: Scenario = load_scenario(data_dir() / "examples" / NAME / "scenario.toml")
START = datetime(2026, 6, 6, 11, 0, tzinfo=UTC)  # 6/6 19:00 Beijing, before the sign-up thread opens
UNTIL = datetime(2026, 6, 13, tzinfo=UTC)


@dataclass
class Played:
    store: Store
    steps: BoardSteps
    board: LiveBoard

    def moment(self, key: str) -> dict[str, Any]:
        with self.store.session() as s:
            rec = records(s, self.steps.game_id)[key]
        assert rec.status is MomentStatus.DONE, (key, rec.note)
        return rec.result

    def items(self, key_start: str) -> list[Any]:
        return [i for i in self.steps.outbox.items() if i.moment_key.startswith(key_start)]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    clock = FastClock(START)
    db = Path(tmp_path_factory.mktemp("r004game")) / "game.db"
    with LiveBoard(SCENARIO, now=clock.now) as b:
        b.follow(clock)
        game = example_game(
            NAME, b.url, str(db), auto_approve=[k.value for k in ItemKind], overlay="signup.toml"
        )
        store = open_store(game.store_url)
        steps = BoardSteps(game, store, client=BoardClient(game.board, now=clock), clock=clock)
        steps.outbox.sleep = lambda _s: None
        runner = Runner(store, steps, clock=clock, log=lambda _line: None, tz=game.tz)
        play(runner, clock, until=UNTIL, board_moments=SCENARIO.moments())
        yield Played(store, steps, b)
        store.close()


def test_every_moment_is_done_once_by_the_runner_and_the_judge_typed_nothing(played: Played) -> None:
    with played.store.session() as s:
        recs = records(s, played.steps.game_id)
        decisions = [
            d
            for kind in ("authority_passed", "close_forced", "night_resolved_early")
            for d in store_records.decisions_for(s, played.steps.game_id, kind)
        ]
        proxies = store_records.proxy_votes_for(s, played.steps.game_id)
    assert sorted(recs) == sorted(
        [
            "signup/close",
            "night1/deadline",
            "day0/lastwords",
            "day1/change_cutoff",
            "day1/close",
            "night2/deadline",
            "day1/lastwords",
            "day2/change_cutoff",
            "day2/close",
            "night3/deadline",
        ]
    )
    assert all(r.status is MomentStatus.DONE and r.attempts == 1 for r in recs.values())
    # every state version (the draw too), decision and proxy vote is the runner's
    versions = played.steps.desk.live_history()
    assert [(v.label, v.by) for v in versions] == [
        (label, RUNNER_BY)
        for label in (
            "setup (seed 20275432)",
            "night 1",
            "day 1",
            "night 2",
            "authority 2",
            "day 2",
            "night 3",
        )
    ]
    assert {d.by for d in decisions} == {RUNNER_BY} and {p[4] for p in proxies} == {RUNNER_BY}
    items = played.steps.outbox.items()
    assert items and all(i.status == "sent" for i in items)  # each sent once, none waits for a judge
    assert judge_commands(played.steps) == 0


def test_the_sign_up_is_read_at_its_close_and_the_judges_cards_are_dealt_by_the_seed(played: Played) -> None:
    res = played.moment("signup/close")
    codes = {(v["author"], v["code"]) for v in res["verdicts"]}
    assert {("凉糕", "joined"), ("凉糕", "withdrawn"), ("小笼包", "substitute"), ("迟到君", "late")} <= codes
    assert ("豆浆", "duplicate") in codes and ("吃瓜群众", "chatter") in codes
    assert not [v for v in res["verdicts"] if v["needs_review"]]
    assert res["substitutes"] == ["小笼包"] and res["confirmed_by"] == RUNNER_BY
    assert sorted(res["players"]) == sorted(example_roles(NAME)) and "凉糕" not in res["players"]
    st = played.steps.desk.setup_state()
    assert {p.name: p.role.value for p in st.players} == {
        n: played.steps.desk.ruleset.role_id(r).value for n, r in example_roles(NAME).items()
    }


def test_each_player_gets_an_identity_notice_by_pm_once(played: Played) -> None:
    notices = played.items("setup/notice/")
    assert sorted(i.player for i in notices) == sorted(example_roles(NAME))
    assert all(i.kind == "private_notice" and i.dest == "pm" and i.status == "sent" for i in notices)
    bodies = {i.player: i.body for i in notices}
    assert all(b.startswith("【杀人游戏】身份通知") for b in bodies.values())
    assert "杀手" in bodies["豆浆"] and "油饼" in bodies["豆浆"]  # the killers know each other
    assert "市长" in bodies["米线"] and "丘比特" in bodies["卤蛋"]
    sent_to = [pm for pm in played.board.writer.pms if "身份通知" in str(pm)]
    assert len(sent_to) == 18


def test_the_review_opens_a_thread_of_its_own_after_the_win(played: Played) -> None:
    (review,) = played.items("game/review")
    assert review.kind == "game_review" and review.dest == "newthread" and review.status == "sent"
    assert review.subject == "【杀人游戏】复盘"
    assert "豆浆" in review.body and "杀手" in review.body


def test_night_1_the_lovers_and_the_first_hostage(played: Played) -> None:
    res = played.moment("night1/deadline")
    assert res["out"] == ["豆花"]
    assert {v["code"] for v in res["verdicts"]} == {"accepted"}
    bodies = {i.player: i.body for i in played.items("night1/private/")}
    assert "锅盔 与 烤串 成为情侣" in bodies["锅盔"] and "锅盔 与 烤串 成为情侣" in bodies["烤串"]
    assert "你被绑架了" in bodies["煎包"]
    assert "豆浆：杀手阵营" in bodies["肉夹馍"] and "豆浆：杀手阵营" in bodies["煎包"]


def test_last_words_in_time_by_pm_are_published_with_the_day_start(played: Played) -> None:
    res = played.moment("day0/lastwords")
    assert [(w["player"], w["status"]) for w in res["windows"]] == [("豆花", "posted")]
    (post,) = played.items("day0/lastwords/post")
    assert "豆花：我是平民。米线昨天的发言很怪，大家多留意他。" in post.body and post.tid == 2


def test_day_1_votes_out_the_mayor_who_is_told_to_hand_over_authority(played: Played) -> None:
    res = played.moment("day1/close")
    assert res["count"] == {"米线": 9, "豆浆": 6, "油饼": 1} and res["executed"] == ["米线"]
    (notice,) = played.items("day1/private/米线")
    assert "你持有<威权>" in notice.body


def test_a_kill_on_a_lover_takes_the_other_and_the_kidnapper_takes_a_second_hostage(played: Played) -> None:
    res = played.moment("night2/deadline")
    assert res["out"] == ["烤串"]  # the killers named 锅盔: his lover goes out in his place (丘比特之箭)
    assert played.steps.desk.state_labelled("night 2").is_alive("锅盔")  # type: ignore[union-attr]
    (hostage,) = played.items("night2/private/炒面")
    assert "与之前被绑架的所有角色互知共群：煎包" in hostage.body


def test_authority_handed_over_in_the_words_pm_is_applied_privately_and_late_words_are_forfeited(
    played: Played,
) -> None:
    res = played.moment("day1/lastwords")
    assert {w["player"]: w["status"] for w in res["windows"]} == {"米线": "posted", "烤串": "forfeited"}
    assert res["authority"]["passer"] == "米线" and res["authority"]["holder"] == "麻团"
    assert not res["authority"]["drawn"]
    (post,) = played.items("day1/lastwords/post")
    assert "米线：我是市长，被大家投出去了。" in post.body and "烤串：未留遗言" in post.body
    assert "威权" not in post.body  # the hand-over is private
    (told,) = [i for i in played.steps.outbox.items() if i.moment_key == "authority/米线/麻团"]
    assert told.player == "麻团" and "你获得<威权>" in told.body
    assert played.steps.desk.day_start_state(2).authority_holder == "麻团"  # type: ignore[union-attr]


def test_day_2s_tie_is_decided_by_the_new_holders_vote(played: Played) -> None:
    res = played.moment("day2/close")
    assert res["count"] == {"豆浆": 6, "锅盔": 6, "油饼": 1}
    assert res["executed"] == ["豆浆"]  # 麻团's final valid vote (R004 §c.2): without 威权, nobody is out
    judged = played.steps.desk.tally(2)
    assert judged.result.outcome.kind.value == "authority" and judged.result.outcome.authority == "麻团"


def test_a_proxy_vote_asked_in_the_last_hour_is_refused_and_the_yellow_card_stands(played: Played) -> None:
    res = played.moment("day2/close")
    (req,) = res["proxy_requests"]
    assert req["from"] == "春饼" and req["ok"]  # a clear request: entered, then judged by the count
    judged = played.steps.desk.tally(2)
    (proxy,) = [v for v in judged.result.verdicts if v.proxy]
    assert proxy.author == "春饼" and proxy.status.value == "proxy_refused" and "一小时" in proxy.reason
    assert [c.player for c in judged.result.cards] == ["春饼"]
    (count,) = played.items("day2/vote_count")
    assert "春饼[url=" in count.body and "#代投[/url]：关门前一小时" in count.body


def test_night_3_the_hostages_are_killed_and_the_killer_camp_wins(played: Played) -> None:
    res = played.moment("night3/deadline")
    assert res["out"] == ["煎包", "炒面", "肉夹馍"]  # 撕票 first, in the kidnapper's order, then the killers
    st = played.steps.desk.require_state()
    assert st.outcome is not None and st.outcome.winner.value == "killer_camp"
    (post,) = played.items("night3/case_post")
    assert "游戏结束：杀手阵营胜利" in post.body
    assert [m.key for m in played.steps.plan()][-1] == "night3/deadline"  # nothing planned after the win


def test_the_board_shows_every_post_and_pm_the_runner_sent_once(played: Played) -> None:
    sent = played.steps.outbox.items()
    posts = [i for i in sent if i.kind not in ("night_result", "check_result", "private_notice")]
    assert len(played.board.writer.posts) == len(posts)
    assert len(played.board.writer.pms) == len(sent) - len(posts)


def test_every_post_and_pm_of_the_game_is_in_the_players_words(played: Played) -> None:
    """The identity notices, the night results, the drafts of each day and the 复盘: no rule id, field
    name or code reaches the board."""
    items = played.steps.outbox.items()
    assert {"private_notice", "game_review"} <= {i.kind for i in items}
    for item in items:
        assert_public(item.body, tuple(played.steps.game.roster))
