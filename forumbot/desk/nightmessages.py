"""A night's messages and the judges' overrides of single messages.

The runner reads each night's messages from the board at the deadline (the groups' private threads and
the judge's PMs), keeps them (:meth:`NightMessageSteps.record_night_messages`) and judges them with
:meth:`NightMessageSteps.night_mail`: :func:`forumbot.nightmail.judge_night` with the game's flags, the
judges' accounts and every override that counts. So a doubtful message that stops the night is settled
by one override, and the runner's next tick resolves the night with it; ``forumbot night messages`` and
the web desk's night page show the same verdicts.

An override says what one message is (``accept``: read as the actions the judge gives, judged by the
same rules; ``ignore``: struck out), with who and why, and is kept for good; an undo is a row naming the
override it cancels (the message's earlier override, if any, counts again). A resolved night is not
corrected in place: the resolution already used the old verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from engine import Form, GameState, GroupId, Phase, RuleSet, action_to_dict
from forumbot.desk.day import DaySteps
from forumbot.desk.night import NightSteps
from forumbot.errors import UsageError
from forumbot.i18n import N_, _
from forumbot.labels import phase_label
from forumbot.parsers.nightmsg import NightStatement
from forumbot.store import nightmessages as repo
from forumbot.store import records
from forumbot.store.nightmessages import NightMessageRecord, NightOverrideRecord

if TYPE_CHECKING:  # imported where used: a day's desk does not load the night-message reader
    from forumbot.nightmail import NightMail, NightMessage, NightOverride, NightVerdict

#: What a judge may say a message is (``forumbot night override --as``).
NIGHT_OVERRIDE_VERDICTS = ("accept", "ignore")


def night_override_kinds(ruleset: RuleSet) -> tuple[str, ...]:
    """What a message may be accepted as (``--kind``): every kind of the rule set's night vocabulary
    but a forced skill (警戒: nothing to submit)."""
    return tuple(w.kind for w in ruleset.night_words if w.form is not Form.FORCED)


#: The reason kept with each submission stored from the night's messages (the runner's, at the deadline):
#: it tells the desk which stored rows a later override of a message re-reads.
FROM_MESSAGES = N_("read from the night's messages")  # stored as is (English), shown translated


@dataclass(frozen=True)
class NightOverrideDone:
    """What an override (or its undo) did: the stored row, the message's verdict now, and a warning
    (Chinese first, through the catalogs) when the verdict no longer reaches the night's submissions."""

    record: NightOverrideRecord
    verdict: NightVerdict
    warning: str = ""
    reread: str = ""  # what the override changed in the stored submissions read from the messages


def override_from_record(r: NightOverrideRecord) -> NightOverride:
    """The stored row as :mod:`forumbot.nightmail` applies it."""
    from forumbot.nightmail import NightOverride

    if r.verdict == "ignore":
        return NightOverride(r.message_id, r.why, r.by, r.at, strike=True, waive_time=r.waive_time)
    statements = tuple(
        NightStatement(
            str(d["kind"]),
            tuple(d.get("targets", ())),
            none=bool(d.get("none", False)),
            text=str(d.get("text", "")),
        )
        for d in r.statements
    )
    return NightOverride(
        r.message_id, r.why, r.by, r.at, statements=statements, waive_time=r.waive_time, actor=r.actor
    )


def _to_message(r: NightMessageRecord) -> NightMessage:
    from forumbot.nightmail import NightChannel, NightMessage

    group = GroupId(r.group) if r.group else None
    return NightMessage(r.message_id, NightChannel(r.channel), r.author, r.at, r.text, r.until, group)


def _to_record(m: NightMessage) -> NightMessageRecord:
    return NightMessageRecord(
        m.id, m.channel.value, m.author, m.at, m.text, m.until, m.group.value if m.group else None
    )


