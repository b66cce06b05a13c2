"""The judge's desk: the judging workflow of one game, between the store and the pure engine.

The CLI (forumbot/commands/), the demo, ``forumbot watch`` and, next, a web desk, an outbox and a game
runner all drive a game through this API and nothing else. Commands parse arguments and render; the
desk holds the workflow; the store holds the data; the engine holds the rules.

Open a desk::

    desk = Desk(game, store, by="法官大人")   # game: forumbot.config.Game; store: an open Store

Setup (desk/setup.py)
    ``desk.setup(seed=N | roles={name: 角色}, variant=None, force=False) -> Setup | GameState``
    draws (or takes) the roles and stores them as the first version of the secret state.
Sign-up (desk/signup.py)
    ``desk.signup_read() -> SignupResult`` the sign-up thread's verdicts and lists as of its close;
    ``desk.signup_record(result)``, ``desk.signup_confirm(result, why=, players=, substitutes=)``,
    ``desk.signup_confirmed()``; ``desk.signup_roles(seed= | roles=, owners=)`` the roles (and role
    accounts) of the confirmed players; ``desk.identity_notices()`` and ``desk.private_forum_access()``.
Night (desk/night.py)
    ``desk.night_submit(n, action, submitted_at) -> bool`` checks one engine action now and stores it
    (True: it came after the deadline); ``desk.night_record(n, [(action, at)]) -> [RecordedSubmission]``
    all or nothing and idempotent, a submission the rules void recorded and reported void;
    ``desk.night_entries(n, entries)`` the same for typed entries (``action_from_fields``,
    ``read_submissions``);
    ``desk.night_resolve(n, seed=None) -> Resolution`` resolves night n (version ``night n``);
    ``desk.night_extra_check(n, target, at, result_at=None) -> Resolution`` (R001, AMB-15);
    ``desk.night(n) -> (GameState, Night)``, ``desk.night_deadline(n) -> datetime``.
Night messages (desk/nightmessages.py)
    ``desk.record_night_messages(n, messages)`` keeps what the runner read (group posts, PMs);
    ``desk.stored_night_messages(n)``; ``desk.night_mail(n, messages=None, state=None) -> NightMail``
    every message's verdict with the game's flags and the overrides that count;
    ``desk.night_override(message_id, "accept" | "ignore", why, kind=, targets=, pledge=, possess=,
    text=, none=, actor=, waive_time=) -> NightOverrideDone`` (refused once the night is resolved);
    ``desk.night_override_undo(message_id, why)``; ``desk.night_override_history(n)``.
Day (desk/day.py)
    ``desk.day(n) -> DayConfig`` the day's times (opening at the real case post);
    ``desk.tally(n, as_of=None) -> DayJudgement`` a verdict for every vote post, the count, revotes;
    ``judged.provisional`` / ``judged.read_reasons`` (Chinese) when the day's threads were not read
    completely after the moment judged (``desk.read_reasons(day, result, as_of)``);
    ``desk.attendance(day) -> AttendanceResult | None`` (the living only), ``desk.attendance_apart(day,
    att) -> {"dead", "judges", "spectators": [names]}``, ``desk.living(n)``, ``desk.discussion_posts(day)``;
    ``desk.override(n, pid, as_kind, target, why, waive_edit=False) -> OverrideRecord`` (``as_kind`` in
    OVERRIDE_KINDS; refused once ``desk.day_closed(n)``);
    ``desk.proxy_vote(n, player, target, at)``; ``desk.revote(n, called_at) -> DayJudgement``;
    ``desk.day_of_vote_post(pid) -> int``;
    ``desk.preview_close(judged) -> Resolution | None`` (pure) and
    ``desk.close_day(n, force_why=None) -> Resolution`` (version ``day n``; ReadIncomplete unless the
    day was read completely after the close, ``force_why`` recorded as a judge's decision).
Last words and applications (desk/lastwords.py, desk/applications.py)
    ``desk.last_words(n, at, received=None) -> LastWordsReport``: who owes last words after day n, when
    they were posted (R001: read from [讨论]; R004: ``received`` by the director) and when the held check
    result / case post (R004: day-start post) go out; ``desk.applications(day) -> ApplicationsResult |
    None``: R004's 延时/加速 applications from ``[[days]] process``, which ``desk.day(n)`` applies to the
    close and the accelerated state unless the game file gives them.
R004 威权 (desk/authority.py)
    ``desk.pass_authority(to, at, seed=None, sender=None, why="") -> AuthorityPassed`` applies the
    hand-over (``to=None``: the director's random draw) as version ``authority N`` (undoable), refused
    with a Chinese reason (AuthorityRefused) when the rules do not allow it; ``desk.authority_problem``.
Substitutes (desk/substitutes.py)
    ``desk.substitute(old, new, at, why="", pid=None) -> Substitution`` a new account takes over the slot
    ``old`` plays (refused in Chinese: SubstituteRefused); the slot keeps its role, counters and votes;
    ``desk.posted_as(author, at)``, ``desk.account_of(slot, at)``, ``desk.with_accounts(text, at)``.
Undo and state (desk/undo.py, desk/core.py, desk/state.py)
    ``desk.undo() -> (undone label, current label)`` records an undo naming the version it cancels;
    ``desk.state()``, ``desk.require_state()``, ``desk.history() -> [StateVersion]``,
    ``describe_state(state) -> dict``; ``desk.refresh()`` frees what the desk keeps (never needed for
    correctness: what it keeps is checked against the store at each use, see below).
Drafts (desk/drafts.py)
    ``case_post_draft(desk, n, events)``, ``vote_count_draft(desk, judged)``,
    ``elevator_draft(desk, n, as_of)`` (``draft_as_of(day, now)``: the close once passed): BBCode to
    review and post, the same bytes on every face, previewed or sent.
One judgement, every face (issue 18)
    ``judged.verdicts`` one verdict per post in the round it belongs to, ``judged.rounds(judges)`` the
    day by round (desk/rounds.py: verdicts, tally, chart moves, ⚑); ``desk.outcome_text(judged)`` the
    result line the close posts; ``desk.stored_night(n, st)`` the one night builder (AMB-08/AMB-10
    kept, voided at resolution), ``desk.night_preview(n, seed=, state=)`` its resolution unstored;
    ``desk.night_private_messages(n, res, before)``, ``desk.extra_check_private_messages``,
    ``desk.day_private_messages(judged, res)`` every recipient the engine names, the dead included
    (desk/private.py).

Reading and judging once (issue 12): the desk reads each thread through forumbot/store/readpath.py
(one streamed query per view, no ORM objects, any length on SQLite and PostgreSQL) and keeps the views
while the thread's version is unchanged (every post write moves it, whichever process wrote); each
judged day's carry-over is stored under ``desk.day_fingerprints(n)`` (desk/carry.py), so
``tally --day k`` judges day k only, while nothing an earlier day used has changed.

Errors are forumbot's own (UsageError, GameFileError, ConfigError) and the engine's (EngineError), each
with a message a judge can act on. Every decision is stored with who made it (``by``).
"""

