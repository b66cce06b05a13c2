"""Every night-side flag: its metadata, its default (the digest's proposal), and its alternative reading.

Alternatives not shown by a data case (cases/*.toml with a ``flags`` table) are tested here; the last
test checks that every flag's alternative is exercised somewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace

import pytest

import engine
from engine import (
    Arrow,
    Check,
    Fireworks,
    GameState,
    Heal,
    IllegalActionError,
    Kidnap,
    Kill,
    KillHostages,
    Night,
    NightAction,
    NightFlags,
    Protect,
    Snipe,
    Submission,
    Termination,
    Winner,
    apply_day,
    check_action,
    evaluate_outcome,
    get_ruleset,
    resolve_night,
)
from tests.engine.helpers import load_cases, make_state, texts

FLAG_TESTS: dict[str, Callable[[], None]] = {}


def alternative(*flag_names: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def wrap(fn: Callable[[], None]) -> Callable[[], None]:
        for name in flag_names:
            FLAG_TESTS[name] = fn
        return fn

    return wrap


def _night(state: GameState, *actions: NightAction, late: tuple[str, ...] = ()) -> Night:
    night = Night(state.round)
    for a in actions:
        night = night.with_submission(Submission(a, a.kind.value in late))
    return night


def test_every_flag_names_its_ambiguity_and_says_what_it_decides() -> None:
    for f in fields(NightFlags):
        assert f.metadata["amb"].startswith(("AMB-", "§i")), f.name
        assert len(f.metadata["doc"]) > 20, f.name
        if "choices" in f.metadata:
            assert f.default in f.metadata["choices"], f.name
    assert len(NightFlags.describe()) == len(fields(NightFlags))


def test_defaults_are_the_proposals_of_section_i() -> None:
    """rules.md §i (night-side part)."""
    f = NightFlags()
    assert f.r001_condition2_enabled and f.r001_condition2_counts_poison and f.r001_condition2_requires_bandit
    assert f.r001_simultaneous_a_and_b == "draw" and f.r001_win_check == "per_batch"
    assert f.gp_kill_and_possess_same_target == "void_and_consumed"
    assert f.gp_possessed_joins_bandit_group and f.gp_missing_pledge == "random_living_bandit"
    assert f.gp_extra_check_window_minutes == 60
    assert f.guardian_double_kill_rule == "top_tie_exactly_guardian_and_protege"
    assert (
        not f.guardian_forced_skip_counts_as_voluntary and f.guardian_once_per_target_scope == "per_guardian"
    )
    assert not f.guardian_counted_in_win_checks
    assert not f.r004_mayor_target_must_be_tied and f.r004_alert_blocks_forced_skills
    assert f.r004_empty_heal_counter == "per_target" and not f.r004_reveal_identity_on_elimination
    assert f.r004_lover_substitute_position == "append" and not f.r004_rerun_hug_after_lover_swap
    assert f.r004_red_card_consumes_lastword_slot and f.r004_preset21_missing_role == "mayor"
    assert f.r004_cond1_numerator == "all_killer_camp" and f.r004_spy_counted is None


# ---- R001 / R000 ---------------------------------------------------------------------------------


@alternative("r001_condition2_enabled")
def test_condition2_switched_off_in_r001() -> None:
    """AMB-02: “杀手人数>=警察人数+平民人数-1，则杀手获胜” exists only in R001."""
    dead = ["Cora", "Cy", "Cleo", "Cole", "Cruz", "Pat", "Zoe"]
    on = make_state("R001", "S12", dead=dead)
    off = make_state("R001", "S12", dead=dead, flags={"r001_condition2_enabled": False})
    # Bn=2 (Kai, Ken), Pn=1, Zn=0, Cn=2 (Cal, Cid): 2 ≥ 1+0+2−1
    assert evaluate_outcome(on) == evaluate_outcome(on)
    assert evaluate_outcome(on) is not None and evaluate_outcome(on).termination is Termination.BANDIT_PARITY  # type: ignore[union-attr]
    assert evaluate_outcome(off) is None


@alternative("r001_condition2_requires_bandit")
def test_condition2_literal_reading_never_changes_the_result() -> None:
    """AMB-04: C2 with Bn=0 implies Pn+Zn+Cn ≤ 1, i.e. B holds too, so A∧B decides (documented order)."""
    for alive in (["Pam"], ["Cal"], ["Zoe"], []):
        dead = [n for n in make_state("R001", "S12").names() if n not in alive]
        a = evaluate_outcome(make_state("R001", "S12", dead=dead))
        b = evaluate_outcome(
            make_state("R001", "S12", dead=dead, flags={"r001_condition2_requires_bandit": False})
        )
        assert a == b and a is not None and a.termination is Termination.BOTH_WIPED_OUT


@alternative("r001_simultaneous_a_and_b")
def test_simultaneous_wipe_out_as_a_bandit_win() -> None:
    st = make_state(
        "R001", "S12", dead=["Ken", "Pam", "Pat", "Cid", "Cora", "Cy", "Cleo", "Cole", "Cruz", "Kai"]
    )
    assert evaluate_outcome(st).winner is None  # type: ignore[union-attr]
    st2 = replace(st, flags=replace(st.flags, r001_simultaneous_a_and_b="bandits"))
    assert evaluate_outcome(st2).winner is Winner.BANDITS  # type: ignore[union-attr]


@alternative("r001_win_check")
def test_sequential_win_check_executes_first() -> None:
    """AMB-06 alternative: the execution is checked first, so the last bandit's execution is a police win."""
    dead = ["Ken", "Pat", "Cy", "Cleo", "Cole", "Cruz", "Cid"]
    for mode, want in (
        ("per_batch", Termination.BOTH_WIPED_OUT),
        ("sequential", Termination.BANDITS_WIPED_OUT),
    ):
        st = make_state("R001", "S12", dead=dead, flags={"r001_win_check": mode})
        st = resolve_night(st, _night(st, Kill(None))).state
        res = engine.apply_day(st, day=st.round, executed="Kai", drowned=["Pam"])
        assert res.state.outcome is not None and res.state.outcome.termination is want
        if mode == "sequential":
            assert res.state.is_alive("Pam"), "the game ended before the drowning"


