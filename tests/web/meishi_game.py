"""The web desk's tests look at 【美食杀】 (data/examples/meishi) played to the middle of night 3: two nights,
two days, a revote-free game with an edited vote, a deleted post and outbox items. ``forumbot demo`` plays
another game (the whole 夜宵杀 through the runner), so the desk's fixture plays this one itself, the way the
demo used to."""

from __future__ import annotations

import tomllib
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table

from forumbot.client import BoardClient
from forumbot.commands.day import verdict_rows
from forumbot.commands.outbox import demo_outbox
from forumbot.config import Game, game_from_dict, parse_local_time
from forumbot.desk import Desk, case_post_draft, read_submissions, vote_count_draft
from forumbot.exampleboard.server import LiveBoard
from forumbot.poll import poll
from forumbot.resources import data_dir
from forumbot.store.db import open_store
from forumbot.store.posts import get_post
from forumbot.store.threads import list_threads

EXAMPLE = "meishi"


def play_meishi(workdir: Path, out: Console) -> int:
    """The meishi example (R001, two nights and two days) played through the real client, store and desk
    on the example board (its scenario, moved from snapshot to snapshot), its drafts
    sent through the outbox: the state the web desk's tests look at."""
    folder = data_dir() / "examples" / EXAMPLE
    data = tomllib.loads((folder / "game.toml").read_text("utf-8"))
    with LiveBoard.example(EXAMPLE, now="s1") as board:
        data["board"]["url"] = board.url
        data["game"]["store"] = str(workdir / "demo.db")
        game = game_from_dict(data)
        out.rule(f"[b]forumbot demo — 【{game.name}】 ({game.ruleset}, {len(game.roster)} players)")
        out.print(f"example board: {board.url}   store: {game.store_url} (SQLite)")
        store = open_store(game.store_url)
        with store:
            desk = Desk(game, store, by="demo-judge")

            # 1. the secret draw, as the judges made it
            roles = tomllib.loads((folder / "roles.toml").read_text("utf-8"))["roles"]
            desk.setup(roles=roles)
            out.print(f"\n[b]1. Setup[/b]: roles stored as secrets for {len(roles)} players (judges only).")

            # 2. night 1
            subs = read_submissions(folder / "night1.toml")
            desk.night_entries(1, subs)
            res = desk.night_resolve(1)
            out.print(
                f"\n[b]2. Night 1[/b]: {len(subs)} submissions → out: {'、'.join(res.out) or '(nobody)'}"
            )
            for e in res.events:
                if not e.public:
                    out.print(f"   → {e.audience}: {e.text}")
            out.print("\n[b]Case post draft[/b] (public):\n")
            out.print(case_post_draft(desk, 1, res.events), markup=False)

            # 3. poll the board mid-day
            client = BoardClient(game.board)
            board.use("s1")
            report = poll(client, store, game.board, game.watched_tids(), progress=False)
            out.print(f"\n[b]3. Poll at 11:00[/b]: {report.summary()}")
            for t in list_threads(store, game.board):
                out.print(f"   thread {t.tid} 《{t.title}》: {t.pages} page(s), {t.replies} replies")
            mid = desk.tally(1, as_of=parse_local_time("2026-06-04 11:00", game.tz, "as_of"))
            out.print(
                "   running count at 11:00: "
                + ", ".join(f"{line.target} {line.count}" for line in mid.result.final_tally)
            )

            # 4. after the close: everything again (edits and deletions happen on any page)
            board.use("s2")
            report = poll(client, store, game.board, game.watched_tids(), full=True, progress=False)
            out.print(f"\n[b]4. Full poll at 13:30[/b]: {report.summary()}")
            for ch in report.state_changes:
                out.print(f"   pid {ch.pid}: {ch.old} → {ch.new} ({ch.note}); its content stays in the store")
            for pid in report.revised_pids:
                post = get_post(store, game.board, pid)
                if post is None:
                    continue
                out.print(f"   pid {pid} by {post.author} was edited; every revision is kept:")
                for rev in post.revisions:
                    out.print(f"     r{rev.number} first seen {_local(rev.first_seen, game)}: {rev.text!r}")

            # 5. judge the day
            judged = desk.tally(1)
            out.print("\n[b]5. Day 1 verdicts[/b] (every post of the vote thread):")
            table = Table("floor", "author", "time", "verdict", "target", "reason")
            for row in verdict_rows(judged, game):
                table.add_row(
                    str(row["floor"] or "-"),
                    row["author"],
                    row["at"][5:16].replace("T", " "),
                    row["status"] + (" ⚑" if row["needs_review"] else ""),
                    ("弃权" if row["abstain"] else row["target"]) or "",
                    row["reason"],
                )
            out.print(table)
            att = judged.attendance
            if att is not None:
                out.print(
                    "   valid discussion posts: "
                    + ", ".join(
                        f"{name} {n}" for name, n in att.counts.items() if name in judged.result.input.alive
                    )
                )
            out.print("\n[b]6. Vote count draft[/b] (BBCode, to paste in the vote thread):\n")
            out.print(vote_count_draft(desk, judged), markup=False)
            closed = desk.close_day(1)
            out.print(f"[b]7. Day 1 closed[/b]: out {'、'.join(closed.out) or '(nobody)'}.")

            # 8. night 2 and day 2: the ghost possesses, attendance and strikes carry over, two drown
            desk.night_entries(2, read_submissions(folder / "night2.toml"))
            res = desk.night_resolve(2)
            out.print(f"\n[b]8. Night 2[/b] → out: {'、'.join(res.out) or '(nobody)'}")
            for e in res.events:
                if not e.public:
                    out.print(f"   → {e.audience}: {e.text}")
            board.use("s3")
            report = poll(client, store, game.board, game.watched_tids(), full=True, progress=False)
            out.print(f"   full poll at 6/5 13:30: {report.summary()}")
            judged = desk.tally(2)
            out.print("\n[b]9. Day 2 vote count draft[/b]:\n")
            day2_count = vote_count_draft(desk, judged)
            out.print(day2_count, markup=False)
            closed = desk.close_day(2)
            st = desk.require_state()
            out.print(
                f"[b]10. Day 2 closed[/b]: out {'、'.join(closed.out)}; "
                f"{len(st.living())} players alive; next: night {st.round}."
            )
            # 11. the outbox: the vote count and night 2's private notices, approved and sent once
            out.print("\n[b]11. Outbox[/b]: approved drafts sent to the example board, then read back")
            private = [(e.audience.name or "", e.text) for e in res.events if e.audience.kind == "player"]
            demo_outbox(
                out,
                game,
                store,
                public=[("vote_count", game.day(2).vote_tid or 0, day2_count)],
                private=private,
            )
            out.print(f"\nboard requests made: {len(board.requests)}; the store is at {game.store_url}")
    return 0


def _local(t: datetime, game: Game) -> str:
    return t.astimezone(game.tz).strftime("%m-%d %H:%M")
