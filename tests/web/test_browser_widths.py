"""The desk at a desktop's and a phone's width (issue 20: many judges check from a phone): no page
scrolls sideways, tables become cards on a phone, and the chart's labels stay readable.

Every page is photographed at both widths into ``$FORUMBOT_SCREENSHOTS`` (default
``test-artifacts/screenshots``) under a stable name, ``<width>-<page>.png`` (``phone-day-1.png``,
``desktop-outbox.png``...), so a reviewer compares the desk's look run after run."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import JUDGE, PASSWORD, Desk
from tests.web.test_browser import ARTIFACTS, base_url, browser  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1366, 900), "phone": (390, 844)}
SCREENSHOTS = Path(os.environ.get("FORUMBOT_SCREENSHOTS", str(ARTIFACTS / "screenshots")))


def _pages(desk: Desk) -> list[str]:
    urls = ["/", "/outbox", "/history", "/setup", "/post/" + _a_pid(desk), "/day/99"]
    for d in desk.game.days:
        urls += [f"/day/{d.day}", f"/night/{d.day}"]
    urls.append(f"/night/{max(d.day for d in desk.game.days) + 1}")
    return urls


def shot_name(width: str, url: str) -> str:
    """A page's screenshot name, the same every run: ``phone-game.png``, ``desktop-night-3.png``,
    ``phone-post.png`` (whichever post), ``desktop-not-found.png`` (the 404 page)."""
    if url == "/":
        page = "game"
    elif url.startswith("/post/"):
        page = "post"
    elif url == "/day/99":
        page = "not-found"
    else:
        page = url.strip("/").replace("/", "-")
    return f"{width}-{page}.png"


def _a_pid(desk: Desk) -> str:
    from forumbot.web import data

    return str(next(v.pid for v in data.day_view(desk.game, desk.store, 1).verdicts if v.revisions > 1))


@pytest.fixture(params=sorted(WIDTHS))
def sized_page(browser: Any, base_url: str, request: pytest.FixtureRequest) -> Iterator[tuple[str, Any]]:  # noqa: F811
    w, h = WIDTHS[request.param]
    ctx = browser.new_context(viewport={"width": w, "height": h}, base_url=base_url, is_mobile=w < 500)
    pg = ctx.new_page()
    pg.set_default_timeout(15000)
    pg.goto("/login")
    pg.fill("input[name=name]", JUDGE)
    pg.fill("input[name=password]", PASSWORD)
    pg.click("section.login button[type=submit]")
    pg.wait_for_url(re.compile(r"/$"))
    yield request.param, pg
    ctx.close()


OVERFLOW_JS = """() => {
  const doc = document.documentElement;
  const wide = [];
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || el.closest('details:not([open]) > :not(summary)')) continue;
    let boxed = false;  // inside a box that scrolls (or clips) by itself: the page does not move
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) { boxed = true; break; }
    }
    if (boxed) continue;
    if (r.right > doc.clientWidth + 1) wide.push(el.tagName + '.' + el.className + ':' + Math.round(r.right));
  }
  return {scroll: doc.scrollWidth, client: doc.clientWidth, wide: wide.slice(0, 5)};
}"""


def test_no_page_scrolls_sideways(sized_page: tuple[str, Any], desk: Desk) -> None:
    width, page = sized_page
    bad = {}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for url in _pages(desk):
        page.goto(url)
        page.screenshot(path=str(SCREENSHOTS / shot_name(width, url)), full_page=True)
        m = page.evaluate(OVERFLOW_JS)
        if m["scroll"] > m["client"] or m["wide"]:
            bad[url] = m
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"overflow-{width}-{url.strip('/').replace('/', '-')}.png"))
    assert not bad, bad


def test_on_a_phone_tables_are_cards_with_their_headers(sized_page: tuple[str, Any]) -> None:
    width, page = sized_page
    page.goto("/day/1")
    cell = page.locator("tr.verdict td").nth(1)
    label = cell.get_attribute("data-label")
    assert label, "every cell knows its column's header"
    display = cell.evaluate("el => getComputedStyle(el).display")
    if width == "phone":
        assert display == "block"
        assert page.locator("table.verdicts thead").evaluate("el => getComputedStyle(el).display") == "none"
    else:
        assert display == "table-cell"


def test_the_chart_labels_are_readable_on_a_phone(sized_page: tuple[str, Any]) -> None:
    _width, page = sized_page
    page.goto("/day/1")
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('.chart svg text')].map(t => t.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 9, sizes
