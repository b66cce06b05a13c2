"""The judge's words for the codes forumbot prints: verdict statuses, outbox statuses and kinds, the
winner, the runner's moments and ledger statuses, why a poll read a thread (the night's verdict codes:
``forumbot.nightmail.CODE_LABELS``).

Shared by the CLI and the web desk so a verdict reads the same in the terminal and in the browser. Each
label is an English msgid marked with ``N_`` and translated where it is shown (``_(STATUS_LABELS[code])``);
the JSON output keeps the codes themselves.
"""

from __future__ import annotations

import re

from forumbot.i18n import N_, _

VALID_STATUSES = frozenset({"counted", "changed", "superseded", "abstain", "not_a_vote", "after_as_of"})
STATUS_LABELS: dict[str, str] = {
    "counted": N_("counted"),
    "changed": N_("changed (counts)"),
    "superseded": N_("superseded"),
    "abstain": N_("abstains"),
    "void_self": N_("voided by the player"),
    "void_wrong_name": N_("void: wrong name"),
    "ambiguous": N_("void: more than one name"),
    "edited": N_("void: edited"),
    "late": N_("late"),
    "before_open": N_("before the case post"),
    "void_after_cutoff": N_("void after the cutoff"),
    "change_last_hour": N_("change in the last hour"),
    "change_not_reply": N_("change not replying to the vote"),
    "second_change": N_("second change"),
    "change_while_accelerated": N_("change while accelerated"),
    "not_a_player": N_("not a player"),
    "dead": N_("dead player"),
    "drowned": N_("drowned"),
    "duplicate": N_("duplicate vote"),
    "not_a_vote": N_("not a vote"),
    "unreadable": N_("unreadable"),
    "overridden": N_("struck out by a judge"),
    "proxy_refused": N_("proxy vote refused"),
    "not_a_participant": N_("not in the revote"),
    "noncompliant": N_("revote not as asked"),
    "after_as_of": N_("after the as-of time"),
}
OUTBOX_STATUS_LABELS: dict[str, str] = {
    "draft": N_("draft"),
    "approved": N_("approved"),
    "sending": N_("sending"),
    "sent": N_("sent"),
    "failed": N_("refused by the board"),
    "unknown": N_("to be verified on the board"),
    "cancelled": N_("cancelled"),
}
OUTBOX_KIND_LABELS: dict[str, str] = {
    "case_post": N_("case post"),
    "vote_count": N_("vote count"),
    "running_count": N_("running count"),
    "revote_call": N_("revote call"),
    "execution_notice": N_("execution notice"),
    "drowning_notice": N_("drowning notice"),
    "elevator": N_("elevator"),
    "judge_post": N_("judge's post"),
    "private_notice": N_("private notice"),
    "check_result": N_("check result"),
    "night_result": N_("night result"),
    "judge_pm": N_("judge's private message"),
    "day_thread": N_("day thread"),
    "game_review": N_("game review"),
}


# A sign-up post's verdict (forumbot.parsers.signup.SignupCode values).
SIGNUP_LABELS: dict[str, str] = {
    "joined": N_("signed up"),
    "substitute": N_("substitute"),
    "withdrawn": N_("withdrawn"),
    "duplicate": N_("signed up twice"),
    "not_signed_up": N_("not signed up"),
    "late": N_("late"),
    "judge": N_("judge"),
    "opening": N_("opening post"),
    "chatter": N_("not a sign-up"),
    "unclear": N_("for the judge"),
    "unreadable": N_("unreadable"),
}


def signup_label(code: str) -> str:
    """A sign-up verdict in the judge's language (the code itself when it has no label)."""
    return _(SIGNUP_LABELS[code]) if code in SIGNUP_LABELS else code


def status_label(code: str) -> str:
    """A verdict status in the judge's language (the code itself when it has no label)."""
    return _(STATUS_LABELS[code]) if code in STATUS_LABELS else code


def outbox_status_label(code: str) -> str:
    return _(OUTBOX_STATUS_LABELS[code]) if code in OUTBOX_STATUS_LABELS else code


def outbox_kind_label(code: str) -> str:
    return _(OUTBOX_KIND_LABELS[code]) if code in OUTBOX_KIND_LABELS else code


# Where the game stands (engine ``Phase`` value → label with its round), for the desk's refusals.
PHASE_LABELS: dict[str, str] = {
    "night": N_("night {round}"),
    "day": N_("day {round}"),
    "over": N_("the end (after round {round})"),
}


