"""The game file: one TOML file describing a game a judge team runs on one board.

It says where the game is played (board, threads per day), who plays (the roster of role accounts),
under which rule set, and when (the timetable). Secret roles are NOT here: they live in the store
(``forumbot setup``), so the game file can be shared with every judge and even published.

Every problem names the field and the fix (GameFileError). Times in the file are wall-clock times in
the game's time zone ("2026-06-04 13:00"); they are converted to UTC here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from zoneinfo import ZoneInfo

from forumbot.board import DEFAULT_TZ, DEFAULT_USER_AGENT, BoardConfig, SourceKind
from forumbot.errors import ConfigError, GameFileError, GameFileErrors
from forumbot.i18n import _

if TYPE_CHECKING:
    from engine import DayFlags, NightFlags
    from forumbot.nightflags import NightMailFlags

DEFAULT_GAME_FILE = "forumbot.toml"
DEFAULT_STORE = "forumbot.db"

_T = TypeVar("_T")


def canonical_ruleset(name: str) -> str:
    """The engine's id for a rule set named by id, alias or Chinese name (R001, 鬼毒, 杀人游戏...)."""
    from engine import EngineError, all_rulesets, get_ruleset  # not at import: a kept game needs none

    try:
        return get_ruleset(name.strip()).id
    except EngineError as exc:
        known = ", ".join(rs.id for rs in all_rulesets())
        raise GameFileError(
            _("unknown rule set {name!r}").format(name=name),
            field="game.ruleset",
            fix=_("use one of {known}").format(known=known),
        ) from exc


@dataclass(frozen=True)
class ProxyVoteEntry:
    """A vote the judge posts for a player who cannot log in (代投)."""

    player: str
    target: str  # a player name, or "弃权"
    at: datetime  # UTC: when the player asked the judge
    entered_by: str = ""


@dataclass(frozen=True)
class DayConfig:
    """One game day: its threads and its timetable, all times UTC."""

    day: int
    vote_tid: int | None
    discussion_tid: int | None
    opens: datetime  # the round's case post: votes before it do not count (AMB-24)
    closes: datetime  # the vote closes (exclusive)
    void_cutoff: datetime  # R001: a void counts up to and including this minute
    change_cutoff: datetime  # R004: a change counts only strictly before this
    night_deadline: datetime  # the next night's submissions are due
    discussion_opens: datetime  # attendance window start (previous close, or the case post on day 1)
    accelerated: bool = False
    accelerated_at: datetime | None = None  # R004: accelerated from this moment on (declared mid-day)
    accelerated_until: datetime | None = None  # R004: a granted delay ended the accelerated state then
    proxy_votes: tuple[ProxyVoteEntry, ...] = ()
    dead: tuple[str, ...] = ()  # out before this day's vote (the night's dead), when no roles are stored
    sent_off: tuple[str, ...] = ()  # R001 §四.10 / AMB-33: the judges send these off at this day's close
    red_cards: tuple[str, ...] = ()  # R004: red cards the judges give at this day's end (after the vote)
    opens_given: bool = True  # False: ``opens`` is the timetable's estimate; the case post's own time wins
    process_tid: int | None = None  # R004: the day's process thread (进程帖): delay/acceleration applications
    given: frozenset[str] = frozenset()  # the keys the game file gave for this day (what it says wins)


@dataclass(frozen=True)
class NightGroupSource:
    """One group's private forum (access granted per user: read with the judge's login) and, optionally,
    the one thread in it where the group's night actions go (None: every thread of the forum)."""

    group: str  # the group's name as the rules call it: killers (匪帮/杀手), bandits, police
    fid: int
    tid: int | None = None


@dataclass(frozen=True)
class NightSources:
    """``[night_sources]``: where the runner reads night actions (issue 10). ``pm``: the players' private
    messages to the judge count too."""

    pm: bool = False
    groups: tuple[NightGroupSource, ...] = ()


def _night_sources(raw: Any, ruleset: str | None) -> NightSources | None:
    """The [night_sources] table: ``pm = true`` and one ``GROUP = { fid = N, tid = M }`` per group, each
    GROUP a name the rule set gives its private groups (``RuleSet.group_sources``: killers, bandits,
    police); with no readable rule set, the names are checked when the runner reads them."""
    from engine import get_ruleset  # at the check only: a game file kept checked loads without the engine

    names = tuple(get_ruleset(ruleset).group_sources) if ruleset else ()
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise GameFileError(
            _("[night_sources] must be a table"), field="night_sources", fix="killers = { fid = 6, tid = 8 }"
        )
    groups: list[NightGroupSource] = []
    pm = False
    for key, value in raw.items():
        if key == "pm":
            if not isinstance(value, bool):
                raise GameFileError(_("pm must be true or false"), field="night_sources.pm", fix="pm = true")
            pm = value
            continue
        if names and key not in names:
            raise GameFileError(
                _("unknown group {name!r}").format(name=key),
                field=f"night_sources.{key}",
                fix=_("one of {groups} (or pm = true)").format(groups=", ".join(names)),
            )
        if not isinstance(value, Mapping) or not isinstance(value.get("fid"), int):
            raise GameFileError(
                _("a group needs the fid of its private forum"),
                field=f"night_sources.{key}",
                fix=f"{key} = {{ fid = 6, tid = 8 }}",
            )
        tid = value.get("tid")
        if tid is not None and not isinstance(tid, int):
            raise GameFileError(_("tid must be a number"), field=f"night_sources.{key}.tid", fix="tid = 8")
        groups.append(NightGroupSource(key, int(value["fid"]), tid))
    return NightSources(pm=pm, groups=tuple(groups))


