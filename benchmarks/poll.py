"""How many requests a poll costs, counted by a real HTTP server on the loopback, not by the client.

Why at a server: a request the HTTP library makes on its own (a redirect it follows) is invisible to a
count kept inside the client, and so is the politeness wait it skipped. Here every request that reaches
the board is counted by the board, beside what forumbot reported (``PollReport.requests``), what it wrote
to its fetch log, and how many politeness waits it made.

Two boards serve the same threads (the example board of tests/boards.small_board behind ``http.server``
on 127.0.0.1): a plain one, and one that answers each page first with a 302 to the same page (as boards
behind a rewriting proxy do), so every page costs two requests, and each must wait its turn.

Run: ``.venv/bin/python benchmarks/poll.py [--threads K] [--posts N] [--rounds R] [--before REV] [--wheel]
[--no-callgrind] [--no-bytecode-cache]`` (``--wheel``: the wheel of this tree, pip-installed into a folder
of its own, polls too; hatchling must be importable). Real HTTP, no real sleeps: the client's waits
are counted on a simulated clock (min_interval 2 s). Targets: an idle poll of K watched threads costs
1 request (the forum list); a poll after M new posts in one thread at most 2 + ceil(M/ppp) pages; and on
every board: server count == reported == fetch-log entries, waits == requests - 1.

Then what the judge runs: ``forumbot poll`` itself, in a child process, with a game file and an SQLite
store, on the plain board over loopback HTTP, when nothing is new. Target (issue 12): ≤ 0.3 s CPU
(user+sys of the child; the board is served by this process, not counted). Each round runs
``python -c "import requests"`` (the reference any board client pays) and the idle poll in turn
(``--before main``: that revision's idle poll too, on a store of its own), and the board counts the
requests of each poll. With valgrind installed, one run of each under callgrind gives instructions.
Bytecode as benchmarks/children.py says (compiled once, as installed).
"""

from __future__ import annotations

import argparse
import math
import statistics
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

from benchmarks.children import Children, cpu_of, have_callgrind, instructions_of, python  # noqa: E402
from forumbot.board import BoardConfig  # noqa: E402
from forumbot.client import BoardClient  # noqa: E402
from forumbot.exampleboard.server import LiveBoard  # noqa: E402
from forumbot.poll import PollReport, poll  # noqa: E402
from forumbot.store import Store, open_store  # noqa: E402
from forumbot.store.health import table_counts  # noqa: E402
from tests.boards import small_board  # noqa: E402

UA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36 forum-judge-benchmark/0.1"
MIN_INTERVAL = 2.0
IDLE_TARGET = 0.3  # CPU seconds of an idle `forumbot poll` (issue 12)
IDLE_RATIO = 1.5  # ... and / import requests, installed or from the checkout (issue 21)


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


class LoopbackBoard:
    """The example board served over real HTTP/1.1; counts every request it receives."""

    def __init__(self, *, redirect_each_page: bool) -> None:
        self.redirect_each_page = redirect_each_page
        self.hits = 0
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.root = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.board = small_board()

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
                status, headers, body = outer.board.handle("GET", self.path, dict(self.headers.items()), b"")
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


def pages_of(board: LiveBoard, tid: int) -> int:
    """How many pages thread ``tid`` has now."""
    return max(1, math.ceil(len(board.posts_of(tid)) / board.scenario.ppp))


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
        pages = sum(pages_of(lb.board, t) for t in tids)
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
            row.target = f"<= {2 + math.ceil(m / lb.board.scenario.ppp)} pages"
            assert rep.new_posts == m, rep.errors
            rows.append(row)
        _, row = _measure(lb, client, clock, store, tids, "full poll (edits, deletions)", full=True)
        row.target = f"{sum(pages_of(lb.board, t) for t in tids)} pages"
        rows.append(row)
    return rows


def game_file(folder: Path, root: str, tids: list[int]) -> Path:
    """A game file watching ``tids`` (a day's discussion and vote threads; an odd one out is the last
    day's process thread) with a store beside it. Needs two threads or more."""
    days = []
    for i in range(0, len(tids) - 1, 2):
        days.append(f"[[days]]\nday = {i // 2 + 1}\ndiscussion = {tids[i]}\nvote = {tids[i + 1]}\n")
    if len(tids) % 2:
        days[-1] += f"process = {tids[-1]}\n"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "forumbot.toml"
    path.write_text(
        '[game]\nname = "基准局"\nruleset = "R001"\njudges = ["法官"]\nstore = "game.db"\n\n'
        f'[board]\nurl = "{root}"\nfid = 3\nmin_interval = 0\nuser_agent = "{UA}"\n\n'
        '[players]\nroster = ["甲", "乙", "丙"]\n\n[timetable]\nfirst_night = "2026-06-03"\n\n'
        + "\n".join(days),
        "utf-8",
    )
    return path


