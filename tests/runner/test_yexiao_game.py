"""The whole example game 【夜宵杀】 played by the runner, as `forumbot run` would, on the living example
board served on 127.0.0.1 with a fast clock; checked against the careful judge's hand judgement
(data/examples/yexiao/expected.toml).

The runner reads the groups' threads and the judge's PMs at each night's deadline, resolves the night,
counts at the void cutoff, judges the close, calls the revote and judges it, closes each day, and writes
every post to the outbox (approved automatically here, as `[outbox] auto_approve` would): everything a
judge would otherwise type.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from forumbot.runner.ledger import MomentStatus, records
from tests.runner.yexiao import EXPECTED, Finished, Played, copy_of

# expected.toml's night codes (issue 10's list) → nightmail's codes. nightmail says "holds no submission"
# for chat whoever wrote it; a non-player's message is that too (it cannot be a member of any group).
NIGHT_CODES = {
    "accepted": {"accepted"},
    "superseded": {"superseded"},
    "late": {"late"},
    "not_an_action": {"not_a_submission"},
    "not_a_member": {"not_member"},
    "not_a_player": {"not_a_submission", "not_member"},
}


@pytest.fixture(scope="module")
def played(
    tmp_path_factory: pytest.TempPathFactory, yexiao_finished: Finished
) -> Iterator[tuple[Played, Any]]:
    """The game played to its end (once per test process: tests/conftest.py), over a store of this
    module's own."""
    p = copy_of(yexiao_finished, Path(tmp_path_factory.mktemp("yexiao")) / "game.db")
    yield p, yexiao_finished.board
    p.store.close()


def _moment(p: Played, key: str) -> dict[str, Any]:
    with p.store.session() as s:
        rec = records(s, p.steps.game_id)[key]
    assert rec.status is MomentStatus.DONE, (key, rec.note)
    return rec.result


def test_every_moment_of_the_game_is_done_once_and_nothing_after_the_win(played: tuple[Played, Any]) -> None:
    p, _ = played
    with p.store.session() as s:
        recs = records(s, p.steps.game_id)
    assert sorted(recs) == sorted(
        [
            "night1/deadline",
            "day1/void_cutoff",
            "day1/close",
            "day1/revote1",
            "night2/deadline",
            "day2/void_cutoff",
            "day2/close",
            "night3/deadline",
        ]
    )
    assert all(r.status is MomentStatus.DONE and r.attempts == 1 for r in recs.values())
    assert [m.key for m in p.steps.plan()][-1] == "night3/deadline"


@pytest.mark.parametrize("night", [1, 2, 3])
def test_each_nights_messages_get_the_careful_judges_verdicts(played: tuple[Played, Any], night: int) -> None:
    p, _ = played
    res = _moment(p, f"night{night}/deadline")
    got = {v["id"]: v["code"] for v in res["verdicts"]}
    expected = EXPECTED["nights"][night - 1]
    for m in expected["messages"]:
        mid = f"pid:{m['pid']}" if "pid" in m else f"pm:{m['pmid']}"
        if mid not in got:
            # read one minute after the deadline: a message posted later was not there yet; a careful
            # judge calls it late, and it could not have changed the night (a late action is refused)
            assert m["verdict"] == "late", (mid, m)
            continue
        assert got[mid] in NIGHT_CODES[m["verdict"]], (mid, got[mid], m)
    accepted = {(a["kind"], a.get("victim") or a.get("target")) for a in res["accepted"]}
    want = {(m["action"], m["target"]) for m in expected["messages"] if m["verdict"] == "accepted"}
    assert accepted == want
    kills = [a for a in res["accepted"] if a["kind"] == "kill"]
    for m in expected["messages"]:
        if m["verdict"] == "accepted" and m["action"] == "kill":
            assert kills[0]["pledge"] == m["pledge"]
            assert kills[0]["possess"] == m.get("possess")
            assert kills[0]["text"] == m["kill_text"]  # as written, full-width punctuation kept
    assert sorted(res["out"]) == sorted(expected["result"]["dead"])


def _state(p: Played, label: str) -> Any:
    st = p.steps.desk.state_labelled(label)
    assert st is not None, label
    return st


def test_the_nights_results_reach_the_right_players_privately(played: tuple[Played, Any]) -> None:
    p, _ = played
    by_key = {i.moment_key: i for i in p.steps.outbox.items()}
    for night in EXPECTED["nights"]:
        check = night["result"]["police_check"]
        dead_before = {d for x in EXPECTED["nights"][: night["night"]] for d in x["result"]["dead"]}
        alive_police = [n for n in ("馄饨", "汤圆") if n not in dead_before]
        for officer in alive_police:
            item = by_key[f"night{night['night']}/private/{officer}"]
            assert item.kind == "check_result" and item.status == "sent"
            assert f"{check['target']}：{check['result']}" in item.body
    assert "附体" in by_key["night2/private/烧卖"].body  # told privately he is now a bandit
    for key, item in by_key.items():
        if key.startswith("night") and "/private/" in key:
            assert item.dest == "pm" and len(item.uids) == 1
    assert st_possessed(p)


