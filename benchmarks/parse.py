"""How fast the PC thread parser is, against a bare lxml parse of the same bytes.

Usage: ``.venv/bin/python benchmarks/parse.py [--rounds N]``. Reads the captured PC viewthread pages from
../shared/fixtures (next to the repository) and prints pages/s, posts/s and the ratio of the full
extraction (``parse_thread_page``: decode, parse, every post's author, floor, time, body, quotes) to a bare
``lxml.html.fromstring`` of the same bytes. The target (discuz.md "Cost of parsing") is ≤ 1.5x.
Each figure is the best of the rounds (the least disturbed by the rest of the machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from forumbot.parsers import parse_thread_page

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"


def _headers(path: Path) -> tuple[str, dict[str, str]]:
    lines = Path(f"{path}.headers").read_text(encoding="utf-8").splitlines()
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line.startswith("HTTP "):
            headers = {}
        elif ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    return lines[0].split(" ", 1)[1].strip(), headers


def _pages() -> list[tuple[bytes, str, dict[str, str]]]:
    pages = []
    for path in sorted(FIXTURES.glob("*/*/pc_*.html")):
        if "forumdisplay" in path.name or "forum_index" in path.name or path.parent.name == "errors":
            continue
        url, headers = _headers(path)
        pages.append((path.read_bytes(), url, headers))
    return pages


def _best(fn: object, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    if not FIXTURES.is_dir():
        print(f"benchmarks/parse.py: no captured pages at {FIXTURES}; nothing to measure", file=sys.stderr)
        return 1
    pages = _pages()
    if not pages:
        print(f"benchmarks/parse.py: no PC viewthread pages under {FIXTURES}", file=sys.stderr)
        return 1
    size = sum(len(body) for body, _, _ in pages)
    posts = sum(
        len(parse_thread_page(b, u, date_header=h.get("date"), content_type=h.get("content-type")).posts)
        for b, u, h in pages
    )

    def bare() -> None:
        for body, _url, _headers in pages:
            lxml.html.fromstring(body)

    def full(keep_html: bool = True) -> None:
        for body, url, headers in pages:
            parse_thread_page(
                body,
                url,
                date_header=headers.get("date"),
                content_type=headers.get("content-type"),
                keep_html=keep_html,
            )

    t_bare = _best(bare, args.rounds)
    t_full = _best(full, args.rounds)
    t_lean = _best(lambda: full(False), args.rounds)
    n = len(pages)
    print(f"{n} PC pages, {size / 1e6:.2f} MB, {posts} posts, best of {args.rounds} rounds")
    print(f"bare lxml.html.fromstring : {t_bare / n * 1e3:6.3f} ms/page")
    print(
        f"parse_thread_page          : {t_full / n * 1e3:6.3f} ms/page  {posts / t_full:8.0f} posts/s  "
        f"ratio {t_full / t_bare:.2f}x"
    )
    print(
        f"  keep_html=False          : {t_lean / n * 1e3:6.3f} ms/page  {posts / t_lean:8.0f} posts/s  "
        f"ratio {t_lean / t_bare:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