def idle_cpu(args: argparse.Namespace) -> bool:
    """The idle ``forumbot poll`` in child processes; True when within the target."""
    children = Children(bytecode_cache=not args.no_bytecode_cache)
    lb = LoopbackBoard(redirect_each_page=False)
    tids = list(range(2, 2 + args.threads))
    for tid in tids:
        lb.board.add_thread(tid, args.posts)
    try:
        codes: dict[str, Path | None] = {"forumbot poll (idle)": None}
        if args.before:
            codes[f"forumbot poll (idle, {args.before})"] = children.export(args.before)
        if args.wheel:  # issue 21: what an installed forumbot pays, beside the checkout
            codes["forumbot poll (idle, wheel)"] = children.install_wheel(children.checkout(), "this")
            if args.before:
                before_wheel = children.install_wheel(children.export(args.before), "before")
                codes[f"forumbot poll (idle, {args.before} wheel)"] = before_wheel
        with lb.running():
            folders = {name: children.tmp / f"game{i}" for i, name in enumerate(codes)}
            for name, folder in folders.items():
                game_file(folder, lb.root, tids)
                cpu_of(python("-m", "forumbot", "poll"), children.env(codes[name]), folder)  # first read
                cpu_of(python("-m", "forumbot", "poll"), children.env(codes[name]), folder)  # warm-up
            ref_cmd = python("-c", "import requests")
            cpu_of(ref_cmd, children.env(), children.tmp)
            times: dict[str, list[float]] = {'python -c "import requests"': [], **{n: [] for n in codes}}
            hits: dict[str, list[int]] = {n: [] for n in codes}
            for _ in range(args.rounds):
                times['python -c "import requests"'].append(cpu_of(ref_cmd, children.env(), children.tmp))
                for name, folder in folders.items():
                    before = lb.hits
                    times[name].append(
                        cpu_of(python("-m", "forumbot", "poll"), children.env(codes[name]), folder)
                    )
                    hits[name].append(lb.hits - before)
            counts: dict[str, int] = {}
            if not args.no_callgrind and have_callgrind():
                counts['python -c "import requests"'] = instructions_of(ref_cmd, children.env(), children.tmp)
                for name, folder in folders.items():
                    cmd = python("-m", "forumbot", "poll")
                    counts[name] = instructions_of(cmd, children.env(codes[name]), folder)
    finally:
        children.close()
    ref = times['python -c "import requests"']
    cache = "compiled once, reused" if children.bytecode_cache else "compiled on every start"
    print(
        f"\nforumbot poll with nothing new ({args.threads} watched threads, game file, SQLite store), "
        f"CPU seconds (user+sys), median of {args.rounds} interleaved rounds; bytecode {cache}"
    )
    for name, values in times.items():
        ratio = statistics.median(v / r for v, r in zip(values, ref, strict=True))
        seen = f"  requests at the board: {sorted(set(hits[name]))}" if name in hits else ""
        grind = f"  {counts[name] / 1e9:5.3f} G instructions" if name in counts else ""
        print(f"  {name:<36} {statistics.median(values):6.3f} s  {ratio:5.2f}x import requests{grind}{seen}")
    idle = statistics.median(times["forumbot poll (idle)"])
    ok = idle <= IDLE_TARGET and set(hits["forumbot poll (idle)"]) == {1}
    print(f"idle forumbot poll: {idle:.3f} s CPU — {'within' if ok else 'OVER'} the {IDLE_TARGET:g} s target")
    for name in (n for n in times if n.startswith("forumbot poll (idle")):
        ratio = statistics.median(v / r for v, r in zip(times[name], ref, strict=True))
        within = ratio <= IDLE_RATIO
        ok &= within or name != "forumbot poll (idle, wheel)"  # the fixed code's wheel must be within
        verdict = "within" if within else "OVER"
        print(f"{name}: {ratio:.2f}x import requests — {verdict} the {IDLE_RATIO:g}x target (issue 21)")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--threads", type=int, default=5, help="K watched threads (2 or more)")
    ap.add_argument("--posts", type=int, default=57, help="posts per thread before the polls")
    ap.add_argument("--rounds", type=int, default=9, help="interleaved rounds of the idle poll's CPU")
    ap.add_argument("--before", metavar="REV", help="also measure this git revision's idle poll (e.g. main)")
    ap.add_argument("--wheel", action="store_true", help="also the idle poll of the installed wheel")
    ap.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts")
    ap.add_argument("--no-bytecode-cache", action="store_true", help="compile forumbot on every start")
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
    failures += not idle_cpu(args)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
