"""The night: submissions checked against the rules when they come in, stored, and resolved in the rule
set's order; R001's extra check for the police.

Night actions are the engine's (``engine.ACTION_KINDS`` is the one table of kinds); this module
only turns what a judge types (CLI flags, a TOML ``[[submissions]]`` entry) into one of them.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import (
    ACTION_KINDS,
    JUDGE,
    ActionKind,
    Arrow,
    Audience,
    AudienceKind,
    Event,
    EventKind,
    GameState,
    IllegalActionError,
    Kill,
    KillHostages,
    Night,
    NightAction,
    Phase,
    Protect,
    Refusal,
    Resolution,
    Submission,
    action_from_dict,
    action_to_dict,
    new_night,
    record_submission,
    refusal_of,
    resolve_extra_check,
    resolve_night,
)
from forumbot.config import parse_local_time
from forumbot.desk.applications import ApplicationSteps
from forumbot.desk.private import PrivateNote, private_notes
from forumbot.errors import ConfigError, UsageError
from forumbot.i18n import _, current_language
from forumbot.labels import phase_label
from forumbot.store import records

# Every night action kind, in the engine's order (the CLI's choices).
NIGHT_ACTION_KINDS: tuple[str, ...] = tuple(kind.value for kind in ACTION_KINDS)


#: The fields a typed submission may carry (CLI flags, a night file's [[submissions]] keys).
SUBMISSION_FIELDS: tuple[str, ...] = (
    "kind",
    "by",
    "target",
    "none",
    "pledge",
    "possess",
    "kill_text",
    "first",
    "second",
    "order",
    "at",
)


def action_from_fields(kind: str, f: Mapping[str, Any]) -> NightAction:
    """A night action from the fields a judge types (CLI flags or a TOML [[submissions]] entry).

    Why a kill or a protection needs its target or an explicit ``none`` (空刀, 放弃守护): the engine
    reads a kill without a victim as a night with no kill, so a forgotten ``target`` would silently
    become 平安夜. A kill naming only ``possess`` is the ghost's possession-only night (AMB-18).
    Raises UsageError naming the missing (or contradictory) field."""
    by = f.get("by")
    target = f.get("target")
    none = bool(f.get("none"))

    def need(key: str) -> Any:
        if not f.get(key):
            raise UsageError(_("a {kind} submission needs {key}").format(kind=kind, key=key))
        return f[key]

    if none and kind not in (ActionKind.KILL, ActionKind.PROTECT):
        raise UsageError(
            _("none (no target) goes with a kill or a protect submission, not {kind}").format(kind=kind)
        )
    if none and target:
        raise UsageError(
            _("a {kind} submission names target {target!r} and none (no target): give one of them").format(
                kind=kind, target=target
            )
        )
    possession_only = kind == ActionKind.KILL and bool(f.get("possess"))  # AMB-18
    if kind in (ActionKind.KILL, ActionKind.PROTECT) and not target and not none and not possession_only:
        raise UsageError(
            _(
                "a {kind} submission needs target (or none = true / --none for no target: 空刀, 放弃守护)"
            ).format(kind=kind)
        )
    if kind == ActionKind.KILL:
        return Kill(
            victim=target or None,
            pledge=f.get("pledge"),
            possess=f.get("possess"),
            text=f.get("kill_text") or "",
            by=by,
        )
    if kind == ActionKind.PROTECT:
        return Protect(guardian=need("by"), target=target or None)
    if kind == ActionKind.KILL_HOSTAGES:
        order = f.get("order")
        return KillHostages(order=tuple(order) if order else None, by=by)
    if kind == ActionKind.ARROW:
        return Arrow(first=need("first"), second=need("second"), by=by)
    if kind not in ACTION_KINDS:  # the live table: a registered variant's kinds count too
        raise UsageError(
            _("unknown night action {kind!r} (one of {kinds})").format(
                kind=kind, kinds=", ".join(k.value for k in ACTION_KINDS)
            )
        )
    action: NightAction = ACTION_KINDS[ActionKind(kind)].cls(target=need("target"), by=by)
    return action


def read_submissions(path: Path) -> list[dict[str, Any]]:
    """The [[submissions]] of a night file (kind, by, target, pledge, possess, kill_text, at ...).

    A file records what was received, so each entry must say when (``at``): without it the desk would
    take «now», after the deadline, and record a submission made in time as late. Each entry is
    checked whole here (its kind, its time, the fields its kind needs, no unknown key), so a file
    with one incomplete entry is refused before anything is recorded, naming the entry and the
    field. Raises UsageError."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise UsageError(_("cannot read {path}: {why}").format(path=path, why=exc.strerror)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(_("{path} is not valid TOML: {why}").format(path=path, why=exc)) from exc
    entries = data.get("submissions", [])
    if not isinstance(entries, list) or not entries:
        raise UsageError(_("{path}: no [[submissions]] entries").format(path=path))
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise UsageError(_("{path}: entry {number} is not a table of fields").format(path=path, number=i))
        unknown = sorted(set(entry) - set(SUBMISSION_FIELDS))
        problem = ""
        if unknown:
            problem = _("unknown field {fields} (the fields: {known})").format(
                fields=", ".join(unknown), known=", ".join(SUBMISSION_FIELDS)
            )
        elif not entry.get("kind"):
            problem = _('no kind (kind = "kill", "check"...)')
        elif entry.get("at") in (None, ""):
            problem = _('no time: when it was received, at = "2026-06-03 16:40" (game time zone)')
        else:
            try:
                action_from_fields(str(entry["kind"]), entry)
            except UsageError as exc:
                problem = str(exc)
        if problem:
            raise UsageError(
                _("{path}: entry {number}: {problem} — nothing was recorded").format(
                    path=path, number=i, problem=problem
                )
            )
    return list(entries)


