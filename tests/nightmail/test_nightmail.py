"""The verdict of every night message (forumbot.nightmail.judge_night), rule by rule."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    Check,
    GameState,
    GroupId,
    Heal,
    Kill,
    Protect,
    check_action,
    new_game,
    new_night,
    resolve_extra_check,
    resolve_night,
    submit,
)
from forumbot.nightmail import (
    NightChannel,
    NightCode,
    NightMailFlags,
    NightMessage,
    NightOverride,
    judge_night,
    override_log,
    pm_messages,
    thread_messages,
)
from forumbot.parsers.nightmsg import NightStatement
from forumbot.parsers.pm import PmMessage
from forumbot.parsers.records import Post, PostState, TimeSource

OPEN = datetime(2026, 6, 3, 5, 0, tzinfo=UTC)  # 13:00 Beijing: the day closed, night 1 opens
DEADLINE = datetime(2026, 6, 3, 9, 0, tzinfo=UTC)  # 17:00 Beijing (001 §二.3)
BANDITS = GroupId.BANDITS
POLICE = GroupId.POLICE


def r001() -> GameState:
    return new_game(
        "R001",
        [
            ("包子", "鬼匪"),
            ("油条", "匪"),
            ("饺子", "警察"),
            ("馄饨", "警察"),
            ("月饼", "毒药"),
            ("烧卖", "平民"),
            ("汤圆", "平民"),
            ("锅贴", "平民"),
        ],
    )


def r004() -> GameState:
    return new_game(
        "R004",
        [
            ("包子", "杀手"),
            ("油条", "杀手"),
            ("狙狙", "狙击手"),
            ("饺子", "警察"),
            ("馄饨", "警察"),
            ("大夫", "医生"),
            ("市长", "市长"),
            ("烧卖", "平民"),
            ("汤圆", "平民"),
            ("锅贴", "平民"),
        ],
    )


def dead(state: GameState, *names: str) -> GameState:
    players = tuple(replace(p, alive=False) if p.name in names else p for p in state.players)
    return replace(state, players=players)


_seq = iter(range(1, 10_000))


def group(
    author: str, text: str, minutes: int, where: GroupId = BANDITS, mid: str | None = None
) -> NightMessage:
    return NightMessage(
        mid or f"pid:{next(_seq)}",
        NightChannel.GROUP_THREAD,
        author,
        DEADLINE - timedelta(hours=4) + timedelta(minutes=minutes),
        text,
        group=where,
    )


def pm(
    author: str, text: str, minutes: int, mid: str | None = None, until: int | None = None
) -> NightMessage:
    at = DEADLINE - timedelta(hours=4) + timedelta(minutes=minutes)
    return NightMessage(
        mid or f"pm:{next(_seq)}",
        NightChannel.PM,
        author,
        at,
        text,
        until=None if until is None else at + timedelta(seconds=until),
    )


def codes(mail: object) -> list[str]:
    return [v.code.value for v in mail.verdicts]  # type: ignore[attr-defined]


# --- R001 -----------------------------------------------------------------------------------------------


def test_the_bandits_kill_with_pledge_in_their_thread_and_a_partner_agreeing() -> None:
    a = group("包子", "今晚杀：烧卖\n生死状：如果我们错杀毒药，油条与毒药同死", 0)
    b = group("油条", "同意。今晚杀：烧卖", 1)
    mail = judge_night(r001(), [a, b], deadline=DEADLINE, opens_at=OPEN)
    assert codes(mail) == ["accepted", "accepted"]
    kill = mail.night.on_time(Kill.kind)
    assert kill == Kill("烧卖", pledge="油条", by="油条")
    assert "生死状" in mail.verdict(a.id).reason  # its pledge is still the one used
    assert mail.complete


def test_the_police_check_by_private_message() -> None:
    mail = judge_night(r001(), [pm("饺子", "验：包子", 5)], deadline=DEADLINE)
    assert codes(mail) == ["accepted"]
    assert mail.night.on_time(Check.kind) == Check("包子", by="饺子")
    assert "验人 包子" in mail.verdicts[0].reason


def test_a_player_outside_the_group_cannot_submit_its_action() -> None:
    mail = judge_night(r001(), [pm("烧卖", "杀：包子", 5), pm("包子", "验：饺子", 6)], deadline=DEADLINE)
    assert codes(mail) == ["not_member", "not_member"]
    assert "匪帮讨论组" in mail.verdicts[0].reason and "警署讨论组" in mail.verdicts[1].reason
    assert mail.night.submissions == ()


def test_a_group_action_in_another_groups_thread_is_the_wrong_channel() -> None:
    mail = judge_night(r001(), [group("包子", "杀：烧卖", 1, where=POLICE)], deadline=DEADLINE)
    assert codes(mail) == ["wrong_channel"]


def test_a_group_action_by_pm_can_be_refused_by_flag() -> None:
    flags = NightMailFlags(night_group_actions_by_pm=False)
    mail = judge_night(r001(), [pm("包子", "杀：烧卖", 1)], deadline=DEADLINE, flags=flags)
    assert codes(mail) == ["wrong_channel"]


def test_late_kill_means_a_peaceful_night_and_is_kept_as_late() -> None:
    late = group("包子", "杀：烧卖", 4 * 60 + 1)
    mail = judge_night(r001(), [late], deadline=DEADLINE)
    assert codes(mail) == ["late"] and "今晚平安夜" in mail.verdicts[0].reason
    sub = mail.night.get(Kill.kind)
    assert sub is not None and sub.late
    res = resolve_night(r001(), mail.night)
    assert all(p.alive for p in res.state.players)


def test_exactly_at_the_deadline_is_late_unless_the_flag_says_inclusive() -> None:
    at = pm("饺子", "验：包子", 4 * 60)
    assert codes(judge_night(r001(), [at], deadline=DEADLINE)) == ["late"]
    flags = NightMailFlags(night_deadline_inclusive=True)
    assert codes(judge_night(r001(), [at], deadline=DEADLINE, flags=flags)) == ["accepted"]


def test_a_late_one_never_replaces_an_on_time_one() -> None:
    mail = judge_night(
        r001(), [pm("饺子", "验：包子", 1), pm("饺子", "验：烧卖", 4 * 60 + 5)], deadline=DEADLINE
    )
    assert codes(mail) == ["accepted", "late"]
    assert mail.night.on_time(Check.kind) == Check("包子", by="饺子")


def test_a_minute_precision_time_straddling_the_deadline_goes_to_the_judge() -> None:
    msg = pm("饺子", "验：包子", 4 * 60 - 1, until=119)
    mail = judge_night(r001(), [msg], deadline=DEADLINE)
    assert codes(mail) == ["ambiguous"] and not mail.complete


def test_a_message_from_before_the_night_opened_is_early() -> None:
    old = pm("饺子", "验：包子", -5 * 60)
    assert codes(judge_night(r001(), [old], deadline=DEADLINE, opens_at=OPEN)) == ["early"]


def test_the_engine_rule_makes_a_submission_illegal_and_is_named() -> None:
    state = dead(r001(), "烧卖")
    mail = judge_night(state, [group("包子", "杀：烧卖", 1)], deadline=DEADLINE)
    assert codes(mail) == ["illegal"]
    v = mail.verdicts[0]
    assert v.parts[0].rule == "R001 §二.3" and "R001 §二.3" in v.reason
    mail = judge_night(r001(), [group("包子", "杀：烧卖\n生死状：饺子", 1)], deadline=DEADLINE)
    assert codes(mail) == ["illegal"] and "生死状" in mail.verdicts[0].reason


def test_a_dead_bandit_cannot_submit_the_kill() -> None:
    mail = judge_night(dead(r001(), "油条"), [group("油条", "杀：烧卖", 1)], deadline=DEADLINE)
    assert codes(mail) == ["illegal"]


def test_a_later_submission_by_the_same_member_supersedes() -> None:
    a, b = group("包子", "杀：烧卖", 1), group("包子", "杀：汤圆", 2)
    mail = judge_night(r001(), [a, b], deadline=DEADLINE)
    assert codes(mail) == ["superseded", "accepted"]
    assert mail.verdict(a.id).parts[0].superseded_by == b.id
    assert mail.night.on_time(Kill.kind) == Kill("汤圆", by="包子")


def test_two_members_disagreeing_go_to_the_judge_by_default() -> None:
    a, b = group("包子", "杀：烧卖", 1), group("油条", "杀：汤圆", 2)
    mail = judge_night(r001(), [a, b], deadline=DEADLINE)
    assert codes(mail) == ["ambiguous", "ambiguous"]
    assert mail.night.on_time(Kill.kind) is None and not mail.complete


@pytest.mark.parametrize(
    ("policy", "expected", "victim"),
    [("last", ["superseded", "accepted"], "汤圆"), ("first", ["accepted", "conflict"], "烧卖")],
)
def test_the_conflict_flag(policy: str, expected: list[str], victim: str) -> None:
    flags = NightMailFlags(night_group_conflict=policy)
    mail = judge_night(
        r001(), [group("包子", "杀：烧卖", 1), group("油条", "杀：汤圆", 2)], deadline=DEADLINE, flags=flags
    )
    assert codes(mail) == expected
    kill = mail.night.on_time(Kill.kind)
    assert isinstance(kill, Kill) and kill.victim == victim


@pytest.mark.parametrize(
    ("leader", "expected", "victim"),
    [
        ("包子", ["accepted", "conflict"], "烧卖"),
        ("油条", ["superseded", "accepted"], "汤圆"),
        (None, ["ambiguous"] * 2, None),
    ],
)
def test_the_group_leaders_submission_counts_under_the_leader_policy(
    leader: str | None, expected: list[str], victim: str | None
) -> None:
    flags = NightMailFlags(night_group_conflict="leader")
    leaders = {BANDITS: leader} if leader else {}
    msgs = [group("包子", "杀：烧卖", 1), group("油条", "杀：汤圆", 2)]
    mail = judge_night(r001(), msgs, deadline=DEADLINE, flags=flags, leaders=leaders)
    assert codes(mail) == expected
    kill = mail.night.on_time(Kill.kind)
    assert (kill.victim if isinstance(kill, Kill) else None) == victim
    if leader == "包子":
        assert "组长 包子" in mail.verdicts[1].reason


def test_a_correction_by_another_member_is_the_groups_new_decision() -> None:
    mail = judge_night(
        r001(), [group("包子", "杀：烧卖", 1), group("油条", "改刀 汤圆", 2)], deadline=DEADLINE
    )
    assert codes(mail) == ["superseded", "accepted"]


def test_a_new_decision_after_a_dispute_settles_it() -> None:
    msgs = [group("包子", "杀：烧卖", 1), group("油条", "杀：汤圆", 2), group("包子", "改刀：汤圆", 3)]
    mail = judge_night(r001(), msgs, deadline=DEADLINE)
    assert codes(mail) == ["superseded", "superseded", "accepted"]
    assert not any("不一致" in o for o in mail.open)
    assert mail.night.on_time(Kill.kind) == Kill("汤圆", by="包子")


def test_a_pledge_in_a_later_message_amends_the_kill() -> None:
    msgs = [group("包子", "杀：烧卖", 1), group("油条", "生死状：包子", 2)]
    mail = judge_night(r001(), msgs, deadline=DEADLINE)
    assert codes(mail) == ["accepted", "accepted"]
    assert mail.night.on_time(Kill.kind) == Kill("烧卖", pledge="包子", by="包子")


def test_parts_must_come_with_the_victim_when_the_flag_says_so() -> None:
    flags = NightMailFlags(night_kill_parts_separately=False)
    msgs = [group("包子", "杀：烧卖", 1), group("油条", "生死状：包子", 2)]
    assert codes(judge_night(r001(), msgs, deadline=DEADLINE, flags=flags)) == ["accepted", "unreadable"]


def test_a_solo_skill_in_a_group_thread_can_be_allowed_by_flag() -> None:
    state = new_game(
        "R000-G1", [("A", "匪"), ("B", "匪"), ("C", "警察"), ("D", "警察"), ("G", "守护神"), ("E", "平民")]
    )
    flags = NightMailFlags(night_solo_actions_in_group_thread=True)
    mail = judge_night(state, [group("G", "守护：E", 1)], deadline=DEADLINE, flags=flags)
    assert codes(mail) == ["accepted"]


def test_a_kill_without_pledge_in_a_poison_game_is_flagged() -> None:
    mail = judge_night(r001(), [group("包子", "杀：烧卖", 1)], deadline=DEADLINE)
    assert codes(mail) == ["accepted"]
    assert any("生死状" in o for o in mail.open)


def test_possession_rides_with_the_kill_and_the_engine_checks_it() -> None:
    mail = judge_night(r001(), [group("包子", "杀：烧卖\n生死状：油条\n附体：汤圆", 1)], deadline=DEADLINE)
    assert mail.night.on_time(Kill.kind) == Kill("烧卖", pledge="油条", possess="汤圆", by="包子")
    # Possessing a bandit (AMB-10) or the kill's own victim (AMB-08) is no refusal: the rules record it and
    # void it at resolution (the possession used up), so the kill stands and the reason says why.
    for possess, rule in (("油条", "AMB-10"), ("烧卖", "AMB-08")):
        text = f"杀：烧卖\n生死状：油条\n附体：{possess}"
        mail = judge_night(r001(), [group("包子", text, 1)], deadline=DEADLINE)
        assert codes(mail) == ["accepted"]
        assert mail.night.on_time(Kill.kind) == Kill("烧卖", pledge="油条", possess=possess, by="包子")
        (part,) = mail.verdicts[0].parts
        assert part.rule == rule and "结算时判无效" in part.reason


def test_a_possession_the_rules_forbid_outright_is_refused() -> None:
    """A possession after the ghost used his one possession cannot be submitted at all."""
    used = replace(r001(), possession_used=True)
    mail = judge_night(used, [group("包子", "杀：烧卖\n生死状：油条\n附体：汤圆", 1)], deadline=DEADLINE)
    assert codes(mail) == ["illegal"]


def test_talk_in_the_thread_is_not_a_submission_and_questions_go_to_the_judge() -> None:
    msgs = [group("油条", "我觉得今晚随便", 1), group("包子", "要不要杀烧卖？", 2)]
    mail = judge_night(r001(), msgs, deadline=DEADLINE)
    assert codes(mail) == ["not_a_submission", "ambiguous"]
    flags = NightMailFlags(night_tentative="ignore")
    assert codes(judge_night(r001(), msgs, deadline=DEADLINE, flags=flags)) == ["not_a_submission"] * 2


def test_the_judges_own_messages_are_not_submissions() -> None:
    msg = group("法官大人", "今晚杀人名单请在17点前提交", 0)
    assert codes(judge_night(r001(), [msg], deadline=DEADLINE, judges=["法官大人"])) == ["not_a_submission"]
    assert codes(judge_night(r001(), [msg], deadline=DEADLINE)) == ["not_member"]


def test_an_unknown_name_is_suggested_and_the_judge_can_take_it() -> None:
    msg = group("包子", "杀：烧麦\n生死状：油条", 1, mid="pid:53")
    mail = judge_night(r001(), [msg], deadline=DEADLINE)
    assert codes(mail) == ["unknown_name"] and mail.verdicts[0].suggestion == "烧卖"
    assert mail.night.submissions == ()
    taken = (NightStatement("kill", ("烧卖",)), NightStatement("pledge", ("油条",)))
    fix = NightOverride("pid:53", "玩家笔误，指烧卖", "法官大人", statements=taken)
    mail = judge_night(r001(), [msg], deadline=DEADLINE, overrides=[fix])
    assert codes(mail) == ["accepted"]
    assert mail.night.on_time(Kill.kind) == Kill("烧卖", pledge="油条", by="包子")
    assert "法官更正" in mail.verdicts[0].reason and "法官大人" in mail.verdicts[0].reason
    assert override_log(mail) == [
        {"message_id": "pid:53", "by": "法官大人", "at": None, "why": "玩家笔误，指烧卖", "code": "accepted"}
    ]


def test_a_judges_reading_with_a_kind_the_rule_set_lacks_is_refused_by_its_name() -> None:
    msg = group("包子", "今晚射箭", 1, mid="pid:54")
    arrow = NightOverride(
        "pid:54", "读作丘比特之箭", "法官大人", statements=(NightStatement("arrow", ("烧卖", "油条")),)
    )
    mail = judge_night(r001(), [msg], deadline=DEADLINE, overrides=[arrow])
    assert codes(mail) == ["not_member"]
    assert mail.verdicts[0].reason == "本规则没有这种夜间行动：丘比特之箭"
    assert mail.night.submissions == ()


def test_an_override_strikes_a_message_and_the_earlier_one_counts_again() -> None:
    a, b = pm("饺子", "验：包子", 1), pm("饺子", "验：烧卖", 2)
    strike = NightOverride(b.id, "玩家说发错了", "法官大人", strike=True)
    mail = judge_night(r001(), [a, b], deadline=DEADLINE, overrides=[strike])
    assert mail.verdict(b.id).override == strike
    assert codes(mail) == ["accepted", "overridden"]
    assert mail.night.on_time(Check.kind) == Check("包子", by="饺子")


def test_the_judge_can_waive_the_deadline() -> None:
    late = pm("饺子", "验：包子", 4 * 60 + 3)
    waive = NightOverride(late.id, "论坛在截止前宕机", "法官大人", waive_time=True)
    assert codes(judge_night(r001(), [late], deadline=DEADLINE, overrides=[waive])) == ["accepted"]


def test_a_guardian_protects_by_pm_and_not_himself() -> None:
    state = new_game(
        "R000-G1", [("A", "匪"), ("B", "匪"), ("C", "警察"), ("D", "警察"), ("G", "守护神"), ("E", "平民")]
    )
    mail = judge_night(state, [pm("G", "守护：E", 1), pm("G", "守护：G", 2)], deadline=DEADLINE)
    assert codes(mail) == ["accepted", "illegal"]
    assert mail.night.get(Protect.kind, guardian="G") is not None
    assert "守护规则1" in mail.verdicts[1].reason
    mail = judge_night(state, [group("G", "守护：E", 1)], deadline=DEADLINE)
    assert codes(mail) == ["wrong_channel"]
    mail = judge_night(state, [pm("G", "放弃守护", 1)], deadline=DEADLINE)
    sub = mail.night.get(Protect.kind, guardian="G")
    assert sub is not None and sub.action == Protect("G", None)


def test_the_night_list_resolves_in_the_engine() -> None:
    msgs = [group("包子", "杀：烧卖\n生死状：油条", 1), pm("饺子", "验：包子", 2)]
    mail = judge_night(r001(), msgs, deadline=DEADLINE)
    res = resolve_night(r001(), mail.night)
    assert not res.state.is_alive("烧卖") and res.state.is_alive("包子")


# --- R004 -----------------------------------------------------------------------------------------------


def test_r004_single_holder_skills_by_pm() -> None:
    mail = judge_night(r004(), [pm("大夫", "救：烧卖", 1), pm("狙狙", "狙：饺子", 2)], deadline=DEADLINE)
    assert codes(mail) == ["accepted", "accepted"]
    assert mail.night.on_time(Heal.kind) == Heal("烧卖", by="大夫")


def test_r004_a_skill_the_author_does_not_hold() -> None:
    mail = judge_night(r004(), [pm("烧卖", "救：汤圆", 1)], deadline=DEADLINE)
    assert codes(mail) == ["not_member"] and "救治" in mail.verdicts[0].reason


def test_r004_killers_thread_and_late_gives_up_the_action() -> None:
    mail = judge_night(r004(), [group("包子", "杀：烧卖", 1, where=GroupId.KILLERS)], deadline=DEADLINE)
    assert codes(mail) == ["accepted"]
    mail = judge_night(r004(), [pm("大夫", "救：烧卖", 4 * 60 + 1)], deadline=DEADLINE)
    assert codes(mail) == ["late"] and "视为放弃夜晚行动" in mail.verdicts[0].reason


def test_r004_alert_is_not_a_submission_and_giving_up_withdraws() -> None:
    mail = judge_night(r004(), [pm("市长", "警戒", 1)], deadline=DEADLINE)
    assert codes(mail) == ["not_a_submission"] and "强制" in mail.verdicts[0].reason
    mail = judge_night(r004(), [pm("大夫", "救：烧卖", 1), pm("大夫", "放弃行动", 2)], deadline=DEADLINE)
    assert codes(mail) == ["superseded", "accepted"]
    assert mail.night.on_time(Heal.kind) is None


def test_r004_authority_is_passed_only_by_the_holder_who_went_out() -> None:
    state = replace(dead(r004(), "市长"), authority_pending="市长")
    mail = judge_night(state, [pm("市长", "威权给饺子", 1)], deadline=DEADLINE)
    assert codes(mail) == ["accepted"] and mail.authority == ("市长", "饺子")
    mail = judge_night(state, [pm("市长", "威权给市长", 1)], deadline=DEADLINE)
    assert codes(mail) == ["illegal"] and "另一名角色" in mail.verdicts[0].reason  # the rule set's check
    assert mail.verdicts[0].parts[0].rule == "R004 市长·威权"
    mail = judge_night(r004(), [pm("饺子", "威权给烧卖", 1)], deadline=DEADLINE)
    assert codes(mail) == ["not_member"]


def test_r004_heal_and_authority_in_one_message_are_two_parts() -> None:
    state = replace(r004(), authority_pending="大夫")
    mail = judge_night(state, [pm("大夫", "救：烧卖\n威权给饺子", 1)], deadline=DEADLINE)
    (v,) = mail.verdicts
    assert v.code is NightCode.ACCEPTED and len(v.parts) == 2
    assert mail.authority == ("大夫", "饺子") and mail.night.on_time(Heal.kind) is not None


def test_messages_need_unique_ids_and_aware_times() -> None:
    a = pm("饺子", "验：包子", 1, mid="pm:1")
    with pytest.raises(ValueError, match="pm:1"):
        judge_night(r001(), [a, a], deadline=DEADLINE)
    with pytest.raises(ValueError, match="timezone"):
        NightMessage("x", NightChannel.PM, "饺子", datetime(2026, 6, 3, 9, 0), "验：包子")


# --- properties -----------------------------------------------------------------------------------------

_WORDS = [
    "杀：",
    "验：",
    "生死状：",
    "附体：",
    "守护：",
    "改刀 ",
    "要不要杀",
    "同意",
    "？",
    "\n",
    "烧麦",
    "空刀",
]
_NAMES = ["包子", "油条", "饺子", "馄饨", "月饼", "烧卖", "汤圆", "锅贴", "路人"]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(_NAMES),
            st.lists(st.sampled_from(_WORDS + _NAMES), max_size=8).map("".join),
            st.integers(-300, 300),
            st.booleans(),
            st.sampled_from([BANDITS, POLICE]),
        ),
        max_size=8,
    ),
    st.sampled_from(["ambiguous", "last", "first", "leader"]),
)
def test_any_messages_get_one_verdict_each_and_accepted_actions_are_legal(
    specs: list[tuple[str, str, int, bool, GroupId]], policy: str
) -> None:
    state = r001()
    msgs = [
        NightMessage(
            f"m{i}",
            NightChannel.PM if is_pm else NightChannel.GROUP_THREAD,
            author,
            DEADLINE + timedelta(minutes=minutes),
            text,
            group=None if is_pm else where,
        )
        for i, (author, text, minutes, is_pm, where) in enumerate(specs)
    ]
    flags = NightMailFlags(night_group_conflict=policy)
    mail = judge_night(state, msgs, deadline=DEADLINE, flags=flags, leaders={BANDITS: "包子", POLICE: "馄饨"})
    assert sorted(v.message_id for v in mail.verdicts) == sorted(m.id for m in msgs)
    for v in mail.verdicts:
        assert isinstance(v.code, NightCode) and (v.reason or v.code is NightCode.ACCEPTED)
    for sub in mail.night.submissions:
        if not sub.late:
            check_action(state, sub.action)


def test_r001_the_extra_check_after_checking_the_poison() -> None:
    first = judge_night(
        r001(), [group("包子", "杀：烧卖\n生死状：油条", 1), pm("饺子", "验：月饼", 2)], deadline=DEADLINE
    )
    day = resolve_night(r001(), first.night).state
    assert day.extra_check_round == day.round
    window = DEADLINE + timedelta(hours=1)  # AMB-15: 60 minutes after the first result
    msgs = [pm("馄饨", "验：包子", 4 * 60 + 10), pm("包子", "杀：汤圆", 4 * 60 + 11)]
    mail = judge_night(day, msgs, deadline=window)
    assert codes(mail) == ["accepted", "illegal"]
    assert mail.extra_check is not None and mail.extra_check.action == Check("包子", by="馄饨")
    assert mail.night.submissions == ()
    assert isinstance(mail.extra_check.action, Check)
    res = resolve_extra_check(day, mail.extra_check.action.target)
    assert res.state.extra_check_round is None
    late = judge_night(day, [pm("馄饨", "验：包子", 6 * 60)], deadline=window)
    assert codes(late) == ["late"] and late.extra_check is not None and late.extra_check.late


def test_parsed_posts_and_pms_become_night_messages() -> None:
    t = DEADLINE - timedelta(hours=1)
    posts = [
        Post(53, 8, "包子", 3, 1, t, t + timedelta(seconds=59), TimeSource.TITLE, "杀：烧卖\n生死状：油条"),
        Post(54, 8, "油条", 7, 2, t, t, TimeSource.TITLE, "杀：汤圆", state=PostState.BANNED),
    ]
    pms = [
        PmMessage(
            2, 2, 14, "法官大人", 3, "包子", t, t, TimeSource.RELATIVE, "你的身份是【杀手】", mine=True
        ),
        PmMessage(9, 2, 3, "包子", 14, "法官大人", t, t, TimeSource.RELATIVE, "杀：烧卖"),
    ]
    msgs = [*thread_messages(posts, BANDITS), *pm_messages(pms)]
    assert [(m.id, m.channel, m.until is None) for m in msgs] == [
        ("pid:53", NightChannel.GROUP_THREAD, False),
        ("pid:54", NightChannel.GROUP_THREAD, True),
        ("pm:9", NightChannel.PM, True),
    ]
    mail = judge_night(r001(), msgs, deadline=DEADLINE)
    assert mail.verdict("pid:54").code is NightCode.NOT_A_SUBMISSION  # a banned body is no submission
    assert mail.night.on_time(Kill.kind) == Kill("烧卖", pledge="油条", by="包子")


_R004_WORDS = [
    "杀：",
    "验：",
    "救：",
    "狙：",
    "抱：",
    "绑：",
    "撕票",
    "烟花：",
    "潜伏：",
    "暗杀：",
    "丘比特：",
    "威权给",
    "警戒",
    "放弃行动",
    "改",
    "？",
    "\n",
    " ",
]
_R004_NAMES = [p.name for p in r004().players] + ["路人"]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(_R004_NAMES),
            st.lists(st.sampled_from(_R004_WORDS + _R004_NAMES), max_size=8).map("".join),
            st.integers(-300, 300),
            st.booleans(),
        ),
        max_size=8,
    ),
    st.sampled_from([None, "市长", "大夫"]),
)
def test_r004_any_messages_get_one_verdict_each_and_accepted_actions_are_legal(
    specs: list[tuple[str, str, int, bool]], pending: str | None
) -> None:
    state = replace(r004(), authority_pending=pending)
    msgs = [
        NightMessage(
            f"m{i}",
            NightChannel.PM if is_pm else NightChannel.GROUP_THREAD,
            author,
            DEADLINE + timedelta(minutes=minutes),
            text,
            group=None if is_pm else GroupId.KILLERS,
        )
        for i, (author, text, minutes, is_pm) in enumerate(specs)
    ]
    mail = judge_night(state, msgs, deadline=DEADLINE)
    assert len(mail.verdicts) == len(msgs)
    night = new_night(state)
    for sub in mail.night.submissions:
        if not sub.late:
            night = submit(state, night, sub.action)
    if mail.authority is not None:
        assert mail.authority[0] == pending and state.is_alive(mail.authority[1])
