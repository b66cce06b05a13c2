"""Rules of rules.md §d–§g that no worked case shows: submissions, the day side, judge actions, outcomes."""

from __future__ import annotations

from dataclasses import replace

import pytest

import engine
from engine import (
    ActionKind,
    Cause,
    Check,
    EngineError,
    EventKind,
    Fireworks,
    GameOverError,
    GameState,
    Heal,
    Hug,
    IllegalActionError,
    Kidnap,
    Kill,
    KillHostages,
    Night,
    NightAction,
    Outcome,
    Phase,
    Protect,
    Resolution,
    Snipe,
    Submission,
    Termination,
    Winner,
    check_action,
    evaluate_outcome,
    legal_targets,
    new_night,
    resolve_extra_check,
    resolve_night,
    submit,
    withdraw,
)
from tests.engine.helpers import make_state, texts


def _resolve(
    state: GameState, *actions: NightAction, late: tuple[str, ...] = ()
) -> tuple[GameState, Resolution]:
    night = Night(state.round)
    for a in actions:
        night = night.with_submission(Submission(a, a.kind.value in late))
    res = resolve_night(state, night)
    return res.state, res


# ---- submissions -----------------------------------------------------------------------------------


def test_a_check_by_dead_police_is_refused() -> None:
    """R001 §四.7: a police officer killed may corpse-talk, but cannot check."""
    st = make_state("R001", "S12", dead=["Pam"])
    with pytest.raises(IllegalActionError, match="警察 Pam 已死亡"):
        check_action(st, Check("Cid", by="Pam"))
    check_action(st, Check("Cid", by="Pat"))
    st = make_state("R001", "S12", dead=["Pam", "Pat"])
    with pytest.raises(IllegalActionError, match="警察已全部死亡"):
        check_action(st, Check("Cid"))


def test_a_dead_bandit_cannot_submit_the_kill_and_the_dead_cannot_be_killed() -> None:
    st = make_state("R001", "S12", dead=["Ken", "Cole"])
    with pytest.raises(IllegalActionError, match="已死亡"):
        check_action(st, Kill("Cid", by="Ken"))
    with pytest.raises(IllegalActionError, match="已死亡"):
        check_action(st, Kill("Cole"))
    with pytest.raises(IllegalActionError, match="没有名为"):
        check_action(st, Kill("Nobody"))
    check_action(st, Kill("Kai"))  # 也可以自杀


def test_an_out_actor_cannot_act_in_r004() -> None:
    st = make_state("R004", "B22", dead=["Sn", "Dr"])
    with pytest.raises(IllegalActionError, match="出局"):
        check_action(st, Snipe("c1"))
    with pytest.raises(IllegalActionError, match="出局"):
        check_action(st, Heal("c1"))
    with pytest.raises(IllegalActionError, match="不是杀手"):
        check_action(st, Kill("c1", by="Sp"))


def test_no_kidnapping_on_the_night_of_kill_hostages() -> None:
    """“<撕票>发动后，当晚及之后的夜晚不能发动<绑架>”."""
    roles = {"K1": "killer", "K2": "killer", "Kd": "kidnapper", "P": "police"} | {
        f"c{i}": "civilian" for i in range(6)
    }
    st = make_state("R004", roles, state={"kidnapped": ["c1"]})
    night = submit(st, new_night(st), KillHostages())
    with pytest.raises(IllegalActionError, match="撕票"):
        submit(st, night, Kidnap("c2"))
    night2 = submit(st, new_night(st), Kidnap("c2"))
    with pytest.raises(IllegalActionError, match="绑架"):
        submit(st, night2, KillHostages())
    night3 = submit(st, withdraw(night2, ActionKind.KIDNAP), KillHostages(("c1",)))
    assert [s.action.kind for s in night3.submissions] == [ActionKind.KILL_HOSTAGES]
    with pytest.raises(IllegalActionError, match="被绑架角色各列一次"):
        check_action(st, KillHostages(("c1", "c2")))


def test_a_resubmission_replaces_the_earlier_one_but_a_late_one_never_replaces_an_on_time_one() -> None:
    st = make_state("R001", "S12")
    night = submit(st, new_night(st), Kill("Cole", pledge="Ken"))
    night = submit(st, night, Kill("Cid", pledge="Ken"))
    night = submit(st, night, Kill("Cy", pledge="Ken"), late=True)
    assert night.on_time(ActionKind.KILL) == Kill("Cid", pledge="Ken")
    assert resolve_night(st, night).out == ("Cid",)


