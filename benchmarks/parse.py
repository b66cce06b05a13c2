"""How fast each thread parser is, beside its floor and beside a BeautifulSoup reading of the same fields.

Usage: ``.venv/bin/python benchmarks/parse.py [--rounds N] [--no-fixtures] [--kinds touch,pc]``
(BeautifulSoup comes with ``pip install -e '.[bench]'``; without it that column is left out; ``--kinds``
measures only the named page kinds, all four by default).

For every page kind (PC, touch, API v4, API v1/v2) it times, in the same process and in interleaved rounds
(floor, ours, BeautifulSoup, floor, ours, ...), over the same bytes:

- **floor**: what any reader must pay: ``lxml.html.fromstring`` of the page for HTML views;
  ``json.loads`` plus one ``lxml.html.fromstring`` of each post's ``message`` for the API;
- **ours**: ``parse_thread_page`` (decode, parse, every post's pid, author, uid, floor, time, body text,
  quotes, mentions, edit marker, state; the thread's ids and pages);
- **bs4**: BeautifulSoup (lxml builder) extracting pid, author, uid, floor, time, body text, quoted pids
  and edit marker, the way peer forum vote counters read pages.

Each figure is CPU time (``time.process_time``), so other work on the machine costs less noise than
wall time; each ratio is the median of the per-round ratios, each round measuring the three side by side.
``--callgrind`` counts instructions under valgrind instead (the instrument of issue 12's figures; slow,
but blind to the rest of the machine).
Targets (issue 12): PC ≤ 1.2x, touch ≤ 1.5x, API v4 ≤ 1.5x of the floor.
Pages: the repo's saved pages (tests/parsers/pages), the examples' boards (data/examples), and the captured
boards in ../shared/fixtures when they sit next to the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pages import KINDS, Page, all_pages

from forumbot.parsers import parse_thread_page

TARGETS = {"pc": 1.2, "touch": 1.5, "api_v4": 1.5}

try:
    import warnings

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    warnings.filterwarnings("ignore", category=XMLParsedAsHTMLWarning)  # GBK pages open with <?xml
except ImportError:  # pragma: no cover - the bench extra is optional
    BeautifulSoup = None


# ---------------------------------------------------------------- floors


def floor_html(page: Page) -> None:
    lxml.html.fromstring(page.body)


def floor_api(page: Page) -> None:
    data = json.loads(page.body)
    postlist = data["Variables"].get("postlist") or []
    if isinstance(postlist, dict):
        postlist = list(postlist.values())
    for item in postlist:
        message = item.get("message")
        if message and message.strip():
            lxml.html.fromstring(message)


# ---------------------------------------------------------------- ours


def ours(page: Page) -> None:
    parse_thread_page(page.body, page.url, date_header=page.date, content_type=page.content_type)


# ---------------------------------------------------------------- BeautifulSoup, the same fields

_UID = re.compile(r"uid=(\d+)")
_PID = re.compile(r"pid=(\d+)")


def _bs_body(body: Any) -> dict[str, Any]:
    """Body text without quotes, the quoted pids and the edit marker, from a body element."""
    if body is None:
        return {"text": "", "quotes": [], "edit": None}
    quotes = []
    for q in body.select("div.quote, div.reply_wrap, blockquote"):
        link = q.find("a", href=re.compile("findpost"))
        if link is not None:
            found = _PID.search(link.get("href", ""))
            quotes.append(int(found.group(1)) if found else None)
        q.extract()
    edit = body.find("i", class_="pstatus")
    edit_text = edit.get_text(" ", strip=True) if edit is not None else None
    if edit is not None:
        edit.extract()
    for noise in body.select("font.jammer, span[style*='display:none'], script"):
        noise.extract()
    return {"text": body.get_text("\n", strip=True), "quotes": quotes, "edit": edit_text}


def bs4_pc(page: Page) -> list[dict[str, Any]]:
    soup = BeautifulSoup(page.body, "lxml")
    posts = []
    postlist = soup.find(id="postlist")
    for div in postlist.find_all("div", id=re.compile(r"^post_\d+$"), recursive=False) if postlist else []:
        pid = int(div["id"][5:])
        link = div.select_one("div.authi a[href*='uid=']")
        uid = _UID.search(link["href"]) if link else None
        num = div.find(id=f"postnum{pid}")
        when = div.find(id=f"authorposton{pid}")
        span = when.find("span") if when else None
        posts.append(
            {
                "pid": pid,
                "author": link.get_text(strip=True) if link else "",
                "uid": int(uid.group(1)) if uid else None,
                "floor": num.get_text(strip=True) if num else None,
                "time": span.get("title")
                if span and span.get("title")
                else (when.get_text() if when else ""),
                **_bs_body(div.find(id=f"postmessage_{pid}")),
            }
        )
    return posts


def bs4_touch(page: Page) -> list[dict[str, Any]]:
    soup = BeautifulSoup(page.body, "lxml")
    posts = []
    for div in soup.find_all("div", id=re.compile(r"^pid\d+$"), class_="plc"):
        link = div.select_one("li.mtit span.z a[href*='uid='], li.grey b a[href*='uid=']")
        uid = _UID.search(link["href"]) if link else None
        floor = div.select_one("li.mtit span.y, li.grey em")
        when = div.select_one("li.mtime, li.grey.rela")
        posts.append(
            {
                "pid": int(div["id"][3:]),
                "author": link.get_text(strip=True) if link else "",
                "uid": int(uid.group(1)) if uid else None,
                "floor": floor.get_text(strip=True) if floor else None,
                "time": when.find(string=True, recursive=False) if when else None,
                **_bs_body(div.find("div", class_="message")),
            }
        )
    return posts


def bs4_api(page: Page) -> list[dict[str, Any]]:
    data = json.loads(page.body)
    postlist = data["Variables"].get("postlist") or []
    if isinstance(postlist, dict):
        postlist = list(postlist.values())
    posts = []
    for item in postlist:
        body = BeautifulSoup(item.get("message") or "", "lxml")
        posts.append(
            {
                "pid": int(item["pid"]),
                "author": item.get("author", ""),
                "uid": int(item.get("authorid") or 0) or None,
                "floor": item.get("position") or item.get("number"),
                "time": item.get("dbdateline") or item.get("dateline"),
                **_bs_body(body),
            }
        )
    return posts


# ---------------------------------------------------------------- measuring

FLOOR: dict[str, Callable[[Page], object]] = {
    "pc": floor_html,
    "touch": floor_html,
    "api_v4": floor_api,
    "api_v1v2": floor_api,
}
BS4: dict[str, Callable[[Page], object]] = {
    "pc": bs4_pc,
    "touch": bs4_touch,
    "api_v4": bs4_api,
    "api_v1v2": bs4_api,
}


def _cpu(fn: Callable[[Page], object], pages: list[Page], repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        for page in pages:
            fn(page)
    return (time.process_time() - start) / repeat


def _repeat(pages: list[Page], target: float = 0.03) -> int:
    """How many passes make one timed slice last about ``target`` CPU seconds (process_time ticks)."""
    once = max(_cpu(FLOOR[pages[0].kind], pages, 1), 1e-5)
    return max(1, int(target / once))


def measure(kind: str, pages: list[Page], rounds: int, bs4: bool) -> dict[str, Any]:
    repeat = _repeat(pages)
    floors: list[float] = []
    ours_t: list[float] = []
    soups: list[float] = []
    for _ in range(rounds):
        floors.append(_cpu(FLOOR[kind], pages, repeat))
        ours_t.append(_cpu(ours, pages, repeat))
        if bs4:
            soups.append(_cpu(BS4[kind], pages, max(1, repeat // 8)))
    ratio = statistics.median(o / f for o, f in zip(ours_t, floors, strict=True))
    out: dict[str, Any] = {
        "pages": len(pages),
        "posts": sum(p.posts for p in pages),
        "floor_ms": statistics.median(floors) / len(pages) * 1e3,
        "ours_ms": statistics.median(ours_t) / len(pages) * 1e3,
        "ratio": ratio,
    }
    if bs4:
        out["bs4_ms"] = statistics.median(soups) / len(pages) * 1e3
        out["bs4_vs_ours"] = statistics.median(s / o for s, o in zip(soups, ours_t, strict=True))
    return out


METHODS: dict[str, Callable[[str], Callable[[Page], object]]] = {
    "none": lambda kind: lambda page: None,
    "floor": lambda kind: FLOOR[kind],
    "ours": lambda kind: ours,
    "bs4": lambda kind: BS4[kind],
}


def _instructions(kind: str, method: str, repeat: int, fixtures: bool) -> int:
    """Instructions (callgrind ``Ir``) of one process loading the pages and running ``method`` over the
    pages of ``kind`` ``repeat`` times: start-up and loading cancel out between two repeats."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--run",
            f"{kind}:{method}:{repeat}",
        ]
        if not fixtures:
            command.append("--no-fixtures")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals")


