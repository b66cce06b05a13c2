"""Data-driven day cases: every ``daycases/*.toml`` file is one judged day (posts with exact times in,
verdicts and the result out), optionally followed by revotes and by variants under other flags.

Times in the files carry their offset (+08:00, Asia/Shanghai); the loader converts them to UTC, as the
store does. Post texts go through the real vote reader (forumbot.parsers.votes), so these cases test
the reader and the engine together.

Schema (all keys optional unless said):
  id, title, procedure ("r001"/"r004", required), day, roster (required), alive | dead
  [times] opens_at, closes_at (required), void_cutoff, change_cutoff, accelerated, accelerated_at
  [input] strikes, discussion_counts, default_discussion_posts, previous_round_deficient, proxy_used,
          authority_holder, double_kill_pair, yellow_cards, judges, new_victim
  [flags] any DayFlags field
  [[posts]] pid, floor, author, at, text | ballot={kind,target,abstain,...}, quotes, edited, at_latest
  [[proxies]] player, target, abstain, at, entered_by, pid
  [[overrides]] pid, kind, target, abstain, why, by, not_edited
  [expect] outcome, out, text, reason_contains, tally={target=[voters]}, no_vote, strikes_after,
           drowned={player=rule}, cards={player=[colors]}, verdicts={pid=status|{status,target,review,
           suggestion,reason_contains}}, players={player=status}, revote={candidates,participants,deadline},
           discussion_deficient, problems_count
  [[revotes]] called_at, call_text, posts=[...], proxies=[...], expect={...}
  [[variants]] name, flags={...}, drop_pids=[...], after_revotes, expect={...}
  [[views]] as_of, provisional (default true), expect={...}
"""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from engine import (
    Ballot,
    BallotKind,
    DayFlags,
    DayInput,
    DayResult,
    DayTimes,
    Override,
    ProxyVote,
    VotePost,
    judge_day,
    plan_revote,
    resolve_revote,
)
from forumbot.parsers.votes import read_ballot

CASES = sorted((Path(__file__).parent / "daycases").glob("*.toml"))
SHANGHAI = ZoneInfo("Asia/Shanghai")


def _utc(t: Any) -> datetime:
    assert isinstance(t, datetime) and t.tzinfo is not None, f"case times need an offset: {t!r}"
    return t.astimezone(UTC)


def _ballot(raw: dict[str, Any], procedure: str, roster: list[str], flags: DayFlags) -> Ballot:
    if "ballot" in raw:
        b = dict(raw["ballot"])
        b["kind"] = BallotKind(b["kind"])
        if "names" in b:
            b["names"] = tuple(b["names"])
        return Ballot(**b)
    return read_ballot(  # type: ignore[arg-type]
        raw["text"],
        procedure,
        roster,
        require_reason_label=flags.r004_require_reason_label,
        allow_text_before_format=flags.r004_allow_text_before_format,
        void_is_vote_attempt=flags.r004_void_post_is_vote_attempt,
    )


def _posts(
    raws: list[dict[str, Any]], procedure: str, roster: list[str], flags: DayFlags
) -> tuple[VotePost, ...]:
    out = []
    for raw in raws:
        out.append(
            VotePost(
                pid=raw["pid"],
                floor=raw.get("floor", raw["pid"]),
                author=raw["author"],
                at=_utc(raw["at"]),
                ballot=_ballot(raw, procedure, roster, flags),
                quoted_pids=tuple(raw.get("quotes", ())),
                edited=raw.get("edited", False),
                edit_note=raw.get("edit_note", ""),
                at_latest=_utc(raw["at_latest"]) if "at_latest" in raw else None,
            )
        )
    return tuple(out)


def _proxies(raws: list[dict[str, Any]]) -> tuple[ProxyVote, ...]:
    return tuple(
        ProxyVote(
            player=r["player"],
            target=r.get("target"),
            abstain=r.get("abstain", False),
            at=_utc(r["at"]),
            entered_by=r.get("entered_by", "法官"),
            pid=r.get("pid"),
        )
        for r in raws
    )


def _overrides(raws: list[dict[str, Any]]) -> tuple[Override, ...]:
    return tuple(
        Override(
            pid=r["pid"],
            kind=BallotKind(r["kind"]),
            target=r.get("target"),
            abstain=r.get("abstain", False),
            why=r.get("why", ""),
            by=r.get("by", "法官"),
            not_edited=r.get("not_edited", False),
        )
        for r in raws
    )


