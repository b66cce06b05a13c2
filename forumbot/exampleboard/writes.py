"""The example board's write side: login forms, reply, edit, new thread and private messages.

Why: forumbot's outbox writes to a real Discuz! X3.5 board, so the example board must take the judge's
POSTs and answer them as X3.5 does (../shared/fixtures/discuz-x35-posting/INDEX.md, numbers are its
exchanges): a 301 with the new pid for a reply (08), the ``#pidP`` fragment for an edit (14), the tid for
a new thread (06), ``succeedhandle_sendpm`` with the pmid for a PM sent through the popup (67) or a 301
to the conversation without ``inajax`` (66), UCenter's seconds between two PMs (69), a 503 «非法字符» for
a wrong formhash (25), submit_invalid for none (26), «您尚未登录» for a guest (23), floodctrl (17), a
closed thread (45), someone else's post (15). A GBK board reads every field's bytes as GBK, so UTF-8
fields are stored as mojibake (84). What was written shows on the next page read (the board merges it):
new posts at the thread's end, edits in place with the edit marker, PMs in the conversation.

``on_post`` hooks run after a write is stored and before it is answered: a test kills the sender there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol
from urllib.parse import parse_qs, urlsplit

from forumbot.exampleboard.model import Scenario
from forumbot.exampleboard.render import (
    TAINTED,
    login_page,
    message_page,
    pm_popup,
    post_form_page,
    xml_answer,
)

__all__ = ["GUEST_HASH", "MEMBER_HASH", "Answer", "Writer", "Written", "WrittenPm"]

GUEST_HASH = "9e5t0000"
MEMBER_HASH = "d3m0f0rm"
JUDGE_PID_BASE = 100000  # the judge's posts: pids from here (the scenario's pids are below)
JUDGE_TID_BASE = 1000  # new threads the judge opens

Answer = tuple[int, str, dict[str, str]]  # status, page text (encoded by the board), extra headers


@dataclass
class Written:
    pid: int
    tid: int
    text: str
    at: datetime
    subject: str = ""
    author: str | None = None  # None: the judge (a test may show the floor as someone else's)


@dataclass
class WrittenPm:
    pmid: int
    to_uid: int
    text: str
    at: datetime


class Board(Protocol):
    """What the writer asks of its board (:class:`~forumbot.exampleboard.server.LiveBoard`): the board
    owns its writer, so the writer knows it only by these, and the modules import one way."""

    scenario: Scenario

    @property
    def now(self) -> datetime: ...

    @property
    def url(self) -> str: ...

    def viewer(self, cookie: str) -> tuple[int, str] | None: ...

    def merged(self) -> Scenario: ...

    def page_of(self, tid: int, pid: int) -> int: ...


def _q(query: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()}


class Writer:
    """The judge's writes to a :class:`~forumbot.exampleboard.server.LiveBoard`, held in memory."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.posts: list[Written] = []
        self.edits: dict[int, tuple[str, datetime]] = {}  # pid -> (text, at): the judge's edits
        self.pms: list[WrittenPm] = []
        self.threads: dict[int, tuple[int, str]] = {}  # new threads: tid -> (fid, subject)
        self.received: list[tuple[str, str]] = []  # (reply|newthread|edit|pm, text) of every stored write
        self.on_post: list[Callable[[str, str], None]] = []
        self.frozen: set[int] = set()  # uids whose account is frozen (a PM to them is refused)
        self._lock = threading.Lock()
        self._last_post_at: datetime | None = None
        self.last_pm_at: datetime | None = None

    # ------------------------------------------------------------------ helpers

    @property
    def judge(self) -> str:
        return self.board.scenario.judge

    @property
    def judge_uid(self) -> int:
        return self.board.scenario.user(self.judge).uid

    def count(self, text: str) -> int:
        """How many times ``text`` was stored (a write sent twice shows here twice)."""
        return sum(1 for _, t in self.received if t == text)

    def is_judge(self, cookie: str) -> bool:
        viewer = self.board.viewer(cookie)
        return viewer is not None and viewer[1] == self.judge

    def formhash(self, cookie: str) -> str:
        return MEMBER_HASH if self.board.viewer(cookie) is not None else GUEST_HASH

    def fields(self, raw: bytes) -> dict[str, str]:
        """The form's fields, each value's bytes read in the board's charset (as X3.5 does)."""
        cs = self.board.scenario.options.charset
        parsed = parse_qs(
            raw.decode("ascii", "replace"), keep_blank_values=True, encoding=cs, errors="replace"
        )
        return {k: v[-1] for k, v in parsed.items()}

    def _stored(self, what: str, text: str) -> None:
        self.received.append((what, text))
        for hook in list(self.on_post):
            hook(what, text)

    def _next_pid(self) -> int:
        return max([JUDGE_PID_BASE - 1, *(w.pid for w in self.posts)]) + 1

    def _next_tid(self) -> int:
        return max([JUDGE_TID_BASE - 1, *self.threads]) + 1

    def _form(self, action: str, hidden: dict[str, str], cookie: str, message: str = "") -> Answer:
        text = post_form_page(
            action, hidden, formhash=self.formhash(cookie), uid=self.judge_uid, message=message
        )
        return 200, text, {}

    # ------------------------------------------------------------------ GET: the forms

    def answer_get(self, path: str, cookie: str) -> Answer | None:
        """The write side's pages (login form, post forms, the PM popup); None for any other page."""
        parts = urlsplit(path)
        q = _q(parts.query)
        if parts.path.endswith("member.php") and q.get("mod") == "logging":
            return 200, login_page(formhash=GUEST_HASH), {}
        if parts.path.endswith("home.php") and q.get("op") == "showmsg":
            if self.board.viewer(cookie) is None:
                return 200, message_page("您需要先登录才能继续本操作", kind="alert_info"), {}
            return 200, xml_answer(pm_popup(int(q.get("touid", "0") or 0), self.formhash(cookie))), {}
        if not (parts.path.endswith("forum.php") and q.get("mod") == "post"):
            return None
        if not self.is_judge(cookie):
            return 200, message_page("抱歉，您尚未登录，没有权限在该版块回帖", kind="alert_info"), {}
        action = q.get("action")
        sc = self.board.merged()
        if action == "reply":
            tid = int(q.get("tid", "0") or 0)
            if tid not in sc.threads:
                return 200, message_page("抱歉，指定的主题不存在或已被删除或正在被审核"), {}
            if tid in sc.options.closed:
                return 200, message_page("抱歉，本主题已关闭，不再接受新内容"), {}
            return self._form(
                f"forum.php?mod=post&action=reply&fid={sc.threads[tid].fid}&tid={tid}&extra=&replysubmit=yes",
                {"noticeauthor": "", "noticetrimstr": "", "noticeauthormsg": ""},
                cookie,
            )
        if action == "newthread":
            return self._form(
                f"forum.php?mod=post&action=newthread&fid={q.get('fid', '3')}&extra=&topicsubmit=yes",
                {},
                cookie,
            )
        if action == "edit":
            pid = int(q.get("pid", "0") or 0)
            post = next((p for p in sc.posts if p.pid == pid), None)
            if post is None or post.author != self.judge:
                return 200, message_page("抱歉，您没有权限编辑他人发表的帖子"), {}
            hidden = {
                "delattachop": "0",
                "fid": str(sc.threads[post.tid].fid),
                "tid": str(post.tid),
                "pid": str(pid),
                "page": "1",
                "delete": "0",
            }
            text = post.shown(self.board.now)[0]
            return self._form("forum.php?mod=post&action=edit&extra=&editsubmit=yes", hidden, cookie, text)
        return 200, message_page("抱歉，您没有权限访问该版块"), {}

    # ------------------------------------------------------------------ POST

    def answer_post(self, path: str, raw: bytes, cookie: str) -> Answer:
        parts = urlsplit(path)
        q = _q(parts.query)
        f = self.fields(raw)
        with self._lock:
            # Discuz!'s order: _xss_check (a wrong formhash: 503), then submitcheck, then the login.
            given = f.get("formhash", "")
            if given and given != self.formhash(cookie):
                host = urlsplit(self.board.url).hostname or "127.0.0.1"
                return 503, TAINTED.format(host=host), {"Retry-After": "3600"}
            if not given:
                return 200, message_page("抱歉，您的请求来路不正确或表单验证串不符，无法提交"), {}
            if parts.path.endswith("home.php"):
                return self._pm(q, f, cookie)
            if not self.is_judge(cookie):
                return 200, message_page("抱歉，您尚未登录，没有权限在该版块回帖", kind="alert_info"), {}
            if f.get("wysiwyg") != "0":  # with 1, Discuz! runs the message through html2bbcode
                return (
                    200,
                    message_page("example board: wysiwyg=0 was not sent (the BBCode would be mangled)"),
                    {},
                )
            message = f.get("message", "")
            if not message.strip():
                return 200, message_page("抱歉，您尚未输入标题或内容"), {}
            return self._post(q, f, message)

    def _post(self, q: dict[str, str], f: dict[str, str], message: str) -> Answer:
        now = self.board.now
        opts = self.board.scenario.options
        action = q.get("action")
        if action in ("reply", "newthread") and opts.floodctrl and self._last_post_at is not None:  # noqa: SIM102
            if (now - self._last_post_at).total_seconds() < opts.floodctrl:
                return 200, message_page(f"抱歉，您两次发表间隔少于 {opts.floodctrl} 秒，请稍候再发表"), {}
        if action == "newthread":
            tid = self._next_tid()
            self.threads[tid] = (int(q.get("fid", "3") or 3), f.get("subject", ""))
            self.posts.append(Written(self._next_pid(), tid, message, now, f.get("subject", "")))
            self._last_post_at = now
            self._stored("newthread", message)
            return 301, "", {"Location": f"forum.php?mod=viewthread&tid={tid}&extra="}
        if action == "reply":
            tid = int(q.get("tid", "0") or 0)
            sc = self.board.merged()
            if tid not in sc.threads:
                return 200, message_page("抱歉，指定的主题不存在或已被删除或正在被审核"), {}
            if tid in opts.closed:
                return 200, message_page("抱歉，本主题已关闭，不再接受新内容"), {}
            pid = self._next_pid()
            # a clock that stands still still orders the judge's replies: a second apart
            self.posts.append(Written(pid, tid, message, now + timedelta(seconds=len(self.posts))))
            self._last_post_at = now
            self._stored("reply", message)
            page = self.board.page_of(tid, pid)
            location = f"forum.php?mod=viewthread&tid={tid}&pid={pid}&page={page}&extra=#pid{pid}"
            return 301, "", {"Location": location}
        if action == "edit":
            pid = int(f.get("pid", "0") or 0)
            post = next((p for p in self.board.merged().posts if p.pid == pid), None)
            if post is None or post.author != self.judge:
                return 200, message_page("抱歉，您没有权限编辑他人发表的帖子"), {}
            self.edits[pid] = (message, now)
            self._stored("edit", message)
            return 301, "", {"Location": f"forum.php?mod=viewthread&tid={post.tid}&page=1&extra=#pid{pid}"}
        return 200, message_page("抱歉，您没有权限访问该版块"), {}

    def _pm(self, q: dict[str, str], f: dict[str, str], cookie: str) -> Answer:
        ajax = q.get("inajax") == "1"

        def refuse(msg: str) -> Answer:
            if ajax:
                js = f"if(typeof errorhandle_sendpm=='function') {{errorhandle_sendpm('{msg}', {{}});}}"
                return 200, xml_answer(f'{msg}<script type="text/javascript" reload="1">{js}</script>'), {}
            return 200, message_page(msg), {}

        if not self.is_judge(cookie):
            return 200, message_page("您需要先登录才能继续本操作", kind="alert_info"), {}
        sc = self.board.scenario
        uid = int(q.get("touid") or f.get("touid") or 0)
        if sc.name_of(uid) is None or uid == self.judge_uid or uid in self.frozen:
            return refuse("抱歉，用户不存在或被冻结，请检查用户uid是否正确")
        message = f.get("message", "")
        if not message.strip():
            return refuse("抱歉，不能发送空消息")
        now = self.board.now
        flood = sc.options.pmfloodctrl
        if flood and self.last_pm_at is not None and (now - self.last_pm_at).total_seconds() < flood:
            return refuse("两次发送短消息太快，请稍候再发送")
        pmid = len(self.pms) + 1
        self.pms.append(WrittenPm(pmid, uid, message, now))
        self.last_pm_at = now
        self._stored("pm", message)
        url = f"home.php?mod=space&do=pm&subop=view&touid={uid}"
        if not ajax:
            return 301, "", {"Location": url}
        ok = f"succeedhandle_sendpm('{url}', '操作成功 ', {{'pmid':'{pmid}'}});"
        js = f"if(typeof succeedhandle_sendpm=='function') {{{ok}}}"
        return 200, xml_answer(f'<script type="text/javascript" reload="1">{js}</script>'), {}