def callgrind(
    pages: list[Page], fixtures: bool, bs4: bool, kinds: tuple[str, ...] = KINDS, passes: int = 3
) -> None:
    """The issue's instrument: instruction counts (not time), so a busy machine changes nothing.

    ``passes``: the longer run's passes. Start-up does not cancel to the instruction between two
    processes (addresses and hash seeds differ), and what is left over is divided by the extra passes'
    pages: at 3 passes that leaves a few percent of noise per page, more passes shrink it.
    """
    print(f"callgrind instructions per page (difference of {passes} and 1 passes, start-up cancelled)")
    print(
        f"{'kind':<9} {'floor Ir':>11} {'ours Ir':>11} {'ours/floor':>10} {'target':>7}"
        + (" bs4/ours" if bs4 else "")
    )
    for kind in kinds:
        group = [p for p in pages if p.kind == kind]
        if not group:
            continue
        per_page = {}
        for method in ("floor", "ours", *(("bs4",) if bs4 else ())):
            one = _instructions(kind, method, 1, fixtures)
            more = _instructions(kind, method, passes, fixtures)
            per_page[method] = (more - one) / (passes - 1) / len(group)
        target = TARGETS.get(kind)
        line = (
            f"{kind:<9} {per_page['floor']:>11.0f} {per_page['ours']:>11.0f} "
            f"{per_page['ours'] / per_page['floor']:>9.2f}x {(f'≤{target}x' if target else '-'):>7}"
        )
        if bs4:
            line += f" {per_page['bs4'] / per_page['ours']:>7.1f}x"
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--no-fixtures", action="store_true", help="the repo's own pages only")
    parser.add_argument("--no-bs4", action="store_true", help="skip the BeautifulSoup column")
    parser.add_argument("--callgrind", action="store_true", help="count instructions under valgrind instead")
    parser.add_argument(
        "--kinds",
        type=lambda text: tuple(text.split(",")),
        default=KINDS,
        help=f"comma-separated page kinds to measure (default: all of {','.join(KINDS)})",
    )
    parser.add_argument(
        "--passes", type=int, default=3, help="--callgrind: passes of the longer run (≥ 2; more: less noise)"
    )
    parser.add_argument("--run", help=argparse.SUPPRESS)  # KIND:METHOD:REPEAT, the process callgrind watches
    args = parser.parse_args(argv)
    pages = all_pages(fixtures=not args.no_fixtures)
    if args.run:
        kind, method, repeat = args.run.split(":")
        group = [p for p in pages if p.kind == kind]
        fn = METHODS[method](kind)
        for _ in range(int(repeat)):
            for page in group:
                fn(page)
        return 0
    if args.callgrind:
        if args.passes < 2:
            parser.error("--passes must be at least 2")
        bs4 = BeautifulSoup is not None and not args.no_bs4
        callgrind(pages, not args.no_fixtures, bs4, args.kinds, args.passes)
        return 0
    bs4 = BeautifulSoup is not None and not args.no_bs4
    origins = sorted({p.origin for p in pages})
    print(f"{len(pages)} thread pages from {', '.join(origins)}; CPU time, median of {args.rounds} rounds")
    if BeautifulSoup is None and not args.no_bs4:
        print("(beautifulsoup4 not installed: pip install -e '.[bench]' for the bs4 column)")
    header = f"{'kind':<9} {'pages':>5} {'posts':>6} {'floor ms':>9} {'ours ms':>8} {'ours/floor':>10}"
    header += f" {'target':>7}"
    if bs4:
        header += f" {'bs4 ms':>8} {'bs4/ours':>8}"
    print(header)
    missed = []
    for kind in args.kinds:
        group = [p for p in pages if p.kind == kind]
        if not group:
            print(f"{kind:<9} (no pages)")
            continue
        m = measure(kind, group, args.rounds, bs4)
        target = TARGETS.get(kind)
        line = (
            f"{kind:<9} {m['pages']:>5} {m['posts']:>6} {m['floor_ms']:>9.3f} {m['ours_ms']:>8.3f} "
            f"{m['ratio']:>9.2f}x {(f'≤{target}x' if target else '-'):>7}"
        )
        if bs4:
            line += f" {m['bs4_ms']:>8.3f} {m['bs4_vs_ours']:>7.1f}x"
        print(line)
        if target is not None and m["ratio"] > target:
            missed.append(kind)
    if missed:
        print(f"over target: {', '.join(missed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
