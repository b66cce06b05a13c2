"""The errors forumbot raises, and what a judge can do about each.

Our side (a judge can fix it here)::

    ForumbotError
    ├── ConfigError            a wrong or missing setting; names the field and the fix
    │   └── GameFileError      a game file that does not describe a playable game
    │       └── GameFileErrors several of them, reported at once
    ├── UsageError             a command used wrongly (an unknown pid, a day not configured)
    └── StoreError             the store cannot be opened, read or written (names the store; never
        │                      shows SQL or its parameters: those go to the ``forumbot.store`` log)
        ├── StoreBusy          another process holds the store (named) past the busy timeout
        ├── StoreReadOnly      the store may be read but not written (file, mount, mode=ro, role)
        └── StoreFull          the disk (or the database's size limit) is full

The board's side (what the board answered; each carries the URL and the board's own words)::

    ForumbotError
    └── BoardError(url, board_message)
        ├── PollFailed         a read that did not finish (the poll report's own words, not re-wrapped)
        ├── NetworkError       no answer after the retries (connection refused, timeout)
        ├── UnparseablePage    a page that is none of the pages we know (broken, truncated)
        │   └── TruncatedPage  a page cut off before its end: nothing on it is trusted
        ├── ThreadNotFound     抱歉，指定的主题不存在或已被删除或正在被审核
        ├── ForumNotFound      抱歉，指定的版块不存在
        ├── NoPermission       阅读权限 / 没有权限 (logged in, still not allowed)
        ├── LoginRequired      您尚未登录 / the login page instead of the thread
        ├── LoginFailed        wrong password, locked IP (never retried automatically)
        ├── CaptchaRequired    the board asks for a seccode/secqaa: a human must log in
        ├── CCDefence          频繁刷新 / reload page / arithmetic question
        ├── AntiTheftPage      obfuscated JS instead of the page
        ├── BoardSystemError   Discuz! System Error, HTTP 5xx after the retries
        │   └── BoardUnavailable   HTTP 503/429 after the retries: overloaded, rate-limited, maintenance
        ├── RedirectLoop       more redirects than any page needs, or back to a URL already seen
        └── ApiClosed          mobile_is_closed / module_not_exists (fall back to PC pages)

Parsers raise only BoardError subclasses; the client raises those plus NetworkError; nothing else
escapes to the command line, which prints the message and exits non-zero.
"""

from __future__ import annotations

from forumbot.i18n import N_, _


class ForumbotError(Exception):
    """Base of every error forumbot raises on purpose."""


class ConfigError(ForumbotError):
    """A setting is wrong. The message names the setting and how to fix it."""

    def __init__(self, message: str, *, field: str | None = None, fix: str | None = None) -> None:
        self.field = field
        self.fix = fix
        self.message = message
        parts = [message]
        if field:
            parts.insert(0, f"[{field}]")
        if fix:
            parts.append(_("Fix: {fix}").format(fix=fix))
        super().__init__(" ".join(parts))


class GameFileError(ConfigError):
    """The game file (TOML) does not describe a playable game. ``line``: the line of the key in the
    file (1-based), when the problem came from a file and the key was found in it."""

    line: int | None = None


class GameFileErrors(GameFileError):
    """Several problems in one game file, all reported at once (``problems``, in the file's order) so a
    judge fixes them in one pass. ``field``/``line`` are the first problem's."""

    def __init__(self, problems: list[GameFileError]) -> None:
        self.problems = tuple(problems)
        head = _("{count} problems in the game file:").format(count=len(problems))
        super().__init__("\n  ".join([head, *(str(p) for p in problems)]))
        self.field = problems[0].field
        self.line = problems[0].line


class UsageError(ForumbotError):
    """A command was used wrongly (unknown pid, day not configured, ...)."""


class StaleChange(UsageError):
    """A change made from what a judge read before another judge (or process) changed it: the secret
    state's version (close a day, resolve a night, setup, undo) or an outbox item's revision. Refused,
    nothing written, naming who changed it, when (board time) and what, so the judge refreshes and
    decides again instead of silently overwriting the newer change (issue 20)."""

    def __init__(self, message: str, *, by: str = "", at: str = "", what: str = "") -> None:
        self.by, self.at, self.what = by, at, what
        super().__init__(message)


class LoginThrottled(UsageError):
    """Too many wrong passwords at the web desk lately, from one address or for one name: the message
    says until when (board time) no attempt is checked (issue 20)."""


class ReadIncomplete(UsageError):
    """A final step (closing a day) asked of a day whose threads were not read completely after the
    deadline: the message names each thread, its last complete read and what to run (issue 8)."""


class StoreError(ForumbotError):
    """The store cannot be opened, migrated or written."""


class StoreBusy(StoreError):
    """Another process held the store longer than the busy timeout; the message names it."""


class StoreReadOnly(StoreError):
    """A write was asked of a store that can only be read (a read-only file or mount, SQLite's
    ``mode=ro`` or ``query_only``, a PostgreSQL read-only transaction or role). Reading commands work on
    such a store; this names the store and what to change."""


class StoreFull(StoreError):
    """The disk holding the store, or the database's size limit, is full: nothing of the failed unit of
    work was written."""


