"""The role tables: every role's name, Chinese name, camp, counting, labels, night skills and hooks.

A built-in role is a :class:`RoleId`, a :class:`RoleSpec` row in the family's table and (if it acts at
night) an :class:`ActionKind` the family's night module resolves. A variant adds a role without touching
the engine: ``RoleId.extend("hunter")`` names it (the enums here are open: :class:`OpenEnum`), its
RuleSet lists the row in ``extra_roles`` and ``engine.register`` adds it to the family's table
(:func:`register_role`) with the variant's night vocabulary (engine/vocab.py).

Two families of rule sets share the tables:

* ``"r001"`` — R001 and the R000 variants (鬼匪/毒药, 守护神, 双守护). Labels are identities
  (a police check answers 杀手/平民/毒药/被附体匪/…; an execution reveals 警察/杀手/…).
* ``"r004"`` — the multi-role 杀人游戏. A police check answers the camp (杀手阵营/平民阵营); nothing is
  revealed on elimination except the mayor under 警戒 (AMB-64).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Protocol, Self

from engine.flags_night import NightFlags


class OpenEnum(StrEnum):
    """A StrEnum a variant may add values to (a role, an action kind, a cause) without changing the
    engine: ``extend(value)`` makes a member that ``Cls(value)``, ``is`` and serialisation treat like a
    built-in one. Iterating the class lists the built-in members only; an added member stays for the
    process (an action class or a state holds it), unregistering a variant removes only its table rows."""

    @classmethod
    def extend(cls, value: str) -> Self:
        """The member with ``value``, made if the class has none (idempotent)."""
        found = cls._value2member_map_.get(value)
        if found is not None:
            return found  # type: ignore[return-value]
        if not value or not value.isidentifier():
            raise ValueError(f"{cls.__name__}: {value!r} is not a usable id (letters, digits, _)")
        member = str.__new__(cls, value)
        member._value_ = value
        member._name_ = value.upper()
        cls._value2member_map_[value] = member
        return member

    @classmethod
    def _missing_(cls, value: Any) -> Any:
        return None


class Camp(StrEnum):
    """The side a role plays for. Values are the rules' own Chinese words."""

    POLICE_SIDE = "警方"  # R001: police, poison, police-guardian
    BANDIT_SIDE = "匪方"  # R001: bandits (ghost included), bandit-guardian
    CIVILIANS = "平民"  # R001: plain civilians
    OWN_STANCE = "立场自选"  # R000-G1: the single guardian picks his own stance
    KILLER_CAMP = "杀手阵营"  # R004
    CIVILIAN_CAMP = "平民阵营"  # R004


class RoleId(OpenEnum):
    """Stable ids of every role (used in state, presets and serialised dicts)."""

    # r001 family
    BANDIT = "bandit"
    GHOST = "ghost"
    POISON = "poison"
    GUARDIAN = "guardian"
    POLICE_GUARDIAN = "police_guardian"
    BANDIT_GUARDIAN = "bandit_guardian"
    # both families (different rows per family)
    POLICE = "police"
    CIVILIAN = "civilian"
    # r004 family
    KILLER = "killer"
    SNIPER = "sniper"
    TERRORIST = "terrorist"
    SPY = "spy"
    KIDNAPPER = "kidnapper"
    DOCTOR = "doctor"
    BUTTERFLY = "butterfly"
    AGENT = "agent"
    MAYOR = "mayor"
    CUPID = "cupid"


class ActionKind(OpenEnum):
    """Every kind of night submission."""

    KILL = "kill"  # the bandits'/killers' joint victim (R001: plus pledge, possession, kill text)
    CHECK = "check"  # police 验人 / 查验
    PROTECT = "protect"  # guardian 守护
    SNIPE = "snipe"  # 狙击
    FIREWORKS = "fireworks"  # 放烟花
    SPY = "spy"  # 潜伏
    KIDNAP = "kidnap"  # 绑架
    KILL_HOSTAGES = "kill_hostages"  # 撕票
    HEAL = "heal"  # 救治
    HUG = "hug"  # 拥抱
    ASSASSINATE = "assassinate"  # 暗杀
    ARROW = "arrow"  # 丘比特之箭


