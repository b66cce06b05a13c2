"""How a game ends: :class:`Outcome` (termination, winner), like python-chess's ``Board.outcome()``.

The conditions run in one documented order.

**R001 / R000 family** (:func:`r001_outcome`), on the living players, once per batch (AMB-06):

1. counts: Bn = bandits (original killers incl. the ghost, plus possessed players, AMB-07);
   Pn = police (the poison never counts as police: AMB-01); Zn = 1 if the poison lives;
   Cn = unpossessed civilians; guardians count for none of them (AMB-44).
2. A = Bn == 0;  B = Pn == 0 or Cn == 0;
   C2 = condition 2 on (AMB-02) and Bn ≥ 1 (AMB-04) and Bn ≥ Pn + Zn (AMB-03) + Cn − 1.
3. A and B → draw (AMB-05); else A → police and civilians win; else B → bandits win (B before C2 so the
   termination names the wipe-out); else C2 → bandits win; else the game goes on.

**R004** (:func:`r004_outcome`), after every single elimination (§e.3), in this order:

1. killer win 1: living killer-camp roles ≥ ½ of the living (numerator per AMB-80);
2. killer win 2: every god of the setup (警察, 医生, 花蝴蝶, 特工, 市长) is out;
3. killer win 3: every 平民 is out;
4. civilian win: every counted killer-camp role (杀手, 狙击手, 绑匪, 间谍 if counted) is out.

A draw cannot happen in R004; in a played game at most one of these can become true at one elimination.
Concession (R001 §三.3), surrender (R004, AMB-83) and a judge's end (§三.4) are judge actions in
engine/eliminations.py that record an Outcome with their own termination.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from engine.events import PUBLIC, Event, EventKind, event
from engine.roles import R001_ROLES, R004_ROLES, RoleId, WinSide

if TYPE_CHECKING:
    from engine.flags_night import NightFlags
    from engine.state import GameState, Player


class Table(Protocol):
    """What a win check reads: a GameState, or the scratch copy inside a resolution."""

    @property
    def players(self) -> Sequence[Player]: ...
    @property
    def flags(self) -> NightFlags: ...
    @property
    def spy_counted(self) -> bool: ...
    @property
    def family(self) -> str: ...


class Termination(StrEnum):
    # R001 / R000
    BANDITS_WIPED_OUT = "bandits_wiped_out"  # A: 匪全灭 (possessed included)
    POLICE_WIPED_OUT = "police_wiped_out"  # B: 警察全灭
    CIVILIANS_WIPED_OUT = "civilians_wiped_out"  # B: 平民全灭
    BANDIT_PARITY = "bandit_parity"  # R001 §三.2: 杀手人数>=警察人数+平民人数-1
    BOTH_WIPED_OUT = "both_wiped_out"  # 警匪同时全灭 (A and B in one batch, AMB-05)
    CONCESSION = "concession"  # R001 §三.3: 主动告负
    JUDGE_ENDED = "judge_ended"  # R001 §三.4: 特殊原因
    # R004
    KILLER_CAMP_HALF = "killer_camp_half"  # 杀手阵营存活人数占一半或以上
    GODS_OUT = "gods_out"  # 警察，医生，花蝴蝶，特工，市长全部出局
    PLAIN_CIVILIANS_OUT = "plain_civilians_out"  # 平民全部出局
    COUNTED_KILLERS_OUT = "counted_killers_out"  # 杀手，狙击手，间谍，绑匪全部出局
    SURRENDER = "surrender"  # 投降


class Winner(StrEnum):
    POLICE = "police"  # 警察与平民 (R001/R000)
    BANDITS = "bandits"  # 匪 (R001/R000)
    KILLER_CAMP = "killer_camp"  # 杀手阵营 (R004)
    CIVILIAN_CAMP = "civilian_camp"  # 平民阵营 (R004)


WINNER_ZH: Mapping[Winner, str] = {
    Winner.POLICE: "警察与平民胜",
    Winner.BANDITS: "匪胜",
    Winner.KILLER_CAMP: "杀手阵营胜利",
    Winner.CIVILIAN_CAMP: "平民阵营胜利",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the game ended. ``winner`` is None for a draw (平局) or a judge's end without a winner."""

    termination: Termination
    winner: Winner | None

    @property
    def text(self) -> str:
        return WINNER_ZH[self.winner] if self.winner else "平局"

    def to_dict(self) -> dict[str, Any]:
        return {"termination": self.termination.value, "winner": self.winner.value if self.winner else None}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Outcome:
        w = data.get("winner")
        return Outcome(Termination(data["termination"]), Winner(w) if w else None)


