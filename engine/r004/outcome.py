"""The R004 win conditions (see engine/outcome.py for the documented order), checked after every single
elimination (§e.3)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.flags_night import NightFlags
from engine.outcome import Outcome, Termination, Winner
from engine.roles import R004_ROLES, RoleId, WinSide
from engine.table import Table


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