@alternative("gp_kill_and_possess_same_target")
def test_same_target_possession_left_available() -> None:
    st = make_state("R001", "S12", flags={"gp_kill_and_possess_same_target": "void_not_consumed"})
    res = resolve_night(st, _night(st, Kill("Cal", pledge="Ken", possess="Cal")))
    assert not res.state.possession_used and not res.state.is_alive("Cal")


@alternative("gp_invalid_possession")
def test_invalid_possession_processed_anyway() -> None:
    """AMB-10: refused at submission; if processed, no effect and used up (default) or still available."""
    st = make_state("R001", "S12")
    with pytest.raises(IllegalActionError):
        check_action(st, Kill("Cid", pledge="Ken", possess="Ken"))
    night = _night(st, Kill("Cid", pledge="Ken", possess="Ken"))
    assert resolve_night(st, night).state.possession_used
    alt = replace(st, flags=replace(st.flags, gp_invalid_possession="no_effect_not_consumed"))
    assert not resolve_night(alt, night).state.possession_used


@alternative("gp_possessed_joins_bandit_group")
def test_possessed_player_outside_the_bandit_group() -> None:
    """AMB-11 alternative: the possessed counts as a bandit but does not join the group or the kills."""
    players = {"Cal": {"possessed": True}}
    joined = make_state("R001", "S12", players=players)
    apart = make_state("R001", "S12", players=players, flags={"gp_possessed_joins_bandit_group": False})
    check_action(joined, Kill("Cid", pledge="Cal", by="Cal"))
    with pytest.raises(IllegalActionError, match="生死状"):
        check_action(apart, Kill("Cid", pledge="Cal"))
    with pytest.raises(IllegalActionError, match="不在匪帮里"):
        check_action(apart, Kill("Cid", pledge="Ken", by="Cal"))
    st = make_state("R001", "S12", flags={"gp_possessed_joins_bandit_group": False})
    res = resolve_night(st, _night(st, Kill("Cid", pledge="Ken", possess="Cora")))
    assert "加入匪帮讨论组" not in " ".join(texts(res.events, "player:Cora"))


@alternative("gp_notify_bandits")
def test_bandits_not_told_possession_outcomes() -> None:
    st = make_state("R001", "S12", flags={"gp_notify_bandits": False})
    res = resolve_night(st, _night(st, Kill("Zoe", pledge="Ken"), Check("Cid")))
    assert texts(res.events, "group:bandits") == []
    res = resolve_night(st, _night(st, Kill("Cid", pledge="Ken", possess="Pam")))
    assert texts(res.events, "group:bandits") == []
    assert texts(res.events, "group:police") == ["你方人员遭遇附体，但未生效"]


