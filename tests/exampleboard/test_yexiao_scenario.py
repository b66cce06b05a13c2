"""The whole example game's data agree with each other and with what the board shows the judge.

Why: expected.toml (the careful judge's judgement, by hand) names posts and PMs by id; if a pid pointed at
the wrong author, thread or time, or a night message were not visible to the judge's login when the night
is judged, a whole-game test would compare forumbot with a judgement of a different board.
"""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime, timedelta

import pytest

from forumbot.board import BoardConfig
from forumbot.client import BoardClient
from forumbot.config import load_game
from forumbot.exampleboard.model import load_scenario
from forumbot.exampleboard.server import LiveBoard
from forumbot.posting import parse_pm_view
from forumbot.resources import data_dir

GAME_DIR = data_dir() / "examples" / "yexiao"
SCENARIO = load_scenario(GAME_DIR / "scenario.toml")
EXPECTED = tomllib.loads((GAME_DIR / "expected.toml").read_text("utf-8"))
GAME = load_game(GAME_DIR / "game.toml")
ROLES = tomllib.loads((GAME_DIR / "roles.toml").read_text("utf-8"))["roles"]
POSTS = {p.pid: p for p in SCENARIO.posts}
PMS = {m.pmid: m for m in SCENARIO.pms}
TZ = SCENARIO.tz


def local(s: str) -> datetime:
    return datetime.fromisoformat(s).replace(tzinfo=TZ).astimezone(UTC)


def test_the_draw_is_the_12_player_r001_preset_and_the_groups_match_it() -> None:
    assert sorted(ROLES) == sorted(GAME.roster) and len(ROLES) == 12
    counts = {r: list(ROLES.values()).count(r) for r in set(ROLES.values())}
    assert counts == {"杀手": 1, "鬼匪": 1, "警察": 2, "毒药": 1, "平民": 7}
    bandits = {n for n, r in ROLES.items() if r in ("杀手", "鬼匪")}
    police = {n for n, r in ROLES.items() if r == "警察"}
    assert SCENARIO.forums[6].members == bandits | {"法官大人"}
    assert SCENARIO.forums[7].members == police | {"法官大人"}


def test_every_judged_vote_post_is_in_that_days_vote_thread_by_its_author() -> None:
    for day in EXPECTED["days"]:
        vote_tid = GAME.day(day["day"]).vote_tid
        for post in [*day["posts"], *day.get("revote", {}).get("posts", [])]:
            found = POSTS[post["pid"]]
            assert (found.tid, found.author) == (vote_tid, post["author"]), post


def test_the_counts_add_up_from_the_counted_posts() -> None:
    for day in EXPECTED["days"]:
        counted: dict[str, int] = {}
        for post in day["posts"]:
            if post["verdict"] == "counted":
                counted[post["target"]] = counted.get(post["target"], 0) + 1
        assert counted == day["count"]
        if "revote" in day:  # cumulative over the candidates (AMB-27)
            for post in day["revote"]["posts"]:
                if post["verdict"] == "counted":
                    counted[post["target"]] += 1
            assert {c: counted[c] for c in day["revote"]["candidates"]} == day["revote"]["count"]


def _night_window(n: int) -> tuple[datetime, datetime, datetime]:
    """(from, deadline, late until): from day n−1's opening (game start for night 1) to day n's opening."""
    deadline = local(EXPECTED["nights"][n - 1]["deadline"])
    start = datetime(2000, 1, 1, tzinfo=UTC) if n == 1 else GAME.day(n - 1).opens
    return start, deadline, deadline + timedelta(minutes=20)


def _judge(board: LiveBoard) -> BoardConfig:
    return BoardConfig(
        url=board.url, fid=3, min_interval=0.0, retries=0, username="法官大人", password="demo"
    )


@pytest.mark.parametrize("night", [1, 2, 3])
def test_each_nights_messages_are_what_the_judge_reads_when_the_night_is_judged(night: int) -> None:
    start, deadline, until = _night_window(night)
    expected = EXPECTED["nights"][night - 1]["messages"]
    with LiveBoard(SCENARIO, now=until) as board, BoardClient(_judge(board)) as client:
        seen_pids = {
            p.pid
            for tid in (8, 9)
            for p in client.fetch_thread_page(tid, 99).posts + client.fetch_thread_page(tid, 1).posts
            if start < POSTS[p.pid].at <= until and p.author != "法官大人"
        }
        seen_pmids = set()
        for uid in {SCENARIO.user(m.from_name).uid for m in SCENARIO.pms}:
            page = client.get(f"{board.url}home.php?mod=space&do=pm&subop=view&touid={uid}")
            seen_pmids |= {m.pmid for m in parse_pm_view(page.body) if start < PMS[m.pmid].at <= until}
    assert seen_pids == {m["pid"] for m in expected if "pid" in m}
    assert seen_pmids == {m["pmid"] for m in expected if "pmid" in m}
    for m in expected:
        at = POSTS[m["pid"]].at if "pid" in m else PMS[m["pmid"]].at
        author = POSTS[m["pid"]].author if "pid" in m else PMS[m["pmid"]].from_name
        assert author == m["author"]
        assert (at > deadline) == (m["verdict"] == "late"), m


def test_the_winner_follows_from_the_deaths() -> None:
    out = set(GAME.roster) - set(EXPECTED["game"]["survivors"])
    dead = {n for night in EXPECTED["nights"] for n in night["result"]["dead"]}
    for day in EXPECTED["days"]:
        dead |= {day["result"]["executed"], *day["result"]["drowned"]}
    assert dead == out
    alive = set(EXPECTED["game"]["survivors"])
    assert not alive & {"麻花", "粽子", "烧卖"}  # every bandit, the possessed one included, is gone
    assert {ROLES[n] for n in alive} == {"警察", "平民"} and EXPECTED["game"]["winner"] == "police"
