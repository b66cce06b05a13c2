"""What every part of the desk stands on: the game file, the store, the rule set and its flags, and the
versions of the secret state.

Why versions: the secret state (roles, who is out, the night counters) is the engine's, stored as JSON
after every step (``setup``, ``night N``, ``day N``); nothing is overwritten, so a judge can always show
how the game came to be where it is, and an undo is a record naming the version it cancels.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, cast

from engine import (
    EngineError,
    GameState,
    RuleSet,
    get_ruleset,
    state_from_dict,
    state_to_dict,
)
from forumbot.config import Game, read_flags
from forumbot.errors import GameFileError, UsageError
from forumbot.i18n import _
from forumbot.judgename import judge_name
from forumbot.parsers.votes import Grammar
from forumbot.store import records
from forumbot.store.db import Store
from forumbot.store.readpath import ThreadCache
from forumbot.store.records import StateVersion

if TYPE_CHECKING:
    from forumbot.desk.carry import DayCarry
    from forumbot.desk.dayjudgement import DayJudgement


def whoami(game: Game | None = None) -> str:
    """Who is at the desk (logged with every decision): forumbot/judgename.py's one rule, never the OS
    login (``root`` on a server names no judge)."""
    return judge_name(game)


class DeskCore:
    """One game's desk: the loaded game file, an open store, the rule set, and the state's versions."""

    def __init__(self, game: Game, store: Store, *, by: str | None = None) -> None:
        self.game = game
        self.store = store
        self.by = by or judge_name(game)
        store.create_tables()
        try:
            self.ruleset: RuleSet = get_ruleset(game.ruleset)
        except EngineError as exc:
            raise GameFileError(
                str(exc), field="game.ruleset", fix=_("use R001, R000-GP, R000-G1, R000-G2 or R004")
            ) from exc
        # the night messages' flags (forumbot/nightflags.py) and the engine's, read as the load did
        self.mail_flags, self.day_flags, self.night_flags = read_flags(game.flags, self.ruleset.flags)
        with store.session() as s:
            if store.read_only:
                # Nothing is written to a read-only store: a game it does not hold has no records
                # yet (id 0 matches none), and its first write says the store is read-only.
                self.gid = records.find_game(s, game.name, self.ruleset.id) or 0
            else:
                self.gid = records.ensure_game(s, game.name, self.ruleset.id).id or 0
                s.commit()
        if game.signup is not None and not game.roster:  # the players are the confirmed sign-up's
            from forumbot.desk.roster import signed_up_game

            self.game = signed_up_game(game, store, self.gid)
        # What this desk read and judged, each kept with what it was read or judged from and checked
        # against the store at each use (never stale, whoever wrote): the threads' posts by their
        # versions, the judged days and their carry-overs by their fingerprints (desk/carry.py).
        self.threads = ThreadCache(store)
        self._days: dict[int, tuple[str, DayJudgement]] = {}
        self._carries: dict[int, tuple[str, DayCarry]] = {}
        # The secret state's optimistic lock (records.bump_state_version): the version this desk last
        # read with the state, and the one a caller pinned (the web desk: the version the judge's page
        # showed). A step names the pinned one, else the one read, so a step decided on an older state
        # than the store's is refused instead of stored over the newer one.
        self.seen_version: int | None = None
        self.expected_version: int | None = None

    def refresh(self) -> None:
        """Forget what was read and judged (it is checked at each use anyway: this only frees it)."""
        self._days.clear()
        self._carries.clear()
        self.threads.clear()

    @property
    def grammar(self) -> Grammar:
        """The vote grammar of the game's rule set (forumbot/parsers/votes.py reads it)."""
        return cast(Grammar, self.ruleset.grammar)

    # ------------------------------------------------------------------ the secret state's versions

    def state(self) -> GameState | None:
        """The current secret state (the latest version not undone), or None before ``setup``."""
        with self.store.session() as s:
            self.seen_version = records.state_version(s, self.gid)
            if self.expected_version is not None and self.expected_version != self.seen_version:
                # the judge decided on a page showing an older state: say so before anything else
                raise records.stale_state(s, self.gid, self.game.tz)
            found = records.load_state(s, self.gid)
        return state_from_dict(found[1]) if found else None

    def current_version(self) -> int:
        """The game's state version in the store now (what a web page shows and posts back)."""
        with self.store.session() as s:
            return records.state_version(s, self.gid)

    def version_to_name(self) -> int:
        """The version a step names: the pinned one, else the one last read, else the store's now."""
        if self.expected_version is not None:
            return self.expected_version
        if self.seen_version is not None:
            return self.seen_version
        self.seen_version = self.current_version()
        return self.seen_version

    def require_state(self) -> GameState:
        st = self.state()
        if st is None:
            raise UsageError(_("no roles are stored for this game yet: run `forumbot setup` first"))
        return st

    def save_state(self, label: str, state: GameState) -> int:
        """Store ``state`` as a new version labelled by the step that made it; returns its id.

        Raises StaleChange (nothing stored) when the store's version is no longer the one this desk read
        (or was pinned to): another judge changed the state since."""
        seen = self.version_to_name()
        with self.store.session() as s:
            new = records.bump_state_version(s, self.gid, seen, self.game.tz)
            vid = records.save_state(s, self.gid, label, state_to_dict(state), self.by)
            s.commit()
        self.seen_version, self.expected_version = new, None
        return vid

    def history(self) -> list[StateVersion]:
        """Every stored version, oldest first, undone ones included (marked)."""
        with self.store.session() as s:
            return records.state_history(s, self.gid)

    def live_history(self) -> list[StateVersion]:
        """The versions that count: those no undo cancelled."""
        return [v for v in self.history() if v.live]

    def state_labelled(self, label: str) -> GameState | None:
        """The latest live version made by step ``label`` (e.g. ``night 2``)."""
        wanted = [v.id for v in self.live_history() if v.label == label]
        if not wanted:
            return None
        with self.store.session() as s:
            found = records.load_state_by_id(s, wanted[-1])
        return state_from_dict(found) if found is not None else None

    def state_before_night(self, n: int) -> GameState | None:
        """The state night ``n`` started from (night 1: the setup)."""
        if n == 1:
            setups = [v.label for v in self.live_history() if v.label.startswith("setup")]
            return self.state_labelled(setups[-1]) if setups else None
        return self.state_labelled(f"day {n - 1}")

    def resolved_at(self, label: str) -> datetime | None:
        """When the latest live version made by step ``label`` was stored."""
        found = [v.at for v in self.live_history() if v.label == label]
        return found[-1] if found else None
