"""Live refresh in a real browser (issue 20): a change made elsewhere — another judge's desk, another
process on the store — appears on an open page by itself; a page with a form being filled keeps what
the judge typed and offers «有新变化，点击刷新» instead. Fixtures and skips as tests/web/test_browser.py."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest

from forumbot.desk import Desk as JudgeDesk
from tests.web.conftest import Desk
from tests.web.test_browser import base_url, browser, log_in, page  # noqa: F401  (the fixtures)

pytestmark = pytest.mark.browser

POLL_MS = 300


def _another_process_undoes(desk: Desk, judge: str) -> None:
    """A second judge's command in another process: ``Desk.undo`` on the same store file."""
    code = (
        "import sys\n"
        "from forumbot.desk import Desk\n"
        "from forumbot.store.db import open_store\n"
        "from forumbot.web import data\n"
        "store = open_store(sys.argv[1])\n"
        "game = data.example_game(store.url, data.board_of(store))\n"
        "Desk(game, store, by=sys.argv[2]).undo()\n"
        "store.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, str(desk.path), judge], check=True, timeout=120)


def test_a_change_made_by_another_process_appears_by_itself(page: Any, desk: Desk) -> None:  # noqa: F811
    desk.app.config["DESK_POLL_MS"] = POLL_MS
    log_in(page)
    page.goto("/history")
    assert page.locator("tr.undone").count() == 0
    _another_process_undoes(desk, "二号法官")
    page.wait_for_selector("tr.undone .undone-by", timeout=10000)  # the page reloaded by itself
    assert "二号法官" in page.inner_text("tr.undone")
    assert page.locator(".changed-banner").count() == 0


def test_a_form_being_filled_is_kept_and_the_change_is_offered(page: Any, desk: Desk) -> None:  # noqa: F811
    desk.app.config["DESK_POLL_MS"] = POLL_MS
    log_in(page)
    page.goto("/night/3")
    page.click("#enter-submission summary")
    page.fill("form.enter-sub input[name=why]", "匪帮私信：刀汤圆")
    JudgeDesk(desk.game, desk.store, by="二号法官").undo()  # another judge, meanwhile
    banner = page.wait_for_selector("#refresh-now", timeout=10000)
    assert banner is not None and banner.inner_text() == "有新变化，点击刷新"
    assert page.input_value("form.enter-sub input[name=why]") == "匪帮私信：刀汤圆"  # nothing lost
    banner.click()
    page.wait_for_url(re.compile(r"/night/3$"))
    page.wait_for_load_state()
    assert page.locator(".changed-banner").count() == 0
    assert page.locator("#undo-night").count() == 0  # night 3 is no longer the current step
