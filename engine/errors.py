"""The errors the rules engine raises, and what a judge can do about each.

::

    EngineError                  base of every error the engine raises on purpose
    ├── IllegalActionError       a submission or judge action breaks a rule; ``rule`` names it,
    │                            ``refusal`` (:class:`Refusal`) says forbidden or void at resolution
    │   └── GameOverError        the game has already ended (``outcome`` says how)
    ├── UnknownRuleSetError      no rule set is registered under that name (lists the known ones)
    ├── SetupError               a roster or preset that cannot make a game (wrong size, duplicates)
    ├── PresetError              preset data (TOML text) that does not describe presets
    └── StateError               a state or serialised dict that is inconsistent or from elsewhere

Every message names the player, the night or day and the rule, in Chinese words a judge can act on,
e.g. ``第3夜：Amy 已被守护过，每位玩家只有一次被守护的机会（R000 守护规则3 / AMB-42）``.
The engine never prints, logs or retries.
"""

from __future__ import annotations

from enum import StrEnum


class Refusal(StrEnum):
    """Why the rules refuse a submission: what a caller does with it differs.

    ``FORBIDDEN``: it cannot be submitted at all (refused before the deadline, nothing recorded).
    ``VOID_AT_RESOLUTION``: it may be submitted and is recorded; the resolution judges it void (and,
    per the flags, used up) — e.g. a possession of the kill's own victim (AMB-08) or of a dead player
    (AMB-10). The players learn it only with the night's results, as the rules say.
    """

    FORBIDDEN = "forbidden"
    VOID_AT_RESOLUTION = "void_at_resolution"


class EngineError(Exception):
    """Base of every error the rules engine raises on purpose."""


class IllegalActionError(EngineError):
    """A submission (or a judge action) breaks a rule.

    ``rule`` is a short reference to the rule broken, e.g. ``"R000 守护规则1"`` or ``"AMB-10"``; it is
    also appended to the message in parentheses (``…（AMB-10）``) so a judge sees it when the message
    alone is shown, and a text for players drops it (forumbot.drafts.public_words). Messages are
    Chinese: they reach judges and, through the desk, players (issue 20). ``refusal`` says
    whether the rules forbid the submission or void it at resolution (:class:`Refusal`), so no caller
    keeps its own list of rule ids.
    """

    def __init__(self, message: str, *, rule: str = "", refusal: Refusal = Refusal.FORBIDDEN) -> None:
        self.rule = rule
        self.refusal = refusal
        super().__init__(f"{message}（{rule}）" if rule else message)


class GameOverError(IllegalActionError):
    """An action was submitted after the game ended."""


class UnknownRuleSetError(EngineError, LookupError):
    """No rule set is registered under the name asked for."""


class SetupError(EngineError, ValueError):
    """A roster, composition or preset choice that cannot make a game."""


class PresetError(EngineError, ValueError):
    """Preset data (the TOML text of data/rulesets/*.toml) that does not describe presets."""


class StateError(EngineError, ValueError):
    """A state (or a serialised state) that is inconsistent, or belongs to another version."""