class GroupId(StrEnum):
    """Private groups (共群 / 频道) an event can be addressed to."""

    POLICE = "police"  # 警署讨论组 (R001) / 警察频道 (R004)
    BANDITS = "bandits"  # 匪帮讨论组 (R001)
    KILLERS = "killers"  # 杀手频道 (R004; a rejoined sniper too)
    LOVERS = "lovers"  # 情侣 (R004)
    KIDNAPPED = "kidnapped"  # 被绑架者 (R004, AMB-69)


GROUP_ZH: Mapping[GroupId, str] = MappingProxyType(
    {
        GroupId.POLICE: "警署讨论组",
        GroupId.BANDITS: "匪帮讨论组",
        GroupId.KILLERS: "杀手频道",
        GroupId.LOVERS: "情侣频道",
        GroupId.KIDNAPPED: "被绑架者频道",
    }
)


class Cause(OpenEnum):
    """Why a player is out. R004's out-list keeps the first recorded cause (注意: 不改变死因)."""

    # r001 family
    KILLED = "killed"  # 被杀 (the bandits' victim)
    PLEDGE = "pledge"  # 依生死状与毒药同死
    POSSESSED_POISON = "possessed_poison"  # 鬼匪附体毒药, 同死
    GUARDED_KILL = "guarded_kill"  # 守护神替被害人死 (never announced as such)
    DERELICTION = "dereliction"  # 渎职死亡
    FORCED_DERELICTION = "forced_dereliction"  # 被迫渎职死
    EXECUTED = "executed"  # 票死
    GUARDED_EXECUTION = "guarded_execution"  # 守护神代被票者出局
    DOUBLE_KILL = "double_kill"  # 双杀票数, 守护人与被守护人同死
    DROWNED = "drowned"  # 淹死
    SENT_OFF = "sent_off"  # 判作立即出局 (§四.10, AMB-33)
    JUDGE = "judge"  # removed by the judge for another reason
    # r004 family
    FIREWORKS = "fireworks"  # 放烟花
    HOSTAGE = "hostage"  # 撕票
    SNIPE = "snipe"  # 狙击
    ASSASSINATION = "assassination"  # 暗杀
    KILLERS = "killers"  # 杀人
    DOUBLE_EMPTY_HEAL = "double_empty_heal"  # 双空救
    HUG = "hug"  # 拥抱
    HANFEI = "hanfei"  # 悍匪
    LOVER = "lover"  # 丘比特之箭 (代替情侣出局)
    VOTE = "vote"  # 投票
    RED_CARD = "red_card"  # 红牌罚下


class WinSide(StrEnum):
    """How a role counts in the R001/R000 win check (Bn, Pn, Zn, Cn; guardians per AMB-44)."""

    BANDIT = "bandit"  # Bn
    POLICE = "police"  # Pn
    POISON = "poison"  # Zn
    CIVILIAN = "civilian"  # Cn
    GUARDIAN = "guardian"  # none of them (AMB-44), unless a flag counts them
    # r004
    KILLER_COUNTED = "killer_counted"  # KC: 杀手, 狙击手, 绑匪, (间谍 when counted)
    KILLER_UNCOUNTED = "killer_uncounted"  # 恐怖分子 (and 间谍 in the 19/23 presets)
    GOD = "god"  # G: 警察, 医生, 花蝴蝶, 特工, 市长
    CIVILIAN_SPECIAL = "civilian_special"  # 丘比特 (not counted)
    PLAIN = "plain"  # 平民


class PlayerLike(Protocol):
    """What a label hook reads of a player (engine.state.Player has these; roles never import state)."""

    @property
    def possessed(self) -> bool: ...
    @property
    def converted(self) -> bool: ...


LabelHook = Callable[[PlayerLike, NightFlags], str]


@dataclass(frozen=True, slots=True)
class RoleSpec:
    """One row of a role table.

    ``check_label`` is what a police check answers; ``reveal_label`` what an execution announces
    (R001 family; R004 announces nothing, AMB-64). The hooks, when set, compute a label from the
    player's status (possessed, converted) and the flags instead.
    """

    id: RoleId
    name_zh: str
    camp: Camp
    side: WinSide
    check_label: str
    reveal_label: str
    group: GroupId | None = None
    night_actions: tuple[ActionKind, ...] = ()
    counted: bool = False  # R004 轮次 (KC or G); the spy's value may be overridden per preset
    check_hook: LabelHook | None = None
    reveal_hook: LabelHook | None = None
    notice: str = ""  # one sentence for the private setup notice (what the role does)

    def label_for_check(self, player: PlayerLike, flags: NightFlags) -> str:
        return self.check_hook(player, flags) if self.check_hook else self.check_label

    def label_for_reveal(self, player: PlayerLike, flags: NightFlags) -> str:
        return self.reveal_hook(player, flags) if self.reveal_hook else self.reveal_label


