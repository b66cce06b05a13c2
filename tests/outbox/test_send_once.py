"""Sent once, verified: a whole day's outbox reaches the board exactly once, whatever happens mid-way.

Each test runs on a UTF-8 and on a GBK board (the ``board`` fixture).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
import requests

from forumbot.config import Game
from forumbot.errors import UsageError
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import (
    APPROVED,
    FAILED,
    SENT,
    UNKNOWN,
    Edit,
    ItemKind,
    NewThread,
    Outbox,
    PrivateMessage,
    Reply,
)
from forumbot.store import outbox as repo
from forumbot.store.db import Store
from tests.conftest import FakeClock
from tests.outbox.conftest import UIDS, make_game

Start = Callable[[Store, Game], Outbox]


def day_outbox(ob: Outbox, running_pid: int) -> list[int]:
    """What a judge sends on one day: posts, an edit, a new thread, and every player's private notice."""
    ids = [
        ob.add(ItemKind.CASE_POST, Reply(4), "【案情】昨夜 [b]烧卖[/b] 死亡。\n今日讨论开始。", day=1),
        ob.add(ItemKind.RUNNING_COUNT, Edit(5, running_pid), "【实时票数】烧卖 2 票：饺子、包子", day=1),
        ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】烧卖 3 票，包子 1 票", day=1),
        ob.add(ItemKind.EXECUTION_NOTICE, Reply(5), "烧卖 被处决，身份：杀手", day=1),
        ob.add(
            ItemKind.ELEVATOR,
            Reply(4),
            "[url=forum.php?mod=redirect&goto=findpost&ptid=4&pid=2]电梯[/url] 第一天",
            day=1,
        ),
        ob.add(
            ItemKind.JUDGE_POST, NewThread(3, "【美食杀】第二天讨论"), "第二天讨论帖。请在此发言。", day=2
        ),
    ]
    for name in ("饺子", "包子", "馄饨"):
        ids.append(
            ob.add(
                ItemKind.PRIVATE_NOTICE,
                PrivateMessage(UIDS[name]),
                f"【美食杀·身份】{name}：你的身份是【平民】。",
                player=name,
                night=1,
            )
        )
    ids.append(
        ob.add(
            ItemKind.JUDGE_PM,
            PrivateMessage([UIDS["汤圆"], UIDS["油条"]]),
            "今晚 17:00 前提交行动。",
            night=1,
        )
    )
    for i in ids:
        ob.approve(i, by="法官大人")
    return ids


def assert_each_once(board: LiveBoard, ob: Outbox, ids: list[int]) -> None:
    for i in ids:
        item = ob.get(i)
        assert item.status == SENT, (item.id, item.status, item.board_message)
        expected = len(item.uids) if item.dest == "pm" else 1
        assert board.writer.count(item.body) == expected, (item.kind, board.writer.received)
        if item.dest in ("reply", "edit"):
            assert item.result_pid is not None and board.text_of(item.result_pid) == item.body
        if item.dest == "pm":
            assert sorted(item.delivered) == sorted(item.uids) and all(v > 0 for v in item.delivered.values())
    assert len(board.writer.received) == sum(max(len(ob.get(i).uids), 1) for i in ids)


def test_a_whole_day_goes_out_once_with_pids_pmids_and_paced_pms(
    board: LiveBoard,
    running_count_pid: int,
    start: Start,
    reopen_store: Callable[[], Store],
    clock: FakeClock,
) -> None:
    ob = start(reopen_store(), make_game())
    ids = day_outbox(ob, running_count_pid)
    report = ob.send()
    assert not report.stopped
    assert_each_once(board, ob, ids)
    # the text arrived right (a GBK board reads GBK bytes: UTF-8 would be mojibake here)
    assert board.text_of(ob.get(ids[0]).result_pid or 0).startswith("【案情】昨夜 [b]烧卖[/b] 死亡。")
    assert ob.get(ids[5]).result_tid in board.thread_ids()
    # UCenter's 15 s between two PMs: five PMs → four waits
    assert [s for s in clock.sleeps if s > 10] and board.writer.last_pm_at is not None
    assert any("站内短消息间隔" in line for line in start.lines)  # type: ignore[attr-defined]


