"""Discussion attendance: which posts are *valid* (有效发言), and how many each player made in a round.

R001 §四.2.1 drowns a player with fewer than 2 valid discussion posts in each of two consecutive rounds,
but never says what a valid post is (AMB-20). The default here: a post by a roster player inside the
round window with at least two meaningful characters once quotes, smileys, markup, whitespace and
punctuation are gone; a bare bump ("顶", "+1", "1", "dd" ...), a smiley-only or a quote-only post does
not count. Everything is configurable through :class:`AttendanceRules`, and every post gets a verdict
with its reason so the judge can overrule it.

The round window (AMB-24): previous close ≤ t < this close; round 1 starts at its case post.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from functools import lru_cache

from engine.flags_day import DayFlags

__all__ = [
    "DEFAULT_BUMP_WORDS",
    "AttendanceResult",
    "AttendanceRules",
    "DiscussionPost",
    "PostAttendance",
    "PostAttendanceStatus",
    "RoundWindow",
    "count_valid_posts",
    "judge_discussion_post",
    "meaningful_text",
    "round_window",
]

DEFAULT_BUMP_WORDS: frozenset[str] = frozenset(
    {
        "顶",
        "up",
        "dd",
        "ding",
        "1",
        "沙发",
        "板凳",
        "地板",
        "前排",
        "路过",
        "签到",
        "mark",
        "插眼",
        "围观",
        "打卡",
    }
)


@dataclass(frozen=True, slots=True)
class AttendanceRules:
    """What makes a discussion post valid (AMB-20). All defaults are the proposal."""

    min_meaningful_chars: int = 2
    count_bumps: bool = False
    count_quote_only: bool = False
    count_smiley_only: bool = False
    bump_words: frozenset[str] = DEFAULT_BUMP_WORDS
    min_posts: int = 2  # R001: fewer than this in two consecutive rounds ⇒ drowned

    @classmethod
    def from_flags(cls, flags: DayFlags) -> AttendanceRules:
        return cls(
            min_meaningful_chars=flags.attendance_min_meaningful_chars,
            count_bumps=flags.attendance_count_bumps,
            min_posts=flags.r001_min_discussion_posts,
        )


@dataclass(frozen=True, slots=True)
class DiscussionPost:
    """One post of the discussion thread, as the page parser read it (``text`` without quote blocks)."""

    pid: int
    author: str
    at: datetime
    text: str
    has_quote: bool = False
    smiley_only: bool = False  # the page showed only smiley images (their markup is not in ``text``)
    floor: int | None = None

    def __post_init__(self) -> None:
        if self.at.tzinfo is None or self.at.utcoffset() is None:
            raise ValueError(f"discussion post pid={self.pid}: time {self.at!r} must be timezone-aware")


class PostAttendanceStatus(StrEnum):
    VALID = "valid"
    TOO_SHORT = "too_short"
    BUMP = "bump"
    QUOTE_ONLY = "quote_only"
    SMILEY_ONLY = "smiley_only"
    EMPTY = "empty"
    OUTSIDE_WINDOW = "outside_window"
    NOT_A_PLAYER = "not_a_player"


@dataclass(frozen=True, slots=True)
class PostAttendance:
    pid: int
    author: str
    at: datetime
    status: PostAttendanceStatus
    reason: str  # one line, Chinese

    @property
    def valid(self) -> bool:
        return self.status is PostAttendanceStatus.VALID


@dataclass(frozen=True, slots=True)
class RoundWindow:
    """start ≤ t < end."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        for name, t in (("start", self.start), ("end", self.end)):
            if t.tzinfo is None or t.utcoffset() is None:
                raise ValueError(f"round window {name} {t!r} must be timezone-aware")
        if self.end <= self.start:
            raise ValueError(f"round window ends ({self.end}) before it starts ({self.start})")

    def __contains__(self, t: object) -> bool:
        return isinstance(t, datetime) and self.start <= t < self.end


def round_window(
    close: datetime, *, previous_close: datetime | None = None, case_post_at: datetime | None = None
) -> RoundWindow:
    """The discussion window of a round (AMB-24): from the previous close, or for round 1 the case post."""
    start = previous_close if previous_close is not None else case_post_at
    if start is None:
        raise ValueError("round_window needs previous_close (round ≥ 2) or case_post_at (round 1)")
    return RoundWindow(start, close)


