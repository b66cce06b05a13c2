"""A judge enters and corrects a night's submissions on the desk (issue 20): a correction withdraws the
stored submission (kept, with who, when and why) and stores the corrected one, and every face builds
the night from what counts — the desk's preview, the CLI's ``night resolve``, the runner. Once the night
is resolved a correction is refused until its resolution is undone, which the night page offers.

The bundled example is at night 3 (after day 2's close), nothing submitted yet; due 06-05 17:00.
"""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from engine import GroupId
from forumbot.desk import Desk as JudgeDesk
from forumbot.store import judges, records
from forumbot.web import data
from tests.web.conftest import JUDGE, Desk, csrf_of

VERSION = re.compile(r'name="state_version" value="(\d+)"')
AT = "2026-06-05T16:30"  # before night 3's deadline, board time


def _cast(desk: Desk) -> tuple[str, list[str]]:
    """(a living bandit, the living players outside the bandits)."""
    st = data.secret_state(desk.game, desk.store)
    assert st is not None and st.round == 3
    bandit = next(n for n in st.group_members(GroupId.BANDITS) if st.is_alive(n))
    others = [p.name for p in st.players if p.alive and p.name not in st.group_members(GroupId.BANDITS)]
    return bandit, others


def _enter_kill(client: FlaskClient, desk: Desk, by: str, victim: str) -> int:
    page = client.get("/night/3").get_data(as_text=True)
    resp = client.post(
        "/night/3/submit",
        data={"csrf": csrf_of(page), "state_version": VERSION.search(page).group(1),  # type: ignore[union-attr]
              "kind": "kill", "by": by, "target": victim, "at": AT, "why": "匪帮私信法官"},
    )  # fmt: skip
    assert resp.status_code == 302, resp.get_data(as_text=True)
    rows = _rows(desk)
    return rows[-1].id


def _rows(desk: Desk) -> list[records.NightSubmissionRecord]:
    gid = JudgeDesk(desk.game, desk.store).gid
    with desk.store.session() as s:
        return records.night_submission_records(s, gid, 3)


def _preview_out(desk: Desk) -> tuple[str, ...]:
    """What the CLI's desk resolves night 3 into now (nothing stored)."""
    return JudgeDesk(desk.game, desk.store).night_preview(3).out


def test_a_judge_enters_then_corrects_a_kill_and_every_face_resolves_the_corrected_night(
    client: FlaskClient, desk: Desk
) -> None:
    bandit, others = _cast(desk)
    first, second = others[0], others[1]
    row = _enter_kill(client, desk, bandit, first)
    assert first in _preview_out(desk)
    page = client.get("/night/3").get_data(as_text=True)
    assert f'id="sub-{row}"' in page and "匪帮私信法官" in page

    resp = client.post(
        "/night/3/correct",
        data={"csrf": csrf_of(page), "state_version": VERSION.search(page).group(1),  # type: ignore[union-attr]
              "row_id": str(row), "withdraw": "0", "kind": "kill", "by": bandit, "target": second,
              "at": AT, "why": "匪帮改刀，私信为证"},
    )  # fmt: skip
    assert resp.status_code == 302, resp.get_data(as_text=True)
    rows = _rows(desk)
    old, new = rows[0], rows[-1]
    assert old.withdrawn and old.withdrawn_by == JUDGE and old.withdrawn_why == "匪帮改刀，私信为证"
    assert not new.withdrawn and new.replaces == row and new.entered_by == JUDGE
    assert new.data["victim"] == second
    out = _preview_out(desk)
    assert second in out and first not in out  # the CLI's desk builds the corrected night
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert f"{JUDGE} 更正了第3夜的提交 #{row}" in page
    struck = re.search(rf'<tr id="sub-{row}".*?</tr>', page, flags=re.S)
    assert struck and "withdrawn" in struck.group(0) and "匪帮改刀，私信为证" in struck.group(0)
    log = judges.desk_log(desk.store)
    assert log[0].who == JUDGE and log[0].action == "night correction" and "匪帮改刀" in log[0].detail

    # resolved from the desk with the correction; then refused until the resolution is undone here
    done = data.resolve_night(desk.game, desk.store, 3, JUDGE)
    assert second in done.message
    page = client.get("/night/3").get_data(as_text=True)
    assert 'id="undo-night"' in page and "/night/3/correct" not in page
    resp = client.post(
        "/night/3/correct",
        data={"csrf": csrf_of(page), "row_id": str(new.id), "withdraw": "1", "why": "再改"},
    )
    assert resp.status_code == 400 and "先撤销" in resp.get_data(as_text=True)
    assert not _rows(desk)[-1].withdrawn
    resp = client.post(
        "/history/undo",
        data={"csrf": csrf_of(page), "state_version": VERSION.search(page).group(1),  # type: ignore[union-attr]
              "next": "/night/3"},
    )  # fmt: skip
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/night/3")
    assert "/night/3/correct" in client.get("/night/3").get_data(as_text=True)


def test_a_withdrawn_submission_no_longer_counts(client: FlaskClient, desk: Desk) -> None:
    bandit, others = _cast(desk)
    row = _enter_kill(client, desk, bandit, others[0])
    page = client.get("/night/3").get_data(as_text=True)
    resp = client.post(
        "/night/3/correct",
        data={"csrf": csrf_of(page), "row_id": str(row), "withdraw": "1", "why": "法官录错了人"},
    )
    assert resp.status_code == 302
    assert [r.withdrawn for r in _rows(desk)] == [True]
    assert others[0] not in _preview_out(desk)
    st = data.secret_state(desk.game, desk.store)
    assert st is not None and JudgeDesk(desk.game, desk.store).stored_submissions(3, st) == ()


def test_a_correction_from_an_old_page_is_refused_naming_the_other_judge(
    client: FlaskClient, desk: Desk
) -> None:
    bandit, others = _cast(desk)
    row = _enter_kill(client, desk, bandit, others[0])
    old_page = client.get("/night/3").get_data(as_text=True)
    JudgeDesk(desk.game, desk.store, by="二号法官").night_correct(3, row, None, "二号法官撤回")
    resp = client.post(
        "/night/3/correct",
        data={"csrf": csrf_of(old_page), "row_id": str(row), "withdraw": "0", "kind": "kill", "by": bandit,
              "target": others[1], "at": AT, "why": "改刀"},
    )  # fmt: skip
    assert resp.status_code == 400
    text = resp.get_data(as_text=True)
    assert "二号法官 已于" in text and "请刷新" in text
    assert [r.withdrawn_by for r in _rows(desk)] == ["二号法官"]  # nothing else stored


def test_a_refused_entry_keeps_what_the_judge_typed(client: FlaskClient, desk: Desk) -> None:
    bandit, _others = _cast(desk)
    page = client.get("/night/3").get_data(as_text=True)
    resp = client.post(
        "/night/3/submit",
        data={"csrf": csrf_of(page), "kind": "kill", "by": bandit, "at": AT, "why": "匪帮私信：刀谁再说"},
    )  # no target and no 空刀
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    form = re.search(r'<form[^>]*class="enter-sub".*?</form>', html, flags=re.S)
    assert form is not None
    assert 'value="kill" selected' in form.group(0) and f"<option selected>{bandit}</option>" in form.group(0)
    assert 'value="匪帮私信：刀谁再说"' in form.group(0) and AT in form.group(0)
    assert 'class="error form-error"' in form.group(0)
    assert _rows(desk) == []