@pytest.mark.parametrize("kill_at", [1, 2, 4, 6, 7, 9, 11])
def test_killed_between_the_post_and_its_answer_then_restarted_sends_each_once(
    board: LiveBoard,
    running_count_pid: int,
    start: Start,
    reopen_store: Callable[[], Store],
    kill_at: int,
    clock: FakeClock,
) -> None:
    """The board stores the write, then the sender dies before reading the answer (KeyboardInterrupt)."""
    game = make_game()
    ob = start(reopen_store(), game)
    ids = day_outbox(ob, running_count_pid)
    seen = {"n": 0}

    def kill(what: str, text: str) -> None:
        seen["n"] += 1
        if seen["n"] == kill_at:
            raise KeyboardInterrupt("killed after the board stored it")

    board.writer.on_post.append(kill)
    with pytest.raises(KeyboardInterrupt):
        ob.send()
    stuck = [i for i in ids if ob.get(i).status == "sending"]
    assert len(stuck) == 1  # committed before the POST, never moved on
    board.writer.on_post.clear()
    again = start(reopen_store(), game)  # a new process: new session, same store
    early = again.send()  # at once: the item may still belong to a live sender, so nothing is sent
    assert early.stopped and "正在发送中" in early.stopped and len(board.writer.received) == kill_at
    clock.advance(60)  # the board's timeout and a margin later: the sender is surely gone
    report = again.send()
    assert not report.stopped, report
    assert any(s.outcome == "verified" for s in report.steps)
    assert_each_once(board, again, ids)
    notes = [e.note for e in repo.log(again.store, stuck[0])]
    assert any("found in sending at start" in n for n in notes) and any(
        "verified on the board" in n or "verified: delivered" in n for n in notes
    )


def test_a_timeout_after_the_post_makes_the_item_unknown_until_the_board_is_read(
    board: LiveBoard, running_count_pid: int, start: Start, reopen_store: Callable[[], Store]
) -> None:
    game = make_game()
    ob = start(reopen_store(), game)
    ids = day_outbox(ob, running_count_pid)

    def timeout(what: str, text: str) -> None:
        board.writer.on_post.clear()
        raise requests.ReadTimeout("the answer never came")

    board.writer.on_post.append(timeout)
    report = ob.send()
    assert report.stopped and ob.get(ids[0]).status == UNKNOWN
    assert sum(1 for i in ids if ob.get(i).status == SENT) == 0  # stops: nothing more until it is settled
    with pytest.raises(UsageError, match="状态是「待核实」"):  # the status's label, as the judge reads it
        ob.approve(ids[0], by="法官大人")  # an unknown item cannot be approved (or cancelled) blindly
    report = ob.send()
    assert report.steps[0].outcome == "verified"
    assert_each_once(board, ob, ids)


def test_an_unknown_item_not_found_on_the_board_is_sent_again_once(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store], clock: FakeClock
) -> None:
    """The POST died before the board stored anything: the read finds nothing, so it goes again."""
    ob = start(reopen_store(), make_game())
    item = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】饺子 2 票", day=1)
    ob.approve(item, by="法官大人")
    repo.change_status(
        ob.store,
        item,
        "sending",
        sending_at=clock.now() - timedelta(minutes=5),
        expect={APPROVED},
        by="test",
        note="simulated crash before the board stored it",
    )
    report = ob.send()
    assert [s.outcome for s in report.steps][:1] == ["not_found"], report
    assert ob.get(item).status == SENT and board.writer.count("【票数统计】饺子 2 票") == 1


