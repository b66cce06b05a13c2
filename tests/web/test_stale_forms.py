"""A form posted from an old page (issue 20): each form that changes the secret state carries the state
version its page showed, each outbox form the item's revision; when another judge changed it since, the
post is refused with who changed what and when, and nothing changes."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

from forumbot.desk import Desk as JudgeDesk
from forumbot.outbox import ItemKind, Outbox, Reply
from forumbot.store import outbox as outbox_store
from tests.web.conftest import JUDGE, Desk, csrf_of

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


# --------------------------------------------------------------------------- two judges, two sessions

SECOND, SECOND_PASSWORD = "二号法官", "another horse battery"
SEEN = re.compile(r'name="seen" value="(\d+)"')


def _form(page: str, **fields: str) -> dict[str, str]:
    """A form as the page drew it: its CSRF token and the state version it shows, plus ``fields``."""
    shown = VERSION.search(page)
    assert shown is not None
    return {"csrf": csrf_of(page), "state_version": shown.group(1), **fields}


def _refused_by(resp: Any, who: str) -> None:
    text = resp.get_data(as_text=True)
    assert resp.status_code == 400, text
    assert f"{who} 已于" in text and "请刷新" in text, text


def test_two_judges_each_stale_change_is_refused(client: FlaskClient, desk: Desk) -> None:
    """执法甲 (``client``) and 二号法官 (his own session) each act from the page they read; whoever acts
    second on a page older than the other's change is refused, naming the first and when, and nothing
    of his is stored: night entries and corrections, resolve, undo, outbox edit and send, post
    overrides and the close of a day."""
    from forumbot.store import judges as judge_accounts
    from tests.web.conftest import log_in

    judge_accounts.add_judge(desk.store, SECOND, SECOND_PASSWORD)
    other = desk.app.test_client()
    log_in(other, SECOND, SECOND_PASSWORD)
    st = JudgeDesk(desk.game, desk.store).state()
    assert st is not None and (st.phase.value, st.round) == ("night", 3)
    living = [p.name for p in st.players if p.alive]

    # night 3: 执法甲 enters the police's check; both read it; he withdraws it; 二号法官's correction of
    # the same row, from his older page, is refused
    page = client.get("/night/3").get_data(as_text=True)
    police = next(p.name for p in st.players if p.alive and p.role.value == "police")
    entry = {"kind": "check", "by": police, "target": living[0], "at": "2026-06-05T16:00", "why": "警察私信"}
    resp = client.post("/night/3/submit", data=_form(page, **entry))
    assert resp.status_code == 302, resp.get_data(as_text=True)
    row = re.search(r'id="sub-(\d+)"', client.get("/night/3").get_data(as_text=True))
    assert row is not None
    mine, theirs = (c.get("/night/3").get_data(as_text=True) for c in (client, other))
    withdraw = _form(mine, row_id=row.group(1), withdraw="1", why="录错")
    assert client.post("/night/3/correct", data=withdraw).status_code == 302
    correct = {**_form(theirs, **entry), "row_id": row.group(1), "withdraw": "0"}
    _refused_by(other.post("/night/3/correct", data={**correct, "target": living[1], "why": "改验"}), JUDGE)

    # resolve: both read night 3; 执法甲 resolves; 二号法官's resolve from his page is refused
    mine, theirs = (c.get("/night/3").get_data(as_text=True) for c in (client, other))
    assert client.post("/night/3/resolve", data=_form(mine)).status_code == 302
    _refused_by(other.post("/night/3/resolve", data=_form(theirs)), JUDGE)
    assert _live(desk)[-1] == "night 3"

    # undo: both read the history; 二号法官 undoes night 3; 执法甲's undo of the same step is refused
    mine, theirs = (c.get("/history").get_data(as_text=True) for c in (client, other))
    assert other.post("/history/undo", data=_form(theirs)).status_code == 302
    _refused_by(client.post("/history/undo", data=_form(mine)), SECOND)
    assert _live(desk)[-1] == "day 2"

    # the outbox: both read revision 1; 二号法官 edits it; 执法甲's edit and send from revision 1 are
    # refused (his typed text shown again), and the newer edit stays
    ob = Outbox(desk.store, desk.game, by=JUDGE)
    item = ob.add(ItemKind.JUDGE_POST, Reply(3), "[b]法官提醒[/b]：17:00 前提交")
    ob.approve(item, by=JUDGE)
    mine, theirs = (c.get("/outbox").get_data(as_text=True) for c in (client, other))
    edit = {"revision": "1", "body": "[b]法官提醒[/b]：18:00 前提交"}
    assert other.post(f"/outbox/{item}/approve", data={"csrf": csrf_of(theirs), **edit}).status_code == 302
    edit = {"revision": "1", "body": "[b]法官提醒[/b]：19:00 前提交"}
    resp = client.post(f"/outbox/{item}/approve", data={"csrf": csrf_of(mine), **edit})
    _refused_by(resp, SECOND)
    assert "19:00 前提交</textarea>" in resp.get_data(as_text=True)  # what he typed is kept
    _refused_by(client.post(f"/outbox/{item}/send", data={"csrf": csrf_of(mine), "revision": "1"}), SECOND)
    kept = ob.get(item)
    assert (kept.body, kept.status, kept.revision) == ("[b]法官提醒[/b]：18:00 前提交", "approved", 2)

    # day 2, reopened: both read a vote post's verdict; 执法甲 overrides it; 二号法官's override of the
    # same post from his page is refused, his reason kept in the form
    JudgeDesk(desk.game, desk.store, by=JUDGE).undo()
    mine, theirs = (c.get("/day/2").get_data(as_text=True) for c in (client, other))
    pid = re.search(r'<tr id="p(\d+)" class="verdict', mine)
    assert pid is not None and SEEN.search(mine) is not None
    seen = re.search(
        rf'name="pid" value="{pid.group(1)}">\s*<input type="hidden" name="seen" value="(\d+)"', mine
    )
    assert seen is not None
    post = {"pid": pid.group(1), "seen": seen.group(1), "as_kind": "ignore"}
    assert (
        client.post("/day/2/override", data={"csrf": csrf_of(mine), **post, "why": "灌水"}).status_code == 302
    )
    resp = other.post("/day/2/override", data={"csrf": csrf_of(theirs), **post, "why": "不算票"})
    _refused_by(resp, JUDGE)
    assert 'value="不算票"' in resp.get_data(as_text=True)

    # close: both read day 2; 执法甲 closes it; 二号法官's close from his page is refused
    mine, theirs = (c.get("/day/2").get_data(as_text=True) for c in (client, other))
    why = {"force_why": "两位法官已核对主题"}
    assert client.post("/day/2/close", data=_form(mine, **why)).status_code == 302
    _refused_by(other.post("/day/2/close", data=_form(theirs, **why)), JUDGE)
    assert _live(desk).count("day 2") == 1
