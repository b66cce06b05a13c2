"""The public vote count of a day decided by a revote lists each revote post once, by the revote's verdict:
a revote vote that counted is not «posted after the close», and a post by a voter who was not called is
invalid with the revote's own reason."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from sqlmodel import select

from forumbot.commands.demo import run_demo
from forumbot.store.db import open_store
from forumbot.store.models import OutboxItemRow


def test_the_revote_posts_are_listed_by_the_revotes_verdict(tmp_path: Path) -> None:
    assert run_demo(tmp_path, Console(file=io.StringIO(), width=200)) == 0  # 【夜宵杀】: day 1 needs a revote
    store = open_store(str(tmp_path / "demo.db"))
    with store.session() as s:
        bodies = [r.body for r in s.exec(select(OutboxItemRow)) if r.kind == "vote_count"]
    store.close()
    day1 = next(b for b in bodies if "第1日投票统计" in b)
    assert "[b]麻花[/b]（6票）" in day1  # the first vote's 3 and the revote's 3, cumulative
    invalid = day1.split("[b]无效票[/b]", 1)[1].split("[b]麻花 被处决", 1)[0]
    assert "后发帖，无效" not in invalid  # no revote vote is called late
    assert "油条" in invalid and "不在第一次重投名单中" in invalid  # 油条 was not called to revote
    counted_in_revote = next(line for line in day1.split("\n") if line.startswith("[b]麻花[/b]（6票）"))
    for pid in (71, 73, 74):  # 包子, 月饼, 煎饼 revoted 麻花: counted there, not listed as invalid
        assert f"pid={pid}]" in counted_in_revote and f"pid={pid}]" not in invalid