def test_submissions_only_at_night_and_for_the_current_night() -> None:
    st = make_state("R001", "S12")
    st2, _ = _resolve(st, Kill("Cole", pledge="Ken"))
    with pytest.raises(IllegalActionError, match="第1日结束后"):
        check_action(st2, Kill("Cid", pledge="Ken"))
    with pytest.raises(IllegalActionError, match="已经结算"):
        resolve_night(st2, Night(1))
    with pytest.raises(IllegalActionError, match="第5夜"):
        resolve_night(st, Night(5))
    with pytest.raises(IllegalActionError, match="没有角色"):
        check_action(st, Snipe("Cid"))


def test_after_the_game_ends_everything_is_refused() -> None:
    st = make_state("R001", "S12")
    over = engine.concede(st, "bandits").state
    assert over.outcome == Outcome(Termination.CONCESSION, Winner.POLICE)
    with pytest.raises(GameOverError):
        check_action(over, Kill("Cid"))
    with pytest.raises(GameOverError):
        resolve_night(over, Night(1))
    with pytest.raises(GameOverError):
        engine.concede(over, "police")


def test_legal_targets_lists_what_a_submission_may_name() -> None:
    st = make_state("R000-G1", "G10", dead=["Fay"], state={"guardian_history": {"Gus": ["Amy"]}})
    assert set(legal_targets(st, ActionKind.PROTECT, actor="Gus")) == {
        "Bo",
        "Bea",
        "Pia",
        "Pol",
        "Ben",
        "Dot",
        "Eli",
    }
    assert "Fay" not in legal_targets(st, ActionKind.KILL)


# ---- R001 night details ------------------------------------------------------------------------------


def test_results_wait_for_an_executed_police_officers_last_words() -> None:
    """§四.5.3: “执法团需确认被票死的警察已经发布完毕遗言之后，方可给出当日的验人结果，以及发布新案情。”"""
    st, _ = _resolve(make_state("R001", "S12"), Kill("Cole", pledge="Ken"))
    res = engine.resolve_execution(st, "Pam", day=1)
    assert texts(res.events, "public") == ["Pam 被处决，身份：警察"]
    assert any("遗言" in t for t in texts(res.events, "player:Pam"))
    st = engine.close_day(res.state, day=1).state
    assert st.police_last_words == "Pam"
    st2, res2 = _resolve(st, Kill("Cid", pledge="Ken"), Check("Cy"))
    for ev in res2.events:
        if ev.kind in (EventKind.CASE_POST, EventKind.CHECK_RESULT):
            assert ev.data["after_last_words_of"] == "Pam"
    assert st2.police_last_words is None


def test_check_result_order_then_poison_notice_then_extra_check() -> None:
    st, res = _resolve(make_state("R001", "S12"), Kill("Cid", pledge="Ken"), Check("Zoe"))
    kinds = [e.kind for e in res.events]
    assert (
        kinds.index(EventKind.CHECK_RESULT)
        < kinds.index(EventKind.POISON_CHECKED)
        < kinds.index(EventKind.EXTRA_CHECK_GRANTED)
    )
    res2 = resolve_extra_check(st, "Zoe")
    assert texts(res2.events, "group:police") == ["Zoe：毒药"]
    assert res2.state.extra_check_round is None, "at most one extra check"
    with pytest.raises(IllegalActionError, match="没有应得的追加验人"):
        resolve_extra_check(res2.state, "Ken")


def test_a_guardian_protection_is_accepted_without_comment() -> None:
    """“守护神提交名单当时，不知道此名单是否有效”: no event tells the guardian anything."""
    st = make_state("R000-G2", "G12")
    _, res = _resolve(st, Protect("Gwen", "Bo"), Protect("Gil", "Pia"), Kill("Amy"))
    assert texts(res.events, "player:Gwen") == texts(res.events, "player:Gil") == []


def test_protection_history_and_accessors_for_the_day_tally() -> None:
    st, _ = _resolve(make_state("R000-G1", "G10"), Protect("Gus", "Amy"), Kill("Eli"))
    assert st.protege_of("Gus") == "Amy" and st.is_guardian("Gus") and not st.is_guardian("Amy")
    assert engine.double_kill_pair(st, 1) == ("Gus", "Amy")
    assert engine.double_kill_pair(st, 2) is None
    assert engine.double_kill_applies(st, 1, {"Amy", "Gus"})
    assert not engine.double_kill_applies(st, 1, {"Amy", "Ben"})
    assert st.guardian_history == {"Gus": ("Amy",)}
    nxt = engine.close_day(st, day=1).state
    assert nxt.protege_of("Gus") is None and engine.double_kill_pairs(nxt, 2) == ()