@alternative("gp_check_label_police")
def test_police_checking_police() -> None:
    """AMB-14: 警察 (proposal) or 平民 (the base labels only)."""
    st = make_state("R001", "S12")
    assert "Pat：警察" in texts(
        resolve_night(st, _night(st, Kill("Cid", pledge="Ken"), Check("Pat"))).events, "group:police"
    )
    alt = make_state("R001", "S12", flags={"gp_check_label_police": "平民"})
    assert "Pat：平民" in texts(
        resolve_night(alt, _night(alt, Kill("Cid", pledge="Ken"), Check("Pat"))).events, "group:police"
    )


@alternative("gp_extra_check_window_minutes")
def test_extra_check_window_is_announced() -> None:
    st = make_state("R001", "S12", flags={"gp_extra_check_window_minutes": 30})
    res = resolve_night(st, _night(st, Kill("Cid", pledge="Ken"), Check("Zoe")))
    assert any("30 分钟" in t for t in texts(res.events, "group:police"))


@alternative("gp_executed_poison_label")
def test_executed_poison_label_alternative() -> None:
    st = make_state("R001", "S12", flags={"gp_executed_poison_label": "警察"})
    st = resolve_night(st, _night(st, Kill("Cid", pledge="Ken"))).state
    res = engine.resolve_execution(st, "Zoe", day=1)
    assert texts(res.events, "public") == ["Zoe 被处决，身份：警察"]


@alternative("gp_possessed_poison_checked_extra")
def test_dead_poison_checked_grants_nothing_under_the_alternative() -> None:
    st = make_state("R001", "S12", flags={"gp_possessed_poison_checked_extra": False})
    res = resolve_night(st, _night(st, Kill("Cid", pledge="Ken", possess="Zoe"), Check("Zoe")))
    assert res.state.extra_check_round is None
    assert texts(res.events, "player:Zoe") == []
    assert "Zoe：毒药" in texts(res.events, "group:police")


@alternative("gp_late_kill_loses_possession")
def test_late_kill_keeps_the_possession_under_the_alternative() -> None:
    st = make_state("R001", "S12", flags={"gp_late_kill_loses_possession": False})
    res = resolve_night(st, _night(st, Kill("Cid", pledge="Ken", possess="Cal"), late=("kill",)))
    assert res.state.is_alive("Cid") and res.state.player("Cal").possessed
    assert "今晚平安夜" in texts(res.events, "public")


@alternative("r001_sent_off_reveals_identity")
def test_sending_off_by_name_only_or_with_identity() -> None:
    """AMB-33: §四.10 “判作立即出局”, announced like a drowning (no identity) by default."""
    st = make_state("R001", "S12")
    st = resolve_night(st, _night(st, Kill("Cole", pledge="Ken"))).state
    res = engine.send_off(st, "Ken", day=1)
    assert res.out == ("Ken",) and "身份" not in texts(res.events, "public")[0]
    alt = replace(st, flags=replace(st.flags, r001_sent_off_reveals_identity=True))
    assert texts(engine.send_off(alt, "Ken", day=1).events, "public")[0].endswith("身份：杀手")


# ---- guardians -------------------------------------------------------------------------------------


@alternative("guardian_once_per_target_scope")
def test_once_per_target_scope_global() -> None:
    """AMB-42 alternative: 每位玩家只有一次被守护的机会 across both guardians."""
    st = make_state("R000-G2", "G12", state={"guardian_history": {"Gil": ["Amy"]}})
    check_action(st, Protect("Gwen", "Amy"))
    alt = replace(st, flags=replace(st.flags, guardian_once_per_target_scope="global"))
    with pytest.raises(IllegalActionError, match="已被守护过"):
        check_action(alt, Protect("Gwen", "Amy"))


@alternative("guardian_counted_in_win_checks")
def test_guardians_counted_for_their_side() -> None:
    """AMB-44 alternative: 警神 as police, 匪神 as bandit."""
    dead = ["Pia", "Pol", "Amy", "Ben", "Dot", "Eli"]
    st = make_state("R000-G2", "G12", dead=dead)
    assert (
        evaluate_outcome(st) is not None and evaluate_outcome(st).termination is Termination.POLICE_WIPED_OUT
    )  # type: ignore[union-attr]
    alt = make_state("R000-G2", "G12", dead=dead, flags={"guardian_counted_in_win_checks": True})
    assert evaluate_outcome(alt) is None