# ---- hooks -------------------------------------------------------------------------------------


def _civilian_check(player: PlayerLike, flags: NightFlags) -> str:
    return "被附体匪" if player.possessed else "平民"


def _civilian_reveal(player: PlayerLike, flags: NightFlags) -> str:
    return "被附体匪" if player.possessed else "平民"


def _police_check(player: PlayerLike, flags: NightFlags) -> str:
    return flags.gp_check_label_police


def _poison_reveal(player: PlayerLike, flags: NightFlags) -> str:
    return flags.gp_executed_poison_label


def _police_guardian_reveal(player: PlayerLike, flags: NightFlags) -> str:
    # R000-G2 rule 6: a converted police-guardian is still announced as 警方守护神 (AMB-46).
    return "警方守护神" if player.converted else "警神"


# ---- the r001 family (R001, R000-GP, R000-G1, R000-G2) -------------------------------------------

_R001_TABLE: dict[RoleId, RoleSpec] = dict(
    {
        RoleId.BANDIT: RoleSpec(
            RoleId.BANDIT,
            "杀手",
            Camp.BANDIT_SIDE,
            WinSide.BANDIT,
            check_label="杀手",
            reveal_label="杀手",
            group=GroupId.BANDITS,
            night_actions=(ActionKind.KILL,),
            notice="每晚与匪帮共同决定杀死一人并提交线文；可以自杀。",
        ),
        RoleId.GHOST: RoleSpec(
            RoleId.GHOST,
            "鬼匪",
            Camp.BANDIT_SIDE,
            WinSide.BANDIT,
            # 鬼匪的身份特殊性在游戏结束前是不被揭露的: checked or executed he is just 杀手.
            check_label="杀手",
            reveal_label="杀手",
            group=GroupId.BANDITS,
            night_actions=(ActionKind.KILL,),
            notice="你是匪徒中的鬼匪：全局限一次，在活着时可于任一回合开始附体一人（与杀人名单同时提交）。",
        ),
        RoleId.POLICE: RoleSpec(
            RoleId.POLICE,
            "警察",
            Camp.POLICE_SIDE,
            WinSide.POLICE,
            check_label="警察",
            reveal_label="警察",
            group=GroupId.POLICE,
            night_actions=(ActionKind.CHECK,),
            check_hook=_police_check,
            notice="每晚与警署共同验证一人。",
        ),
        RoleId.POISON: RoleSpec(
            RoleId.POISON,
            "毒药",
            Camp.POLICE_SIDE,
            WinSide.POISON,
            check_label="毒药",
            reveal_label="毒药",
            reveal_hook=_poison_reveal,
            notice="毒药立场属于警方，不加入任何讨论组，不能验人，与警察互不知道名单。",
        ),
        RoleId.CIVILIAN: RoleSpec(
            RoleId.CIVILIAN,
            "平民",
            Camp.CIVILIANS,
            WinSide.CIVILIAN,
            check_label="平民",
            reveal_label="平民",
            check_hook=_civilian_check,
            reveal_hook=_civilian_reveal,
            notice="可以投票，不能杀人、不能验人。",
        ),
        RoleId.GUARDIAN: RoleSpec(
            RoleId.GUARDIAN,
            "守护神",
            Camp.OWN_STANCE,
            WinSide.GUARDIAN,
            check_label="守护神",
            reveal_label="守护神",
            night_actions=(ActionKind.PROTECT,),
            notice="立场自选。每轮开始前必须提交一守护名单；不得守护自己或死人，不得守护相同的人。",
        ),
        RoleId.POLICE_GUARDIAN: RoleSpec(
            RoleId.POLICE_GUARDIAN,
            "警神",
            Camp.POLICE_SIDE,
            WinSide.GUARDIAN,
            check_label="警神",
            reveal_label="警神",
            night_actions=(ActionKind.PROTECT,),
            reveal_hook=_police_guardian_reveal,
            notice="警方守护神：守护仅对警察和平民产生作用。每轮开始前必须提交一守护名单。",
        ),
        RoleId.BANDIT_GUARDIAN: RoleSpec(
            RoleId.BANDIT_GUARDIAN,
            "匪神",
            Camp.BANDIT_SIDE,
            WinSide.GUARDIAN,
            check_label="匪神",
            reveal_label="匪神",
            night_actions=(ActionKind.PROTECT,),
            notice="匪方守护神：守护仅对匪徒和平民产生作用。每轮开始前必须提交一守护名单。",
        ),
    }
)
R001_ROLES: Mapping[RoleId, RoleSpec] = MappingProxyType(_R001_TABLE)  # a read-only view (variants add rows)

