"""The judge's words for the codes forumbot prints: verdict statuses, outbox statuses and kinds, the
winner, the runner's moments and ledger statuses, why a poll read a thread (the night's verdict codes:
``forumbot.nightmail.CODE_LABELS``).

Shared by the CLI and the web desk so a verdict reads the same in the terminal and in the browser. Each
label is an English msgid marked with ``N_`` and translated where it is shown (``_(STATUS_LABELS[code])``);
the JSON output keeps the codes themselves.
"""

from __future__ import annotations

import re

from forumbot.i18n import N_, _, current_language

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


_STEP = r"^(night|day) (\d+)( extra check)?$"


def step_label(label: str) -> str:
    """What a stored state version's step did (``day 1`` → 第1日结算), for a refusal that names the newer
    change; an unknown label (a setup, an undo) is named by its kind."""
    if m := re.match(_STEP, label):
        if m.group(3):
            return _("night {n}: extra check").format(n=m.group(2))
        return (_("day {n} closed") if m.group(1) == "day" else _("night {n} resolved")).format(n=m.group(2))
    if label.startswith("undo"):
        return _("an undo")
    if label.startswith("setup"):
        return _("the setup")
    return label


_MESSAGE_ID = r"^(pid|pm):(\d+)$"


def message_label(message_id: str) -> str:
    """A night message's id (``pid:53``, ``pm:9``; forumbot.nightmail) as a judge names it: the post's
    pid is the number Discuz! shows in the post's link, a PM is numbered as the board numbers it. The id
    itself stays in ``--json``, the store and the overrides."""
    m = re.match(_MESSAGE_ID, message_id)
    if m is None:
        return message_id
    if m.group(1) == "pid":
        return _("post (pid {n})").format(n=m.group(2))
    return _("private message no. {n}").format(n=m.group(2))


# Why a player is out (engine ``Cause`` values), for ``forumbot state`` and the desk.
CAUSE_LABELS: dict[str, str] = {
    "killed": N_("killed"),
    "pledge": N_("died with the poison (pledge)"),
    "possessed_poison": N_("died with the possessed poison"),
    "guarded_kill": N_("died for the guarded player"),
    "dereliction": N_("dereliction"),
    "forced_dereliction": N_("forced dereliction"),
    "executed": N_("executed"),
    "guarded_execution": N_("out in place of the executed"),
    "double_kill": N_("double kill"),
    "drowned": N_("drowned"),
    "sent_off": N_("sent off"),
    "judge": N_("removed by the judges"),
    "fireworks": N_("fireworks"),
    "hostage": N_("hostage killed"),
    "snipe": N_("sniped"),
    "assassination": N_("assassinated"),
    "killers": N_("killed by the killers"),
    "double_empty_heal": N_("two empty heals"),
    "hug": N_("hugged"),
    "hanfei": N_("the desperado"),
    "lover": N_("out for a lover (Cupid's arrow)"),
    "vote": N_("voted out"),
    "red_card": N_("red card"),
}


def cause_label(code: str | None) -> str:
    """Why a player is out, in the judge's language ('?' when the state does not say)."""
    if code is None:
        return "?"
    return _(CAUSE_LABELS[code]) if code in CAUSE_LABELS else code


def out_label(cause: str | None, round_: int | None) -> str:
    """``被杀（第2轮）``: how and when a player went out (``forumbot state``)."""
    return _("{cause} (round {round})").format(cause=cause_label(cause), round=round_ or "?")


# How a game ended (engine ``Termination`` values).
TERMINATION_LABELS: dict[str, str] = {
    "bandits_wiped_out": N_("every bandit is out"),
    "police_wiped_out": N_("every police officer is out"),
    "civilians_wiped_out": N_("every civilian is out"),
    "bandit_parity": N_("the bandits are as many as the police and civilians less one"),
    "both_wiped_out": N_("police and bandits are out at once"),
    "concession": N_("a side conceded"),
    "judge_ended": N_("the judges ended the game"),
    "killer_camp_half": N_("the killers' camp is half of the living or more"),
    "gods_out": N_("every god is out"),
    "plain_civilians_out": N_("every plain civilian is out"),
    "counted_killers_out": N_("every counted killer is out"),
    "surrender": N_("a side surrendered"),
}