class BoardError(ForumbotError):
    """Something the board sent (or failed to send). Always names the URL and the board's words."""

    what = N_("the board refused the request")

    def __init__(self, url: str, board_message: str = "", detail: str = "") -> None:
        self.url = url
        self.board_message = board_message.strip()
        self.detail = detail
        msg = _("{what}: {url}").format(what=_(self.what), url=url)
        if self.board_message:
            msg += _(" — the board says: {board_message}").format(board_message=self.board_message)
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


class PollFailed(BoardError):
    """A read of the board that did not finish (forumbot.poll's report): its message already names the
    threads not read, the board's first answer and what to run, so it is not wrapped once more in
    «the board refused the request» (the board may not have answered at all)."""

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)
        self.url, self.board_message, self.detail = "", "", ""


class NetworkError(BoardError):
    """No answer. ``maybe_sent`` is False when the request provably never left (connection refused,
    no such host, connect timeout): a login that never reached the board is no failed login."""

    what = N_("no answer from the board")
    maybe_sent = True


class UnparseablePage(BoardError):
    what = N_("cannot read this page")


class TruncatedPage(UnparseablePage):
    """A page that ends before its end: no closing ``</html>``, JSON cut mid-object, or a page that is
    not the last holding fewer posts than a page holds. Its posts are not stored as a complete read, so
    nothing missing from it is ever taken for deleted; the next poll reads it again."""

    what = N_("the page was cut off before its end (read again later; nothing on it was trusted)")


class RedirectLoop(BoardError):
    """The board kept redirecting: a loop, or more hops than a page ever needs."""

    what = N_("the board redirected too many times (a redirect loop?)")


class ThreadNotFound(BoardError):
    what = N_("thread not found (deleted, moved or awaiting moderation)")


class ForumNotFound(BoardError):
    what = N_("forum not found")


class NoPermission(BoardError):
    what = N_("no permission to read this")


class LoginRequired(BoardError):
    what = N_(
        "login required: set [board] username and password_env (the environment variable holding "
        "the password, e.g. FORUMBOT_PASSWORD) in the game file"
    )


class LoginFailed(BoardError):
    what = N_("login failed (not retried: Discuz! locks the IP after 5 failures)")


class CaptchaRequired(BoardError):
    """The board wants a captcha typed for this login. Not a wrong password: Discuz! asks it after checking
    the password (login_seccheck2) or on the form itself, and counts no failure, so none is recorded."""

    what = N_(
        "the board asks for a captcha (not a wrong password: no failed login recorded): log in once "
        "in a browser from this machine and type the captcha, then run the command again"
    )


class CCDefence(BoardError):
    what = N_("the board's anti-flood (CC) defence answered; slow down the poll interval")


class AntiTheftPage(BoardError):
    what = N_("the board served an anti-theft script page instead of the thread")


class BoardSystemError(BoardError):
    what = N_("the board had a system error")


class BoardUnavailable(BoardSystemError):
    """HTTP 503 or 429 after the retries: the board is overloaded, rate-limiting us or in maintenance."""

    what = N_("the board is overloaded or closed for maintenance: try again later")


class ApiClosed(BoardError):
    what = N_("the board's mobile API is closed or missing")


# --------------------------------------------------------------------------- what a judge does next
#
# The command line prints a failure as a short page in the judge's language: the message (what went
# wrong, with the URL, the store or the field), then one line saying what to do. Only the common
# failures have such a line; the others already say it in their message (a captcha, a game file's fix).

_WHAT_TO_DO: tuple[tuple[type[Exception], str], ...] = (
    (
        NetworkError,
        N_(
            "Open {root} in a browser to see whether the board is up, and check "
            "[board] url in the game file. Nothing read so far is lost (it is in the store); run the "
            "command again once the board answers."
        ),
    ),
    (
        BoardUnavailable,
        N_(
            "Wait a few minutes and run the command again. A post whose answer was unclear is looked "
            "for on the board before it is sent again, never posted twice."
        ),
    ),
    (
        LoginFailed,
        N_(
            "Check [board] username and the password in the environment variable named by "
            "[board] password_env, then run `forumbot login --retry` once."
        ),
    ),
    (
        StoreBusy,
        N_(
            "Wait until that process has finished, then run the command again. If it hangs, stop it by "
            "its pid: what it wrote before is kept, a half-done step is not."
        ),
    ),
    (
        StoreFull,
        N_("Free some disk space, then run the command again: nothing of the failed step was written."),
    ),
    (
        StoreReadOnly,
        N_("Reading commands still work; to change the game, give forumbot a store it may write."),
    ),
    (
        StoreError,
        N_("Check --store, or [game] store in the game file: the store is an SQLite path or a database URL."),
    ),
)


def what_to_do(exc: BaseException) -> str:
    """The line a judge acts on after ``exc`` ('' when the message already says it)."""
    for cls, msgid in _WHAT_TO_DO:
        if isinstance(exc, cls):
            url = getattr(exc, "url", "") or ""
            root = url.split("/forum.php")[0].split("/member.php")[0].split("/home.php")[0] or url
            return _(msgid).format(root=root)
    return ""


def error_page(exc: BaseException, *, headline: str = "") -> str:
    """``exc`` as the command line shows it: «forumbot：» with the message, then «怎么办：…» when there is
    something to do (:func:`what_to_do`)."""
    text = _("{prog}: {exc}").format(prog="forumbot", exc=headline or exc)
    todo = what_to_do(exc)
    return text + ("\n  " + _("What to do: {todo}").format(todo=todo) if todo else "")