from __future__ import annotations

from forumbot.desk.authority import AUTHORITY_DECISION, AuthorityPassed, AuthorityRefused
from forumbot.desk.core import whoami
from forumbot.desk.day import OVERRIDE_KINDS, DayJudgement
from forumbot.desk.drafts import case_post_draft, elevator_draft, vote_count_draft
from forumbot.desk.lastwords import LastWordsReport
from forumbot.desk.night import (
    NIGHT_ACTION_KINDS,
    RecordedSubmission,
    action_from_fields,
    read_submissions,
)
from forumbot.desk.nightmessages import (
    NIGHT_OVERRIDE_VERDICTS,
    NightOverrideDone,
    night_override_kinds,
)
from forumbot.desk.setup import role_by_name
from forumbot.desk.state import describe_state
from forumbot.desk.substitutes import SUBSTITUTE_DECISION, SubstituteRefused, Substitution, substitute_lines
from forumbot.desk.workflow import Desk

__all__ = [
    "AUTHORITY_DECISION",
    "NIGHT_ACTION_KINDS",
    "NIGHT_OVERRIDE_VERDICTS",
    "OVERRIDE_KINDS",
    "SUBSTITUTE_DECISION",
    "AuthorityPassed",
    "AuthorityRefused",
    "DayJudgement",
    "Desk",
    "LastWordsReport",
    "NightOverrideDone",
    "RecordedSubmission",
    "SubstituteRefused",
    "Substitution",
    "action_from_fields",
    "case_post_draft",
    "describe_state",
    "elevator_draft",
    "night_override_kinds",
    "read_submissions",
    "role_by_name",
    "substitute_lines",
    "vote_count_draft",
    "whoami",
]
