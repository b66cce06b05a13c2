"""The store's write and read paths, old against new, on SQLite and PostgreSQL (issue 12, points 2 and 4).

    .venv/bin/python benchmarks/store.py [--posts 2000] [--rounds 3] [--sizes 2000,20000,100000]
                                         [--first-read-sizes 3000,100000] [--skip-first-read]
                                         [--skip-writes] [--skip-reads] [--pg URL | --no-pg]

Writes: the same thread (10 posts per page, as a board serves it) is stored page by page into a fresh
store by the ORM writer as it was before issue 12 (tests/store/orm_writer.py) and by the batched
writer (forumbot/store/pagewrite.py, what ``record_thread_page`` calls now), then every page is
stored again unchanged (a re-read). Rounds alternate old/new so a busy machine disturbs both alike.
Prints posts per CPU-second of this process (the best round), the ratio, SQL statements per page
and the targets: >= 3,000 new posts per CPU-second into SQLite, >= 1,500 into PostgreSQL.

Beside them the bare driver's floor (issue 21): the same posts and revisions written by sqlite3 or
psycopg alone into the same schema, one transaction per page; targets: forumbot <= 3x its CPU per post
on SQLite, <= 1.5x on PostgreSQL.

A first read (issue 21): a whole thread of 3k and of 100k posts stored page by page as a poll stores
it; the CPU per post must not grow with the thread (<= 1.15x). 300k posts show it best but take minutes
of CPU and a few hundred MiB on a shared machine: ``--first-read-sizes 3000,300000``.

Reads: a thread of 2k / 20k / 100k posts (1% edited) is loaded through ``thread_posts`` (old)
and ``readpath.read_thread`` (new), each in a fresh subprocess so its figures are its own: CPU
seconds of the load, peak RSS of the whole process, and the load's own peak Python allocation
(tracemalloc, in a second subprocess, since tracing slows the code). The whole-``tally`` targets at
100k posts per thread (<= 5 s CPU, <= 250 MiB) are printed beside them: the load is the part of
tally this measures (the desk is measured by benchmarks/tally.py).

PostgreSQL: --pg URL, else FORUMBOT_TEST_DATABASE_URL, else postgresql+psycopg://root@127.0.0.1:5432/test;
skipped (and said so) when unreachable. Each store is a schema of its own, dropped at the end.
CPU time is this process's (the client's); PostgreSQL's server CPU is not in it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, event, text  # noqa: E402

from forumbot.parsers.records import (  # noqa: E402
    EditMarker,
    Post,
    QuoteRef,
    Source,
    ThreadInfo,
    ThreadPage,
    TimeSource,
)
from forumbot.store import Store, open_store, pagewrite, readpath  # noqa: E402
from forumbot.store.posts import post_hash, thread_posts  # noqa: E402
from tests.store.orm_writer import record_thread_page_orm  # noqa: E402

BOARD = "http://bbs.example.com/"
TID = 3
T0 = datetime(2026, 6, 10, 5, 0, tzinfo=UTC)
DEFAULT_PG = "postgresql+psycopg://root@127.0.0.1:5432/test"
TARGET_WRITE = {"sqlite": 3000.0, "postgresql": 1500.0}
TARGET_FLOOR = {
    "sqlite": 3.0,
    "postgresql": 1.5,
}  # forumbot's CPU per new post / the bare driver's (issue 21)
TARGET_TALLY_CPU = 5.0
TARGET_TALLY_MIB = 250.0
Writer = Callable[..., Any]

# --------------------------------------------------------------------------- the thread


def make_posts(n: int, seed: int = 7) -> list[Post]:
    """A busy vote thread: votes, changes, chat, quotes, a few edit markers, 35 players."""
    rng = random.Random(seed)
    players = [f"玩家{i:02d}" for i in range(35)]
    chatter = [
        "顶",
        "+1",
        "我是好人",
        "投票截止前还能改吗？",
        "看了一圈讨论帖，说一下我的想法：大家冷静，别乱投",
    ]
    posts = []
    for pid in range(1, n + 1):
        author = rng.choice(players)
        at = T0 + timedelta(seconds=pid * 7)
        roll = rng.random()
        quotes: tuple[QuoteRef, ...] = ()
        if roll < 0.3:
            body = f"投票：{rng.choice(players)}（理由见讨论帖）"
        elif roll < 0.4 and pid > 1:
            quotes = (QuoteRef(pid - 1, rng.choice(players), "投票：饺子"),)
            body = f"改票：{rng.choice(players)}"
        else:
            body = rng.choice(chatter)
        edit = (
            EditMarker(author, at + timedelta(minutes=3), f"本帖最后由 {author} 于 … 编辑")
            if roll > 0.98
            else None
        )
        posts.append(
            Post(
                pid=pid,
                tid=TID,
                author=author,
                uid=1000 + players.index(author),
                floor=pid,
                posted_at=at,
                posted_until=at,
                time_source=TimeSource.TEXT,
                text=body,
                html=f'<div class="t_f" id="postmessage_{pid}">{body}<br /></div>',
                quotes=quotes,
                edit=edit,
                first=pid == 1,
            )
        )
    return posts


def pages_of(posts: list[Post], ppp: int) -> list[ThreadPage]:
    total = (len(posts) + ppp - 1) // ppp
    return [
        ThreadPage(
            ThreadInfo(TID, 3, "【美食杀】第一日投票帖", k + 1, total),
            tuple(posts[k * ppp : (k + 1) * ppp]),
            Source.PC,
        )
        for k in range(total)
    ]


# --------------------------------------------------------------------------- stores


class Backends:
    """Fresh stores on SQLite files and (when reachable) PostgreSQL schemas; all removed at the end."""

    def __init__(self, pg_url: str | None) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="fb-bench-")
        self.pg_url = pg_url
        self.schemas: list[str] = []
        self.pg_error = ""
        if pg_url:
            try:
                eng = create_engine(pg_url, connect_args={"connect_timeout": 5})
                with eng.connect() as conn:
                    conn.execute(text("select 1"))
                eng.dispose()
            except Exception as exc:  # any failure means: skip PostgreSQL, and say why
                self.pg_error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
                self.pg_url = None

    def names(self) -> list[str]:
        return ["sqlite", "postgresql"] if self.pg_url else ["sqlite"]

    def new(self, backend: str) -> tuple[Store, dict[str, Any]]:
        """A fresh store, and how a subprocess opens it again."""
        if backend == "sqlite":
            path = Path(self.tmp.name) / f"{uuid.uuid4().hex[:8]}.db"
            return open_store(path), {"url": str(path)}
        assert self.pg_url is not None
        schema = f"fbbench_{uuid.uuid4().hex[:10]}"
        eng = create_engine(self.pg_url)
        with eng.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        eng.dispose()
        self.schemas.append(schema)
        opts = {"options": f"-csearch_path={schema}"}
        return open_store(self.pg_url, connect_args=opts), {"url": self.pg_url, "connect_args": opts}

    def close(self) -> None:
        if self.pg_url and self.schemas:
            eng = create_engine(self.pg_url)
            with eng.begin() as conn:
                for schema in self.schemas:
                    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            eng.dispose()
        self.tmp.cleanup()


@contextmanager
def counting(store: Store) -> Iterator[list[str]]:
    seen: list[str] = []

    def listener(*args: Any) -> None:
        seen.append(args[2])

    event.listen(store.engine, "before_cursor_execute", listener)
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", listener)


def statements(seen: list[str]) -> int:
    """SQL statements sent (an executemany counts once). Transaction control does not count: SQLite's
    BEGIN (IMMEDIATE for a file) goes through the listener, psycopg's BEGIN and either's COMMIT do not;
    nor does a pool's ping, which is no cursor's statement."""
    control = ("BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")
    return sum(1 for s in seen if s.strip().upper() not in control)


def write_all(store: Store, writer: Writer, pages: list[ThreadPage], at: datetime) -> float:
    """CPU seconds to store every page (one call per page, as a poll does)."""
    start = time.process_time()
    for i, tp in enumerate(pages):
        writer(store, BOARD, tp, seen_at=at + timedelta(milliseconds=i), ppp=10)
    return time.process_time() - start


# --------------------------------------------------------------------------- the bare driver's floor


def _floor_rows(
    pages: list[ThreadPage], at: datetime, when: Callable[[datetime], Any]
) -> Iterator[tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[int, int]]]]:
    """Per page: the posts' rows, their first revisions' rows and (post id, revision id) pairs, ids
    given (a fresh store: both count from 1), every value as the driver takes it."""
    post_id = rev_id = 0
    for i, tp in enumerate(pages):
        seen = when(at + timedelta(milliseconds=i))
        posts, revs, links = [], [], []
        for p in tp.posts:
            post_id += 1
            rev_id += 1
            posts.append(
                (post_id, 1, 1, p.pid, p.tid or TID, p.floor, tp.thread.page, p.author, p.uid,
                 when(p.posted_at), when(p.posted_until), str(p.time_source), p.first, str(p.state),
                 1, p.edit.by if p.edit else None, when(p.edit.at) if p.edit else None, seen, seen,
                 str(tp.source))
            )  # fmt: skip
            revs.append(
                (rev_id, post_id, 1, post_hash(p), p.text, p.html,
                 json.dumps([{"pid": q.pid, "author": q.author, "text": q.text} for q in p.quotes]),
                 json.dumps(list(p.quoted_pids)), json.dumps(list(p.mentions)), p.title, str(p.state),
                 p.edit.by if p.edit else None, when(p.edit.at) if p.edit else None,
                 p.edit.raw if p.edit else "", str(tp.source), seen, seen, 1)
            )  # fmt: skip
            links.append((rev_id, post_id))
        yield posts, revs, links


_FLOOR_POSTS = (
    "INSERT INTO posts (id, board_id, thread_id, pid, tid, floor, page, author, uid, posted_at, "
    "posted_until, time_source, first, state, revision_count, edit_by, edit_at, first_seen_at, "
    "last_seen_at, last_source) VALUES ({})"
)
_FLOOR_REVS = (
    "INSERT INTO post_revisions (id, post_id, number, content_hash, text, html, quotes, quoted_pids, "
    "mentions, title, state, edit_by, edit_at, edit_raw, source, first_seen_at, last_seen_at, "
    "seen_count) VALUES ({})"
)


def floor_write(backend: str, spec: dict[str, Any], pages: list[ThreadPage], at: datetime) -> float:
    """CPU seconds for the bare DB-API driver to store the same new posts and revisions into a fresh
    store of forumbot's schema, one transaction per page as forumbot does (the board and thread rows
    made first, not timed): the floor that forumbot's own writer is measured against (issue 21)."""
    if backend == "sqlite":
        import sqlite3

        db: Any = sqlite3.connect(spec["url"], isolation_level=None)
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA journal_mode=WAL")
        mark, begin = "?", "BEGIN IMMEDIATE"

        def when(v: datetime) -> Any:
            return v.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")

    else:
        import psycopg

        url = spec["url"].replace("postgresql+psycopg://", "postgresql://")
        db = psycopg.connect(url, autocommit=True, **spec.get("connect_args", {}))
        mark, begin = "%s", "BEGIN"

        def when(v: datetime) -> Any:
            return v.astimezone(UTC).replace(tzinfo=None)

    posts_sql = _FLOOR_POSTS.format(", ".join([mark] * 20))
    revs_sql = _FLOOR_REVS.format(", ".join([mark] * 18))
    link_sql = f"UPDATE posts SET current_revision_id = {mark} WHERE id = {mark}"
    cur = db.cursor()
    cur.execute(
        "INSERT INTO boards (id, url, name, created_at) VALUES (1, 'b', '', " + f"{mark})", (when(at),)
    )
    cur.execute(
        f"INSERT INTO threads (id, board_id, tid, title, first_seen_at) VALUES (1, 1, {TID}, '', {mark})",
        (when(at),),
    )
    start = time.process_time()
    for posts, revs, links in _floor_rows(pages, at, when):
        cur.execute(begin)
        cur.executemany(posts_sql, posts)
        cur.executemany(revs_sql, revs)
        cur.executemany(link_sql, links)
        cur.execute("COMMIT")
    spent = time.process_time() - start
    db.close()
    return spent


