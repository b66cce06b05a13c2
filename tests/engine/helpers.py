"""Test helpers: named rosters, state preparation, and the runner for the data-driven cases.

A case (tests/engine/cases/*.toml) is a start state plus steps (posts in) and expectations (events,
out-list, outcome out). See cases/README.md for the format.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import engine
from engine import (
    Arrow,
    Assassinate,
    Audience,
    Check,
    Event,
    Fireworks,
    GameState,
    Heal,
    Hug,
    IllegalActionError,
    Kidnap,
    Kill,
    KillHostages,
    Night,
    NightAction,
    NightFlags,
    Phase,
    Protect,
    Resolution,
    Snipe,
    Spy,
    Submission,
    check_action,
    frozen_map,
    get_ruleset,
    new_game,
    resolve_extra_check,
    resolve_night,
    submit,
)

CASES_DIR = Path(__file__).parent / "cases"
ROSTERS: dict[str, dict[str, str]] = tomllib.loads((CASES_DIR / "rosters.toml").read_text("utf-8"))

_TUPLE_FIELDS = {"out_order", "hug_targets_used", "kidnapped", "lastwords", "since_day_start", "lovers"}
_MAP_FIELDS = {
    "protections",
    "guardian_skips",
    "guardian_forced_streak",
    "strikes",
    "proxy_votes_used",
    "empty_heals",
    "yellow_cards",
}


def make_state(
    ruleset: str,
    roster: str | Mapping[str, str],
    *,
    dead: Sequence[str] = (),
    round_: int = 1,
    flags: Mapping[str, Any] | None = None,
    state: Mapping[str, Any] | None = None,
    players: Mapping[str, Mapping[str, Any]] | None = None,
    sniper_bullets: int | None = None,
    spy_counted: bool | None = None,
) -> GameState:
    """A game of ``ruleset`` at night ``round_`` with ``dead`` already out (cause: judge)."""
    rs = get_ruleset(ruleset)
    roles = ROSTERS[roster] if isinstance(roster, str) else dict(roster)
    fl = replace(rs.flags, **dict(flags or {}))
    st = new_game(rs, list(roles.items()), flags=fl, sniper_bullets=sniper_bullets, spy_counted=spy_counted)
    ps = list(st.players)
    for i, p in enumerate(ps):
        if p.name in dead:
            ps[i] = replace(p, alive=False, cause=None, out_round=0)
        if players and p.name in players:
            ps[i] = replace(ps[i], **dict(players[p.name]))
    changes: dict[str, Any] = {"players": tuple(ps), "round": round_, "phase": Phase.NIGHT}
    changes["out_order"] = tuple(n for n in roles if n in dead)
    if st.family == "r004" and dead:
        changes["lastword_slots_used"] = min(len(dead), st.lastword_slots)
        holder = st.authority_holder
        if holder in dead:
            changes["authority_holder"] = None
    for key, value in (state or {}).items():
        if key in _MAP_FIELDS:
            changes[key] = frozen_map(value)
        elif key == "guardian_history":
            changes[key] = frozen_map((k, tuple(v)) for k, v in value.items())
        elif key in _TUPLE_FIELDS:
            changes[key] = tuple(value)
        else:
            changes[key] = value
    return replace(st, **changes)


def build_actions(spec: Mapping[str, Any]) -> list[NightAction]:
    """Night actions from a case step's keys (kill, check, protect, heal, ...)."""
    out: list[NightAction] = []
    for key, value in spec.items():
        if key == "kill":
            if isinstance(value, str):
                out.append(Kill(value or None))
            else:
                kw = dict(value)
                kw["victim"] = kw.get("victim") or None
                out.append(Kill(**kw))
        elif key == "check":
            out.append(Check(value))
        elif key == "protect":
            for g, t in value.items():
                out.append(Protect(g, t or None))
        elif key == "kill_hostages":
            out.append(KillHostages(tuple(value) if isinstance(value, list) else None))
        elif key == "arrow":
            out.append(Arrow(value[0], value[1]))
        elif key in _SINGLE:
            out.append(_SINGLE[key](value))
    return out


_SINGLE: dict[str, Any] = {
    "snipe": Snipe,
    "fireworks": Fireworks,
    "spy": Spy,
    "kidnap": Kidnap,
    "heal": Heal,
    "hug": Hug,
    "assassinate": Assassinate,
}


def _is_late(action: NightAction, late: Sequence[str]) -> bool:
    key = action.kind.value
    if isinstance(action, Protect):
        return key in late or f"protect:{action.guardian}" in late
    return key in late


def make_night(state: GameState, spec: Mapping[str, Any], *, force: bool = False) -> Night:
    late = list(spec.get("late", ()))
    night = Night(state.round)
    for action in build_actions(spec):
        is_late = _is_late(action, late)
        if force:
            night = night.with_submission(Submission(action, is_late))
        else:
            night = submit(state, night, action, late=is_late)
    return night


# ---- expectations ------------------------------------------------------------------------------------


def events_to(events: Sequence[Event], audience: str) -> list[Event]:
    aud = Audience.parse(audience)
    return [e for e in events if e.audience == aud]


def texts(events: Sequence[Event], audience: str) -> list[str]:
    return [e.text for e in events_to(events, audience)]