@dataclass(frozen=True)
class SignupConfig:
    """``[signup]``: the sign-up thread (报名帖) and how its list becomes the game's players (issue 19).

    ``role_accounts``: the game file's ``[players].roster`` names the role accounts (角色ID) the board's
    admin prepared (R001 §一: the identity goes to each player's own account, 本尊ID, with the role
    account he plays); without a roster the players play with the accounts they signed up with.
    ``auto_confirm``: the list read at the close is confirmed without a judge when no post needs one;
    ``draw``: the roles are then drawn by seed (``seed``, else one forumbot picks and records);
    ``cards``: the judges' own composition (role name → how many) the seed deals, instead of the rule
    set's preset for the number of players (R004's 18-player game of the judges' own choice)."""

    tid: int
    closes_at: datetime  # UTC, exclusive: a post shown at this minute is late
    cap: int | None
    auto_confirm: bool = False
    draw: bool = False
    seed: int | None = None
    role_accounts: bool = False
    cards: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class ThreadsConfig:
    """``[threads]``: forumbot opens each day's discussion thread (the case post as its first floor) and
    vote thread (a header with the deadlines and the vote format) in forum ``fid`` when the day's
    [[days]] entry gives no tid (a tid in the file wins). ``title``: ``{game}``, ``{day}``, ``{kind}``
    (讨论帖 / 投票帖)."""

    fid: int
    title: str = "【{game}】第{day}日 {kind}"

    def subject(self, game: str, day: int, kind: str) -> str:
        return self.title.format(game=game, day=day, kind=kind)


@dataclass(frozen=True)
class Game:
    name: str
    ruleset: str
    board: BoardConfig
    roster: tuple[str, ...]
    days: tuple[DayConfig, ...]
    store_url: str
    judges: tuple[str, ...] = ()
    timezone: str = DEFAULT_TZ
    path: Path | None = None
    flags: Mapping[str, Any] = field(default_factory=dict)
    attendance: Mapping[str, Any] = field(default_factory=dict)
    night1_deadline: datetime | None = None  # night 1's submissions are due (UTC)
    outbox: Mapping[str, Any] = field(default_factory=dict)  # [outbox]: auto_approve, pm_interval, uids...
    night_sources: NightSources | None = None  # [night_sources]: where players send night actions
    signup: SignupConfig | None = None  # [signup]: the sign-up thread; the roster may come from it
    threads: ThreadsConfig | None = None  # [threads]: forumbot opens the days' threads itself

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def day(self, n: int) -> DayConfig:
        for d in self.days:
            if d.day == n:
                return d
        have = ", ".join(str(d.day) for d in self.days) or "none"
        from forumbot.errors import UsageError

        raise UsageError(
            _("day {day} is not in the game file (days configured: {have}); add a [[days]] entry").format(
                day=n, have=have
            )
        )

    def watched_tids(self) -> list[int]:
        seen: list[int] = []
        for d in self.days:
            for tid in (d.discussion_tid, d.vote_tid, d.process_tid):
                if tid is not None and tid not in seen:
                    seen.append(tid)
        return seen

    def vote_tids(self) -> list[int]:
        """The days' vote threads (read again from PC pages at a full poll through the API)."""
        return list(dict.fromkeys(d.vote_tid for d in self.days if d.vote_tid is not None))

    def local(self, when: datetime) -> datetime:
        return when.astimezone(self.tz)


# --------------------------------------------------------------------------- parsing helpers


def _need(table: Mapping[str, Any], key: str, where: str, fix: str) -> Any:
    """``table[key]``, or a GameFileError naming ``where.key`` and ``fix`` (translated by the caller, or a
    TOML line that needs no translation)."""
    if key not in table:
        raise GameFileError(_("missing {key!r}").format(key=key), field=f"{where}.{key}", fix=fix)
    return table[key]


