"""Property tests: random legal games on random presets.

They never crash, never eliminate a player twice, keep the recorded outcome consistent with the win
conditions at every check point, and never put a hidden identity into a public event.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    ROLE_TABLES,
    Cause,
    Event,
    EventKind,
    GameState,
    Phase,
    PresetTable,
    Resolution,
    RoleId,
    draw_roles,
    evaluate_outcome,
    parse_presets,
    random_day,
    random_night,
    resolve_night,
)
from tests.engine.conftest import read_preset_text

TABLES: dict[str, PresetTable] = {
    rid: parse_presets(read_preset_text(stem))
    for rid, stem in (
        ("R001", "r001"),
        ("R000-GP", "r000_gp"),
        ("R000-G1", "r000_g1"),
        ("R000-G2", "r000_g2"),
        ("R004", "r004"),
    )
}
EXECUTION_CAUSES = {Cause.EXECUTED, Cause.GUARDED_EXECUTION, Cause.DOUBLE_KILL}
ROLE_WORDS = {
    fam: sorted(
        {s.name_zh for s in table.values()}
        | {s.reveal_label for s in table.values()}
        | {"鬼匪", "被附体匪", "警方守护神"},
        key=len,
        reverse=True,
    )
    for fam, table in ROLE_TABLES.items()
}


def _start(ruleset: str, size: int, seed: int) -> GameState:
    table = TABLES[ruleset]
    sizes = table.sizes()
    n = sizes[size % len(sizes)]
    variant = "butterfly" if seed % 3 == 0 else "doctor"
    return draw_roles(
        ruleset, [f"p{i:02d}" for i in range(n)], seed=seed, preset_table=table, variant=variant
    ).state


def _check_public(before: GameState, after: GameState, ev: Event) -> None:
    """No hidden identity in a public event (game-over post excepted: everything is revealed then)."""
    if ev.kind is EventKind.GAME_OVER:
        return
    text = ev.text
    revealed = dict(ev.data.get("revealed", {}))
    for name, label in revealed.items():
        p = after.player(name)
        if after.family == "r004":
            assert p.role is RoleId.MAYOR and label == "市长" and p.cause is not None
            assert p.cause.value in after.flags.r004_alert_causes, "only 警戒 reveals (AMB-64)"
        else:
            assert p.cause in EXECUTION_CAUSES, f"{name} revealed as {label} though not executed ({p.cause})"
            assert label != "鬼匪"
        text = text.replace(f"身份：{label}", "")
    text = text.replace("与毒药同死的匪徒为‘被附体匪’", "")  # the possessed pledge line (engine.r001.night)
    if ev.kind in (EventKind.GUARDED_EXECUTION, EventKind.DOUBLE_KILL):
        text = text.replace("守护神", "")
    for word in ROLE_WORDS[after.family]:
        assert word not in text, f"public {ev.kind.value} reveals {word!r}: {ev.text!r}"


def _check_step(before: GameState, res: Resolution) -> None:
    after = res.state
    # never eliminate twice; the out-list and the players agree
    assert len(set(after.out_order)) == len(after.out_order)
    assert set(after.out_order) == {p.name for p in after.players if not p.alive}
    for name in res.out:
        assert before.is_alive(name) and not after.is_alive(name)
    assert list(after.out_order[len(before.out_order) :]) == list(res.out)
    # the recorded outcome matches the win conditions at this check point
    # (every step here ends at a check point: a resolved night, or a closed day)
    if after.outcome is None:
        assert after.phase is not Phase.OVER
        assert evaluate_outcome(after) is None, (
            f"a win condition holds but nobody won: {evaluate_outcome(after)}"
        )
    else:
        assert after.phase is Phase.OVER
        assert any(e.kind is EventKind.GAME_OVER for e in res.events)
        assert evaluate_outcome(after) == after.outcome
    for ev in res.events:
        if ev.public:
            _check_public(before, after, ev)


def _play(ruleset: str, size: int, seed: int, rounds: int) -> None:
    rng = random.Random(seed)
    state = _start(ruleset, size, seed)
    for _ in range(rounds):
        night = random_night(state, rng)
        res = resolve_night(state, night, seed=seed)
        _check_step(state, res)
        state = res.state
        if state.outcome is not None:
            return
        res = random_day(state, rng, seed=seed)
        _check_step(state, res)
        state = res.state
        if state.outcome is not None:
            return
    assert state.outcome is None


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 17), st.integers(1, 20))
def test_random_r004_games_on_random_presets(seed: int, size: int, rounds: int) -> None:
    _play("R004", size, seed, rounds)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["R001", "R000-GP", "R000-G1", "R000-G2"]), st.integers(1, 12))
def test_random_r001_family_games(seed: int, ruleset: str, rounds: int) -> None:
    _play(ruleset, 0, seed, rounds)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31))
def test_nights_with_every_submission_late_kill_nobody(seed: int) -> None:
    """A late kill is 今晚平安夜 (R001); in R004 a late actor gives up the night's action."""
    rng = random.Random(seed)
    for ruleset in ("R001", "R004"):
        state = _start(ruleset, seed % 18, seed)
        night = random_night(state, rng, act_p=1.0, late_p=1.0)
        res = resolve_night(state, night)
        guardians_only = all(state.player(n).role is RoleId.GUARDIAN for n in res.out)
        assert res.out == () or guardians_only
