"""The example board (playing the meishi example) takes the judge's writes and shows them on the next
page read."""

from __future__ import annotations

import tomllib
from dataclasses import replace

import requests

from forumbot.client import BoardClient
from forumbot.config import game_from_dict
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import Edit, ItemKind, Outbox, PrivateMessage, Reply
from forumbot.resources import data_dir
from forumbot.store.db import open_store

FOLDER = data_dir() / "examples" / "meishi"


def test_an_approved_outbox_reaches_the_demo_board_and_reads_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = tomllib.loads((FOLDER / "game.toml").read_text("utf-8"))
    with LiveBoard.example("meishi", now="s1") as board:
        data["board"]["url"] = board.url
        data["board"]["username"] = "法官大人"
        data["outbox"] = {"pm_interval": 0, "uids": {"法官大人": 14, "饺子": 2}}
        game = game_from_dict(data)
        game = replace(game, board=replace(game.board, password="demo"))
        with open_store(tmp_path / "demo.db") as store:
            client = BoardClient(game.board, session=requests.Session())
            ob = Outbox(store, game, client=client, by="demo-judge")
            count = ob.add(ItemKind.VOTE_COUNT, Reply(3), "【票数统计】[b]烧卖[/b] 3 票", day=1)
            notice = ob.add(
                ItemKind.PRIVATE_NOTICE, PrivateMessage(2), "饺子：你的身份是【平民】", player="饺子"
            )
            for i in (count, notice):
                ob.approve(i, by="demo-judge")
            report = ob.send()
            assert not report.stopped, report
            sent = ob.get(count)
            assert sent.status == "sent" and sent.result_pid is not None
            page = client.fetch_thread_page(3, 99)
            mine = [p for p in page.posts if p.pid == sent.result_pid]
            assert mine and mine[0].author == "法官大人" and mine[0].text.startswith("【票数统计】烧卖 3 票")
            assert ob.get(notice).delivered == {2: 1}
            # the running count: an edit of that floor, read back in place with the edit marker
            edit = ob.add(ItemKind.RUNNING_COUNT, Edit(3, sent.result_pid), "【票数统计】烧卖 4 票", day=1)
            ob.approve(edit, by="demo-judge")
            ob.send()
            assert ob.get(edit).status == "sent"
            again = next(p for p in client.fetch_thread_page(3, 99).posts if p.pid == sent.result_pid)
            assert again.text.endswith("烧卖 4 票") and again.edit is not None and again.edit.by == "法官大人"
            assert [m.text for m in ob.writer.read_pm_conversation(2)] == ["饺子：你的身份是【平民】"]