def phase_label(phase: str, round_: int) -> str:
    """``night 2`` / ``第2夜``: the engine's phase and round in the judge's language."""
    return _(PHASE_LABELS.get(phase, phase + " {round}")).format(round=round_)


# Who won (engine ``Winner`` values).
WINNER_LABELS: dict[str, str] = {
    "police": N_("police and civilians"),
    "bandits": N_("bandits"),
    "killer_camp": N_("the killers' camp"),
    "civilian_camp": N_("the civilians' camp"),
}

# A moment of the runner's timetable (forumbot.runner.plan.MomentKind values) with its round, for the
# demo and ``forumbot status`` (translated where shown; JSON and the ledger keep the codes).
MOMENT_LABELS: dict[str, str] = {
    "night_deadline": N_("night {round}: deadline"),
    "void_cutoff": N_("day {round}: void cutoff"),
    "change_cutoff": N_("day {round}: change cutoff"),
    "close": N_("day {round}: vote closes"),
    "revote_deadline": N_("day {round}: revote #{number} closes"),
    "last_words": N_("day {round}: last words due"),
    "extra_check": N_("night {round}: extra check window ends"),
    "signup_close": N_("the sign-up closes"),
}


def winner_label(code: str | None) -> str:
    """The winning side in the judge's language; None (a draw, or a judge's end without a winner)."""
    if code is None:
        return _("no winner")
    return _(WINNER_LABELS[code]) if code in WINNER_LABELS else code


def moment_label(kind: str, round_: int, number: int = 0) -> str:
    """``第1日：投票截止`` for the runner's moment ``day1/close`` (its kind, round and revote number)."""
    if kind not in MOMENT_LABELS:
        return f"{kind} {round_}"
    return _(MOMENT_LABELS[kind]).format(round=round_, number=number)


# Why a poll read a thread, or skipped it (forumbot.poll's ThreadOutcome.reason, kept as codes in the
# store's read records and in ``poll --json``).
POLL_REASON_LABELS: dict[str, str] = {
    "full": N_("full read"),
    "first read": N_("first read"),
    "not in the forum list": N_("not in the forum list"),
    "no forum list": N_("no forum list"),
    "never read completely": N_("never read completely"),
    "the forum list shows no last-post time": N_("the forum list shows no last-post time"),
    "replies unknown": N_("replies unknown"),
    "new replies": N_("new replies"),
    "new last post": N_("new last post"),
    "new last poster": N_("new last poster"),
    "last post too close to the last read": N_("last post too close to the last read"),
    "unchanged": N_("unchanged"),
}


def poll_reason_label(code: str) -> str:
    """Why a poll read a thread, in the judge's language (the code itself when it has no label)."""
    return _(POLL_REASON_LABELS[code]) if code in POLL_REASON_LABELS else code


# The runner's ledger (forumbot.runner.ledger.MomentStatus values), for ``forumbot status``.
MOMENT_STATUS_LABELS: dict[str, str] = {
    "pending": N_("pending"),
    "running": N_("running"),
    "delayed": N_("delayed"),
    "waiting": N_("waiting for a judge"),
    "done": N_("done"),
}


def moment_status_label(code: str) -> str:
    return _(MOMENT_STATUS_LABELS[code]) if code in MOMENT_STATUS_LABELS else code


def moment_key_label(key: str, kind: str) -> str:
    """A ledger key (``day1/revote2``, see forumbot.runner.plan) with its kind, in the judge's words; the
    key itself when it does not name a round."""
    found = re.match(r"(?:night|day)(\d+)/", key)
    if found is None:
        return moment_label(kind, 0) if kind == "signup_close" else key
    number = re.search(r"revote(\d+)$", key)
    return moment_label(kind, int(found.group(1)), int(number.group(1)) if number else 0)


_STEP = re.compile(r"^(night|day) (\d+)( extra check)?$")


def step_label(label: str) -> str:
    """What a stored state version's step did (``day 1`` → 第1日结算), for a refusal that names the newer
    change; an unknown label (a setup, an undo) is named by its kind."""
    if m := _STEP.match(label):
        if m.group(3):
            return _("night {n}: extra check").format(n=m.group(2))
        return (_("day {n} closed") if m.group(1) == "day" else _("night {n} resolved")).format(n=m.group(2))
    if label.startswith("undo"):
        return _("an undo")
    if label.startswith("setup"):
        return _("the setup")
    return label
