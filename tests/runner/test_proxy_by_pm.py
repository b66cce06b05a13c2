"""代投 by private message, as the rules put it:

- R001 §四.1.5: the judges take proxy votes for players who cannot log in («受理无法登陆玩家代投事宜»),
  each player at most twice per game (AMB-32);
- R004: a proxy vote needs an explicit target, no condition («代投时需给出明确的投票对象（不可设立投票
  条件）»), and none in the last hour before closing.

The runner reads the requests from the judge's PMs at the cutoff and the close, gives each a verdict with
a Chinese reason, and enters the ones a judge would enter as the desk's proxy vote (`forumbot proxy`);
the count then judges the proxy vote like any vote. Played on 【夜宵杀】's day 1, where 锅贴 never votes:
he asks the judge by PM to vote 包子 for him, which breaks the 3–3 tie (no revote: 包子 is executed).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from forumbot.parsers.proxyvote import read_proxy_request
from forumbot.runner.fastplay import FastClock, play
from forumbot.runner.ledger import MomentStatus, records
from tests.runner.yexiao import START, Played, board, open_runner, variant

ROSTER = ["饺子", "包子", "馄饨", "烧卖", "汤圆", "油条", "春卷", "粽子", "月饼", "麻花", "煎饼", "锅贴"]
DAY1_CLOSED = datetime(2026, 6, 4, 5, 5, tzinfo=UTC)  # 6/4 13:05 Beijing


def pm(pmid: int, who: str, at: str, text: str) -> dict[str, Any]:
    return {"pmid": pmid, "from": who, "to": "法官大人", "at": at, "text": text}


STORY = variant(
    pms=[
        pm(901, "锅贴", "2026-06-04 10:00:00", "法官你好，我今天白天上不了线，请帮我代投：包子，谢谢"),
        pm(902, "煎饼", "2026-06-04 10:30:00", "如果麻花跳警就帮我代投麻花，否则代投包子"),
        pm(903, "吃瓜群众", "2026-06-04 11:00:00", "代投：饺子"),
    ]
)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    clock = FastClock(START)
    with board(clock, STORY) as b:
        p = open_runner(b.url, tmp_path_factory.mktemp("proxy") / "game.db", clock)
        play(p.runner, clock, until=DAY1_CLOSED, board_moments=STORY.moments())
        yield p
        p.store.close()


def _close(p: Played) -> dict[str, Any]:
    with p.store.session() as s:
        rec = records(s, p.steps.game_id)["day1/close"]
    assert rec.status is MomentStatus.DONE, rec.note
    return rec.result


def test_a_players_request_by_pm_is_entered_as_his_proxy_vote_and_counted(played: Played) -> None:
    res = _close(played)
    mine = next(v for v in res["proxy_requests"] if v["from"] == "锅贴")
    assert mine["ok"] and mine["target"] == "包子" and mine["at"] == "6月4日 10:00"
    judged = played.steps.desk.tally(1)
    (proxy,) = [v for v in judged.result.verdicts if v.proxy]
    assert proxy.author == "锅贴" and proxy.status.value == "counted" and "代投" in proxy.reason
    assert res["count"]["包子"] == 4 and res["count"]["麻花"] == 3  # the tie is broken: no revote
    assert res["executed"] == ["包子"]
    with played.store.session() as s:
        keys = set(records(s, played.steps.game_id))
    assert "day1/revote1" not in keys


def test_a_conditional_request_is_refused_and_its_sender_told_why(played: Played) -> None:
    res = _close(played)
    cond = next(v for v in res["proxy_requests"] if v["from"] == "煎饼")
    assert not cond["ok"] and "不可设立投票条件" in cond["reason"]
    (told,) = [i for i in played.steps.outbox.items() if i.player == "煎饼" and "代投" in i.body]
    assert "未被受理" in told.body and "AMB" not in told.body
    judged = played.steps.desk.tally(1)
    assert not any(v.proxy and v.author == "煎饼" for v in judged.result.verdicts)


def test_a_request_from_someone_not_playing_is_refused(played: Played) -> None:
    res = _close(played)
    stranger = next(v for v in res["proxy_requests"] if v["from"] == "吃瓜群众")
    assert not stranger["ok"] and "不是本局的玩家" in stranger["reason"]


def test_the_request_is_entered_once_though_the_cutoff_and_the_close_both_read_it(played: Played) -> None:
    from forumbot.store import records as recs

    with played.store.session() as s:
        entered = recs.proxy_votes_for(s, played.steps.game_id, 1)
    assert [(p, t, by) for _d, p, t, _at, by in entered] == [("锅贴", "包子", "forumbot-runner")]


@pytest.mark.parametrize(
    ("text", "target", "problem"),
    [
        ("法官你好，我明天上不了线，请帮我代投：饺子，谢谢", "饺子", None),
        ("代投 包子 理由：他昨天说谎，锅贴也怪", "包子", None),  # names in the reason are not targets
        ("代投\n投票对象：馄饨\n投票理由：诡异", "馄饨", None),  # R004's format, on the next lines
        ("代投：弃权", "弃权", None),
        ("我今天在外面，来不及就麻烦法官了\n代投：烧卖", "烧卖", None),
        ("如果包子跳警就代投包子，否则代投饺子", None, "不可设立投票条件"),
        ("代投饺子或包子", None, "不明确"),
        ("代投：路人甲", None, "不是本局的角色名"),
        ("请代投，谢谢", None, "没有读出代投对象"),
    ],
)
def test_the_request_reads_as_the_rules_want_it(text: str, target: str | None, problem: str | None) -> None:
    req = read_proxy_request(text, ROSTER)
    assert req is not None
    assert req.target == target
    assert (req.problem is None) if problem is None else (problem in (req.problem or ""))


@pytest.mark.parametrize("text", ["代投怎么申请？", "取消代投", "不用代投了，我自己投", "今晚杀包子"])
def test_questions_withdrawals_and_other_messages_are_no_request(text: str) -> None:
    assert read_proxy_request(text, ROSTER) is None