def test_flood_control_waits_the_boards_interval_and_never_doubles(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store], clock: FakeClock
) -> None:
    board.options.floodctrl = 15
    ob = start(reopen_store(), make_game(auto_approve=["vote_count", "judge_post"]))
    a = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】第一次", day=1)
    b = ob.add(ItemKind.JUDGE_POST, Reply(5), "【公告】第二条", day=1)
    report = ob.send()
    assert not report.stopped
    assert ob.get(a).status == SENT and ob.get(b).status == SENT
    assert board.writer.count("【公告】第二条") == 1
    assert 16.0 in clock.sleeps  # the board's 15 s, plus one
    assert any(e.note.startswith("refused for now (flood)") for e in repo.log(ob.store, b))


def test_a_refusal_keeps_the_boards_words_and_the_item_unsent(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    board.options.closed.add(5)
    ob = start(reopen_store(), make_game())
    item = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】关闭的帖子", day=1)
    ob.approve(item, by="法官大人")
    ob.send()
    got = ob.get(item)
    assert got.status == FAILED and got.board_message == "抱歉，本主题已关闭，不再接受新内容"
    assert board.writer.received == []
    board.options.closed.clear()
    ob.approve(item, by="法官大人")  # the judge had the thread opened again
    ob.send()
    assert ob.get(item).status == SENT and board.writer.count("【票数统计】关闭的帖子") == 1


def test_the_board_unreachable_before_sending_leaves_the_item_approved(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    ob = start(reopen_store(), make_game())
    item = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】没连上", day=1)
    ob.approve(item, by="法官大人")
    real = board.writer.answer_post

    def refuse_connection(path, raw, cookie):  # type: ignore[no-untyped-def]
        board.writer.answer_post = real  # type: ignore[method-assign]
        raise requests.ConnectionError("NewConnectionError: Connection refused")

    board.writer.answer_post = refuse_connection  # type: ignore[method-assign]
    report = ob.send()
    assert report.stopped and ob.get(item).status == APPROVED
    ob.send()
    assert ob.get(item).status == SENT and board.writer.count("【票数统计】没连上") == 1


def test_a_post_buried_under_many_later_replies_is_still_found_by_its_author(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store], clock: FakeClock
) -> None:
    """Killed after the board stored the reply; 30 players' posts follow before the restart."""
    ob = start(reopen_store(), make_game(auto_approve=["vote_count"]))
    item = ob.add(ItemKind.VOTE_COUNT, Reply(4), "【票数统计】埋在后面", day=1)

    def kill(what: str, text: str) -> None:
        board.writer.on_post.clear()
        raise KeyboardInterrupt

    board.writer.on_post.append(kill)
    with pytest.raises(KeyboardInterrupt):
        ob.send()
    for i in range(30):
        board.reply(4, "饺子", f"讨论 {i}")
    clock.advance(120)
    again = start(reopen_store(), make_game(auto_approve=["vote_count"]))
    report = again.send()
    assert report.steps[0].outcome == "verified" and again.get(item).status == SENT
    assert board.writer.count("【票数统计】埋在后面") == 1
    assert any("authorid=14" in u for u in board.requests)


def test_a_pm_refused_for_one_recipient_is_resent_only_to_that_one(
    board: LiveBoard, start: Start, reopen_store: Callable[[], Store]
) -> None:
    ob = start(reopen_store(), make_game())
    item = ob.add(ItemKind.JUDGE_PM, PrivateMessage([UIDS["汤圆"], UIDS["油条"]]), "今晚 17:00 前提交行动。")
    ob.approve(item, by="法官大人")
    board.writer.frozen.add(UIDS["油条"])  # the account is frozen for now
    ob.send()
    got = ob.get(item)
    assert got.status == FAILED and got.delivered.keys() == {UIDS["汤圆"]}
    assert got.board_message == "抱歉，用户不存在或被冻结，请检查用户uid是否正确"
    board.writer.frozen.discard(UIDS["油条"])
    ob.approve(item, by="法官大人")
    ob.send()
    got = ob.get(item)
    assert got.status == SENT and got.delivered.keys() == {UIDS["汤圆"], UIDS["油条"]}
    assert [m.to_uid for m in board.writer.pms] == [UIDS["汤圆"], UIDS["油条"]]
