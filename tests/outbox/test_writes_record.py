"""What the judge's writes record (issue 22): the new thread's pid, the characters a GBK board cannot
store, the sender that won a race, a PM's recipient by name.

Each board test runs on a UTF-8 and on a GBK board (the ``board`` fixture) unless it is about GBK.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forumbot.config import Game
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import (
    APPROVED,
    DRAFT,
    FAILED,
    SENDER,
    SENDING,
    SENT,
    Edit,
    ItemKind,
    NewThread,
    Outbox,
    OutsideCharset,
    PrivateMessage,
    Reply,
    SentByAnother,
    describe,
)
from forumbot.posting import as_board_shows, outside_charset
from forumbot.store import outbox as repo
from forumbot.store.db import Store
from tests.conftest import FakeClock
from tests.outbox.conftest import UIDS, make_game

Start = Callable[[Store, Game], Outbox]


def gbk_game(**outbox: object) -> Game:
    game = make_game(**outbox)
    return replace(game, board=replace(game.board, charset="gbk"))


# --------------------------------------------------------------------------- (a) a new thread's pid


def test_a_new_threads_first_post_is_recorded_with_its_pid_and_can_be_edited(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    """The board's 301 names only the tid (exchange 06): the pid is read from the thread's first page."""
    ob = start(reopen_store(), make_game())
    item_id = ob.add(ItemKind.JUDGE_POST, NewThread(3, "【美食杀】第二天讨论"), "第二天讨论帖。请在此发言。")
    ob.approve(item_id, by="法官大人")
    assert not ob.send().stopped
    item = ob.get(item_id)
    tid = max(board.thread_ids())
    first = board.posts_of(tid)[0]
    assert item.status == SENT and item.result_tid == tid
    assert item.result_pid == first.pid  # the opening post, not unknown
    # ... so the judge can edit it through forumbot later
    edit = ob.add(ItemKind.JUDGE_POST, Edit(tid, first.pid), "第二天讨论帖（已更新）。")
    ob.approve(edit, by="法官大人")
    assert not ob.send().stopped
    assert ob.get(edit).status == SENT and board.text_of(first.pid) == "第二天讨论帖（已更新）。"


def test_a_first_floor_that_is_not_ours_gives_no_pid(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    """Never confidently wrong: a thread whose first floor is someone else's leaves the pid unknown."""
    ob = start(reopen_store(), make_game())

    def someone_elses(what: str, text: str) -> None:  # the first floor shows another author
        board.writer.posts[-1].author = "饺子"

    board.writer.on_post.append(someone_elses)
    item_id = ob.add(ItemKind.JUDGE_POST, NewThread(3, "【美食杀】公告"), "公告正文。")
    ob.approve(item_id, by="法官大人")
    ob.send()
    item = ob.get(item_id)
    assert item.status == SENT and item.result_tid is not None and item.result_pid is None


# --------------------------------------------------------------------------- (b) GBK


@given(st.text(min_size=0, max_size=40))
def test_what_gbk_cannot_store_is_exactly_what_the_board_would_show_as_codes(text: str) -> None:
    lost = outside_charset(text, "gbk")
    shown = as_board_shows(text, "gbk")
    assert outside_charset(shown, "gbk") == ()
    for ch in lost:
        assert f"&#{ord(ch)};" in shown
    assert outside_charset(text, "utf-8") == () and as_board_shows(text, "utf-8") == text


@pytest.mark.parametrize(
    ("text", "lost"),
    [
        ("价格 5€", ("€",)),
        ("𠮷野家 ✓ 😀 好", ("𠮷", "✓", "😀")),
        ("【票数统计】烧卖 3 票 √ ★ …“”", ()),  # GBK has these
        ("€€ €", ("€",)),  # each character named once
    ],
)
def test_characters_outside_gbk_are_named(text: str, lost: tuple[str, ...]) -> None:
    assert outside_charset(text, "GBK") == lost