def outcome_label(termination: str, winner: str | None) -> str:
    """«警察与平民获胜（匪全灭）»: who won and why (engine ``Outcome``'s codes), never its repr."""
    how = _(TERMINATION_LABELS[termination]) if termination in TERMINATION_LABELS else termination
    if winner is None:
        return _("draw ({how})").format(how=how)
    return _("{winner} won ({how})").format(winner=winner_label(winner), how=how)


_VERSION = r"^(night|day) (\d+)( extra check)?$"
_UNDO_OF = r"^undo #(\d+) \((.*)\)$"
_SEED = r"^setup \(seed (\S+)\)$"


def version_label(label: str) -> str:
    """A stored state version's label (``night 2``, ``undo #5 (day 2)``, ``setup (seed 7)``) in the
    judge's language: ``state --history``, ``undo`` and the desk's change log. An unknown label is shown
    as stored."""
    if m := re.match(_VERSION, label):
        text = (_("night {n}") if m.group(1) == "night" else _("day {n}")).format(n=m.group(2))
        return text + (_(": extra check") if m.group(3) else "")
    if m := re.match(_UNDO_OF, label):
        return _("undo of #{id} ({what})").format(id=m.group(1), what=version_label(m.group(2)))
    if m := re.match(_SEED, label):
        return _("roles drawn (seed {seed})").format(seed=m.group(1))
    if label == "setup (roles given by the judges)":
        return _("roles given by the judges")
    return label


# Who did it, when it was not a judge: the runner (forumbot/runner/steps.py RUNNER_BY), the web desk
# before a judge logged in, the demo's judge. The records keep the names as written.
ACTOR_LABELS: dict[str, str] = {
    "forumbot-runner": N_("forumbot (automatic run)"),
    "web-desk": N_("the web desk"),
    "demo-judge": N_("the demo's judge"),
}


def actor_label(who: str | None) -> str:
    """A record's author in the judge's words: a judge's name as it is, the runner «forumbot 自动运行»."""
    if not who:
        return ""
    return _(ACTOR_LABELS[who]) if who in ACTOR_LABELS else who


