"""The rule set: one object that owns everything that differs between rule sets, and the registry.

A :class:`RuleSet` is a class with data (id, names, roles, flag defaults, vote grammar, timetable
defaults) and hook methods (check a night action, resolve a night, judge a day, apply a day's
decisions, the win check, the setup notices, random play). The core modules (engine/night.py,
engine/eliminations.py, engine/day, engine/setup.py, …) never branch on the family: they ask the
game's rule set (:func:`rules_of`). Each family lives in its own package (engine/r001, engine/r004);
a variant is a subclass overriding a few class attributes or hooks plus one :func:`register` line::

    class Quiet(R001):                      # R001 without the bandits' parity win (condition 2)
        id = "X-QUIET"
        aliases = ("quiet",)
        flag_overrides = MappingProxyType({"r001_condition2_enabled": False})

    register(Quiet())

The base class refuses what a family does not have (drownings in R004, 威权 in R001…) with an
IllegalActionError naming the rule, so the core can dispatch without knowing who does what.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType
from typing import Any, ClassVar

from engine.actions import ActionKindSpec, Night, NightAction, register_action_kind, unregister_action_kind
from engine.day.model import DayInput, DayResult, ProxyVote, RevotePlan, VotePost
from engine.day.model import Override as DayOverride
from engine.errors import IllegalActionError, UnknownRuleSetError
from engine.events import Event, Resolution
from engine.flags_day import DayFlags
from engine.flags_night import NightFlags
from engine.lastwords import LastWordsWindow
from engine.outcome import Outcome
from engine.roles import (
    GROUP_ZH,
    ROLE_TABLES,
    ActionKind,
    GroupId,
    RoleId,
    RoleSpec,
    register_role,
    role_id,
    unregister_role,
)
from engine.state import GameState, Player
from engine.table import Table
from engine.vocab import Form, NightWord


@dataclass(frozen=True, slots=True)
class TimetableDefaults:
    """A rule set's default timetable (a game file may override each value).

    ``vote_close``: the day's closing clock time; ``day_length``: calendar days from the opening to the
    close, both counted (R001: 2, the case post's day and the next; R004: 2, one more when they include a
    weekend); ``night_hours``: a night deadline this many hours after the close (None: the night deadline
    is the ``night_deadline`` clock time on the closing date).
    """

    vote_close: str = "13:00"
    night_deadline: str = "17:00"
    day_length: int = 2
    weekend_extra_day: bool = False
    night_hours: int | None = None
    void_cutoff_minutes: int = 30
    change_cutoff_minutes: int = 60
    case_post_delay_minutes: int = 20


class RuleSet:
    """One rule set. Subclass it (or a family's class) and override what differs; see the module doc."""

    id: ClassVar[str] = ""
    name_zh: ClassVar[str] = ""
    family: ClassVar[str] = ""  # the role table (ROLE_TABLES key) and the day procedure: "r001" / "r004"
    grammar: ClassVar[str] = ""  # the vote grammar forumbot/parsers/votes.py reads: "r001" / "r004"
    # how the rules tell the players to vote (the vote thread's header when forumbot opens it)
    vote_format: ClassVar[str] = "投票格式：投票：名字"
    # whether a night may be resolved before its deadline once every required submission is in
    # (AMB-NM8, with [flags] night_resolve_early): the R001 family's reading; R004's night waits
    night_resolves_early: ClassVar[bool] = False
    aliases: ClassVar[tuple[str, ...]] = ()
    roles: ClassVar[tuple[RoleId, ...]] = ()  # roles a setup of this rule set may hold
    source: ClassVar[str] = ""  # the seed document
    presets_file: ClassVar[str] = ""  # its presets, data/rulesets/<file> (the caller reads it: parse_presets)
    description: ClassVar[str] = ""
    flag_overrides: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    timetable: ClassVar[TimetableDefaults] = TimetableDefaults()
    # when the win conditions are checked: "per_elimination" (R004 §e.3: inside each step, after every
    # single elimination) or "per_batch" (R001/R000, AMB-06: once when the day closes, per the flag)
    win_check_timing: ClassVar[str] = "per_elimination"
    reveals_executed_identity: ClassVar[bool] = False  # R001: “X 被处决，身份：…”; R004 none (AMB-64)
    day_cutoff: ClassVar[str] = (
        "void_cutoff"  # the day's last cutoff before the close: R001 voids, R004 changes
    )
    case_post_title: ClassVar[str] = "第{n}夜结果"  # the title of the post after night n (.format(n=…))
    # R004: living roles apply for a delay or acceleration in the process thread (judge_applications)
    has_applications: ClassVar[bool] = False
    # what the deadline of last words is (engine.last_words_windows' ``due``): "night_deadline" (R001: the
    # next night's deadline) or "next_day_opens" (R004: before the next discussion day starts)
    last_words_due: ClassVar[str] = "night_deadline"
    # how a day punishes a missing vote or post: "strikes" (R001: two strikes drown, DayResult.strikes_after)
    # or "yellow_cards" (R004: DayResult.yellow_totals); what the desk's result panel shows
    day_discipline: ClassVar[str] = "strikes"
    # the night vocabulary (engine/vocab.py): every kind of night statement, who writes it, where
    night_words: ClassVar[tuple[NightWord, ...]] = ()
    # the names a game file's [night_sources] may give a private group's forum → the group
    group_sources: ClassVar[Mapping[str, GroupId]] = MappingProxyType({})
    # a variant's own roles (added to the family's table when the rule set is registered)
    extra_roles: ClassVar[tuple[RoleSpec, ...]] = ()
    # how many times one role (slot) may be taken over by a substitute (替补/顶替); None: the rules set no
    # limit (R001/R000 do not speak of it), R004 «每个角色只能被替补一次»
    substitutions_per_role: ClassVar[int | None] = None

    def __repr__(self) -> str:
        return f"<RuleSet {self.id}>"

    # ---- data ----------------------------------------------------------------------------------------

    @property
    def flags(self) -> NightFlags:
        """The night flags this rule set starts with (the proposals, with this rule set's overrides)."""
        return replace(NightFlags(), **dict(self.flag_overrides))

    def role(self, role: RoleId) -> RoleSpec:
        return ROLE_TABLES[self.family][role]

    @property
    def family_roles(self) -> Mapping[RoleId, RoleSpec]:
        """Every role of the family's table (a setup may hold only :attr:`roles`)."""
        return ROLE_TABLES[self.family]

    @property
    def role_table(self) -> Mapping[RoleId, RoleSpec]:
        return MappingProxyType({r: ROLE_TABLES[self.family][r] for r in self.roles})

    def role_id(self, name: str) -> RoleId:
        """The role called ``name`` (id, Chinese name or alias); KeyError listing the known ones."""
        return role_id(self.family, name)

    def night_word(self, kind: str) -> NightWord:
        """The word of night kind ``kind``; KeyError naming the kinds this rule set has."""
        for w in self.night_words:
            if w.kind == kind:
                return w
        known = ", ".join(w.kind for w in self.night_words)
        raise KeyError(f"{self.id} has no night kind {kind!r} (known: {known})")

    def has_night_kind(self, kind: str) -> bool:
        return any(w.kind == kind for w in self.night_words)

    def source_group(self, name: str) -> GroupId:
        """The group a [night_sources] entry names (``killers``, ``police`` …); KeyError if none."""
        found = self.group_sources.get(name)
        if found is None:
            known = ", ".join(self.group_sources)
            raise KeyError(f"{self.id} has no private group called {name!r} (known: {known})")
        return found

    def submit_refusal(self, state: GameState, word: NightWord, author: str) -> str | None:
        """Why ``author`` may not submit ``word`` (Chinese), or None: a group's kind needs a member of the
        group, a role's kind a holder of the role; ``anyone``: every player."""
        if word.group is not None:
            if author not in state.group_members(word.group):
                return f"{author} 不在{GROUP_ZH[word.group]}，不能提交{word.name_zh}"
            return None
        if word.anyone:
            return None
        if word.roles:
            if state.player(author).role not in word.roles:
                holders = "、".join(self.role(r).name_zh for r in word.roles if r in self.family_roles)
                return f"{author} 不是{holders}，没有{word.name_zh}技能"
            return None
        return f"本规则没有{word.name_zh}"

    def check_hand_over(
        self, state: GameState, word: NightWord, author: str, to: str
    ) -> IllegalActionError | None:
        """The rules' refusal of a hand-over (a word with no engine action naming who receives something,
        R004's 威权), or None; the hand-over itself is applied by its own engine call."""
        return None

    def signs_group_action(self, state: GameState, name: str) -> bool:
        """Whether a group's action submitted by ``name`` names him in its ``by`` (the engine checks it)."""
        return True

    def resolve_armed(self, state: GameState, holder: str, action: NightAction) -> Resolution:
        """Resolve ``holder``'s armed submission (a word with ``armed``) now that he is out (the generic
        "on death, the role may act" hook, engine/lastacts.py). The state has him out with his cause; a
        rule set with no armed word never gets here."""
        raise IllegalActionError(f"规则 {self.id} 没有出局时发动的技能", rule=self.id)

    def proxy_vote_limit(self, flags: DayFlags) -> int | None:
        """Proxy votes (代投) per player per game; None: the rules set no limit."""
        return None

    # ---- setup ---------------------------------------------------------------------------------------

    def may_hold(self, role: RoleId, flags: NightFlags) -> bool:
        """Whether a setup of this rule set may hold ``role``."""
        return role in self.roles

    def role_refusal_hint(self, role: RoleId) -> str:
        """Appended to the error when a setup names a role :meth:`may_hold` refuses."""
        return ""

    def setup_fields(
        self,
        players: tuple[Player, ...],
        flags: NightFlags,
        *,
        sniper_bullets: int | None,
        spy_counted: bool | None,
        lastword_slots: int | None,
    ) -> dict[str, Any]:
        """GameState fields this rule set sets at the start (counters, holders)."""
        return {}

    def setup_groups(self, state: GameState) -> dict[str, tuple[str, ...]]:
        """The private groups announced at setup (group id → members)."""
        return {}

    def setup_notice(self, state: GameState, player: Player) -> list[str]:
        """The parts of one player's private setup notice (before the group lines)."""
        return []

    # ---- the night -----------------------------------------------------------------------------------

    def check_action(self, state: GameState, action: NightAction, night: Night | None) -> None:
        """Raise IllegalActionError if ``action`` breaks one of this rule set's rules."""
        raise NotImplementedError

    def resolve_night(self, state: GameState, night: Night, seed: int | None) -> Resolution:
        raise NotImplementedError

    def resolve_extra_check(self, state: GameState, target: str, *, late: bool) -> Resolution:
        raise IllegalActionError("追加验人是鬼匪/毒药局的规则，本局没有", rule="R001 §五")

    # ---- the day: judgement --------------------------------------------------------------------------

    def judge_day(self, inp: DayInput, as_of: datetime | None) -> DayResult:
        raise NotImplementedError

    def check_proxy(self, inp: DayInput, proxy: ProxyVote) -> str | None:
        """Why a proxy vote may not be entered (Chinese), beyond the common checks; None if it may."""
        return None

    def resolve_revote(
        self,
        previous: DayResult,
        plan: RevotePlan | None,
        posts: tuple[VotePost, ...],
        *,
        proxy_votes: tuple[ProxyVote, ...],
        overrides: tuple[DayOverride, ...],
        as_of: datetime | None,
    ) -> DayResult:
        raise ValueError(f"day {previous.input.day} has no pending revote (outcome: {previous.outcome.kind})")

    # ---- the day: application ------------------------------------------------------------------------

    def execute(
        self, state: GameState, chosen: str | None, day: int, tied: frozenset[str] | set[str] | None
    ) -> Resolution:
        """What follows the vote: who goes out, what is revealed (see eliminations.resolve_execution)."""
        raise NotImplementedError

    def drown(self, state: GameState, names: Iterable[str], day: int) -> Resolution:
        raise IllegalActionError(f"{self.id} 没有淹死", rule=self.id)

    def send_off(self, state: GameState, name: str, day: int) -> Resolution:
        raise IllegalActionError(f"{self.id} 没有罚下", rule=self.id)

    def red_cards(self, state: GameState, names: Iterable[str], day: int) -> Resolution:
        raise IllegalActionError(f"{self.id} 没有红牌", rule=self.id)

    def day_steps(
        self, day: int, drowned: list[str], sent_off: list[str], red_cards: list[str]
    ) -> list[Callable[[GameState], Resolution]]:
        """The steps after the execution, in the rules' order (each stops the day once the game is won)."""
        return []

    def plan_revote(self, previous: DayResult, called_at: datetime, minutes: int | None) -> RevotePlan:
        raise ValueError(
            f"day {previous.input.day} is not waiting for a revote (outcome: {previous.outcome.kind})"
        )

    def close_day_notes(self, state: GameState, day: int) -> list[Event]:
        """Judge notes when day ``day`` closes and the game goes on (e.g. R004: 威权 still to pass)."""
        return []

    def pass_authority(self, state: GameState, to: str | None, seed: int | str | None) -> Resolution:
        raise IllegalActionError("<威权>是 R004 的规则，本局没有", rule="R004 市长")

    def concede(self, state: GameState, side: str) -> Resolution:
        raise IllegalActionError(f"{self.id} 没有认输", rule=self.id)

    def surrender(self, state: GameState, agreeing: Iterable[str]) -> Resolution:
        raise IllegalActionError(f"{self.id} 没有投降", rule=self.id)

    def surrender_group(self, state: GameState) -> tuple[str, ...]:
        return ()

    def double_kill_pairs(self, state: GameState, day: int) -> tuple[tuple[str, str], ...]:
        """(guardian, protégé) pairs whose protection of round ``day`` works now (AMB-40); none here."""
        return ()

    def last_words_windows(self, state: GameState, due: datetime) -> tuple[LastWordsWindow, ...]:
        """Who may leave last words now and until ``due`` (engine.lastwords); none by default."""
        return ()

    # ---- outcome -------------------------------------------------------------------------------------

    def win_check(self, table: Table) -> Outcome | None:
        """The rule set's win conditions on the living players (ignoring any recorded outcome)."""
        raise NotImplementedError

    def final_identity(self, player: Player, state: GameState) -> str:
        """The label of ``player`` in the game-over post."""
        return self.role(player.role).name_zh

    # ---- random play (engine.simulate) ---------------------------------------------------------------

    def random_night(self, state: GameState, rng: random.Random, act_p: float, late_p: float) -> Night:
        raise NotImplementedError

    def random_day_decisions(
        self, state: GameState, rng: random.Random, chosen: str | None, living: list[str]
    ) -> tuple[str | None, frozenset[str] | None, list[str], list[str]]:
        """(chosen, tied, drowned, red cards) for a random day."""
        return chosen, None, [], []


# ---- the registry ------------------------------------------------------------------------------------


def _key(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).strip().upper()
    for ch in " -_/（）()【】":
        text = text.replace(ch, "")
    return text


_REGISTRY: dict[str, RuleSet] = {}
_ALIASES: dict[str, str] = {}


def register(ruleset: RuleSet) -> RuleSet:
    """Add a rule set (and its aliases). A name already taken by another rule set is an error."""
    if not ruleset.id or not ruleset.family:
        raise ValueError(f"{type(ruleset).__name__} needs an id and a family")
    keys = [_key(name) for name in (ruleset.id, *ruleset.aliases)]
    for name, key in zip((ruleset.id, *ruleset.aliases), keys, strict=True):
        if _ALIASES.get(key, ruleset.id) != ruleset.id:
            raise ValueError(f"name {name!r} already belongs to {_ALIASES[key]}")
    for spec in ruleset.extra_roles:
        register_role(ruleset.family, spec)
    for word in ruleset.night_words:
        if word.action is not None and not word.part_of:
            kind = ActionKind.extend(word.kind)
            register_action_kind(ActionKindSpec(kind, word.action, word.form is Form.TARGET, word.name_zh))
    for key in keys:
        _ALIASES[key] = ruleset.id
    _REGISTRY[ruleset.id] = ruleset
    return ruleset


def unregister(rule_set_id: str) -> None:
    """Remove a rule set and its names (tests that register a variant clean up with this), with the roles
    and night action kinds only it brought."""
    gone = _REGISTRY.pop(rule_set_id, None)
    if gone is not None:
        others = list(_REGISTRY.values())
        for spec in gone.extra_roles:
            if not any(spec in rs.extra_roles for rs in others):
                unregister_role(gone.family, spec.id)
        for word in gone.night_words:
            if word.action is not None and not any(rs.has_night_kind(word.kind) for rs in others):
                unregister_action_kind(word.kind)
    for key in [k for k, v in _ALIASES.items() if v == rule_set_id]:
        del _ALIASES[key]


def get_ruleset(name: str) -> RuleSet:
    """The rule set called ``name`` (id, alias or Chinese name; case, width and dashes ignored).

    Raises UnknownRuleSetError listing the known names.
    """
    found = _REGISTRY.get(name)  # fast path: an exact id (what a GameState holds)
    if found is not None:
        return found
    rid = _ALIASES.get(_key(name))
    if rid is None:
        known = "; ".join(f"{rs.id} ({', '.join(rs.aliases[:4])})" for rs in _REGISTRY.values())
        raise UnknownRuleSetError(f"no rule set called {name!r}; known: {known}")
    return _REGISTRY[rid]


def all_rulesets() -> tuple[RuleSet, ...]:
    return tuple(_REGISTRY.values())


def rules_of(state: Table | GameState) -> RuleSet:
    """The rule set a game (or a resolution's scratch copy) is played under."""
    return get_ruleset(state.ruleset_id)


def evaluate_outcome(state: Table) -> Outcome | None:
    """The win conditions of the state's rule set on its living players, ignoring any recorded outcome.

    ``state.outcome`` is what was recorded at the rule set's check points; use this to ask "would the
    game be over now?" (e.g. at setup, C-111).
    """
    return rules_of(state).win_check(state)


def last_words_windows(state: GameState, due: datetime) -> tuple[LastWordsWindow, ...]:
    """Who may leave last words now, where and until ``due`` (see engine/lastwords.py).

    ``due`` is the rule set's deadline from the caller's timetable: R001 the next night's deadline (the
    night ``state.round`` whose results wait, AMB-31); R004 the start of the next discussion day.
    R001 reads ``state.police_last_words`` (set when a police officer is executed, cleared when the next
    night is resolved): call it with the state between the day's close and the night's resolution.
    R004 reads the roles with a slot among those out since the last day-start post: in the night phase
    the day's eliminations (the night may add more), in the day phase those out between the last two
    day starts.
    """
    return rules_of(state).last_words_windows(state, due)
