"""How much does the web desk add on top of the judging it shows? Page time vs the same work bare.

Plays the example game into a temporary store, then times, side by side: judging day 1 and drafting its
vote count (what ``forumbot tally`` does) against serving the day page (the same work plus attendance,
the timeline and the HTML), and each other page. Prints milliseconds and the ratio page/bare.

    .venv/bin/python benchmarks/desk.py [--repeat 10]
"""

from __future__ import annotations

import argparse
import io
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console

from forumbot.commands.demo import run_demo
from forumbot.desk import Desk, vote_count_draft
from forumbot.store import judges
from forumbot.store.db import open_store
from forumbot.web import data
from forumbot.web.app import create_app


def timed(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t)
    return statistics.median(runs) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_demo(Path(tmp), Console(file=io.StringIO()))
        with open_store(Path(tmp) / "demo.db") as store:
            game = data.example_game(store.url, data.board_of(store))
            judges.add_judge(store, "bench", "bench-password")
            client = create_app(game, store, secret="bench").test_client()
            token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").get_data(as_text=True))
            assert token
            client.post(
                "/login", data={"name": "bench", "password": "bench-password", "csrf": token.group(1)}
            )

            def bare() -> None:
                desk = Desk(game, store, by="bench")
                vote_count_draft(desk, desk.tally(1))

            base = timed(bare, args.repeat)
            print(f"judge day 1 + vote count draft (bare): {base:7.1f} ms")
            for url in ("/day/1", "/", "/night/2", "/post/14", "/outbox", "/history"):
                ms = timed(lambda url=url: client.get(url), args.repeat)
                print(f"page {url:10s}                        {ms:7.1f} ms   {ms / base:5.1f}× bare")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