# The outbox's log notes (forumbot/outbox.py writes them in English into the store, where they stay):
# shown in the judge's language by pattern; the board's own words inside them stay as the board wrote
# them, and a note no pattern knows (a judge's reason for a cancel) is shown as written.
# The patterns of this module stay strings, compiled by ``re`` (and kept in its cache) when first
# matched: most commands show none of these labels, and compiling the ~40 of them cost every start of
# forumbot (an idle ``forumbot poll`` included) about 2% of ``import requests`` (issue 21).
_NOTE_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        r"^auto-approved by \[outbox\] auto_approve$",
        N_("approved automatically (game file: [outbox] auto_approve)"),
    ),
    (r"^draft$", N_("draft")),
    (r"^approved$", N_("approved")),
    (r"^cancelled$", N_("cancelled")),
    (r"^edited on approval$", N_("edited on approval")),
    (
        r"^draft: the board \((?P<charset>.*?)\) cannot store (?P<chars>.*); "
        r"change the text or approve it as the board would show it$",
        N_(
            "draft: the board ({charset}) cannot store {chars}; change the text or approve it as the "
            "board would show it"
        ),
    ),
    (r"^written as the board shows it: (?P<chars>.*)$", N_("written as the board shows it: {chars}")),
    (
        r"^found in sending at start: the board's answer was never read$",
        N_("found in sending at start: the board's answer was never read"),
    ),
    (r"^verified on the board: (?P<note>.*)$", N_("verified on the board: {note}")),
    (
        r"^verified: not on the board \((?P<note>.*)\); may be sent again$",
        N_("verified: not on the board ({note}); may be sent again"),
    ),
    (
        r"^verified: delivered to uid (?P<uid>\d+) \(pmid (?P<pmid>\d+)\)$",
        N_("verified: delivered to uid {uid} (pmid {pmid})"),
    ),
    (r"^the post shows the new text$", N_("the post shows the new text")),
    (r"^the thread is in the forum list$", N_("the thread is in the forum list")),
    (r"^found on page (?P<page>\d+)$", N_("found on page {page}")),
    (r"^pid (?P<pid>\d+) does not show the new text$", N_("pid {pid} does not show the new text")),
    (r"^not on the last pages of tid (?P<tid>\d+)$", N_("not on the last pages of thread {tid}")),
    (
        r"^POST to the board \(uid (?P<uid>\d+)\) from (?P<sender>.*)$",
        N_("sent to the board (uid {uid}) from {sender}"),
    ),
    (r"^POST to the board from (?P<sender>.*)$", N_("sent to the board from {sender}")),
    (
        r"^PM delivered to uid (?P<uid>\d+) \(pmid (?P<pmid>\d+)\)$",
        N_("private message delivered to uid {uid} (pmid {pmid})"),
    ),
    (
        r"^refused for now \((?P<outcome>[a-z_]+)\): (?P<words>.*)$",
        N_("refused for now ({outcome}): {words}"),
    ),
    (r"^not sent: (?P<words>.*)$", N_("not sent: {words}")),
    (r"^the form page refused: (?P<words>.*)$", N_("the form page refused: {words}")),
    (r"^refused: (?P<words>.*)$", N_("refused by the board: {words}")),
    (r"^sent: (?P<detail>.*)$", N_("sent: {detail}")),
    (r"^unclear answer: (?P<words>.*)$", N_("unclear answer: {words}")),
)


# What the board did with one POST (forumbot.posting.Outcome values), inside the outbox's notes.
POST_OUTCOME_LABELS: dict[str, str] = {
    "sent": N_("stored"),
    "flood": N_("posting too fast (anti-flood)"),
    "too_short": N_("message too short"),
    "too_long": N_("message too long"),
    "empty": N_("empty message"),
    "not_logged_in": N_("not logged in"),
    "form_invalid": N_("the form was not accepted"),
    "tainted": N_("stale form (formhash)"),
    "thread_closed": N_("thread closed"),
    "no_permission": N_("no permission"),
    "edit_denied": N_("may not edit this post"),
    "thread_missing": N_("thread missing"),
    "pm_flood": N_("private messages too fast"),
    "pm_limit": N_("private message limit reached"),
    "pm_not_allowed": N_("private messages not allowed"),
    "pm_bad_recipient": N_("no such recipient"),
    "pm_blocked": N_("the recipient blocks private messages"),
    "login_failed": N_("login failed"),
    "captcha": N_("a captcha is asked"),
    "unencodable": N_("characters the board cannot store"),
    "not_sent": N_("never reached the board"),
    "unknown": N_("unclear whether stored"),
}


def outbox_note_label(note: str) -> str:
    """One outbox log note in the judge's language (see _NOTE_PATTERNS); nested notes too."""
    for pattern, msgid in _NOTE_PATTERNS:
        if m := re.match(pattern, note):
            parts = {k: (outbox_note_label(v) if k == "note" else v) for k, v in m.groupdict().items()}
            if parts.get("outcome") in POST_OUTCOME_LABELS:
                parts["outcome"] = _(POST_OUTCOME_LABELS[parts["outcome"]])
            return _(msgid).format(**parts)
    return note


