"""Post drafts in Discuz! BBCode that judges review and post: the vote count, the case post, the
R004 day-start post and the elevator (电梯).

Drafts are rendered from small view records built here from engine results, so a template never
sees a secret it could leak: the builders decide what is public, the templates only lay it out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from forumbot import boardtext, urls
from forumbot.resources import templates_dir
from forumbot.urls import Url

FLOOR_LABELS = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}


def findpost_url(board_url: str, tid: int, pid: int) -> str:
    """Discuz!'s own link to a post wherever it sits (survives page shifts)."""
    return urls.build(board_url, Url.FINDPOST, tid=tid, pid=pid)


def floor_label(floor: int | None, pid: int, *, proxy: bool = False) -> str:
    """A vote's floor as the count shows it; a proxy vote (代投, entered by the judge) has no post."""
    if proxy and not pid:
        return "代投"
    return str(floor) if floor is not None else f"pid{pid}"


def local_text(when: datetime, tz: ZoneInfo) -> str:
    t = when.astimezone(tz)
    return f"{t.month}月{t.day}日 {t:%H:%M}"


@dataclass(frozen=True)
class VoterLink:
    name: str
    url: str
    floor_label: str


@dataclass(frozen=True)
class TallyRow:
    target: str
    count: int
    voters: tuple[VoterLink, ...]


@dataclass(frozen=True)
class InvalidVote:
    name: str
    url: str
    floor_label: str
    reason: str


@dataclass(frozen=True)
class RevoteCall:
    candidates: tuple[str, ...]
    participants: tuple[str, ...]
    deadline: str


@dataclass(frozen=True)
class VoteCountView:
    game: str
    day: int
    closes: str
    tally: tuple[TallyRow, ...]
    result: str
    abstain: tuple[VoterLink, ...] = ()
    invalid: tuple[InvalidVote, ...] = ()
    not_voted: tuple[str, ...] = ()
    revote: RevoteCall | None = None
    drowning: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()
    as_of: str | None = None
    # Why this count is not final (a running count, a day not read completely): the block's first
    # line says so, so that no copy of it looks final.
    provisional: str = ""


@dataclass(frozen=True)
class CasePostView:
    game: str
    title: str  # 第1夜结果 / 第2讨论日
    body: str  # the engine's public case-post / day-start text
    closes: str = ""
    outcome: str = ""


@dataclass(frozen=True)
class ElevatorPost:
    url: str
    floor_label: str
    valid: bool


@dataclass(frozen=True)
class ElevatorRow:
    name: str
    valid: int
    total: int
    posts: tuple[ElevatorPost, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ElevatorView:
    game: str
    day: int
    as_of: str
    rows: tuple[ElevatorRow, ...]
    rule: str
    apart: tuple[str, ...] = ()  # «已出局：X、Y» / «法官：…» / «旁观：…»: posted, counted for nobody


def _env(*, bbcode: bool = True) -> Environment:
    """The templates' environment. Every ``{{ value }}`` of a draft passes :func:`boardtext.literal`
    (the ``finalize`` hook) so that names, quoted texts and titles from the board show as their
    characters; only what forumbot writes itself (links) is marked ``|bbcode`` in the template."""
    env = Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # BBCode, not HTML
        finalize=boardtext.finalize if bbcode else None,
    )
    env.filters["bbcode"] = boardtext.trusted
    return env


def render(template: str, view: object) -> str:
    text = _env().get_template(template).render(v=view)
    text = "\n".join([line.rstrip() for line in text.strip().splitlines()])
    # Sections are separated by one blank line: every run of 3+ newlines made 2 (what
    # re.sub(r"\n{3,}", "\n\n") does), by str.replace: the regex tried every newline of a 100,000-post
    # vote count's 36,000 lines.
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text + "\n"


def render_text(template: str, **values: Any) -> str:
    """A non-BBCode template (the starter game file), rendered as is."""
    return _env(bbcode=False).get_template(template).render(**values)


def render_vote_count(view: VoteCountView) -> str:
    return render("vote_count.bbcode.j2", view)


