"""Reading a sign-up thread (报名帖) as a careful judge does: each post gets a verdict and a Chinese
reason, as votes do, and the thread gives the list of those who play and the substitutes' list (替补).

What counts, post by post in the order the board shows them (pid order):

* a sign-up: a clause that is a sign-up phrase on its own — «报名», «报名+1», «+1», «我要参加», «我也报»,
  «算我一个», «新人求带» — anywhere in the post («新人，求带，报名»). The phrase inside a sentence or a
  question («还能报名吗？», «报名的人好多») is chatter, flagged for the judge when it names 报名;
* a substitute's sign-up: «报名替补», «替补+1», «我当替补»: straight to the substitutes' list;
* a withdrawal: «退出», «取消报名», «不报了», «我不参加了»: a player leaves the list, and the first
  substitute moves up (递补: the list stays full, the order of sign-up is the order of the lists);
* after the closing time (the board shows minutes: a post shown at the closing minute is late), a
  sign-up or a withdrawal is refused as late; chatter stays chatter;
* a second sign-up by one account counts once (the first one), a withdrawal by one who is not on
  either list changes nothing, the judges' own posts and the thread's opening post are not read;
* beyond the cap, a sign-up goes to the substitutes' list.

A post both signing up and withdrawing, or signing up someone else («帮X报名»), is not guessed: it
changes nothing and is flagged for the judge. The reader is pure: no I/O, never raises on any text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from zoneinfo import ZoneInfo

from forumbot.parsers.records import Post, PostState
from forumbot.parsers.votes import normalize_vote_text

__all__ = [
    "SignupCode",
    "SignupIntent",
    "SignupResult",
    "SignupVerdict",
    "read_signup",
    "read_signup_intent",
]


class SignupIntent(StrEnum):
    """What a post's text asks for, before the list and the clock are looked at."""

    JOIN = "join"
    SUBSTITUTE = "substitute"
    WITHDRAW = "withdraw"
    NONE = "none"  # chatter
    UNCLEAR = "unclear"  # sign-up words a judge must read (a question, both at once, for someone else)


class SignupCode(StrEnum):
    """A post's verdict (codes stay English; the reason says it in Chinese)."""

    JOINED = "joined"  # on the list of players
    SUBSTITUTE = "substitute"  # on the substitutes' list
    WITHDRAWN = "withdrawn"  # left the list (or the substitutes' list)
    DUPLICATE = "duplicate"  # signed up already: counts once
    NOT_SIGNED_UP = "not_signed_up"  # withdraws, but was on no list
    LATE = "late"  # after the closing time: refused
    JUDGE = "judge"  # a judge's own post
    OPENING = "opening"  # the thread's first post (the judges' announcement)
    CHATTER = "chatter"  # no sign-up in it
    UNCLEAR = "unclear"  # changes nothing; the judge decides
    UNREADABLE = "unreadable"  # hidden, blocked, anonymous: the text cannot be read


@dataclass(frozen=True, slots=True)
class SignupVerdict:
    pid: int
    floor: int | None
    author: str
    uid: int | None
    at: datetime  # UTC, the post's earliest possible time
    code: SignupCode
    reason: str  # Chinese, for the judge and the list post
    needs_review: bool = False
    excerpt: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "pid": self.pid,
            "floor": self.floor,
            "author": self.author,
            "uid": self.uid,
            "at": self.at.isoformat(),
            "code": self.code.value,
            "reason": self.reason,
            "needs_review": self.needs_review,
            "excerpt": self.excerpt,
        }


@dataclass(frozen=True, slots=True)
class SignupResult:
    """The thread read up to ``closes_at``: the verdicts, the players and the substitutes in order, and
    each account's uid as the board showed it (where the identity notices are sent)."""

    verdicts: tuple[SignupVerdict, ...]
    players: tuple[str, ...]
    substitutes: tuple[str, ...]
    uids: dict[str, int] = field(default_factory=dict)
    cap: int | None = None

    @property
    def review(self) -> tuple[SignupVerdict, ...]:
        return tuple(v for v in self.verdicts if v.needs_review)


# --- the text ---------------------------------------------------------------------------------------------

