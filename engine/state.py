"""Game state: players, roles, who is out (cause and order) and every counter the rules keep.

A :class:`GameState` is an immutable value: every resolution returns a new one. Mapping fields are
read-only views (``types.MappingProxyType``); tuples keep order where the rules care about it.

Accessors the day engine uses (kept deliberately simple):

* ``state.living()`` — names of the living players, in seating order;
* ``state.strikes_of(name)`` — R001 vote-attendance strikes (淹水, two ⇒ drowned);
* ``state.proxy_votes_used_of(name)`` — proxy votes (代投) used this game;
* ``state.authority_holder`` — the role holding 威权 (R004), None if nobody holds it now;
* ``state.is_guardian(name)`` and ``engine.eliminations.double_kill_pair(state, day)``.

The day's counters (``strikes``, ``proxy_votes_used``, ``yellow_cards``, ``discussion_deficient``) have
one owner: this state. ``engine.apply_day`` writes the judged day's values; ``engine.start_counters``
hands them to the next day's judgement.

:func:`state_to_dict` / :func:`state_from_dict` give a JSON-able dict for the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from engine.errors import IllegalActionError, StateError
from engine.flags_night import NightFlags, flags_from_dict, flags_to_dict
from engine.outcome import Outcome
from engine.roles import ROLE_TABLES, Cause, GroupId, RoleId, RoleSpec

STATE_FORMAT = "forumbot.engine.GameState"
STATE_VERSION = 1

EMPTY: Mapping[str, Any] = MappingProxyType({})


def frozen_map(data: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> Mapping[str, Any]:
    """A read-only copy of ``data``."""
    return MappingProxyType(dict(data))


class Phase(StrEnum):
    NIGHT = "night"  # submissions for night ``round`` are being collected
    DAY = "day"  # night ``round`` is resolved; day ``round`` (discussion, vote) is running
    OVER = "over"  # the game has ended (``outcome`` says how)


@dataclass(frozen=True, slots=True)
class Player:
    """One player (by role-account name) and his status."""

    name: str
    role: RoleId
    alive: bool = True
    cause: Cause | None = None  # why he is out (R004: the first recorded cause)
    out_round: int | None = None  # the round (night r / day r) he went out
    possessed: bool = False  # R001: a civilian converted by the ghost (被附体匪)
    converted: bool = False  # R000-G2: a police-guardian who lost his power (rule 6)


@dataclass(frozen=True, slots=True)
class GameState:
    """The whole game at one moment. Build one with :func:`engine.setup.new_game` or ``draw_roles``."""

    ruleset_id: str
    family: str  # "r001" (R001, R000-*) or "r004"
    players: tuple[Player, ...]
    flags: NightFlags = field(default_factory=NightFlags)
    round: int = 1
    phase: Phase = Phase.NIGHT
    out_order: tuple[str, ...] = ()  # every elimination of the game, in order
    outcome: Outcome | None = None
    # ---- any rule set: armed submissions (engine/lastacts.py) ----
    # holder → his armed action (action_to_dict): a night word with ``armed`` (a 猎人's shot), resolved by
    # the rule set when the holder goes out
    armed: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: EMPTY)
    # ---- r001 family ----
    possession_used: bool = False
    extra_check_round: int | None = None  # an extra check is owed for this round (poison checked)
    police_last_words: str | None = None  # police officer executed in the last vote (§四.5.3)
    protection_round: int = 0  # the round ``protections`` belong to
    protections: Mapping[str, str] = field(
        default_factory=lambda: EMPTY
    )  # guardian → protégé (legal submissions of that round)
    guardian_history: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: EMPTY
    )  # guardian → everyone he protected
    guardian_skips: Mapping[str, int] = field(default_factory=lambda: EMPTY)  # voluntary skips (AMB-41)
    guardian_forced_streak: Mapping[str, int] = field(
        default_factory=lambda: EMPTY
    )  # consecutive forced skips (AMB-41)
    strikes: Mapping[str, int] = field(default_factory=lambda: EMPTY)  # R001 vote-attendance strikes (淹水)
    proxy_votes_used: Mapping[str, int] = field(default_factory=lambda: EMPTY)
    discussion_deficient: tuple[str, ...] = ()  # R001: too few valid discussion posts in the last day
    # ---- r004 family ----
    sniper_bullets: int = 0
    sniper_rejoined: bool = False
    empty_heals: Mapping[str, int] = field(
        default_factory=lambda: EMPTY
    )  # per healed role (or per doctor, AMB-63)
    hug_targets_used: tuple[str, ...] = ()
    fireworks_used: bool = False
    assassination_used: bool = False
    arrow_used: bool = False
    hostages_killed: bool = False  # 撕票 used
    lovers: tuple[str, str] | None = None
    kidnapped: tuple[str, ...] = ()  # in the order kidnapped
    authority_holder: str | None = None  # 威权
    authority_pending: str | None = None  # a holder who went out and has not passed it yet
    alert_night: int | None = None  # 警戒: the night on which no killer-camp skill works
    spy_counted: bool = True
    lastword_slots: int = 0  # L = counted killer-camp roles at setup
    lastword_slots_used: int = 0
    lastwords: tuple[str, ...] = ()  # roles that got a last-words slot
    yellow_cards: Mapping[str, int] = field(default_factory=lambda: EMPTY)
    since_day_start: tuple[str, ...] = ()  # R004: eliminations since the last day-start post
    day_start_out: tuple[str, ...] = ()  # R004: out between the last two day starts (遗言 due)
    _index: Mapping[str, int] = field(default_factory=lambda: EMPTY, init=False, repr=False, compare=False)
    _by_role: Mapping[RoleId, tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        index = {p.name: i for i, p in enumerate(self.players)}
        if len(index) != len(self.players):
            raise StateError("two players share a name")
        object.__setattr__(self, "_index", index)
        by_role: dict[RoleId, list[str]] = {}
        for p in self.players:
            by_role.setdefault(p.role, []).append(p.name)
        object.__setattr__(self, "_by_role", {r: tuple(v) for r, v in by_role.items()})

    def holders_of(self, role: RoleId) -> tuple[str, ...]:
        """Every player holding ``role`` (alive or not), in seating order. Roles never change hands."""
        return self._by_role.get(role, ())

    # ---- players ----
    def has(self, name: str) -> bool:
        return name in self._index

    def player(self, name: str) -> Player:
        """The player called ``name``; IllegalActionError if there is none (names are exact)."""
        try:
            return self.players[self._index[name]]
        except KeyError:
            raise IllegalActionError(f"本局没有名为 {name} 的玩家") from None

    p = player  # short alias (the scratch copy inside resolutions uses the same name)

    def is_alive(self, name: str) -> bool:
        i = self._index.get(name)
        return i is not None and self.players[i].alive

    def living(self) -> tuple[str, ...]:
        """Names of the living (not out) players, in seating order."""
        return tuple(p.name for p in self.players if p.alive)

    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    def spec(self, name: str) -> RoleSpec:
        return ROLE_TABLES[self.family][self.player(name).role]

    def with_role(self, *roles: RoleId, alive: bool | None = None) -> tuple[str, ...]:
        """Names holding any of ``roles`` (optionally only the living or only the dead)."""
        return tuple(p.name for p in self.players if p.role in roles and (alive is None or p.alive is alive))

    def holder(self, role: RoleId) -> str | None:
        """The (first) player holding ``role``, alive or not; None if the setup has none."""
        for p in self.players:
            if p.role is role:
                return p.name
        return None

    def is_bandit(self, name: str) -> bool:
        """R001: an original bandit (ghost included) or a possessed player."""
        p = self.player(name)
        return p.role in (RoleId.BANDIT, RoleId.GHOST) or p.possessed

    def is_guardian(self, name: str) -> bool:
        return self.player(name).role in (RoleId.GUARDIAN, RoleId.POLICE_GUARDIAN, RoleId.BANDIT_GUARDIAN)

    def protege_of(self, guardian: str, round_: int | None = None) -> str | None:
        """Whom ``guardian`` protects in ``round_`` (default: the current round); None if nobody."""
        r = self.round if round_ is None else round_
        if r != self.protection_round:
            return None
        return self.protections.get(guardian)

    # ---- counters ----
    def strikes_of(self, name: str) -> int:
        return int(self.strikes.get(name, 0))

    def proxy_votes_used_of(self, name: str) -> int:
        return int(self.proxy_votes_used.get(name, 0))

    def yellow_cards_of(self, name: str) -> int:
        return int(self.yellow_cards.get(name, 0))

    def empty_heals_of(self, name: str) -> int:
        return int(self.empty_heals.get(name, 0))

    def group_members(self, group: GroupId) -> tuple[str, ...]:
        """Who is in a private group now (out players stay in, R004 注意; R001 §四.7)."""
        if group is GroupId.POLICE:
            return self.with_role(RoleId.POLICE)
        if group is GroupId.BANDITS:
            joined = self.flags.gp_possessed_joins_bandit_group
            return tuple(
                p.name
                for p in self.players
                if p.role in (RoleId.BANDIT, RoleId.GHOST) or (joined and p.possessed)
            )
        if group is GroupId.KILLERS:
            names = list(self.with_role(RoleId.KILLER))
            if self.sniper_rejoined:
                names += self.with_role(RoleId.SNIPER)
            return tuple(names)
        if group is GroupId.LOVERS:
            return tuple(self.lovers) if self.lovers else ()
        return self.kidnapped


_STATE_SLOTS: tuple[str, ...] = (
    *(f.name for f in fields(GameState) if not f.name.startswith("_")),
    "_index",
    "_by_role",
)


def copy_state(base: GameState, changes: Mapping[str, Any]) -> GameState:
    """``dataclasses.replace`` for resolutions, fast: the same players (by name), other field values.

    Used inside the engine only; ``changes`` must not rename, add or remove players.
    """
    new = object.__new__(GameState)
    setter = object.__setattr__
    for name in _STATE_SLOTS:
        setter(new, name, changes[name] if name in changes else getattr(base, name))
    return new


# ---- serialisation ---------------------------------------------------------------------------------

_MAP_FIELDS = (
    "armed",
    "protections",
    "guardian_skips",
    "guardian_forced_streak",
    "strikes",
    "proxy_votes_used",
    "empty_heals",
    "yellow_cards",
)
_TUPLE_FIELDS = (
    "out_order",
    "hug_targets_used",
    "kidnapped",
    "lastwords",
    "since_day_start",
    "day_start_out",
    "discussion_deficient",
)


def player_to_dict(p: Player) -> dict[str, Any]:
    return {
        "name": p.name,
        "role": p.role.value,
        "alive": p.alive,
        "cause": p.cause.value if p.cause else None,
        "out_round": p.out_round,
        "possessed": p.possessed,
        "converted": p.converted,
    }


def player_from_dict(d: Mapping[str, Any]) -> Player:
    return Player(
        name=str(d["name"]),
        role=RoleId(d["role"]),
        alive=bool(d.get("alive", True)),
        cause=Cause(d["cause"]) if d.get("cause") else None,
        out_round=d.get("out_round"),
        possessed=bool(d.get("possessed", False)),
        converted=bool(d.get("converted", False)),
    )


def state_to_dict(state: GameState) -> dict[str, Any]:
    """A JSON-able dict holding everything in ``state`` (round-trips through :func:`state_from_dict`)."""
    out: dict[str, Any] = {"format": STATE_FORMAT, "version": STATE_VERSION}
    for f in fields(state):
        if f.name.startswith("_"):
            continue
        value = getattr(state, f.name)
        if f.name == "players":
            out[f.name] = [player_to_dict(p) for p in value]
        elif f.name == "flags":
            out[f.name] = flags_to_dict(value)
        elif f.name == "outcome":
            out[f.name] = value.to_dict() if value else None
        elif f.name == "phase":
            out[f.name] = value.value
        elif f.name == "guardian_history":
            out[f.name] = {k: list(v) for k, v in value.items()}
        elif f.name in _MAP_FIELDS:
            out[f.name] = dict(value)
        elif f.name in _TUPLE_FIELDS or f.name == "lovers":
            out[f.name] = list(value) if value is not None else None
        else:
            out[f.name] = value
    return out


def state_from_dict(data: Mapping[str, Any]) -> GameState:
    """Rebuild a state from :func:`state_to_dict`'s dict. Raises StateError on a foreign/newer dict."""
    if data.get("format") != STATE_FORMAT:
        raise StateError(f"not a serialised GameState (format={data.get('format')!r})")
    if data.get("version") != STATE_VERSION:
        raise StateError(f"GameState version {data.get('version')!r} is not {STATE_VERSION}")
    kwargs: dict[str, Any] = {}
    for f in fields(GameState):
        if f.name.startswith("_") or f.name not in data:
            continue
        value = data[f.name]
        if f.name == "players":
            kwargs[f.name] = tuple(player_from_dict(p) for p in value)
        elif f.name == "flags":
            kwargs[f.name] = flags_from_dict(value)
        elif f.name == "outcome":
            kwargs[f.name] = Outcome.from_dict(value) if value else None
        elif f.name == "phase":
            kwargs[f.name] = Phase(value)
        elif f.name == "guardian_history":
            kwargs[f.name] = frozen_map((k, tuple(v)) for k, v in value.items())
        elif f.name in _MAP_FIELDS:
            kwargs[f.name] = frozen_map(value)
        elif f.name in _TUPLE_FIELDS:
            kwargs[f.name] = tuple(value)
        elif f.name == "lovers":
            kwargs[f.name] = (value[0], value[1]) if value else None
        else:
            kwargs[f.name] = value
    if kwargs.get("family") not in ROLE_TABLES:
        raise StateError(f"unknown rule family {kwargs.get('family')!r}")
    return GameState(**kwargs)
