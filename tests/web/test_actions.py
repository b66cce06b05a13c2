"""Acting from the desk (issue 20): a judge closes a day, calls a revote, enters a proxy vote (代投),
resolves a night and polls the board from the web desk. Each action is the CLI's own desk operation,
is logged with the judge's name, and a refusal names what to do on the desk (never a command line)
and keeps what the judge typed.

The bundled example is at night 3 after day 2's close: day 2 ended 月饼 4 : 春卷 3, 煎饼 not voting.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
import responses
from flask.testing import FlaskClient

from forumbot.desk import Desk as JudgeDesk
from forumbot.exampleboard.server import LiveBoard
from forumbot.store import judges
from forumbot.web import data
from forumbot.web.app import create_app
from tests.web.conftest import JUDGE, Desk, csrf_of, log_in


def post(client: FlaskClient, url: str, page: str, **form: str) -> tuple[int, str]:
    token = csrf_of(client.get(page).get_data(as_text=True))
    resp = client.post(url, data={"csrf": token, **form}, follow_redirects=True)
    return resp.status_code, resp.get_data(as_text=True)


def last_log(desk: Desk) -> tuple[str, str, str]:
    e = judges.desk_log(desk.store, limit=1)[0]
    return e.who, e.action, e.detail


def current(desk: Desk) -> str:
    """The label of the secret state's current version (undone versions stay in the history)."""
    return next(h.label for h in data.state_history(desk.game, desk.store) if h.current)


def reopen_day_2(desk: Desk) -> None:
    """Undo day 2's close, as a judge does on the history page before correcting it."""
    data.undo(desk.game, desk.store, JUDGE)


def test_a_judge_closes_a_day_from_the_desk_and_it_is_logged(client: FlaskClient, desk: Desk) -> None:
    reopen_day_2(desk)
    assert current(desk) == "第2夜"
    page = client.get("/day/2").get_data(as_text=True)
    assert 'id="close-day"' in page and "data-confirm" in page
    status, html = post(client, "/day/2/close", "/day/2")
    assert status == 200
    assert "月饼" in html and JUDGE in html
    assert current(desk) == "第2日"
    assert last_log(desk)[:2] == (JUDGE, "close day")
    assert 'id="close-day"' not in html  # a closed day offers no second close


def test_closing_a_closed_day_is_refused_with_the_desk_way_to_undo(client: FlaskClient, desk: Desk) -> None:
    before = data.state_history(desk.game, desk.store)
    status, html = post(client, "/day/2/close", "/day/1", force_why="我们手工点过票")
    assert status == 400
    message = re.search(r'id="action-error">([^<]*)<', html)
    assert message and "历史" in message.group(1) and "forumbot" not in message.group(1)
    assert data.state_history(desk.game, desk.store) == before


def test_a_proxy_vote_entered_on_the_desk_counts_and_is_logged(client: FlaskClient, desk: Desk) -> None:
    reopen_day_2(desk)
    status, html = post(client, "/day/2/proxy", "/day/2", player="煎饼", target="春卷", at="2026-06-05 11:00")
    assert status == 200 and "煎饼" in html
    assert last_log(desk) == (JUDGE, "proxy vote", "day 2 煎饼 → 春卷 at 06-05 11:00")
    tally = {t.target: t.count for t in data.day_view(desk.game, desk.store, 2).tally}
    assert tally["春卷"] == 4


def test_a_refused_proxy_vote_keeps_what_the_judge_typed(client: FlaskClient, desk: Desk) -> None:
    reopen_day_2(desk)
    logged = judges.desk_log(desk.store, limit=1)
    status, html = post(
        client, "/day/2/proxy", "/day/2", player="煎饼", target="无名氏", at="2026-06-05 11:00"
    )
    assert status == 400
    assert 'id="action-error"' in html and "无名氏" in html.split('id="action-error"')[1].split("</p>")[0]
    assert 'name="target" list="roster" value="无名氏"' in html
    assert 'name="at" value="2026-06-05 11:00"' in html
    assert judges.desk_log(desk.store, limit=1) == logged


def test_a_tie_makes_the_revote_button_appear_and_the_call_is_recorded(
    client: FlaskClient, desk: Desk
) -> None:
    reopen_day_2(desk)
    assert "act-revote" not in client.get("/day/2").get_data(as_text=True)
    # 春卷's vote for 月饼 voided: 月饼 3 : 春卷 3, and 春卷 and 煎饼 scattered (R001 §c.2)
    data.override(desk.game, desk.store, 44, "void", None, "测试：作废", JUDGE)
    assert data.revote_due(desk.game, desk.store, 2)
    assert "act-revote" in client.get("/day/2").get_data(as_text=True)
    status, _html = post(client, "/day/2/revote", "/day/2")
    assert status == 200
    called = JudgeDesk(desk.game, desk.store, by="test").tally(2).result.revotes
    assert [rv.plan.number for rv in called][:1] == [1]  # revote #1 is judged from its recorded call
    assert last_log(desk)[:2] == (JUDGE, "revote call")


