"""One verdict whatever the source (issue 8): the vote thread captured from real Discuz! X3.5 boards
(../shared/fixtures, UTF-8 and GBK) read through PC pages, touch pages, API v1/v2 and API v4 (with the PC
re-read a full poll now makes for vote threads: v4 strips the 「本帖最后由 … 编辑」 marker, touch pages
show relative times) and judged at the desk: the same verdict for every post, the same tally, the same
strikes and cards.

The scene was played within two minutes; the game file opens the day at the minute of the first post and
closes it at the next minute boundary before the judge's 【投票截止】 post (R004, change cutoff at the
close, as tests/parsers/test_votes_conformance.py does). Skipped without the captures, failed under CI.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from forumbot.config import game_from_dict
from forumbot.desk import Desk
from forumbot.parsers import parse_thread_page
from forumbot.store import open_store
from forumbot.store.posts import record_thread_page
from tests.conformance.captures import BOARDS, FIXTURES, read_capture, require_fixtures

require_fixtures()
pytestmark = pytest.mark.conformance

SH = ZoneInfo("Asia/Shanghai")
# Each source is the list of page files read in order (as a poll would, page 1 to the last).
SOURCES: dict[str, tuple[str, ...]] = {
    "pc": ("pc_page{n}.guest.html",),
    "touch+pc": ("touch_page{n}.mguest.html", "pc_page{n}.guest.html"),
    "api_v1": ("api_v1_page{n}.guest.json",),
    "api_v2": ("api_v2_page{n}.guest.json",),
    "api_v4+pc": ("api_v4_page{n}.guest.json", "pc_page{n}.guest.html"),
}


def board_facts(board: str) -> tuple[dict[str, Any], dict[int, datetime], Path]:
    ids = json.loads((FIXTURES / board / "ids.json").read_text("utf-8"))
    truth = json.loads((FIXTURES / board / "truth.json").read_text("utf-8"))
    tid = int(ids["tid_vote"])
    times = {
        int(p["pid"]): datetime.fromtimestamp(int(p["dateline"]), UTC)
        for p in truth["posts"]
        if int(p["tid"]) == tid
    }
    folder = next(p for p in (FIXTURES / board).iterdir() if p.name == f"thread{tid}_vote")
    return ids, times, folder


def game_for(board: str, store_url: str, source: str) -> Any:
    ids, times, _folder = board_facts(board)
    first = min(times.values()).astimezone(SH).replace(second=0)
    close = times[ids["vote_pids"]["judge_close"]].astimezone(SH).replace(second=0)
    fmt = "%Y-%m-%d %H:%M:%S"
    players = [n for n in ids["uids"] if n not in ("法官大人", "吃瓜群众", "admin")]
    return game_from_dict(
        {
            "game": {
                "name": f"conformance {board} {source}",
                "ruleset": "R004",
                "judges": ["法官大人"],
                "store": store_url,
            },
            "board": {
                "url": ids.get("base", "http://127.0.0.1:8080/"),
                "source": "api" if source.startswith("api") else source.split("+")[0],
            },
            "players": {"roster": players},
            "timetable": {"first_night": (first - timedelta(days=1)).strftime("%Y-%m-%d")},
            "days": [
                {
                    "day": 1,
                    "vote": int(ids["tid_vote"]),
                    "opens": first.strftime(fmt),
                    "close": close.strftime(fmt),
                    "change_cutoff": close.strftime(fmt),
                    "void_cutoff": close.strftime(fmt),
                }
            ],
        }
    )


def judged(board: str, source: str, tmp_path: Path) -> dict[str, Any]:
    _ids, _times, folder = board_facts(board)
    with open_store(tmp_path / f"{board}-{source}.db") as store:
        game = game_for(board, store.url, source)
        for pattern in SOURCES[source]:
            n = 1
            while (folder / pattern.format(n=n)).is_file():
                cap = read_capture(board, folder / pattern.format(n=n))
                page = parse_thread_page(
                    cap.body, cap.url, date_header=cap.date, content_type=cap.content_type
                )
                record_thread_page(store, game.board, page, seen_at=datetime.now(UTC))
                n += 1
        desk = Desk(game, store, by="conformance")
        r = desk.tally(1).result
        return {
            "verdicts": {v.pid: (v.status.value, v.target, v.abstain) for v in r.verdicts},
            "review": sorted(v.pid for v in r.verdicts if v.needs_review),
            "reasons": {v.pid: v.reason for v in r.verdicts},
            "tally": [(t.target, t.count) for t in r.final_tally],
            "strikes": dict(r.strikes_after),
            "cards": [(c.player, c.color.value) for c in r.cards],
            "outcome": (r.outcome.kind.value, r.outcome.out),
        }


@pytest.mark.parametrize("board", BOARDS)
def test_every_source_gives_the_same_verdicts_tally_and_strikes(board: str, tmp_path: Path) -> None:
    results = {source: judged(board, source, tmp_path) for source in SOURCES}
    want = results["pc"]
    ids, _times, _folder = board_facts(board)
    assert want["verdicts"][ids["vote_pids"]["yuebing_to_edit"]][0] == "edited"
    assert want["verdicts"][ids["vote_pids"]["guotie_late"]][0] == "late"
    for source, got in results.items():
        for key in ("verdicts", "tally", "strikes", "cards", "outcome"):
            assert got[key] == want[key], f"{board} via {source}: {key} differs"


@pytest.mark.parametrize("board", BOARDS)
def test_touch_pages_alone_flag_every_verdict_their_relative_times_could_change(
    board: str, tmp_path: Path
) -> None:
    """Without an exact source, a «N 分钟前» interval that crosses a window edge is judged and flagged
    with a Chinese reason, never silently different."""
    SOURCES["touch"] = ("touch_page{n}.mguest.html",)
    try:
        touch = judged(board, "touch", tmp_path)
    finally:
        del SOURCES["touch"]
    pc = judged(board, "pc", tmp_path)
    differ = [pid for pid, v in touch["verdicts"].items() if v != pc["verdicts"][pid]]
    assert all(pid in touch["review"] for pid in differ)
    assert all("发帖时间不精确" in touch["reasons"][pid] for pid in differ)
