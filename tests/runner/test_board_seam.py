"""The Board seam (forumbot/boardio.py) is the seam (issue 18, item 2): the Discuz! board satisfies the
protocol, and a small in-memory board implementing it drives the runner's reading of the judge's PMs
(every conversation, every page), a night's messages, and the outbox's writes, without any HTTP."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, timedelta
from typing import Any

import pytest
import responses

from forumbot.board import BoardConfig
from forumbot.boardio import BeforePost, Board, DiscuzBoard, PolledBoard
from forumbot.client import BoardClient
from forumbot.config import NightGroupSource, NightSources, game_from_dict
from forumbot.errors import NoPermission, ThreadNotFound
from forumbot.exampleboard.model import load_scenario
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import ItemKind, Outbox, PrivateMessage, Reply
from forumbot.parsers.pm import PmConversation, PmConversationPage, PmListPage, PmMessage
from forumbot.parsers.records import ForumPage, ForumThread, Source, ThreadPage, TimeSource
from forumbot.posting import Action, Outcome, PostResult
from forumbot.resources import data_dir
from forumbot.runner.steps import BoardSteps
from forumbot.runner.tick import Delay
from forumbot.store.db import Store, open_store
from tests.conftest import make_board
from tests.runner.test_r004_last_words import EXAMPLE, sh

JUDGE_UID = 1


def _pm(pmid: int, uid: int, name: str, text: str, at: str, *, mine: bool = False) -> PmMessage:
    t = sh(at).astimezone(UTC)
    sender, recipient = ((JUDGE_UID, "导演"), (uid, name)) if mine else ((uid, name), (JUDGE_UID, "导演"))
    return PmMessage(pmid, None, *sender, *recipient, t, t, TimeSource.TITLE, text, mine=mine)


@dataclass
class ListBoard:
    """A board held in lists: conversations by the other user's uid, each a list of pages (oldest first;
    the board shows the last one by default, as Discuz! does). Every write is kept and answered SENT."""

    conversations: dict[int, list[list[PmMessage]]] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    problems: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)
    threads: dict[int, list[ForumThread]] = field(default_factory=dict)
    asked: list[tuple[str, Any]] = field(default_factory=list)
    written: list[tuple[str, int, str]] = field(default_factory=list)
    refuse_pm: bool = False
    unclear_pm: bool = False  # every PM's answer is lost: it may have been stored

    def login(self, *, retry: bool = False) -> None:
        self.asked.append(("login", retry))

    def fetch_thread_page(self, tid: int, page: int = 1) -> ThreadPage:
        raise ThreadNotFound(f"list://thread/{tid}", "", "no thread pages on this board")

    def fetch_forum_page(self, fid: int, page: int = 1) -> ForumPage:
        self.asked.append(("forum", fid))
        return ForumPage(fid, f"forum {fid}", page, 1, tuple(self.threads.get(fid, ())))

    def fetch_pm_list(self, page: int = 1) -> PmListPage:
        self.asked.append(("pm list", page))
        if self.refuse_pm:
            raise NoPermission("list://pm", "您需要先登录才能继续本操作")
        rows = []
        for uid, pages in self.conversations.items():
            last = pages[-1][-1]
            rows.append(
                PmConversation(
                    uid, uid, self.names[uid], last.from_uid, last.from_name, last.text[:20], False,
                    last.sent_at, last.sent_until, last.time_source,
                )
            )  # fmt: skip
        return PmListPage(tuple(rows), page, 1, Source.PC)

    def fetch_pm_conversation(self, uid: int, page: int | None = None) -> PmConversationPage:
        self.asked.append(("pm", (uid, page)))
        pages = self.conversations[uid]
        n = page or len(pages)
        return PmConversationPage(
            tuple(pages[n - 1]), uid, self.names[uid], n, len(pages), Source.PC,
            problems=self.problems.get((uid, n), ()),
        )  # fmt: skip

    def _sent(
        self, action: Action, where: int, message: str, before_post: BeforePost, **ids: int
    ) -> PostResult:
        if before_post is not None:
            before_post()
        self.written.append((action.value, where, message))
        return PostResult(Outcome.SENT, action, **ids)

    def reply(
        self,
        tid: int,
        message: str,
        *,
        fid: int | None = None,
        quote_pid: int | None = None,
        before_post: BeforePost = None,
    ) -> PostResult:
        return self._sent(Action.REPLY, tid, message, before_post, tid=tid, pid=900 + len(self.written))

    def edit(
        self,
        tid: int,
        pid: int,
        message: str,
        *,
        fid: int | None = None,
        subject: str | None = None,
        before_post: BeforePost = None,
    ) -> PostResult:
        return self._sent(Action.EDIT, pid, message, before_post, tid=tid, pid=pid)

    def new_thread(
        self, fid: int, subject: str, message: str, *, before_post: BeforePost = None
    ) -> PostResult:
        return self._sent(Action.NEWTHREAD, fid, message, before_post, tid=50, pid=500)

    def send_pm(self, uid: int, message: str, *, before_post: BeforePost = None) -> PostResult:
        if self.unclear_pm:
            if before_post is not None:
                before_post()
            return PostResult(Outcome.UNKNOWN, Action.PM, detail="the answer was lost")
        return self._sent(Action.PM, uid, message, before_post, pmid=700 + len(self.written))


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(":memory:") as st:
        yield st


@pytest.fixture
def no_http() -> Iterator[None]:
    """Any request at all fails the test: the fake board is the only board."""
    with responses.RequestsMock(assert_all_requests_are_fired=False):
        yield


def _steps(store: Store, board: Board) -> BoardSteps:
    data: dict[str, Any] = tomllib.loads((EXAMPLE / "game.toml").read_text("utf-8"))
    data["game"]["store"] = store.url
    data["night_sources"] = {"pm": True}
    data["outbox"] = {"uids": {name: 100 + i for i, name in enumerate(data["players"]["roster"])}}
    return BoardSteps(game_from_dict(data), store, board=board, clock=lambda: sh("2026-06-09 08:00"))


def _two_players() -> ListBoard:
    """豆浆 (uid 100) wrote two pages (the board shows the second first); 油饼 (uid 101) one."""
    doujiang = [
        [
            _pm(1, 100, "豆浆", "身份已收到", "2026-06-08 20:00"),
            _pm(2, 100, "豆浆", "杀：油饼", "2026-06-08 22:10"),
        ],
        [
            _pm(5, 100, "豆浆", "你的身份：杀手", "2026-06-08 22:30", mine=True),
            _pm(6, 100, "豆浆", "改杀：烧饼", "2026-06-08 22:40"),
        ],
    ]
    youbing = [
        [
            _pm(3, 101, "油饼", "验：豆浆", "2026-06-08 22:20"),
            _pm(9, 101, "油饼", "早上好", "2026-06-09 09:30"),
        ]
    ]
    return ListBoard(conversations={100: doujiang, 101: youbing}, names={100: "豆浆", 101: "油饼"})


def test_the_discuz_board_is_a_board_and_the_check_has_teeth() -> None:
    discuz = DiscuzBoard(BoardClient(make_board()))
    assert isinstance(discuz, Board)
    assert isinstance(ListBoard(), Board)
    # the client alone reads but cannot write: it is not a Board, but it is what the poll reads through
    assert not isinstance(BoardClient(make_board()), Board)
    assert isinstance(BoardClient(make_board()), PolledBoard)
    assert not isinstance(ListBoard(), PolledBoard)  # no fetch log: the poll could not record its reads


def test_a_fake_board_drives_the_runners_pm_reading(store: Store, no_http: None) -> None:
    board = _two_players()
    steps = _steps(store, board)
    assert steps.board is board and steps.outbox.board is board
    got = steps.read_pms()
    # every message of every page of every conversation, once, by time
    assert [m.pmid for m in got] == [1, 2, 3, 5, 6, 9]
    assert board.asked == [("pm list", 1), ("pm", (100, None)), ("pm", (100, 1)), ("pm", (101, None))]
    # night 1's messages: the players' (not the judge's own), sent before day 1 opened (09:00)
    msgs = steps.night_messages(1, after=sh("2026-06-08 23:00"))
    assert [(m.id, m.author, m.text) for m in msgs] == [
        ("pm:1", "豆浆", "身份已收到"),
        ("pm:2", "豆浆", "杀：油饼"),
        ("pm:3", "油饼", "验：豆浆"),
        ("pm:6", "豆浆", "改杀：烧饼"),
    ]


def test_a_conversation_read_in_part_or_a_refused_read_delays_the_night(store: Store, no_http: None) -> None:
    board = _two_players()
    board.problems[(100, 1)] = ("the page states 3 messages but shows 2",)
    with pytest.raises(Delay, match="豆浆"):
        _steps(store, board).read_pms()
    refused = replace(_two_players(), refuse_pm=True)
    with pytest.raises(Delay, match="您需要先登录"):
        _steps(store, refused).read_pms()


def test_the_groups_forum_is_listed_through_the_board(store: Store, no_http: None) -> None:
    board = ListBoard(threads={6: [ForumThread(8, "杀手频道", 3)]})
    steps = _steps(store, board)
    steps.game = replace(
        steps.game, night_sources=NightSources(pm=True, groups=(NightGroupSource("killers", 6),))
    )
    assert [(g.value, tid) for g, tid in steps.group_tids()] == [("killers", 8)]
    assert board.asked == [("forum", 6)]


def test_the_outbox_writes_through_the_board(store: Store, no_http: None) -> None:
    board = ListBoard()
    steps = _steps(store, board)
    ob: Outbox = steps.outbox
    reply = ob.add(ItemKind.JUDGE_POST, Reply(tid=5), "顶一下，法官来了")
    pm = ob.add(ItemKind.JUDGE_PM, PrivateMessage(101), "你的身份：警察")
    for item_id in (reply, pm):
        ob.approve(item_id, by="导演")
    report = ob.send()
    assert [s.status for s in report.steps] == ["sent", "sent"]
    assert board.written == [("reply", 5, "顶一下，法官来了"), ("pm", 101, "你的身份：警察")]
    assert ob.get(reply).result_pid == 900
    assert ob.get(pm).delivered == {101: 701}


def test_the_discuz_board_reads_every_pm_of_the_judge_on_the_example_board() -> None:
    """The Discuz! side of the seam on a real board (the living example, 127.0.0.1): the list, then each
    conversation page by page, gives every message the judge sent or received, with its author."""
    scenario = load_scenario(data_dir() / "examples" / "yexiao" / "scenario.toml")
    judge = "法官大人"
    pms = [m for m in scenario.pms if judge in (m.from_name, m.to_name)]
    assert pms
    until = max(m.at for m in pms) + timedelta(minutes=5)
    with LiveBoard(scenario, now=until) as live:
        cfg = BoardConfig(url=live.url, fid=3, min_interval=0.0, retries=0, username=judge, password="demo")
        with BoardClient(cfg) as client:
            board: Board = DiscuzBoard(client)
            got: dict[int, PmMessage] = {}
            for conv in board.fetch_pm_list().conversations:
                assert conv.other_uid is not None
                view = board.fetch_pm_conversation(conv.other_uid)
                pages = [view] + [
                    board.fetch_pm_conversation(conv.other_uid, n)
                    for n in range(1, (view.pages or 1) + 1)
                    if n != view.page
                ]
                assert all(not p.problems for p in pages)
                got |= {m.pmid: m for p in pages for m in p.messages}
    assert sorted(got) == sorted(m.pmid for m in pms)
    for m in pms:
        assert (got[m.pmid].from_name, got[m.pmid].mine) == (m.from_name, m.from_name == judge)


def test_an_unclear_pm_is_checked_in_the_conversation_through_the_board(store: Store, no_http: None) -> None:
    """A PM whose answer was lost is looked for in the conversation before anything is sent again; a
    conversation the board showed in part proves nothing, so the send stops instead of sending twice."""
    board = replace(_two_players(), unclear_pm=True)
    ob = _steps(store, board).outbox
    item_id = ob.add(ItemKind.JUDGE_PM, PrivateMessage(101), "你的身份：警察")
    ob.approve(item_id, by="导演")
    ob.send()
    assert ob.get(item_id).status == "unknown"
    # the board stored it, but read in the same second it hides the newest message and says so
    board.problems[(101, 1)] = ("the page states 3 messages but shows 2",)
    report = ob.send()
    assert "无法核实" in report.stopped and ob.get(item_id).status == "unknown"
    # a second later it shows it
    board.problems.clear()
    board.conversations[101][-1].append(_pm(12, 101, "油饼", "你的身份：警察", "2026-06-09 08:00", mine=True))
    ob.send()
    assert ob.get(item_id).status == "sent" and ob.get(item_id).delivered == {101: 12}
    assert [w for w in board.written if w[0] == "pm"] == []  # never sent twice