# ---- the r004 family (杀人游戏) ---------------------------------------------------------------------

_KC = "杀手阵营"
_CC = "平民阵营"

_R004_TABLE: dict[RoleId, RoleSpec] = dict(
    {
        RoleId.KILLER: RoleSpec(
            RoleId.KILLER,
            "杀手",
            Camp.KILLER_CAMP,
            WinSide.KILLER_COUNTED,
            check_label=_KC,
            reveal_label="杀手",
            group=GroupId.KILLERS,
            night_actions=(ActionKind.KILL,),
            counted=True,
            notice="杀人：每晚与其他杀手共同指杀一名角色。",
        ),
        RoleId.SNIPER: RoleSpec(
            RoleId.SNIPER,
            "狙击手",
            Camp.KILLER_CAMP,
            WinSide.KILLER_COUNTED,
            check_label=_KC,
            reveal_label="狙击手",
            night_actions=(ActionKind.SNIPE,),
            counted=True,
            notice="狙击：整局限X次，夜晚指杀一名角色。归队<强制>：与杀手互相指杀时避免出局并加入杀手频道。",
        ),
        RoleId.TERRORIST: RoleSpec(
            RoleId.TERRORIST,
            "恐怖分子",
            Camp.KILLER_CAMP,
            WinSide.KILLER_UNCOUNTED,
            check_label=_KC,
            reveal_label="恐怖分子",
            night_actions=(ActionKind.FIREWORKS,),
            notice="放烟花<限定>：夜晚选择一名角色，当晚你出局，该角色身份不为杀手则出局。悍匪<强制>。",
        ),
        RoleId.SPY: RoleSpec(
            RoleId.SPY,
            "间谍",
            Camp.KILLER_CAMP,
            WinSide.KILLER_COUNTED,
            check_label=_KC,
            reveal_label="间谍",
            night_actions=(ActionKind.SPY,),
            counted=True,
            notice="潜伏：夜晚选择一名角色，得知其具体身份。",
        ),
        RoleId.KIDNAPPER: RoleSpec(
            RoleId.KIDNAPPER,
            "绑匪",
            Camp.KILLER_CAMP,
            WinSide.KILLER_COUNTED,
            check_label=_KC,
            reveal_label="绑匪",
            night_actions=(ActionKind.KIDNAP, ActionKind.KILL_HOSTAGES),
            counted=True,
            notice="绑架：夜晚选择一名角色；撕票<限定>：按任意顺序指杀所有之前被绑架的角色。",
        ),
        RoleId.POLICE: RoleSpec(
            RoleId.POLICE,
            "警察",
            Camp.CIVILIAN_CAMP,
            WinSide.GOD,
            check_label=_CC,
            reveal_label="警察",
            group=GroupId.POLICE,
            night_actions=(ActionKind.CHECK,),
            counted=True,
            notice="查验：每晚与其他警察共同选择一名角色，得知其所属阵营。",
        ),
        RoleId.DOCTOR: RoleSpec(
            RoleId.DOCTOR,
            "医生",
            Camp.CIVILIAN_CAMP,
            WinSide.GOD,
            check_label=_CC,
            reveal_label="医生",
            night_actions=(ActionKind.HEAL,),
            counted=True,
            notice="救治：夜晚选择一名角色，当晚对其指杀无效；累计两次空救则其出局。",
        ),
        RoleId.BUTTERFLY: RoleSpec(
            RoleId.BUTTERFLY,
            "花蝴蝶",
            Camp.CIVILIAN_CAMP,
            WinSide.GOD,
            check_label=_CC,
            reveal_label="花蝴蝶",
            night_actions=(ActionKind.HUG,),
            counted=True,
            notice="拥抱：夜晚选择一名其他角色，当晚指杀与救治对其无效；你出局则其也出局。",
        ),
        RoleId.AGENT: RoleSpec(
            RoleId.AGENT,
            "特工",
            Camp.CIVILIAN_CAMP,
            WinSide.GOD,
            check_label=_CC,
            reveal_label="特工",
            night_actions=(ActionKind.ASSASSINATE,),
            counted=True,
            notice="暗杀<限定>：夜晚指杀一名角色。",
        ),
        RoleId.MAYOR: RoleSpec(
            RoleId.MAYOR,
            "市长",
            Camp.CIVILIAN_CAMP,
            WinSide.GOD,
            check_label=_CC,
            reveal_label="市长",
            counted=True,
            notice="威权<强制>：平票时你的投票对象出局；出局时须选择一名其他角色获得威权。警戒<强制>。",
        ),
        RoleId.CUPID: RoleSpec(
            RoleId.CUPID,
            "丘比特",
            Camp.CIVILIAN_CAMP,
            WinSide.CIVILIAN_SPECIAL,
            check_label=_CC,
            reveal_label="丘比特",
            night_actions=(ActionKind.ARROW,),
            notice="丘比特之箭<限定>：夜晚选择两名角色成为情侣。",
        ),
        RoleId.CIVILIAN: RoleSpec(
            RoleId.CIVILIAN,
            "平民",
            Camp.CIVILIAN_CAMP,
            WinSide.PLAIN,
            check_label=_CC,
            reveal_label="平民",
            notice="没有技能。",
        ),
    }
)

