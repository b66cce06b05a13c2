"""Pages refresh when the store moves (issue 20): ``/changes`` answers, cheaply and in JSON, whether
anything a page shows changed since the stamp the page was drawn with — a step of the secret state,
an outbox edit, a post read, a night message — whoever made it (another judge, the runner, a command)."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from forumbot.desk import Desk as JudgeDesk
from forumbot.outbox import ItemKind, Outbox, Reply
from tests.web.conftest import Desk

STAMP = re.compile(r'data-stamp="([^"]+)"')


def stamp_of(client: FlaskClient, url: str = "/history") -> str:
    m = STAMP.search(client.get(url).get_data(as_text=True))
    assert m, "the page carries the stamp it was drawn from"
    return m.group(1)


def test_nothing_changed_says_so(client: FlaskClient) -> None:
    since = stamp_of(client)
    answer = client.get(f"/changes?since={since}").get_json()
    assert answer["changed"] is False and answer["stamp"] == since
    assert {"state_version", "outbox_revision", "posts"} <= set(answer)
    assert answer["posts"] > 0


def test_another_judges_undo_and_outbox_edit_are_changes(client: FlaskClient, desk: Desk) -> None:
    since = stamp_of(client)
    version = client.get("/changes").get_json()["state_version"]
    JudgeDesk(desk.game, desk.store, by="二号法官").undo()
    answer = client.get(f"/changes?since={since}").get_json()
    assert answer["changed"] is True and answer["state_version"] == version + 1

    since = stamp_of(client, "/outbox")
    ob = Outbox(desk.store, desk.game, by="二号法官")
    item = ob.add(ItemKind.JUDGE_POST, Reply(3), "[b]法官提醒[/b]")
    moved = client.get(f"/changes?since={since}").get_json()
    assert moved["changed"] is True
    since = moved["stamp"]
    ob.approve(item, by="二号法官", body="[b]法官提醒[/b]：改")
    assert client.get(f"/changes?since={since}").get_json()["changed"] is True


def test_the_changes_need_a_login(desk: Desk) -> None:
    resp = desk.app.test_client().get("/changes")
    assert resp.status_code == 302 and "/login" in resp.headers["Location"]


def test_a_page_shown_again_after_a_refusal_refreshes_to_its_own_address(client: FlaskClient) -> None:
    """A refused form's page is drawn by a POST: reloading it would post again, so it names its page."""
    page = client.get("/day/2").get_data(as_text=True)
    token = re.search(r'name="csrf" value="([^"]+)"', page)
    assert token
    resp = client.post("/day/2/proxy", data={"csrf": token.group(1), "player": "", "target": ""})
    assert resp.status_code == 400
    assert 'data-page-url="/day/2"' in resp.get_data(as_text=True)
