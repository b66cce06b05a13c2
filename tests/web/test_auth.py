"""Who may see what: judges' accounts, logins, CSRF tokens, and the log of who changed what."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from forumbot.errors import UsageError
from forumbot.store import judges
from forumbot.store.db import Store
from forumbot.web import data
from tests.web.conftest import JUDGE, PASSWORD, Desk, csrf_of, log_in


def test_a_judge_logs_in_with_his_password_only(store: Store) -> None:
    judges.add_judge(store, "法官乙", "s3cret-pass")
    assert judges.verify_login(store, "法官乙", "s3cret-pass") is not None
    assert judges.verify_login(store, "法官乙", "wrong-pass") is None
    assert judges.verify_login(store, "nobody", "s3cret-pass") is None


def test_only_a_hash_is_stored(store: Store) -> None:
    from sqlmodel import select

    from forumbot.store.models import JudgeAccountRow

    judges.add_judge(store, "法官乙", "s3cret-pass")
    with store.session() as s:
        row = s.exec(select(JudgeAccountRow)).one()
    assert "s3cret-pass" not in row.password_hash
    assert row.password_hash.startswith("$argon2id$")


def test_the_desk_hashes_with_argon2id_at_its_default_cost_and_re_hashes_a_cheaper_hash(
    store: Store, desk_password_hasher: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite hashes at Argon2id's lowest cost (tests/conftest.py); the desk's own hasher is
    argon2-cffi's defaults (forumbot/store/judges.py), and a hash made at another cost (here the suite's)
    is made again with the desk's at the next good login."""
    from argon2 import PasswordHasher
    from sqlmodel import select

    from forumbot.store.models import JudgeAccountRow

    real, dummy = desk_password_hasher
    default = PasswordHasher()
    assert (real.time_cost, real.memory_cost, real.parallelism) == (
        default.time_cost,
        default.memory_cost,
        default.parallelism,
    )
    judges.add_judge(store, "法官乙", "s3cret-pass")  # the suite's cheap hash
    monkeypatch.setattr(judges, "_hasher", real)
    monkeypatch.setattr(judges, "_DUMMY", dummy)
    assert judges.verify_login(store, "nobody", "s3cret-pass") is None
    assert judges.verify_login(store, "法官乙", "wrong-pass") is None
    assert judges.verify_login(store, "法官乙", "s3cret-pass") is not None
    with store.session() as s:
        stored = s.exec(select(JudgeAccountRow)).one().password_hash
    cost = f"$argon2id$v=19$m={real.memory_cost},t={real.time_cost},p={real.parallelism}$"
    assert stored.startswith(cost)
    assert judges.verify_login(store, "法官乙", "s3cret-pass") is not None


def test_adding_twice_needs_reset_and_short_passwords_are_refused(store: Store) -> None:
    judges.add_judge(store, "法官乙", "s3cret-pass")
    with pytest.raises(UsageError, match="--reset"):
        judges.add_judge(store, "法官乙", "other-pass")
    judges.add_judge(store, "法官乙", "other-pass", replace=True)
    assert judges.verify_login(store, "法官乙", "other-pass") is not None
    with pytest.raises(UsageError, match="密码太短：至少 8 个字符"):
        judges.add_judge(store, "法官丙", "short")


def test_a_removed_judge_cannot_log_in_but_stays_named(store: Store) -> None:
    judges.add_judge(store, "法官乙", "s3cret-pass")
    judges.remove_judge(store, "法官乙")
    assert judges.verify_login(store, "法官乙", "s3cret-pass") is None
    assert [a.name for a in judges.list_judges(store)] == []
    assert [a.name for a in judges.list_judges(store, include_removed=True)] == ["法官乙"]


def _pages(desk: Desk) -> list[str]:
    out = []
    for rule in desk.app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint in ("login", "static"):
            continue
        if rule.endpoint.startswith("export_"):
            continue  # downloads, not pages (tests/web/test_export.py holds them to the login)
        out.append(rule.rule.replace("<int:n>", "1").replace("<int:pid>", "10"))
    return out


def test_no_page_is_served_without_a_login(desk: Desk) -> None:
    c = desk.app.test_client()
    pages = _pages(desk)
    assert {"/", "/day/1", "/night/1", "/post/10", "/outbox", "/history"} <= set(pages)
    for url in pages:
        resp = c.get(url)
        assert resp.status_code == 302 and "/login" in resp.headers["Location"], url
        assert "杀手" not in resp.get_data(as_text=True)


def test_every_page_opens_after_login(client: FlaskClient, desk: Desk) -> None:
    for url in _pages(desk):
        assert client.get(url).status_code == 200, url


def test_a_wrong_password_shows_an_error_and_no_session(desk: Desk) -> None:
    c = desk.app.test_client()
    token = csrf_of(c.get("/login").get_data(as_text=True))
    resp = c.post("/login", data={"name": JUDGE, "password": "nope", "csrf": token})
    assert resp.status_code == 200 and "名字或密码错误" in resp.get_data(as_text=True)
    assert c.get("/").status_code == 302


