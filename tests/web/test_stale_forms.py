"""A form posted from an old page (issue 20): each form that changes the secret state carries the state
version its page showed, each outbox form the item's revision; when another judge changed it since, the
post is refused with who changed what and when, and nothing changes."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from forumbot.desk import Desk as JudgeDesk
from forumbot.outbox import ItemKind, Outbox, Reply
from forumbot.store import outbox as outbox_store
from tests.web.conftest import Desk, csrf_of

VERSION = re.compile(r'name="state_version" value="(\d+)"')


def _live(desk: Desk) -> list[str]:
    return [v.label for v in JudgeDesk(desk.game, desk.store).live_history()]


def test_an_undo_posted_from_an_old_history_page_is_refused(client: FlaskClient, desk: Desk) -> None:
    old_page = client.get("/history").get_data(as_text=True)
    shown = VERSION.search(old_page)
    assert shown is not None  # the form carries the version it shows
    JudgeDesk(desk.game, desk.store, by="二号法官").undo()  # another judge, meanwhile
    before = _live(desk)
    resp = client.post("/history/undo", data={"csrf": csrf_of(old_page), "state_version": shown.group(1)})
    assert resp.status_code == 400
    message = resp.get_data(as_text=True)
    assert "二号法官 已于" in message and "撤销" in message and "请刷新" in message
    assert _live(desk) == before


def test_an_undo_from_the_current_page_goes_through(client: FlaskClient, desk: Desk) -> None:
    page = client.get("/history").get_data(as_text=True)
    shown = VERSION.search(page)
    assert shown is not None
    before = _live(desk)
    resp = client.post("/history/undo", data={"csrf": csrf_of(page), "state_version": shown.group(1)})
    assert resp.status_code == 302
    assert _live(desk) == before[:-1]


def test_an_outbox_edit_posted_from_an_old_page_keeps_the_newer_edit(client: FlaskClient, desk: Desk) -> None:
    ob = Outbox(desk.store, desk.game, by="一号法官")
    item = ob.add(ItemKind.JUDGE_POST, Reply(3), "[b]法官提醒[/b]：今晚 17:00 前提交行动")
    old_page = client.get("/outbox").get_data(as_text=True)
    assert f'name="revision" value="{ob.get(item).revision}"' in old_page
    outbox_store.revise(
        desk.store, item, body="[b]法官提醒[/b]：改为 18:00", subject=None, by="二号法官", expect={"draft"}
    )
    resp = client.post(
        f"/outbox/{item}/approve",
        data={"csrf": csrf_of(old_page), "body": "[b]法官提醒[/b]：改为 19:00", "revision": "1"},
    )
    assert resp.status_code == 400
    assert "二号法官 已于" in resp.get_data(as_text=True)
    kept = ob.get(item)
    assert (kept.body, kept.status) == ("[b]法官提醒[/b]：改为 18:00", "draft")
