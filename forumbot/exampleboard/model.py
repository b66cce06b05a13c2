"""The example board's content and what of it exists at a moment.

Why: a whole example game is a story in time — posts appear at their time, a vote is edited at 11:40, a
post is deleted at 12:10, a player sends the judge a PM at 16:40 — and a judge (or forumbot) reading the
board at 11:00 must see exactly what a real board would show at 11:00. A :class:`Scenario` holds every
event with its time (read from a ``scenario.toml``); :meth:`Scenario.thread_posts` and friends answer
"what is on the board at ``now``". Pure: no clock, no I/O but :func:`load_scenario`.

The scenario file (times are wall-clock in ``[board].timezone``, default Asia/Shanghai)::

    [board]
    name = "版杀测试论坛"   # the board's name in page titles
    ppp = 10               # posts per page of viewthread
    judge = "法官大人"      # the account forumbot logs in with (its writes show on the board)
    password = "demo"      # every account's password unless [passwords] names one

    [users]                # name = uid (every account that posts, sends PMs or logs in)
    "法官大人" = 14

    [passwords]            # optional: name = password
    "包子" = "baozi"

    [[forums]]             # fid 3 is public; a forum with `members` is readable only by them (per-user
    fid = 6                # access, exchanges 90–95 of discuz-x35-posting): the judge, the group
    name = "匪帮讨论组"     # members; `joined` adds a member from a moment (a possessed player, AMB-11)
    members = ["法官大人", "烧卖", "月饼"]
    joined = { "饺子" = "2026-06-05 17:30:00" }

    [[threads]]            # a thread exists once its first post does
    tid = 8
    fid = 6
    subject = "【匪帮】夜间行动"
    author = "烧卖"

    [[posts]]              # pid, tid, author, at, text; optional edits and deletion
    pid = 53
    tid = 8
    author = "烧卖"
    at = "2026-06-03 16:40:00"
    text = "杀：锅贴"
    edited_at = "2026-06-03 16:50:00"   # or [[posts.edits]] at/text for several
    edited_text = "杀：汤圆"
    deleted_at = "2026-06-04 12:10:00"

    [[pms]]                # a private message (站内短消息)
    pmid = 3
    from = "包子"
    to = "法官大人"
    at = "2026-06-03 16:45:00"
    text = "验：月饼"

Options of ``[board]`` for the unusual boards a test needs (all optional)::

    charset = "gbk"          # every page in GBK, every form field read as GBK (84: UTF-8 becomes mojibake)
    paging = "offset"        # pages by offset over the visible posts (older Discuz!): a deletion moves
                             # later posts to earlier pages and renumbers the floors; default "floor"
    mobile_api = "json"      # api/mobile/index.php: json | closed | error503 | redirect
    api_strips_edit_marker = true   # the API's message leaves out «本帖最后由…编辑», as the real v4 does
    floodctrl = 15           # seconds between two posts of one user (17)
    pmfloodctrl = 15         # seconds between two PMs (UCenter, 69)
    closed = [5]             # closed threads: «抱歉，本主题已关闭，不再接受新内容» (45)

    [[snapshots]]            # named moments (``LiveBoard.use("s2")`` moves the clock there)
    name = "s2"
    at = "2026-06-04 13:30:00"

A post may also say ``state = "banned"`` / ``"blocked"`` (Discuz!'s placeholder instead of the text),
``marker = false`` with an edit (a silent edit, no «本帖最后由…编辑»), ``deleted_from_snapshot = "s2"``
(deleted at that snapshot); a thread ``sticky = [13]`` (replies pinned at the top of page 1).

Markup in post texts: ``[b]..[/b]``, ``[quote=PID]`` at the start, ``:lol:``, ``\\n`` (as the snapshot
example games' scenarios).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from forumbot.errors import ForumbotError

__all__ = [
    "Edit",
    "Forum",
    "Options",
    "Pm",
    "Post",
    "Scenario",
    "ScenarioError",
    "Thread",
    "User",
    "load_scenario",
]


class ScenarioError(ForumbotError):
    """A scenario file that cannot be played: says which entry and why."""


@dataclass(frozen=True)
class User:
    uid: int
    name: str
    password: str


@dataclass(frozen=True)
class Forum:
    fid: int
    name: str
    members: frozenset[str] | None = None  # None: everyone may read it (guests too)
    joined: tuple[tuple[str, datetime], ...] = ()  # members added from a moment

    def readable_by(self, name: str | None, now: datetime) -> bool:
        if self.members is None:
            return True
        if name is None:
            return False
        return name in self.members or any(who == name and since <= now for who, since in self.joined)


@dataclass(frozen=True)
class Thread:
    tid: int
    fid: int
    subject: str
    author: str
    sticky: tuple[int, ...] = ()  # pids pinned at the top of page 1 (置顶回复)


@dataclass(frozen=True)
class Edit:
    at: datetime  # UTC
    text: str
    marker: bool = True  # False: a silent edit (no «本帖最后由…编辑»)


@dataclass
class Options:
    """How this board behaves beyond X3.5's defaults (see the module docstring); tests may change them
    while the board serves (``board.options.closed.add(5)``)."""

    charset: str = "utf-8"
    paging: str = "floor"  # floor | offset
    mobile_api: str = "json"  # json | closed | error503 | redirect
    api_strips_edit_marker: bool = False
    floodctrl: int = 0
    pmfloodctrl: int = 0
    closed: set[int] = field(default_factory=set)


@dataclass
class Post:
    pid: int
    tid: int
    author: str
    at: datetime  # UTC
    text: str
    edits: tuple[Edit, ...] = ()
    deleted_at: datetime | None = None
    bbcode: bool = False  # written by the judge through the board (full BBCode), not scenario markup
    state: str = "normal"  # normal | banned | blocked (the body is Discuz!'s placeholder)

    def exists(self, now: datetime) -> bool:
        return self.at <= now and (self.deleted_at is None or now < self.deleted_at)

    def shown(self, now: datetime) -> tuple[str, datetime | None]:
        """The text at ``now`` and the time of the edit it comes from (None: never edited yet)."""
        last = self.last_edit(now)
        return (self.text, None) if last is None else (last.text, last.at)

    def last_edit(self, now: datetime) -> Edit | None:
        done = [e for e in self.edits if e.at <= now]
        return max(done, key=lambda e: e.at) if done else None


@dataclass(frozen=True)
class Pm:
    pmid: int
    from_name: str
    to_name: str
    at: datetime  # UTC
    text: str


@dataclass
class Scenario:
    """Everything that ever happens on the board, each with its time."""

    name: str
    tz: ZoneInfo
    ppp: int
    judge: str
    users: dict[str, User]
    forums: dict[int, Forum]
    threads: dict[int, Thread]
    posts: list[Post] = field(default_factory=list)
    pms: list[Pm] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    snapshots: dict[str, datetime] = field(default_factory=dict)  # named moments (UTC)

    # ------------------------------------------------------------------ lookups

    def user(self, name: str) -> User:
        try:
            return self.users[name]
        except KeyError:
            raise ScenarioError(f"{name!r} is not a user of the board (add it to [users])") from None

    def name_of(self, uid: int) -> str | None:
        return next((u.name for u in self.users.values() if u.uid == uid), None)

    def add_user(self, name: str, uid: int | None = None) -> User:
        """``name``'s account, opened now if the board has none (the next free uid from 100)."""
        if name not in self.users:
            free = max([99, *(u.uid for u in self.users.values())]) + 1
            default_pw = next(iter(self.users.values())).password if self.users else "demo"
            self.users[name] = User(uid if uid is not None else free, name, default_pw)
        return self.users[name]

    def post(self, pid: int) -> Post:
        found = next((p for p in self.posts if p.pid == pid), None)
        if found is None:
            raise ScenarioError(f"no post pid {pid} on the board")
        return found

    def stick(self, tid: int, *pids: int) -> None:
        """Pin replies at the top of the thread's first page."""
        self.threads[tid] = replace(self.threads[tid], sticky=tuple(pids))

    def board_dict(self, fid: int) -> dict[str, Any]:
        """The ``board`` mapping the renderer takes, for a page of forum ``fid``."""
        forum = self.forums.get(fid)
        return {"name": self.name, "forum": forum.name if forum else self.name, "fid": fid, "ppp": self.ppp}

    # ------------------------------------------------------------------ what exists at a moment

    def thread_posts(self, tid: int, now: datetime) -> list[tuple[int, Post]]:
        """The posts of a thread shown at ``now`` with their floor (position).

        A floor is given when a post is made and never changes: deleted posts leave a gap, as in X3.5.
        """
        made = sorted((p for p in self.posts if p.tid == tid and p.at <= now), key=lambda p: (p.at, p.pid))
        if self.options.paging == "offset":  # older Discuz!: floors count the visible posts only
            return list(enumerate((p for p in made if p.exists(now)), start=1))
        return [(n, p) for n, p in enumerate(made, start=1) if p.exists(now)]

    def thread_exists(self, tid: int, now: datetime) -> bool:
        shown = self.thread_posts(tid, now)
        return tid in self.threads and bool(shown) and shown[0][0] == 1

    def forum_threads(self, fid: int, now: datetime) -> list[Thread]:
        return [t for t in self.threads.values() if t.fid == fid and self.thread_exists(t.tid, now)]

    def moments(self) -> list[datetime]:
        """Every instant the board changes (a post, an edit, a deletion, a PM, a member let in), in order:
        the steps a fast clock can walk through without skipping anything."""
        found = {p.at for p in self.posts}
        found |= {e.at for p in self.posts for e in p.edits}
        found |= {p.deleted_at for p in self.posts if p.deleted_at is not None}
        found |= {m.at for m in self.pms}
        found |= {since for f in self.forums.values() for _, since in f.joined}
        return sorted(found)

    def pms_of(self, name: str, now: datetime) -> list[Pm]:
        """Every PM to or from ``name`` sent by ``now``, oldest first."""
        return sorted(
            (m for m in self.pms if m.at <= now and name in (m.from_name, m.to_name)),
            key=lambda m: (m.at, m.pmid),
        )


