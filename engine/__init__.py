"""The pure rules engine: state and actions in, events out. No I/O, no clock, no forumbot imports.

Everything outside engine/ uses only ``from engine import ...``; the names below are the public, stable
API (``__all__``). The modules behind them may move.

**Rule sets** — ``get_ruleset(name)`` finds a :class:`RuleSet` by id, alias or Chinese name (R001,
R000-GP, R000-G1, R000-G2, R004); ``all_rulesets()``; ``rules_of(state)``. A rule set owns what differs
between rule sets: ``.family`` (the one switch: "r001"/"r004"), ``.grammar`` (the vote grammar
forumbot/parsers/votes.py reads), ``.aliases``, ``.roles`` / ``.role_table`` / ``.role_id(name)``,
``.flags`` (its NightFlags defaults), ``.timetable`` (:class:`TimetableDefaults`),
``.proxy_vote_limit(day_flags)`` and the hooks the functions below call. A variant is a subclass plus
``register(Variant())`` (``unregister(id)`` removes one); the registered classes R001, R000GP, R000G1,
R000G2 and R004 are public so a variant can subclass one.

**Setting up** — ``new_game(ruleset, assignments)``, ``draw_roles(ruleset, roster, preset_table=…,
seed=…)`` → :class:`Setup` (state, notices, groups); ``parse_presets(toml_text)`` → :class:`PresetTable`.

**The night** — ``new_night(state)``; ``check_action(state, action, night=…)`` raises
IllegalActionError naming the rule; ``is_legal``; ``submit(state, night, action, late=…)`` → Night;
``withdraw``; ``legal_targets``; ``refusal_of(state, action, night=…)`` → the IllegalActionError or None,
whose ``.refusal`` (:class:`Refusal`) says forbidden (refused before the deadline) or void at resolution
(AMB-08, AMB-10); ``record_submission`` (``submit`` keeping a submission voided at resolution);
``resolve_night(state, night, seed=…)`` → :class:`Resolution`;
``resolve_extra_check`` (R001 §五). The night vocabulary: ``rules.night_words`` (:class:`NightWord`: each
kind's engine name, Chinese label, keywords, :class:`Form`, who submits it and :class:`Where`, its cutoff;
``rules.night_word(kind)``, ``rules.submit_refusal``); a word with ``armed`` is kept in
``GameState.armed`` and fired by ``rules.resolve_armed`` when its holder goes out (engine/lastacts.py:
"on death, the role may act"). Action classes (Kill, Check, Protect, Snipe, …) and the one table
of action kinds ``ACTION_KINDS`` (ActionKind → :class:`ActionKindSpec`: class, single-target, Chinese).

**The day** — judge from ballots/posts: ``judge_day(DayInput(...), as_of=…)`` → :class:`DayResult`;
``check_proxy``; revotes ``plan_revote`` / ``resolve_revote``; the counters a day starts from:
``start_counters(state)`` (from the state) or ``carried_counters(previous_result)`` (a replay).
Apply: ``apply_day(state, result, sent_off=…, red_cards=…)`` → Resolution (eliminations in the rules'
order, the day's counters written into the state, the batch win check, the next night); the single
steps ``resolve_execution``, ``resolve_drowning``, ``send_off``, ``resolve_red_cards``, ``close_day``;
``day_decisions(result)``; ``pass_authority``, ``concede``, ``surrender``, ``end_game``; the counters
``add_strike``, ``record_proxy_vote``, ``add_yellow_card``; ``double_kill_pair(s)``.

**Last words** (遗言) — ``last_words_windows(state, due)`` → :class:`LastWordsWindow` (who, where,
until when, what waits: R001's executed officer, AMB-31; R004's first L roles out, AMB-77);
``held_until(windows, posted, at, ready_at=…)`` → :class:`HeldRelease` (when the check result and case
post, or R004's day-start post, go out; who forfeited); ``publishable_last_words`` /
``last_words_text_problem`` (R004: no Discuz! code).

**Delay and acceleration** (R004 延时/加速申请, AMB-82, AMB-85) — ``judge_applications(
ApplicationsInput(posts, living, roster, opens, close, auto_accelerated_at=…, flags=…))`` →
:class:`ApplicationsResult` (the day's close after them, the accelerated state's start, when a delay
ended it, a verdict with a Chinese reason for every :class:`ApplicationPost`).

**Outcome** — ``state.outcome`` (:class:`Outcome`: termination, winner) and ``evaluate_outcome(state)``.

**Serialising** — ``state_to_dict`` / ``state_from_dict``, ``action_to_dict`` / ``action_from_dict``,
``night_to_dict`` / ``night_from_dict``, ``event_to_dict`` / ``event_from_dict``, ``flags_to_dict`` /
``flags_from_dict``.

**Flags** — :class:`NightFlags`, :class:`DayFlags`, ``all_flags()``, ``split_flags(values, defaults)``.

**History** — :class:`Game`: a session whose steps can be undone (``undo``) and replayed
(``Game.replay(initial, steps)``, ``to_dict`` / ``from_dict``). ``random_night`` / ``random_day``: random
legal play.

Layout: a core (errors, roles, state, actions, events, outcome, ballots, flags*, attendance, presets,
setup, vocab, ruleset, lastacts, night, judgement, eliminations, gameover, working, table, history,
simulate, day/) and one package per rule-set family (r001/, r004/). Core modules never import a family
package.
"""