@alternative("guardian_converted_keeps_duty")
def test_converted_police_guardian_still_on_duty() -> None:
    """AMB-46 alternative: he must still submit (no effect) and can die of dereliction."""
    players = {"Gwen": {"converted": True}}
    st = make_state("R000-G2", "G12", dead=["Gil"], players=players, state={"guardian_skips": {"Gwen": 1}})
    assert resolve_night(st, _night(st, Kill("Hal"))).state.is_alive("Gwen")
    alt = make_state(
        "R000-G2",
        "G12",
        dead=["Gil"],
        players=players,
        state={"guardian_skips": {"Gwen": 1}},
        flags={"guardian_converted_keeps_duty": True},
    )
    check_action(alt, Protect("Gwen", "Amy"))
    res = resolve_night(alt, _night(alt, Kill("Hal")))
    assert not res.state.is_alive("Gwen")
    night = _night(alt, Kill("Amy"), Protect("Gwen", "Amy"))
    assert not resolve_night(alt, night).state.is_alive("Amy"), "his protection has no effect"


@alternative("guardian_kill_text_editable")
def test_no_kill_text_reminder_under_the_alternative() -> None:
    st = make_state("R000-G1", "G10", flags={"guardian_kill_text_editable": False})
    res = resolve_night(st, _night(st, Protect("Gus", "Amy"), Kill("Amy", text="红围巾")))
    assert texts(res.events, "judge") == []


@alternative("guardian_with_ghost_poison")
def test_guarded_poison_in_a_combined_game() -> None:
    """AMB-48: a kill on a protected poison kills the guardian instead; the pledge survives."""
    roles = {
        "Kai": "ghost",
        "Ken": "bandit",
        "Pam": "police",
        "Zoe": "poison",
        "Gus": "guardian",
        "Cal": "civilian",
        "Cid": "civilian",
    }
    st = make_state("R001", roles, flags={"guardian_with_ghost_poison": True})
    res = resolve_night(st, _night(st, Protect("Gus", "Zoe"), Kill("Zoe", pledge="Ken", possess="Cal")))
    assert res.out == ("Gus",) and res.state.player("Cal").possessed


@alternative("r000_base_day_procedure")
def test_r000_variants_use_r001_day_procedure() -> None:
    for rid in ("R000-GP", "R000-G1", "R000-G2"):
        assert get_ruleset(rid).family == get_ruleset(rid).flags.r000_base_day_procedure == "r001"
    with pytest.raises(Exception, match="not one of"):
        NightFlags(r000_base_day_procedure="r004")


@alternative("guardian_execution_wording")
def test_guardian_execution_wording_is_configurable() -> None:
    st = make_state("R000-G1", "G10", flags={"guardian_execution_wording": "{x} 被守护，{g} 代死"})
    st = resolve_night(st, _night(st, Protect("Gus", "Ben"), Kill("Eli"))).state
    assert texts(engine.resolve_execution(st, "Ben", day=1).events, "public") == ["Ben 被守护，Gus 代死"]


# ---- R004 ------------------------------------------------------------------------------------------


@alternative("r004_alert_causes")
def test_alert_causes_can_include_the_agent() -> None:
    st = make_state(
        "R004",
        "B22",
        flags={"r004_alert_causes": ("killers", "snipe", "fireworks", "hostage", "assassination")},
    )
    from engine import Assassinate

    res = resolve_night(st, _night(st, Assassinate("My")))
    assert res.state.alert_night == 2 and "My 出局，身份：市长" in texts(res.events, "public")


@alternative("r004_authority_to_out_tonight")
def test_authority_to_a_role_out_the_same_night() -> None:
    """AMB-61: default — not to a role that is out, even from the same night."""
    st = make_state("R004", "B22")
    st = resolve_night(st, _night(st, Kill("My"), Fireworks("c3"))).state
    with pytest.raises(IllegalActionError, match="已出局"):
        engine.pass_authority(st, "c3")
    with pytest.raises(IllegalActionError, match="交出威权的本人"):
        engine.pass_authority(st, "My")
    alt = replace(st, flags=replace(st.flags, r004_authority_to_out_tonight=True))
    assert engine.pass_authority(alt, "c3").state.authority_holder == "c3"


@alternative("r004_doctor_may_heal_self")
def test_doctor_self_heal_refused_under_the_alternative() -> None:
    st = make_state("R004", "B22")
    check_action(st, Heal("Dr"))
    alt = make_state("R004", "B22", flags={"r004_doctor_may_heal_self": False})
    with pytest.raises(IllegalActionError, match="不能救治自己"):
        check_action(alt, Heal("Dr"))


