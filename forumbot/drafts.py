"""Post drafts in Discuz! BBCode that judges review and post: the vote count, the case post, the
R004 day-start post and the elevator (电梯).

Drafts are rendered from small view records built here from engine results, so a template never
sees a secret it could leak: the builders decide what is public, the templates only lay it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from forumbot.resources import templates_dir

FLOOR_LABELS = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}


def findpost_url(board_url: str, tid: int, pid: int) -> str:
    """Discuz!'s own link to a post wherever it sits (survives page shifts)."""
    return f"{board_url}forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}"


def floor_label(floor: int | None, pid: int) -> str:
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
class OverrideNote:
    floor_label: str
    why: str
    by: str


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
    overrides: tuple[OverrideNote, ...] = ()
    revote: RevoteCall | None = None
    drowning: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()
    as_of: str | None = None


@dataclass(frozen=True)
class CasePostView:
    game: str
    night: int
    dead: tuple[str, ...]
    closes: str
    kill_text: str = ""
    peaceful: str = "今晚平安夜"
    public_lines: tuple[str, ...] = ()
    outcome: str = ""


@dataclass(frozen=True)
class OutEntry:
    name: str
    reveal: str = ""
    last_words: str = ""


@dataclass(frozen=True)
class DayStartView:
    game: str
    day: int
    out: tuple[OutEntry, ...]
    closes: str
    public_lines: tuple[str, ...] = ()
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


def _env() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # BBCode, not HTML
    )


def render(template: str, view: object) -> str:
    text = _env().get_template(template).render(v=view)
    return "\n".join(line.rstrip() for line in text.strip().splitlines()) + "\n"


def render_vote_count(view: VoteCountView) -> str:
    return render("vote_count.bbcode.j2", view)


def render_case_post(view: CasePostView) -> str:
    return render("case_post.bbcode.j2", view)


def render_day_start(view: DayStartView) -> str:
    return render("day_start.bbcode.j2", view)


def render_elevator(view: ElevatorView) -> str:
    return render("elevator.bbcode.j2", view)