_SUBJECT = r"(?:我|俺|本人|咱)?(?:也|还)?(?:来|要|想|决定)?"
_TAIL = r"(?:一个|一下|个名|名)?(?:\+1|\+1)?(?:了|吧|啦|哦|呀|哈|~|!|。|\.)*"
_JOIN = re.compile(
    rf"^(?:新人)?{_SUBJECT}(?:报名|报|参加|参与|加入|求带|玩|上车|算我一个|\+1|加一)(?:参加|游戏|本局|这局)?{_TAIL}$"
)
_NEWBIE = re.compile(r"^(?:新人|萌新|小白)(?:一枚|一个)?(?:求带|报道|报到)?(?:[!~。.]*)$")
_SUBSTITUTE = re.compile(
    rf"^{_SUBJECT}(?:报名替补|报替补|替补报名|当替补|做替补|替补|候补|报名候补)(?:\+1|\+1)?(?:一个|一下)?{_TAIL}$"
)
_WITHDRAW = re.compile(
    rf"^(?:算了|还是)?{_SUBJECT}(?:退出|取消报名|撤回报名|撤销报名|退出报名|不报了|不报名了|不参加了|不玩了|退了|"
    rf"退报|来不了了?|没空了?|临时有事(?:，|,)?退出)(?:报名|游戏|本局)?{_TAIL}$"
)
_QUESTION = re.compile(r"[?？吗么嘛呢]\s*$|^(?:谁|还有|有没有|能不能|可以|怎么|什么时候)")
_SIGNUP_WORD = re.compile(r"报名|替补|参加|退出")
_FOR_OTHER = re.compile(r"(?:帮|替|给|代)\S{1,16}?(?:报名|报个名|报一个)")
_CLAUSES = re.compile(r"[\n,;!。.、~…]+|(?<=\?)|(?<=[报名1])\s+")
_SPACE = re.compile(r"\s+")


def _clauses(text: str) -> list[str]:
    out = []
    for part in _CLAUSES.split(text):
        part = _SPACE.sub("", part).strip(" .")
        if part:
            out.append(part)
    return out


def read_signup_intent(text: str) -> tuple[SignupIntent, str]:
    """What ``text`` asks for (a sign-up thread's post), with a Chinese note when it is unclear."""
    norm = normalize_vote_text(text).replace("＋", "+")
    intents: set[SignupIntent] = set()
    questions: list[str] = []
    for clause in _clauses(norm):
        if _FOR_OTHER.search(clause):
            return SignupIntent.UNCLEAR, "替别人报名：须由本人报名，请法官确认"
        if _SUBSTITUTE.match(clause):
            intents.add(SignupIntent.SUBSTITUTE)
        elif _WITHDRAW.match(clause):
            intents.add(SignupIntent.WITHDRAW)
        elif _JOIN.match(clause) or _NEWBIE.match(clause):
            intents.add(SignupIntent.JOIN)
        elif _SIGNUP_WORD.search(clause) and (_QUESTION.search(clause) or "?" in clause):
            questions.append(clause)
    if SignupIntent.WITHDRAW in intents and len(intents) > 1:
        return SignupIntent.UNCLEAR, "同一帖里既报名又退出，请法官确认"
    if SignupIntent.SUBSTITUTE in intents:
        return SignupIntent.SUBSTITUTE, ""
    if intents:
        return intents.pop(), ""
    if questions:
        return SignupIntent.UNCLEAR, f"「{questions[0]}」像是在提问，不算报名，请法官确认"
    return SignupIntent.NONE, ""


# --- the thread -------------------------------------------------------------------------------------------


def _excerpt(text: str) -> str:
    one = " ".join(normalize_vote_text(text).split())
    return one if len(one) <= 40 else one[:39] + "…"


def _local(t: datetime, tz: ZoneInfo) -> str:
    return t.astimezone(tz).strftime("%m-%d %H:%M")