def test_double_guardian_pairs_only_where_the_protection_works() -> None:
    st, _ = _resolve(make_state("R000-G2", "G12"), Protect("Gwen", "Bo"), Protect("Gil", "Amy"), Kill("Hal"))
    assert engine.double_kill_pairs(st, 1) == (("Gil", "Amy"),)


# ---- day side --------------------------------------------------------------------------------------------


def test_drowning_is_announced_by_name_and_an_executed_player_is_announced_as_executed() -> None:
    """§四.2.5 “同时满足被票杀和淹死情况，按照被票杀宣布”; §四.5.2 drowned identities stay secret."""
    st, _ = _resolve(make_state("R001", "S12"), Kill("Cole", pledge="Ken"))
    res = engine.apply_day(st, day=1, executed="Cid", drowned=["Cid", "Zoe"])
    pub = texts(res.events, "public")
    assert pub == ["Cid 被处决，身份：平民", "Zoe 淹死"]
    assert res.state.player("Cid").cause is Cause.EXECUTED and res.state.player("Zoe").cause is Cause.DROWNED
    assert res.state.phase is Phase.NIGHT and res.state.round == 2
    with pytest.raises(IllegalActionError, match="R001"):
        engine.resolve_drowning(make_state("R004", "B22"), ["c1"], day=1)


def test_execution_refusals() -> None:
    st, _ = _resolve(make_state("R001", "S12", dead=["Cruz"]), Kill("Cole", pledge="Ken"))
    with pytest.raises(IllegalActionError, match="已出局，不能被处决"):
        engine.resolve_execution(st, "Cruz", day=1)
    with pytest.raises(IllegalActionError, match="属于第2日"):
        engine.resolve_execution(st, "Cid", day=2)
    with pytest.raises(IllegalActionError, match="R004"):
        engine.resolve_red_cards(st, ["Cid"], day=1)


def test_r004_vote_on_a_lover_whose_partner_is_out_has_no_swap() -> None:
    st = make_state("R004", "B22", dead=["c2"], state={"lovers": ["c1", "c2"], "arrow_used": True})
    st, _ = _resolve(st, Kill("c8"))
    assert engine.resolve_execution(st, "c1", day=1).out == ("c1",)


def test_r004_game_ends_at_the_vote_and_red_cards_are_not_executed() -> None:
    dead = [
        "K2",
        "K3",
        "Sn",
        "Sp",
        "P2",
        "P3",
        "Dr",
        "Bf",
        "My",
        "Cu",
        "c2",
        "c3",
        "c4",
        "c5",
        "c6",
        "c7",
        "c8",
    ]
    st, _ = _resolve(make_state("R004", "B22", dead=dead), Check("K1"))
    res = engine.apply_day(st, day=1, executed="K1", red_cards=["c1"])
    assert res.state.outcome == Outcome(Termination.COUNTED_KILLERS_OUT, Winner.CIVILIAN_CAMP)
    assert res.state.is_alive("c1")
    with pytest.raises(GameOverError):
        engine.resolve_red_cards(res.state, ["c1"], day=1)


def test_red_carded_authority_holder_must_still_pass_it() -> None:
    st, _ = _resolve(make_state("R004", "B22"), Kill("c8"))
    res = engine.resolve_red_cards(st, ["My"], day=1)
    assert res.state.authority_pending == "My" and res.state.authority_holder is None
    with pytest.raises(EngineError, match="种子"):
        engine.pass_authority(res.state, None)
    a = engine.pass_authority(res.state, None, seed=11).state.authority_holder
    b = engine.pass_authority(res.state, None, seed=11).state.authority_holder
    assert a == b and a not in (None, "My") and res.state.is_alive(a)
    with pytest.raises(IllegalActionError, match="没有需要移交"):
        engine.pass_authority(st, "c1")


def test_counters_the_day_side_keeps() -> None:
    st = make_state("R001", "S12")
    st = engine.add_strike(engine.add_strike(st, "Cy"), "Cy")
    assert st.strikes_of("Cy") == 2 and st.strikes_of("Cal") == 0
    st4 = engine.add_yellow_card(make_state("R004", "B22"), "c1")
    assert st4.yellow_cards_of("c1") == 1
    for _ in range(5):
        st4 = engine.record_proxy_vote(st4, "c2")  # R004 sets no limit
    assert st4.proxy_votes_used_of("c2") == 5