# --------------------------------------------------------------------------- writes


def bench_writes(backends: Backends, n_posts: int, rounds: int) -> list[str]:
    pages = pages_of(make_posts(n_posts), 10)
    writers: dict[str, Writer] = {"old": record_thread_page_orm, "new": pagewrite.record_page}
    lines = [f"\n== writes: {n_posts} posts, {len(pages)} pages of 10; best of {rounds} interleaved rounds"]
    for backend in backends.names():
        best: dict[tuple[str, str], float] = {}
        stmts: dict[tuple[str, str], float] = {}
        for r in range(rounds):
            order = ["old", "new", "floor"] if r % 2 == 0 else ["floor", "new", "old"]
            for name in order:
                if name == "floor":
                    _store, spec = backends.new(backend)
                    _store.close()
                    cpu = floor_write(backend, spec, pages, T0 + timedelta(days=1))
                    best[("floor", "new")] = min(best.get(("floor", "new"), float("inf")), cpu)
                    continue
                store, _ = backends.new(backend)
                try:
                    fresh = write_all(store, writers[name], pages, T0 + timedelta(days=1))
                    again = write_all(store, writers[name], pages, T0 + timedelta(days=2))
                    with counting(store) as seen:
                        writers[name](store, BOARD, pages[0], seen_at=T0 + timedelta(days=3), ppp=10)
                    stmts[(name, "reread")] = statements(seen)
                    tp = pages_of(make_posts(n_posts + 10), 10)[-1]
                    with counting(store) as seen:
                        writers[name](store, BOARD, tp, seen_at=T0 + timedelta(days=3), ppp=10)
                    stmts[(name, "new")] = statements(seen)
                finally:
                    store.close()
                for kind, cpu in (("new", fresh), ("reread", again)):
                    best[(name, kind)] = min(best.get((name, kind), float("inf")), cpu)
        lines.append(f"-- {backend}")
        for kind, label in (("new", "new posts"), ("reread", "unchanged re-read")):
            old_rate = n_posts / best[("old", kind)]
            new_rate = n_posts / best[("new", kind)]
            lines.append(
                f"   {label:<18} old {old_rate:8.0f} posts/CPU-s ({stmts[('old', kind)]:.0f} statements/page)"
                f"   new {new_rate:8.0f} posts/CPU-s ({stmts[('new', kind)]:.0f} statements/page)"
                f"   new/old x{new_rate / old_rate:.2f}"
            )
        target = TARGET_WRITE[backend]
        got = n_posts / best[("new", "new")]
        verdict = "met" if got >= target else "MISSED"
        lines.append(
            f"   target: >= {target:.0f} new posts per CPU-second into {backend}: {got:.0f} ({verdict})"
        )
        floor = n_posts / best[("floor", "new")]
        times = best[("new", "new")] / best[("floor", "new")]
        limit = TARGET_FLOOR[backend]
        lines.append(
            f"   floor: the bare driver writes the same posts and revisions into the same schema at "
            f"{floor:.0f} posts/CPU-s; forumbot costs {times:.2f}x that "
            f"(target <= {limit:g}x: {'met' if times <= limit else 'MISSED'})"
        )
    lines.append("   (statements per page: a before_cursor_execute listener; an executemany counts once)")
    return lines


