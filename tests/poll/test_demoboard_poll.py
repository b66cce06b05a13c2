"""End to end over real sockets: the example board playing the meishi example (two snapshots), the real
parsers, a store.

Why: ``responses`` stops at the requests adapter, so header encoding, redirects and real Discuz!-like
pages are only exercised against a live HTTP server. The example board's s2 snapshot edits pid 14
(a vote) and deletes pid 24 after s1.
"""

from __future__ import annotations

from forumbot.board import BoardConfig
from forumbot.client import BoardClient
from forumbot.exampleboard.server import LiveBoard
from forumbot.parsers.records import PostState
from forumbot.poll import poll
from forumbot.store import Store
from forumbot.store.health import check_consistency
from forumbot.store.posts import get_post, was_edited


def test_polls_across_snapshots_keep_the_edit_and_the_deletion(store: Store) -> None:
    with LiveBoard.example("meishi", now="s1") as board:
        cfg = BoardConfig(url=board.url, fid=3, min_interval=0.0, retries=0)  # the default, honest UA
        with BoardClient(cfg) as client:
            first = poll(client, store, cfg, [2, 3], progress=False)
            assert first.ok, first.errors
            assert first.requests == 1 + 2 + 2  # forum list + 2 pages each
            assert get_post(store, cfg, 14).text == "投票：包子"  # type: ignore[union-attr]

            idle = poll(client, store, cfg, [2, 3], progress=False)
            assert idle.requests == 1 and idle.new_posts == 0

            board.use("s2")
            fresh = poll(client, store, cfg, [2, 3], progress=False)
            assert fresh.ok and fresh.new_posts > 0

            full = poll(client, store, cfg, [2, 3], full=True, progress=False)
            assert full.ok, full.errors
    assert 14 in full.revised_pids
    vote = get_post(store, cfg, 14)
    assert vote is not None
    assert [r.text for r in vote.revisions] == ["投票：包子", "投票：饺子"]
    assert vote.current.edit is not None and vote.current.edit.by == "馄饨"
    assert was_edited(store, cfg, 14)
    gone = get_post(store, cfg, 24)
    assert gone is not None and gone.state is PostState.DELETED and gone.text == "+1"
    assert [c.pid for c in full.state_changes] == [24]
    assert check_consistency(store) == []
    ua = board.requests  # every request reached the server (the UA header was sendable)
    assert len(ua) == first.requests + idle.requests + fresh.requests + full.requests
