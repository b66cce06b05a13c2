"""The night page lists the messages the runner read with their verdicts, and a judge overrides one of
them there (CSRF, login, logged with who and why), or undoes the override (issue 10).

The bundled example is at night 3 (after day 2's close); night 3's submissions are due 2026-06-05
17:00 Beijing. The test stores two messages as the runner would have read them.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from flask.testing import FlaskClient

from engine import GroupId, Kill
from forumbot.desk import Desk as JudgeDesk
from forumbot.nightmail import NightChannel, NightMessage
from forumbot.store import judges
from forumbot.web import data
from tests.web.conftest import JUDGE, Desk, csrf_of

AT = datetime(2026, 6, 5, 8, 0, tzinfo=UTC)  # 16:00 Beijing, before night 3's deadline


def _messages(desk: Desk) -> tuple[str, str]:
    """Night 3's messages: the living bandits' kill in their thread, and a doubtful PM from one of them.
    Returns (the bandit who asks, the player he names)."""
    st = data.secret_state(desk.game, desk.store)
    assert st is not None and st.round == 3
    bandits = [name for name in st.group_members(GroupId.BANDITS) if st.is_alive(name)]
    others = [p.name for p in st.players if p.alive and p.name not in bandits]
    assert bandits and len(others) >= 2
    msgs = [
        NightMessage(
            "pid:900", NightChannel.GROUP_THREAD, bandits[0], AT, f"杀：{others[0]}", group=GroupId.BANDITS
        ),
        NightMessage(
            "pm:90", NightChannel.PM, bandits[-1], AT.replace(minute=20), f"要不要改杀{others[1]}？"
        ),
    ]
    JudgeDesk(desk.game, desk.store, by="runner").record_night_messages(3, msgs)
    return bandits[-1], others[1]


def row(html: str, message_id: str) -> str:
    anchor = message_id.replace(":", "-")
    m = re.search(rf'<tr id="m-{anchor}".*?</tr>', html, flags=re.S)
    assert m, f"no row for {message_id}"
    return m.group(0)


def test_the_night_page_lists_each_message_with_its_verdict_and_what_waits(
    client: FlaskClient, desk: Desk
) -> None:
    _messages(desk)
    html = client.get("/night/3").get_data(as_text=True)
    assert 'data-code="accepted"' in row(html, "pid:900")
    doubtful = row(html, "pm:90")
    assert 'data-code="ambiguous"' in doubtful and "⚑" in doubtful and "私信法官" in doubtful
    assert 'class="error waiting"' in html  # what the runner waits for is said above the table
    assert 'name="csrf"' in doubtful and 'action="/night/3/override"' in doubtful


def test_a_judge_accepts_a_doubtful_message_on_the_night_page_and_it_is_logged(
    client: FlaskClient, desk: Desk
) -> None:
    asker, named = _messages(desk)
    token = csrf_of(client.get("/night/3").get_data(as_text=True))
    resp = client.post(
        "/night/3/override",
        data={"csrf": token, "message_id": "pm:90", "as_kind": "accept", "kind": "kill", "target": named,
              "why": "匪帮确认改刀"},
    )  # fmt: skip
    assert resp.status_code == 302 and resp.headers["Location"].endswith("#m-pm-90")
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert f"已记录 {JUDGE} 对消息 pm:90 的改判" in page
    accepted = row(page, "pm:90")
    assert 'data-code="accepted"' in accepted and "匪帮确认改刀" in accepted and JUDGE in accepted
    assert 'class="error waiting"' not in page  # nothing waits for a judge any more
    mail = JudgeDesk(desk.game, desk.store).night_mail(3)
    assert mail.complete and mail.night.on_time(Kill.kind) == Kill(named, by=asker)
    log = judges.desk_log(desk.store)
    assert log[0].who == JUDGE and log[0].action == "night override"
    assert "pm:90" in log[0].detail and "匪帮确认改刀" in log[0].detail and named in log[0].detail

    # undone from the same page: the message is doubtful again, and the undo is logged too
    token = csrf_of(page)
    resp = client.post("/night/3/override/undo", data={"csrf": token, "message_id": "pm:90", "why": "再问问"})
    assert resp.status_code == 302
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert f"{JUDGE} 已撤销对消息 pm:90 的改判" in page
    assert 'data-code="ambiguous"' in row(page, "pm:90")
    assert judges.desk_log(desk.store)[0].action == "night override undo"


def test_a_night_override_without_its_token_or_reason_changes_nothing(
    client: FlaskClient, desk: Desk
) -> None:
    _messages(desk)
    form = {"message_id": "pm:90", "as_kind": "ignore", "why": "只是问问"}
    for sent in (form, {**form, "csrf": "forged"}):
        assert client.post("/night/3/override", data=sent).status_code == 400
    token = csrf_of(client.get("/night/3").get_data(as_text=True))
    resp = client.post("/night/3/override", data={**form, "csrf": token, "why": " "})
    assert resp.status_code == 400 and "--why" in resp.get_data(as_text=True)
    assert JudgeDesk(desk.game, desk.store).night_override_history() == []
    assert judges.desk_log(desk.store) == []


def test_a_resolved_nights_messages_have_no_override_form(client: FlaskClient, desk: Desk) -> None:
    JudgeDesk(desk.game, desk.store, by="runner").record_night_messages(
        1, [NightMessage("pm:91", NightChannel.PM, "饺子", datetime(2026, 6, 3, 8, 0, tzinfo=UTC), "辛苦了")]
    )
    html = client.get("/night/1").get_data(as_text=True)
    assert 'data-code="not_a_submission"' in row(html, "pm:91")
    assert "/night/1/override" not in html


def test_a_night_without_stored_messages_says_when_they_are_read(client: FlaskClient) -> None:
    html = client.get("/night/2").get_data(as_text=True)
    assert "没有保存这一夜的消息：运行器在截止时读取。" in html
    assert 'class="verdicts night-messages"' not in html