@dataclass(frozen=True, slots=True)
class R001Counts:
    bandits: int  # Bn
    police: int  # Pn
    poison: int  # Zn
    civilians: int  # Cn


def r001_counts(state: Table) -> R001Counts:
    """Bn, Pn, Zn, Cn over the living players, per the flags (AMB-01, AMB-07, AMB-44)."""
    flags = state.flags
    bn = pn = zn = cn = 0
    for p in state.players:
        if not p.alive:
            continue
        role = p.role
        if role in (RoleId.BANDIT, RoleId.GHOST):
            bn += 1
        elif role is RoleId.POLICE:
            pn += 1
        elif role is RoleId.POISON:
            zn += 1
        elif role is RoleId.CIVILIAN:
            if p.possessed:
                bn += 1
                if flags.gp_possessed_counts_as_civilian:
                    cn += 1
            else:
                cn += 1
        elif flags.guardian_counted_in_win_checks:
            if role is RoleId.BANDIT_GUARDIAN:
                bn += 1
            elif role is RoleId.POLICE_GUARDIAN and not p.converted:
                pn += 1
            else:  # a single guardian, or a converted police-guardian (works as a civilian)
                cn += 1
    return R001Counts(bn, pn, zn, cn)


def r001_outcome(state: Table) -> Outcome | None:
    """The R001/R000 conditions on the current living players (see the module docstring)."""
    flags = state.flags
    c = r001_counts(state)
    police_side = c.police + (c.poison if flags.win_poison_prevents_police_wipeout else 0)
    a = c.bandits == 0
    b_police = police_side == 0
    b_civ = c.civilians == 0
    b = b_police or b_civ
    c2 = False
    if flags.r001_condition2_enabled and (c.bandits >= 1 or not flags.r001_condition2_requires_bandit):
        z = c.poison if flags.r001_condition2_counts_poison else 0
        c2 = c.bandits >= c.police + z + c.civilians - 1
    if a and b:
        winner = {"draw": None, "police": Winner.POLICE, "bandits": Winner.BANDITS}[
            flags.r001_simultaneous_a_and_b
        ]
        return Outcome(Termination.BOTH_WIPED_OUT, winner)
    if a:
        return Outcome(Termination.BANDITS_WIPED_OUT, Winner.POLICE)
    if b_police:
        return Outcome(Termination.POLICE_WIPED_OUT, Winner.BANDITS)
    if b_civ:
        return Outcome(Termination.CIVILIANS_WIPED_OUT, Winner.BANDITS)
    if c2:
        return Outcome(Termination.BANDIT_PARITY, Winner.BANDITS)
    return None


@dataclass(frozen=True, slots=True)
class R004Counts:
    living: int
    killer_camp: int  # numerator of killer win 1 (AMB-80)
    counted_killers: int  # KC alive
    gods_in_setup: int
    gods: int  # G alive
    plain_in_setup: int
    plain: int  # 平民 alive

    def without(self, role: RoleId, spy_counted: bool, flags: NightFlags) -> R004Counts:
        """The counts after one living role of ``role`` goes out (the win check after each elimination)."""
        side = WinSide.KILLER_UNCOUNTED if role is RoleId.SPY and not spy_counted else _R004_SIDE[role]
        kc_all, kc, g, plain = self.killer_camp, self.counted_killers, self.gods, self.plain
        if side is WinSide.KILLER_COUNTED:
            kc -= 1
            kc_all -= 1
        elif side is WinSide.KILLER_UNCOUNTED:
            if flags.r004_cond1_numerator == "all_killer_camp":
                kc_all -= 1
        elif side is WinSide.GOD:
            g -= 1
        elif side is WinSide.PLAIN:
            plain -= 1
        return R004Counts(self.living - 1, kc_all, kc, self.gods_in_setup, g, self.plain_in_setup, plain)


