"""One judgement, every face (issue 18): the example game 【夜宵杀】 played by the runner on the living
example board, and at every moment the runner acts, each face a judge looks at holds the same judgement:

- the web desk's day page (forumbot/web/data.py ``day_view``), ``forumbot tally --json`` and the runner's
  outbox: the same verdict per post per round, the same tally, result line, ⚑ items and chart, the same
  vote-count and 电梯 bytes;
- the web desk's night page (``night_view``), ``forumbot night resolve --json`` (on a copy of the store,
  the night undone first) and the runner's outbox: the same out-list, the same private messages to the
  same recipients, the same case post.

The faces are asked as a judge asks them (the web's data functions, the CLI's own ``main``), never through
the desk's internals, so a face that judges on its own is caught.
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from forumbot.cli import main
from forumbot.errors import UsageError
from forumbot.outbox import OutboxItem
from forumbot.resources import data_dir
from forumbot.runner.fastplay import FastClock, play
from forumbot.runner.tick import TickReport
from forumbot.web import data, svg
from tests.runner.yexiao import EXPECTED, SCENARIO, START, UNTIL, Played, board, open_runner


@dataclass
class Faces:
    """What the checks saw: every moment checked, and every disagreement (face, moment, what)."""

    checked: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    day_pages: dict[str, data.DayView] = field(default_factory=dict)  # the web's day page at each moment

    def same(self, moment: str, what: str, left: Any, right: Any) -> None:
        if left != right:
            self.disagreements.append(f"{moment}: {what}: {left!r} != {right!r}")


def _cli(game_file: Path, *args: str, store: Path | None = None) -> tuple[int, str]:
    out = io.StringIO()
    head = ["--lang", "zh_CN", "--game", str(game_file)] + (["--store", str(store)] if store else [])
    with contextlib.redirect_stdout(out):
        code = main([*head, *args])
    return code, out.getvalue()


def _game_file(tmp: Path, url: str, db: Path) -> Path:
    text = (data_dir() / "examples" / "yexiao" / "game.toml").read_text("utf-8")
    text = text.replace('url = "http://127.0.0.1:8080/"', f'url = "{url}"')
    text = text.replace('name = "夜宵杀"', f'name = "夜宵杀"\nstore = "{db}"', 1)
    path = tmp / "game.toml"
    path.write_text(text, "utf-8")
    return path


def _items(p: Played) -> dict[str, OutboxItem]:
    return {i.moment_key: i for i in p.steps.outbox.items() if i.moment_key}


def _check_day(p: Played, faces: Faces, game_file: Path, moment: str, n: int) -> None:
    p.steps.desk.refresh()
    code, text = _cli(game_file, "tally", "--day", str(n), "--json")
    assert code in (0, 5), text  # 5: a called revote's window is not read yet (provisional)
    js = json.loads(text)
    dv = data.day_view(p.game, p.store, n)
    faces.day_pages[moment] = dv
    web = {v.pid: (v.status, v.stage) for v in dv.verdicts if v.pid is not None}
    cli = {r["pid"]: (r["status"], r["stage"]) for r in js["verdicts"] if r["pid"] is not None}
    faces.same(moment, "verdict per post per round (web, tally --json)", web, cli)
    faces.same(
        moment,
        "⚑ items (web, tally --json)",
        sorted(v.pid or 0 for v in dv.verdicts if v.needs_review),
        sorted(r["pid"] or 0 for r in js["verdicts"] if r["needs_review"]),
    )
    faces.same(
        moment,
        "tally (web, tally --json)",
        [(t.target, t.count) for t in dv.tally],
        [(t["target"], t["count"]) for t in js["tally"]],
    )
    faces.same(moment, "result line (web, tally --json)", dv.outcome, js["outcome"]["text"])
    faces.same(moment, "vote count draft (web, tally --json)", dv.vote_count_draft, js["draft"])
    # the chart: each target's last count is the count the tally above shows
    series = svg.vote_series(dv.moves)
    chart = {t: points[-1][1] for t, points in series.items() if points[-1][1]}
    faces.same(
        moment, "chart (web) against the tally", chart, {t.target: t.count for t in dv.tally if t.count}
    )
    if p.steps.desk.state_labelled(f"day {n}") is None:
        return
    items = _items(p)
    faces.same(moment, "vote count (outbox, web)", items[f"day{n}/vote_count"].body, dv.vote_count_draft)
    faces.same(moment, "电梯 (outbox, web)", items[f"day{n}/elevator"].body, dv.elevator_draft)
    faces.same(moment, "execution notice (outbox, web)", items[f"day{n}/execution"].body, dv.outcome)
    drafts = {d.key: d.bbcode for d in data.public_drafts(p.game, p.store)}
    faces.same(
        moment, "电梯 (outbox, web drafts)", items[f"day{n}/elevator"].body, drafts[f"day-{n}-elevator"]
    )
    # «放入发件箱» on the web never puts a second 电梯 next to the runner's
    before = len(p.steps.outbox.items())
    with contextlib.suppress(UsageError):
        data.outbox_add_draft(p.game, p.store, f"day-{n}-elevator", "法官大人")
    faces.same(moment, "outbox items after the web queued the 电梯", len(p.steps.outbox.items()), before)


def _check_cutoff(p: Played, faces: Faces, game_file: Path, moment: str, n: int, at: str) -> None:
    code, text = _cli(game_file, "tally", "--day", str(n), "--at", at, "--json")
    assert code in (0, 5), text
    running = _items(p)[f"day{n}/void_cutoff/running_count"].body
    faces.same(moment, "running count (outbox, tally --at --json)", running, json.loads(text)["draft"])


def _check_night(p: Played, faces: Faces, game_file: Path, tmp: Path, moment: str, n: int) -> None:
    p.steps.desk.refresh()
    items = _items(p)
    runner_out = p.steps.desk.state_labelled(f"night {n}")
    assert runner_out is not None
    header = f"【{p.game.name}】第{n}夜（仅你可见）"
    sent = {
        k.rsplit("/", 1)[1]: tuple(i.body.removeprefix(header + "\n").split("\n"))
        for k, i in items.items()
        if k.startswith(f"night{n}/private/")
    }
    nv = data.night_view(p.game, p.store, n)
    roster = set(p.game.roster)
    web = {who: tuple(texts) for who, texts in nv.private if who in roster}
    faces.same(moment, "private messages (outbox, web)", sent, web)
    faces.same(moment, "case post (outbox, web)", items[f"night{n}/case_post"].body, nv.case_post_draft)
    # the CLI on a copy of the store, the night undone: what `night resolve --json` would have said
    copy = tmp / f"night{n}.db"
    with sqlite3.connect(tmp / "game.db") as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    assert _cli(game_file, "undo", store=copy)[0] == 0
    code, text = _cli(game_file, "night", "resolve", "--night", str(n), "--json", store=copy)
    assert code == 0, text
    js = json.loads(text)
    out = next(r for r in _moment_results(p) if r[0] == moment)[1]["out"]
    faces.same(moment, "out-list (runner, web)", list(out), list(nv.out))
    faces.same(moment, "out-list (runner, night resolve --json)", list(out), js["out"])
    cli = {
        m["player"]: tuple(m["body"].removeprefix(header + "\n").split("\n")) for m in js.get("private", [])
    }
    faces.same(moment, "private messages (outbox, night resolve --json)", sent, cli)
    faces.same(
        moment, "case post (outbox, night resolve --json)", items[f"night{n}/case_post"].body, js["case_post"]
    )


def _moment_results(p: Played) -> list[tuple[str, dict[str, Any]]]:
    from forumbot.runner.ledger import records

    with p.store.session() as s:
        return [(k, r.result) for k, r in records(s, p.steps.game_id).items()]


@pytest.fixture(scope="module")
def faces(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Faces]:
    tmp = Path(tmp_path_factory.mktemp("one_judgement"))
    seen = Faces()
    clock = FastClock(START)
    with board(clock) as b:
        db = tmp / "game.db"
        p = open_runner(b.url, db, clock)
        game_file = _game_file(tmp, b.url, db)

        def on_tick(report: TickReport) -> None:
            for moment in report.done:
                what, _, kind = moment.partition("/")
                n = int(what.removeprefix("night").removeprefix("day"))
                if what.startswith("night") and kind == "deadline":
                    _check_night(p, seen, game_file, tmp, moment, n)
                elif kind == "void_cutoff":
                    at = p.game.day(n).void_cutoff.astimezone(p.game.tz).strftime("%Y-%m-%d %H:%M")
                    _check_cutoff(p, seen, game_file, moment, n, at)
                else:
                    _check_day(p, seen, game_file, moment, n)
                seen.checked.append(moment)

        play(p.runner, clock, until=UNTIL, board_moments=SCENARIO.moments(), on_tick=on_tick)
        yield seen
        p.store.close()


def test_every_moment_the_runner_acts_was_held_to_one_judgement(faces: Faces) -> None:
    assert sorted(faces.checked) == sorted(
        [
            "night1/deadline",
            "day1/void_cutoff",
            "day1/close",
            "day1/revote1",
            "night2/deadline",
            "day2/void_cutoff",
            "day2/close",
            "night3/deadline",
        ]
    )


def test_the_web_the_cli_and_the_runner_never_disagree(faces: Faces) -> None:
    assert faces.disagreements == []


def test_the_revote_page_judges_each_ballot_in_the_revote_and_charts_the_revote(faces: Faces) -> None:
    """Day 1's page after the revote: each revote ballot has the revote's verdict (not «超时 投票截止
    （13:00）后发帖» from the first vote), the tally and the chart are the revote's (AMB-27: cumulative),
    and the revote's ⚑ items are shown."""
    revote = EXPECTED["days"][0]["revote"]
    page = faces.day_pages["day1/revote1"]
    lines = {v.pid: v for v in page.verdicts}
    for post in revote["posts"]:
        if post["pid"] not in lines:  # posted after the revote's deadline, when the runner had judged it
            assert post["verdict"] == "late"
            continue
        line = lines[post["pid"]]
        assert (line.stage, line.status) == (1, post["verdict"]), post
        assert "13:00" not in line.reason, line.reason
    assert {t.target: t.count for t in page.tally} == revote["count"]
    assert set(svg.vote_series(page.moves)) == set(revote["candidates"])  # the chart's legend
    assert page.window[1] - page.window[0] == timedelta(minutes=revote["deadline_minutes"])
    flagged = {v.pid for v in page.verdicts if v.needs_review}
    assert flagged and flagged <= {p["pid"] for p in revote["posts"]}  # the revote's own ⚑, no judge's post


def test_the_elevator_lists_the_living_only_and_is_stamped_with_the_close(faces: Faces) -> None:
    """Day 2's 电梯 on the web is the runner's: no dead player listed as (0/0), the dead who posted set
    apart, «更新至» the close (not the wall clock)."""
    page = faces.day_pages["day2/close"]
    dead = set(EXPECTED["nights"][0]["alive_before"]) - set(EXPECTED["days"][1]["alive"])
    assert dead == {"春卷", "麻花", "锅贴", "汤圆"}  # night 1, day 1 (executed, drowned), night 2
    assert not any(f"[b]{name}[/b]" in page.elevator_draft for name in dead)
    assert "（更新至 6月5日 13:00）" in page.elevator_draft
    # attendance lists the dead apart, marked out (issue 20's panel), never among the living
    assert {line.name for line in page.attendance if not line.out}.isdisjoint(dead)
    assert all(line.out and not line.short for line in page.attendance if line.name in dead)