def parse_local_time(value: Any, tz: ZoneInfo, field_name: str) -> datetime:
    """A wall-clock time in the game's zone ("2026-06-04 13:00", a TOML datetime) → aware UTC."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        text = value.strip().replace("T", " ").replace("/", "-")
        parsed: datetime | None = None
        for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"):
            try:
                parsed = datetime.strptime(text, fmt)
                break
            except ValueError:
                continue
        if parsed is None:
            raise GameFileError(
                _("cannot read the time {value!r}").format(value=value),
                field=field_name,
                fix=_('write it as "2026-06-04 13:00"'),
            )
        dt = parsed
    else:
        raise GameFileError(
            _("expected a time, got {value!r}").format(value=value),
            field=field_name,
            fix=_('write it as "2026-06-04 13:00"'),
        )
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(UTC)


def _parse_clock(value: Any, field_name: str) -> time:
    if isinstance(value, time):
        return value
    try:
        hh, mm = str(value).strip().split(":")
        return time(int(hh), int(mm))
    except (ValueError, TypeError) as exc:
        raise GameFileError(
            _("cannot read the clock time {value!r}").format(value=value),
            field=field_name,
            fix=_('e.g. "13:00"'),
        ) from exc


def _parse_date(value: Any, field_name: str) -> date:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise GameFileError(
            _("cannot read the date {value!r}").format(value=value),
            field=field_name,
            fix=_('e.g. "2026-06-03"'),
        ) from exc


def _at(d: date, t: time, tz: ZoneInfo) -> datetime:
    return datetime.combine(d, t, tzinfo=tz).astimezone(UTC)


def _check_names(names: Iterable[str], roster: set[str], field_name: str) -> None:
    for name in names:
        if name not in roster:
            raise GameFileError(
                _("{name!r} is not in the roster").format(name=name),
                field=field_name,
                fix=_("use a role account listed in [players].roster (names match exactly)"),
            )


# --------------------------------------------------------------------------- timetable


@dataclass(frozen=True)
class Timetable:
    """Defaults from which each day's times are derived when a [[days]] entry does not give them."""

    ruleset: str
    first_night: date | None
    night_deadline: time
    vote_close: time
    void_cutoff_minutes: int
    change_cutoff_minutes: int
    case_post_delay_minutes: int
    night_hours: int | None  # the night ends this long after the close (None: at night_deadline)
    day_length: int  # calendar days from the opening to the close (R001: the next day)
    weekend_extra: bool  # one more day when the day includes a weekend (R004, AMB-85)

    @classmethod
    def from_table(cls, ruleset: str, t: Mapping[str, Any]) -> Timetable:
        from engine import get_ruleset

        d = get_ruleset(ruleset).timetable  # the rule set's defaults (R004: two-day days, 21:00, +2 h)
        night_hours = t.get("night_hours", d.night_hours)
        return cls(
            ruleset=ruleset,
            first_night=_parse_date(t["first_night"], "timetable.first_night")
            if "first_night" in t
            else None,
            night_deadline=_parse_clock(
                t.get("night_deadline", d.night_deadline), "timetable.night_deadline"
            ),
            vote_close=_parse_clock(t.get("vote_close", d.vote_close), "timetable.vote_close"),
            void_cutoff_minutes=int(t.get("void_cutoff_minutes", d.void_cutoff_minutes)),
            change_cutoff_minutes=int(t.get("change_cutoff_minutes", d.change_cutoff_minutes)),
            case_post_delay_minutes=int(t.get("case_post_delay_minutes", d.case_post_delay_minutes)),
            night_hours=None if night_hours is None else int(night_hours),
            day_length=int(t.get("day_length", d.day_length)),
            weekend_extra=bool(t.get("weekend_extra_day", d.weekend_extra_day)),
        )

    def default_opens(self, day: int, tz: ZoneInfo, where: str) -> datetime:
        """R001: round r's case post follows night r's deadline (day r at 17:00) by about 20 min."""
        if self.first_night is None:
            raise GameFileError(
                _("no opening time for this day"),
                field=f"{where}.opens",
                fix=_('give opens = "YYYY-MM-DD HH:MM" (the case post), or [timetable].first_night'),
            )
        night = self.first_night + timedelta(days=day - 1)
        return _at(night, self.night_deadline, tz) + timedelta(minutes=self.case_post_delay_minutes)

    def default_close(self, opens: datetime, tz: ZoneInfo) -> datetime:
        """The close ``day_length`` calendar days on from the opening (R001: the next day 13:00; R004: two
        days, one more when they include a weekend, closing 21:00, AMB-85)."""
        local_open = opens.astimezone(tz).date()
        last = local_open + timedelta(days=self.day_length - 1)
        if self.weekend_extra and any(
            (local_open + timedelta(days=i)).weekday() >= 5 for i in range(self.day_length)
        ):
            last += timedelta(days=1)
        return _at(last, self.vote_close, tz)

    def default_night_deadline(self, closes: datetime, tz: ZoneInfo) -> datetime:
        if self.night_hours is not None:
            return closes + timedelta(hours=self.night_hours)
        return _at(closes.astimezone(tz).date(), self.night_deadline, tz)


# --------------------------------------------------------------------------- loading


def load_game(path: str | Path) -> Game:
    """The game of the file at ``path``, checked (every problem raised as a GameFileError); a file checked
    before, unchanged, is taken from the cache of checked games (forumbot/gamecache.py)."""
    from forumbot import gamecache

    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError as exc:
        raise ConfigError(
            _("game file {path!r} not found").format(path=str(p)),
            field="--game",
            fix=_("pass --game FILE, or create forumbot.toml (see README: The game file)"),
        ) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GameFileError(
            _("{path} is not UTF-8 (byte {offset}: {bytes}; saved as GBK by an editor?)").format(
                path=p, offset=exc.start, bytes=repr(raw[exc.start : exc.start + 2])
            ),
            field="(file)",
            fix=_("save it as UTF-8 (in Notepad: Save As, Encoding: UTF-8)"),
        ) from exc
    kept = gamecache.load(p, raw, Game)
    if kept is not None:
        return kept
    import tomllib  # not at import: a kept game is not parsed again

    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise GameFileError(
            _("{path} is not valid UTF-8 TOML: {error}").format(path=p, error=exc),
            field="(file)",
            fix=_("fix the syntax"),
        ) from exc
    game = game_from_dict(data, path=p, text=text.removeprefix("\ufeff"))
    gamecache.save(p, raw, game)
    return game