# How a judge corrects a vote post (forumbot.desk.day.OVERRIDE_KINDS) and a night message.
OVERRIDE_KIND_LABELS: dict[str, str] = {
    "vote": N_("a vote"),
    "abstain": N_("an abstention"),
    "void": N_("a void"),
    "ignore": N_("not a vote"),
    "change": N_("a change of vote"),
}
NIGHT_OVERRIDE_LABELS: dict[str, str] = {"accept": N_("accepted as"), "ignore": N_("ignored")}

# The desk's change log (forumbot.store.judges.log_change): each action's name, and its detail as the
# web desk wrote it (English, with codes) read back into the judge's words. The log keeps what was
# written; a detail no pattern knows is shown as written.
DESK_ACTION_LABELS: dict[str, str] = {
    "outbox approve": N_("outbox: approved"),
    "outbox add": N_("outbox: draft added"),
    "outbox cancel": N_("outbox: cancelled"),
    "outbox send": N_("outbox: sent"),
    "undo": N_("undo"),
    "override": N_("post corrected"),
    "night override": N_("night message corrected"),
    "night override undo": N_("night correction cancelled"),
    "close day": N_("day closed"),
    "resolve night": N_("night resolved"),
    "night submission": N_("night submission entered"),
    "night correction": N_("night submission corrected"),
    "setup": N_("roles set up"),
    "revote call": N_("revote called"),
    "proxy vote": N_("proxy vote entered"),
    "poll": N_("board read"),
}


def _round(kind: str, n: str) -> str:
    return (_("night {n}") if kind == "night" else _("day {n}")).format(n=n)


def _item(item_id: str, kind: str) -> str:
    return f"#{item_id} {outbox_kind_label(kind)}"


def _night_what(what: str) -> str:
    """``accept kill 饺子`` / ``ignore`` (the desk's night override) in words."""
    from engine import ACTION_KINDS, ActionKind

    as_kind, _sep, rest = what.partition(" ")
    words = [_(NIGHT_OVERRIDE_LABELS[as_kind]) if as_kind in NIGHT_OVERRIDE_LABELS else as_kind]
    kind, _sep, targets = rest.partition(" ")
    if kind:
        try:
            words.append(ACTION_KINDS[ActionKind(kind)].name_zh if current_language() == "zh_CN" else kind)
        except (ValueError, KeyError):
            words.append(kind)
    if targets:
        words.append(targets)
    return " ".join(words)


_DESK_DETAILS: dict[str, str] = {
    "outbox approve": r"^#(?P<id>\d+) (?P<kind>\w+)(?: \(edited: revision (?P<rev>\d+)\))?$",
    "outbox add": r"^#(?P<id>\d+) (?P<kind>\w+) ← (?P<key>.*) \(tid (?P<tid>\d+)\)$",
    "outbox cancel": r"^#(?P<id>\d+) (?P<kind>\w+)(?:: (?P<why>.*))?$",
    "outbox send": r"^#(?P<id>\d+) (?P<kind>\w+) → (?P<status>\w+)(?: (?P<words>.*))?$",
    "undo": r"^(?P<undone>.*) → (?P<now>.*)$",
    "override": r"^day (?P<n>\d+) pid (?P<pid>\d+) → (?P<as>\w+)\s*(?P<target>.*?):\s*(?P<why>.*)$",
    "night override": r"^night (?P<n>\d+) (?P<mid>\S+) → (?P<what>.*?): (?P<why>.*)$",
    "night override undo": r"^night (?P<n>\d+) (?P<mid>\S+)(?:: (?P<why>.*))?$",
    "close day": r"^day (?P<n>\d+) → (?P<out>.*?)(?: \(forced: (?P<why>.*)\))?$",
    "resolve night": r"^night (?P<n>\d+) → (?P<out>.*)$",
    "revote call": r"^day (?P<n>\d+)(?:: (?P<text>.*))?$",
    "proxy vote": r"^day (?P<n>\d+) (?P<player>.*) → (?P<target>.*) at (?P<at>.*)$",
}


