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

Markup in post texts: ``[b]..[/b]``, ``[quote=PID]`` at the start, ``:lol:``, ``\\n`` (as the snapshot
scenarios of tools/make_example_board.py).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from forumbot.errors import ForumbotError

__all__ = [
    "Edit",
    "Forum",
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


@dataclass(frozen=True)
class Edit:
    at: datetime  # UTC
    text: str


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

    def exists(self, now: datetime) -> bool:
        return self.at <= now and (self.deleted_at is None or now < self.deleted_at)

    def shown(self, now: datetime) -> tuple[str, datetime | None]:
        """The text at ``now`` and the time of the edit it comes from (None: never edited yet)."""
        done = [e for e in self.edits if e.at <= now]
        if not done:
            return self.text, None
        last = max(done, key=lambda e: e.at)
        return last.text, last.at


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

    # ------------------------------------------------------------------ lookups

    def user(self, name: str) -> User:
        try:
            return self.users[name]
        except KeyError:
            raise ScenarioError(f"{name!r} is not a user of the board (add it to [users])") from None

    def name_of(self, uid: int) -> str | None:
        return next((u.name for u in self.users.values() if u.uid == uid), None)

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
        threads[int(t["tid"])] = Thread(int(t["tid"]), fid, str(t["subject"]), str(t["author"]))
    sc = Scenario(
        name=str(board.get("name", "版杀测试论坛")),
        tz=tz,
        ppp=int(board.get("ppp", 10)),
        judge=judge,
        users=users,
        forums=forums,
        threads=threads,
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
        edits = [Edit(_time(e["at"], tz, here), str(e["text"])) for e in p.get("edits", [])]
        if "edited_at" in p:
            edits.append(Edit(_time(p["edited_at"], tz, here), str(p["edited_text"])))
        at = _time(p["at"], tz, here)
        if any(e.at < at for e in edits):
            raise ScenarioError(f"{here}: edited before it was posted")
        deleted = _time(p["deleted_at"], tz, here) if "deleted_at" in p else None
        sc.posts.append(Post(pid, tid, author, at, str(p["text"]), tuple(edits), deleted))
    for m in raw.get("pms", []):
        here = f"{where} pms[pmid={m.get('pmid')}]"
        sender, to = str(m["from"]), str(m["to"])
        sc.user(sender), sc.user(to)
        sc.pms.append(Pm(int(m["pmid"]), sender, to, _time(m["at"], tz, here), str(m["text"])))
    return sc
