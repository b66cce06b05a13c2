"""Last words (遗言) at the desk: who may leave them after day ``n``, whether they were posted, and when the
items held for them (R001: the night's check result and case post; R004: the day-start post) go out.

R001 (§四.5.3, AMB-31): the executed police officer's words are his first post in the day's discussion
thread (or the next day's, when the game file names another) after the day's close, read from the
store; they are due by the next night's deadline (``[[days]] night_deadline``). R004: the words are
submitted to the director, so the judges give the moment each arrived (``received``); they are due when
the next discussion day opens (``[[days]] opens`` of day n+1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from engine import GameState, HeldRelease, LastWordsWindow, held_until, last_words_windows
from forumbot.desk.core import DeskCore
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.store import posts


@dataclass(frozen=True)
class LastWordsReport:
    """Day ``day``'s last words at moment ``at``: the windows, when each was posted (pid for R001), the
    release of what they hold, and notes for the judges (Chinese)."""

    day: int
    at: datetime
    windows: tuple[LastWordsWindow, ...]
    posted: Mapping[str, datetime]
    pids: Mapping[str, int]
    held: HeldRelease
    notes: tuple[str, ...]


class LastWordsSteps(DeskCore):
    def last_words_due(self, n: int) -> datetime:
        """When the last words owed after day ``n`` are due: R001 the next night's deadline (AMB-31),
        R004 the opening of discussion day ``n + 1``. Raises UsageError when the game file lacks it."""
        if self.ruleset.last_words_due == "next_day_opens":
            nxt = next((d for d in self.game.days if d.day == n + 1), None)
            if nxt is None:
                raise UsageError(
                    _(
                        "R004 last words are due when discussion day {day} opens: add day {day} (its "
                        "opens) to the game file"
                    ).format(day=n + 1)
                )
            return nxt.opens
        return self.game.day(n).night_deadline

    def last_words_owed(self, n: int) -> tuple[LastWordsWindow, ...]:
        """The windows owed after day ``n`` as the store stands (no read of the board): empty while the
        day (R004: or night 1, for ``n = 0``) is not closed, or when nobody owes words. The runner plans
        a moment at their deadline from this."""
        try:
            return last_words_windows(self._state_for_last_words(n), self.last_words_due(n))
        except UsageError:
            return ()

    def last_words(
        self, n: int, at: datetime, *, received: Mapping[str, datetime] | None = None
    ) -> LastWordsReport:
        """Last words owed after day ``n`` closed, as things stand at ``at`` (see the module doc).

        R004: the roles out at day ``n``'s close and in night ``n + 1`` (``n = 0``: night 1), whose words
        are due when discussion day ``n + 1`` opens."""
        state = self._state_for_last_words(n)
        if self.ruleset.last_words_due == "next_day_opens":
            windows = last_words_windows(state, self.last_words_due(n))
            given = dict(received or {})
            unknown = sorted(set(given) - {w.player for w in windows})
            refused = tuple(
                f"{name} 没有遗言权利（或不在本日出局名单中），其遗言不予公示" for name in unknown
            )
            return LastWordsReport(
                n, at, windows, given, {}, held_until(windows, given, at, display_tz=self.game.tz), refused
            )
        day = self.game.day(n)
        windows = last_words_windows(state, self.last_words_due(n))
        found: dict[str, datetime] = {}
        pids: dict[str, int] = {}
        notes: list[str] = []
        tids = [day.discussion_tid] + [d.discussion_tid for d in self.game.days if d.day == n + 1]
        for w in windows:
            mine = [
                p
                for tid in dict.fromkeys(t for t in tids if t is not None)
                for p in posts.thread_posts(self.store, self.game.board, tid)
                if p.author == w.player and not p.first and p.posted_at >= day.closes
            ]
            mine.sort(key=lambda p: (p.posted_at, p.pid))
            if not mine:
                continue
            first = mine[0]
            found[w.player], pids[w.player] = first.posted_at, first.pid
            if first.posted_at <= w.due < first.posted_until:
                notes.append(f"{w.player} 的遗言发帖时间不精确（可能晚于截止），按最早时间计，请法官确认")
            if len(first.revisions) > 1:
                notes.append(
                    f"{w.player} 的遗言（pid {first.pid}）发布后被编辑过（遗言不得编辑），请法官确认"
                )
            if len(mine) > 1:
                notes.append(
                    f"{w.player} 在遗言之后又发了 {len(mine) - 1} 帖（只有一次发言机会），请法官确认"
                )
        return LastWordsReport(
            n, at, windows, found, pids, held_until(windows, found, at, display_tz=self.game.tz), tuple(notes)
        )

    def _state_for_last_words(self, n: int) -> GameState:
        """R001: the state after day n closed. R004: after night n+1 if resolved, else after day n."""
        after_night = (
            self.state_labelled(f"night {n + 1}") if self.ruleset.last_words_due == "next_day_opens" else None
        )
        state = after_night or self.state_labelled(f"day {n}")
        if state is None:
            if n == 0:
                raise UsageError(
                    _("night 1 is not resolved yet: run `forumbot night resolve --night 1` first")
                )
            raise UsageError(
                _("day {day} is not closed yet: run `forumbot close --day {day}` first").format(day=n)
            )
        return state