def desk_log_label(action: str, detail: str) -> tuple[str, str]:
    """One line of the desk's change log (action, detail) in the judge's words: «发件箱：已批准»,
    «#22 投票统计（已修改：第4版）», «第2日 → 第2夜»; message ids as :func:`message_label` names them."""
    name = _(DESK_ACTION_LABELS[action]) if action in DESK_ACTION_LABELS else action
    pattern = _DESK_DETAILS.get(action)
    m = re.match(pattern, detail) if pattern else None
    if m is None:
        return name, detail
    g = {k: v or "" for k, v in m.groupdict().items()}
    if action == "outbox approve":
        text = _item(g["id"], g["kind"])
        if g["rev"]:
            text += _(" (edited: revision {n})").format(n=g["rev"])
    elif action == "outbox add":
        text = _("{item} from {source} (thread {tid})").format(
            item=_item(g["id"], g["kind"]), source=g["key"], tid=g["tid"]
        )
    elif action == "outbox cancel":
        text = _item(g["id"], g["kind"]) + (_(": {why}").format(why=g["why"]) if g["why"] else "")
    elif action == "outbox send":
        text = f"{_item(g['id'], g['kind'])} → {outbox_status_label(g['status'])} {g['words']}".rstrip()
    elif action == "undo":
        text = f"{version_label(g['undone'])} → {version_label(g['now'])}"
    elif action == "override":
        what = _(OVERRIDE_KIND_LABELS[g["as"]]) if g["as"] in OVERRIDE_KIND_LABELS else g["as"]
        text = _("{day} post (pid {pid}) → {what}").format(day=_round("day", g["n"]), pid=g["pid"], what=what)
        text += f" {g['target']}" if g["target"] else ""
        text += _(": {why}").format(why=g["why"]) if g["why"] else ""
    elif action in ("night override", "night override undo"):
        text = f"{_round('night', g['n'])} {message_label(g['mid'])}"
        if action == "night override":
            text += f" → {_night_what(g['what'])}"
        text += _(": {why}").format(why=g["why"]) if g["why"] else ""
    elif action in ("close day", "resolve night"):
        kind = "day" if action == "close day" else "night"
        text = _("{round}: out {out}").format(round=_round(kind, g["n"]), out=g["out"])
        if g.get("why"):
            text += _(" (forced: {why})").format(why=g["why"])
    elif action == "revote call":
        text = _round("day", g["n"]) + (_(": {why}").format(why=g["text"]) if g["text"] else "")
    else:  # proxy vote
        text = _("{day}: {player} → {target} at {at}").format(
            day=_round("day", g["n"]), player=g["player"], target=g["target"], at=g["at"]
        )
    return name, text


_KEY_KINDS = {
    "deadline": "night_deadline",
    "extra_check": "extra_check",
    "lastwords": "last_words",
    "void_cutoff": "void_cutoff",
    "change_cutoff": "change_cutoff",
    "close": "close",
}


def moment_words(key: str) -> str:
    """A ledger key alone (``night1/deadline``, ``day1/revote2``; forumbot.runner.plan) in the judge's
    words, its kind read from the key: for the tick's lines, which hold only the keys."""
    found = re.match(r"^(?:night|day)\d+/(?P<what>[a-z_]+?)(?:\d+)?$", key)
    if found is None:
        return key
    what = found.group("what")
    kind = "revote_deadline" if what == "revote" else _KEY_KINDS.get(what)
    return key if kind is None else moment_key_label(key, kind)


# How the board shows a post (forumbot.parsers.records.PostState values) and which page it was read
# from (SourceKind values), for ``forumbot posts``.
POST_STATE_LABELS: dict[str, str] = {
    "normal": N_("shown normally"),
    "banned": N_("author banned: content masked"),
    "blocked": N_("blocked by a moderator"),
    "author_only": N_("visible to its author only"),
    "pending": N_("awaiting moderation"),
    "hidden": N_("partly hidden"),
    "deleted": N_("deleted (kept in the store)"),
}
SOURCE_LABELS: dict[str, str] = {
    "pc": N_("PC page"),
    "api": N_("mobile API"),
    "touch": N_("touch page"),
}


