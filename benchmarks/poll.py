"""How many requests a poll costs, counted by a real HTTP server on the loopback, not by the client.

Why at a server: a request the HTTP library makes on its own (a redirect it follows) is invisible to a
count kept inside the client, and so is the politeness wait it skipped. Here every request that reaches
the board is counted by the board, beside what forumbot reported (``PollReport.requests``), what it wrote
to its fetch log, and how many politeness waits it made.

Two boards serve the same threads (tests/client/pagebuilder.FakeBoard behind ``http.server`` on
127.0.0.1): a plain one, and one that answers each page first with a 302 to the same page (as boards
behind a rewriting proxy do), so every page costs two requests, and each must wait its turn.

Run: ``.venv/bin/python benchmarks/poll.py [--threads K] [--posts N]``. Real HTTP, no real sleeps: the
client's waits are counted on a simulated clock (min_interval 2 s). Targets: an idle poll of K watched
threads costs 1 request (the forum list); a poll after M new posts in one thread at most 2 + ceil(M/ppp)
pages; and on every board: server count == reported == fetch-log entries, waits == requests - 1.
"""

from __future__ import annotations

import argparse
import math
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT_DIR = Path(__file__).resolve().parents[1]
if str(ROOT_DIR) not in sys.path:
    sys.path.insert(0, str(ROOT_DIR))

from forumbot.board import BoardConfig  # noqa: E402
from forumbot.client import BoardClient  # noqa: E402
from forumbot.poll import PollReport, poll  # noqa: E402
from forumbot.store import Store, open_store  # noqa: E402
from forumbot.store.health import table_counts  # noqa: E402
from tests.client.pagebuilder import FakeBoard  # noqa: E402

UA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36 forum-judge-benchmark/0.1"
MIN_INTERVAL = 2.0


class _Clock:
    """Simulated time: the client's politeness waits are counted and added, never slept."""

    def __init__(self) -> None:
        self.t = 0.0
        self.waits = 0

    def monotonic(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.waits += 1
        self.t += seconds


@dataclass
class _Request:
    url: str


class LoopbackBoard:
    """A FakeBoard served over real HTTP; counts every request it receives."""

    def __init__(self, *, redirect_each_page: bool) -> None:
        self.redirect_each_page = redirect_each_page
        self.hits = 0
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.root = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.board = FakeBoard(root=self.root)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                with outer._lock:
                    outer.hits += 1
                if outer.redirect_each_page and "hop=1" not in self.path and "mod=" in self.path:
                    self.send_response(302)
                    self.send_header("Location", self.path + "&hop=1")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, headers, body = outer.board.respond(_Request(outer.root + self.path.lstrip("/")))
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler

    @contextmanager
    def running(self) -> Iterator[LoopbackBoard]:
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()


@dataclass
class Row:
    name: str
    server: int
    reported: int
    logged: int
    waits: int
    target: str


def _measure(
    board: LoopbackBoard,
    client: BoardClient,
    clock: _Clock,
    store: Store,
    tids: list[int],
    name: str,
    **kw: Any,
) -> tuple[PollReport, Row]:
    hits0, waits0, logged0 = board.hits, clock.waits, _logged(store)
    report = poll(client, store, client.config, tids, progress=False, **kw)
    logged = _logged(store) - logged0
    return report, Row(name, board.hits - hits0, report.requests, logged, clock.waits - waits0, "")


def _logged(store: Store) -> int:
    """Rows in the store's fetch log (what a judge sees of the exchanges)."""
    return table_counts(store)["fetch_log"]


def run_board(redirect: bool, threads: int, posts: int) -> list[Row]:
    lb = LoopbackBoard(redirect_each_page=redirect)
    tids = list(range(2, 2 + threads))
    for tid in tids:
        lb.board.add_thread(tid, posts)
    rows: list[Row] = []
    with lb.running(), open_store(":memory:") as store:
        clock = _Clock()
        cfg = BoardConfig(url=lb.root, fid=3, user_agent=UA, min_interval=MIN_INTERVAL)
        client = BoardClient(cfg, sleep=clock.sleep, clock=clock.monotonic)
        pages = sum(lb.board.pages(t) for t in tids)
        _, row = _measure(lb, client, clock, store, tids, "first poll (nothing stored)")
        row.target = f"1 + {pages} pages"
        rows.append(row)
        _, row = _measure(lb, client, clock, store, tids, f"idle poll, K={threads} threads")
        row.target = "1 page"
        rows.append(row)
        for m in (1, 10, 60):
            for i in range(m):
                lb.board.reply(tids[0], "包子", f"新回复 {m}-{i}")
            rep, row = _measure(lb, client, clock, store, tids, f"after M={m} new posts in one thread")
            row.target = f"<= {2 + math.ceil(m / lb.board.ppp)} pages"
            assert rep.new_posts == m, rep.errors
            rows.append(row)
        _, row = _measure(lb, client, clock, store, tids, "full poll (edits, deletions)", full=True)
        row.target = f"{sum(lb.board.pages(t) for t in tids)} pages"
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--threads", type=int, default=5, help="K watched threads")
    ap.add_argument("--posts", type=int, default=57, help="posts per thread before the polls")
    args = ap.parse_args(argv)
    failures = 0
    for redirect in (False, True):
        title = "board answering each page with a 302 first" if redirect else "plain board"
        print(f"{title}: {args.threads} threads, {args.posts}+ posts each, loopback HTTP")
        print(f"  {'poll':<36} {'server':>6} {'reported':>8} {'logged':>6} {'waits':>5}  target")
        for row in run_board(redirect, args.threads, args.posts):
            honest = row.server == row.reported == row.logged and row.waits >= row.server - 1
            failures += not honest
            print(
                f"  {row.name:<36} {row.server:>6} {row.reported:>8} {row.logged:>6} {row.waits:>5}  "
                f"{row.target}{'' if honest else '   <- the client did not count/wait every request'}"
            )
    print("server: requests the board received; reported: PollReport.requests; logged: fetch-log entries;")
    print(f"waits: politeness waits (min_interval {MIN_INTERVAL:g} s, simulated);")
    print("a page costs 2 requests on the 302 board, each counted, logged and waited for.")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
