"""The night messages' flags: what the rules leave open about reading night submissions (AMB-NM1…8).

Apart from :mod:`forumbot.nightmail` (which reads the messages and re-exports these names) because
every desk reads a game file's flags, while only the night's commands read messages: a day's
``tally`` then does not import the night-message parser (issue 12, start-up).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from forumbot.i18n import N_

__all__ = ["MAIL_FLAG_NAMES", "MailFlagError", "NightMailFlags", "mail_flags"]


# --- flags ----------------------------------------------------------------------------------------------


def _flag(default: Any, amb: str, doc: str, choices: tuple[str, ...] = ()) -> Any:
    """A flag field; ``doc`` is an English msgid (marked ``N_``) that ``forumbot flags`` shows translated."""
    meta: dict[str, Any] = {"amb": amb, "doc": doc}
    if choices:
        meta["choices"] = choices
    return field(default=default, metadata=meta)


class MailFlagError(ValueError):
    """A game file's ``[flags]`` sets a night-message flag to a value it does not take (``name``,
    ``value``, ``choices``: what it takes, ``true``/``false`` for a switch)."""

    def __init__(self, name: str, value: Any, choices: tuple[Any, ...]) -> None:
        self.name, self.value, self.choices = name, value, choices
        super().__init__(f"flag {name} = {value!r} is not one of {', '.join(map(str, choices))}")


@dataclass(frozen=True, slots=True)
class NightMailFlags:
    """What the rules leave open about reading night submissions (metadata: ``amb``, ``doc``, ``choices``,
    as in :class:`engine.flags_night.NightFlags`). A game file sets them in ``[flags]`` with the engine's
    flags (:func:`mail_flags`); ``forumbot flags`` lists them with the engine's."""

    night_group_conflict: str = _flag(
        "ambiguous",
        "AMB-NM1",
        N_(
            "Two members of one group (匪帮/杀手, 警署) submit different targets and the later one is not a "
            "correction (改刀 …): 'ambiguous' flags both for the judge and the slot stays empty until he "
            "decides (001 §二.3 “杀手之间经过沟通确定杀死一人”: the group has not decided yet); 'last' "
            "takes the later one; 'first' keeps the earlier one; 'leader' takes the group leader's (a "
            "group without one falls back to 'ambiguous'). A later message by the same member, or any "
            "member's correction, always replaces."
        ),
        ("ambiguous", "last", "first", "leader"),
    )
    night_group_actions_by_pm: bool = _flag(
        True,
        "AMB-NM2",
        N_(
            "A group's action (kill, check) sent by private message to the judge counts like one posted in "
            "the group's thread. 001 §二.3–4 says “提交在匪帮/警署讨论组中进行”; the game file chooses the "
            "channels, and a PM reaches the same judge. False: a PM gets wrong_channel."
        ),
    )
    night_solo_actions_in_group_thread: bool = _flag(
        False,
        "AMB-NM3",
        N_(
            "A single holder's skill (守护, 救治, 狙击 …) posted in a group thread instead of a PM to the "
            "judge: refused (wrong_channel) by default, because the thread is read by the other members "
            "and R004 asks for contact with the director (与导演取得联系)."
        ),
    )
    night_deadline_inclusive: bool = _flag(
        False,
        "AMB-NM4",
        N_(
            "Is a message at exactly the deadline on time? 001 §二.3 “下午5时前” (before 17:00): no, "
            "on time means t < deadline, as for votes (AMB-24)."
        ),
    )
    night_tentative: str = _flag(
        "ambiguous",
        "AMB-NM5",
        N_(
            "A keyword in the middle of a sentence or in a question (要不要杀烧卖? 我觉得可以验包子) in a "
            "group thread where members discuss: 'ambiguous' flags it for the judge; 'ignore' treats it "
            "as talk (not_a_submission); 'accept' takes it."
        ),
        ("ambiguous", "ignore", "accept"),
    )
    night_kill_parts_separately: bool = _flag(
        True,
        "AMB-NM6",
        N_(
            "The 生死状, 附体 and 线文 may come in a later message than the victim (each part replaces the "
            "same part only). 001 §五 asks for them “in the kill submission”; False: a message with a "
            "part but no victim is unreadable."
        ),
    )
    night_missing_pledge_review: bool = _flag(
        True,
        "AMB-NM7",
        N_(
            "In a game with a poison, a kill without a 生死状 is accepted (AMB-12 decides at resolution) "
            "but flagged so the judge can ask the bandits before the deadline; a judge's override accepting "
            "the kill message settles it."
        ),
    )
    night_resolve_early: bool = _flag(
        False,
        "AMB-NM8",
        N_(
            "Resolve the night before its deadline once every required submission is in. 001 §二.5 lets "
            "the judges answer “双方名单提交均完成后” (once both lists are in), but §二.3–4 give the groups "
            "until 17:00 and a group's last message before the deadline is its final word (改刀, "
            "AMB-NM1): resolving earlier would refuse a correction the deadline allows (【夜宵杀】 night "
            "1: the 16:20 kill, changed at 16:35). False: the night is resolved at its deadline. True "
            "(R001 grammar only): the runner resolves at the first poll where the kill (each living "
            "group's), the check and each living guardian's protection are accepted on time and nothing "
            "waits for the judge (no doubt, no 生死状 missing, no action typed by a judge, no last words "
            "awaited); a later message of that night is then late. R004 never resolves early: its skills "
            "are optional until the deadline (行动时限), so nobody's silence is final before it."
        ),
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            choices = f.metadata.get("choices")
            if choices and value not in choices:
                raise MailFlagError(f.name, value, tuple(choices))
            if isinstance(f.default, bool) and not isinstance(value, bool):
                raise MailFlagError(f.name, value, (True, False))

    @staticmethod
    def describe() -> list[tuple[str, Any, str, str]]:
        """(name, default, amb, doc) for every flag, in declaration order."""
        return [
            (f.name, f.default if f.default is not MISSING else None, f.metadata["amb"], f.metadata["doc"])
            for f in fields(NightMailFlags)
        ]

    @staticmethod
    def choices(name: str) -> tuple[Any, ...]:
        """The values flag ``name`` takes (``(True, False)`` for a switch)."""
        f = next(f for f in fields(NightMailFlags) if f.name == name)
        return tuple(f.metadata.get("choices", ())) or ((True, False) if isinstance(f.default, bool) else ())


#: The names of the night-message flags (a game file's ``[flags]`` holds them beside the engine's).
MAIL_FLAG_NAMES: frozenset[str] = frozenset(f.name for f in fields(NightMailFlags))


def mail_flags(settings: Mapping[str, Any]) -> NightMailFlags:
    """The night-message flags a game file's ``[flags]`` sets (other names are the engine's, left alone).

    Raises :class:`MailFlagError` for a value the flag does not take."""
    return NightMailFlags(**{k: v for k, v in settings.items() if k in MAIL_FLAG_NAMES})
