"""Night actions (submissions) and the night they belong to.

Each action is a small frozen dataclass. A group's action (the killers' :class:`Kill`, the police's
:class:`Check`) may name the member who posted it in ``by``; a single-holder role's action needs no
actor (the engine knows who holds the role), but ``by`` is checked when given.

A :class:`Night` collects the :class:`Submission` s of one round: an action plus ``late`` (submitted
after the deadline — the caller compares times; the engine has no clock). Late submissions are kept
so the resolution can say what was forfeited (今晚平安夜, 不予受理, 视为放弃).

:func:`action_to_dict` / :func:`action_from_dict` and :func:`night_to_dict` / :func:`night_from_dict`
give JSON-able dicts for the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, ClassVar

from engine.errors import StateError
from engine.roles import ActionKind


@dataclass(frozen=True, slots=True)
class Kill:
    """The bandits'/killers' joint victim.

    R001/R000-GP also carry the pledge (生死状: the bandit who dies with the poison), an optional
    possession target (附体, the ghost's) and the kill text (线文). ``victim=None`` with a possession is a
    deliberate possession-only night (AMB-18).
    """

    kind: ClassVar[ActionKind] = ActionKind.KILL
    victim: str | None
    pledge: str | None = None
    possess: str | None = None
    text: str = ""
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Check:
    """The police's check (验人 / 查验)."""

    kind: ClassVar[ActionKind] = ActionKind.CHECK
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Protect:
    """A guardian's protection (守护); ``target=None`` is a declared skip (放弃守护)."""

    kind: ClassVar[ActionKind] = ActionKind.PROTECT
    guardian: str
    target: str | None


@dataclass(frozen=True, slots=True)
class Snipe:
    kind: ClassVar[ActionKind] = ActionKind.SNIPE
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Fireworks:
    kind: ClassVar[ActionKind] = ActionKind.FIREWORKS
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Spy:
    kind: ClassVar[ActionKind] = ActionKind.SPY
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Kidnap:
    kind: ClassVar[ActionKind] = ActionKind.KIDNAP
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class KillHostages:
    """撕票: kill every earlier kidnapped role that is not out, in ``order`` (default per AMB-69)."""

    kind: ClassVar[ActionKind] = ActionKind.KILL_HOSTAGES
    order: tuple[str, ...] | None = None
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Heal:
    kind: ClassVar[ActionKind] = ActionKind.HEAL
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Hug:
    kind: ClassVar[ActionKind] = ActionKind.HUG
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Assassinate:
    kind: ClassVar[ActionKind] = ActionKind.ASSASSINATE
    target: str
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Arrow:
    """丘比特之箭: make ``first`` and ``second`` lovers."""

    kind: ClassVar[ActionKind] = ActionKind.ARROW
    first: str
    second: str
    by: str | None = None


NightAction = (
    Kill
    | Check
    | Protect
    | Snipe
    | Fireworks
    | Spy
    | Kidnap
    | KillHostages
    | Heal
    | Hug
    | Assassinate
    | Arrow
)


@dataclass(frozen=True, slots=True)
class ActionKindSpec:
    """One row of the table of night action kinds: the class and how a judge names its fields."""

    kind: ActionKind
    cls: type[Any]
    single_target: bool  # built as cls(target, by=...): one name, nothing else
    name_zh: str


_ACTION_KINDS: dict[ActionKind, ActionKindSpec] = {
    spec.kind: spec
    for spec in (
        ActionKindSpec(ActionKind.KILL, Kill, False, "杀人"),
        ActionKindSpec(ActionKind.CHECK, Check, True, "验人"),
        ActionKindSpec(ActionKind.PROTECT, Protect, False, "守护"),
        ActionKindSpec(ActionKind.SNIPE, Snipe, True, "狙击"),
        ActionKindSpec(ActionKind.FIREWORKS, Fireworks, True, "放烟花"),
        ActionKindSpec(ActionKind.SPY, Spy, True, "潜伏"),
        ActionKindSpec(ActionKind.KIDNAP, Kidnap, True, "绑架"),
        ActionKindSpec(ActionKind.KILL_HOSTAGES, KillHostages, False, "撕票"),
        ActionKindSpec(ActionKind.HEAL, Heal, True, "救治"),
        ActionKindSpec(ActionKind.HUG, Hug, True, "拥抱"),
        ActionKindSpec(ActionKind.ASSASSINATE, Assassinate, True, "暗杀"),
        ActionKindSpec(ActionKind.ARROW, Arrow, False, "丘比特之箭"),
    )
}
_BUILT_IN = frozenset(_ACTION_KINDS)
#: The one table of night action kinds (kind → class), in the order a judge's menu lists them. A
#: variant's own kinds join it when its rule set is registered (its night words name their class).
ACTION_KINDS: Mapping[ActionKind, ActionKindSpec] = MappingProxyType(_ACTION_KINDS)


def register_action_kind(spec: ActionKindSpec) -> None:
    """Add a variant's action kind (``engine.register`` does it for a rule set's night words)."""
    old = _ACTION_KINDS.get(spec.kind)
    if old is not None:
        if old.cls is not spec.cls:
            raise ValueError(f"night action kind {spec.kind.value!r} already belongs to {old.cls.__name__}")
        return  # a kind already known (a built-in one a variant's words name again) keeps its row
    _ACTION_KINDS[spec.kind] = spec


def unregister_action_kind(kind: str) -> None:
    """Remove a kind :func:`register_action_kind` added (a built-in one stays)."""
    if kind in _BUILT_IN:
        return
    # the ActionKind member stays (an action class holds it; registering again finds the same one)
    _ACTION_KINDS.pop(ActionKind(kind), None)


def slot_of(action: NightAction) -> tuple[str, ...]:
    """Submissions in the same slot replace each other: one kill, one check, one protection per guardian…"""
    if isinstance(action, Protect):
        return (action.kind.value, action.guardian)
    return (action.kind.value,)


@dataclass(frozen=True, slots=True)
class Submission:
    action: NightAction
    late: bool = False


@dataclass(frozen=True, slots=True)
class Night:
    """The submissions of night ``round``, in the order received (later ones in a slot win)."""

    round: int
    submissions: tuple[Submission, ...] = ()

    def with_submission(self, sub: Submission) -> Night:
        """Replace the slot's earlier submission; a late one never replaces an on-time one."""
        slot = slot_of(sub.action)
        kept: list[Submission] = []
        for old in self.submissions:
            if slot_of(old.action) == slot:
                if sub.late and not old.late:
                    return self
                continue
            kept.append(old)
        kept.append(sub)
        return Night(self.round, tuple(kept))

    def get(self, kind: ActionKind, guardian: str | None = None) -> Submission | None:
        for sub in self.submissions:
            if sub.action.kind is kind and (
                guardian is None or getattr(sub.action, "guardian", None) == guardian
            ):
                return sub
        return None

    def on_time(self, kind: ActionKind) -> NightAction | None:
        sub = self.get(kind)
        return sub.action if sub is not None and not sub.late else None


# ---- serialisation ---------------------------------------------------------------------------------


def action_to_dict(action: NightAction) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": action.kind.value}
    for f in fields(action):
        value = getattr(action, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def action_from_dict(data: Mapping[str, Any]) -> NightAction:
    try:
        cls = ACTION_KINDS[ActionKind(data["kind"])].cls
    except (KeyError, ValueError):
        raise StateError(f"not a night action: {dict(data)!r}") from None
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in data:
            value = data[f.name]
            kwargs[f.name] = tuple(value) if isinstance(value, list) else value
    try:
        action: NightAction = cls(**kwargs)
    except TypeError as exc:
        raise StateError(f"bad {cls.__name__} dict {dict(data)!r}: {exc}") from None
    return action


def submission_to_dict(sub: Submission) -> dict[str, Any]:
    return {"action": action_to_dict(sub.action), "late": sub.late}


def submission_from_dict(data: Mapping[str, Any]) -> Submission:
    return Submission(action_from_dict(data["action"]), bool(data.get("late", False)))


def night_to_dict(night: Night) -> dict[str, Any]:
    return {"round": night.round, "submissions": [submission_to_dict(s) for s in night.submissions]}


def night_from_dict(data: Mapping[str, Any]) -> Night:
    return Night(int(data["round"]), tuple(submission_from_dict(s) for s in data.get("submissions", ())))