@pytest.mark.parametrize("board", ["gbk"], indirect=True)
def test_on_a_gbk_board_the_characters_are_flagged_when_added_and_approval_is_refused(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    ob = start(reopen_store(), gbk_game(auto_approve=["vote_count"]))
    item_id = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】烧卖 3 票 ✓ 😀")
    item = ob.get(item_id)
    assert item.status == DRAFT  # auto_approve does not let it go alone
    note = repo.log(ob.store, item_id)[0].note
    assert "✓" in note and "😀" in note and "&#10003;" in note
    assert any("✓" in line for line in start.lines)  # type: ignore[attr-defined]
    with pytest.raises(OutsideCharset, match="✓") as refused:
        ob.approve(item_id, by="法官大人")
    assert refused.value.chars == ("✓", "😀")
    assert ob.get(item_id).status == DRAFT
    # approved as the board will show it: the text is rewritten, kept as a revision, and sent as such
    done = ob.approve(item_id, by="法官大人", as_board_shows=True)
    assert done.status == APPROVED and done.body == "【票数统计】烧卖 3 票 &#10003; &#128512;"
    assert [r.body for r in repo.revisions(ob.store, item_id)] == ["【票数统计】烧卖 3 票 ✓ 😀", done.body]
    assert not ob.send().stopped
    assert ob.get(item_id).status == SENT
    assert board.writer.count("【票数统计】烧卖 3 票 &#10003; &#128512;") == 1


@pytest.mark.parametrize("board", ["gbk"], indirect=True)
def test_a_gbk_board_learnt_only_at_sending_refuses_before_the_post(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    """The game file does not say GBK: the writer sees the GBK form and sends nothing; the judge is told
    and approval now knows the board is GBK."""
    ob = start(reopen_store(), make_game())
    item_id = ob.add(ItemKind.JUDGE_POST, Reply(4), "今晚 17:00 前提交 ✓")
    ob.approve(item_id, by="法官大人")
    ob.send()
    item = ob.get(item_id)
    assert item.status == FAILED and "✓" in item.board_message and item.outcome == "unencodable"
    assert board.writer.received == [] and item.attempts == 0
    again = start(reopen_store(), make_game())  # a new process: the charset is not known yet
    with pytest.raises(OutsideCharset):
        again.approve(item_id, by="法官大人")
    assert again.approve(item_id, by="法官大人", body="今晚 17:00 前提交 √").status == APPROVED


@pytest.mark.parametrize("board", ["utf-8"], indirect=True)  # the UTF-8 board only (no skip)
def test_a_utf8_board_stores_every_character(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    assert board.options.charset == "utf-8"
    ob = start(reopen_store(), make_game())
    item_id = ob.add(ItemKind.JUDGE_POST, Reply(4), "价格 5€ ✓ 😀")
    assert ob.approve(item_id, by="法官大人").status == APPROVED
    ob.send()
    assert ob.get(item_id).status == SENT and board.writer.count("价格 5€ ✓ 😀") == 1


# --------------------------------------------------------------------------- (c) a lost race


def test_a_sender_that_loses_the_race_names_the_winner_and_when(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store], clock: FakeClock
) -> None:
    game = make_game()
    ob = start(reopen_store(), game)
    item_id = ob.add(ItemKind.JUDGE_POST, Reply(4), "【公告】今晚 17:00 截止。")
    ob.approve(item_id, by="法官大人")
    # another forumbot (the web desk's judge 执法乙, on another machine) took it a moment before our POST
    repo.change_status(
        ob.store,
        item_id,
        SENDING,
        expect={APPROVED},
        by="执法乙",
        at=clock.now(),
        note="POST to the board from desk-2 pid 4242",
        sending_at=clock.now(),
    )
    before = ob._mark_sending(ob.get(item_id), None)
    with pytest.raises(SentByAnother) as lost:
        before()
    words = str(lost.value)
    assert "执法乙" in words and "desk-2 pid 4242" in words
    assert "2026-06-04 11:00:00" in words  # 03:00 UTC, in the board's zone (Asia/Shanghai)
    assert "「发送中」，不是「已批准」" not in words
    assert board.writer.received == []


def test_any_status_conflict_says_who_made_the_status_and_when(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    ob = start(reopen_store(), make_game())
    item_id = ob.add(ItemKind.JUDGE_POST, Reply(4), "【公告】")
    ob.cancel(item_id, by="执法甲", why="重复")
    with pytest.raises(repo.StatusConflict, match="执法甲") as conflict:
        ob.approve(item_id, by="法官大人")
    assert conflict.value.by == "执法甲" and conflict.value.status == "cancelled"


# --------------------------------------------------------------------------- (d) a PM's recipient


def test_a_private_messages_recipient_is_named_never_a_question_mark(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    ob = start(reopen_store(), make_game())
    item = ob.get(ob.add(ItemKind.JUDGE_PM, PrivateMessage([UIDS["包子"], UIDS["汤圆"]]), "提醒"))
    assert describe(item, ob.names()) == "私信 包子(uid 3), 汤圆(uid 6)"
    assert describe(item) == "私信 uid 3, uid 6"
    assert "?" not in describe(item)


def test_outbox_add_prints_the_recipients_name(
    board: LiveBoard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from forumbot.cli import main
    from tests.outbox.test_cli import GAME

    path = tmp_path / "forumbot.toml"
    path.write_text(GAME, "utf-8")
    monkeypatch.setenv("FORUMBOT_TEST_PASSWORD", "hunter2")
    assert (
        main(["--game", str(path), "outbox", "add", "--pm", "3", "--kind", "judge_pm", "--body", "提醒"]) == 0
    )
    out = capsys.readouterr().out
    assert "私信 包子(uid 3)" in out and "?" not in out
    assert main(["--game", str(path), "outbox", "show", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["uids"] == [3]


def test_a_sender_that_finds_the_item_busy_names_who_is_sending_it(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store], clock: FakeClock
) -> None:
    """The other forumbot went to ``sending`` a moment ago: this one sends nothing and says who and when."""
    store = reopen_store()
    ob = start(store, make_game())
    item_id = ob.add(ItemKind.JUDGE_POST, Reply(4), "【公告】今晚 17:00 截止。")
    ob.approve(item_id, by="法官大人")
    other = Outbox(store, make_game(), now=clock.now, by="执法乙")
    other._mark_sending(other.get(item_id), None)()  # its POST is on its way
    report = ob.send()
    assert "执法乙" in report.stopped and SENDER in report.stopped and "2026-06-04 11:00:00" in report.stopped
    assert board.writer.received == [] and ob.get(item_id).status == SENDING
