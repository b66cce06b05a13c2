"""The game file's schema: every table, key, type and range a game file may hold, checked at once.

Why a schema: the game file used to be read key by key with ``.get()``, so a typo (``judge = [...]``)
was silently ignored, a string where a list belongs (``judges = "法官大人"``) was read letter by letter,
and ``day = "一"`` ended in a Python traceback. Here one pydantic model per table refuses unknown keys
(naming the closest known key), checks every type and range (TOML's own types, no coercion: ``"2"`` is
not the number 2), and reports *every* problem with the key's line in the file, in the judge's language.

This module only checks shapes. The meaning (a known rule set, times in order, names in the roster, a
thread used twice) is checked by :mod:`forumbot.config`, which builds the objects the rest of the code
uses once the shapes are right. Both report through :class:`forumbot.errors.GameFileError`; several
problems at once come as :class:`forumbot.errors.GameFileErrors`.

pydantic is imported here only, and this module only when a game file is loaded (start-up stays light).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from forumbot.errors import GameFileError, GameFileErrors
from forumbot.i18n import _

Loc = tuple[str | int, ...]

TID_MAX = 2**31 - 1  # Discuz! ids are unsigned ints; anything larger is a typo


# --------------------------------------------------------------------------- value types


def _time_value(value: Any) -> Any:
    """A wall-clock moment: a string ("2026-06-04 13:00", read later) or a TOML datetime."""
    if isinstance(value, str | datetime):
        return value
    raise PydanticCustomError("time_value", "expected a time")


def _date_value(value: Any) -> Any:
    """A date: "2026-06-03" or a TOML date."""
    if isinstance(value, str | date):
        return value
    raise PydanticCustomError("date_value", "expected a date")


def _clock_value(value: Any) -> Any:
    """A clock time: "17:00" or a TOML local time."""
    if isinstance(value, str | time):
        return value
    raise PydanticCustomError("clock_value", "expected a clock time")


def _switch_or_time(value: Any) -> Any:
    """R004's ``accelerated``: true/false or the moment it was declared."""
    if isinstance(value, bool | str | datetime):
        return value
    raise PydanticCustomError("switch_or_time", "expected true, false or a time")


TimeValue = Annotated[Any, AfterValidator(_time_value)]
DateValue = Annotated[Any, AfterValidator(_date_value)]
ClockValue = Annotated[Any, AfterValidator(_clock_value)]
SwitchOrTime = Annotated[Any, AfterValidator(_switch_or_time)]
Tid = Annotated[int, Field(ge=1, le=TID_MAX)]
Minutes = Annotated[int, Field(ge=0, le=7 * 24 * 60)]
Names = list[str]