def build_input(
    case: dict[str, Any],
    flag_overrides: dict[str, Any] | None = None,
    drop_pids: frozenset[int] = frozenset(),
) -> DayInput:
    roster = list(case["roster"])
    if "alive" in case:
        alive = frozenset(case["alive"])
    else:
        alive = frozenset(roster) - frozenset(case.get("dead", ()))
    flags = DayFlags(**{**case.get("flags", {}), **(flag_overrides or {})})
    t = case["times"]
    times = DayTimes(
        opens_at=_utc(t["opens_at"]),
        closes_at=_utc(t["closes_at"]),
        void_cutoff=_utc(t["void_cutoff"]) if "void_cutoff" in t else None,
        change_cutoff=_utc(t["change_cutoff"]) if "change_cutoff" in t else None,
        accelerated=t.get("accelerated", False),
        accelerated_at=_utc(t["accelerated_at"]) if "accelerated_at" in t else None,
    )
    extra = case.get("input", {})
    counts = extra.get("discussion_counts")
    if "default_discussion_posts" in extra:
        counts = {p: extra["default_discussion_posts"] for p in roster} | (counts or {})
    posts = [p for p in case.get("posts", []) if p["pid"] not in drop_pids]
    return DayInput(
        family=case["procedure"],
        day=case.get("day", 1),
        roster=tuple(roster),
        alive=alive,
        posts=_posts(posts, case["procedure"], roster, flags),
        times=times,
        discussion_counts=counts,
        previous_round_deficient=frozenset(extra.get("previous_round_deficient", ())),
        strikes=extra.get("strikes", {}),
        proxy_votes=_proxies(case.get("proxies", [])),
        proxy_used=extra.get("proxy_used", {}),
        overrides=_overrides(case.get("overrides", [])),
        authority_holder=extra.get("authority_holder"),
        double_kill_pair=frozenset(extra["double_kill_pair"]) if "double_kill_pair" in extra else None,
        yellow_cards=extra.get("yellow_cards", {}),
        flags=flags,
        new_victim=extra.get("new_victim", True),
        judges=frozenset(extra.get("judges", ())),
        display_tz=SHANGHAI,
    )


def check(result: DayResult, expect: dict[str, Any], where: str) -> None:
    """Compare a result with a case's ``expect`` table. Verdicts are looked up in the latest stage."""
    o = result.outcome
    stage = {v.pid: v for v in (result.revotes[-1].verdicts if result.revotes else result.verdicts)}
    if "outcome" in expect:
        assert o.kind.value == expect["outcome"], f"{where}: outcome {o.kind} ({o.reason})"
    if "out" in expect:
        assert list(o.out) == expect["out"], f"{where}: out {o.out} ({o.reason})"
    if "text" in expect:
        assert o.text == expect["text"], f"{where}: text {o.text!r}"
    if "reason_contains" in expect:
        assert expect["reason_contains"] in o.reason, f"{where}: reason {o.reason!r}"
    if "tally" in expect:
        got = {line.target: sorted(v.player for v in line.voters) for line in result.final_tally}
        want_tally = {t: sorted(v) for t, v in expect["tally"].items()}
        assert got == want_tally, f"{where}: tally {got}"
    if "counts" in expect:
        got_counts = {line.target: line.count for line in result.final_tally}
        assert got_counts == expect["counts"], f"{where}: counts {got_counts}"
    if "no_vote" in expect:
        assert sorted(result.no_vote) == sorted(expect["no_vote"]), f"{where}: no_vote {result.no_vote}"
    if "strikes_after" in expect:
        got_strikes = {p: n for p, n in result.strikes_after.items() if n}
        assert got_strikes == expect["strikes_after"], f"{where}: strikes {got_strikes}"
    if "drowned" in expect:
        got_drowned = {d.player: d.rule.value for d in result.drowned}
        assert got_drowned == expect["drowned"], f"{where}: drowned {got_drowned}"
    if "cards" in expect:
        got_cards: dict[str, list[str]] = {}
        for c in result.cards:
            got_cards.setdefault(c.player, []).append(c.color.value)
        assert got_cards == expect["cards"], f"{where}: cards {result.cards}"
    if "discussion_deficient" in expect:
        assert sorted(result.discussion_deficient) == sorted(expect["discussion_deficient"]), where
    if "problems_count" in expect:
        assert len(result.problems) == expect["problems_count"], f"{where}: problems {result.problems}"
    if "revote" in expect:
        plan = o.plan
        assert plan is not None, f"{where}: no revote plan ({o.reason})"
        rv = expect["revote"]
        if "candidates" in rv:
            assert list(plan.candidates) == rv["candidates"], f"{where}: candidates {plan.candidates}"
        if "participants" in rv:
            assert sorted(plan.participants) == sorted(rv["participants"]), (
                f"{where}: participants {plan.participants}"
            )
        if "deadline" in rv:
            assert plan.deadline == _utc(rv["deadline"]), f"{where}: deadline {plan.deadline}"
        if "call_text" in rv:
            assert o.text == rv["call_text"], f"{where}: call {o.text!r}"
    for name, status in expect.get("players", {}).items():
        pv = result.player(name)
        assert pv.status.value == status, f"{where}: player {name} is {pv.status} ({pv.note})"
    for pid_s, want in expect.get("verdicts", {}).items():
        v = stage[int(pid_s)]
        want = want if isinstance(want, dict) else {"status": want}
        assert v.status.value == want["status"], f"{where}: pid {pid_s} is {v.status}: {v.reason}"
        if "target" in want:
            assert v.target == want["target"], f"{where}: pid {pid_s} target {v.target!r}"
        if "review" in want:
            assert v.needs_review == want["review"], (
                f"{where}: pid {pid_s} review {v.needs_review}: {v.reason}"
            )
        if "suggestion" in want:
            assert v.suggestion == want["suggestion"], f"{where}: pid {pid_s} suggestion {v.suggestion!r}"
        if "reason_contains" in want:
            assert want["reason_contains"] in v.reason, f"{where}: pid {pid_s} reason {v.reason!r}"


