"""What a judge typed survives a refusal, in a real browser (issue 20): the night's entry form and an
outbox edit are refused (a submission without its target; another judge's newer edit) and the page
comes back with the Chinese reason next to the form and every value as typed. Fixtures and skips as
tests/web/test_browser.py."""

from __future__ import annotations

from typing import Any

import pytest

from engine import GroupId
from forumbot.outbox import ItemKind, Outbox, Reply
from forumbot.store import outbox as outbox_store
from forumbot.web import data
from tests.web.conftest import Desk
from tests.web.test_browser import base_url, browser, log_in, page  # noqa: F401  (the fixtures)

pytestmark = pytest.mark.browser


def _accept_dialogs(page: Any) -> None:  # noqa: F811
    page.on("dialog", lambda d: d.accept())


def test_a_refused_night_entry_keeps_every_value(page: Any, desk: Desk) -> None:  # noqa: F811
    st = data.secret_state(desk.game, desk.store)
    assert st is not None
    bandit = next(n for n in st.group_members(GroupId.BANDITS) if st.is_alive(n))
    log_in(page)
    _accept_dialogs(page)
    page.goto("/night/3")
    page.click("#enter-submission summary")
    form = page.locator("form.enter-sub")
    form.locator("select[name=kind]").select_option("kill")
    form.locator("select[name=by]").select_option(bandit)
    form.locator("select[name=pledge]").select_option(bandit)
    form.locator("input[name=kill_text]").fill("月黑风高")
    form.locator("input[name=at]").fill("2026-06-05T16:30")
    form.locator("input[name=why]").fill("匪帮私信，没写刀谁")
    form.locator("button[type=submit]").click()  # no target and no 空刀: refused
    page.wait_for_selector("form.enter-sub .form-error")
    form = page.locator("form.enter-sub")
    assert form.locator("select[name=kind]").input_value() == "kill"
    assert form.locator("select[name=by]").input_value() == bandit
    assert form.locator("select[name=pledge]").input_value() == bandit
    assert form.locator("input[name=kill_text]").input_value() == "月黑风高"
    assert form.locator("input[name=at]").input_value() == "2026-06-05T16:30"
    assert form.locator("input[name=why]").input_value() == "匪帮私信，没写刀谁"
    assert page.locator("#enter-submission").get_attribute("open") is not None
    assert page.url.endswith("/night/3/submit")


def test_a_stale_outbox_edit_keeps_the_typed_text(page: Any, desk: Desk) -> None:  # noqa: F811
    ob = Outbox(desk.store, desk.game, by="一号法官")
    item = ob.add(ItemKind.JUDGE_POST, Reply(3), "[b]法官提醒[/b]：今晚 17:00 前提交行动")
    log_in(page)
    _accept_dialogs(page)
    page.goto("/outbox")
    outbox_store.revise(  # another judge, meanwhile
        desk.store, item, body="[b]法官提醒[/b]：改为 18:00", subject=None, by="二号法官", expect={"draft"}
    )
    area = page.locator(f"#body-{item}")
    area.fill("[b]法官提醒[/b]：改为 19:00，过时不候")
    page.locator(f"#item-{item} button.approve").click()
    page.wait_for_selector(f"#item-{item} .form-error")
    assert "二号法官 已于" in page.inner_text(f"#item-{item} .form-error")
    assert page.locator(f"#body-{item}").input_value() == "[b]法官提醒[/b]：改为 19:00，过时不候"
    assert ob.get(item).body == "[b]法官提醒[/b]：改为 18:00"