@dataclass(frozen=True)
class StoredSubmission:
    """One stored submission as the desk judges it for every face: ``refusal`` None when the rules take
    it as submitted; else their refusal (``refusal.refusal``: forbidden, or void at resolution)."""

    data: dict[str, Any]
    action: NightAction
    at: datetime
    late: bool
    refusal: IllegalActionError | None = None
    row_id: int = 0  # the stored row (what a judge's correction names); 0 when not from the store
    entered_by: str = ""
    why: str = ""  # a judge's entry or correction: why


@dataclass(frozen=True)
class RecordedSubmission:
    """What ``night submit`` did with one entry: recorded (or already there), late, void, replacing."""

    what: str
    late: bool
    duplicate: bool = False  # the same action at the same time was already recorded: nothing written
    void_rule: str | None = None  # recorded, and the rules judge it void at resolution (rule id)
    void_reason: str = ""
    replaces: str = ""  # Chinese: the earlier submission of the same slot it replaces (or cannot)


def slot_of(action: NightAction) -> tuple[str, ...]:
    """The engine's slot of a submission (one kill, one check, one protection per guardian...): a
    later submission in the same slot replaces the earlier one."""
    if isinstance(action, Protect):
        return (action.kind.value, action.guardian)
    return (action.kind.value,)


def _describe(data: Mapping[str, Any]) -> str:
    """A stored submission in the players' words: it is told to the players (a refused late change's
    private message), so no field names or kind codes (issue 20).

    >>> _describe({"kind": "kill", "victim": "月饼", "pledge": "麻花", "text": "……", "by": "粽子"})
    '杀人 月饼（生死状 麻花，附线文，粽子提交）'
    """
    action = action_from_dict(dict(data))
    return describe_action(action)


def describe_action(action: NightAction) -> str:
    """One night action in Chinese, as a player or a judge reads it: the skill, its target(s), the
    details (生死状, 附体, 线文, 顺序) and who submitted it."""
    name = ACTION_KINDS[action.kind].name_zh
    bits: list[str] = []
    if isinstance(action, Kill):
        head = f"{name} {action.victim}" if action.victim else "不杀人（空刀）"
        if action.pledge:
            bits.append(f"生死状 {action.pledge}")
        if action.possess:
            bits.append(f"附体 {action.possess}")
        if action.text:
            bits.append("附线文")
    elif isinstance(action, Protect):
        head = f"{action.guardian} {name} {action.target}" if action.target else f"{action.guardian} 放弃守护"
    elif isinstance(action, Arrow):
        head = f"{name} {action.first}、{action.second}"
    elif isinstance(action, KillHostages):
        head = name + (f"（顺序：{'、'.join(action.order)}）" if action.order else "")
    else:
        head = f"{name} {getattr(action, 'target', '')}".strip()
    by = getattr(action, "by", None)
    if by:
        bits.append(f"{by}提交")
    return head + (f"（{'，'.join(bits)}）" if bits else "")


