"""What does the judge's ``forumbot tally`` cost at 2k, 20k and 100k posts per thread? (issue 12, 2, 3, 7)

    .venv/bin/python benchmarks/tally.py [--sizes 2000,20000,100000] [--ratio-sizes 2000,20000]
                                         [--days 10] [--rounds 3] [--pg URL | --no-pg]

The real command, not the engine alone: for each size a game file and a populated store are made (35
players, R001; every day a vote thread and a discussion thread of N posts each: votes, changes, voids,
chat, quotes, edits, spectators; every thread read completely after its close), then
``python -m forumbot --game G tally --day K --json`` runs in a subprocess: from the store, through the
desk (attendance, the vote count, the carried counters), to the draft and the JSON on stdout. Figures
per command: CPU seconds (user + system, from ``wait4``) and peak RSS (the whole process, interpreter
start-up included), the best of ``--rounds`` interleaved rounds.

Printed beside the targets:
- ``tally`` at 100k posts per thread: <= 5 s CPU and <= 250 MiB;
- ``tally --day 10`` of a 10-day game within 1.3x of ``tally --day 1`` of the same game (the days before
  tallied once already, as in a game: each day's result is stored and the next day starts from it).
  The first ``--day 10`` after the store was filled (nothing stored yet: every day judged) is shown too.

Sizes in ``--ratio-sizes`` get a ``--days``-day game (20 threads of N posts); the others a 1-day game.
PostgreSQL: --pg URL, else FORUMBOT_TEST_DATABASE_URL; each store a schema of its own, dropped after.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from children import Children  # noqa: E402

# Bytecode as a pip-installed forumbot has it (children.py): compiled once, reused by every run.
# Replaced in main() by --no-bytecode-cache.
CHILDREN = Children()

from forumbot.parsers.records import (  # noqa: E402
    EditMarker,
    Post,
    QuoteRef,
    Source,
    ThreadInfo,
    ThreadPage,
    TimeSource,
)
from forumbot.store import open_store, pagewrite  # noqa: E402
from forumbot.store.reads import ThreadRead, record_thread_read  # noqa: E402

BOARD = "http://bbs.example.com/"
T0 = datetime(2026, 6, 10, 4, 0, tzinfo=UTC)  # 12:00 in Asia/Shanghai
TARGET_CPU = 5.0
TARGET_MIB = 250.0
TARGET_RATIO = 1.3
TARGET_FLOOR_CPU = 1.5  # tally at 100k / the bare driver reading the rows it uses (issue 21)
TARGET_FLOOR_MIB = 1.3  # ... and its peak memory / the floor's
TARGET_LINEAR = 1.15  # CPU per post of the largest size / that of 100k (issue 21: 300k linear)
PAGE = 1000  # posts per stored page (the store's cost per post does not depend on it)
N_PLAYERS = 35
ZONE = ZoneInfo("Asia/Shanghai")


def players() -> list[str]:
    return [f"玩家{i:02d}" if i % 3 else f"Player{i:02d}" for i in range(N_PLAYERS)]


# --------------------------------------------------------------------------- the threads


def _post(pid: int, tid: int, author: str, at: datetime, body: str, **kw: Any) -> Post:
    return Post(
        pid=pid,
        tid=tid,
        author=author,
        uid=None,
        floor=kw.pop("floor"),
        posted_at=at,
        posted_until=at,
        time_source=TimeSource.TEXT,
        text=body,
        html=f'<div class="t_f" id="postmessage_{pid}">{body}<br /></div>',
        **kw,
    )


def vote_thread(tid: int, pid0: int, n: int, opens: datetime, closes: datetime, seed: int) -> list[Post]:
    """An R001 vote thread: votes with their reasons, changes, a few voids, two-name and typo votes,
    chat, spectators, late posts, edits. Texts vary as players' do (few posts say exactly the same)."""
    rng = random.Random(seed)
    names = players()
    chatter = [
        "顶",
        "+1",
        "我是好人",
        "？？？",
        "投票截止前还能改吗？",
        "弃权是因为信息太少",
        "等等看",
        "同意楼上",
    ]
    span = (closes - opens).total_seconds()
    out = [_post(pid0, tid, "法官大人", opens, "【投票帖】投票格式：投票：名字", floor=1, first=True)]
    for i in range(1, n):
        author = rng.choice(names) if rng.random() > 0.02 else "吃瓜群众"
        at = opens + timedelta(seconds=int(span * i / n) + rng.randint(-60, 60))
        target = rng.choice([x for x in names if x != author])  # a vote for oneself is void, and final
        roll = rng.random()
        quotes: tuple[QuoteRef, ...] = ()
        if roll < 0.25:
            body = f"投票：{target}（理由见讨论帖第{rng.randint(2, 900)}楼）"
        elif roll < 0.252 and author in names[-3:]:
            body = "废票"
        elif roll < 0.28:
            body = f"我投{target}吧，{rng.choice(names)}再看看"
        elif roll < 0.30:
            body = f"投票：{target}，{rng.choice(names)}"
        elif roll < 0.31:
            body = "投票：弃权"
        elif roll < 0.35:
            body = f"改票：{target}"
            quotes = (QuoteRef(pid0 + i - 1, rng.choice(names), "投票：饺子"),)
        else:
            body = f"{rng.choice(chatter)}（{rng.choice(names)}说的第{rng.randint(2, 900)}楼）"
        edit = EditMarker(author, at + timedelta(minutes=3), f"本帖最后由 {author} 于 … 编辑")
        out.append(
            _post(
                pid0 + i,
                tid,
                author,
                at,
                body,
                floor=i + 1,
                quotes=quotes,
                edit=edit if roll > 0.99 else None,
            )
        )
    return out