def read_signup(
    posts: Iterable[Post],
    *,
    closes_at: datetime,
    cap: int | None,
    judges: Collection[str] = (),
    tz: ZoneInfo | None = None,
) -> SignupResult:
    """The sign-up thread's ``posts`` read up to ``closes_at`` (UTC, exclusive): each post's verdict,
    the players (at most ``cap``; None: no cap) and the substitutes, both in sign-up order."""
    zone = tz or ZoneInfo("Asia/Shanghai")
    players: list[str] = []
    subs: list[str] = []
    joined_at: dict[str, int | None] = {}  # account → the floor (or pid) of the sign-up that counts
    uids: dict[str, int] = {}
    verdicts: list[SignupVerdict] = []
    judge_set = set(judges)
    ordered = sorted(posts, key=lambda p: p.pid)

    def where(name: str) -> str:
        f = joined_at.get(name)
        return f"第{f}楼" if f is not None else "之前"

    for p in ordered:

        def verdict(code: SignupCode, reason: str, review: bool = False, p: Post = p) -> None:
            verdicts.append(
                SignupVerdict(
                    p.pid, p.floor, p.author, p.uid, p.posted_at, code, reason, review, _excerpt(p.text)
                )
            )

        if p.first:
            verdict(SignupCode.OPENING, "主楼（报名说明），不计")
            continue
        if p.author in judge_set:
            verdict(SignupCode.JUDGE, "法官的帖子，不计")
            continue
        if not p.author or p.state in (PostState.BANNED, PostState.BLOCKED, PostState.DELETED):
            verdict(SignupCode.UNREADABLE, "匿名、被屏蔽或已删除的帖子，不计", review=bool(p.author))
            continue
        intent, note = read_signup_intent(p.text)
        if (
            p.state in (PostState.AUTHOR_ONLY, PostState.HIDDEN, PostState.PENDING)
            and intent is SignupIntent.NONE
        ):
            verdict(SignupCode.UNREADABLE, "内容看不到（仅作者可见、隐藏或待审核），请法官确认", review=True)
            continue
        if intent is SignupIntent.NONE:
            verdict(SignupCode.CHATTER, "不是报名或退出")
            continue
        late = p.posted_at >= closes_at
        if late:
            verdict(
                SignupCode.LATE,
                f"报名截止（{_local(closes_at, zone)}）后发帖，不予受理",
                review=intent is SignupIntent.UNCLEAR,
            )
            continue
        if intent is SignupIntent.UNCLEAR:
            verdict(SignupCode.UNCLEAR, note, review=True)
            continue
        edited_late = p.edit is not None and p.edit.at is not None and p.edit.at >= closes_at
        name = p.author
        if p.uid is not None:
            uids.setdefault(name, p.uid)
        if intent is SignupIntent.WITHDRAW:
            if name in players:
                players.remove(name)
                joined_at.pop(name, None)
                reason = "退出报名"
                if subs and (cap is None or len(players) < cap):
                    up = subs.pop(0)
                    players.append(up)
                    reason += f"；替补 {up} 递补"
                verdict(SignupCode.WITHDRAWN, reason, review=edited_late)
            elif name in subs:
                subs.remove(name)
                joined_at.pop(name, None)
                verdict(SignupCode.WITHDRAWN, "退出替补", review=edited_late)
            else:
                verdict(SignupCode.NOT_SIGNED_UP, "没有报名，退出不改变名单")
            continue
        if name in players or name in subs:
            on = "名单" if name in players else "替补名单"
            verdict(SignupCode.DUPLICATE, f"已在{on}上（{where(name)}），重复报名只计一次")
            continue
        joined_at[name] = p.floor
        edit_note = "；帖子在截止后被编辑过，请法官确认" if edited_late else ""
        if intent is SignupIntent.SUBSTITUTE:
            subs.append(name)
            verdict(SignupCode.SUBSTITUTE, f"报名替补，替补第{len(subs)}位" + edit_note, review=edited_late)
        elif cap is not None and len(players) >= cap:
            subs.append(name)
            verdict(
                SignupCode.SUBSTITUTE,
                f"名额已满（{cap}人），列为替补第{len(subs)}位" + edit_note,
                review=edited_late,
            )
        else:
            players.append(name)
            verdict(SignupCode.JOINED, f"报名成功，第{len(players)}位" + edit_note, review=edited_late)
    return SignupResult(tuple(verdicts), tuple(players), tuple(subs), uids, cap)