from __future__ import annotations

from engine.actions import (
    ACTION_KINDS,
    ActionKindSpec,
    Arrow,
    Assassinate,
    Check,
    Fireworks,
    Heal,
    Hug,
    Kidnap,
    Kill,
    KillHostages,
    Night,
    NightAction,
    Protect,
    Snipe,
    Spy,
    Submission,
    action_from_dict,
    action_to_dict,
    night_from_dict,
    night_to_dict,
)
from engine.attendance import (
    AttendanceResult,
    AttendanceRules,
    DiscussionPost,
    PostAttendance,
    PostAttendanceStatus,
    RoundWindow,
    count_valid_posts,
    judge_discussion_post,
    meaningful_text,
    round_window,
)
from engine.ballots import Ballot, BallotKind, fold_name, fold_punctuation, suggest_name, within_one_edit
from engine.day.model import (
    Card,
    CardColor,
    DayInput,
    DayOutcome,
    DayResult,
    DayTimes,
    Drowning,
    DrownRule,
    OutcomeKind,
    Override,
    PlayerStatus,
    PlayerVote,
    ProxyVote,
    RevotePlan,
    RevoteRound,
    TallyLine,
    Verdict,
    VotePost,
    VoterRef,
    VoteStatus,
)
from engine.eliminations import (
    add_strike,
    add_yellow_card,
    apply_day,
    close_day,
    concede,
    day_decisions,
    double_kill_applies,
    double_kill_pair,
    double_kill_pairs,
    end_game,
    pass_authority,
    record_proxy_vote,
    resolve_drowning,
    resolve_execution,
    resolve_red_cards,
    send_off,
    surrender,
    surrender_group,
    with_day_counters,
)
from engine.errors import (
    EngineError,
    GameOverError,
    IllegalActionError,
    PresetError,
    Refusal,
    SetupError,
    StateError,
    UnknownRuleSetError,
)
from engine.events import (
    JUDGE,
    PUBLIC,
    Audience,
    AudienceKind,
    Event,
    EventKind,
    Resolution,
    event_from_dict,
    event_to_dict,
)
from engine.flags import all_flags, split_flags
from engine.flags_day import DayFlags, EditedVotePolicy, flag_table
from engine.flags_night import NightFlags, flags_from_dict, flags_to_dict
from engine.gameover import game_over_events
from engine.history import Game, Step
from engine.judgement import (
    carried_counters,
    check_proxy,
    judge_day,
    plan_revote,
    resolve_revote,
    start_counters,
)
from engine.lastwords import (
    HeldRelease,
    LastWordsStatus,
    LastWordsWindow,
    held_until,
    last_words_text_problem,
    publishable_last_words,
)
from engine.night import (
    check_action,
    is_legal,
    legal_targets,
    new_night,
    record_submission,
    refusal_of,
    resolve_extra_check,
    resolve_night,
    submit,
    withdraw,
)
from engine.outcome import Outcome, Termination, Winner
from engine.presets import Composition, PresetTable, parse_presets
from engine.quickinit import quick_init

# The rule-set families register themselves on import (after the core above).
from engine.r001 import R000G1, R000G2, R000GP, R001  # registers R001 and the R000 variants on import
from engine.r004 import R004  # registers R004 on import
from engine.r004.applications import (
    ApplicationKind,
    ApplicationPost,
    ApplicationsInput,
    ApplicationsResult,
    ApplicationVerdict,
    judge_applications,
)
from engine.roles import (
    GROUP_ZH,
    ROLE_TABLES,
    ActionKind,
    Camp,
    Cause,
    GroupId,
    RoleId,
    RoleSpec,
    WinSide,
    role_id,
)
from engine.ruleset import (
    RuleSet,
    TimetableDefaults,
    all_rulesets,
    evaluate_outcome,
    get_ruleset,
    last_words_windows,
    register,
    rules_of,
    unregister,
)
from engine.setup import Setup, draw_roles, new_game, setup_notices
from engine.simulate import random_day, random_night
from engine.state import GameState, Phase, Player, frozen_map, state_from_dict, state_to_dict
from engine.vocab import Form, NightWord, Where