class NightSteps(ApplicationSteps):
    def night_deadline(self, n: int) -> datetime:
        """Night ``n``'s submissions are due at the deadline that follows day ``n - 1`` (night 1: the
        timetable's first night). R004: a granted delay or acceleration moves it with the close."""
        if n > 1:
            return self.with_applications(self.game.day(n - 1)).night_deadline
        if self.game.night1_deadline is None:
            raise ConfigError(
                _("no deadline for night 1"), field="timetable.first_night", fix='first_night = "2026-06-03"'
            )
        return self.game.night1_deadline

    def _void_rule(self, st: GameState, action: NightAction) -> tuple[str | None, str]:
        """(None, "") when the action may be submitted; (rule, why) when the rules void it at
        resolution (the engine says which: ``Refusal``). Raises IllegalActionError when it cannot be
        submitted at all."""
        exc = refusal_of(st, action)
        if exc is None:
            return None, ""
        if exc.refusal is Refusal.VOID_AT_RESOLUTION:
            return exc.rule, str(exc)
        raise exc

    def night_submit(self, n: int, action: NightAction, submitted_at: datetime) -> bool:
        """Check the action against the state now and store it. Returns whether it came late."""
        return self.night_record(n, [(action, submitted_at)])[0].late

    def night_record(
        self, n: int, actions: list[tuple[NightAction, datetime]], *, reason: str = ""
    ) -> list[RecordedSubmission]:
        """Record night ``n``'s submissions, all or nothing, once.

        Every action is checked first; one that cannot be submitted (IllegalActionError, with its
        rule) stops the whole batch before anything is written. One the rules void at resolution
        (AMB-08, AMB-10) is recorded as submitted and reported void with its rule. An action already
        recorded with the same time is not written again, so running a corrected file twice records
        nothing twice. A submission after the deadline is recorded as late. A later submission for a
        slot that already holds one (a second police check, a changed kill) is said so.
        """
        st = self.require_state()
        if st.phase is not Phase.NIGHT or st.round != n:
            raise UsageError(
                _("the game is at {where}, not night {night}").format(
                    where=phase_label(st.phase.value, st.round), night=n
                )
            )
        deadline = self.night_deadline(n)
        checked = []
        for i, (action, at) in enumerate(actions, 1):
            try:
                rule, why = self._void_rule(st, action)
            except IllegalActionError as exc:
                where = f"entry {i} ({action.kind.value})" if len(actions) > 1 else action.kind.value
                raise IllegalActionError(
                    _("{where}: {error} — nothing was recorded").format(where=where, error=exc), rule=exc.rule
                ) from exc
            checked.append((action, at, rule, why))
        out: list[RecordedSubmission] = []
        with self.store.session() as s:
            stored = [(d, at) for d, at in records.night_submissions(s, self.gid, n)]
            for action, at, rule, why in checked:
                data = action_to_dict(action)
                key = json.dumps(data, ensure_ascii=False, sort_keys=True)
                actor = getattr(action, "by", None) or getattr(action, "guardian", None) or "-"
                name = (
                    ACTION_KINDS[action.kind].name_zh if current_language() == "zh_CN" else action.kind.value
                )
                what = _("{action} by {actor}").format(action=name, actor=actor)
                late = at > deadline
                if any(
                    json.dumps(d, ensure_ascii=False, sort_keys=True) == key and t == at for d, t in stored
                ):
                    out.append(
                        RecordedSubmission(what, late, duplicate=True, void_rule=rule, void_reason=why)
                    )
                    continue
                replaces = ""
                slot = slot_of(action)
                earlier = [(d, t) for d, t in stored if slot_of(action_from_dict(d)) == slot]
                if earlier:
                    d0, t0 = earlier[-1]
                    when = t0.astimezone(self.game.tz).strftime("%m-%d %H:%M")
                    if late and not t0 > deadline:
                        replaces = f"超时的修改不生效：仍按 {when} 的提交 {_describe(d0)} 结算"
                    else:
                        replaces = f"取代 {when} 的提交 {_describe(d0)}，请法官确认"
                records.add_night_submission(s, self.gid, n, data, at, self.by, why=reason)
                stored.append((data, at))
                out.append(RecordedSubmission(what, late, False, rule, why, replaces))
            s.commit()
        return out

    def night_entries(
        self, n: int, entries: list[dict[str, Any]], *, reason: str = ""
    ) -> list[RecordedSubmission]:
        """Check and store typed submissions (see :func:`action_from_fields`), all or nothing (see
        :meth:`night_record`). A missing ``at`` means now; ``at`` is wall-clock in the game's zone."""
        actions = []
        with self.store.session() as s:
            known = {
                json.dumps(d, ensure_ascii=False, sort_keys=True): at
                for d, at in records.night_submissions(s, self.gid, n)
            }
        for i, e in enumerate(entries, 1):
            try:
                action = action_from_fields(str(e.get("kind")), e)
                text = e.get("at")
                at = (
                    datetime.now(UTC)
                    if text is None
                    else parse_local_time(text, self.game.tz, "night submission at")
                )
            except (UsageError, ConfigError) as exc:
                raise UsageError(
                    _("entry {number}: {error} — nothing was recorded").format(number=i, error=exc)
                ) from exc
            if text is None:  # no time given: the same action already recorded is the same submission
                at = known.get(json.dumps(action_to_dict(action), ensure_ascii=False, sort_keys=True), at)
            actions.append((action, at))
        return self.night_record(n, actions, reason=reason)

    def night(self, n: int) -> tuple[GameState, Night]:
        """The current state and night ``n``'s stored submissions, as the engine holds them."""
        st = self.require_state()
        return st, self.stored_night(n, st)

    def stored_submissions(self, n: int, st: GameState) -> tuple[StoredSubmission, ...]:
        """Night ``n``'s stored submissions in order, each judged against the state ``st`` the night
        began with and the submissions before it: late or not, and the rules' refusal if any (forbidden,
        or void at resolution: ``refusal.refusal``)."""
        with self.store.session() as s:
            rows = [r for r in records.night_submission_records(s, self.gid, n) if not r.withdrawn]
        try:
            deadline: datetime | None = self.night_deadline(n)
        except ConfigError:
            deadline = None
        night = new_night(st)
        out = []
        for r in rows:  # a row a judge withdrew or corrected no longer counts (kept in the store)
            action = action_from_dict(r.data)
            late = deadline is not None and r.at > deadline
            exc = refusal_of(st, action, night=night)
            if exc is None or exc.refusal is Refusal.VOID_AT_RESOLUTION:
                night = night.with_submission(Submission(action, late))
            out.append(StoredSubmission(dict(r.data), action, r.at, late, exc, r.id, r.entered_by, r.why))
        return tuple(out)

    def night_submission_records(self, n: int) -> list[records.NightSubmissionRecord]:
        """Every stored row of night ``n`` with its id, who entered it and why, the withdrawn ones
        included (with who withdrew them, when and why): what ``night submissions`` lists."""
        with self.store.session() as s:
            return records.night_submission_records(s, self.gid, n)

    def _refuse_resolved(self, n: int) -> None:
        """A resolved night's submissions are not corrected in place (the stored state was computed from
        them): the judge undoes the resolution first, corrects, and resolves again."""
        done = [v for v in self.live_history() if v.label == f"night {n}"]
        if done:
            raise UsageError(
                _(
                    "night {night} was resolved by {who} at {at}, so its submissions can no longer be "
                    "corrected: undo the resolution first (`forumbot undo`, or “Undo the resolution” on the "
                    "desk's night page), correct the submission, then resolve the night again"
                ).format(
                    night=n,
                    who=done[-1].by or "-",
                    at=done[-1].at.astimezone(self.game.tz).strftime("%m-%d %H:%M"),
                )
            )

    def night_correct(
        self,
        n: int,
        row_id: int,
        action: NightAction | None,
        why: str,
        *,
        at: datetime | None = None,
    ) -> RecordedSubmission | None:
        """A judge's correction of stored submission ``row_id`` of night ``n``: it is withdrawn (kept,
        with who, when and why) and, unless ``action`` is None, replaced by ``action`` submitted at
        ``at`` (default: the withdrawn one's time, so a corrected target is not made late). Every later
        judgement of the night (the desk's preview, ``night resolve``, the runner's tick) builds it from
        the stored rows that count, so each face resolves the corrected night.

        Refused once the night is resolved (undo first), without a reason, for a row already withdrawn
        by someone else (StaleChange naming who and when), and for a replacement the rules forbid
        (IllegalActionError): all or nothing. Returns what was recorded for the replacement."""
        if not why.strip():
            raise UsageError(_("a correction needs a reason (it is kept with the night's submissions)"))
        self._refuse_resolved(n)
        st = self.require_state()  # the pinned version (a page read by another judge) is checked here
        if st.phase is not Phase.NIGHT or st.round != n:
            raise UsageError(
                _("the game is at {where}, not night {night}").format(
                    where=phase_label(st.phase.value, st.round), night=n
                )
            )
        with self.store.session() as s:
            old = next((r for r in records.night_submission_records(s, self.gid, n) if r.id == row_id), None)
        if old is None:
            raise UsageError(
                _("night {night} has no stored submission #{id}: refresh the night page").format(
                    night=n, id=row_id
                )
            )
        recorded: RecordedSubmission | None = None
        when = at or old.at
        if action is not None:
            try:
                rule, void_why = self._void_rule(st, action)
            except IllegalActionError as exc:
                raise IllegalActionError(
                    _("{error} — nothing was changed").format(error=exc), rule=exc.rule
                ) from exc
            actor = getattr(action, "by", None) or getattr(action, "guardian", None) or "-"
            recorded = RecordedSubmission(
                f"{action.kind.value} by {actor}",
                when > self.night_deadline(n),
                void_rule=rule,
                void_reason=void_why,
                replaces=_("replaces {what}").format(what=_describe(old.data)),
            )
        with self.store.session() as s:
            records.withdraw_night_submission(s, self.gid, n, row_id, self.by, why.strip(), self.game.tz)
            if action is not None:
                records.add_night_submission(
                    s, self.gid, n, action_to_dict(action), when, self.by, why=why.strip(), replaces=row_id
                )
            s.commit()
        return recorded

    def stored_night(self, n: int, st: GameState) -> Night:
        """Night ``n`` as the engine holds it, from its stored submissions and the state ``st`` it began
        with: the one builder of a night (the desk, the runner, the web). A submission the rules void at
        resolution (AMB-08, AMB-10) is kept as submitted; the resolution voids it and says why. Raises
        IllegalActionError for a stored submission the rules now forbid (the state was changed under it)."""
        night = new_night(st)
        for sub in self.stored_submissions(n, st):
            night = record_submission(st, night, sub.action, late=sub.late)
        return night

    def night_seed(self, n: int) -> int:
        """The seed of night ``n``'s random draws (AMB-12's random pledge) when the judge gives none:
        fixed per game and night, so the runner, the web's preview and ``night resolve`` draw alike and
        a resolution computed again after a crash is the same."""
        return self.gid * 1000 + n

    def night_start_state(self, n: int) -> GameState | None:
        """The state night ``n`` began with: the current one while it is night ``n``, else the stored
        state before the version ``night n`` (None when neither is known)."""
        if self.state_labelled(f"night {n}") is not None:
            return self.state_before_night(n)
        st = self.state()
        return st if st is not None and st.phase is Phase.NIGHT and st.round == n else None

    def night_preview(self, n: int, *, seed: int | None = None, state: GameState | None = None) -> Resolution:
        """Night ``n`` resolved from the state it began with (``state``, else :meth:`night_start_state`)
        and its stored submissions, nothing stored: what :meth:`night_resolve` stores, the late changes'
        notices included. The runner drafts from it before it stores the version, and again after a
        crash; the web shows it."""
        st = state if state is not None else self.night_start_state(n)
        if st is None or st.phase is not Phase.NIGHT or st.round != n:
            where = phase_label(st.phase.value, st.round) if st is not None else "-"
            raise UsageError(_("the game is at {where}, not night {night}").format(where=where, night=n))
        seed = self.night_seed(n) if seed is None else seed
        res = resolve_night(st, self.stored_night(n, st), seed=seed)
        return replace(res, events=(*res.events, *self._late_change_notices(st, n)))

    def refused_late_changes(self, n: int) -> list[tuple[NightAction, NightAction]]:
        """(late change, on-time submission kept) for each slot whose late change the rules ignore."""
        with self.store.session() as s:
            subs = records.night_submissions(s, self.gid, n)
        deadline = self.night_deadline(n)
        kept: dict[tuple[str, ...], NightAction] = {}
        out = []
        for data, at in subs:
            action = action_from_dict(data)
            slot = slot_of(action)
            if at > deadline and slot in kept:
                out.append((action, kept[slot]))
            elif at <= deadline:
                kept[slot] = action
        return out

    def night_private_messages(self, n: int, res: Resolution, before: GameState) -> tuple[PrivateNote, ...]:
        """Night ``n``'s private results (``res`` resolved from ``before``), one per recipient the engine
        names, the night's dead included: what the runner sends and every face shows."""
        return private_notes(res.events, before, res.state, f"【{self.game.name}】第{n}夜（仅你可见）")

    def extra_check_private_messages(
        self, n: int, res: Resolution, before: GameState
    ) -> tuple[PrivateNote, ...]:
        """The private answer to night ``n``'s extra check (R001 §五 毒药4)."""
        return private_notes(
            res.events, before, res.state, f"【{self.game.name}】第{n}夜追加验人（仅你可见）"
        )

    def extra_check_preview(self, n: int, target: str, *, late: bool) -> tuple[GameState, Resolution]:
        """(the state night ``n`` was resolved into, the extra check on ``target`` answered from it):
        nothing stored. Raises UsageError when night ``n`` is not resolved."""
        st = self.state_labelled(f"night {n}")
        if st is None:
            raise UsageError(_("night {night} is not resolved yet").format(night=n))
        return st, resolve_extra_check(st, target, late=late)

    def night_extra_check(
        self,
        n: int,
        target: str,
        at: datetime,
        *,
        result_at: datetime | None = None,
        late: bool | None = None,
    ) -> Resolution:
        """R001: the police's extra check after checking the poison (AMB-15). It is late when submitted
        more than the flag's window after the first result reached the police (default: the moment
        night ``n`` was resolved here). ``late`` given: the caller has judged it (the runner reads the
        message's time as night messages are read, AMB-NM4)."""
        resolved = self.resolved_at(f"night {n}")
        if resolved is None:
            raise UsageError(_("night {night} is not resolved yet").format(night=n))
        if late is None:
            start = result_at or resolved
            late = (at - start).total_seconds() > self.night_flags.gp_extra_check_window_minutes * 60
        res = resolve_extra_check(self.require_state(), target, late=late)
        self.save_state(f"night {n} extra check", res.state)
        return res

    def night_resolve(self, n: int, *, seed: int | None = None) -> Resolution:
        """Resolve night ``n`` in the rule set's order and store the state as version ``night N``.

        A night already resolved (a live ``night N`` version) is refused in the judge's words before the
        engine is asked (its own refusal is English, and says nothing of who resolved it)."""
        st = self.require_state()
        done = [v for v in self.live_history() if v.label == f"night {n}"]
        if done:
            raise UsageError(
                _(
                    "night {night} is already resolved (by {who} at {at}); `forumbot undo` first to "
                    "resolve it again"
                ).format(
                    night=n,
                    who=done[-1].by or "-",
                    at=done[-1].at.astimezone(self.game.tz).strftime("%m-%d %H:%M"),
                )
            )
        res = self.night_preview(n, seed=seed, state=st)
        self.save_state(f"night {n}", res.state)
        self._days.clear()
        return res

    def _late_change_notices(self, st: GameState, n: int) -> list[Any]:
        """A private notice to whoever submitted a late change the rules ignored (a group's kill, the
        police's check): they learn the change was refused and what was kept."""
        out = []
        for late, kept in self.refused_late_changes(n):
            # told to the group whose role submits this kind (匪帮/杀手频道, 警署), else to the submitter
            groups = {
                spec.group
                for p in st.players
                if late.kind in (spec := self.ruleset.role(p.role)).night_actions and spec.group
            }
            by = getattr(late, "by", None) or getattr(late, "guardian", None)
            if len(groups) == 1:
                audience = Audience(AudienceKind.GROUP, str(groups.pop()))
            else:
                audience = Audience(AudienceKind.PLAYER, by) if by else JUDGE
            text = (
                f"第{n}夜的修改提交超过截止时间，修改无效：仍按原提交 {_describe(action_to_dict(kept))} 结算"
            )
            out.append(Event(EventKind.FORFEITED, audience, text, {"late": True, "change_refused": True}))
        return out