class _Table(BaseModel):
    """A table of the game file: unknown keys refused, TOML's types taken as they are."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class GameTable(_Table):
    name: str = "版杀"
    ruleset: str
    timezone: str = "Asia/Shanghai"
    judges: Names = []
    store: str = "forumbot.db"


class BoardTable(_Table):
    url: str
    source: Literal["pc", "touch", "api"] = "pc"
    fid: Tid | None = None
    username: str | None = None
    password_env: str | None = None
    charset: str | None = None
    login_via: Literal["web", "api"] = "web"
    min_interval: Annotated[float, Field(ge=0, le=3600)] = 2.0
    timeout: Annotated[float, Field(gt=0, le=3600)] = 20.0
    retries: Annotated[int, Field(ge=0, le=100)] = 3
    user_agent: str | None = None
    cookie_file: str | None = None
    posts_per_page: Annotated[int, Field(ge=1, le=1000)] = 10


class PlayersTable(_Table):
    roster: Names


class TimetableTable(_Table):
    first_night: DateValue | None = None
    night_deadline: ClockValue | None = None
    vote_close: ClockValue | None = None
    void_cutoff_minutes: Minutes | None = None
    change_cutoff_minutes: Minutes | None = None
    case_post_delay_minutes: Minutes | None = None
    night_hours: Annotated[int, Field(ge=0, le=7 * 24)] | None = None
    day_length: Annotated[int, Field(ge=1, le=14)] | None = None
    weekend_extra_day: bool | None = None


class ProxyVoteTable(_Table):
    player: str
    target: str
    at: TimeValue
    entered_by: str = ""


class DayTable(_Table):
    day: Annotated[int, Field(ge=1, le=1000)]
    vote: Tid | None = None
    vote_tid: Tid | None = None
    discussion: Tid | None = None
    discussion_tid: Tid | None = None
    process: Tid | None = None
    process_tid: Tid | None = None
    opens: TimeValue | None = None
    close: TimeValue | None = None
    void_cutoff: TimeValue | None = None
    change_cutoff: TimeValue | None = None
    night_deadline: TimeValue | None = None
    accelerated: SwitchOrTime | None = None
    proxy_votes: list[ProxyVoteTable] = []
    dead: Names = []
    sent_off: Names = []
    red_cards: Names = []


class AttendanceTable(_Table):
    min_meaningful_chars: Annotated[int, Field(ge=0, le=10_000)] | None = None
    count_bumps: bool | None = None
    count_quote_only: bool | None = None
    count_smiley_only: bool | None = None
    bump_words: Names | None = None
    min_posts: Annotated[int, Field(ge=0, le=10_000)] | None = None


class OutboxTable(_Table):
    auto_approve: Names = []
    pm_interval: Annotated[float, Field(ge=0, le=86_400)] | None = None
    flood_cap: Annotated[float, Field(ge=0, le=86_400)] | None = None
    via: Literal["web", "api"] = "web"
    fast_reply: bool = False
    uids: dict[str, Annotated[int, Field(ge=1, le=TID_MAX)]] = {}


class NightGroupTable(_Table):
    fid: Tid
    tid: Tid | None = None


class NightSourcesTable(_Table):
    pm: bool = False
    killers: NightGroupTable | None = None
    bandits: NightGroupTable | None = None
    police: NightGroupTable | None = None


class SignupTable(_Table):
    """``[signup]``: the sign-up thread (报名帖) forumbot reads up to its close (issue 19)."""

    tid: Tid
    closes_at: TimeValue
    cap: Annotated[int, Field(ge=1, le=1000)] | None = None
    auto_confirm: bool = False
    draw: bool = False
    seed: Annotated[int, Field(ge=0)] | None = None
    cards: dict[str, Annotated[int, Field(ge=1, le=1000)]] | None = None


class ThreadsTable(_Table):
    """``[threads]``: forumbot opens each day's discussion and vote thread itself (issue 19)."""

    open: bool = True
    fid: Tid | None = None
    title: str = "【{game}】第{day}日 {kind}"


class GameFileSchema(_Table):
    """The whole file. ``[flags]`` is checked against the rule set's flags by the loader."""

    game: GameTable
    board: BoardTable
    players: PlayersTable | None = None
    timetable: TimetableTable = TimetableTable()
    days: list[DayTable] = []
    flags: dict[str, Any] = {}
    attendance: AttendanceTable = AttendanceTable()
    outbox: OutboxTable = OutboxTable()
    night_sources: NightSourcesTable | None = None
    signup: SignupTable | None = None
    threads: ThreadsTable | None = None


# The model of each table, by its path with list indices left out (for "did you mean", and which
# table a stray key belongs to).
TABLES: dict[tuple[str, ...], type[_Table]] = {
    (): GameFileSchema,
    ("game",): GameTable,
    ("board",): BoardTable,
    ("players",): PlayersTable,
    ("timetable",): TimetableTable,
    ("days",): DayTable,
    ("days", "proxy_votes"): ProxyVoteTable,
    ("attendance",): AttendanceTable,
    ("outbox",): OutboxTable,
    ("night_sources",): NightSourcesTable,
    ("night_sources", "killers"): NightGroupTable,
    ("night_sources", "bandits"): NightGroupTable,
    ("night_sources", "police"): NightGroupTable,
    ("signup",): SignupTable,
    ("threads",): ThreadsTable,
}