# --------------------------------------------------------------------------- a first read


def bench_first_read(backends: Backends, sizes: list[int]) -> list[str]:
    """CPU per post of storing a whole thread read for the first time, page after page, with the pids
    of the read so far passed on as ``forumbot.poll`` does: the same at every length, or a first read
    is quadratic (it was: the writer copied that set on every page, issue 21). SQLite only."""
    lines = [f"\n== a first read, {', '.join(f'{n:,}' for n in sizes)} posts, pages of 10 (SQLite)"]
    per_post: dict[int, float] = {}
    for n in sizes:
        pages = pages_of(make_posts(n), 10)
        store, _ = backends.new("sqlite")
        seen: set[int] = set()
        start = time.process_time()
        try:
            for i, tp in enumerate(pages):
                at = T0 + timedelta(milliseconds=i)
                pagewrite.record_page(store, BOARD, tp, seen_at=at, ppp=10, skip_pids=seen)
                seen.update(p.pid for p in tp.posts)
            per_post[n] = (time.process_time() - start) / n
        finally:
            store.close()
        lines.append(f"   {n:>9,} posts: {per_post[n] * 1000:.3f} ms CPU per post")
    small, large = per_post[min(sizes)], per_post[max(sizes)]
    verdict = "met" if large <= small * 1.15 else "MISSED"
    lines.append(
        f"   {max(sizes):,} / {min(sizes):,} posts: {large / small:.2f}x the CPU per post "
        f"(target <= 1.15x: {verdict})"
    )
    return lines


