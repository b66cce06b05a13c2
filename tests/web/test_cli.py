"""``forumbot judges`` and ``forumbot serve`` on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.cli import main
from forumbot.store import judges
from forumbot.store.db import open_store


def test_judges_add_list_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "s.db")
    monkeypatch.setenv("DESK_PW", "a-long-password")
    assert main(["--store", db, "judges", "add", "法官甲", "--password-env", "DESK_PW"]) == 0
    assert "法官 法官甲 现在可以登录工作台" in capsys.readouterr().out
    assert main(["--store", db, "judges", "list"]) == 0
    assert "法官甲" in capsys.readouterr().out
    with open_store(db) as store:
        assert judges.verify_login(store, "法官甲", "a-long-password") is not None
    assert main(["--store", db, "judges", "add", "法官甲", "--password-env", "DESK_PW"]) == 1
    assert "--reset" in capsys.readouterr().err
    assert main(["--store", db, "judges", "remove", "法官甲"]) == 0
    with open_store(db) as store:
        assert judges.verify_login(store, "法官甲", "a-long-password") is None


def test_an_empty_password_variable_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["--store", str(tmp_path / "s.db"), "judges", "add", "x", "--password-env", "NOT_SET_XYZ"]) == 1
    )
    assert "NOT_SET_XYZ" in capsys.readouterr().err


def test_serve_help_is_chinese_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "法官网页工作台" in out and "监听地址" in out


def test_the_server_answers_on_localhost(tmp_path: Path) -> None:
    import requests

    from forumbot.web import data
    from forumbot.web.app import create_app
    from tests.web.serving import serving

    with open_store(tmp_path / "s.db") as store:
        game = data.example_game(store.url)
        with serving(create_app(game, store, secret="s")) as server:
            resp = requests.get(
                f"http://127.0.0.1:{server.effective_port}/", allow_redirects=False, timeout=10
            )
            assert resp.status_code == 302 and "/login" in resp.headers["Location"]


def test_demo_serve_plays_the_example_and_opens_the_desk_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from typing import Any

    from forumbot.commands import webdesk
    from tests.web.conftest import csrf_of

    opened: list[tuple[Any, str, int]] = []

    class Server:  # waitress's server, without the waiting: the desk is then driven by a test client
        effective_port = 8123

        def run(self) -> None:
            pass

        def close(self) -> None:
            pass

    def make_server(app: Any, host: str, port: int) -> Server:
        opened.append((app, host, port))
        return Server()

    monkeypatch.setattr(webdesk, "make_server", make_server)
    assert main(["demo", "--serve", "--port", "0", "--workdir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "forumbot 演示" in out and "demo-judge" in out  # the demo's own text, then the login
    assert "法官工作台已打开：http://127.0.0.1:8123/" in out  # the address, printed
    [(app, host, port)] = opened
    assert (host, port) == ("127.0.0.1", 0)
    c = app.test_client()
    token = csrf_of(c.get("/login").get_data(as_text=True))
    c.post("/login", data={"name": "demo", "password": "demo-judge", "csrf": token})
    html = c.get("/day/1").get_data(as_text=True)
    assert 'class="verdict' in html and "findpost" in html  # the played game's verdicts, linked


def test_judges_add_without_a_terminal_says_to_use_password_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run from a script or cron, nobody can type the password: a Chinese error naming --password-env,
    not Python's EOFError; nothing is added."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    db = str(tmp_path / "s.db")
    assert main(["--store", db, "judges", "add", "法官甲"]) == 1
    err = capsys.readouterr().err
    assert "--password-env" in err and "终端" in err and "EOFError" not in err
    with open_store(db) as store:
        assert judges.list_judges(store) == []