# A line of TOML to show in a fix, by key path (list indices left out). Not translated: it is TOML.
EXAMPLES: dict[tuple[str, ...], str] = {
    ("game",): '[game] ruleset = "R001"',
    ("game", "name"): 'name = "美食杀"',
    ("game", "ruleset"): 'ruleset = "R001"',
    ("game", "timezone"): 'timezone = "Asia/Shanghai"',
    ("game", "judges"): 'judges = ["法官大人"]',
    ("game", "store"): 'store = "forumbot.db"',
    ("board",): '[board] url = "https://bbs.example.com/"',
    ("board", "url"): 'url = "https://bbs.example.com/"',
    ("board", "source"): 'source = "pc"',
    ("board", "fid"): "fid = 3",
    ("board", "username"): 'username = "法官大人"',
    ("board", "password_env"): 'password_env = "FORUMBOT_PASSWORD"',
    ("board", "charset"): 'charset = "gbk"',
    ("board", "login_via"): 'login_via = "web"',
    ("board", "min_interval"): "min_interval = 2.0",
    ("board", "timeout"): "timeout = 20",
    ("board", "retries"): "retries = 3",
    ("board", "cookie_file"): 'cookie_file = "~/.forumbot/cookies.json"',
    ("board", "posts_per_page"): "posts_per_page = 10",
    ("players",): '[players] roster = ["饺子", "包子"]',
    ("players", "roster"): 'roster = ["饺子", "包子"]',
    ("timetable", "first_night"): 'first_night = "2026-06-03"',
    ("timetable", "night_deadline"): 'night_deadline = "17:00"',
    ("timetable", "vote_close"): 'vote_close = "13:00"',
    ("timetable", "void_cutoff_minutes"): "void_cutoff_minutes = 30",
    ("timetable", "change_cutoff_minutes"): "change_cutoff_minutes = 60",
    ("timetable", "case_post_delay_minutes"): "case_post_delay_minutes = 20",
    ("timetable", "night_hours"): "night_hours = 2",
    ("timetable", "day_length"): "day_length = 2",
    ("timetable", "weekend_extra_day"): "weekend_extra_day = true",
    ("days",): "[[days]] day = 1",
    ("days", "day"): "day = 1",
    ("days", "vote"): "vote = 3",
    ("days", "discussion"): "discussion = 2",
    ("days", "process"): "process = 4",
    ("days", "opens"): 'opens = "2026-06-03 17:20"',
    ("days", "close"): 'close = "2026-06-04 13:00"',
    ("days", "void_cutoff"): 'void_cutoff = "2026-06-04 12:30"',
    ("days", "change_cutoff"): 'change_cutoff = "2026-06-04 12:00"',
    ("days", "night_deadline"): 'night_deadline = "2026-06-04 17:00"',
    ("days", "accelerated"): 'accelerated = "2026-06-12 10:00"',
    ("days", "dead"): 'dead = ["饺子"]',
    ("days", "sent_off"): 'sent_off = ["饺子"]',
    ("days", "red_cards"): 'red_cards = ["饺子"]',
    ("days", "proxy_votes"): '[[days.proxy_votes]] player = "饺子"',
    ("days", "proxy_votes", "player"): 'player = "饺子"',
    ("days", "proxy_votes", "target"): 'target = "包子"',
    ("days", "proxy_votes", "at"): 'at = "2026-06-04 10:00"',
    ("flags",): "[flags]",
    ("attendance", "min_meaningful_chars"): "min_meaningful_chars = 2",
    ("attendance", "count_bumps"): "count_bumps = false",
    ("attendance", "bump_words"): 'bump_words = ["顶", "+1"]',
    ("attendance", "min_posts"): "min_posts = 2",
    ("outbox", "auto_approve"): 'auto_approve = ["running_count"]',
    ("outbox", "pm_interval"): "pm_interval = 15",
    ("outbox", "flood_cap"): "flood_cap = 120",
    ("outbox", "via"): 'via = "web"',
    ("outbox", "uids"): '[outbox.uids] "饺子" = 2',
    ("night_sources", "pm"): "pm = true",
    ("night_sources", "killers"): "killers = { fid = 6, tid = 8 }",
    ("night_sources", "police"): "police = { fid = 7, tid = 9 }",
    ("night_sources", "bandits"): "bandits = { fid = 6, tid = 8 }",
    ("night_sources", "killers", "fid"): "fid = 6",
    ("night_sources", "killers", "tid"): "tid = 8",
    ("signup",): "[signup] tid = 20",
    ("signup", "tid"): "tid = 20",
    ("signup", "closes_at"): 'closes_at = "2026-06-02 20:00"',
    ("signup", "cap"): "cap = 12",
    ("signup", "auto_confirm"): "auto_confirm = true",
    ("signup", "draw"): "draw = true",
    ("signup", "seed"): "seed = 20260603",
    ("signup", "cards"): 'cards = { "杀手" = 2, "警察" = 2, "平民" = 8 }',
    ("threads",): "[threads] open = true",
    ("threads", "open"): "open = true",
    ("threads", "fid"): "fid = 3",
    ("threads", "title"): 'title = "【{game}】第{day}日 {kind}"',
}


def _shape(loc: Loc) -> tuple[str, ...]:
    """A location without list indices (and with the group's name kept): the key of EXAMPLES."""
    return tuple(p for p in loc if isinstance(p, str))