def discussion_thread(
    tid: int, pid0: int, n: int, opens: datetime, closes: datetime, seed: int
) -> list[Post]:
    """A discussion thread: meaningful posts, bumps, smileys, quotes, the case post first."""
    rng = random.Random(seed)
    names = players()
    lines = [
        "看了一圈，我觉得{x}的发言有问题，昨天的逻辑前后矛盾",
        "顶",
        "+1",
        "同意楼上，{x}可以出",
        "我是好人，请大家冷静，别乱投",
        "{x}你昨天为什么不解释？",
    ]
    span = (closes - opens).total_seconds()
    out = [_post(pid0, tid, "法官大人", opens, "【案情】第一日", floor=1, first=True)]
    for i in range(1, n):
        author = rng.choice(names) if rng.random() > 0.03 else "吃瓜群众"
        at = opens + timedelta(seconds=int(span * i / n))
        body = rng.choice(lines).format(x=rng.choice(names)) + f"（{rng.randint(1, 10**6)}）" * (i % 2)
        quotes = (QuoteRef(pid0 + i - 1, rng.choice(names), "……"),) if rng.random() < 0.1 else ()
        out.append(_post(pid0 + i, tid, author, at, body, floor=i + 1, quotes=quotes))
    return out


# --------------------------------------------------------------------------- the game


@dataclass
class Game:
    size: int
    days: int
    dir: Path
    game_file: Path
    store_url: str


def _local(t: datetime) -> str:
    return t.astimezone(ZONE).strftime("%Y-%m-%d %H:%M")


