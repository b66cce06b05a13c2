"""The thread pages the benchmarks read: the repo's own, plus ../shared/fixtures when it is there
(``FORUMBOT_FIXTURES=DIR`` names another place, e.g. to measure an older checkout on the same pages).

Why a module of its own: ``parse.py`` and anything else that wants real pages must read the same set, and
must never copy a capture into the repository (the fixtures are read in place).

Each page carries the request it answered (URL, ``Date``, ``Content-Type``) and its kind: ``pc``,
``touch``, ``api_v4`` or ``api_v1v2`` (the older API versions that keep the edit marker). Pages that are
board messages (errors, login walls) are left out: a benchmark of errors measures nothing useful.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parents[1]
if str(ROOT_DIR) not in sys.path:
    sys.path.insert(0, str(ROOT_DIR))

from forumbot.errors import BoardError  # noqa: E402
from forumbot.exampleboard.server import example_thread_pages  # noqa: E402
from forumbot.parsers import parse_thread_page  # noqa: E402
from forumbot.parsers.pageinfo import query  # noqa: E402

FIXTURES = Path(os.environ.get("FORUMBOT_FIXTURES") or ROOT_DIR.parent / "shared" / "fixtures")
SAVED = ROOT_DIR / "tests" / "parsers" / "pages"
KINDS = ("pc", "touch", "api_v4", "api_v1v2")
DEMO_ROOT = "http://127.0.0.1:8000/"


@dataclass(frozen=True)
class Page:
    """One thread page and the request it answered."""

    origin: str  # where it was read from: "repo" or "fixtures"
    name: str
    body: bytes
    url: str
    date: str | None
    content_type: str | None
    kind: str
    posts: int


def _kind(source: str, url: str) -> str:
    if source != "api":
        return source
    return "api_v4" if query(url).get("version", "4") == "4" else "api_v1v2"


def _page(origin: str, name: str, body: bytes, url: str, date: str | None, ctype: str | None) -> Page | None:
    try:
        parsed = parse_thread_page(body, url, date_header=date, content_type=ctype)
    except BoardError:
        return None
    kind = _kind(str(parsed.source), url)
    if kind == "api_v1v2" and "version=3" in url:
        return None  # v3 is v2's twin; counting it twice would weigh the set
    return Page(origin, name, body, url, date, ctype, kind, len(parsed.posts))


def _saved() -> Iterator[Page]:
    for path in sorted(SAVED.iterdir()):
        expected = path.with_name(path.name.rsplit(".", 1)[0] + ".expected.json")
        if path.name.endswith(".expected.json") or not expected.is_file():
            continue
        request = json.loads(expected.read_text(encoding="utf-8"))["request"]
        if request.get("kind", "thread") != "thread":
            continue
        page = _page(
            "repo",
            path.name,
            path.read_bytes(),
            request["url"],
            request.get("date"),
            request.get("content_type"),
        )
        if page is not None:
            yield page


def _examples() -> Iterator[Page]:
    for name, url, body in example_thread_pages():
        page = _page("repo", name, body, DEMO_ROOT + url, None, None)
        if page is not None:
            yield page


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


def _fixtures() -> Iterator[Page]:
    if not FIXTURES.is_dir():
        return
    for path in sorted(FIXTURES.glob("discuz-x35-*/*/*")):
        if path.suffix not in (".html", ".json") or not Path(f"{path}.headers").is_file():
            continue
        if not path.parent.name.startswith(("thread", "alt_")):
            continue
        if not path.name.startswith(("pc_", "touch_", "api_v", "mobile2_")) or "forumdisplay" in path.name:
            continue
        url, headers = _headers(path)
        name = str(path.relative_to(FIXTURES))
        page = _page(
            "fixtures", name, path.read_bytes(), url, headers.get("date"), headers.get("content-type")
        )
        if page is not None:
            yield page


def all_pages(*, fixtures: bool = True) -> list[Page]:
    """Every readable thread page: the repo's saved pages and examples, then the captures (if present)."""
    pages = [*_saved(), *_examples()]
    if fixtures:
        pages.extend(_fixtures())
    return pages