def example(loc: Loc) -> str | None:
    """A line of TOML showing the key at ``loc`` written right, when there is one."""
    shape = _shape(loc)
    if shape[:1] == ("night_sources",) and len(shape) == 3:
        shape = ("night_sources", "killers", shape[2])
    while shape:  # a key of a free mapping ([outbox.uids]): its table's example
        if shape in EXAMPLES:
            return EXAMPLES[shape]
        shape = shape[:-1]
    return None


# --------------------------------------------------------------------------- where a key is


def field_name(loc: Loc, data: Mapping[str, Any]) -> str:
    """The name a judge reads for a location: ``board.min_interval``, ``days[day=2].vote`` (the day's
    own number when it has a readable one, else ``days[0]``: its place in the file), ``players.roster[1]``."""
    out = ""
    days = data.get("days")
    for i, part in enumerate(loc):
        if isinstance(part, int):
            label = str(part)
            if i == 1 and loc[0] == "days" and isinstance(days, list) and part < len(days):
                entry = days[part]
                n = entry.get("day") if isinstance(entry, Mapping) else None
                if isinstance(n, int) and not isinstance(n, bool):
                    label = f"day={n}"
            out += f"[{label}]"
        else:
            out += ("." if out else "") + part
    return out or "(file)"


_FIELD_PART = re.compile(r"\[(?:day=(-?\d+)|(\d+))\]|([^.\[\]]+)")


def loc_of_field(field: str | None, data: Mapping[str, Any]) -> Loc:
    """The location of a field name as :func:`field_name` writes it (``days[day=2]`` is the first
    [[days]] entry with ``day = 2``). Unknown parts end the walk: a location is only used for a line."""
    if not field or field.startswith(("(", "-")):
        return ()
    loc: list[str | int] = []
    for m in _FIELD_PART.finditer(field):
        day_n, index, name = m.groups()
        if name is not None:
            loc.append(name)
        elif index is not None:
            loc.append(int(index))
        elif loc == ["days"] and isinstance(data.get("days"), list):
            found = [
                i
                for i, d in enumerate(data["days"])
                if isinstance(d, Mapping) and d.get("day") == int(day_n or 0)
            ]
            if not found:
                break
            loc.append(found[0])
        else:
            break
    return tuple(loc)


_BARE_KEY = r"[A-Za-z0-9_-]+"
_KEY = rf'(?:{_BARE_KEY}|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=")


def _key_parts(dotted: str) -> list[str]:
    parts = re.findall(_KEY, dotted)
    out = []
    for p in parts:
        if p.startswith('"'):
            try:
                out.append(str(json.loads(p)))
            except ValueError:
                out.append(p[1:-1])
        elif p.startswith("'"):
            out.append(p[1:-1])
        else:
            out.append(p)
    return out


def _open_brackets(line: str, depth: int, in_ml: str | None) -> tuple[int, str | None]:
    """The bracket depth and the open multi-line string (``\"\"\"``/``'''``) after ``line``: lines inside
    a multi-line array or string are values, not keys."""
    i = 0
    while i < len(line):
        if in_ml is not None:
            j = line.find(in_ml, i)
            if j < 0:
                return depth, in_ml
            i, in_ml = j + 3, None
            continue
        c = line[i]
        if c == "#":
            break
        if line.startswith(('"""', "'''"), i):
            in_ml = line[i : i + 3]
            i += 3
            continue
        if c in "\"'":
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if c == '"' and line[j] == "\\" else 1
            i = j + 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return depth, in_ml


def key_lines(text: str) -> dict[Loc, int]:
    """Each table header and key of a TOML text with its line (1-based): tomllib keeps no positions, so
    the text is scanned: ``[a.b]`` opens a table, ``[[days]]`` the next entry of an array of tables
    (``[[days.proxy_votes]]`` one of the current day's), ``key = ...`` sets a key of the open table.
    Best effort: a key this scan cannot place gets the line of its table (or none)."""
    found: dict[Loc, int] = {}
    table: Loc = ()
    counts: dict[Loc, int] = {}
    arrays: dict[tuple[str, ...], Loc] = {}  # an array of tables' path → its current entry's location
    depth, in_ml = 0, None
    for number, line in enumerate(text.splitlines(), start=1):
        if depth == 0 and in_ml is None:
            header = _HEADER.match(line)
            assign = None if header else _ASSIGN.match(line)
            if header:
                parts = _key_parts(header.group(2))
                base: Loc = ()
                for k in range(len(parts) - 1, 0, -1):  # a nested path under an array's current entry
                    if tuple(parts[:k]) in arrays:
                        base = arrays[tuple(parts[:k])] + tuple(parts[k:])
                        break
                path: Loc = base or tuple(parts)
                if header.group(1) == "[[":
                    index = counts.get(path, 0)
                    counts[path] = index + 1
                    arrays[tuple(parts)] = (*path, index)
                    path = (*path, index)
                table = path
                found.setdefault(table, number)
                depth, in_ml = _open_brackets(line[header.end() :], 0, None)
                continue
            if assign:
                found.setdefault((*table, *_key_parts(assign.group(1))), number)
                depth, in_ml = _open_brackets(line[assign.end() :], 0, None)
                continue
        depth, in_ml = _open_brackets(line, depth, in_ml)
    return found


