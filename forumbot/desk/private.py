"""The private messages of a resolution: who the engine says learns what, and the message each gets.

One desk operation for every face (issue 18): the runner sends these through the outbox, the web and the
CLI show them; none of them picks the recipients again. Every recipient the engine names is kept, the
dead included: a night's dead learn «今晚出局名单…你已出局，可以留下遗言», an R004 mayor out with 威权
learns that he must pass it. A group's message goes to its living members before or after the step: one
who died in this very step still gets it, one who joined in it (a possessed civilian) too.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import AudienceKind, Event, EventKind, GameState, GroupId
from forumbot.drafts import public_words


@dataclass(frozen=True)
class PrivateNote:
    """One player's private message of a resolution: his own events and his group's, in the engine's
    order. ``check_result``: it carries a police check result (the outbox files it as such)."""

    player: str
    check_result: bool
    texts: tuple[str, ...]
    body: str


def private_notes(
    events: tuple[Event, ...], before: GameState, after: GameState, header: str
) -> tuple[PrivateNote, ...]:
    """Each recipient's message (sorted by name), ``header`` as its first line.

    ``before`` / ``after``: the states the step began and ended with. A group's message goes to its
    living members of either (one who died in the step, one who joined in it: a possessed civilian)."""
    texts: dict[str, list[str]] = {}
    checks: set[str] = set()

    def give(name: str, e: Event) -> None:
        # A player reads the rule in words, never the id it has in the judges' register (issue 20).
        texts.setdefault(name, []).append(public_words(e.text))
        if e.kind is EventKind.CHECK_RESULT:
            checks.add(name)

    def members(group: GroupId) -> list[str]:
        out: list[str] = []
        for st in (before, after):
            alive = set(st.living())
            out += [n for n in st.group_members(group) if n in alive and n not in out]
        return out

    for e in events:
        if e.audience.kind is AudienceKind.PLAYER and e.audience.name:
            give(e.audience.name, e)
        elif e.audience.kind is AudienceKind.GROUP and e.audience.name:
            for name in members(GroupId(e.audience.name)):
                give(name, e)
    return tuple(
        PrivateNote(name, name in checks, tuple(lines), "\n".join([header, *lines]))
        for name, lines in sorted(texts.items())
    )


__all__ = ["PrivateNote", "private_notes"]