def build(size: int, n_days: int, where: Path, store_url: str) -> Game:
    """The game file and its store: ``n_days`` days, each a vote and a discussion thread of ``size`` posts."""
    roster = ", ".join(f'"{p}"' for p in players())
    days_toml = []
    store = open_store(store_url)
    try:
        for d in range(1, n_days + 1):
            opens = T0 + timedelta(days=d - 1, minutes=20)
            closes = T0 + timedelta(days=d)
            vote_tid, disc_tid = 100 + 2 * d, 101 + 2 * d
            days_toml.append(
                f"[[days]]\nday = {d}\nvote = {vote_tid}\ndiscussion = {disc_tid}\n"
                f'opens = "{_local(opens)}"\nclose = "{_local(closes)}"\n'
            )
            for tid, posts in (
                (vote_tid, vote_thread(vote_tid, 10_000_000 * d, size, opens, closes, seed=d)),
                (
                    disc_tid,
                    discussion_thread(disc_tid, 10_000_000 * d + 5_000_000, size, opens, closes, seed=d),
                ),
            ):
                pages = (len(posts) + PAGE - 1) // PAGE
                read_at = closes + timedelta(minutes=5)
                for k in range(pages):
                    page = ThreadPage(
                        ThreadInfo(tid, 3, f"第{d}日", k + 1, pages),
                        tuple(posts[k * PAGE : (k + 1) * PAGE]),
                        Source.PC,
                    )
                    pagewrite.record_page(store, BOARD, page, seen_at=read_at, ppp=PAGE)
                record_thread_read(
                    store,
                    BOARD,
                    ThreadRead(
                        tid=tid,
                        started_at=read_at,
                        finished_at=read_at + timedelta(minutes=1),
                        full=True,
                        complete=True,
                        source="pc",
                        first_page=1,
                        last_page=pages,
                        pages=pages,
                        pages_read=pages,
                        posts_seen=len(posts),
                        reason="",
                        error_kind="",
                        error="",
                        listed_replies=None,
                        listed_last_post_at=None,
                        listed_last_poster="",
                    ),
                )
    finally:
        store.close()
    game_file = where / "game.toml"
    game_file.write_text(
        f"""[game]
name = "基准杀"
ruleset = "R001"
timezone = "Asia/Shanghai"
judges = ["法官大人"]
store = "{store_url}"

[board]
url = "{BOARD}"
source = "pc"
fid = 3

[players]
roster = [{roster}]

[timetable]
first_night = "{T0.astimezone(ZONE).date().isoformat()}"
night_deadline = "17:00"
vote_close = "12:00"

"""
        + "\n".join(days_toml),
        encoding="utf-8",
    )
    return Game(size, n_days, where, game_file, store_url)


# --------------------------------------------------------------------------- running the command


@dataclass(frozen=True)
class Run:
    cpu: float  # user + system seconds of the command's process
    mib: float  # its peak RSS
    code: int


# The command as ``python -m forumbot`` runs it, reporting its own peak at exit: VmHWM, the high-water
# mark of the process's memory since its exec (wait4's ru_maxrss also counts the memory of the forked
# copy of this process before the exec, whatever its size).
_LAUNCH = """
import atexit, runpy, sys
def peak():
    try:
        with open("/proc/self/status") as f:
            kb = next(line.split()[1] for line in f if line.startswith("VmHWM"))
    except (OSError, StopIteration):
        import resource
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sys.stderr.write(f"\\nPEAK_KB {kb}\\n")
atexit.register(peak)
sys.argv = ["forumbot", *sys.argv[1:]]
runpy.run_module("forumbot", run_name="__main__", alter_sys=True)
"""


def tally(game: Game, day: int, code: Path | None = None) -> Run:
    """``forumbot tally --day DAY --json`` in a subprocess: its own CPU (wait4) and peak memory.
    ``code``: the forumbot to run (an installed wheel's folder; default: this tree)."""
    args = ["--game", str(game.game_file), "tally", "--day", str(day), "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-c", _LAUNCH, *args],
        cwd=game.dir,
        env=CHILDREN.env(code or ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    err = proc.stderr.read().decode() if proc.stderr else ""
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 5) or "PEAK_KB" not in err:
        raise SystemExit(f"tally --day {day} failed ({proc.returncode}):\n{err}")
    kb = int(err.rsplit("PEAK_KB", 1)[1].split()[0])
    return Run(usage.ru_utime + usage.ru_stime, kb / 1024, proc.returncode)


# The modules ``tally`` loads, written at exit in the order they were loaded (``imports_alone``).
_LAUNCH_MODULES = """
import atexit, runpy, sys
listing = sys.argv.pop(1)
def modules():
    skip = ("__main__", "forumbot.__main__")
    with open(listing, "w", encoding="utf-8") as f:
        f.write("\\n".join(name for name in list(sys.modules) if name not in skip))
atexit.register(modules)
sys.argv = ["forumbot", *sys.argv[1:]]
runpy.run_module("forumbot", run_name="__main__", alter_sys=True)
"""