def st_possessed(p: Played) -> bool:
    st = _state(p, "night 2")
    return any(pl.name == "烧卖" and pl.possessed for pl in st.players)


@pytest.mark.parametrize("day", [1, 2])
def test_each_days_verdicts_counts_and_close_match_the_hand_judgement(
    played: tuple[Played, Any], day: int
) -> None:
    p, _ = played
    exp = EXPECTED["days"][day - 1]
    p.steps.desk.refresh()
    judged = p.steps.desk.tally(day)
    r = judged.result
    status = {v.pid: v.status.value for v in r.verdicts if v.pid is not None}
    for post in exp["posts"]:
        assert status[post["pid"]] == post["verdict"], post
    players = {pv.player: pv for pv in r.players}
    for name, want in exp["players"].items():
        assert players[name].status.value == want["status"], (name, players[name])
        if "target" in want:
            assert players[name].target == want["target"]
    assert r.counts == exp["count"]
    if "revote" in exp:
        rv = r.revotes[0]
        assert sorted(rv.plan.candidates) == sorted(exp["revote"]["candidates"])
        assert sorted(rv.plan.participants) == sorted(exp["revote"]["participants"])
        assert rv.plan.deadline - rv.plan.opens_at == timedelta(minutes=exp["revote"]["deadline_minutes"])
        rstatus = {v.pid: v.status.value for v in rv.verdicts if v.pid is not None}
        for post in exp["revote"]["posts"]:
            assert rstatus[post["pid"]] == post["verdict"], post
        assert {t.target: t.count for t in rv.tally} == exp["revote"]["count"]
    result = exp["result"]
    assert list(r.executed) == [result["executed"]]
    assert sorted(r.drowned_names) == sorted(result["drowned"])
    assert {k: v for k, v in r.strikes_after.items() if v} == result["strikes"]
    bodies = {i.kind: i.body for i in p.steps.outbox.items() if i.day == day}
    assert f"{result['executed']} 被处决，身份：{result['identity']}" in bodies["execution_notice"]
    for name in result["drowned"]:
        assert name in bodies["drowning_notice"]
        assert "身份" not in bodies["drowning_notice"]  # a drowning is announced by name only (§四.5.2)


def test_the_game_ends_at_night_3_with_the_police_and_civilians_winning(played: tuple[Played, Any]) -> None:
    p, _ = played
    st = p.steps.desk.require_state()
    assert st.outcome is not None and st.outcome.winner is not None
    assert st.outcome.winner.value == EXPECTED["game"]["winner"]
    assert sorted(st.living()) == sorted(EXPECTED["game"]["survivors"])
    assert p.steps.desk.live_history()[-1].label == EXPECTED["game"]["ended"]
    case3 = next(i for i in p.steps.outbox.items() if i.kind == "case_post" and i.night == 3)
    assert EXPECTED["game"]["winner_text"] in case3.body
    for extra in EXPECTED["nights"][2]["result"]["public_extra"]:
        assert extra in case3.body
    assert "煎饼被摊成了一张薄饼。" in case3.body


def test_every_item_was_sent_exactly_once_to_the_board(played: tuple[Played, Any]) -> None:
    p, b = played
    items = p.steps.outbox.items()
    assert items and all(i.status == "sent" for i in items)
    posted = [w.text for w in b.writer.posts]
    pms = [m.text for m in b.writer.pms]
    public = [i for i in items if i.dest != "pm"]
    private = [i for i in items if i.dest == "pm"]
    assert len(posted) == len(public) and len(pms) == len(private)
    case1 = next(i.body for i in public if i.kind == "case_post" and i.night == 1)
    assert case1 in posted and not any(w in case1 for w in ("杀手", "鬼匪", "毒药", "警察"))
    assert sorted(json.dumps(sorted(i.uids)) for i in private) == sorted(
        json.dumps([m.to_uid]) for m in b.writer.pms
    )


def test_the_revote_is_due_at_14_00_in_the_plan_the_call_and_the_count(played: tuple[Played, Any]) -> None:
    """AMB-28: the call is posted right after the 13:00 close with a 60-minute deadline. The runner counts
    it from the vote's deadline, not from the minute it ran (13:01): 14:00 everywhere."""
    p, _ = played
    two_pm = datetime(2026, 6, 4, 14, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    (m,) = [m for m in p.steps.plan() if m.key == "day1/revote1"]
    assert m.deadline == two_pm and m.at == two_pm + timedelta(minutes=1)
    call = next(i for i in p.steps.outbox.items() if i.moment_key == "day1/revote1/call")
    assert "重投截止：6月4日 14:00" in call.body
    p.steps.desk.refresh()
    (rv,) = p.steps.desk.tally(1).result.revotes
    assert rv.plan.deadline == two_pm
