"""The living example board shows each moment of the scenario, read through the real client and parsers.

Why: the whole-game test and ``forumbot demo`` read this board as forumbot reads a real X3.5 board; if
the board showed a post before its time, an edit without its marker or a private forum to an outsider,
the game's judgement would be checked against the wrong board.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests

from forumbot.board import BoardConfig
from forumbot.client import BoardClient
from forumbot.config import load_game
from forumbot.errors import LoginRequired, NoPermission
from forumbot.exampleboard.model import ScenarioError, load_scenario, scenario_from_dict
from forumbot.exampleboard.server import JUDGE_PID_BASE, LiveBoard
from forumbot.outbox import ItemKind, Outbox, PrivateMessage, Reply
from forumbot.parsers.records import PostState
from forumbot.poll import poll
from forumbot.resources import data_dir
from forumbot.store import Store
from forumbot.store.db import open_store
from forumbot.store.posts import get_post

GAME = data_dir() / "examples" / "yexiao"
SCENARIO = load_scenario(GAME / "scenario.toml")


def utc(local: str) -> datetime:
    """A Beijing wall-clock time as UTC."""
    return datetime.fromisoformat(local + "+08:00").astimezone(UTC)


def cfg(board: LiveBoard, who: str | None = "法官大人", fid: int = 3) -> BoardConfig:
    return BoardConfig(
        url=board.url,
        fid=fid,
        min_interval=0.0,
        retries=0,
        username=who,
        password="demo" if who else None,
    )


def pids(client: BoardClient, tid: int, page: int = 1) -> list[int]:
    return [p.pid for p in client.fetch_thread_page(tid, page).posts]


# ------------------------------------------------------------------ time


def test_a_post_appears_at_its_time_and_not_a_second_before() -> None:
    with LiveBoard(SCENARIO, now="2026-06-03 17:44:59") as board, BoardClient(cfg(board, None)) as client:
        assert pids(client, 3) == [24]  # the judge's opening post only
        board.advance(seconds=1)
        page = client.fetch_thread_page(3)
        assert [p.pid for p in page.posts] == [24, 32]
        vote = page.posts[-1]
        assert (vote.author, vote.text, vote.floor) == ("饺子", "投票：麻花", 2)
        assert vote.posted_at == vote.posted_until == utc("2026-06-03 17:45:00")


def test_the_date_header_is_the_fake_clock() -> None:
    with LiveBoard(SCENARIO, now="2026-06-04 11:00") as board:
        answer = requests.get(board.url + "forum.php?mod=viewthread&tid=2", timeout=10)
        assert answer.headers["Date"] == "Thu, 04 Jun 2026 03:00:00 GMT"
        board.now = datetime(2026, 6, 4, 5, 30, tzinfo=UTC)
        assert requests.get(board.url, timeout=10).headers["Date"] == "Thu, 04 Jun 2026 05:30:00 GMT"
        with pytest.raises(ValueError):
            board.advance(minutes=-1)


def test_the_board_can_follow_a_fast_clock() -> None:
    ticks = iter([utc("2026-06-03 17:44:59"), utc("2026-06-03 17:45:00")])
    with LiveBoard(SCENARIO, now="2026-06-03 12:00") as board, BoardClient(cfg(board, None)) as client:
        board.follow(lambda: next(ticks))
        assert pids(client, 3) == [24]
        assert pids(client, 3) == [24, 32]
        board.now = "2026-06-03 17:00"  # setting the clock stops following
        assert pids(client, 3) == [24]


def test_relative_times_resolve_against_the_board_clock() -> None:
    with LiveBoard(SCENARIO, now="2026-06-04 09:00:40") as board:
        body = requests.get(board.url + "forum.php?mod=viewthread&tid=3&page=2", timeout=10).text
        assert '<span title="2026-6-4 09:00:00">40&nbsp;秒前</span>' in body  # pid 59 at 09:00
        first = requests.get(board.url + "forum.php?mod=viewthread&tid=3", timeout=10).text
        assert '<span title="2026-6-3 17:45:00">昨天&nbsp;17:45</span>' in first  # pid 32


def test_an_edit_shows_from_its_time_with_the_edit_marker() -> None:
    with LiveBoard(SCENARIO, now="2026-06-04 09:29:59") as board, BoardClient(cfg(board, None)) as client:
        before = next(p for p in client.fetch_thread_page(3).posts if p.pid == 47)
        assert before.text == "投票：麻花" and before.edit is None
        board.now = "2026-06-04 09:30"
        after = next(p for p in client.fetch_thread_page(3).posts if p.pid == 47)
        assert after.text == "投票：包子"
        assert after.edit is not None and after.edit.by == "月饼"
        assert after.posted_at == utc("2026-06-03 20:30:00")  # the post's own time does not move


def test_threads_page_by_position_and_a_page_past_the_last_is_the_last() -> None:
    with LiveBoard(SCENARIO, now="2026-06-04 13:00") as board, BoardClient(cfg(board, None)) as client:
        first, last = client.fetch_thread_page(2, 1), client.fetch_thread_page(2, 99)
        assert len(first.posts) == 10 and first.thread.pages == 3 and first.thread.replies == 24
        assert last.thread.page == 3 and [p.floor for p in last.posts] == [21, 22, 23, 24, 25]


def test_the_thread_list_shows_the_last_post_so_an_idle_poll_is_one_request(store: Store) -> None:
    with LiveBoard(SCENARIO, now="2026-06-03 18:00") as board, BoardClient(cfg(board, None)) as client:
        c = cfg(board, None)
        first = poll(client, store, c, [2, 3], progress=False)
        assert first.ok, first.errors
        idle = poll(client, store, c, [2, 3], progress=False)
        assert idle.requests == 1 and idle.new_posts == 0
        board.now = "2026-06-03 19:05"  # 包子 17:52, 馄饨 18:05, 烧卖 18:15 ... and two votes
        fresh = poll(client, store, c, [2, 3], progress=False)
        assert fresh.ok and fresh.new_posts == 7
        assert get_post(store, c, 40).text == "投票：麻花"  # type: ignore[union-attr]
        assert get_post(store, c, 41) is None  # 19:10: not yet


def test_a_full_poll_keeps_both_revisions_of_the_edited_vote(store: Store) -> None:
    with LiveBoard(SCENARIO, now="2026-06-04 09:00") as board, BoardClient(cfg(board, None)) as client:
        c = cfg(board, None)
        assert poll(client, store, c, [3], progress=False).ok
        board.now = "2026-06-04 13:00"
        full = poll(client, store, c, [3], full=True, progress=False)
        assert full.ok, full.errors and 47 in full.revised_pids
    vote = get_post(store, c, 47)
    assert vote is not None and [r.text for r in vote.revisions] == ["投票：麻花", "投票：包子"]


def test_a_deleted_post_is_gone_from_its_time_and_keeps_its_floor_gap(store: Store) -> None:
    sc = scenario_from_dict(
        {
            "board": {"name": "测试论坛", "ppp": 10},
            "users": {"法官大人": 14, "甲": 2, "乙": 3},
            "forums": [{"fid": 3, "name": "版杀区"}],
            "threads": [{"tid": 2, "fid": 3, "subject": "讨论", "author": "法官大人"}],
            "posts": [
                {"pid": 1, "tid": 2, "author": "法官大人", "at": "2026-06-03 12:00:00", "text": "开帖"},
                {
                    "pid": 2,
                    "tid": 2,
                    "author": "甲",
                    "at": "2026-06-03 13:00:00",
                    "text": "+1",
                    "deleted_at": "2026-06-03 15:00:00",
                },
                {"pid": 3, "tid": 2, "author": "乙", "at": "2026-06-03 14:00:00", "text": "投票：甲"},
            ],
        }
    )
    with LiveBoard(sc, now="2026-06-03 14:30") as board, BoardClient(cfg(board, None)) as client:
        c = cfg(board, None)
        assert [p.floor for p in client.fetch_thread_page(2).posts] == [1, 2, 3]
        assert poll(client, store, c, [2], progress=False).ok
        board.advance(hours=1)
        assert [(p.pid, p.floor) for p in client.fetch_thread_page(2).posts] == [(1, 1), (3, 3)]
        full = poll(client, store, c, [2], full=True, progress=False)
        assert full.ok and [s.pid for s in full.state_changes] == [2]
    gone = get_post(store, c, 2)
    assert gone is not None and gone.state is PostState.DELETED and gone.text == "+1"


# ------------------------------------------------------------------ private forums and logins


@pytest.mark.parametrize("who", ["法官大人", "麻花", "粽子"])
def test_the_bandits_forum_is_read_by_its_members_and_the_judge(who: str) -> None:
    with LiveBoard(SCENARIO, now="2026-06-03 17:00") as board, BoardClient(cfg(board, who, 6)) as client:
        listing = client.fetch_forum_page(6)
        assert [t.tid for t in listing.threads] == [8]
        assert pids(client, 8) == [21, 25, 28, 29, 30]


def test_an_outsider_is_refused_and_a_guest_asked_to_log_in() -> None:
    with LiveBoard(SCENARIO, now="2026-06-03 17:00") as board:
        with BoardClient(cfg(board, "饺子", 6)) as outsider:
            with pytest.raises(NoPermission, match="没有权限访问该版块"):
                outsider.fetch_forum_page(6)
            with pytest.raises(NoPermission):
                outsider.fetch_thread_page(9)
            assert pids(outsider, 3) == [24]  # the public forum as usual
        with BoardClient(cfg(board, None, 6)) as guest, pytest.raises(LoginRequired):
            guest.fetch_thread_page(8)
        # a bandit in the police forum
        with BoardClient(cfg(board, "麻花", 7)) as bandit, pytest.raises(NoPermission):
            bandit.fetch_forum_page(7)


def test_the_possessed_player_reads_the_bandits_forum_from_the_moment_he_is_let_in() -> None:
    with LiveBoard(SCENARIO, now="2026-06-04 17:29:59") as board, BoardClient(cfg(board, "烧卖", 6)) as c:
        with pytest.raises(NoPermission):
            c.fetch_thread_page(8)
        board.advance(seconds=1)
        assert 77 in pids(c, 8)


def test_a_wrong_password_is_refused_as_x35_does() -> None:
    with LiveBoard(SCENARIO, now="2026-06-03 17:00") as board:
        bad = replace(cfg(board, "麻花", 6), password="nope")
        with BoardClient(bad) as client, pytest.raises(Exception, match="登录失败"):
            client.fetch_forum_page(6)


# ------------------------------------------------------------------ private messages


def _pm_list(board: LiveBoard, who: str | None) -> str:
    headers = {"Cookie": board.cookie_for(who)} if who else {}
    return requests.get(board.url + "home.php?mod=space&do=pm", headers=headers, timeout=10).text


def test_the_pm_list_shows_each_conversation_from_its_first_message_newest_first() -> None:
    with LiveBoard(SCENARIO, now="2026-06-03 16:40") as board:
        assert re.findall(
            r'class="xw1">([^<]+)</a> 对 <span class="xi2">您</span>', _pm_list(board, "法官大人")
        ) == ["包子"]
        board.now = "2026-06-04 16:46"
        body = _pm_list(board, "法官大人")
        assert re.findall(r'class="xw1">([^<]+)</a> 对', body) == ["馄饨", "饺子", "吃瓜群众", "包子"]
        assert "discuz_uid = '14'" in body and 'class="vwmy"' in body
        own = _pm_list(board, "馄饨")  # his side: he wrote to the judge
        mine = r'<span class="xi2">您</span> 对 <a[^>]*class="xw1">([^<]+)</a>'
        assert re.findall(mine, own) == ["法官大人"]
        assert "您需要先登录才能继续本操作" in _pm_list(board, None)


def test_a_conversation_shows_the_messages_and_opening_it_marks_it_read() -> None:
    with LiveBoard(SCENARIO, now="2026-06-05 17:10") as board:
        judge = {"Cookie": board.cookie_for("法官大人")}
        assert 'id="pmlist_4014" class="bbda cur1 cl newpm"' in _pm_list(board, "法官大人")
        view = requests.get(
            board.url + "home.php?mod=space&do=pm&subop=view&touid=4", headers=judge, timeout=10
        ).text
        assert re.findall(r'<dl id="pmlist_(\d+)"', view) == ["4", "6"]
        assert '共有 <span id="membernum" class="xi1">2</span> 条与' in view
        assert "补充：验烧卖" in view
        assert 'id="pmlist_4014" class="bbda cur1 cl"' in _pm_list(board, "法官大人")


def test_the_same_second_view_leaves_the_newest_message_out_when_asked() -> None:
    with LiveBoard(SCENARIO, now="2026-06-04 16:45:00", same_second_view=True) as board:
        judge = {"Cookie": board.cookie_for("法官大人")}
        url = board.url + "home.php?mod=space&do=pm&subop=view&touid=4"
        view = requests.get(url, headers=judge, timeout=10).text
        assert "pmlist_4" not in view and 'class="xi1">1</span>' in view
        board.advance(seconds=1)
        assert 'id="pmlist_4"' in requests.get(url, headers=judge, timeout=10).text


def test_the_pm_pages_read_with_the_pm_parser() -> None:
    pm = pytest.importorskip("forumbot.parsers.pm")  # the PM parser (issue on night mail)
    with LiveBoard(SCENARIO, now="2026-06-04 16:46:30") as board:
        judge = {"Cookie": board.cookie_for("法官大人")}
        got = requests.get(board.url + "home.php?mod=space&do=pm", headers=judge, timeout=10)
        listing = pm.parse_pm_list(got.content, got.url, date_header=got.headers["Date"])
        assert [c.other_name for c in listing.conversations] == ["馄饨", "饺子", "吃瓜群众", "包子"]
        assert (
            listing.conversations[0].last_at
            <= utc("2026-06-04 16:45:00")
            <= listing.conversations[0].last_until
        )
        url = board.url + "home.php?mod=space&do=pm&subop=view&touid=4"
        got = requests.get(url, headers=judge, timeout=10)
        view = pm.parse_pm_conversation(got.content, url, date_header=got.headers["Date"])
        assert [(m.from_name, m.text) for m in view.messages] == [("馄饨", "验：粽子")]
        assert view.viewer_uid == 14


# ------------------------------------------------------------------ the judge's writes


def test_what_the_judge_sends_through_the_outbox_shows_at_its_floor_and_time(tmp_path: Path) -> None:
    game = load_game(GAME / "game.toml")
    with LiveBoard(SCENARIO, now="2026-06-04 13:01") as board:
        board_cfg = replace(game.board, url=board.url, password="demo")
        game = replace(game, board=board_cfg)
        game = replace(game, outbox={"pm_interval": 0, "uids": {"法官大人": 14, "馄饨": 4}})
        with open_store(tmp_path / "game.db") as store:
            client = BoardClient(game.board, session=requests.Session())
            ob = Outbox(store, game, client=client, by="test-judge")
            call = ob.add(ItemKind.VOTE_COUNT, Reply(3), "【重投】麻花、包子 各3票，请于14:01前重投", day=1)
            note = ob.add(ItemKind.PRIVATE_NOTICE, PrivateMessage(4), "粽子：杀手", player="馄饨")
            for item in (call, note):
                ob.approve(item, by="test-judge")
            assert not ob.send().stopped
            sent = ob.get(call)
            assert sent.result_pid is not None and sent.result_pid >= JUDGE_PID_BASE
            board.now = "2026-06-04 13:13"  # 包子 revotes at 13:12, after the call
            posts = client.fetch_thread_page(3, 99).posts
            tail = [(p.author, p.floor) for p in posts][-2:]
            assert tail == [("法官大人", 16), ("包子", 17)]
            mine = next(p for p in posts if p.pid == sent.result_pid)
            assert mine.posted_at == utc("2026-06-04 13:01:00")
            assert mine.text.startswith("【重投】麻花、包子")
            view = requests.get(
                board.url + "home.php?mod=space&do=pm&subop=view&touid=4",
                headers={"Cookie": board.cookie_for("法官大人")},
                timeout=10,
            ).text
            assert re.findall(r'<dl id="pmlist_(\d+)"', view) == ["100001"]  # 馄饨 writes at 16:45
            board.now = "2026-06-04 16:46"
            view = requests.get(
                board.url + "home.php?mod=space&do=pm&subop=view&touid=4",
                headers={"Cookie": board.cookie_for("法官大人")},
                timeout=10,
            ).text
            assert re.findall(r'<dl id="pmlist_(\d+)"', view) == ["100001", "4"]
            assert '<span class="xi2 xw1">您</span>' in view.split('id="pmlist_4"')[0]
            client.close()


# ------------------------------------------------------------------ the scenario file


def test_a_wrong_scenario_says_which_entry_is_wrong() -> None:
    raw = {
        "users": {"甲": 2},
        "forums": [{"fid": 3, "name": "版杀区"}],
        "threads": [{"tid": 2, "subject": "讨论", "author": "甲"}],
        "posts": [{"pid": 1, "tid": 2, "author": "乙", "at": "2026-06-03 12:00:00", "text": "x"}],
    }
    with pytest.raises(ScenarioError, match="'乙' is not a user"):
        scenario_from_dict(raw)
    raw["posts"] = [{"pid": 1, "tid": 2, "author": "甲", "at": "6月3日", "text": "x"}]
    with pytest.raises(ScenarioError, match=r"posts\[pid=1\].*not a time"):
        scenario_from_dict(raw)


def test_the_example_game_is_served_by_name_and_its_moments_are_in_order() -> None:
    moments = SCENARIO.moments()
    assert moments == sorted(moments) and moments[0] == utc("2026-06-01 20:00:00")  # the sign-up opens
    assert utc("2026-06-04 09:30:00") in moments  # the edit
    assert utc("2026-06-04 17:30:00") in moments  # 烧卖 let into the bandits' forum
    with LiveBoard.example("yexiao", now=moments[-1]) as board:
        assert requests.get(board.url + "forum.php?mod=forumdisplay&fid=3", timeout=10).ok
    with pytest.raises(ScenarioError, match="no example game"):
        LiveBoard.example("nosuchgame", now=moments[0])


def test_the_judge_polls_the_private_groups_threads_like_any_other(store: Store) -> None:
    with LiveBoard(SCENARIO, now="2026-06-03 16:30") as board:
        bandits, police = cfg(board, "法官大人", 6), cfg(board, "法官大人", 7)
        with BoardClient(bandits) as client:
            assert poll(client, store, bandits, [8], progress=False).ok
            assert poll(client, store, police, [9], progress=False).ok
            board.now = "2026-06-03 17:00"
            again = poll(client, store, bandits, [8], progress=False)
            assert again.ok and again.new_posts == 2  # the 改刀 (16:35) and 粽子's reply (16:38)
        correction = get_post(store, bandits, 29)
        assert correction is not None and correction.text.startswith("改刀！\n杀：春卷")
        assert get_post(store, police, 26).text == "验：月饼"  # type: ignore[union-attr]
