"""Substitutes (替补/顶替): another account takes over a role (a slot) in the middle of the game.

Why the slot, not the account: the engine's state, the votes already cast, the strikes and yellow cards,
the groups, the lovers and the hostages all name the role account of the roster (the game file's
``[players] roster``). A takeover keeps all of it: the engine keeps knowing the slot by its roster name,
and the desk translates at its edges:

- **what is read**: from the takeover instant, a post, vote or PM by the new account counts for the
  slot (its author is the slot); a vote or night action naming the new account names the slot; the old
  account's later posts are a non-player's («X（已被顶替）»), judged as such;
- **what is written**: from then on the drafts name the new account where they name the slot, and the
  slot's private messages go to the new account (:meth:`SubstituteSteps.with_accounts`, the runner's
  outbox items).

A takeover is entered by a judge (``forumbot substitute OLD NEW --at TIME``, :meth:`substitute`) or read
from a judge's post in the game's threads, one line::

    顶替：新账号 替换 旧账号          (also 替补：新账号 替换 旧账号; ：or : alike)

The post's time is the takeover instant. Each is stored as a judge's decision (who, when, why, the
post's pid) and is idempotent per post. R004 lets a role be substituted once (替补); R001/R000 say
nothing, so a chain (A → B → C) is allowed there (RuleSet.substitutions_per_role).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from engine import DiscussionPost, VotePost
from forumbot.desk.core import DeskCore
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.parsers.votes import name_matcher
from forumbot.store import records

SUBSTITUTE_DECISION = "substitute"
REPLACED = "{name}（已被顶替）"  # the old account's posts after the takeover: a non-player's

# «顶替：新账号 替换 旧账号» (a judge's post; one line of it)
_SUBSTITUTE_LINE = re.compile(
    r"^\s*[【\[]?(?:顶替|替补)[】\]]?\s*[:：]\s*@?(?P<new>[^\s:：]+)\s*(?:替换|顶替|代替|替)\s*@?(?P<old>[^\s:：，,。]+)"
)


class SubstituteRefused(UsageError):
    """A takeover the game does not allow (the reason, in Chinese, is the message)."""


@dataclass(frozen=True)
class Substitution:
    """``new`` plays ``slot`` (the roster's name) from ``at`` on, after ``old``."""

    slot: str
    old: str
    new: str
    at: datetime
    by: str
    why: str
    pid: int | None = None


def substitute_lines(text: str) -> list[tuple[str, str]]:
    """(new, old) for every «顶替：新 替换 旧» line of a judge's post."""
    out = []
    for line in (text or "").splitlines():
        m = _SUBSTITUTE_LINE.match(line)
        if m:
            out.append((m.group("new"), m.group("old")))
    return out


class SubstituteSteps(DeskCore):
    def substitutions(self) -> tuple[Substitution, ...]:
        """Every takeover of the game, in time order."""
        with self.store.session() as s:
            found = records.decisions_for(s, self.gid, SUBSTITUTE_DECISION)
        subs = [
            Substitution(
                str(d.detail["slot"]),
                str(d.detail["old"]),
                str(d.detail["new"]),
                datetime.fromisoformat(str(d.detail["at"])),
                d.by,
                d.why,
                d.detail.get("pid"),
            )
            for d in found
        ]
        return tuple(sorted(subs, key=lambda x: x.at))

    def account_of(
        self, slot: str, at: datetime | None = None, subs: Iterable[Substitution] | None = None
    ) -> str:
        """The account that plays ``slot`` at ``at`` (None: now, after every takeover)."""
        name = slot
        for x in subs if subs is not None else self.substitutions():
            if x.slot == slot and (at is None or x.at <= at):
                name = x.new
        return name

    def slot_of(self, account: str, at: datetime, subs: Iterable[Substitution] | None = None) -> str | None:
        """The slot ``account`` plays at ``at`` (None: it plays none then)."""
        known = tuple(subs if subs is not None else self.substitutions())
        for slot in self.game.roster:
            if self.account_of(slot, at, known) == account:
                return slot
        return None

    def posted_as(self, author: str, at: datetime, subs: Iterable[Substitution] | None = None) -> str:
        """The name the engine judges a post (vote, message) by ``author`` at ``at`` under: the slot
        for its account, «X（已被顶替）» for a replaced account, else the author."""
        known = tuple(subs if subs is not None else self.substitutions())
        if not known:
            return author
        slot = self.slot_of(author, at, known)
        if slot is not None:
            return slot
        if any(x.old == author and x.at <= at for x in known):
            return REPLACED.format(name=author)
        return author

    def substitute(
        self, old: str, new: str, at: datetime, *, why: str = "", pid: int | None = None
    ) -> Substitution:
        """``new`` takes over the slot ``old`` plays at ``at``. Raises SubstituteRefused (Chinese).

        Refused: an account that plays no slot then, a new account already in the game (a roster name,
        another slot's account, a judge), a slot out of the game, a second takeover of one role where
        the rules allow one (R004). Entered once per judge's post (``pid``)."""
        subs = self.substitutions()
        new, old = new.strip(), old.strip()
        if pid is not None:
            done = next((x for x in subs if x.pid == pid and (x.old, x.new) == (old, new)), None)
            if done is not None:
                return done
        slot = self.slot_of(old, at, subs)
        if slot is None:
            raise SubstituteRefused(
                _("{old} is not an account in the game at {at}: there is nothing to take over").format(
                    old=old, at=at.astimezone(self.game.tz).strftime("%m-%d %H:%M")
                )
            )
        if new == old:
            raise SubstituteRefused(_("the substitute's account is the account it replaces"))
        if new in self.game.judges:
            raise SubstituteRefused(
                _("{new} is a judge's account: it cannot take over a player").format(new=new)
            )
        if new in self.game.roster or any(self.account_of(s, None, subs) == new for s in self.game.roster):
            raise SubstituteRefused(
                _("{new} is already in the game: it cannot take over another role").format(new=new)
            )
        st = self.state()
        if st is not None and slot in {p.name for p in st.players} and not st.is_alive(slot):
            raise SubstituteRefused(_("{slot} is out: there is nothing to take over").format(slot=slot))
        limit = self.ruleset.substitutions_per_role
        if limit is not None and sum(1 for x in subs if x.slot == slot) >= limit:
            raise SubstituteRefused(
                _(
                    "each role may be substituted {limit} time(s) under these rules: {slot} was already"
                ).format(limit=limit, slot=slot)
            )
        sub = Substitution(slot, old, new, at, self.by, why or f"{new} 顶替 {old}", pid)
        with self.store.session() as s:
            records.add_decision(
                s,
                self.gid,
                SUBSTITUTE_DECISION,
                sub.why,
                self.by,
                pid=pid,
                detail={"slot": slot, "old": old, "new": new, "at": at.isoformat(), "pid": pid},
            )
            s.commit()
        self.refresh()  # every day judged from now on reads the posts under the new accounts
        return sub

    # ------------------------------------------------------------------ the edges

    def slots_in_votes(self, posts: tuple[VotePost, ...]) -> tuple[VotePost, ...]:
        """The vote thread with each post's author and target as the engine must judge them."""
        subs = self.substitutions()
        if not subs:
            return posts
        out = []
        for p in posts:
            b = p.ballot
            to_slot = {x.new: x.slot for x in subs if x.at <= p.at}
            target = to_slot.get(b.target, b.target) if b.target else b.target
            names = tuple(to_slot.get(n, n) for n in b.names)
            ballot = replace(b, target=target, names=names) if (target, names) != (b.target, b.names) else b
            out.append(replace(p, author=self.posted_as(p.author, p.at, subs), ballot=ballot))
        return tuple(out)

    def slots_in_discussion(self, posts: list[DiscussionPost]) -> list[DiscussionPost]:
        subs = self.substitutions()
        if not subs:
            return posts
        return [replace(p, author=self.posted_as(p.author, p.at, subs)) for p in posts]

    def vote_names(self) -> tuple[str, ...]:
        """The names the vote parser must recognise: the roster and every substitute's account."""
        return (*self.game.roster, *(x.new for x in self.substitutions()))

    def with_accounts(self, text: str, at: datetime) -> str:
        """A draft written at ``at`` naming each substituted slot by the account playing it then."""
        subs = [x for x in self.substitutions() if x.at <= at]
        if not subs:
            return text
        current = {x.slot: self.account_of(x.slot, at, subs) for x in subs}
        matcher = name_matcher(tuple(self.game.roster) + tuple(current.values()))
        out: list[str] = []
        i = 0
        while i < len(text):
            m = matcher.match_at(text, i)
            if m is None:
                out.append(text[i])
                i += 1
                continue
            name, end = m
            replaced = text.startswith(REPLACED.format(name=""), end)
            out.append(text[i:end] if replaced else current.get(name, text[i:end]))  # «X（已被顶替）» stays X
            i = end
        return "".join(out)
