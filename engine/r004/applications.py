"""R004 delay and acceleration applications (延时/加速申请), counted from the process thread (进程帖).

“未出局角色可于白天在进程帖中申请加速或延时。申请加速或延时的人数大于等于存活人数的一半，即判定加速或延时成功。
延时申请截至讨论日结束前三小时（一般为最后一个自然日18:00），加速申请截止至加速成功后的讨论日结束前三小时。
执行加速时，所有人不可改票，且发言不足或未投票者将不被判罚。延迟成功时，不再视为“执行加速”状态。”

Readings (rules.md AMB-82, AMB-85; flags in :class:`~engine.flags_day.DayFlags`):

* an application counts from a living role, once per kind; a dead role or a non-player counts nothing;
  posts before the day opened count nothing;
* it succeeds at the first moment the applicants are ≥ half the living roles (2 × applicants ≥ living);
* delay applications close 3 h before the day's current end; acceleration applications close 3 h
  before the end the day would have once accelerated (``r004_acceleration_shortens_days`` earlier);
* a granted acceleration ends the day earlier and starts the accelerated state; a granted delay moves
  the current end ``r004_delay_extends_days`` later and ends any accelerated state;
* the director's automatic acceleration is an input (AMB-82): it starts the accelerated state at its
  moment; the end it sets is the caller's ``close`` (the game file's day close);
* each kind is granted at most once a day; later applications of a granted kind count nothing;
* withdrawing (``取消延时``…) takes an applicant off the count before success
  (``r004_application_withdrawal = "explicit"``) or counts nothing (``"none"``).

The text of each post is read by forumbot/parsers/applications.py; this module only counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from enum import StrEnum

from engine.flags_day import DayFlags

__all__ = [
    "ApplicationKind",
    "ApplicationPost",
    "ApplicationVerdict",
    "ApplicationsInput",
    "ApplicationsResult",
    "judge_applications",
]

CLOSING_HOURS = 3  # “讨论日结束前三小时”


class ApplicationKind(StrEnum):
    DELAY = "delay"  # 申请延时 / 延时申请 / 延时
    ACCELERATE = "accelerate"  # 申请加速 / 加速申请 / 加速
    WITHDRAW_DELAY = "withdraw_delay"  # 取消延时 / 撤回延时申请
    WITHDRAW_ACCELERATE = "withdraw_accelerate"
    NONE = "none"  # chat
    UNCLEAR = "unclear"  # mentions an application but does not clearly make one (the judges look)


_ZH = {
    ApplicationKind.DELAY: "延时",
    ApplicationKind.ACCELERATE: "加速",
    ApplicationKind.WITHDRAW_DELAY: "延时",
    ApplicationKind.WITHDRAW_ACCELERATE: "加速",
}


@dataclass(frozen=True, slots=True)
class ApplicationPost:
    """One post of the process thread, read: who, when, and what it applies for."""

    pid: int
    author: str
    at: datetime
    kind: ApplicationKind
    note: str = ""  # the reader's remark (e.g. why it is unclear)
    at_latest: datetime | None = None  # the page shows the time only to an interval (touch «3 小时前»)


@dataclass(frozen=True, slots=True)
class ApplicationVerdict:
    pid: int
    author: str
    at: datetime
    kind: ApplicationKind
    counted: bool  # it changed the count (an application or a withdrawal that took effect)
    reason: str  # Chinese, for the judges' table
    needs_review: bool = False


@dataclass(frozen=True, slots=True)
class ApplicationsInput:
    """``close``: the day's end before any application (timetable or game file). ``living``: the roles
    alive during the day; ``roster``: every role account (to tell the dead from non-players).
    ``auto_accelerated_at``: the director's automatic acceleration, if any (AMB-82: an input)."""

    posts: tuple[ApplicationPost, ...]
    living: frozenset[str]
    roster: tuple[str, ...]
    opens: datetime
    close: datetime
    auto_accelerated_at: datetime | None = None
    flags: DayFlags = field(default_factory=DayFlags)
    display_tz: tzinfo | None = None


@dataclass(frozen=True, slots=True)
class ApplicationsResult:
    """What the applications decided. ``close``: the day's end after them; ``accelerated_at``: the
    moment the (last) accelerated state began (None: never accelerated); ``acceleration_ended_at``: when
    a granted delay ended it (None: accelerated until the close). ``accelerated_at ≤ t <
    acceleration_ended_at`` is the span in which no change is allowed (DayTimes.accelerated_until)."""

    close: datetime
    accelerated_at: datetime | None
    acceleration_granted_at: datetime | None
    delay_granted_at: datetime | None
    acceleration_ended_at: datetime | None
    delay_applicants: tuple[str, ...]
    acceleration_applicants: tuple[str, ...]
    needed: int  # applicants needed: ≥ half the living roles
    verdicts: tuple[ApplicationVerdict, ...]

    def verdict(self, pid: int) -> ApplicationVerdict:
        for v in self.verdicts:
            if v.pid == pid:
                return v
        raise KeyError(pid)


def _clock(t: datetime, tz: tzinfo | None) -> str:
    lt = t.astimezone(tz) if tz is not None else t
    return f"{lt.month}/{lt.day} {lt.hour:02d}:{lt.minute:02d}"


