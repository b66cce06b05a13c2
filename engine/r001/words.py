"""The r001 family's night vocabulary (R001 §二.3–4, the R000 guardians): who writes what, where.

The bandits submit the kill in the 匪帮讨论组 with its parts (生死状, the ghost's 附体, the kill text 线文);
the police their check in the 警署讨论组; each guardian his protection by private message to the judge.
"""

from __future__ import annotations

from engine.actions import Check, Kill, Protect
from engine.roles import ActionKind, GroupId, RoleId
from engine.vocab import Form, NightWord

KILL = NightWord(
    ActionKind.KILL,
    "杀人",
    keywords=("杀人", "击杀", "刀人", "杀", "刀"),
    none_forms=(r"(?:空刀|不杀人?|不刀人?|今晚平安夜)",),
    group=GroupId.BANDITS,
    action=Kill,
    field="victim",
    late_zh="今晚平安夜",
    required=True,
)
PLEDGE = NightWord(
    "pledge",
    "生死状",
    keywords=("生死状",),
    form=Form.PLEDGE,
    group=GroupId.BANDITS,
    part_of=ActionKind.KILL,
    field="pledge",
    late_zh="今晚平安夜",
)
POSSESS = NightWord(
    "possess",
    "附体",
    keywords=("附体", "附身"),
    none_forms=(r"(?:不附体|不附身|放弃附体)",),
    group=GroupId.BANDITS,
    part_of=ActionKind.KILL,
    field="possess",
    late_zh="今晚平安夜",
)
KILL_TEXT = NightWord(
    "kill_text",
    "线文",
    keywords=("线文", "杀文"),
    form=Form.TEXT,
    group=GroupId.BANDITS,
    part_of=ActionKind.KILL,
    field="text",
    late_zh="今晚平安夜",
)
CHECK = NightWord(
    ActionKind.CHECK,
    "验人",
    keywords=("验人", "查验", "验证", "验", "查"),
    group=GroupId.POLICE,
    action=Check,
    late_zh="不予受理",
    required=True,
)
PROTECT = NightWord(
    ActionKind.PROTECT,
    "守护",
    keywords=("守护", "保护", "守"),
    none_forms=(r"(?:放弃守护|不守护|空守)",),
    roles=(RoleId.GUARDIAN, RoleId.POLICE_GUARDIAN, RoleId.BANDIT_GUARDIAN),
    action=Protect,
    actor="guardian",
    per_author=True,
    required=True,
)

R001_WORDS: tuple[NightWord, ...] = (KILL, PLEDGE, POSSESS, KILL_TEXT, CHECK, PROTECT)
