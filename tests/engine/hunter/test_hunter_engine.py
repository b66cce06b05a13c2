"""The 猎人 variant through the engine's public API: registered by name, its role drawn from its own
presets, its night word read, the shot fired when he is killed at night or executed, not when drowned."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import (
    ACTION_KINDS,
    ROLE_TABLES,
    Check,
    EventKind,
    IllegalActionError,
    Kill,
    RoleId,
    RuleSet,
    SetupError,
    action_from_dict,
    action_to_dict,
    apply_day,
    close_day,
    draw_roles,
    get_ruleset,
    new_game,
    new_night,
    parse_presets,
    register,
    resolve_drowning,
    resolve_night,
    state_from_dict,
    state_to_dict,
    submit,
    unregister,
)
from forumbot.parsers.nightmsg import read_night_message
from tests.engine.hunter import HERE, HUNTER, SHOT, Hunter, Shoot

ROSTER = [
    ("Kai", RoleId.BANDIT),
    ("Ken", RoleId.GHOST),
    ("Pam", RoleId.POLICE),
    ("Pat", RoleId.POLICE),
    ("Zoe", RoleId.POISON),
    ("Hal", "猎人"),
    *[(f"C{i}", RoleId.CIVILIAN) for i in range(7)],
]


@pytest.fixture
def hunter() -> Iterator[RuleSet]:
    rs = register(Hunter())
    yield rs
    unregister(rs.id)


def test_registering_adds_the_role_and_the_kind_and_unregistering_takes_them_away(hunter: RuleSet) -> None:
    assert get_ruleset("猎人局") is hunter
    assert ROLE_TABLES["r001"][HUNTER].name_zh == "猎人" and "shoot" in ACTION_KINDS
    assert hunter.role_id("猎人") is HUNTER
    unregister(hunter.id)
    assert HUNTER not in ROLE_TABLES["r001"] and "shoot" not in ACTION_KINDS
    register(hunter)  # the fixture unregisters it again


def test_its_own_presets_draw_thirteen_with_one_hunter(hunter: RuleSet) -> None:
    table = parse_presets((HERE / "presets.toml").read_text("utf-8"))
    setup = draw_roles(hunter, [f"P{i}" for i in range(13)], preset_table=table, seed=3)
    roles = [p.role for p in setup.state.players]
    assert roles.count(HUNTER) == 1 and roles.count(RoleId.GHOST) == 1 and len(roles) == 13
    with pytest.raises(SetupError, match="猎人"):  # the rule set it derives from seats no hunter
        new_game("R001", ROSTER)


def test_the_message_reader_reads_the_variants_word_and_only_there(hunter: RuleSet) -> None:
    (s,) = read_night_message("开枪：Kai", hunter, [n for n, _ in ROSTER]).statements
    assert (s.kind, s.targets) == ("shoot", ("Kai",))
    assert read_night_message("开枪：Kai", "R001", [n for n, _ in ROSTER]).statements == ()


def test_killed_at_night_he_shoots_his_registered_target_in_the_same_resolution(hunter: RuleSet) -> None:
    state = new_game(hunter, ROSTER)
    night = submit(state, new_night(state), Shoot("Ken", by="Hal"))
    night = submit(state, night, Kill("Hal", pledge="Kai", by="Kai"))
    night = submit(state, night, Check("Hal", by="Pam"))
    res = resolve_night(state, night, seed=1)
    assert res.out == ("Hal", "Ken")
    assert res.state.player("Ken").cause is SHOT and not res.state.player("Ken").alive
    public = [e.text for e in res.events if e.public and e.kind is EventKind.CASE_POST]
    assert public[0].startswith("死者：Hal") and "Hal 是猎人，出局时开枪：Ken 出局" in public[1]
    checks = [e.text for e in res.events if e.kind is EventKind.CHECK_RESULT]
    assert any("猎人" in t for t in checks)
    assert res.state.armed == {}  # fired: nothing left armed


def test_an_unfired_shot_is_kept_in_the_state_and_survives_serialisation(hunter: RuleSet) -> None:
    state = new_game(hunter, ROSTER)
    night = submit(state, new_night(state), Shoot("Kai", by="Hal"))
    res = resolve_night(state, submit(state, night, Kill("C0", pledge="Kai", by="Kai")), seed=1)
    assert res.out == ("C0",)
    again = state_from_dict(state_to_dict(res.state))
    assert again == res.state and action_from_dict(dict(again.armed["Hal"])) == Shoot("Kai", by="Hal")
    assert action_from_dict(action_to_dict(Shoot("Kai", by="Hal"))) == Shoot("Kai", by="Hal")


def _day_one(hunter: RuleSet, target: str) -> tuple[object, object]:
    state = new_game(hunter, ROSTER)
    night = submit(state, new_night(state), Shoot(target, by="Hal"))
    res = resolve_night(state, submit(state, night, Kill("C0", pledge="Kai", by="Kai")), seed=1)
    return res.state, res


def test_executed_he_shoots_and_the_days_batch_win_check_sees_it(hunter: RuleSet) -> None:
    state, _ = _day_one(hunter, "Kai")
    res = apply_day(state, day=1, executed="Hal")
    assert res.out[:2] == ("Hal", "Kai")
    lines = [e.text for e in res.events if e.public]
    assert any("Hal 被处决，身份：猎人" in t for t in lines) and any("开枪：Kai 出局" in t for t in lines)
    assert res.state.player("Kai").cause is SHOT


def test_drowned_he_does_not_shoot(hunter: RuleSet) -> None:
    state, _ = _day_one(hunter, "Kai")
    res = resolve_drowning(state, ["Hal"], day=1)
    assert res.out == ("Hal",) and res.state.is_alive("Kai")
    assert close_day(res.state, day=1).state.is_alive("Kai")


def test_the_rules_refuse_a_shot_at_himself_or_by_another(hunter: RuleSet) -> None:
    state = new_game(hunter, ROSTER)
    with pytest.raises(IllegalActionError, match="自己"):
        submit(state, new_night(state), Shoot("Hal", by="Hal"))
    with pytest.raises(IllegalActionError, match="不是猎人"):
        submit(state, new_night(state), Shoot("Kai", by="C1"))