def run_case(
    case: dict[str, Any],
    flag_overrides: dict[str, Any] | None = None,
    drop_pids: frozenset[int] = frozenset(),
) -> list[DayResult]:
    inp = build_input(case, flag_overrides, drop_pids)
    result = judge_day(inp)
    results = [result]
    for rv in case.get("revotes", []):
        plan = plan_revote(result, _utc(rv["called_at"]))
        if "call_text" in rv and not flag_overrides:
            assert plan.call_text(SHANGHAI) == rv["call_text"], (
                f"{case.get('id')}: call {plan.call_text(SHANGHAI)!r}"
            )
        posts = _posts(rv.get("posts", []), case["procedure"], list(case["roster"]), inp.flags)
        result = resolve_revote(result, plan, posts, proxy_votes=_proxies(rv.get("proxies", [])))
        results.append(result)
    return results


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_day_case(path: Path) -> None:
    case = _load(path)
    results = run_case(case)
    check(results[0], case.get("expect", {}), f"{path.stem}")
    for i, rv in enumerate(case.get("revotes", []), start=1):
        assert len(results) > i, f"{path.stem}: revote #{i} was not run"
        check(results[i], rv.get("expect", {}), f"{path.stem} revote #{i}")
    # every post gets exactly one verdict, never dropped
    first = results[0]
    assert len(first.verdicts) == len(case.get("posts", [])) + len(case.get("proxies", []))


VIEWS = [(p, i) for p in CASES for i, _ in enumerate(_load(p).get("views", []))]


@pytest.mark.parametrize("path,index", VIEWS, ids=[f"{p.stem}-as-of-{i}" for p, i in VIEWS])
def test_day_case_as_of_view(path: Path, index: int) -> None:
    """The count as it stood at a given moment: later posts ignored, no deadline passed yet."""
    case = _load(path)
    view = case["views"][index]
    result = judge_day(build_input(case), as_of=_utc(view["as_of"]))
    assert result.provisional is view.get("provisional", True)
    check(result, view["expect"], f"{path.stem} as of {view['as_of']}")


VARIANTS = [(p, i) for p in CASES for i, _ in enumerate(_load(p).get("variants", []))]


@pytest.mark.parametrize(
    "path,index", VARIANTS, ids=[f"{p.stem}-{_load(p)['variants'][i]['name']}" for p, i in VARIANTS]
)
def test_day_case_variant(path: Path, index: int) -> None:
    case = _load(path)
    variant = case["variants"][index]
    results = run_case(case, variant.get("flags", {}), frozenset(variant.get("drop_pids", ())))
    check(
        results[-1] if variant.get("after_revotes") else results[0],
        variant["expect"],
        f"{path.stem} [{variant['name']}]",
    )


def test_case_files_exist() -> None:
    assert len(CASES) >= 7


def test_case_times_are_converted_to_utc() -> None:
    case = _load(CASES[0])
    inp = build_input(case)
    assert inp.times.closes_at.tzinfo is UTC
    assert all(p.at.tzinfo is UTC for p in inp.posts)