def post_state_label(code: str) -> str:
    return _(POST_STATE_LABELS[code]) if code in POST_STATE_LABELS else code


def source_label(code: str) -> str:
    return _(SOURCE_LABELS[code]) if code in SOURCE_LABELS else code


def post_event_label(kind: str, old: str | None, new: str | None, revision: int | None, note: str) -> str:
    """What happened to a post (forumbot.store.posts.StoredEvent) in the judge's words, from its kind,
    states and revision; the English note the store keeps is used only for an edit marker's words."""
    if kind == "revised":
        return _("new content: revision {n}").format(n=revision or "?")
    if kind == "reverted":
        return _("the content is again revision {n}").format(n=revision or "?")
    if kind == "edit_marker":
        return _("a new edit marker: {marker}").format(marker=note)
    if kind == "deleted":
        return _("no longer on the board: deleted, or hidden from us")
    if kind in ("state", "restored"):
        return _("shown as: {old} → {new}").format(
            old=post_state_label(old) if old else "-", new=post_state_label(new) if new else "-"
        )
    return f"{kind}: {note}"


# Last words (engine.lastwords): where they are given, how a window stands, and the posts that wait.
LAST_WORDS_WHERE_LABELS: dict[str, str] = {
    "discussion": N_("in the discussion thread"),
    "director": N_("to the judges, privately"),
}
LAST_WORDS_STATUS_LABELS: dict[str, str] = {
    "open": N_("still open"),
    "posted": N_("given in time"),
    "forfeited": N_("forfeited"),
}
HELD_ITEM_LABELS: dict[str, str] = {"day_start": N_("day-start post")}


def last_words_label(table: dict[str, str], code: str) -> str:
    return _(table[code]) if code in table else code


def held_item_label(code: str) -> str:
    """A post that waits for last words (a check result, a case post, R004's day-start post)."""
    if code in HELD_ITEM_LABELS:
        return _(HELD_ITEM_LABELS[code])
    return outbox_kind_label(code)


def login_failure_label(kind: str) -> str:
    """A recorded login failure's kind (the error's class name, forumbot/store/logins.py) as the error
    itself words it (``what``: «登录失败», «需要验证码»)."""
    from forumbot import errors

    cls = getattr(errors, kind, None)
    what = getattr(cls, "what", None) if isinstance(cls, type) else None
    return _(what) if isinstance(what, str) else kind


LOGIN_CLEARED_LABELS: dict[str, str] = {
    "explicit retry": N_("a judge's --retry"),
    "login succeeded": N_("a login that succeeded"),
}


def login_cleared_label(by: str) -> str:
    return _(LOGIN_CLEARED_LABELS[by]) if by in LOGIN_CLEARED_LABELS else by


def audience_label(audience: str) -> str:
    """Who an event is for (engine ``Audience`` as text: ``judge``, ``group:bandits``, ``player:饺子``)
    in the judge's words: «法官», «匪帮讨论组», «饺子（仅本人）»."""
    kind, _sep, name = audience.partition(":")
    if kind == "judge":
        return _("the judges")
    if kind == "public":
        return _("everyone")
    if kind == "group" and name:
        from engine import GROUP_ZH, GroupId

        try:
            return GROUP_ZH[GroupId(name)] if current_language() == "zh_CN" else f"{name} group"
        except (ValueError, KeyError):
            return name
    if kind == "player" and name:
        return _("{player} (only)").format(player=name)
    return audience


def colon() -> str:
    """The colon between a label and its text: «：» in Chinese, «: » in English."""
    return _(": ")