_R004_SIDE: dict[RoleId, WinSide] = {r: s.side for r, s in R004_ROLES.items()}


_SIDE_ORDER = (
    WinSide.KILLER_COUNTED,
    WinSide.KILLER_UNCOUNTED,
    WinSide.GOD,
    WinSide.PLAIN,
    WinSide.CIVILIAN_SPECIAL,
)
_SIDE_IX: dict[RoleId, int] = {r: _SIDE_ORDER.index(side) for r, side in _R004_SIDE.items()}


def r004_counts(state: Table) -> R004Counts:
    """Living and setup counts of the R004 win check (the spy per ``spy_counted``; AMB-80 numerator)."""
    ix = _SIDE_IX
    spy = RoleId.SPY
    spy_uncounted = not state.spy_counted
    total = [0, 0, 0, 0, 0]
    alive = [0, 0, 0, 0, 0]
    for p in state.players:
        i = 1 if spy_uncounted and p.role is spy else ix[p.role]
        total[i] += 1
        if p.alive:
            alive[i] += 1
    kc_all = alive[0] + (alive[1] if state.flags.r004_cond1_numerator == "all_killer_camp" else 0)
    return R004Counts(
        living=sum(alive),
        killer_camp=kc_all,
        counted_killers=alive[0],
        gods_in_setup=total[2],
        gods=alive[2],
        plain_in_setup=total[3],
        plain=alive[3],
    )


def r004_outcome(state: Table) -> Outcome | None:
    """The R004 conditions on the current living roles (see the module docstring)."""
    return r004_outcome_of(r004_counts(state))


def r004_outcome_of(c: R004Counts) -> Outcome | None:
    """The R004 conditions, in the documented order, on counts (see :func:`r004_counts`)."""
    if c.living and 2 * c.killer_camp >= c.living:
        return Outcome(Termination.KILLER_CAMP_HALF, Winner.KILLER_CAMP)
    if c.gods_in_setup and c.gods == 0:
        return Outcome(Termination.GODS_OUT, Winner.KILLER_CAMP)
    if c.plain_in_setup and c.plain == 0:
        return Outcome(Termination.PLAIN_CIVILIANS_OUT, Winner.KILLER_CAMP)
    if c.counted_killers == 0:
        return Outcome(Termination.COUNTED_KILLERS_OUT, Winner.CIVILIAN_CAMP)
    return None


def evaluate_outcome(state: Table) -> Outcome | None:
    """The conditions of the state's family on its living players, ignoring any recorded outcome.

    ``state.outcome`` is what was recorded at the rule set's check points; use this to ask "would the
    game be over now?" (e.g. at setup, C-111).
    """
    return r004_outcome(state) if state.family == "r004" else r001_outcome(state)


def game_over_events(state: GameState) -> list[Event]:
    """The game-over post: the result and every identity (ghost and possession history included)."""
    assert state.outcome is not None
    lines = [f"游戏结束：{state.outcome.text}"]
    table = R004_ROLES if state.family == "r004" else R001_ROLES
    identities: dict[str, str] = {}
    for p in state.players:
        label = table[p.role].name_zh
        if p.possessed:
            label = "平民（被附体匪）"
        if p.role is RoleId.POLICE_GUARDIAN and p.converted:
            label = "警神（已失去守护能力）"
        if p.role is RoleId.GHOST and state.possession_used:
            label = "鬼匪（已附体）"
        identities[p.name] = label
        lines.append(f"{p.name}：{label}{'' if p.alive else '（出局）'}")
    return [
        event(
            EventKind.GAME_OVER,
            PUBLIC,
            "\n".join(lines),
            termination=state.outcome.termination.value,
            winner=state.outcome.winner.value if state.outcome.winner else None,
            identities=identities,
        )
    ]