@alternative("r004_reveal_identity_on_elimination")
def test_identities_announced_under_the_alternative() -> None:
    """AMB-64: no identity by default; the alternative announces them."""
    st = make_state("R004", "B22")
    assert texts(resolve_night(st, _night(st, Kill("P1"))).events, "public") == ["P1 出局"]
    alt = make_state("R004", "B22", flags={"r004_reveal_identity_on_elimination": True})
    res = resolve_night(alt, _night(alt, Kill("P1")))
    assert texts(res.events, "public") == ["P1 出局，身份：警察"]
    assert texts(engine.resolve_execution(res.state, "K1", day=1).events, "public") == ["K1 出局，身份：杀手"]


@alternative("r004_arrow_works_same_night")
def test_arrow_from_the_next_night_under_the_alternative() -> None:
    alt = make_state("R004", "B22", flags={"r004_arrow_works_same_night": False})
    res = resolve_night(alt, _night(alt, Arrow("c1", "P2"), Kill("c1")))
    assert res.out == ("c1",) and res.state.lovers == ("c1", "P2")


@alternative("r004_cupid_may_choose_self")
def test_cupid_naming_himself() -> None:
    st = make_state("R004", "B22")
    check_action(st, Arrow("Cu", "c1"))
    alt = make_state("R004", "B22", flags={"r004_cupid_may_choose_self": False})
    with pytest.raises(IllegalActionError, match="不能选自己"):
        check_action(alt, Arrow("Cu", "c1"))


@alternative("r004_kidnap_feedback")
def test_no_kidnap_feedback_under_the_alternative() -> None:
    alt = make_state(
        "R004",
        {
            **{f"K{i}": "killer" for i in range(3)},
            "Kd": "kidnapper",
            "P": "police",
            "c1": "civilian",
            "c2": "civilian",
            "c3": "civilian",
            "c4": "civilian",
            "c5": "civilian",
        },
        flags={"r004_kidnap_feedback": False},
    )
    res = resolve_night(alt, _night(alt, Kidnap("c1")))
    assert res.state.kidnapped == ("c1",) and texts(res.events, "player:c1") == []


@alternative("r004_default_hostage_order")
def test_hostage_order_default_and_reverse() -> None:
    roles = {"K0": "killer", "K1": "killer", "K2": "killer", "Kd": "kidnapper", "P": "police"} | {
        f"c{i}": "civilian" for i in range(1, 9)
    }
    base = make_state("R004", roles, state={"kidnapped": ["c1", "c2"]})
    assert resolve_night(base, _night(base, KillHostages())).out == ("c1", "c2")
    alt = replace(base, flags=replace(base.flags, r004_default_hostage_order="reverse"))
    assert resolve_night(alt, _night(alt, KillHostages())).out == ("c2", "c1")


@alternative("r004_surrender_requires")
def test_surrender_needs_every_killer_camp_role_under_the_alternative() -> None:
    st = make_state("R004", "B22", flags={"r004_surrender_requires": "all_killer_camp"})
    with pytest.raises(IllegalActionError, match="Te"):
        engine.surrender(st, ["K1", "K2", "K3"])
    assert engine.surrender(st, ["K1", "K2", "K3", "Sn", "Te", "Sp"]).state.outcome is not None


@alternative("r004_fireworks_may_target_self")
def test_terrorist_naming_himself() -> None:
    """AMB-84: any role other than the terrorist (default)."""
    st = make_state("R004", "B22")
    with pytest.raises(IllegalActionError, match="AMB-84"):
        check_action(st, Fireworks("Te"))
    alt = make_state("R004", "B22", flags={"r004_fireworks_may_target_self": True})
    assert resolve_night(alt, _night(alt, Fireworks("Te"))).out == ("Te",)


@alternative("r004_daystart_includes_day_eliminations")
def test_day_start_list_only_the_night_under_the_alternative() -> None:
    """AMB-88: “公示前一天出局角色名单” = the day's vote and red cards, then the night (default)."""
    for flag, want in ((True, "c5 出局\nc6 出局\nc7 出局"), (False, "c7 出局")):
        st = make_state("R004", "B22", flags={"r004_daystart_includes_day_eliminations": flag})
        st = resolve_night(st, _night(st, Kill("c8"))).state
        st = engine.apply_day(st, day=1, executed="c5", red_cards=["c6"]).state
        assert texts(resolve_night(st, _night(st, Kill("c7"))).events, "public") == [want]


