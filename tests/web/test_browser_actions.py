"""A judge runs a day and a night from the desk alone, in a real browser (issue 20): reopens night 2
and day 2 on the history page, resolves the night, then closes the day, confirming each dialog, with
no command line anywhere. Fixtures and skips as tests/web/test_browser.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from forumbot.store import judges
from forumbot.web import data
from tests.web.conftest import JUDGE, Desk
from tests.web.test_browser import base_url, browser, log_in, page  # noqa: F401  (the fixtures)

pytestmark = pytest.mark.browser


def current(desk: Desk) -> str:
    """The label of the secret state's current version."""
    return next(h.label for h in data.state_history(desk.game, desk.store) if h.current)


def confirm_and_click(page: Any, selector: str) -> str:  # noqa: F811
    """Click a button whose form asks for confirmation, accept the dialog, return what it asked."""
    asked: list[str] = []

    def accept(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.click(selector)
    page.wait_for_load_state()
    return asked[0] if asked else ""


def test_a_judge_resolves_a_night_and_closes_a_day_from_the_desk_alone(page: Any, desk: Desk) -> None:  # noqa: F811
    log_in(page)
    for _ in range(2):  # undo day 2's close, then night 2's resolution
        page.goto("/history")
        confirm_and_click(page, "form.undo button")
        page.wait_for_selector(".flash")
    assert current(desk) == "第1日"

    page.goto("/night/2")
    asked = confirm_and_click(page, "#resolve-night")
    assert "第2夜" in asked
    page.wait_for_url(re.compile(r"/night/2$"))
    assert "已由 执法甲 结算" in page.inner_text("main")
    assert page.locator("#resolve-night").count() == 0

    page.goto("/day/2")
    asked = confirm_and_click(page, "#close-day")
    assert "第2日" in asked
    page.wait_for_url(re.compile(r"/day/2$"))
    assert "出局：月饼" in page.inner_text("main")
    assert page.locator("#close-day").count() == 0

    assert current(desk) == "第2日"
    actions = [e.action for e in judges.desk_log(desk.store, limit=2) if e.who == JUDGE]
    assert actions == ["close day", "resolve night"]