def game_from_dict(data: Mapping[str, Any], *, path: Path | None = None, text: str | None = None) -> Game:
    """A game from the parsed TOML of a game file (``text``: the file as written, for the lines of the
    problems). The shapes are checked first against the schema (forumbot.gamefile: unknown keys, types,
    ranges); when they are right, each table is read and checked in turn (a known rule set, times in
    order, names in the roster, no thread used twice). Every problem found is reported at once: one as a
    GameFileError, several as a GameFileErrors, each naming the key, its line and the fix."""
    from forumbot import gamefile

    data = _without_none(data)
    problems = gamefile.check_shapes(data)
    game = None if problems else _build(data, path, problems)
    gamefile.raise_problems(gamefile.located(problems, data, text))
    assert game is not None  # no problem, so it was built
    return game


def _without_none(node: Any) -> Any:
    """The parsed file without keys set to None: TOML has no null, so a None comes from a Python caller
    (tests, the demo) meaning "left out". A None in a list stays: the schema refuses it."""
    if isinstance(node, Mapping):
        return {k: _without_none(v) for k, v in node.items() if v is not None}
    if isinstance(node, list):
        return [_without_none(v) if isinstance(v, Mapping | list) else v for v in node]
    return node


class _Problems:
    """Collects the problems of the reading steps, so one wrong table does not hide the next."""

    def __init__(self, problems: list[GameFileError]) -> None:
        self.problems = problems

    def attempt(self, step: Callable[[], _T]) -> _T | None:
        try:
            return step()
        except GameFileError as exc:
            self.problems.extend(exc.problems if isinstance(exc, GameFileErrors) else [exc])
        except ConfigError as exc:
            self.problems.append(GameFileError(exc.message, field=exc.field, fix=exc.fix))
        return None

    def add(self, message: str, field: str, fix: str) -> None:
        self.problems.append(GameFileError(message, field=field, fix=fix))


def _build(data: Mapping[str, Any], path: Path | None, problems: list[GameFileError]) -> Game | None:
    """Read each table of a file whose shapes are right, collecting every problem; the game when none."""
    found = _Problems(problems)
    g = data["game"]
    ruleset = found.attempt(lambda: canonical_ruleset(str(g["ruleset"])))
    zone = found.attempt(lambda: _game_zone(g))
    tzname = zone[0] if zone else DEFAULT_TZ
    board = found.attempt(lambda: _board_table(data["board"], tzname))
    players = found.attempt(lambda: _roster_and_judges(data, g))
    roster, judges = players or ((), ())
    tt = found.attempt(lambda: Timetable.from_table(ruleset, data.get("timetable", {}))) if ruleset else None
    days: tuple[DayConfig, ...] = ()
    if tt is not None and zone is not None:
        days = _days(data.get("days", []), tt, zone[1], set(roster), found)
    night_sources = found.attempt(lambda: _night_sources(data.get("night_sources"), ruleset))
    flags = dict(data.get("flags", {}))
    if ruleset:
        found.attempt(lambda: _check_flags(flags, ruleset))
    _check_outbox(data.get("outbox", {}), roster, judges, found)
    _check_threads(data.get("days", []), days, night_sources, found)
    signup = found.attempt(lambda: _signup(data.get("signup"), zone[1], roster)) if zone is not None else None
    threads = found.attempt(lambda: _threads(data.get("threads"), board))
    if found.problems or ruleset is None or board is None or players is None or zone is None:
        return None
    return Game(
        name=str(g.get("name", "版杀")),
        ruleset=ruleset,
        board=board,
        roster=roster,
        days=days,
        store_url=_store_url(g, path),
        judges=judges,
        timezone=tzname,
        path=path,
        flags=flags,
        attendance=dict(data.get("attendance", {})),
        night1_deadline=_night1_deadline(tt, days, zone[1]) if tt is not None else None,
        outbox=dict(data.get("outbox", {})),  # read by forumbot.outbox.OutboxSettings
        night_sources=night_sources,
        signup=signup,
        threads=threads,
    )


def _threads(raw: Mapping[str, Any] | None, board: BoardConfig | None) -> ThreadsConfig | None:
    """``[threads]``: the forum (its own ``fid``, else the board's) and a title that names the day."""
    if raw is None or not raw.get("open", True):
        return None
    fid = raw.get("fid", board.fid if board is not None else None)
    if fid is None:
        raise GameFileError(
            _("forumbot cannot open the days' threads without the public forum"),
            field="threads.fid",
            fix="fid = 3",
        )
    title = str(raw.get("title", "【{game}】第{day}日 {kind}"))
    try:
        shown = title.format(game="版杀", day=1, kind="讨论帖")
    except (KeyError, IndexError, ValueError) as exc:
        raise GameFileError(
            _("the title template {title!r} cannot be filled: {error}").format(title=title, error=exc),
            field="threads.title",
            fix='title = "【{game}】第{day}日 {kind}"',
        ) from exc
    if "1" not in shown or "讨论帖" not in shown:
        raise GameFileError(
            _("the title template {title!r} must name the day and the thread's kind").format(title=title),
            field="threads.title",
            fix='title = "【{game}】第{day}日 {kind}"',
        )
    return ThreadsConfig(fid=int(fid), title=title)


