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

**R004** (``engine.r004.outcome.r004_outcome``), after every single elimination (§e.3), in this order:

1. killer win 1: living killer-camp roles ≥ ½ of the living (numerator per AMB-80);
2. killer win 2: every god of the setup (警察, 医生, 花蝴蝶, 特工, 市长) is out;
3. killer win 3: every 平民 is out;
4. civilian win: every counted killer-camp role (杀手, 狙击手, 绑匪, 间谍 if counted) is out.

A draw cannot happen in R004; in a played game at most one of these can become true at one elimination.
Concession (R001 §三.3), surrender (R004, AMB-83) and a judge's end (§三.4) are judge actions in
the rule-set packages that record an Outcome with their own termination.
Which conditions a game uses is its rule set's ``win_check`` hook (``engine.ruleset``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


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