# ---------------------------------------------------------------------------------------------- loading


def _time(raw: object, tz: ZoneInfo, where: str) -> datetime:
    if isinstance(raw, datetime):
        dt = raw
    elif isinstance(raw, str):
        try:
            dt = datetime.fromisoformat(raw.strip().replace(" ", "T"))
        except ValueError:
            raise ScenarioError(f"{where}: {raw!r} is not a time (write 2026-06-03 16:40:00)") from None
    else:
        raise ScenarioError(f"{where}: {raw!r} is not a time (write 2026-06-03 16:40:00)")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(UTC)


def load_scenario(path: Path) -> Scenario:
    """Read a scenario file (see the module's docstring); a wrong entry raises :class:`ScenarioError`."""
    try:
        raw = tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"{path}: {exc}") from exc
    return scenario_from_dict(raw, str(path))


def scenario_from_dict(raw: dict[str, Any], where: str = "scenario") -> Scenario:
    board = raw.get("board", {})
    tz = ZoneInfo(str(board.get("timezone", "Asia/Shanghai")))
    default_pw = str(board.get("password", "demo"))
    passwords = {str(k): str(v) for k, v in raw.get("passwords", {}).items()}
    users = {
        str(name): User(int(uid), str(name), passwords.get(str(name), default_pw))
        for name, uid in raw.get("users", {}).items()
    }
    judge = str(board.get("judge", "法官大人"))
    forums: dict[int, Forum] = {}
    for f in raw.get("forums", []) or [
        {"fid": int(board.get("fid", 3)), "name": board.get("forum", "版杀区")}
    ]:
        members = f.get("members")
        joined = tuple(
            (str(who), _time(t, tz, f"{where} forums[fid={f['fid']}].joined"))
            for who, t in f.get("joined", {}).items()
        )
        for who in [*(members or []), *(w for w, _ in joined)]:
            if who not in users:
                raise ScenarioError(f"{where} forums[fid={f['fid']}]: member {who!r} is not in [users]")
        forums[int(f["fid"])] = Forum(
            int(f["fid"]),
            str(f["name"]),
            frozenset(map(str, members)) if members is not None else None,
            joined,
        )
    first_fid = next(iter(forums))
    threads: dict[int, Thread] = {}
    for t in raw.get("threads", []):
        fid = int(t.get("fid", first_fid))
        if fid not in forums:
            raise ScenarioError(f"{where} threads[tid={t['tid']}]: no forum fid {fid} in [[forums]]")
        if str(t["author"]) not in users:
            raise ScenarioError(f"{where} threads[tid={t['tid']}]: author {t['author']!r} is not in [users]")
        sticky = tuple(int(x) for x in t.get("sticky", []))
        threads[int(t["tid"])] = Thread(int(t["tid"]), fid, str(t["subject"]), str(t["author"]), sticky)
    snapshots = {
        str(snap["name"]): _time(snap["at"], tz, f"{where} snapshots[{snap.get('name')}]")
        for snap in raw.get("snapshots", [])
    }
    options = Options(
        charset=str(board.get("charset", "utf-8")).lower(),
        paging=str(board.get("paging", "floor")),
        mobile_api=str(board.get("mobile_api", "json")),
        api_strips_edit_marker=bool(board.get("api_strips_edit_marker", False)),
        floodctrl=int(board.get("floodctrl", 0)),
        pmfloodctrl=int(board.get("pmfloodctrl", 0)),
        closed={int(x) for x in board.get("closed", [])},
    )
    if options.paging not in ("floor", "offset"):
        raise ScenarioError(f"{where} [board].paging: {options.paging!r} is neither 'floor' nor 'offset'")
    if options.mobile_api not in ("json", "closed", "error503", "redirect"):
        raise ScenarioError(f"{where} [board].mobile_api: {options.mobile_api!r} is not a mode of the API")
    sc = Scenario(
        name=str(board.get("name", "版杀测试论坛")),
        tz=tz,
        ppp=int(board.get("ppp", 10)),
        judge=judge,
        users=users,
        forums=forums,
        threads=threads,
        options=options,
        snapshots=snapshots,
    )
    seen: set[int] = set()
    for p in raw.get("posts", []):
        here = f"{where} posts[pid={p.get('pid')}]"
        pid, tid, author = int(p["pid"]), int(p["tid"]), str(p["author"])
        if pid in seen:
            raise ScenarioError(f"{here}: pid {pid} is used twice")
        seen.add(pid)
        if tid not in threads:
            raise ScenarioError(f"{here}: no thread tid {tid} in [[threads]]")
        sc.user(author)
        marker = bool(p.get("marker", True))
        edits = [
            Edit(_time(e["at"], tz, here), str(e["text"]), bool(e.get("marker", marker)))
            for e in p.get("edits", [])
        ]
        if "edited_at" in p:
            edits.append(Edit(_time(p["edited_at"], tz, here), str(p["edited_text"]), marker))
        at = _time(p["at"], tz, here)
        if any(e.at < at for e in edits):
            raise ScenarioError(f"{here}: edited before it was posted")
        deleted = _time(p["deleted_at"], tz, here) if "deleted_at" in p else None
        if "deleted_from_snapshot" in p:
            snap = str(p["deleted_from_snapshot"])
            if snap not in snapshots:
                raise ScenarioError(f"{here}: no snapshot {snap!r} in [[snapshots]]")
            deleted = snapshots[snap]
        state = str(p.get("state", "normal"))
        if state not in ("normal", "banned", "blocked"):
            raise ScenarioError(f"{here}: state {state!r} is none of normal, banned, blocked")
        sc.posts.append(Post(pid, tid, author, at, str(p["text"]), tuple(edits), deleted, state=state))
    for m in raw.get("pms", []):
        here = f"{where} pms[pmid={m.get('pmid')}]"
        sender, to = str(m["from"]), str(m["to"])
        sc.user(sender), sc.user(to)
        sc.pms.append(Pm(int(m["pmid"]), sender, to, _time(m["at"], tz, here), str(m["text"])))
    return sc