# --------------------------------------------------------------------------- reads


def peak_rss_mib() -> float:
    """This process's peak resident memory. VmHWM (Linux) is the process's own: ru_maxrss survives
    exec, so a child started by a big parent would report the parent's peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_read(spec: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: load the thread once through one path; CPU, RSS and (optionally) tracemalloc."""
    import tracemalloc

    store = open_store(spec["url"], create=False, connect_args=spec.get("connect_args"))
    rss0 = peak_rss_mib()
    if spec["trace"]:
        tracemalloc.start()
    start = time.process_time()
    error = ""
    try:
        if spec["path"] == "old":
            n = len(thread_posts(store, BOARD, TID))
        else:
            n = len(readpath.read_thread(store, BOARD, TID))
    except Exception as exc:  # the old path's parameter limit, say
        n, error = 0, f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    cpu = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1] if spec["trace"] else 0
    rss = peak_rss_mib()
    store.close()
    return {
        "n": n,
        "cpu": cpu,
        "rss_mib": rss,
        "rss0_mib": rss0,
        "traced_mib": peak / 2**20,
        "error": error,
    }


def run_child(spec: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(spec)], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        return {
            "n": 0,
            "cpu": 0.0,
            "rss_mib": 0.0,
            "rss0_mib": 0.0,
            "traced_mib": 0.0,
            "error": out.stderr[-300:],
        }
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def build_thread(store: Store, n: int) -> None:
    """``n`` posts stored by the batched writer in pages of 500; then 1% of them edited."""
    posts = make_posts(n, seed=n)
    for i, tp in enumerate(pages_of(posts, 500)):
        pagewrite.record_page(store, BOARD, tp, seen_at=T0 + timedelta(days=1, seconds=i))
    edited = [replace(p, text=p.text + "（已修改）") for p in posts[::100]]
    for i, tp in enumerate(pages_of(edited, 500)):
        pagewrite.record_page(store, BOARD, tp, seen_at=T0 + timedelta(days=2, seconds=i))


