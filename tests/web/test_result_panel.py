"""Results at a glance (issue 20): the result panel on the game and day pages, the dead apart in
attendance, and every state a judge sees in words, never a Python repr."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from engine import Outcome, Termination, Winner
from forumbot.i18n import set_language
from forumbot.labels import TERMINATION_LABELS
from forumbot.store import judges
from forumbot.store.db import Store
from forumbot.web import data
from forumbot.web.app import create_app
from tests.runner.test_r004_last_words import steps_after_night_1
from tests.runner.yexiao import Finished, copy_of
from tests.web.conftest import JUDGE, PASSWORD, Desk, log_in

PANEL = re.compile(r'<section class="result-panel" id="result-panel">(.*?)</section>', re.S)
REPRS = ("Outcome(", "Termination.", "Winner.", "Phase.", "Cause.")
ENUM_REPR = re.compile(r"&lt;[A-Z]\w*\.[A-Z_]+: ")  # <Winner.POLICE: 'police'> as Jinja escapes it
CODE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")  # a state's code (bandits_wiped_out, not_a_vote…) as text


def panel_of(html: str) -> str:
    m = PANEL.search(html)
    assert m, "the page has no result panel"
    return m.group(1)


def field(panel: str, name: str) -> str:
    m = re.search(rf'<dd id="panel-{name}">(.*?)</dd>', panel, re.S)
    assert m, f"the panel has no {name}"
    return m.group(1)


def attendance_rows(html: str) -> list[tuple[str, str]]:
    """(row class, player cell) of the attendance table, in page order."""
    table = html.split('<table class="attendance">', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr class="([^"]*)"><td>(.*?)</td>', table)


# --------------------------------------------------------------------------- the meishi example


def test_day_1_panel_names_the_executed_with_identity_strikes_and_the_short(client: FlaskClient) -> None:
    panel = panel_of(client.get("/day/1").get_data(as_text=True))
    assert "第1日结果" in panel
    assert field(panel, "outcome") == "烧卖 被处决，身份：杀手"
    assert field(panel, "drowned") == "无人"
    strikes = field(panel, "strikes")
    assert "馄饨 1/2" in strikes and "麻花 1/2" in strikes and "煎饼 1/2" in strikes and "饺子 0/2" in strikes
    assert "烧卖" not in strikes  # the executed has no strikes left to count
    assert field(panel, "short") == "馄饨、麻花、煎饼"
    assert "游戏结束" not in panel  # the game goes on after day 1


def test_day_2_panel_says_who_drowned_and_why(client: FlaskClient) -> None:
    panel = panel_of(client.get("/day/2").get_data(as_text=True))
    assert field(panel, "outcome") == "月饼 被处决，身份：杀手"
    assert field(panel, "drowned") == "馄饨（发言不足）、煎饼（投票累计两次）"
    strikes = field(panel, "strikes")
    assert "麻花 1/2" in strikes
    assert "煎饼" not in strikes and "馄饨" not in strikes and "月饼" not in strikes  # out at this close
    assert field(panel, "short") == "馄饨"


def test_the_game_page_shows_the_latest_days_panel(client: FlaskClient) -> None:
    panel = panel_of(client.get("/").get_data(as_text=True))
    assert "第2日结果" in panel
    assert field(panel, "outcome") == "月饼 被处决，身份：杀手"


def test_the_dead_are_listed_after_the_living_as_out_and_never_short(client: FlaskClient) -> None:
    rows = attendance_rows(client.get("/day/2").get_data(as_text=True))
    classes = [c for c, _ in rows]
    first_out = classes.index("out")
    assert all(c == "out" for c in classes[first_out:]), "a living player is listed after the dead"
    out = [re.sub(r"<.*", "", name).strip() for c, name in rows if c == "out"]
    assert out == ["包子", "烧卖", "锅贴"]  # out before day 2: day 1's executed, the night's dead
    assert all("出局" in name for c, name in rows if c == "out")
    assert ("short", "馄饨") in rows  # a living player short of posts is still red


def test_day_1_lists_the_first_nights_dead_apart(client: FlaskClient) -> None:
    rows = attendance_rows(client.get("/day/1").get_data(as_text=True))
    assert rows[-1][0] == "out" and rows[-1][1].startswith("锅贴")
    assert [c for c, _ in rows].count("out") == 1


def test_the_english_desk_labels_the_panel_and_the_dead_in_english(desk: Desk) -> None:
    app = create_app(desk.game, desk.store, lang="en", secret="test-secret")
    app.config["TESTING"] = True
    c = app.test_client()
    log_in(c)
    try:
        html = c.get("/day/2").get_data(as_text=True)
    finally:
        set_language("zh_CN")
    panel = panel_of(html)
    assert "Results of day 2" in panel and "Vote strikes" in panel
    assert any("out" in name for c2, name in attendance_rows(html) if c2 == "out")


def test_an_r004_day_counts_yellow_cards_not_vote_strikes(store: Store) -> None:
    """R004 (data/examples/r004) after night 1, day 1 with no post read: nobody replied to the vote
    thread, so each living role has a yellow card (未回复投票帖) and is short of posts."""
    steps = steps_after_night_1(store, pm=False)
    judges.add_judge(store, JUDGE, PASSWORD)
    app = create_app(steps.game, store, secret="test-secret")
    app.config["TESTING"] = True
    c = app.test_client()
    log_in(c)
    try:
        panel = panel_of(c.get("/day/1").get_data(as_text=True))
    finally:
        set_language("zh_CN")
    assert "黄牌" in panel and 'id="panel-strikes"' not in panel
    yellow = field(panel, "yellow")
    assert "豆浆 1" in yellow and "酥饼 1" in yellow
    assert "豆花" not in yellow  # out at night 1: no card for the dead
    assert field(panel, "outcome") == "无人出局"


@pytest.mark.parametrize(
    ("outcome", "shown"),
    [
        (Outcome(Termination.BANDITS_WIPED_OUT, Winner.POLICE), "警察与平民获胜（匪全灭）"),
        (Outcome(Termination.BANDIT_PARITY, Winner.BANDITS), "匪获胜（杀手人数≥警察人数+平民人数-1）"),
        (Outcome(Termination.BOTH_WIPED_OUT, None), "平局（警匪同时全灭）"),
        (
            Outcome(Termination.GODS_OUT, Winner.KILLER_CAMP),
            "杀手阵营获胜（警察、医生、花蝴蝶、特工、市长全部出局）",
        ),
    ],
)
def test_every_way_a_game_ends_reads_in_chinese(desk: Desk, outcome: Outcome, shown: str) -> None:
    assert data.outcome_label(outcome) == shown


def test_every_termination_has_a_label() -> None:
    assert set(TERMINATION_LABELS) == {t.value for t in Termination}  # one table, the CLI's and the desk's


def _pages(c: FlaskClient, days: int, nights: int) -> dict[str, str]:
    urls = ["/", "/outbox", "/history"]
    urls += [f"/day/{n}" for n in range(1, days + 1)] + [f"/night/{n}" for n in range(1, nights + 1)]
    pages = {}
    for url in urls:
        resp = c.get(url)
        assert resp.status_code == 200, url
        pages[url] = resp.get_data(as_text=True)
    return pages


def _no_reprs(pages: dict[str, str]) -> None:
    for url, html in pages.items():
        for bad in REPRS:
            assert bad not in html, f"{url} shows {bad!r}"
        assert not ENUM_REPR.search(html), f"{url} shows an enum repr: {ENUM_REPR.search(html)}"
        if url in ("/outbox", "/history"):  # their logs quote the game file's keys ([outbox] auto_approve)
            continue
        text = re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)[\s\S]*?</\1>", "", html))
        assert not CODE.findall(text), f"{url} shows codes for words: {sorted(set(CODE.findall(text)))}"


def test_no_page_of_the_running_game_shows_a_repr(client: FlaskClient) -> None:
    _no_reprs(_pages(client, days=2, nights=3))


# --------------------------------------------------------------------------- a finished game (yexiao)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory, yexiao_finished: Finished) -> Iterator[FlaskClient]:
    """【夜宵杀】 played to its end by the runner (the police and civilians win at night 3; played once
    per test process, tests/conftest.py), and the desk over a copy of its store."""
    p = copy_of(yexiao_finished, Path(tmp_path_factory.mktemp("yexiao-desk")) / "game.db")
    judges.add_judge(p.store, JUDGE, PASSWORD)
    app = create_app(p.game, p.store, secret="test-secret")
    app.config["TESTING"] = True
    c = app.test_client()
    log_in(c)
    try:
        yield c
    finally:
        p.store.close()
        set_language("zh_CN")


def test_a_finished_game_names_its_winner_in_words(finished: FlaskClient) -> None:
    html = finished.get("/").get_data(as_text=True)
    panel = panel_of(html)
    winner = re.search(r'<p class="winner" id="panel-winner"><strong>(.*?)</strong>', panel)
    assert winner and winner.group(1) == "游戏结束: 警察与平民获胜（匪全灭）"
    assert '<strong id="phase">游戏结束</strong>' in html


def test_no_page_of_the_finished_game_shows_a_repr(finished: FlaskClient) -> None:
    pages: dict[str, Any] = _pages(finished, days=2, nights=3)
    _no_reprs(pages)