@dataclass(frozen=True, slots=True)
class AttendanceResult:
    counts: Mapping[str, int]  # every roster player, zero included
    posts: tuple[PostAttendance, ...]  # one per input post, input order
    min_posts: int = 2

    def deficient(self, players: Iterable[str] | None = None) -> frozenset[str]:
        """Players (default: all counted) with fewer valid posts than the minimum."""
        names = self.counts.keys() if players is None else players
        return frozenset(p for p in names if self.counts.get(p, 0) < self.min_posts)


# --- text ----------------------------------------------------------------------------------------------

_QUOTE_BLOCK = re.compile(r"\[quote(?:=[^\]]*)?\](?:(?!\[quote)[\s\S])*?\[/quote\]", re.IGNORECASE)
_IMG = re.compile(r"\[(img|attach|media|flash|audio)[^\]]*\][\s\S]*?\[/\1\]", re.IGNORECASE)
_BBCODE_TAG = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.IGNORECASE)
_EDIT_MARK = re.compile(r"本帖最后由\s*\S+\s*于\s*[\d\-/: ]+\s*编辑")
_SMILEY = re.compile(
    r"\{:\d+_\d+:\}"  # {:3_44:}
    r"|\[em:?\d+:?\]|\[em\][\s\S]*?\[/em\]"
    r"|:(?:lol|loveliness|funk|curse|dizzy|shutup|sleepy|hug|victory|time|kiss|handshake|call):?"
    r"|:'\(|:[)(DoP$@LQ]|;P",
)


_QUOTE_TAG = re.compile(r"\[/?quote(?:=[^\]]*)?\]", re.IGNORECASE)


def _strip_quotes(text: str) -> str:
    if "[" not in text:  # every quote pattern starts with "[": nothing to strip
        return text
    prev = None
    while prev != text:
        prev = text
        text = _QUOTE_BLOCK.sub("", text)
    return _QUOTE_TAG.sub("", text)


class _LettersAndDigits(dict[int, int | None]):
    """``str.translate`` table keeping Unicode letters and digits (categories L* and N*) and deleting
    everything else, each character's category looked up once: the per-character generator over
    ``unicodedata.category`` was a tenth of a 100,000-post tally."""

    def __missing__(self, code: int) -> int | None:
        keep = code if unicodedata.category(chr(code))[0] in "LN" else None
        self[code] = keep
        return keep


_KEEP_LETTERS = _LettersAndDigits()


def _meaningful(quote_free: str) -> str:
    t = quote_free
    if "[" in t:  # images and markup start with "["
        t = _IMG.sub("", t)
    if ":" in t or ";" in t or "[" in t:  # every smiley has one of them: most posts have none
        t = _SMILEY.sub("", t)
    if "[" in t:
        t = _BBCODE_TAG.sub("", t)
    if "本帖最后由" in t:
        t = _EDIT_MARK.sub("", t)
    return t.translate(_KEEP_LETTERS)


def meaningful_text(text: str) -> str:
    """Letters and digits left once quotes, images, smileys, markup, the edit marker and punctuation go."""
    return _meaningful(_strip_quotes(text))


@lru_cache(maxsize=64)
def _bump_table(words: frozenset[str]) -> tuple[tuple[str, ...], frozenset[str]]:
    """The bump words casefolded, and every character they use."""
    lowered = tuple(w.casefold() for w in words if w)
    return lowered, frozenset("".join(lowered))


def _only_bumps(s: str, words: Collection[str]) -> bool:
    """True when ``s`` is one or more bump words run together ("顶顶顶", "up up", "111")."""
    if not s:
        return False
    lowered, chars = _bump_table(words if isinstance(words, frozenset) else frozenset(words))
    if not chars.issuperset(s):  # a character no bump word has: not bumps (most posts end here)
        return False
    ok = [False] * (len(s) + 1)
    ok[0] = True
    for i in range(len(s)):
        if not ok[i]:
            continue
        for w in lowered:
            if s.startswith(w, i):
                ok[i + len(w)] = True
    return ok[len(s)]


Judged = tuple[PostAttendanceStatus, str]  # a text's status and reason, whoever posted it and when