def test_a_form_without_its_csrf_token_is_refused_and_changes_nothing(
    client: FlaskClient, desk: Desk
) -> None:
    before = data.day_view(desk.game, desk.store, 1).tally
    form = {"pid": "10", "as_kind": "void", "why": "测试"}
    for token in (None, "forged"):
        sent = form if token is None else {**form, "csrf": token}
        resp = client.post("/day/1/override", data=sent)
        assert resp.status_code == 400
        assert "表单已过期" in resp.get_data(as_text=True)
    assert client.post("/history/undo", data={}).status_code == 400
    assert data.day_view(desk.game, desk.store, 1).tally == before
    assert judges.desk_log(desk.store) == []


def test_the_login_form_needs_its_token_too(desk: Desk) -> None:
    c = desk.app.test_client()
    resp = c.post("/login", data={"name": JUDGE, "password": PASSWORD})
    assert resp.status_code == 400


def test_every_form_on_every_page_carries_the_token(client: FlaskClient, desk: Desk) -> None:
    import re

    for url in _pages(desk):
        html = client.get(url).get_data(as_text=True)
        forms = re.findall(r"<form\b.*?</form>", html, flags=re.S)
        for f in forms:
            if 'method="post"' in f:
                assert 'name="csrf"' in f, (url, f[:200])


def test_a_removed_judge_is_logged_out_at_his_next_request(client: FlaskClient, desk: Desk) -> None:
    assert client.get("/").status_code == 200
    judges.remove_judge(desk.store, JUDGE)
    assert client.get("/").status_code == 302


def test_login_never_redirects_off_the_desk(desk: Desk) -> None:
    c = desk.app.test_client()
    token = csrf_of(c.get("/login").get_data(as_text=True))
    resp = c.post(
        "/login?next=//evil.example.com/", data={"name": JUDGE, "password": PASSWORD, "csrf": token}
    )
    assert resp.headers["Location"] == "/"


def test_the_session_cookie_is_signed_httponly_and_strict(desk: Desk) -> None:
    c = desk.app.test_client()
    resp = c.get("/login")
    cookie = resp.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    c.set_cookie("forumbot_desk", '{"judge": "' + JUDGE + '"}')  # forged, unsigned
    assert c.get("/").status_code == 302


def test_log_out_ends_the_session(client: FlaskClient) -> None:
    token = csrf_of(client.get("/").get_data(as_text=True))
    assert client.post("/logout", data={"csrf": token}).status_code == 302
    assert client.get("/").status_code == 302
    _ = log_in


def test_five_wrong_passwords_from_one_address_lock_it_for_fifteen_minutes(store: Store) -> None:
    from datetime import UTC, datetime, timedelta

    from forumbot.errors import LoginThrottled

    judges.add_judge(store, "法官乙", "s3cret-pass")
    t0 = datetime(2026, 6, 4, 4, 0, tzinfo=UTC)
    for i in range(judges.MAX_FAILURES_PER_ADDRESS):
        assert judges.verify_login(store, f"guess{i}", "x", address="10.0.0.9", now=t0) is None
    # Locked: even the right password from that address is not checked...
    with pytest.raises(LoginThrottled, match="登录失败次数过多"):
        judges.verify_login(store, "法官乙", "s3cret-pass", address="10.0.0.9", now=t0 + timedelta(minutes=1))
    # ...while the judge logs in from his own address.
    assert judges.verify_login(store, "法官乙", "s3cret-pass", address="10.0.0.1", now=t0) is not None
    # The window runs out.
    later = t0 + judges.LOGIN_WINDOW + timedelta(seconds=1)
    assert judges.verify_login(store, "法官乙", "s3cret-pass", address="10.0.0.9", now=later) is not None


def test_guesses_at_one_name_from_many_addresses_lock_that_name(store: Store) -> None:
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    from forumbot.errors import LoginThrottled

    judges.add_judge(store, "法官乙", "s3cret-pass")
    t0 = datetime(2026, 6, 4, 4, 0, tzinfo=UTC)
    for i in range(judges.MAX_FAILURES_PER_NAME - 1):
        judges.verify_login(store, "法官乙", "wrong", address=f"10.0.1.{i}", now=t0)
    assert judges.verify_login(store, "法官乙", "s3cret-pass", address="10.0.2.1", now=t0) is not None
    judges.verify_login(store, "法官乙", "wrong", address="10.0.1.99", now=t0)
    with pytest.raises(LoginThrottled) as exc:
        judges.verify_login(
            store, "法官乙", "s3cret-pass", address="10.0.2.1", now=t0, zone=ZoneInfo("Asia/Shanghai")
        )
    assert "2026-06-04 12:15" in str(exc.value)  # the board's time, when the window ends
    assert judges.verify_login(store, "法官乙", "s3cret-pass", now=t0 + timedelta(minutes=16)) is not None


def test_the_desk_answers_a_throttled_login_with_429_and_no_session(desk: Desk) -> None:
    c = desk.app.test_client()
    token = csrf_of(c.get("/login").get_data(as_text=True))
    for _ in range(judges.MAX_FAILURES_PER_ADDRESS):
        assert c.post("/login", data={"name": JUDGE, "password": "nope", "csrf": token}).status_code == 200
    resp = c.post("/login", data={"name": JUDGE, "password": PASSWORD, "csrf": token})
    assert resp.status_code == 429 and "登录失败次数过多" in resp.get_data(as_text=True)
    assert c.get("/").status_code == 302