R004_ROLES: Mapping[RoleId, RoleSpec] = MappingProxyType(_R004_TABLE)

ROLE_TABLES: Mapping[str, Mapping[RoleId, RoleSpec]] = MappingProxyType(
    {"r001": R001_ROLES, "r004": R004_ROLES}
)
_TABLES: dict[str, dict[RoleId, RoleSpec]] = {"r001": _R001_TABLE, "r004": _R004_TABLE}
_BUILT_IN: dict[str, frozenset[RoleId]] = {fam: frozenset(t) for fam, t in _TABLES.items()}

#: Chinese role names accepted when a composition is written in Chinese (presets, judge input).
_ZH_TO_ID: dict[str, dict[str, RoleId]] = {
    fam: {spec.name_zh: rid for rid, spec in table.items()} for fam, table in ROLE_TABLES.items()
}
_ZH_TO_ID["r001"].update(
    {"匪": RoleId.BANDIT, "匪徒": RoleId.BANDIT, "村民": RoleId.CIVILIAN, "炸弹": RoleId.POISON}
)
_ZH_TO_ID["r001"].update({"警方守护神": RoleId.POLICE_GUARDIAN, "匪方守护神": RoleId.BANDIT_GUARDIAN})


def register_role(family: str, spec: RoleSpec) -> None:
    """Add a variant's role to its family's table (``engine.register`` does it for a RuleSet's
    ``extra_roles``). The same row again is fine; another row under a taken id or Chinese name is an
    error: a variant cannot redefine a role other rule sets hold."""
    table = _TABLES[family]
    old = table.get(spec.id)
    if old is not None and old != spec:
        raise ValueError(f"role {spec.id.value!r} already exists in the {family} family")
    taken = _ZH_TO_ID[family].get(spec.name_zh)
    if taken is not None and taken != spec.id:
        raise ValueError(f"the Chinese name {spec.name_zh!r} already belongs to role {taken.value!r}")
    table[spec.id] = spec
    _ZH_TO_ID[family][spec.name_zh] = spec.id


def unregister_role(family: str, role: RoleId) -> None:
    """Remove a role :func:`register_role` added (a built-in row stays)."""
    if role in _BUILT_IN[family]:
        return
    spec = _TABLES[family].pop(role, None)
    if spec is not None and _ZH_TO_ID[family].get(spec.name_zh) == role:
        del _ZH_TO_ID[family][spec.name_zh]


def role_id(family: str, name: str) -> RoleId:
    """Look a role up by id (``"sniper"``) or Chinese name (``"狙击手"``) within a family.

    Raises KeyError (with the known names) when the family has no such role.
    """
    table = ROLE_TABLES[family]
    key = name.strip()
    if key in table:
        return RoleId(key)
    if key in _ZH_TO_ID[family]:
        return _ZH_TO_ID[family][key]
    known = ", ".join(f"{r.value}/{s.name_zh}" for r, s in table.items())
    raise KeyError(f"{family} 没有角色「{name}」（可用：{known}）")