def _signup(raw: Mapping[str, Any] | None, tz: ZoneInfo, roster: tuple[str, ...]) -> SignupConfig | None:
    """``[signup]`` (shapes checked by the schema). With a roster of role accounts the cap is the number of
    role accounts: a bigger cap would leave a player without one."""
    if raw is None:
        return None
    closes = parse_local_time(raw["closes_at"], tz, "signup.closes_at")
    cap = raw.get("cap")
    if roster:
        if cap is not None and cap != len(roster):
            raise GameFileError(
                _("cap = {cap} but [players].roster lists {n} role accounts").format(cap=cap, n=len(roster)),
                field="signup.cap",
                fix=_("leave cap out (it is the number of role accounts) or list one per player"),
            )
        cap = len(roster)
    return SignupConfig(
        tid=int(raw["tid"]),
        closes_at=closes,
        cap=None if cap is None else int(cap),
        auto_confirm=bool(raw.get("auto_confirm", False)),
        draw=bool(raw.get("draw", False)),
        seed=None if raw.get("seed") is None else int(raw["seed"]),
        role_accounts=bool(roster),
        cards=tuple((str(k), int(v)) for k, v in (raw.get("cards") or {}).items()),
    )


def _check_flags(flags: Mapping[str, Any], ruleset: str) -> None:
    """``[flags]`` as the desk reads them (forumbot.desk.core): each a flag of the engine or of the night
    messages (an unknown name gets the closest known one), each value one the flag takes."""
    from dataclasses import fields as dc_fields
    from difflib import get_close_matches  # here: only a checked file's flags need it (issue 21)

    from engine import DayFlags, NightFlags, get_ruleset
    from forumbot.nightflags import MAIL_FLAG_NAMES

    known = sorted({f.name for f in dc_fields(DayFlags)} | {f.name for f in dc_fields(NightFlags)})
    known += sorted(MAIL_FLAG_NAMES)
    for name in flags:
        if name not in known:
            close = get_close_matches(name, known, n=1, cutoff=0.6)
            raise GameFileError(
                _("unknown flag {name!r}").format(name=name),
                field=f"flags.{name}",
                fix=_("did you mean {key!r}?").format(key=close[0])
                if close
                else _("see `forumbot flags` for every flag and its values"),
            )
    defaults = {f.name: getattr(DayFlags(), f.name) for f in dc_fields(DayFlags)}
    defaults |= {f.name: getattr(NightFlags(), f.name) for f in dc_fields(NightFlags)}
    for name, value in flags.items():
        if not _same_kind(value, defaults.get(name)):
            raise GameFileError(
                _("{name} = {value!r} is not a value this flag takes").format(name=name, value=value),
                field=f"flags.{name}",
                fix=_(
                    "the default is {default!r}; see `forumbot flags` for every flag and its values"
                ).format(default=defaults[name]),
            )
    read_flags(flags, get_ruleset(ruleset).flags)


def read_flags(
    flags: Mapping[str, Any], night_base: NightFlags
) -> tuple[NightMailFlags, DayFlags, NightFlags]:
    """``[flags]`` read into the night messages' flags and the engine's day and night flags (over the
    rule set's ``night_base``), a wrong value raised as a :class:`GameFileError` naming the flag. One
    function for the check when the game file is loaded and for the desk that reads the flags."""
    from engine import EngineError, split_flags
    from forumbot.nightflags import MAIL_FLAG_NAMES, MailFlagError, mail_flags

    try:
        mail = mail_flags(flags)
    except MailFlagError as exc:
        raise GameFileError(
            _("{name} = {value!r} is not one of {choices}").format(
                name=exc.name, value=exc.value, choices=", ".join(map(repr, exc.choices))
            ),
            field=f"flags.{exc.name}",
            fix=_("see `forumbot flags` for every flag and its values"),
        ) from exc
    try:
        day, night = split_flags({k: v for k, v in flags.items() if k not in MAIL_FLAG_NAMES}, night_base)
    except EngineError as exc:
        raise GameFileError(
            str(exc), field="flags", fix=_("see `forumbot flags` for every flag and its values")
        ) from exc
    return mail, day, night


def _same_kind(value: Any, default: Any) -> bool:
    """A flag's value of the kind of its default (the engine's flags check names and choices, not
    types): a switch takes true/false, a count a whole number, a choice text. A flag without a default
    (None) or with a list default is left to the engine."""
    if default is None or isinstance(default, tuple):
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(default, str):  # a StrEnum too: the engine checks the choice
        return isinstance(value, str)
    return True


