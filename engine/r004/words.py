"""R004's night vocabulary: who writes what, where (R004 夜晚: 与导演取得联系).

The killers submit their kill in the 杀手频道, the police their check in the 警察频道; every single-holder
skill goes to the director by private message, as does the 威权 hand-over of an eliminated holder and a
declared 放弃行动. 警戒 is a forced skill: read only to tell the player nothing needs submitting.
"""

from __future__ import annotations

from engine.actions import (
    Arrow,
    Assassinate,
    Check,
    Fireworks,
    Heal,
    Hug,
    Kidnap,
    Kill,
    KillHostages,
    Snipe,
    Spy,
)
from engine.roles import ActionKind, GroupId, RoleId
from engine.vocab import Form, NightWord

_LATE = "视为放弃夜晚行动"


def _solo(
    kind: ActionKind,
    zh: str,
    keywords: tuple[str, ...],
    role: RoleId,
    cls: type,
    form: Form = Form.TARGET,
    slot: str = "",
) -> NightWord:
    """A single holder's skill: by private message to the director."""
    return NightWord(
        kind, zh, keywords=keywords, form=form, roles=(role,), action=cls, slot=slot, late_zh=_LATE
    )


R004_WORDS: tuple[NightWord, ...] = (
    NightWord(
        ActionKind.KILL,
        "杀人",
        keywords=("杀人", "击杀", "刀人", "杀", "刀"),
        none_forms=(r"(?:空刀|不杀人?|不刀人?)",),
        group=GroupId.KILLERS,
        action=Kill,
        field="victim",
        late_zh=_LATE,
        required=True,
    ),
    NightWord(
        ActionKind.CHECK,
        "验人",
        keywords=("查验", "验人", "验证", "验", "查"),
        group=GroupId.POLICE,
        action=Check,
        late_zh=_LATE,
        required=True,
    ),
    _solo(ActionKind.SNIPE, "狙击", ("狙击", "狙"), RoleId.SNIPER, Snipe),
    _solo(ActionKind.FIREWORKS, "放烟花", ("放烟花", "烟花"), RoleId.TERRORIST, Fireworks),
    _solo(ActionKind.SPY, "潜伏", ("潜伏",), RoleId.SPY, Spy),
    _solo(ActionKind.KIDNAP, "绑架", ("绑架", "绑"), RoleId.KIDNAPPER, Kidnap, slot="kidnapper"),
    _solo(
        ActionKind.KILL_HOSTAGES,
        "撕票",
        ("撕票",),
        RoleId.KIDNAPPER,
        KillHostages,
        form=Form.ORDER,
        slot="kidnapper",  # 绑架 and 撕票 exclude each other on one night: one slot
    ),
    _solo(ActionKind.HEAL, "救治", ("救治", "救"), RoleId.DOCTOR, Heal),
    _solo(ActionKind.HUG, "拥抱", ("拥抱", "抱"), RoleId.BUTTERFLY, Hug),
    _solo(ActionKind.ASSASSINATE, "暗杀", ("暗杀",), RoleId.AGENT, Assassinate),
    _solo(
        ActionKind.ARROW,
        "丘比特之箭",
        ("丘比特之箭", "丘比特", "射箭", "情侣"),
        RoleId.CUPID,
        Arrow,
        Form.PAIR,
    ),
    # the eliminated 威权 holder names the next (R004 市长·威权); who may is the rule set's question
    NightWord("authority", "威权", keywords=("移交威权", "传威权", "威权给", "威权"), late_zh=_LATE),
    NightWord("alert", "警戒", keywords=("警戒",), form=Form.FORCED, roles=(RoleId.MAYOR,)),
    NightWord(
        "skip",
        "放弃行动",
        none_forms=(r"(?:放弃(?:行动|技能|夜晚行动)?|不行动|空过)",),
        form=Form.NOTHING,
        anyone=True,
        per_author=True,
        late_zh=_LATE,
    ),
)
