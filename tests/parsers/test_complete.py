"""Complete pages or an error (issue 8): a page cut off is a TruncatedPage, never a shorter thread.

The property test cuts the repository's own real pages (the saved pages and the example games'
board at its named moments) at
random points: each cut either raises a typed error, or, only when the cut leaves the whole document
(nothing but trailing bytes lost), reads the very same posts.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.errors import BoardError, TruncatedPage
from forumbot.exampleboard.server import example_thread_pages
from forumbot.parsers import check_post_count, page_to_json, parse_thread_page
from forumbot.parsers.complete import html_complete
from forumbot.parsers.records import ThreadPage

PAGES = Path(__file__).parent / "pages"
EXAMPLE_URL = "http://127.0.0.1:8000/"


def _requests() -> list[tuple[str, bytes, dict[str, Any]]]:
    """(name, body, request) of every real thread page the repository holds."""
    found = []
    for expected in sorted(PAGES.glob("*.expected.json")):
        saved = json.loads(expected.read_text(encoding="utf-8"))
        request = saved["request"]
        if request.get("kind", "thread") != "thread" or "error" in saved["expected"]:
            continue
        page = expected.with_name(expected.name.replace(".expected.json", ""))
        page = next(p for p in PAGES.glob(page.name + ".*") if not p.name.endswith(".expected.json"))
        found.append((page.name, page.read_bytes(), request))
    for name, url, body in example_thread_pages():
        found.append((name, body, {"url": EXAMPLE_URL + url, "date": None, "content_type": None}))
    return found


REAL = _requests()


def _parse(body: bytes, request: dict[str, Any]) -> ThreadPage:
    return parse_thread_page(
        body,
        request["url"],
        date_header=request.get("date"),
        content_type=request.get("content_type"),
        status=request.get("status", 200),
    )


def _posts(page: ThreadPage) -> list[dict[str, Any]]:
    return page_to_json(page)["posts"]


def _first_post_at(body: bytes) -> int:
    starts = [body.find(m) for m in (b'id="post_', b'id="pid', b'"postlist"') if body.find(m) >= 0]
    return min(starts) if starts else len(body)


def test_the_repository_holds_pages_of_every_kind() -> None:
    assert len(REAL) >= 25
    kinds = {str(_parse(body, request).source) for _, body, request in REAL}
    assert kinds == {"pc", "touch", "api"}


@settings(
    max_examples=int(os.environ.get("PARSER_FUZZ", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.sampled_from(range(len(REAL))), st.floats(0, 1))
def test_a_cut_page_is_an_error_or_the_same_posts(index: int, fraction: float) -> None:
    name, body, request = REAL[index]
    whole = _posts(_parse(body, request))
    cut = body[: int(len(body) * fraction)]
    try:
        page = _parse(cut, request)
    except TruncatedPage:
        return
    except BoardError as exc:
        assert "internal parser error" not in exc.detail, exc.detail
        # before the post list began, the cut page may still be named for what it shows (an error page)
        assert len(cut) <= _first_post_at(body), f"{name} cut at {len(cut)}: {type(exc).__name__} {exc}"
        return
    is_json = body.lstrip()[:1] == b"{"
    assert (cut.rstrip() == body.rstrip()) if is_json else html_complete(cut), f"{name} cut at {len(cut)}"
    assert _posts(page) == whole


@pytest.mark.parametrize("name", [n for n, _, _ in REAL if n.endswith(".html")][:6])
def test_a_page_cut_inside_its_post_list_names_the_cut(name: str) -> None:
    _, body, request = next(r for r in REAL if r[0] == name)
    cut = body[: _first_post_at(body) + 300]
    with pytest.raises(TruncatedPage, match="no closing </html>"):
        _parse(cut, request)


def test_api_json_cut_mid_object_is_truncated_and_broken_json_is_not() -> None:
    body = (PAGES / "api_v4_states.json").read_bytes()
    request = {"url": "http://b/api/mobile/index.php?version=4&module=viewthread&tid=130&page=3"}
    with pytest.raises(TruncatedPage, match="ends mid-object"):
        _parse(body[: len(body) // 2], request)
    broken = body[:100] + b"}}}" + body[100:]
    with pytest.raises(BoardError) as raised:
        _parse(broken, request)
    assert not isinstance(raised.value, TruncatedPage)


def _pc_states() -> ThreadPage:
    body = (PAGES / "pc_states.html").read_bytes()
    request = json.loads((PAGES / "pc_states.expected.json").read_text(encoding="utf-8"))["request"]
    page = _parse(body, request)
    assert (page.thread.page, page.thread.pages, [p.floor for p in page.posts]) == (
        2,
        12,
        list(range(11, 21)),
    )
    return page


def test_a_short_page_that_is_not_the_last_is_cut_off() -> None:
    page = _pc_states()
    renumbered = dataclasses.replace(
        page, posts=tuple(dataclasses.replace(p, floor=None, floor_exact=False) for p in page.posts[:7])
    )
    with pytest.raises(TruncatedPage, match="page 2 of 12 holds 7 posts, fewer than the 10"):
        check_post_count(renumbered, 10)


def test_floors_outside_one_page_range_do_not_explain_a_short_page() -> None:
    page = _pc_states()
    shifted = dataclasses.replace(
        page, posts=(*page.posts[1:7], dataclasses.replace(page.posts[0], floor=21))
    )
    with pytest.raises(TruncatedPage):
        check_post_count(shifted, 10)


def test_deleted_floors_leave_a_short_page_that_is_whole() -> None:
    """Discuz! X3.5 pages by floor: floors 18-20 deleted leave page 2 with 7 posts, all of floors 11-17."""
    page = _pc_states()
    check_post_count(dataclasses.replace(page, posts=page.posts[:7]), 10)
    check_post_count(page, 10)  # a full page
    last = dataclasses.replace(page, thread=dataclasses.replace(page.thread, page=12), posts=page.posts[:1])
    check_post_count(dataclasses.replace(last, posts=()), 10)  # the last page may hold anything