# Every module of the list imported, nothing run: what loading tally's code costs before it reads a row.
_IMPORT_CHILD = """
import importlib, sys
with open(sys.argv[1], encoding="utf-8") as f:
    names = f.read().split()
for name in names:
    try:
        importlib.import_module(name)
    except Exception:
        pass  # a module made at run time (an alias, a generated one): not importable by name
with open("/proc/self/status") as f:
    kb = next(line.split()[1] for line in f if line.startswith("VmHWM"))
sys.stderr.write(f"PEAK_KB {kb}\\n")
"""


def imports_alone(game: Game, code: Path | None = None) -> Run:
    """The CPU and peak memory of importing exactly the modules ``tally --day 1 --json`` loads, in a
    fresh process, and nothing else: the share of the command's figure that does not depend on the
    posts (SQLAlchemy, sqlmodel, the engine, forumbot's own modules)."""
    listing = game.dir / "tally-modules.txt"
    args = [str(listing), "--game", str(game.game_file), "tally", "--day", "1", "--json"]
    env = CHILDREN.env(code or ROOT)
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCH_MODULES, *args], cwd=game.dir, env=env, stdout=subprocess.DEVNULL
    )
    if done.returncode not in (0, 5) or not listing.exists():
        raise SystemExit(f"listing tally's modules failed ({done.returncode})")
    proc = subprocess.Popen(
        [sys.executable, "-c", _IMPORT_CHILD, str(listing)],
        cwd=game.dir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    err = proc.stderr.read().decode() if proc.stderr else ""
    _pid, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or "PEAK_KB" not in err:
        raise SystemExit(f"importing tally's modules failed:\n{err}")
    kb = int(err.rsplit("PEAK_KB", 1)[1].split()[0])
    return Run(usage.ru_utime + usage.ru_stime, kb / 1024, 0)


# --------------------------------------------------------------------------- the bare driver's floor

# The rows ``tally --day 1`` reads, as forumbot/store/readpath.py selects them: the vote thread's posts
# with their current revision (the vote count), the discussion thread's with their first one
# (attendance). The floor runs these with the bare driver in a process of its own, fetching every row.
_FLOOR_CURRENT = (
    "SELECT posts.pid, posts.author, posts.floor, posts.posted_at, posts.posted_until, posts.first,"
    " posts.state, posts.revision_count, cur.id, cur.text, CAST(cur.quotes AS TEXT), cur.edit_by,"
    " cur.edit_at, cur.edit_raw FROM posts JOIN boards ON boards.id = posts.board_id"
    " LEFT OUTER JOIN post_revisions AS cur ON cur.id = posts.current_revision_id AND cur.post_id = posts.id"
    " WHERE boards.url = {m} AND posts.tid = {m} ORDER BY posts.pid"
)
_FLOOR_FIRST = (
    "SELECT posts.pid, posts.first, posts.author, posts.posted_at, posts.floor, rev1.id, rev1.text,"
    " CAST(rev1.quotes AS TEXT), {smiley} FROM posts JOIN boards ON boards.id = posts.board_id"
    " LEFT OUTER JOIN post_revisions AS rev1 ON rev1.post_id = posts.id AND rev1.number = 1"
    " WHERE boards.url = {m} AND posts.tid = {m} ORDER BY posts.pid"
)
_FLOOR_CHILD = """
import sys
url, board, vote, disc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
current, first = sys.argv[5], sys.argv[6]
if url.startswith("postgresql"):
    import psycopg
    from urllib.parse import unquote
    base, _, query = url.replace("postgresql+psycopg://", "postgresql://").partition("?")
    options = unquote(query.split("options=", 1)[1].split("&")[0]) if "options=" in query else None
    db = psycopg.connect(base, options=options) if options else psycopg.connect(base)
    m, smiley = "%s", "strpos(rev1.html, 'smiley') > 0"
else:
    import sqlite3
    db = sqlite3.connect(url)
    m, smiley = "?", "instr(rev1.html, 'smiley') > 0"
rows = db.execute(current.format(m=m), (board, vote)).fetchall()
rows += db.execute(first.format(m=m, smiley=smiley), (board, disc)).fetchall()
with open("/proc/self/status") as f:
    kb = next(line.split()[1] for line in f if line.startswith("VmHWM"))
sys.stderr.write(f"ROWS {len(rows)}\\nPEAK_KB {kb}\\n")
"""


def floor(game: Game) -> Run:
    """The bare driver (sqlite3 or psycopg) reading every row ``tally --day 1`` reads, in a fresh
    process (interpreter start-up included, as in the command's figure): its CPU and peak memory."""
    args = [game.store_url, BOARD, "102", "103", _FLOOR_CURRENT, _FLOOR_FIRST]  # day 1's vote, discussion
    proc = subprocess.Popen(
        [sys.executable, "-c", _FLOOR_CHILD, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    err = proc.stderr.read().decode() if proc.stderr else ""
    _pid, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or "PEAK_KB" not in err:
        raise SystemExit(f"the floor's read failed:\n{err}")
    kb = int(err.rsplit("PEAK_KB", 1)[1].split()[0])
    return Run(usage.ru_utime + usage.ru_stime, kb / 1024, 0)


# --------------------------------------------------------------------------- backends


class Backends:
    """Temporary SQLite files and, when reachable, PostgreSQL schemas (dropped at the end)."""

    def __init__(self, pg_url: str | None) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="fb-tally-")
        self.pg_url = pg_url
        self.pg_error = ""
        self.schemas: list[str] = []
        if pg_url:
            try:
                eng = create_engine(pg_url, connect_args={"connect_timeout": 5})
                with eng.connect() as conn:
                    conn.execute(text("select 1"))
                eng.dispose()
            except Exception as exc:  # unreachable: skip PostgreSQL and say why
                self.pg_error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
                self.pg_url = None

    def names(self) -> list[str]:
        return ["sqlite", "postgresql"] if self.pg_url else ["sqlite"]

    def new(self, backend: str) -> tuple[Path, str]:
        where = Path(self.tmp.name) / uuid.uuid4().hex[:8]
        where.mkdir()
        if backend == "sqlite":
            return where, str(where / "store.db")
        assert self.pg_url is not None
        schema = f"fbtally_{uuid.uuid4().hex[:10]}"
        eng = create_engine(self.pg_url)
        with eng.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        eng.dispose()
        self.schemas.append(schema)
        sep = "&" if "?" in self.pg_url else "?"
        return where, f"{self.pg_url}{sep}options=-csearch_path%3D{schema}"

    def close(self) -> None:
        if self.pg_url and self.schemas:
            eng = create_engine(self.pg_url)
            with eng.begin() as conn:
                for schema in self.schemas:
                    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            eng.dispose()
        self.tmp.cleanup()


@contextmanager
def backends(pg_url: str | None) -> Iterator[Backends]:
    b = Backends(pg_url)
    try:
        yield b
    finally:
        b.close()


# --------------------------------------------------------------------------- main


def _show(r: Run) -> str:
    return f"{r.cpu:6.2f} s CPU {r.mib:6.0f} MiB"


def best(runs: list[Run]) -> Run:
    return Run(min(r.cpu for r in runs), min(r.mib for r in runs), runs[0].code)


def bench(
    b: Backends, backend: str, sizes: list[int], ratio_sizes: set[int], n_days: int, rounds: int
) -> list[str]:
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    say(f"-- {backend}")
    per_post: dict[int, float] = {}
    for size in sizes:
        days = n_days if size in ratio_sizes else 1
        where, url = b.new(backend)
        t = time.perf_counter()
        game = build_apart(size, days, where, url)
        say(f"   {size:>7} posts per thread, {days} day(s): store filled in {time.perf_counter() - t:.0f} s")
        if size == sizes[0]:
            tally(game, 1)  # warm-up: the modules' bytecode compiled and cached once
        cold = tally(game, days) if days > 1 else None  # nothing stored yet: every earlier day judged
        for d in range(1, days):  # a game's course: each day tallied once before the next
            tally(game, d)
        first: list[Run] = []
        last: list[Run] = []
        for r in range(rounds):
            order = [1, days] if r % 2 == 0 else [days, 1]
            for d in order if days > 1 else [1]:
                (first if d == 1 else last).append(tally(game, d))
        one = best(first)
        say(f"      tally --day 1          {_show(one)}")
        low = best([floor(game) for _ in range(rounds)])
        cpu_x, mib_x = one.cpu / low.cpu, one.mib / low.mib
        say(
            f"      floor (bare driver)    {_show(low)}   tally x{cpu_x:.2f} CPU, x{mib_x:.2f} memory"
            + (
                f" (targets at 100k: <= {TARGET_FLOOR_CPU:g}x and <= {TARGET_FLOOR_MIB:g}x: "
                f"{'met' if cpu_x <= TARGET_FLOOR_CPU and mib_x <= TARGET_FLOOR_MIB else 'MISSED'})"
                if size >= 100_000
                else ""
            )
        )
        per_post[size] = one.cpu / size
        if size >= 100_000:
            ok = one.cpu <= TARGET_CPU and one.mib <= TARGET_MIB
            say(
                f"      target at 100k: <= {TARGET_CPU:g} s CPU and <= {TARGET_MIB:g} MiB: "
                f"{'met' if ok else 'MISSED'}"
            )
        if days > 1 and cold is not None:
            ten = best(last)
            ratio = ten.cpu / one.cpu
            say(f"      tally --day {days:<2}         {_show(ten)}   day {days}/day 1 x{ratio:.2f}")
            say(f"      tally --day {days:<2} (cold)  {_show(cold)}   (no day stored yet)")
            verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
            say(f"      target: day {days} within {TARGET_RATIO}x of day 1: x{ratio:.2f} ({verdict})")
    large = [n for n in per_post if n >= 100_000]
    if len(large) >= 2:
        grow = per_post[max(large)] / per_post[min(large)]
        say(
            f"   CPU per post at {max(large):,} / at {min(large):,}: x{grow:.2f} "
            f"(linear, target <= {TARGET_LINEAR:g}x: {'met' if grow <= TARGET_LINEAR else 'MISSED'})"
        )
    return lines


def build_apart(size: int, days: int, where: Path, url: str) -> Game:
    """:func:`build` in a process of its own: this one stays small (its memory would be counted in
    the commands' peaks otherwise) and the store's writes are not timed with them."""
    subprocess.run([sys.executable, __file__, "--build", str(size), str(days), str(where), url], check=True)
    return Game(size, days, where, where / "game.toml", url)


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--build"]:
        size, days, where, url = sys.argv[2:6]
        build(int(size), int(days), Path(where), url)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,20000,100000")
    ap.add_argument("--ratio-sizes", default="2000,20000")
    ap.add_argument("--days", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pg", help="PostgreSQL URL (default: FORUMBOT_TEST_DATABASE_URL)")
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="compile every forumbot module in every run (a checkout with PYTHONDONTWRITEBYTECODE=1)",
    )
    args = ap.parse_args(argv)
    global CHILDREN
    if args.no_bytecode_cache:
        CHILDREN.close()
        CHILDREN = Children(bytecode_cache=False)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    ratio_sizes = {int(s) for s in args.ratio_sizes.split(",") if s}
    pg = None if args.no_pg else (args.pg or os.environ.get("FORUMBOT_TEST_DATABASE_URL"))
    out: list[str] = [
        f"== forumbot tally --json: {N_PLAYERS} players, R001; best of {args.rounds} interleaved rounds; "
        "CPU and peak RSS of the whole command"
    ]
    out[0] += "; bytecode " + ("cached, as installed" if CHILDREN.bytecode_cache else "compiled in every run")
    try:
        with backends(pg) as b:
            if b.pg_error:
                out.append(f"-- postgresql skipped: {b.pg_error}")
            for backend in b.names():
                out += bench(b, backend, sizes, ratio_sizes, args.days, args.rounds)
    finally:
        CHILDREN.close()
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