def test_a_revote_is_refused_where_the_count_has_none(client: FlaskClient, desk: Desk) -> None:
    reopen_day_2(desk)
    status, html = post(client, "/day/2/revote", "/day/2", called_at="2026-06-05 13:05")
    assert status == 400 and 'id="action-error"' in html
    assert 'name="called_at"' not in html or 'value="2026-06-05 13:05"' in html
    assert last_log(desk)[1] == "undo"


def test_a_judge_resolves_a_night_from_the_desk_and_it_is_logged(client: FlaskClient, desk: Desk) -> None:
    page = client.get("/night/3").get_data(as_text=True)
    assert 'id="resolve-night"' in page and "data-confirm" in page
    status, _html = post(client, "/night/3/resolve", "/night/3")
    assert status == 200
    assert current(desk) == "第3夜"
    assert last_log(desk)[:2] == (JUDGE, "resolve night")


def test_a_resolved_night_is_refused_with_the_desk_way_to_undo(client: FlaskClient, desk: Desk) -> None:
    status, html = post(client, "/night/2/resolve", "/night/2")
    assert status == 400
    message = re.search(r'id="action-error">([^<]*)<', html)
    assert message and "历史" in message.group(1) and "forumbot" not in message.group(1)


def test_polling_from_the_desk_reads_the_board_as_forumbot_poll_does(desk: Desk) -> None:
    with LiveBoard.example("meishi", now="s3") as board:
        game = dataclasses.replace(desk.game, board=dataclasses.replace(desk.game.board, url=board.url))
        app = create_app(game, desk.store, secret="test-secret")
        app.config["TESTING"] = True
        client = app.test_client()
        log_in(client)
        status, html = post(client, "/day/2/poll", "/day/2")
        assert board.requests  # the board was read
    assert status == 200, html
    assert last_log(desk)[:2] == (JUDGE, "poll")


@responses.activate
def test_a_poll_of_a_board_that_is_down_says_so_and_what_to_press(desk: Desk) -> None:
    responses.add(responses.GET, re.compile(r"http://board\.invalid/.*"), status=503)
    board = dataclasses.replace(desk.game.board, url="http://board.invalid/", retries=0)
    app = create_app(dataclasses.replace(desk.game, board=board), desk.store, secret="test-secret")
    app.config["TESTING"] = True
    client = app.test_client()
    log_in(client)
    status, html = post(client, "/day/2/poll", "/day/2")
    assert status == 400
    message = re.search(r'id="action-error">([^<]*)<', html)
    assert message and "forumbot" not in message.group(1), html
    assert "立即读取论坛" in message.group(1)
    assert last_log(desk)[:2] == (JUDGE, "poll")  # the failed read is in the desk log with who tried


@pytest.mark.parametrize("url", ["/day/2/close", "/night/3/resolve", "/day/2/proxy", "/day/2/poll"])
def test_an_action_without_the_forms_token_changes_nothing(client: FlaskClient, desk: Desk, url: str) -> None:
    before = data.state_history(desk.game, desk.store)
    assert client.post(url, data={"player": "煎饼", "target": "春卷"}).status_code == 400
    assert data.state_history(desk.game, desk.store) == before


def test_correcting_a_closed_days_post_names_the_desks_way_not_a_command(
    client: FlaskClient, desk: Desk
) -> None:
    status, html = post(client, "/day/2/override", "/day/2", pid="44", as_kind="void", why="作废")
    assert status == 400
    assert "历史" in html and "结算本日" in html and "forumbot" not in html.split("<main")[-1]


def test_correcting_a_resolved_nights_message_names_the_desks_way_not_a_command(
    client: FlaskClient, desk: Desk
) -> None:
    status, html = post(client, "/night/2/override", "/night/2", message_id="pm:1", as_kind="ignore", why="x")
    assert status == 400
    assert "历史" in html and "结算本夜" in html and "forumbot" not in html.split("<main")[-1]


def test_a_close_from_a_page_older_than_the_state_is_refused(client: FlaskClient, desk: Desk) -> None:
    """Two judges: the page showed one state version, another judge changed the state since; the close
    names the version the page showed and is refused (StaleChange), the state unchanged."""
    reopen_day_2(desk)
    page = client.get("/day/2").get_data(as_text=True)
    shown = re.search(r'name="state_version" value="(\d+)"', page)
    assert shown, "the close form carries the state version it was shown with"
    data.undo(desk.game, desk.store, "二号法官")  # another judge steps back once more
    before = current(desk)
    status, html = post(client, "/day/2/close", "/day/2", state_version=shown.group(1))
    assert status == 400 and "二号法官" in html and "请刷新" in html
    assert current(desk) == before