@dataclass
class StepResult:
    state: GameState
    events: tuple[Event, ...] = ()
    out: tuple[str, ...] = ()
    error: IllegalActionError | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def check_expectations(case_id: str, step_no: int, res: StepResult, expect: Mapping[str, Any]) -> None:
    where = f"{case_id} step {step_no}"
    evs = res.events
    if "out" in expect:
        assert list(res.out) == list(expect["out"]), f"{where}: out {res.out} != {expect['out']}"
    for aud, text in expect.get("events", ()):
        got = texts(evs, aud)
        assert text in got, f"{where}: no {aud} event {text!r}; got {got}"
    for aud, sub in expect.get("contains", ()):
        got = texts(evs, aud)
        assert any(sub in t for t in got), f"{where}: no {aud} event containing {sub!r}; got {got}"
    for aud, sub in expect.get("absent", ()):
        got = texts(evs, aud)
        assert not any(sub in t for t in got), f"{where}: a {aud} event contains {sub!r}: {got}"
    for aud in expect.get("silent", ()):
        got = texts(evs, aud)
        assert not got, f"{where}: {aud} should hear nothing, got {got}"
    if "outcome" in expect:
        want = expect["outcome"]
        oc = res.state.outcome
        if want == "continue":
            assert oc is None, f"{where}: game should continue, got {oc}"
        else:
            term, _, winner = want.partition("/")
            assert oc is not None, f"{where}: expected {want}, game continues"
            assert oc.termination.value == term, f"{where}: {oc.termination} != {term}"
            assert (oc.winner.value if oc.winner else "draw") == winner, (
                f"{where}: winner {oc.winner} != {winner}"
            )
    for name in expect.get("alive", ()):
        assert res.state.is_alive(name), f"{where}: {name} should be alive"
    for name in expect.get("dead", ()):
        assert not res.state.is_alive(name), f"{where}: {name} should be out"
    for key, want in expect.get("state", {}).items():
        want = None if want == "__none__" else want
        value: Any = getattr(res.state, key)
        if key in _MAP_FIELDS:
            value = {k: v for k, v in dict(value).items() if v}
        elif key == "guardian_history":
            value = {k: list(v) for k, v in value.items()}
        elif isinstance(value, tuple):
            value = list(value)
        assert value == want, f"{where}: state.{key} = {value!r}, expected {want!r}"
    for name, attrs in expect.get("players", {}).items():
        p = res.state.player(name)
        for attr, want in attrs.items():
            got = getattr(p, attr)
            got = got.value if hasattr(got, "value") else got
            assert got == want, f"{where}: {name}.{attr} = {got!r}, expected {want!r}"
    if "error" in expect:
        assert res.error is not None, f"{where}: expected a refusal"
        msg = str(res.error)
        for sub in [expect["error"]] if isinstance(expect["error"], str) else expect["error"]:
            assert sub in msg, f"{where}: refusal {msg!r} lacks {sub!r}"
    if "rule" in expect:
        assert res.error is not None and expect["rule"] in res.error.rule, f"{where}: rule {res.error!r}"


# ---- the runner --------------------------------------------------------------------------------------


def run_step(state: GameState, step: Mapping[str, Any]) -> StepResult:
    op = step["op"]
    day = state.round
    r: Resolution
    if op == "night":
        night = make_night(state, step, force=bool(step.get("force")))
        r = resolve_night(state, night, seed=step.get("seed"))
    elif op == "refuse":
        actions = build_actions(step)
        assert len(actions) == 1, "a refuse step names one action"
        try:
            check_action(state, actions[0])
        except IllegalActionError as exc:
            return StepResult(state, error=exc)
        raise AssertionError(f"{actions[0]!r} should have been refused")
    elif op == "allow":
        for action in build_actions(step):
            check_action(state, action)
        return StepResult(state)
    elif op == "execute":
        tied = frozenset(step["tied"]) if "tied" in step else None
        r = engine.resolve_execution(state, step.get("chosen") or None, day=day, tied=tied)
    elif op == "drown":
        r = engine.resolve_drowning(state, step["names"], day=day)
    elif op == "send_off":
        r = engine.send_off(state, step["name"], day=day)
    elif op == "red_cards":
        r = engine.resolve_red_cards(state, step["names"], day=day)
    elif op == "close_day":
        r = engine.close_day(state, day=day)
    elif op == "next":  # no execution, then close the day
        r1 = engine.resolve_execution(state, None, day=day)
        r = engine.close_day(r1.state, day=day)
    elif op == "extra_check":
        r = resolve_extra_check(state, step["target"], late=bool(step.get("late")))
    elif op == "pass_authority":
        r = engine.pass_authority(state, step.get("to") or None, seed=step.get("seed"))
    elif op == "surrender":
        try:
            r = engine.surrender(state, step["agreeing"])
        except IllegalActionError as exc:
            return StepResult(state, error=exc)
    elif op == "concede":
        r = engine.concede(state, step["side"])
    else:
        raise AssertionError(f"unknown op {op!r}")
    return StepResult(r.state, r.events, r.out)


def case_state(case: Mapping[str, Any]) -> GameState:
    """The state a case starts from (its rule set, roster or roles, the dead, round, flags ...)."""
    return make_state(
        case["ruleset"],
        case.get("roster") or case["roles"],
        dead=case.get("dead", ()),
        round_=case.get("round", 1),
        flags=case.get("flags"),
        state=case.get("state"),
        players=case.get("players"),
        sniper_bullets=case.get("sniper_bullets"),
        spy_counted=case.get("spy_counted"),
    )


def run_case(case: Mapping[str, Any]) -> GameState:
    state = case_state(case)
    for i, step in enumerate(case["steps"], 1):
        res = run_step(state, step)
        check_expectations(case["id"], i, res, step.get("expect", {}))
        state = res.state
    return state


def load_cases(*names: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    files = [CASES_DIR / f"{n}.toml" for n in names] if names else sorted(CASES_DIR.glob("*.toml"))
    for path in files:
        if path.name == "rosters.toml":
            continue
        data = tomllib.loads(path.read_text("utf-8"))
        for case in data.get("case", ()):
            case.setdefault("file", path.name)
            out.append(case)
    return out


def flag_names() -> list[str]:
    return [f.name for f in fields(NightFlags)]