def line_of(loc: Loc, lines: Mapping[Loc, int]) -> int | None:
    """The line of ``loc``, else of the nearest enclosing key or table the scan found."""
    for n in range(len(loc), 0, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None


# --------------------------------------------------------------------------- the schema's problems


def _show(value: Any) -> str:
    """A value as the judge wrote it (TOML-like, Chinese kept), cut short."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, Mapping):
        text = "{…}"
    elif isinstance(value, list):
        text = "[" + ", ".join(_show(v) for v in value[:3]) + (", …" if len(value) > 3 else "") + "]"
    else:
        text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _known_keys(shape: tuple[str, ...]) -> list[str]:
    model = TABLES.get(shape)
    return list(model.model_fields) if model is not None else []


def _unknown_key(loc: Loc, data: Mapping[str, Any]) -> GameFileError:
    """An unknown key: the closest known key of its table, else the table it belongs to."""
    key = str(loc[-1]) if loc else "(file)"
    shape = _shape(loc[:-1])
    where = field_name(loc, data)
    if shape == ("board",) and key == "password":
        return GameFileError(
            _("a password in the game file would be shared with everyone who gets the file"),
            field=where,
            fix=_('put it in an environment variable and name it: password_env = "FORUMBOT_PASSWORD"'),
        )
    known = _known_keys(shape)
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        fix = _("did you mean {key!r}?").format(key=close[0])
    else:
        homes = ["[" + ".".join(t) + "]" for t, model in TABLES.items() if t and key in model.model_fields]
        if homes:
            fix = _("{key!r} belongs in {table}").format(key=key, table=homes[0])
        elif known:
            fix = _("the keys of this table are: {keys}").format(keys=", ".join(known))
        else:
            fix = _("remove it")
    return GameFileError(_("unknown key {key!r}").format(key=key), field=where, fix=fix)


_TYPE_WORDS = {
    "int_type": "a whole number",
    "float_type": "a number",
    "string_type": "text in quotes",
    "bool_type": "true or false",
    "list_type": "a list [...]",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "time_value": 'a time "2026-06-04 13:00"',
    "date_value": 'a date "2026-06-03"',
    "clock_value": 'a clock time "17:00"',
    "switch_or_time": 'true, false or a time "2026-06-12 10:00"',
}


def _type_words(kind: str) -> str:
    """The kind of value a type error expected, in the judge's language (msgids listed for extraction)."""
    words = {
        "a whole number": _("a whole number"),
        "a number": _("a number"),
        "text in quotes": _("text in quotes"),
        "true or false": _("true or false"),
        "a list [...]": _("a list [...]"),
        "a table": _("a table"),
        'a time "2026-06-04 13:00"': _('a time "2026-06-04 13:00"'),
        'a date "2026-06-03"': _('a date "2026-06-03"'),
        'a clock time "17:00"': _('a clock time "17:00"'),
        'true, false or a time "2026-06-12 10:00"': _('true, false or a time "2026-06-12 10:00"'),
    }
    return words[_TYPE_WORDS[kind]]


def _problem(err: Mapping[str, Any], data: Mapping[str, Any]) -> GameFileError:
    """One pydantic error as a judge reads it: the key, what it holds, what it should hold."""
    loc: Loc = tuple(err["loc"])
    kind = str(err["type"])
    ctx: Mapping[str, Any] = err.get("ctx") or {}
    if kind == "extra_forbidden":
        return _unknown_key(loc, data)
    key = next((str(p) for p in reversed(loc) if isinstance(p, str)), "(file)")
    value = _show(err.get("input"))
    where = field_name(loc, data)
    shown = example(loc)
    fix = _("e.g. {example}").format(example=shown) if shown else _("see README: The game file")
    if kind == "missing":
        message = _("missing {key!r}").format(key=key)
    elif kind in _TYPE_WORDS:
        message = _("{key} must be {kind}, not {value}").format(key=key, kind=_type_words(kind), value=value)
    elif kind.removeprefix("item_") in _TYPE_WORDS:
        message = _("each item of {key} must be {kind}, not {value}").format(
            key=key, kind=_type_words(kind.removeprefix("item_")), value=value
        )
    elif kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        limit = ctx.get("ge", ctx.get("gt", ctx.get("le", ctx.get("lt"))))
        template = {
            "greater_than_equal": _("{key} must be at least {limit}, not {value}"),
            "greater_than": _("{key} must be more than {limit}, not {value}"),
            "less_than_equal": _("{key} must be at most {limit}, not {value}"),
            "less_than": _("{key} must be less than {limit}, not {value}"),
        }[kind]
        message = template.format(key=key, limit=limit, value=value)
    elif kind == "literal_error":
        choices = ", ".join(sorted(re.findall(r"'([^']*)'", str(ctx.get("expected", "")))))
        message = _("{key} must be one of {choices}, not {value}").format(
            key=key, choices=choices, value=value
        )
    elif kind == "finite_number":
        message = _("{key} must be a finite number, not {value}").format(key=key, value=value)
    else:
        message = _("{key} = {value} is not accepted").format(key=key, value=value)
    return GameFileError(message, field=where, fix=fix)


def check_shapes(data: Mapping[str, Any]) -> list[GameFileError]:
    """Every unknown key, wrong type and out-of-range value of the parsed file (nothing when the shapes
    are right). A union's branches are reported once, at the key (not once per branch)."""
    # [players] may be left out only when the players come from the sign-up thread ([signup])
    missing = (
        []
        if "players" in data or "signup" in data
        else [_problem({"type": "missing", "loc": ("players",)}, data)]
    )
    try:
        GameFileSchema.model_validate(data)
    except ValidationError as exc:
        problems: list[GameFileError] = list(missing)
        seen: set[str] = set()
        for err in exc.errors():
            loc = tuple(err["loc"])
            # pydantic names a union's (or an Optional's) branch after the key: cut it off.
            while err["type"] != "extra_forbidden" and loc and _is_branch(loc):
                loc = loc[:-1]
            if err["type"] in _TYPE_WORDS and loc and isinstance(loc[-1], int) and _shape(loc) != ("days",):
                loc = loc[:-1]  # a list's wrong items: one problem at the list (the first item shown)
                err = {**err, "type": "item_" + str(err["type"])}
            problem = _problem({**err, "loc": loc}, data)
            if problem.field not in seen:
                seen.add(problem.field or "")
                problems.append(problem)
        return problems
    return missing


def _is_branch(loc: Sequence[str | int]) -> bool:
    """True when the last part of a pydantic location is a type's name, not a key of the file."""
    last = loc[-1]
    if not isinstance(last, str):
        return False
    parent = _shape(tuple(loc[:-1]))
    if parent not in TABLES or last in _known_keys(parent):
        return False  # a key of a table, or of a free mapping ([outbox.uids], [flags])
    return last in ("int", "float", "str", "bool", "list", "dict", "none", "datetime", "date", "time") or (
        last.startswith(("function-", "constrained-", "nullable[", "literal[", "list[", "dict["))
    )


# --------------------------------------------------------------------------- reporting


def located(
    problems: Sequence[GameFileError], data: Mapping[str, Any], text: str | None
) -> list[GameFileError]:
    """The problems with the line of their key in ``text`` (the file as written), in the file's order;
    a problem whose key is not in the text (a key left out, a derived time) gets its table's line, or
    none."""
    lines = key_lines(text) if text else {}
    out: list[tuple[int, int, GameFileError]] = []
    for i, problem in enumerate(problems):
        line = line_of(loc_of_field(problem.field, data), lines) if lines else None
        if line is not None:
            message = _("line {line}: {message}").format(line=line, message=problem.message)
            moved = GameFileError(message, field=problem.field, fix=problem.fix)
            moved.line = line
            problem = moved
        out.append((line if line is not None else 1 << 30, i, problem))
    return [p for _line, _i, p in sorted(out, key=lambda t: (t[0], t[1]))]


def raise_problems(problems: Sequence[GameFileError]) -> None:
    """Raise the problems found, if any: one as itself, several as one GameFileErrors."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise GameFileErrors(list(problems))