def _check_outbox(
    outbox: Mapping[str, Any], roster: tuple[str, ...], judges: tuple[str, ...], found: _Problems
) -> None:
    """``[outbox]``: ``auto_approve`` names kinds of items, ``uids`` names players and judges."""
    from difflib import get_close_matches

    from forumbot.labels import OUTBOX_KIND_LABELS  # light: forumbot.outbox's kinds (tests/test_startup.py)

    kinds = list(OUTBOX_KIND_LABELS)
    for kind in outbox.get("auto_approve", ()):
        if kind not in kinds:
            close = get_close_matches(kind, kinds, n=1, cutoff=0.6)
            found.add(
                _("unknown outbox kind {kind!r}").format(kind=kind),
                "outbox.auto_approve",
                _("did you mean {key!r}?").format(key=close[0])
                if close
                else _("use any of {kinds}").format(kinds=", ".join(sorted(kinds))),
            )
    for name in outbox.get("uids", {}):
        if roster and name not in roster and name not in judges:
            found.add(
                _("{name!r} is neither a player nor a judge").format(name=name),
                f"outbox.uids.{name}",
                _("names match the roster"),
            )


_THREAD = {"vote": "[投票]", "discussion": "[讨论]", "process": "[进程]"}  # as the boards name them


def _check_threads(
    days_raw: Any, days: tuple[DayConfig, ...], night: NightSources | None, found: _Problems
) -> None:
    """No thread in two roles: a day's vote, discussion and process threads are three threads, a thread
    is the vote thread of one day and the discussion of another only by mistake, and a night group's
    private thread is none of the days' public ones. (The same discussion or vote thread for several
    days is allowed: each day reads its own window of it.) Each name also given twice (``vote`` and
    ``vote_tid``) is refused: which one would win?"""
    for i, d in enumerate(days_raw):
        for short in ("vote", "discussion", "process"):
            if short in d and f"{short}_tid" in d:
                found.add(
                    _("{a} and {b} both given").format(a=short, b=f"{short}_tid"),
                    f"days[{i}].{short}_tid",
                    _("keep one of them"),
                )
    roles: dict[int, tuple[str, int]] = {}
    for d in days:
        for role, tid in (("vote", d.vote_tid), ("discussion", d.discussion_tid), ("process", d.process_tid)):
            if tid is None:
                continue
            seen = roles.setdefault(tid, (role, d.day))
            if seen[0] != role:
                found.add(
                    _(
                        "thread {tid} is both the {role} thread of day {day} and the {other} thread of day "
                        "{other_day}"
                    ).format(
                        tid=tid, role=_THREAD[role], day=d.day, other=_THREAD[seen[0]], other_day=seen[1]
                    ),
                    f"days[day={d.day}].{role}",
                    _("each thread has one role: give the tid of the right thread"),
                )
    for group in night.groups if night is not None else ():
        if group.tid is not None and group.tid in roles:
            role, day = roles[group.tid]
            found.add(
                _("the private thread {tid} of {group} is the {role} thread of day {day}").format(
                    tid=group.tid, group=group.group, role=_THREAD[role], day=day
                ),
                f"night_sources.{group.group}.tid",
                _("a group's night thread is in its private forum, not one of the day's threads"),
            )


def _game_zone(g: Mapping[str, Any]) -> tuple[str, ZoneInfo]:
    """The board's time zone (``game.timezone``): its name and the zone."""
    tzname = str(g.get("timezone", DEFAULT_TZ))
    try:
        return tzname, ZoneInfo(tzname)
    except Exception as exc:
        raise GameFileError(
            _("unknown time zone {name!r}").format(name=tzname),
            field="game.timezone",
            fix=_("e.g. Asia/Shanghai"),
        ) from exc


def _board_table(b: Mapping[str, Any], tzname: str) -> BoardConfig:
    """The [board] table. A password is refused: the file is shared, the password stays in the env."""
    try:
        source = SourceKind(str(b.get("source", "pc")))
    except ValueError as exc:
        raise GameFileError(
            _("unknown source {source!r}").format(source=b.get("source")),
            field="board.source",
            fix=_("one of api, pc, touch"),
        ) from exc
    cookie = b.get("cookie_file")
    try:
        board = BoardConfig(
            url=str(_need(b, "url", "board", _('e.g. url = "https://bbs.example.com/"'))),
            source=source,
            fid=int(b["fid"]) if "fid" in b else None,
            username=b.get("username"),
            password=BoardConfig.password_from_env(b.get("password_env")),
            password_env=str(b["password_env"]) if b.get("password_env") else None,
            charset=str(b["charset"]) if b.get("charset") else None,
            login_via=str(b.get("login_via", "web")),
            min_interval=float(b.get("min_interval", 2.0)),
            timeout=float(b.get("timeout", 20.0)),
            retries=int(b.get("retries", 3)),
            user_agent=str(b.get("user_agent", DEFAULT_USER_AGENT)),
            cookie_file=Path(cookie).expanduser() if cookie else None,
            timezone=tzname,
            posts_per_page=int(b.get("posts_per_page", 10)),
        )
    except ConfigError as exc:
        raise GameFileError(exc.message, field=exc.field, fix=exc.fix) from exc
    return board  # a password key is refused by the schema: the file is shared


