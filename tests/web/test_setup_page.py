"""Setup from the desk (issue 20): the roster's roles drawn with a recorded seed or given by the judges,
through the same desk operation as ``forumbot setup``; stored roles are replaced only when a judge
ticks «重新抽取» on a page showing the current state, and a refused form keeps what was typed."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from forumbot.desk import Desk as JudgeDesk
from forumbot.store import judges
from forumbot.web import data
from tests.web.conftest import JUDGE, Desk, csrf_of

VERSION = re.compile(r'name="state_version" value="(\d+)"')


def _form(page: str, **fields: str) -> dict[str, str]:
    shown = VERSION.search(page)
    assert shown is not None
    return {"csrf": csrf_of(page), "state_version": shown.group(1), **fields}


def _current(desk: Desk) -> str:
    return JudgeDesk(desk.game, desk.store).live_history()[-1].label


def test_the_page_shows_the_stored_roles_and_refuses_a_second_draw_unticked(
    client: FlaskClient, desk: Desk
) -> None:
    page = client.get("/setup").get_data(as_text=True)
    st = data.secret_state(desk.game, desk.store)
    assert st is not None
    assert all(p.name in page for p in st.players) and 'name="force"' in page
    before = _current(desk)
    resp = client.post("/setup", data=_form(page, mode="seed", seed="7", variant=""))
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    assert "重新抽取" in html and 'name="seed" inputmode="numeric" value="7"' in html
    assert _current(desk) == before


def test_a_judge_draws_again_with_a_seed_and_sees_the_notices(client: FlaskClient, desk: Desk) -> None:
    page = client.get("/setup").get_data(as_text=True)
    resp = client.post("/setup", data=_form(page, mode="seed", seed="7", force="1"))
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200, html
    assert f"{JUDGE} 已为 12 位玩家保存身份" in html and "种子 7" in html
    assert html.count('class="draft" id="notice-') == 12  # one private notice per player
    assert _current(desk) == "setup (seed 7)"
    again = JudgeDesk(desk.game, desk.store, by="x")
    assert again.state() is not None
    log = judges.desk_log(desk.store)
    assert log[0].who == JUDGE and log[0].action == "setup"


def test_the_judges_give_the_roles_and_a_missing_one_keeps_the_rest(client: FlaskClient, desk: Desk) -> None:
    st = data.secret_state(desk.game, desk.store)
    assert st is not None
    view = data.setup_view(desk.game, desk.store)
    given = {f"role-{i}": role for i, (_name, role) in enumerate(view.stored)}
    given["role-0"], given["role-1"] = given["role-1"], given["role-0"]
    page = client.get("/setup").get_data(as_text=True)
    resp = client.post("/setup", data=_form(page, mode="given", force="1", **{**given, "role-5": ""}))
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    assert view.roster[5] in html and "请给每位玩家指定身份" in html
    assert f"<option selected>{given['role-0']}</option>" in html  # the other choices are kept
    resp = client.post("/setup", data=_form(page, mode="given", force="1", **given))
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert _current(desk) == "setup (roles given by the judges)"
    stored = dict(data.setup_view(desk.game, desk.store).stored)
    assert stored[view.roster[0]] == view.stored[1][1] and stored[view.roster[1]] == view.stored[0][1]


def test_a_setup_from_an_old_page_is_refused(client: FlaskClient, desk: Desk) -> None:
    page = client.get("/setup").get_data(as_text=True)
    JudgeDesk(desk.game, desk.store, by="二号法官").undo()
    before = _current(desk)
    resp = client.post("/setup", data=_form(page, mode="seed", seed="9", force="1"))
    assert resp.status_code == 400 and "二号法官 已于" in resp.get_data(as_text=True)
    assert _current(desk) == before