class NightMessageSteps(NightSteps, DaySteps):
    # ------------------------------------------------------------------ the messages

    def record_night_messages(self, n: int, messages: Sequence[NightMessage]) -> int:
        """Keep night ``n``'s messages as read (each once; a changed one again). Returns rows added."""
        with self.store.session() as s:
            added = repo.record_night_messages(s, self.gid, n, [_to_record(m) for m in messages])
            s.commit()
        return added

    def stored_night_messages(self, n: int) -> list[NightMessage]:
        """Night ``n``'s messages as the runner last read them (empty before its deadline's read)."""
        with self.store.session() as s:
            return [_to_message(r) for r in repo.stored_night_messages(s, self.gid, n)]

    def night_override_records(self, n: int) -> dict[str, NightOverrideRecord]:
        """The override that counts for each message of night ``n`` (by message id)."""
        with self.store.session() as s:
            return repo.live_night_overrides(s, self.gid, n)

    def night_overrides(self, n: int) -> list[NightOverride]:
        return [override_from_record(r) for r in self.night_override_records(n).values()]

    def night_override_history(self, n: int | None = None) -> list[NightOverrideRecord]:
        """Every override and undo (of night ``n``, or of the game), oldest first."""
        with self.store.session() as s:
            return repo.night_override_history(s, self.gid, n)

    def night_state(self, n: int) -> GameState:
        """The state night ``n``'s messages are judged against: the one it began from once it is
        resolved, else the current state, which must be night ``n``."""
        if self.state_labelled(f"night {n}") is not None:
            before = self.state_before_night(n)
            if before is not None:
                return before
        st = self.require_state()
        if st.phase is not Phase.NIGHT or st.round != n:
            raise UsageError(
                _("the game is at {where}, not night {night}").format(
                    where=phase_label(st.phase.value, st.round), night=n
                )
            )
        return st

    def night_mail(
        self,
        n: int,
        messages: Sequence[NightMessage] | None = None,
        *,
        state: GameState | None = None,
        deadline: datetime | None = None,
        opens_at: datetime | None = None,
    ) -> NightMail:
        """Every message of night ``n`` judged (stored ones unless ``messages`` are given), with the
        game's night-message flags, the judges' accounts and every override that counts; against the
        night's deadline, or ``deadline`` (the runner's cut when it resolves the night early). The
        window opens at the day's opening, or ``opens_at`` (the R001 police's extra check: its window
        opens when their check result is sent)."""
        from forumbot.nightmail import judge_night

        opens = opens_at or (self.game.day(n - 1).opens if n > 1 else None)
        return judge_night(
            state if state is not None else self.night_state(n),
            self.stored_night_messages(n) if messages is None else messages,
            deadline=deadline or self.night_deadline(n),
            opens_at=opens,
            flags=self.mail_flags,
            overrides=self.night_overrides(n),
            judges=self.game.judges,
        )

    def night_of_message(self, message_id: str) -> int:
        """The night a stored message belongs to; UsageError when no such message was read."""
        with self.store.session() as s:
            n = repo.night_of_message(s, self.gid, message_id)
        if n is None:
            raise UsageError(
                _(
                    "no night message {id} is stored: the runner keeps each night's messages when it reads "
                    "them at the deadline (`forumbot tick`); `forumbot night messages --night N` lists them"
                ).format(id=message_id)
            )
        return n

    def night_listing(self, n: int) -> NightListing:
        """Night ``n``'s stored messages, each with its verdict and the override that counts."""
        messages = self.stored_night_messages(n)
        resolved = self.state_labelled(f"night {n}") is not None
        if not messages:  # nothing read yet: nothing to judge (and no state needed)
            return NightListing(n, self.night_deadline(n), resolved, (), (), ())
        records_ = self.night_override_records(n)
        mail = self.night_mail(n, messages)
        by_id = {m.id: m for m in messages}
        lines = tuple(
            NightMessageLine(by_id[v.message_id], v, records_.get(v.message_id)) for v in mail.verdicts
        )
        return NightListing(n, self.night_deadline(n), resolved, lines, mail.open, mail.notes)

    # ------------------------------------------------------------------ the judges' overrides

    def _open_night(self, message_id: str, night: int | None) -> int:
        n = self.night_of_message(message_id)
        if night is not None and night != n:
            raise UsageError(
                _("message {id} belongs to night {n}, not night {night}").format(
                    id=message_id, n=n, night=night
                )
            )
        if self.state_labelled(f"night {n}") is not None:
            raise UsageError(
                _(
                    "night {n} is resolved and its messages cannot be corrected any more (the resolution "
                    "used the old verdicts): `forumbot undo` the resolution, enter the corrected action with "
                    "`forumbot night submit`, then `forumbot night resolve`"
                ).format(n=n)
            )
        return n

    def _statements(
        self,
        kind: str | None,
        targets: Sequence[str],
        *,
        none: bool,
        pledge: str | None,
        possess: str | None,
        text: str | None,
    ) -> list[dict[str, Any]]:
        """The judge's reading of a message as JSON statements, checked for form (the rules are checked
        when the night is judged, as for any message)."""
        kinds = night_override_kinds(self.ruleset)
        if not kind:
            raise UsageError(_("--as accept needs --kind (one of {kinds})").format(kinds=", ".join(kinds)))
        if kind not in kinds:
            raise UsageError(
                _("unknown night action {kind!r} (one of {kinds})").format(kind=kind, kinds=", ".join(kinds))
            )
        word = self.ruleset.night_word(kind)
        for name in (*targets, pledge, possess):
            if name and name not in self.game.roster:
                raise UsageError(_("{name!r} is not in the roster (names match exactly)").format(name=name))
        parts = {w.field: w for w in self.ruleset.night_words if w.part_of == kind}
        if (pledge and "pledge" not in parts) or (possess and "possess" not in parts):
            raise UsageError(_("--pledge and --possess go with --kind kill"))
        n_targets = len(targets)
        if none and not word.may_be_none:
            may = ", ".join(w.kind for w in self.ruleset.night_words if w.may_be_none)
            raise UsageError(_("--none goes with --kind {kinds}").format(kinds=may))
        wanted = 0 if word.form in (Form.NOTHING, Form.TEXT) or none else word.targets
        if wanted is not None and n_targets != wanted:
            raise UsageError(
                _("--kind {kind} takes {n} target(s), not {given}").format(
                    kind=kind, n=wanted, given=n_targets
                )
                + (_(" (--none for no target)") if word.may_be_none and not none else "")
            )
        if word.form is Form.TEXT and not (text or "").strip():
            raise UsageError(_("--kind {kind} needs --text").format(kind=kind))
        out: list[dict[str, Any]] = [
            {"kind": kind, "targets": list(targets), "none": none, "text": text or ""}
        ]
        if pledge:
            out.append({"kind": parts["pledge"].kind, "targets": [pledge], "none": False, "text": ""})
        if possess:
            out.append({"kind": parts["possess"].kind, "targets": [possess], "none": False, "text": ""})
        texts = [w for w in parts.values() if w.form is Form.TEXT]
        if text and texts:
            out.append({"kind": texts[0].kind, "targets": [], "none": False, "text": text})
        return out

    # ------------------------------------------------------------------ the messages' submissions

    def _mail_times(
        self, n: int, mail: NightMail, deadline: datetime
    ) -> list[tuple[dict[str, Any], datetime]]:
        """Each of the mail's accepted submissions with the time it is stored at: its latest message's
        (a late one just after the deadline when no message carries it)."""
        out = []
        for sub in mail.night.submissions:
            times = [v.at for v in mail.verdicts for a in v.actions if a == sub.action]
            at = max(times) if times else (deadline + timedelta(seconds=1) if sub.late else deadline)
            out.append((action_to_dict(sub.action), at))
        return out

    def store_mail_submissions(self, n: int, mail: NightMail, deadline: datetime) -> int:
        """Store the night's submissions as the messages judged them (each once: a run again finds them
        and adds nothing), marked :data:`FROM_MESSAGES` so a later override of a message re-reads them.
        Returns how many were added."""
        from engine import action_from_dict

        with self.store.session() as s:
            have = {_key(d, at) for d, at in records.night_submissions(s, self.gid, n)}
        added = 0
        for data, at in self._mail_times(n, mail, deadline):
            if _key(data, at) in have:
                continue
            self.night_record(n, [(action_from_dict(data), at)], reason=FROM_MESSAGES)
            added += 1
        return added

    def _reread(self, n: int, message_id: str, why: str) -> str:
        """After an override of ``message_id``: the stored submissions that came from the messages are
        read again with it (those the messages no longer give withdrawn, with who and why; new ones
        stored), so the override takes effect on what the night resolves from. Returns a note (what
        changed), '' when nothing was stored from the messages."""
        from engine import action_from_dict

        with self.store.session() as s:
            rows = [r for r in records.night_submission_records(s, self.gid, n) if not r.withdrawn]
        mine = [r for r in rows if r.why == FROM_MESSAGES]
        if not mine:
            return ""
        wanted = self._mail_times(n, self.night_mail(n), self.night_deadline(n))
        keys = {_key(d, at) for d, at in wanted}
        have = {_key(r.data, r.at) for r in rows}
        gone = [r for r in mine if _key(r.data, r.at) not in keys]
        new = [(d, at) for d, at in wanted if _key(d, at) not in have]
        because = _("re-read after the override of message {id}: {why}").format(
            id=message_id, why=why.strip()
        )
        with self.store.session() as s:
            for r in gone:
                records.withdraw_night_submission(s, self.gid, n, r.id, self.by, because, self.game.tz)
            s.commit()
        for data, at in new:
            self.night_record(n, [(action_from_dict(data), at)], reason=FROM_MESSAGES)
        if not gone and not new:
            return ""
        return _(
            "the night's stored submissions were read again with it: {gone} withdrawn, {new} added"
        ).format(gone=len(gone), new=len(new))

    def _stored_warning(self, n: int) -> str:
        """Night ``n`` has stored submissions a judge typed (not read from the messages): they, not the
        messages, are what the night resolves from."""
        with self.store.session() as s:
            rows = records.night_submission_records(s, self.gid, n)
        if not any(not r.withdrawn and r.why != FROM_MESSAGES for r in rows):
            return ""
        return _(
            "night {n} already has stored submissions, and the night is resolved from them: this override "
            "changes the message's verdict, not them; correct them with `forumbot night submit`"
        ).format(n=n)

    def night_override(
        self,
        message_id: str,
        verdict: str,
        why: str,
        *,
        kind: str | None = None,
        targets: Sequence[str] = (),
        none: bool = False,
        pledge: str | None = None,
        possess: str | None = None,
        text: str | None = None,
        actor: str | None = None,
        waive_time: bool = False,
        night: int | None = None,
    ) -> NightOverrideDone:
        """A judge's verdict on one night message (kept with who and why; every later judgement of the
        night applies it, the runner's too). ``verdict``: ``accept`` (read as ``kind`` on ``targets``,
        with a kill's ``pledge``/``possess``/``text``, from ``actor`` when given; judged by the rules
        like any message, the deadline waived with ``waive_time``) or ``ignore`` (struck out).

        Refused for a message nobody read (run the runner's tick first) and for a resolved night."""
        if verdict not in NIGHT_OVERRIDE_VERDICTS:
            raise UsageError(
                _("--as must be one of {kinds}").format(kinds=", ".join(NIGHT_OVERRIDE_VERDICTS))
            )
        if not why.strip():
            raise UsageError(_("an override needs --why (it is shown with the night's verdicts)"))
        n = self._open_night(message_id, night)
        statements: list[dict[str, Any]] = []
        if verdict == "accept":
            statements = self._statements(kind, targets, none=none, pledge=pledge, possess=possess, text=text)
            if actor and actor not in self.game.roster:
                raise UsageError(_("{name!r} is not in the roster (names match exactly)").format(name=actor))
        elif kind or targets or actor:
            raise UsageError(_("--as ignore takes no --kind, --target or --by"))
        with self.store.session() as s:
            rec = repo.add_night_override(
                s,
                self.gid,
                n,
                message_id,
                verdict,
                why.strip(),
                self.by,
                statements=statements,
                actor=actor if verdict == "accept" else None,
                waive_time=waive_time,
            )
            s.commit()
        reread = self._reread(n, message_id, why)
        return NightOverrideDone(rec, self.night_mail(n).verdict(message_id), self._stored_warning(n), reread)

    def night_override_undo(
        self, message_id: str, why: str = "", *, night: int | None = None
    ) -> NightOverrideDone:
        """Cancel the override that counts for ``message_id`` (kept, with who, when and why); its earlier
        override, if any, counts again, else the message is judged as read."""
        n = self._open_night(message_id, night)
        live = self.night_override_records(n).get(message_id)
        if live is None:
            raise UsageError(_("message {id} has no override to undo").format(id=message_id))
        with self.store.session() as s:
            rec = repo.add_night_override(
                s, self.gid, n, message_id, "undo", why.strip(), self.by, undoes=live.id
            )
            s.commit()
        reread = self._reread(n, message_id, why or _("override undone"))
        return NightOverrideDone(rec, self.night_mail(n).verdict(message_id), self._stored_warning(n), reread)


