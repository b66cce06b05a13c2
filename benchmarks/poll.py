"""How many requests a poll costs, against a mocked board, beside a naive re-fetch of every page.

Why: politeness is the point of forumbot/poll.py (boards answer no conditional GET and lock out
clients that hammer them). Targets: an idle poll of K watched threads costs 1 request (the forum
list); a poll after M new posts in one thread costs at most 2 + ceil(M / ppp).

Run: ``.venv/bin/python benchmarks/poll.py [--threads K] [--posts N]``. No network, no real sleeps:
the board is tests/client/pagebuilder.FakeBoard behind ``responses``; the store is in-memory SQLite.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import responses

ROOT_DIR = Path(__file__).resolve().parents[1]
if str(ROOT_DIR) not in sys.path:
    sys.path.insert(0, str(ROOT_DIR))

from forumbot.board import BoardConfig  # noqa: E402
from forumbot.client import BoardClient  # noqa: E402
from forumbot.poll import PollReport, poll  # noqa: E402
from forumbot.store import Store, open_store  # noqa: E402
from tests.client.pagebuilder import ROOT, FakeBoard  # noqa: E402

UA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36 forum-judge-benchmark/0.1"


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def monotonic(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


def _poll(
    client: BoardClient, store: Store, tids: list[int], *, full: bool = False
) -> tuple[PollReport, float]:
    t0 = time.perf_counter()
    report = poll(client, store, client.config, tids, full=full, progress=False)
    return report, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=5, help="K watched threads")
    ap.add_argument("--posts", type=int, default=57, help="posts per thread before the polls")
    args = ap.parse_args(argv)

    board = FakeBoard()
    tids = list(range(2, 2 + args.threads))
    for tid in tids:
        board.add_thread(tid, args.posts)
    clock = _Clock()
    cfg = BoardConfig(url=ROOT, fid=3, user_agent=UA, min_interval=2.0)
    rows: list[tuple[str, int, int, str, float]] = []
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps, open_store(":memory:") as store:
        board.install(rsps)
        client = BoardClient(cfg, sleep=clock.sleep, clock=clock.monotonic)

        def naive() -> int:
            return sum(board.pages(t) for t in tids)

        first, secs = _poll(client, store, tids)
        rows.append(("first poll (nothing stored)", first.requests, naive(), f"1 + {naive()} pages", secs))
        idle, secs = _poll(client, store, tids)
        rows.append((f"idle poll, K={len(tids)} threads", idle.requests, naive(), "1", secs))
        assert idle.requests == 1, idle
        for m in (1, 5, 10, 25, 60):
            for i in range(m):
                board.reply(tids[0], "包子", f"新回复 {m}-{i}")
            rep, secs = _poll(client, store, tids)
            target = 2 + math.ceil(m / board.ppp)
            assert rep.new_posts == m and rep.requests <= target, (m, rep)
            rows.append((f"after M={m} new posts in one thread", rep.requests, naive(), f"<= {target}", secs))
        for tid in tids[:2]:
            board.reply(tid, "饺子", "two threads")
        rep, secs = _poll(client, store, tids)
        rows.append(("1 new post in each of 2 threads", rep.requests, naive(), "<= 1 + 2*2", secs))
        full, secs = _poll(client, store, tids, full=True)
        rows.append(("full poll (edits, deletions)", full.requests, naive(), f"{naive()} pages", secs))

    print(f"mocked board: {len(tids)} watched threads, {args.posts}+ posts each, {board.ppp} posts a page")
    print(f"{'poll':<38} {'requests':>8} {'naive':>6}  {'target':<14} {'time':>7}")
    for name, req, nav, target, secs in rows:
        print(f"{name:<38} {req:>8} {nav:>6}  {target:<14} {secs * 1000:>5.0f}ms")
    print(f"(simulated politeness waits: {clock.t:.0f} s at min_interval={cfg.min_interval:g} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