def judge_applications(inp: ApplicationsInput) -> ApplicationsResult:
    """A verdict for every post and the delay/acceleration granted, in time order (see the module doc)."""
    flags, tz = inp.flags, inp.display_tz
    living = inp.living
    needed = (len(living) + 1) // 2  # 2 × applicants ≥ living
    shorten = timedelta(days=flags.r004_acceleration_shortens_days)
    extend = timedelta(days=flags.r004_delay_extends_days)
    close = inp.close
    accelerated_at: datetime | None = None
    acc_granted: datetime | None = None
    delay_granted: datetime | None = None
    acc_ended: datetime | None = None
    last_start: datetime | None = None  # the last accelerated span's start, kept after a delay ends it
    applicants: dict[ApplicationKind, list[str]] = {ApplicationKind.DELAY: [], ApplicationKind.ACCELERATE: []}
    verdicts: list[ApplicationVerdict] = []
    auto = inp.auto_accelerated_at

    def start_auto(before: datetime | None) -> None:
        nonlocal auto, accelerated_at, last_start
        if auto is not None and (before is None or auto <= before):
            if accelerated_at is None and (delay_granted is None or auto > delay_granted):
                accelerated_at = last_start = auto
            auto = None

    for p in sorted(inp.posts, key=lambda x: (x.at, x.pid)):
        start_auto(p.at)

        def out(counted: bool, reason: str, review: bool = False, p: ApplicationPost = p) -> None:
            verdicts.append(ApplicationVerdict(p.pid, p.author, p.at, p.kind, counted, reason, review))

        if p.kind is ApplicationKind.NONE:
            out(False, p.note or "非申请内容")
            continue
        if p.kind is ApplicationKind.UNCLEAR:
            out(False, p.note or "提到延时/加速，但看不出是在申请，请法官确认", True)
            continue
        what = _ZH[p.kind]
        if p.author not in inp.roster:
            out(False, f"非玩家的{what}申请不计")
            continue
        if p.author not in living:
            out(False, f"已出局角色的{what}申请不计")
            continue
        if p.at < inp.opens:
            out(False, f"早于本讨论日开始（{_clock(inp.opens, tz)}），不计")
            continue
        if p.at >= close:
            out(False, f"讨论日已结束（{_clock(close, tz)}），不计")
            continue
        base = (
            ApplicationKind.DELAY
            if p.kind in (ApplicationKind.DELAY, ApplicationKind.WITHDRAW_DELAY)
            else (ApplicationKind.ACCELERATE)
        )
        granted = delay_granted if base is ApplicationKind.DELAY else acc_granted
        names = applicants[base]
        if granted is not None:
            out(False, f"本日{what}已于 {_clock(granted, tz)} 成功，不再计数")
            continue
        if p.kind in (ApplicationKind.WITHDRAW_DELAY, ApplicationKind.WITHDRAW_ACCELERATE):
            if flags.r004_application_withdrawal == "none":
                out(False, f"{what}申请不可撤回（设置 r004_application_withdrawal）")
            elif p.author in names:
                names.remove(p.author)
                out(True, f"撤回{what}申请（现 {len(names)}/{needed} 人）")
            else:
                out(False, f"未申请{what}，无需撤回")
            continue
        if base is ApplicationKind.DELAY:
            deadline = close - timedelta(hours=CLOSING_HOURS)
            if p.at >= deadline:
                out(False, f"延时申请已于讨论日结束前三小时（{_clock(deadline, tz)}）截止")
                continue
        else:
            if accelerated_at is not None:
                out(False, f"已于 {_clock(accelerated_at, tz)} 起执行加速，不再计数")
                continue
            deadline = close - shorten - timedelta(hours=CLOSING_HOURS)
            if p.at >= deadline:
                out(False, f"加速申请已截止（加速后讨论日结束前三小时：{_clock(deadline, tz)}）")
                continue
        if p.author in names:
            out(False, f"重复申请{what}，每人只计一次")
            continue
        if p.at_latest is not None and p.at_latest >= deadline:
            out(False, f"发帖时间不精确（可能晚于截止 {_clock(deadline, tz)}），暂不计，请法官确认", True)
            continue
        names.append(p.author)
        if len(names) < needed:
            out(True, f"{what}申请有效（{len(names)}/{needed} 人）")
            continue
        if base is ApplicationKind.DELAY:
            delay_granted = p.at
            close = close + extend
            if accelerated_at is not None:
                acc_ended, accelerated_at = p.at, None
            out(True, f"{what}申请有效：{len(names)}/{needed} 人，延时成功，讨论日延至 {_clock(close, tz)}")
        else:
            acc_granted = accelerated_at = last_start = p.at
            acc_ended = None
            close = close - shorten
            out(
                True,
                f"{what}申请有效：{len(names)}/{needed} 人，加速成功，讨论日提前至 {_clock(close, tz)} 结束",
            )
    start_auto(None)
    if last_start is not None and last_start >= close:
        last_start = acc_ended = None
    return ApplicationsResult(
        close=close,
        accelerated_at=last_start,
        acceleration_granted_at=acc_granted,
        delay_granted_at=delay_granted,
        acceleration_ended_at=acc_ended,
        delay_applicants=tuple(applicants[ApplicationKind.DELAY]),
        acceleration_applicants=tuple(applicants[ApplicationKind.ACCELERATE]),
        needed=needed,
        verdicts=tuple(verdicts),
    )