def bench_reads(backends: Backends, sizes: list[int], rounds: int) -> list[str]:
    lines = [f"\n== reads: one thread loaded in a fresh process; best of {rounds} interleaved rounds"]
    for backend in backends.names():
        lines.append(f"-- {backend}")
        for n in sizes:
            store, spec = backends.new(backend)
            start = time.perf_counter()
            build_thread(store, n)
            store.close()
            built = time.perf_counter() - start
            best: dict[str, dict[str, Any]] = {}
            for r in range(rounds):
                for path in ["old", "new"] if r % 2 == 0 else ["new", "old"]:
                    got = run_child({**spec, "path": path, "trace": False})
                    if path not in best or (not got["error"] and got["cpu"] < best[path]["cpu"]):
                        best[path] = got
            for path in ("old", "new"):
                best[path]["traced_mib"] = run_child({**spec, "path": path, "trace": True})["traced_mib"]
            o, w = best["old"], best["new"]

            def show(d: dict[str, Any]) -> str:
                if d["error"]:
                    return f"FAILS ({d['error']})"
                return (
                    f"{d['cpu']:6.2f} s CPU, peak RSS {d['rss_mib']:5.0f} MiB "
                    f"(+{d['rss_mib'] - d['rss0_mib']:.0f}), load allocates {d['traced_mib']:5.0f} MiB"
                )

            ratio = f"new/old CPU x{w['cpu'] / o['cpu']:.3f}" if not o["error"] and o["cpu"] else ""
            lines.append(f"   {n:>7} posts (built in {built:.0f} s)")
            lines.append(f"      old thread_posts   {show(o)}")
            lines.append(f"      new readpath.read_thread {show(w)}   {ratio}")
            if n >= 100_000 and not w["error"]:
                cpu_ok = "met" if w["cpu"] <= TARGET_TALLY_CPU else "MISSED"
                mib_ok = "met" if w["rss_mib"] <= TARGET_TALLY_MIB else "MISSED"
                lines.append(
                    f"      tally target at 100k (whole command, <= {TARGET_TALLY_CPU:.0f} s CPU, <= "
                    f"{TARGET_TALLY_MIB:.0f} MiB): the load alone takes {w['cpu']:.2f} s ({cpu_ok} for this "
                    f"part) and the process peaks at {w['rss_mib']:.0f} MiB ({mib_ok} for this part)"
                )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--posts", type=int, default=2000, help="posts written per round (default 2000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", default="2000,20000,100000", help="thread lengths for the reads")
    parser.add_argument("--read-rounds", type=int, default=2)
    parser.add_argument(
        "--first-read-sizes",
        default="3000,100000",
        help="thread lengths for the first read (300000 shows the issue-21 figure; minutes of CPU)",
    )
    parser.add_argument("--skip-first-read", action="store_true")
    parser.add_argument("--skip-writes", action="store_true")
    parser.add_argument("--skip-reads", action="store_true")
    parser.add_argument("--pg", default=os.environ.get("FORUMBOT_TEST_DATABASE_URL") or DEFAULT_PG)
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_read(json.loads(args.child))))
        return 0
    # A benchmark stopped with SIGTERM still drops its PostgreSQL schemas (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    backends = Backends(None if args.no_pg else args.pg)
    lines = [f"store benchmark, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"]
    if backends.pg_error:
        lines.append(f"PostgreSQL skipped: {backends.pg_error}")
    try:
        if not args.skip_writes:
            lines += bench_writes(backends, args.posts, args.rounds)
            print("\n".join(lines), flush=True)
            lines = []
        if not args.skip_first_read:
            lines += bench_first_read(backends, [int(n) for n in args.first_read_sizes.split(",")])
            print("\n".join(lines), flush=True)
            lines = []
        if not args.skip_reads:
            lines += bench_reads(backends, [int(s) for s in args.sizes.split(",")], args.read_rounds)
    finally:
        backends.close()
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