def _judge_text(text: str, has_quote: bool, smiley_only: bool, rules: AttendanceRules) -> Judged:
    """The status and reason of a post's content under ``rules``: a pure function of its arguments,
    so a count judges each distinct content once (:func:`count_valid_posts`)."""
    quote_free = _strip_quotes(text)
    core = _meaningful(quote_free).casefold()
    if not core:
        if has_quote or quote_free.strip() != text.strip():
            if rules.count_quote_only:
                return PostAttendanceStatus.VALID, "仅引用（按设置计为有效发言）"
            return PostAttendanceStatus.QUOTE_ONLY, "仅引用他人发言，无自己的内容，不计有效发言"
        if smiley_only or _SMILEY.search(quote_free):  # asked only here: the only place it matters
            if rules.count_smiley_only:
                return PostAttendanceStatus.VALID, "仅表情（按设置计为有效发言）"
            return PostAttendanceStatus.SMILEY_ONLY, "仅表情，不计有效发言"
        return PostAttendanceStatus.EMPTY, "无实际内容，不计有效发言"
    if not rules.count_bumps and _only_bumps(core, rules.bump_words):
        return PostAttendanceStatus.BUMP, f"灌水/顶帖（{core[:10]}），不计有效发言"
    if len(core) < rules.min_meaningful_chars:
        return (
            PostAttendanceStatus.TOO_SHORT,
            f"有效字数 {len(core)} 少于 {rules.min_meaningful_chars}，不计有效发言",
        )
    return PostAttendanceStatus.VALID, "有效发言"


def judge_discussion_post(post: DiscussionPost, rules: AttendanceRules = AttendanceRules()) -> PostAttendance:
    """Is this post valid for attendance, ignoring who wrote it and when? (See :func:`count_valid_posts`.)"""
    status, reason = _judge_text(post.text, post.has_quote, post.smiley_only, rules)
    return PostAttendance(post.pid, post.author, post.at, status, reason)


_NOT_A_PLAYER_REASON = "非本局玩家（角色账号），不计"


def count_valid_posts(
    posts: Iterable[DiscussionPost],
    roster: Collection[str],
    window: RoundWindow,
    rules: AttendanceRules = AttendanceRules(),
    *,
    reason_apart: Callable[[str], str] | None = None,
) -> AttendanceResult:
    """Valid discussion posts per roster player inside ``window``, with a verdict for every post.

    Posts by non-players and posts outside the window get a verdict and count for nobody. Only
    role-account posts count (R001 §四.9): the caller passes role names as ``roster``.
    ``reason_apart`` gives the reason of a non-player's verdict from the author's name (the desk says
    who they are: a judge, the dead, a spectator), asked once per name; without it the reason says
    «not a player».

    Each distinct content (text, quote and smiley flags) is judged once per count: a thread repeats
    its bumps and stock phrases thousands of times, and the verdict depends on nothing else.
    """
    counts: dict[str, int] = dict.fromkeys(roster, 0)
    out: list[PostAttendance] = []
    add = out.append
    judged: dict[tuple[str, bool, bool], Judged] = {}
    apart: dict[str, str] = {}
    start, end = window.start, window.end
    valid = PostAttendanceStatus.VALID
    for post in posts:
        author, at = post.author, post.at
        if author not in counts:
            reason = apart.get(author)
            if reason is None:
                reason = apart[author] = (
                    _NOT_A_PLAYER_REASON if reason_apart is None else reason_apart(author)
                )
            add(PostAttendance(post.pid, author, at, PostAttendanceStatus.NOT_A_PLAYER, reason))
            continue
        if not start <= at < end:  # RoundWindow's test, inline
            where = "早于本轮开始" if at < start else "晚于本轮截止"
            add(
                PostAttendance(
                    post.pid, author, at, PostAttendanceStatus.OUTSIDE_WINDOW, f"{where}，不计入本轮"
                )
            )
            continue
        key = (post.text, post.has_quote, post.smiley_only)
        found = judged.get(key)
        if found is None:
            found = judged[key] = _judge_text(*key, rules)
        if found[0] is valid:
            counts[author] += 1
        add(PostAttendance(post.pid, author, at, found[0], found[1]))
    return AttendanceResult(counts=counts, posts=tuple(out), min_posts=rules.min_posts)