__all__ = [
    "ACTION_KINDS",
    "GROUP_ZH",
    "JUDGE",
    "PUBLIC",
    "R000G1",
    "R000G2",
    "R000GP",
    "R001",
    "R004",
    "ROLE_TABLES",
    "ActionKind",
    "ActionKindSpec",
    "ApplicationKind",
    "ApplicationPost",
    "ApplicationVerdict",
    "ApplicationsInput",
    "ApplicationsResult",
    "Arrow",
    "Assassinate",
    "AttendanceResult",
    "AttendanceRules",
    "Audience",
    "AudienceKind",
    "Ballot",
    "BallotKind",
    "Camp",
    "Card",
    "CardColor",
    "Cause",
    "Check",
    "Composition",
    "DayFlags",
    "DayInput",
    "DayOutcome",
    "DayResult",
    "DayTimes",
    "DiscussionPost",
    "DrownRule",
    "Drowning",
    "EditedVotePolicy",
    "EngineError",
    "Event",
    "EventKind",
    "Fireworks",
    "Form",
    "Game",
    "GameOverError",
    "GameState",
    "GroupId",
    "Heal",
    "HeldRelease",
    "Hug",
    "IllegalActionError",
    "Kidnap",
    "Kill",
    "KillHostages",
    "LastWordsStatus",
    "LastWordsWindow",
    "Night",
    "NightAction",
    "NightFlags",
    "NightWord",
    "Outcome",
    "OutcomeKind",
    "Override",
    "Phase",
    "Player",
    "PlayerStatus",
    "PlayerVote",
    "PostAttendance",
    "PostAttendanceStatus",
    "PresetError",
    "PresetTable",
    "Protect",
    "ProxyVote",
    "Refusal",
    "Resolution",
    "RevotePlan",
    "RevoteRound",
    "RoleId",
    "RoleSpec",
    "RoundWindow",
    "RuleSet",
    "Setup",
    "SetupError",
    "Snipe",
    "Spy",
    "StateError",
    "Step",
    "Submission",
    "TallyLine",
    "Termination",
    "TimetableDefaults",
    "UnknownRuleSetError",
    "Verdict",
    "VotePost",
    "VoteStatus",
    "VoterRef",
    "Where",
    "WinSide",
    "Winner",
    "action_from_dict",
    "action_to_dict",
    "add_strike",
    "add_yellow_card",
    "all_flags",
    "all_rulesets",
    "apply_day",
    "carried_counters",
    "check_action",
    "check_proxy",
    "close_day",
    "concede",
    "count_valid_posts",
    "day_decisions",
    "double_kill_applies",
    "double_kill_pair",
    "double_kill_pairs",
    "draw_roles",
    "end_game",
    "evaluate_outcome",
    "event_from_dict",
    "event_to_dict",
    "flag_table",
    "flags_from_dict",
    "flags_to_dict",
    "fold_name",
    "fold_punctuation",
    "frozen_map",
    "game_over_events",
    "get_ruleset",
    "held_until",
    "is_legal",
    "judge_applications",
    "judge_day",
    "judge_discussion_post",
    "last_words_text_problem",
    "last_words_windows",
    "legal_targets",
    "meaningful_text",
    "new_game",
    "new_night",
    "night_from_dict",
    "night_to_dict",
    "parse_presets",
    "pass_authority",
    "plan_revote",
    "publishable_last_words",
    "quick_init",
    "random_day",
    "random_night",
    "record_proxy_vote",
    "record_submission",
    "refusal_of",
    "register",
    "resolve_drowning",
    "resolve_execution",
    "resolve_extra_check",
    "resolve_night",
    "resolve_red_cards",
    "resolve_revote",
    "role_id",
    "round_window",
    "rules_of",
    "send_off",
    "setup_notices",
    "split_flags",
    "start_counters",
    "state_from_dict",
    "state_to_dict",
    "submit",
    "suggest_name",
    "surrender",
    "surrender_group",
    "unregister",
    "with_day_counters",
    "withdraw",
    "within_one_edit",
]