@alternative("r004_spy_counted")
def test_spy_counting_overrides_the_preset() -> None:
    from engine import new_game

    roles = {"K1": "killer", "Sp": "spy", "P1": "police", "c1": "civilian", "c2": "civilian"}
    assert new_game("R004", roles).lastword_slots == 2
    flags = replace(NightFlags(), r004_spy_counted=False)
    st = new_game("R004", roles, flags=flags)
    assert st.lastword_slots == 1 and not st.spy_counted
    # the spy alone is then no counted killer: the civilian camp wins when K1 goes out
    st = resolve_night(st, _night(st, Kill("K1"))).state
    assert st.outcome is not None and st.outcome.winner is Winner.CIVILIAN_CAMP


@alternative("r004_doctor_or_butterfly", "r004_preset21_missing_role")
def test_setup_choices_change_the_roles_a_draw_deals() -> None:
    """AMB-70 (医生/花蝴蝶 is one role) and AMB-78 (the 21-player preset lists 20 roles) are read when the
    roles are drawn: the flags given to the draw decide which role is dealt."""
    from engine import RoleId, draw_roles, parse_presets
    from tests.engine.conftest import read_preset_text

    table = parse_presets(read_preset_text("r004"))

    def dealt(n: int, **flags: str) -> list[RoleId]:
        roster = [f"p{i}" for i in range(n)]
        drawn = draw_roles("R004", roster, seed=7, preset_table=table, flags=NightFlags(**flags))
        return [p.role for p in drawn.state.players]

    doctor, butterfly = dealt(22), dealt(22, r004_doctor_or_butterfly="butterfly")
    assert (doctor.count(RoleId.DOCTOR), doctor.count(RoleId.BUTTERFLY)) == (1, 0)
    assert (butterfly.count(RoleId.DOCTOR), butterfly.count(RoleId.BUTTERFLY)) == (0, 1)
    mayor, civilian = dealt(21), dealt(21, r004_preset21_missing_role="civilian")
    assert (mayor.count(RoleId.MAYOR), civilian.count(RoleId.MAYOR)) == (1, 0)
    assert civilian.count(RoleId.CIVILIAN) == mayor.count(RoleId.CIVILIAN) + 1 == 11


@alternative("r004_mayor_target_must_be_tied")
def test_a_mayor_target_outside_the_tie_executes_nobody_under_the_alternative() -> None:
    """AMB-60: c3 and c4 tie and the authority holder names c5: c5 goes (default) or nobody does."""
    for flag, out in ((False, ("c5",)), (True, ())):
        st = make_state("R004", "P22", round_=2, flags={"r004_mayor_target_must_be_tied": flag})
        st = resolve_night(st, _night(st, Kill("c10"))).state
        res = apply_day(st, day=2, executed="c5", tied=frozenset({"c3", "c4"}))
        assert tuple(res.out) == out


def test_every_flag_alternative_is_exercised() -> None:
    in_cases = {name for case in load_cases() for name in case.get("flags", {})}
    covered = in_cases | set(FLAG_TESTS)
    missing = [f.name for f in fields(NightFlags) if f.name not in covered]
    assert missing == [], f"flags whose alternative reading has no test: {missing}"


def test_snipe_kind_names_are_stable() -> None:
    assert Snipe.kind.value == "snipe" and KillHostages.kind.value == "kill_hostages"


@alternative("r004_last_words_with_code")
def test_last_words_with_discuz_code_refused_or_stripped() -> None:
    """遗言中禁止使用Discuz!代码: refused as they are (default, resubmit before the deadline) or stripped."""
    from datetime import UTC, datetime

    from engine import last_words_windows, new_game, publishable_last_words

    roles = {"K1": "killer", "P1": "police", "c1": "civilian", "c2": "civilian", "c3": "civilian"}
    for mode, want in (("refused", None), ("stripped", "c2是杀手")):
        st = new_game("R004", roles, flags=replace(NightFlags(), r004_last_words_with_code=mode))
        st = resolve_night(st, _night(st, Kill("c1"))).state
        (w,) = last_words_windows(st, datetime(2026, 6, 12, 1, tzinfo=UTC))
        text, note = publishable_last_words(w, "[color=red]c2是杀手[/color]", st.flags)
        assert text == want and "Discuz!代码" in note