@dataclass(frozen=True)
class NightMessageLine:
    """One message with its verdict and the override that counts for it (None: judged as read)."""

    message: NightMessage
    verdict: NightVerdict
    override: NightOverrideRecord | None


@dataclass(frozen=True)
class NightListing:
    """Night ``night``'s messages judged: one line per message (time order), what waits for a judge
    (``open``, Chinese), notes, and whether the night is resolved already."""

    night: int
    deadline: datetime
    resolved: bool
    lines: tuple[NightMessageLine, ...]
    open: tuple[str, ...]
    notes: tuple[str, ...]

    def to_json(self, tz: tzinfo) -> dict[str, Any]:
        """For tools: English keys and codes, times in the board's zone (ISO), reasons as judged."""

        def t(x: datetime | None) -> str | None:
            return x.astimezone(tz).isoformat() if x is not None else None

        return {
            "night": self.night,
            "deadline": t(self.deadline),
            "resolved": self.resolved,
            "complete": not self.open,
            "open": list(self.open),
            "notes": list(self.notes),
            "messages": [
                {
                    "id": line.message.id,
                    "channel": line.message.channel.value,
                    "group": line.message.group.value if line.message.group else None,
                    "author": line.message.author,
                    "at": t(line.message.at),
                    "until": t(line.message.until),
                    "text": line.message.text,
                    "code": line.verdict.code.value,
                    "reason": line.verdict.reason,
                    "needs_review": line.verdict.needs_review,
                    "suggestion": line.verdict.suggestion,
                    "actions": [action_to_dict(a) for a in line.verdict.actions],
                    "override": _override_json(line.override, t),
                }
                for line in self.lines
            ],
        }


def _override_json(r: NightOverrideRecord | None, t: Any) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "verdict": r.verdict,
        "statements": list(r.statements),
        "actor": r.actor,
        "waive_time": r.waive_time,
        "why": r.why,
        "by": r.by,
        "at": t(r.at),
    }


def _key(data: dict[str, Any], at: datetime) -> tuple[str, datetime]:
    return json.dumps(data, ensure_ascii=False, sort_keys=True), at
