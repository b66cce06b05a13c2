"""The example board playing the meishi example answers like a Discuz! board: the pages, the Date at its
named moments, the clamp, the 404."""

from __future__ import annotations

import requests

from forumbot.exampleboard.server import LiveBoard


def test_serves_thread_pages_with_the_snapshot_date_and_clamps_beyond_the_last_page():
    with LiveBoard.example("meishi", now="s1") as board:
        r = requests.get(board.url + "forum.php?mod=viewthread&tid=3&page=1", timeout=5)
        assert r.status_code == 200 and 'id="postlist"' in r.text
        assert r.headers["Date"] == "Thu, 04 Jun 2026 03:00:00 GMT"  # snapshot s1: 11:00 Beijing
        last = requests.get(board.url + "forum.php?mod=viewthread&tid=3&page=2", timeout=5).text
        beyond = requests.get(board.url + "forum.php?mod=viewthread&tid=3&page=99", timeout=5).text
        assert beyond == last
        board.use("s2")
        r2 = requests.get(board.url + "forum.php?mod=viewthread&tid=3&page=1", timeout=5)
        assert r2.headers["Date"] == "Thu, 04 Jun 2026 05:30:00 GMT"
        assert "本帖最后由 馄饨" in r2.text  # the vote edited between the snapshots


def test_unknown_thread_gets_discuz_not_found_page():
    with LiveBoard.example("meishi", now="s1") as board:
        r = requests.get(board.url + "forum.php?mod=viewthread&tid=999", timeout=5)
        assert r.status_code == 404
        assert "指定的主题不存在" in r.text
