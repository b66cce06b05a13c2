"""Undo: step the secret state back one version.

Nothing is deleted: an undo is a record in the store that names the version it cancels and the one the
game is back at (``state_undos``), so ``state --history`` shows both and a later step builds on the
restored version.
"""

from __future__ import annotations

from forumbot.desk.core import DeskCore
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.store import records


class UndoSteps(DeskCore):
    def undo(self) -> tuple[str, str]:
        """Cancel the latest live version (a night resolved, a day closed, a setup).

        Returns (what was undone, what is current now). Raises UsageError at the first version, and
        StaleChange when the state changed after this desk read it (the judge would undo another step
        than the one seen).
        """
        seen = self.version_to_name()  # before the history: a change after it is then refused
        with self.store.session() as s:
            if records.state_version(s, self.gid) != seen:  # decided on an older state: say who moved it
                raise records.stale_state(s, self.gid, self.game.tz)
        live = self.live_history()
        if len(live) < 2:
            raise UsageError(_("nothing to undo: the game is at its first stored state (or has none)"))
        last, prev = live[-1], live[-2]
        with self.store.session() as s:
            new = records.bump_state_version(s, self.gid, seen, self.game.tz)
            records.record_undo(s, self.gid, last.id, prev.id, self.by)
            s.commit()
        self.seen_version, self.expected_version = new, None
        self.refresh()
        return last.label, prev.label