def _roster_and_judges(
    data: Mapping[str, Any], g: Mapping[str, Any]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The roster (each role account once, not empty) and the judges (none of them a player). A game with
    a ``[signup]`` table may leave [players] out: its players are the sign-up's, confirmed in the store."""
    if "players" not in data and "signup" in data:
        return (), tuple(str(x) for x in g.get("judges", ()))
    players = _need(data, "players", "(file)", _("add [players] with roster = [...]"))
    roster_raw = _need(players, "roster", "players", _('roster = ["name1", "name2", ...]'))
    roster = tuple(str(x).strip() for x in roster_raw)
    dupes = sorted({x for x in roster if roster.count(x) > 1})
    if dupes:
        raise GameFileError(
            _("{name!r} is listed twice").format(name=dupes[0]),
            field="players.roster",
            fix=_("list each role once"),
        )
    if not roster:
        raise GameFileError(_("the roster is empty"), field="players.roster", fix=_("list the role accounts"))
    judges = tuple(str(x) for x in g.get("judges", ()))
    clash = [j for j in judges if j in roster]
    if clash:
        raise GameFileError(
            _("{name!r} is both a judge and a player").format(name=clash[0]),
            field="game.judges",
            fix=_("a judge cannot play"),
        )
    return roster, judges


def _days(
    days_raw: Any, tt: Timetable, tz: ZoneInfo, roster: set[str], found: _Problems
) -> tuple[DayConfig, ...]:
    """The [[days]]: numbered 1, 2, 3..., each opening after the one before closes. A wrong day is
    reported and left out; the next is checked against the last right one."""
    days: list[DayConfig] = []
    for i, d in enumerate(days_raw):
        prev = days[-1] if days else None
        day = found.attempt(partial(_day, d, i, prev, tt, tz, roster))
        if day is not None:
            days.append(day)
    return tuple(days)


def _day(
    d: Mapping[str, Any], i: int, prev: DayConfig | None, tt: Timetable, tz: ZoneInfo, roster: set[str]
) -> DayConfig:
    """One [[days]] entry: its times (given or derived from the timetable), checked against each other
    and against the day before, then its threads and the judges' decisions of the day."""
    n = int(_need(d, "day", f"days[{i}]", "day = 1"))
    where = f"days[day={n}]"
    opens, closes, void_cutoff, change_cutoff, night = _day_times(d, n, where, tt, tz)
    _check_day_times(where, n, opens, closes, void_cutoff, change_cutoff, night, prev, tz)
    proxies = _proxy_votes(d, where, tz, roster)
    accel = _accelerated(d, where, tz)
    dead = _names(d, "dead", where, roster)
    sent_off = _names(d, "sent_off", where, roster)
    red_cards = _names(d, "red_cards", where, roster)
    vote_tid = d.get("vote", d.get("vote_tid"))
    disc_tid = d.get("discussion", d.get("discussion_tid"))
    process_tid = d.get("process", d.get("process_tid"))
    if process_tid is not None and (isinstance(process_tid, bool) or not isinstance(process_tid, int)):
        raise GameFileError(
            _("process = {value!r} is not a thread id").format(value=process_tid),
            field=f"{where}.process",
            fix=_("process = TID of [进程]"),
        )
    if vote_tid is None:
        raise GameFileError(
            _("no vote thread for this day"), field=f"{where}.vote", fix=_("vote = TID of [投票]")
        )
    return DayConfig(
        day=n,
        vote_tid=int(vote_tid),
        discussion_tid=int(disc_tid) if disc_tid is not None else None,
        opens=opens,
        closes=closes,
        void_cutoff=void_cutoff,
        change_cutoff=change_cutoff,
        night_deadline=night,
        discussion_opens=prev.closes if prev is not None else opens,
        accelerated=accel is True,
        accelerated_at=accel if isinstance(accel, datetime) else None,
        proxy_votes=proxies,
        dead=dead,
        sent_off=sent_off,
        red_cards=red_cards,
        opens_given="opens" in d,
        process_tid=process_tid,
        given=frozenset(str(k) for k in d),
    )


def _day_times(
    d: Mapping[str, Any], n: int, where: str, tt: Timetable, tz: ZoneInfo
) -> tuple[datetime, datetime, datetime, datetime, datetime]:
    """Opening, close, void cutoff, change cutoff and the next night's deadline of day ``n``: each as
    the file gives it, else derived from the timetable.

    A derived cutoff counts back from the close but never before the opening: a day shorter than the
    cutoff's minutes (a 40-minute R001 day against R004's 60-minute change cutoff, which R001 does not
    even use, or a 20-minute day against R001's 30-minute void cutoff) is all "last hour": the rule's
    own words ("关门前一小时不允许改票", "12:30 之后废票无效") then allow no change or void at all, which
    is what the cutoff at the opening says. A cutoff the file gives is still checked against the window.
    """

    def given(key: str) -> datetime | None:
        return parse_local_time(d[key], tz, f"{where}.{key}") if key in d else None

    opens = given("opens") or tt.default_opens(n, tz, where)
    closes = given("close") or tt.default_close(opens, tz)
    void_cutoff = given("void_cutoff") or max(opens, closes - timedelta(minutes=tt.void_cutoff_minutes))
    change_cutoff = given("change_cutoff") or max(opens, closes - timedelta(minutes=tt.change_cutoff_minutes))
    night = given("night_deadline") or tt.default_night_deadline(closes, tz)
    return opens, closes, void_cutoff, change_cutoff, night


def _check_day_times(
    where: str,
    n: int,
    opens: datetime,
    closes: datetime,
    void_cutoff: datetime,
    change_cutoff: datetime,
    night: datetime,
    prev: DayConfig | None,
    tz: ZoneInfo,
) -> None:
    """The day's times in order (opens ≤ cutoffs ≤ close ≤ night deadline), after the day before."""
    if not opens < closes:
        raise GameFileError(
            _("the vote closes ({closes}) before it opens ({opens})").format(
                closes=_fmt(closes, tz), opens=_fmt(opens, tz)
            ),
            field=f"{where}.close",
            fix=_("close must come after opens"),
        )
    if not opens <= void_cutoff <= closes:
        raise GameFileError(
            _("void_cutoff is outside the vote window"),
            field=f"{where}.void_cutoff",
            fix=_("keep opens ≤ void_cutoff ≤ close"),
        )
    if not opens <= change_cutoff <= closes:
        raise GameFileError(
            _("change_cutoff is outside the vote window"),
            field=f"{where}.change_cutoff",
            fix=_("keep opens ≤ change_cutoff ≤ close"),
        )
    if night < closes:
        raise GameFileError(
            _("the night deadline comes before the vote closes"),
            field=f"{where}.night_deadline",
            fix=_("the next night follows the vote"),
        )
    if prev is not None and opens < prev.closes:
        raise GameFileError(
            _("day {day} opens before day {previous} closes").format(day=n, previous=prev.day),
            field=f"{where}.opens",
            fix=_("days must follow each other in order"),
        )
    if prev is not None and n != prev.day + 1:
        raise GameFileError(
            _("day {day} follows day {previous}").format(day=n, previous=prev.day),
            field=f"{where}.day",
            fix=_("number the days 1, 2, 3, ..."),
        )


def _proxy_votes(
    d: Mapping[str, Any], where: str, tz: ZoneInfo, roster: set[str]
) -> tuple[ProxyVoteEntry, ...]:
    """The day's proxy votes (代投) given in the file: players of the roster, the target or 弃权."""
    proxies: list[ProxyVoteEntry] = []
    for j, pv in enumerate(d.get("proxy_votes", [])):
        pw = f"{where}.proxy_votes[{j}]"
        player = str(_need(pv, "player", pw, _('player = "name"')))
        target = str(_need(pv, "target", pw, _('target = "name" (or "弃权")')))
        _check_names([player], roster, f"{pw}.player")
        if target != "弃权":
            _check_names([target], roster, f"{pw}.target")
        at = parse_local_time(_need(pv, "at", pw, 'at = "2026-06-04 10:00"'), tz, f"{pw}.at")
        proxies.append(ProxyVoteEntry(player, target, at, str(pv.get("entered_by", ""))))
    return tuple(proxies)


def _accelerated(d: Mapping[str, Any], where: str, tz: ZoneInfo) -> bool | datetime:
    """R004's acceleration: false, true, or the moment the judge declared it."""
    accel: bool | datetime = d.get("accelerated", False)
    if isinstance(accel, str | datetime) and not isinstance(accel, bool):
        return parse_local_time(accel, tz, f"{where}.accelerated")
    if not isinstance(accel, bool):
        raise GameFileError(
            _("accelerated = {value!r} is neither true nor a time").format(value=accel),
            field=f"{where}.accelerated",
            fix=_('true, or the moment: "2026-06-12 10:00"'),
        )
    return accel


def _names(d: Mapping[str, Any], key: str, where: str, roster: set[str]) -> tuple[str, ...]:
    """A list of players of the day (dead, sent_off, red_cards), each in the roster."""
    names = tuple(str(x) for x in d.get(key, ()))
    _check_names(names, roster, f"{where}.{key}")
    return names


def _night1_deadline(tt: Timetable, days: tuple[DayConfig, ...], tz: ZoneInfo) -> datetime | None:
    """Night 1's deadline: the timetable's first night, else day 1's opening (the case post follows the
    deadline, so anything before it is on time)."""
    if tt.first_night is not None:
        return _at(tt.first_night, tt.night_deadline, tz)
    return days[0].opens if days else None


def _store_url(g: Mapping[str, Any], path: Path | None) -> str:
    """The store: an SQLAlchemy URL, or an SQLite path taken relative to the game file."""
    store = str(g.get("store", DEFAULT_STORE))
    if path is not None and "://" not in store and not Path(store).is_absolute():
        store = str((path.parent / store).resolve())
    return store


def _fmt(dt: datetime, tz: ZoneInfo) -> str:
    return dt.astimezone(tz).strftime("%Y-%m-%d %H:%M")


def find_game_file(explicit: str | None) -> Path | None:
    if explicit:
        return Path(explicit)
    default = Path(DEFAULT_GAME_FILE)
    return default if default.exists() else None
