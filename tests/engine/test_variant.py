"""Adding a variant is one class and one registry line: a variant defined here, in the test, plays a night
through the public API. It is R001 without a kill on night 1 (the ghost may still possess): a made-up rule,
so nothing in the engine can know about it."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType

import pytest

from engine import (
    R001,
    GameState,
    IllegalActionError,
    Kill,
    Night,
    NightAction,
    RoleId,
    RuleSet,
    check_action,
    evaluate_outcome,
    get_ruleset,
    new_game,
    new_night,
    register,
    resolve_night,
    submit,
    unregister,
)


class NoKillOnNightOne(R001):
    id = "X-QUIET"
    name_zh = "安静的第一夜"
    aliases = ("quiet", "安静")
    flag_overrides = MappingProxyType({"r001_condition2_enabled": False})

    def check_action(self, state: GameState, action: NightAction, night: Night | None) -> None:
        if isinstance(action, Kill) and state.round == 1 and action.victim is not None:
            raise IllegalActionError("no kill on night 1 in this variant", rule="X-QUIET 1")
        super().check_action(state, action, night)


@pytest.fixture
def quiet() -> Iterator[RuleSet]:
    rs = register(NoKillOnNightOne())
    yield rs
    unregister(rs.id)


ROSTER = [
    ("Kai", RoleId.BANDIT),
    ("Ken", RoleId.GHOST),
    ("Pam", RoleId.POLICE),
    ("Pat", RoleId.POLICE),
    ("Zoe", RoleId.POISON),
    *[(f"C{i}", RoleId.CIVILIAN) for i in range(7)],
]


def test_a_variant_defined_in_a_test_is_found_by_its_names(quiet: RuleSet) -> None:
    assert get_ruleset("quiet") is quiet and get_ruleset("安静") is quiet
    assert quiet.family == "r001" and quiet.grammar == "r001"
    assert quiet.flags.r001_condition2_enabled is False


def test_a_variant_plays_a_night_with_its_own_rule(quiet: RuleSet) -> None:
    state = new_game("quiet", ROSTER)
    assert state.ruleset_id == "X-QUIET"
    with pytest.raises(IllegalActionError, match="X-QUIET 1"):
        check_action(state, Kill("C0"), night=new_night(state))
    night = submit(state, new_night(state), Kill(None, possess="C1"))  # a possession-only night (AMB-18)
    res = resolve_night(state, night, seed=1)
    assert res.out == ()
    assert res.state.player("C1").possessed
    assert evaluate_outcome(res.state) is None


def test_the_same_kill_is_legal_under_the_family_it_derives_from(quiet: RuleSet) -> None:
    state = new_game("R001", ROSTER)
    check_action(state, Kill("C0"), night=new_night(state))
    assert get_ruleset("R001") is not quiet


def test_a_taken_name_cannot_be_registered_twice(quiet: RuleSet) -> None:
    class Clash(R001):
        id = "X-CLASH"
        aliases = ("quiet",)

    with pytest.raises(ValueError, match="already belongs to X-QUIET"):
        register(Clash())
    with pytest.raises(LookupError):
        get_ruleset("X-CLASH")