def render_case_post(view: CasePostView) -> str:
    return render("case_post.bbcode.j2", view)


def render_elevator(view: ElevatorView) -> str:
    return render("elevator.bbcode.j2", view)


# --------------------------------------------------------------------------- from engine results

# Words that mark a note for the judges (a doubt, a hint, a correction's reason): never in a public draft.
_JUDGE_ONLY = ("请法官", "法官确认", "是否为", "法官更正", "（设置）", "按设置", "请核对", "请确认")
_REASON_PARTS = re.compile(r"[；;]")
_OVERRIDE_PREFIX = re.compile(r"^法官更正（[^）]*）→\s*")


def _bracket_groups(text: str) -> list[tuple[int, int]]:
    """The outermost （…） / (…) groups of ``text`` as (start, end) spans, nesting respected."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "（(":
            if depth == 0:
                start = i
            depth += 1
        elif ch in "）)" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


@lru_cache(maxsize=4096)
def public_reason(reason: str) -> str:
    """A verdict's reason as the rules publish it: the judges' doubts, hints and the reasons of their
    corrections removed (they stay in the judge's table and JSON).

    >>> public_reason("粽子 不是存活玩家（是否为 烧卖？）")
    '粽子 不是存活玩家'
    >>> public_reason("投票无效；帖子状态异常（deleted），请法官确认")
    '投票无效'
    """
    text = _OVERRIDE_PREFIX.sub("", reason)
    for a, b in reversed(_bracket_groups(text)):
        if any(w in text[a:b] for w in _JUDGE_ONLY):
            text = text[:a] + text[b:]
    parts = [p for p in _REASON_PARTS.split(text) if p.strip() and not any(w in p for w in _JUDGE_ONLY)]
    return public_words("；".join(p.strip() for p in parts))


# A rule id of the ambiguity register (AMB-23, AMB-71…76, "AMB-76，不罚"): the judges' reference, never the
# players'. A bracket holding only ids (and «设置») goes; an id beside other words leaves the words.
_RULE_ID = r"AMB-\d+(?:\s*(?:…|~|～|-|/|、|，|,)\s*(?:AMB-)?\d+)*(?:\s*[（(][^（）()]*[）)])?"
_ID_ONLY_GROUP = re.compile(rf"[（(]\s*(?:设置\s*[，,]?\s*)?{_RULE_ID}\s*[）)]")
_ID_IN_GROUP = re.compile(rf"\s*[，,、;；/]?\s*{_RULE_ID}\s*[，,]?\s*")


@lru_cache(maxsize=4096)
def public_words(text: str) -> str:
    """``text`` as the players may read it: the ambiguity register's ids (``AMB-nn``) taken out. The
    register is the judges' (the desk shows them the id); a post or a private message tells the
    players the rule in words, not the number it has in our notes (issue 20).

    >>> public_words("每轮只能投一次票，以第一次投票 #5 为准（AMB-23）")
    '每轮只能投一次票，以第一次投票 #5 为准'
    >>> public_words("累计3张黄牌，红牌罚下（3黄变1红，AMB-71）")
    '累计3张黄牌，红牌罚下（3黄变1红）'
    >>> public_words("投票帖被编辑过（AMB-76，不罚）")
    '投票帖被编辑过（不罚）'
    """
    if "AMB-" not in text:
        return text
    out = _ID_ONLY_GROUP.sub("", text)

    def inner(m: re.Match[str]) -> str:
        seg = _ID_IN_GROUP.sub("，", m.group(0)[1:-1]).strip("，, ")
        return f"{m.group(0)[0]}{seg}{m.group(0)[-1]}" if seg else ""

    out = re.sub(r"[（(][^（）()]*AMB-[^（）()]*[）)]", inner, out)
    return _ID_IN_GROUP.sub(" ", out).strip() if "AMB-" in out else out


# A line of an R004 PM that only passes 威权 («威权交给：饺子», «传威权给 @饺子», «移交威权 饺子»).
_AUTHORITY_LINE = re.compile(
    r"^[\s【\[(（]*(?:我)?(?:把)?(?:移交|传|交)?威权[】\])）]?\s*(?:交给|传给|移交给|给|移交|交)?\s*[:：]?\s*@?"
    r"[^\s，,。.！!？?；;]{1,20}[\s。.！!]*$"
)


def words_without_authority(text: str) -> str:
    """R004 words as published: a line that passes 威权 left out. The hand-over is a private act (the
    new holder is told privately, rules §d.3), so the post with the words must not publish it even
    when the holder wrote both in one PM (issue 20). Other lines, 威权 named in passing included, stay.

    >>> words_without_authority("威权交给：饺子\\n大家加油")
    '大家加油'
    >>> words_without_authority("威权在我手里，可惜没用上")
    '威权在我手里，可惜没用上'
    """
    kept = [line for line in text.splitlines() if not _AUTHORITY_LINE.match(line)]
    return "\n".join(kept).strip()


def running_text(result: Any) -> str:
    """A running count's line (``tally --at``): who leads so far, never who is executed."""
    tally = result.final_tally
    if not tally:
        return "实时统计：目前无有效票"
    top = tally[0].count
    leaders = [line.target for line in tally if line.count == top]
    lead = "、".join(leaders) + (" 并列" if len(leaders) > 1 else "")
    return f"实时统计（非最终结果）：目前 {lead} 票数最多（{top}票）"


_NOT_LISTED = {"counted", "changed", "superseded", "abstain", "not_a_vote", "after_as_of"}


def vote_count_view(
    *,
    game_name: str,
    board_url: str,
    vote_tid: int,
    tz: ZoneInfo,
    result: Any,  # engine.day.DayResult
    public_lines: tuple[str, ...] = (),
    notice_lines: tuple[str, ...] = (),
    reveal_missing: bool = False,
    judges: frozenset[str] = frozenset(),
    provisional: tuple[str, ...] = (),
) -> VoteCountView:
    """The vote count of a judged day. ``public_lines`` are the public result of closing the day (the
    execution with the identity the rules reveal), ``notice_lines`` the other public notices
    (drownings, red cards); without them (no secret state stored) the result line comes from the
    tally alone and the identity is left for the judge to fill in. ``provisional``: why the judgement
    is not final (the desk's reasons); a running count is provisional by itself. Either puts
    «【非最终结果：…】» on the draft's first line."""
    from engine import OutcomeKind, PlayerStatus, VoteStatus

    def link(pid: int | None) -> str:
        return (
            findpost_url(board_url, vote_tid, pid)
            if pid
            else urls.build(board_url, Url.THREAD_LINK, tid=vote_tid)
        )

    tally = tuple(
        TallyRow(
            line.target,
            line.count,
            tuple(
                VoterLink(v.player, link(v.pid), floor_label(v.floor, v.pid or 0, proxy=v.proxy))
                for v in line.voters
            ),
        )
        for line in result.final_tally
    )
    abstain = []
    for pv in result.players:
        if pv.status is PlayerStatus.ABSTAIN:
            abstain.append(
                VoterLink(pv.player, link(pv.pid), floor_label(pv.floor, pv.pid or 0, proxy=pv.pid is None))
            )
    invalid = []
    # A post answering a called revote is judged by that revote (its first-vote verdict is only «late»).
    in_revote = {rv.pid: rv for rnd in result.revotes for rv in rnd.verdicts if rv.pid is not None}
    # The statuses themselves, not their ``.value`` (a property: two calls per post of a 100,000-post day)
    not_listed = frozenset(s for s in VoteStatus if s.value in _NOT_LISTED)
    late_status = VoteStatus("late")
    for first in result.verdicts:
        late = first.status is late_status and first.pid is not None
        v = in_revote.get(first.pid, first) if late else first
        if v.status in not_listed or (v.stage and v is first) or v.author in judges:
            continue
        invalid.append(
            InvalidVote(
                v.author,
                link(v.pid),
                floor_label(v.floor, v.pid or 0, proxy=v.proxy),
                public_reason(v.reason),
            )
        )
    outcome = result.outcome
    revote = None
    drowning: tuple[str, ...] = ()
    if result.provisional and result.as_of is not None:
        text = running_text(result)
    elif outcome.kind is OutcomeKind.REVOTE and outcome.plan is not None:
        plan = outcome.plan
        text = plan.call_text(tz)
        revote = RevoteCall(plan.candidates, plan.participants, local_text(plan.deadline, tz))
    elif public_lines:
        text = "\n".join(public_words(line) for line in public_lines)
    else:
        text = public_words(outcome.text) if outcome.text else outcome.kind.value
        if reveal_missing and outcome.kind in (OutcomeKind.EXECUTE, OutcomeKind.AUTHORITY):
            text += "，身份：＿＿（未录入身份，请法官填写）"
    if public_lines or notice_lines:
        drowning = tuple(public_words(line) for line in notice_lines)
    else:
        drowning = tuple(f"{d.player} 淹死（{d.rule.label}）" for d in result.drowned_announced)
    cards = tuple(
        f"{c.player} {'黄牌' if c.color.value == 'yellow' else '红牌'}：{public_words(c.reason)}"
        for c in result.cards
    )
    before = result.input.strikes
    struck = [
        f"{name}（累计 {n} 次）"
        for name, n in result.strikes_after.items()
        if n > before.get(name, 0) and name not in result.drowned_names
    ]
    if struck:
        cards = (*cards, "本轮计淹水：" + "、".join(struck))
    return VoteCountView(
        game=game_name,
        day=result.input.day,
        closes=local_text(result.input.times.closes_at, tz),
        tally=tally,
        result=text,
        abstain=tuple(abstain),
        invalid=tuple(invalid),
        not_voted=tuple(result.no_vote),
        revote=revote,
        drowning=drowning,
        cards=cards,
        as_of=local_text(result.as_of, tz) if result.provisional and result.as_of else None,
        provisional=provisional_text(result, tz, provisional),
    )


def provisional_text(result: Any, tz: ZoneInfo, reasons: tuple[str, ...] = ()) -> str:
    """What the first line of a non-final count says after «非最终结果：», or "" when it is final.

    >>> provisional_text(type("R", (), {"provisional": False, "as_of": None})(), ZoneInfo("UTC"))
    ''
    """
    why = list(reasons)
    if result.provisional and result.as_of is not None:
        running = f"截至 {local_text(result.as_of, tz)} 的实时统计"
        why = [running, *(r for r in why if "实时统计" not in r)]
    elif result.provisional:
        why.insert(0, "投票尚未截止")
    return "；".join(dict.fromkeys(r.strip() for r in why if r.strip()))


def elevator_view(
    *,
    game_name: str,
    day: int,
    board_url: str,
    tid: int,
    roster: tuple[str, ...],
    attendance: Any,  # engine.attendance.AttendanceResult
    floors: dict[int, int | None],
    as_of: str,
    rule: str,
    apart: dict[str, list[str]] | None = None,
) -> ElevatorView:
    """电梯: each player's posts of the round in floor order, the ones that do not count marked."""
    per: dict[str, list[ElevatorPost]] = {name: [] for name in roster}
    for pa in attendance.posts:
        if pa.author not in per or pa.status.value == "outside_window":
            continue
        per[pa.author].append(
            ElevatorPost(
                findpost_url(board_url, tid, pa.pid), floor_label(floors.get(pa.pid), pa.pid), pa.valid
            )
        )
    rows = tuple(
        ElevatorRow(name, sum(1 for p in posts if p.valid), len(posts), tuple(posts))
        for name, posts in per.items()
    )
    labels = {"dead": "已出局", "judges": "法官", "spectators": "旁观"}
    listed = tuple(
        f"{labels[k]}：{'、'.join(names)}" for k, names in (apart or {}).items() if names and k in labels
    )
    return ElevatorView(game_name, day, as_of, rows, rule, listed)
