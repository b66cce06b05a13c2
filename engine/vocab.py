"""A rule set's night vocabulary: every kind of night statement its players write, and what it means.

Each :class:`NightWord` carries, for one kind, everything the faces need so that none keeps its own table:

* ``kind`` — the engine's name of the kind (``"kill"``, ``"check"`` …; the same string as the action's
  ``ActionKind`` when the kind is an engine action), used in JSON, the store and every face;
* ``name_zh`` — the rules' Chinese word (the judge's label);
* ``keywords`` / ``none_forms`` — how a message writes it (杀/刀, 验/查 …; 空刀 on a line of its own);
* ``form`` — what follows the keyword (one name, two, an order, free text, a 生死状 sentence, nothing);
* who submits it — ``group`` (the group's members) or ``roles`` (their holders) or ``anyone``;
* where — a group's kind goes in the group's private thread, a role's kind by PM to the judge
  (:attr:`NightWord.where`);
* ``targets`` (from ``form``), ``due`` (its cutoff: the night's deadline), ``late_zh`` (what a late one
  means), ``required`` (the night waits for it: an early resolution needs it in);
* how it becomes an engine action — ``action`` (the class) and ``field`` / ``actor``, or ``part_of``
  for a part of another kind's action (生死状, 附体 and 线文 are fields of the kill);
* ``armed`` — the generic "on death, the role may act" hook: the submission is kept in the state
  (``GameState.armed``) and the rule set resolves it when its holder goes out
  (:meth:`engine.ruleset.RuleSet.resolve_armed`), see :func:`engine.lastacts.fire_armed`.

A rule set lists its words in ``RuleSet.night_words``; a variant adds one by extending the tuple. Data and
pure functions only: forumbot's message reader, its night verdicts, the runner and the web read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.roles import GroupId, RoleId


class Form(StrEnum):
    """What a keyword takes."""

    TARGET = "target"  # one player's name
    PAIR = "pair"  # exactly two names (丘比特之箭)
    ORDER = "order"  # any number of names, or none (撕票's order)
    TEXT = "text"  # free text: the rest of the line and the lines after it (线文)
    PLEDGE = "pledge"  # one name, also written as a whole sentence (X与毒药同死)
    FORCED = "forced"  # a forced skill: nothing to submit (警戒); read only to say so
    NOTHING = "nothing"  # only its explicit nothing counts (放弃行动)


class Where(StrEnum):
    """Where a kind is submitted (a flag may allow the other place too)."""

    GROUP_THREAD = "group_thread"  # the acting group's private thread
    PM = "pm"  # a private message to the judge


_TARGETS: dict[Form, int | None] = {
    Form.TARGET: 1,
    Form.PAIR: 2,
    Form.ORDER: None,
    Form.TEXT: 0,
    Form.PLEDGE: 1,
    Form.FORCED: 0,
    Form.NOTHING: 0,
}


@dataclass(frozen=True, slots=True)
class NightWord:
    """One kind of night statement of a rule set (see the module doc)."""

    kind: str
    name_zh: str
    keywords: tuple[str, ...] = ()
    none_forms: tuple[str, ...] = ()  # regular expressions: an explicit nothing on a line of its own
    form: Form = Form.TARGET
    group: GroupId | None = None
    roles: tuple[RoleId, ...] = ()
    anyone: bool = False
    action: type[Any] | None = None
    field: str = "target"  # the action's field this word fills (the kill: "victim")
    actor: str = "by"  # the action's field naming who submitted it (a guardian's 守护: "guardian")
    part_of: str = ""  # the kind whose action this word is a part of ("kill" for 生死状)
    slot: str = ""  # a slot shared with other kinds (绑架 and 撕票: "kidnapper"); default: the kind
    per_author: bool = False  # one slot per submitter (each guardian's protection)
    late_zh: str = "视为未提交"
    due: str = "night_deadline"
    required: bool = False
    armed: bool = False

    @property
    def where(self) -> Where:
        return Where.GROUP_THREAD if self.group is not None else Where.PM

    @property
    def targets(self) -> int | None:
        """How many names it takes (None: any number)."""
        return _TARGETS[self.form]

    @property
    def may_be_none(self) -> bool:
        """Its explicit nothing (空刀, 不附体, 放弃守护) is a submission of its own."""
        return bool(self.none_forms) and self.form is not Form.NOTHING

    def slot_of(self, author: str) -> tuple[str, ...]:
        """The slot a submission of this word fills (a later one in the same slot replaces it)."""
        base = self.part_of or self.slot or self.kind
        return (base, author) if self.per_author else (base,)

    def build(self, author: str, targets: tuple[str, ...], *, none: bool = False) -> Any:
        """The engine action this word makes on its own (None for a part or a word without action)."""
        if self.action is None or self.part_of:
            return None
        if self.form is Form.PAIR:
            return self.action(targets[0], targets[1], **{self.actor: author})
        if self.form is Form.ORDER:
            return self.action(tuple(targets) or None, **{self.actor: author})
        target = None if none or not targets else targets[0]
        return self.action(**{self.field: target, self.actor: author})


def words_by_kind(words: tuple[NightWord, ...]) -> dict[str, NightWord]:
    return {w.kind: w for w in words}