def test_concession_and_judge_end() -> None:
    """R001 §三.3 (主动告负) and §三.4 (特殊原因)."""
    st = make_state("R001", "S12")
    res = engine.concede(st, "police")
    assert res.state.outcome == Outcome(Termination.CONCESSION, Winner.BANDITS)
    assert any(e.kind is EventKind.GAME_OVER and "Kai：鬼匪" in e.text for e in res.events)
    with pytest.raises(IllegalActionError, match="只有杀手阵营可以投降"):
        engine.concede(make_state("R004", "B22"), "bandits")
    end = engine.end_game(st, "论坛故障")
    assert end.state.outcome == Outcome(Termination.JUDGE_ENDED, None)
    assert end.state.phase is Phase.OVER


def test_surrender_after_the_sniper_rejoined_needs_him_too() -> None:
    st = make_state("R004", "B22", state={"sniper_rejoined": True})
    with pytest.raises(IllegalActionError, match="Sn"):
        engine.surrender(st, ["K1", "K2", "K3"])
    with pytest.raises(IllegalActionError, match="R004"):
        engine.surrender(make_state("R001", "S12"), ["Kai", "Ken"])


def test_game_over_post_reveals_everything_including_the_possession_history() -> None:
    st = make_state("R001", "S12", dead=["Ken", "Pat", "Cid", "Cora", "Cy", "Cleo", "Cole", "Cruz"])
    _, res = _resolve(st, Kill("Pam", possess="Zoe"))
    over = [e for e in res.events if e.kind is EventKind.GAME_OVER]
    assert len(over) == 1 and "游戏结束：平局" in over[0].text and "Kai：鬼匪（已附体）" in over[0].text
    assert over[0].data["identities"]["Zoe"] == "毒药"


# ---- outcomes -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dead", "expected"),
    [
        ([], None),
        (["Kai", "Ken"], Outcome(Termination.BANDITS_WIPED_OUT, Winner.POLICE)),
        (["Pam", "Pat"], Outcome(Termination.POLICE_WIPED_OUT, Winner.BANDITS)),
        (
            ["Cal", "Cid", "Cora", "Cy", "Cleo", "Cole", "Cruz"],
            Outcome(Termination.CIVILIANS_WIPED_OUT, Winner.BANDITS),
        ),
        (["Kai", "Ken", "Pam", "Pat"], Outcome(Termination.BOTH_WIPED_OUT, None)),
        (
            ["Pat", "Zoe", "Cal", "Cid", "Cora", "Cy", "Cleo"],
            Outcome(Termination.BANDIT_PARITY, Winner.BANDITS),
        ),
        (["Pat", "Cal", "Cid", "Cora", "Cy"], None),
    ],
)
def test_r001_conditions_in_their_documented_order(dead: list[str], expected: Outcome | None) -> None:
    """§e.1: A∧B ⇒ draw; A ⇒ police and civilians; B ⇒ bandits; C2 ⇒ bandits."""
    assert evaluate_outcome(make_state("R001", "S12", dead=dead)) == expected


def test_r004_conditions_in_their_documented_order() -> None:
    """§e.3: the cupid is no god; the terrorist and an uncounted spy may live when the civilians win."""
    everyone = make_state("R004", "B22").names()

    def only(*alive: str) -> Outcome | None:
        return evaluate_outcome(make_state("R004", "B22", dead=[n for n in everyone if n not in alive]))

    assert only(*everyone) is None
    assert only("Te", "Cu", "P1", "c1") == Outcome(Termination.COUNTED_KILLERS_OUT, Winner.CIVILIAN_CAMP)
    assert only("K1", "Te", "P1", "c1") == Outcome(Termination.KILLER_CAMP_HALF, Winner.KILLER_CAMP)
    assert only("K1", "Cu", "c1", "c2") == Outcome(Termination.GODS_OUT, Winner.KILLER_CAMP)
    assert only("K1", "P1", "Dr", "c1", "c2") is None
    assert only("K1", "P1", "Dr", "Ag") == Outcome(Termination.PLAIN_CIVILIANS_OUT, Winner.KILLER_CAMP)
    uncounted = replace(
        make_state("R004", "B22", dead=[n for n in everyone if n not in ("Sp", "P1", "c1", "c2")]),
        spy_counted=False,
    )
    assert evaluate_outcome(uncounted) == Outcome(Termination.COUNTED_KILLERS_OUT, Winner.CIVILIAN_CAMP)


def test_r004_no_win_check_for_nights_without_eliminations_and_the_heal_of_a_dead_doctor() -> None:
    st = make_state("R004", "B22")
    st2, res = _resolve(st, Hug("c1"), Heal("c2"), Fireworks("K1"))
    assert res.out == ("Te",) and st2.empty_heals_of("c2") == 1
