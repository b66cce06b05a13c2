"""Save (or refresh) the expected JSON of a saved page, for review before committing.

Usage::

    .venv/bin/python tests/parsers/save_expected.py tests/parsers/pages/NAME.html \\
        --url 'http://bbs.example.com/forum.php?mod=viewthread&tid=120&page=2' \\
        --date 'Wed, 03 Jun 2026 14:13:30 GMT' [--content-type 'text/html; charset=utf-8'] [--status 200] \\
        [--kind thread|forum]

writes ``NAME.expected.json`` next to the page: ``{"request": {...}, "expected": {...}}``.
Without ``--url`` the request stored in an existing ``NAME.expected.json`` is reused (to refresh
after a deliberate parser change).
Read the diff before committing: the expectation is only as good as that review. A page that raises
is saved as ``{"error": ClassName, "board_message": ...}``.

The expected shape is the exported page JSON (``page_to_json``) plus what a judge also relies on: each
post's ``posted_until``, ``time_source``, ``mentions``, ``quotes``, ``first``, ``floor_exact``, ``title``;
the thread's ``replies``, ``formhash``, ``viewer_uid``, ``charset``; the page's ``problems``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from forumbot.errors import BoardError
from forumbot.parsers import page_to_json, parse_forum_page, parse_thread_page
from forumbot.parsers.records import ForumPage, ThreadPage

TZ = ZoneInfo("Asia/Shanghai")


def _iso(value: Any) -> str | None:
    return value.astimezone(TZ).isoformat() if value is not None else None


def thread_json(page: ThreadPage) -> dict[str, Any]:
    data = page_to_json(page, TZ)
    info = page.thread
    data["thread"].update(
        replies=info.replies, formhash=info.formhash, viewer_uid=info.viewer_uid, charset=info.charset
    )
    data["source"] = str(page.source)
    data["author_filter"] = page.author_filter
    data["problems"] = list(page.problems)
    for out, post in zip(data["posts"], page.posts, strict=True):
        out.update(
            posted_until=_iso(post.posted_until),
            time_source=str(post.time_source),
            mentions=list(post.mentions),
            quotes=[{"pid": q.pid, "author": q.author, "text": q.text} for q in post.quotes],
            first=post.first,
            floor_exact=post.floor_exact,
            title=post.title,
        )
    return data


def forum_json(page: ForumPage) -> dict[str, Any]:
    return {
        "fid": page.fid,
        "name": page.name,
        "page": page.page,
        "pages": page.pages,
        "formhash": page.formhash,
        "source": str(page.source),
        "threads": [
            {
                "tid": t.tid,
                "subject": t.subject,
                "replies": t.replies,
                "last_post_at": _iso(t.last_post_at),
                "last_poster": t.last_poster,
                "author": t.author,
            }
            for t in page.threads
        ],
    }


def expected_path(page: Path) -> Path:
    """``pages/NAME.html`` → ``pages/NAME.expected.json`` (API pages are .json themselves)."""
    return page.with_name(page.name.rsplit(".", 1)[0] + ".expected.json")


def parse_saved(page_path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Parse a saved page as described by ``request`` and return its expected-JSON form."""
    body = page_path.read_bytes()
    kwargs = {
        "date_header": request.get("date"),
        "content_type": request.get("content_type"),
        "tz": TZ,
        "status": int(request.get("status", 200)),
    }
    try:
        if request.get("kind", "thread") == "forum":
            return forum_json(parse_forum_page(body, request["url"], **kwargs))
        return thread_json(parse_thread_page(body, request["url"], **kwargs))
    except BoardError as exc:
        return {"error": type(exc).__name__, "board_message": exc.board_message}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write the expected JSON of a saved page")
    parser.add_argument("page", type=Path)
    parser.add_argument("--url")
    parser.add_argument("--date")
    parser.add_argument("--content-type", dest="content_type")
    parser.add_argument("--status", type=int, default=200)
    parser.add_argument("--kind", choices=("thread", "forum"), default="thread")
    args = parser.parse_args(argv)
    target = expected_path(args.page)
    if args.url:
        request: dict[str, Any] = {
            "url": args.url,
            "date": args.date,
            "content_type": args.content_type,
            "status": args.status,
            "kind": args.kind,
        }
    elif target.exists():
        request = json.loads(target.read_text(encoding="utf-8"))["request"]
    else:
        parser.error(f"{target} does not exist yet: give --url (and --date for relative times)")
    expected = parse_saved(args.page, request)
    target.write_text(
        json.dumps({"request": request, "expected": expected}, ensure_ascii=False, indent=1) + "\n",
        encoding="utf-8",
    )
    posts = expected.get("posts", expected.get("threads", []))
    print(
        f"wrote {target}: {len(posts)} items"
        + (f", error {expected['error']}" if "error" in expected else "")
    )
    for problem in expected.get("problems", []):
        print(f"  problem: {problem}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
