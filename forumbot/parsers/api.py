"""The mobile JSON API: ``api/mobile/index.php?version=4&module=viewthread|forumdisplay``.

Quirks (discuz.md, confirmed by the captures): every scalar is a string; empty values may be dropped;
empty maps come as ``[]``; the JSON is ASCII/UTF-8 whatever ``Charset`` says. ``dbdateline`` is exact.
v4 has ``position`` (the real floor), renders quotes as ``div.reply_wrap`` with double-escaped links and
strips the edit marker; v1/v2 lack ``position`` and keep ``div.quote`` and ``<i class="pstatus">``.
In the only-this-author view ``number`` restarts at 1 and ``thread.replies`` counts that author's posts.

Placeholders replace ``message`` with the bare lang string (mobile plugin ``viewthread.php``):
``status & 1`` (a post banned by a moderator) shows ``该帖被管理员或版主屏蔽``, an author banned or deleted
``作者被禁止或删除 内容自动屏蔽``, hidden replies ``此帖仅作者可见``.
"""

from __future__ import annotations

import codecs
import html
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from forumbot.errors import TruncatedPage, UnparseablePage
from forumbot.parsers.complete import check_post_count, json_cut_off
from forumbot.parsers.encoding import normalise_charset
from forumbot.parsers.errorpages import raise_for_api_message
from forumbot.parsers.htmltext import classify_notice, read_fragment
from forumbot.parsers.pageinfo import (
    int_or_none,
    pages_from_count,
    query,
    url_authorid,
    url_fid,
    url_page,
    url_tid,
)
from forumbot.parsers.records import (
    ForumPage,
    ForumThread,
    Post,
    PostState,
    Source,
    ThreadPage,
    TimeSource,
    new_post,
    new_thread_info,
    new_thread_page,
)
from forumbot.parsers.times import UNKNOWN_TIME, parse_display_time

__all__ = ["load_api_json", "parse_api_forum", "parse_api_thread"]

_SHORT_NOTICE = 24  # a bare placeholder is short; a real post that mentions 待审核 is not hidden


def _utf8_upto_cut(body: bytes) -> str:
    """UTF-8 text of ``body``, tolerating a character cut in two at the very end (a cut-off answer)."""
    return codecs.getincrementaldecoder("utf-8")().decode(body, final=False)


def load_api_json(body: bytes, url: str) -> dict[str, Any]:
    """Decode the API's JSON object. Raises TruncatedPage for an object that ends before its closing
    brace, UnparseablePage for anything else that is not a JSON object."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        failure: Exception = exc
        for decode in (_utf8_upto_cut, lambda b: b.decode("gb18030", errors="strict")):
            try:
                text = decode(body)
                data = json.loads(text)
            except json.JSONDecodeError as exc2:
                if text.lstrip().startswith(("{", "[")) and json_cut_off(text, exc2):
                    raise TruncatedPage(url, "", f"the JSON ends mid-object at byte {len(body)}") from exc2
                failure = exc2
            except (UnicodeDecodeError, ValueError) as exc2:
                failure = exc2
            else:
                break
        else:
            raise UnparseablePage(url, "", f"not JSON: {failure}") from failure
    if not isinstance(data, dict):
        raise UnparseablePage(url, "", f"JSON {type(data).__name__} where an object was expected")
    return data


def _map(value: Any) -> Mapping[str, Any]:
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def _items(value: Any) -> list[Mapping[str, Any]]:
    """The list (or map) of objects under a key; anything else in it left out. JSON gives dicts: a type
    check first, the abstract Mapping check (ten times dearer) only for anything else."""
    if type(value) is dict or isinstance(value, Mapping):
        value = list(value.values())
    if type(value) is not list and not isinstance(value, list):
        return []
    return [item for item in value if type(item) is dict or isinstance(item, Mapping)]


def _text(value: Any) -> str:
    return html.unescape(value) if isinstance(value, str) else ""


def _epoch(value: Any) -> datetime | None:
    seconds = value if type(value) is int else int_or_none(value)
    if seconds is None or seconds <= 0:
        return None
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def parse_api_thread(
    payload: Mapping[str, Any],
    url: str,
    *,
    now: datetime | None,
    tz: ZoneInfo,
    keep_html: bool = True,
) -> ThreadPage:
    """Read a viewthread answer. Raises the matching BoardError for ``Message``/``error`` answers."""
    variables = _map(payload.get("Variables"))
    postlist = _items(variables.get("postlist"))
    raise_for_api_message(payload, url, has_content=bool(postlist))
    if not variables:
        raise UnparseablePage(url, "", "API answer without Variables")
    thread = _map(variables.get("thread"))
    if not thread and not postlist:
        raise UnparseablePage(url, "", "API answer without thread or postlist")

    params = query(url)
    author_filter = url_authorid(url, params)
    tid = int_or_none(thread.get("tid")) or url_tid(url, params)
    problems: list[str] = []
    posts: list[Post] = []
    seen: set[int] = set()
    # username comes from the member table; the API drops empty values, so when other posts carry it, a
    # post without it is by a deleted user (whose uid no longer names anyone)
    usernames = any("username" in item for item in postlist)
    for item in postlist:
        value = item.get("pid")
        pid = int(value) if type(value) is str and value.isdigit() else int_or_none(value)
        if pid is None:
            problems.append("post without a pid; skipped")
            continue
        if pid in seen:
            continue
        seen.add(pid)
        posts.append(_read_post(item, pid, tid, author_filter, usernames, now, tz, keep_html, problems))

    ppp = int_or_none(variables.get("ppp")) or int_or_none(params.get("ppp")) or 10
    replies = int_or_none(thread.get("replies"))
    all_replies = int_or_none(thread.get("allreplies"))
    pages = pages_from_count(replies + 1 if replies is not None else None, ppp) or 1
    page = min(url_page(url, params) or 1, pages)
    info = new_thread_info(
        tid or 0,
        int_or_none(thread.get("fid")) or int_or_none(variables.get("fid")),
        _text(thread.get("subject")),
        page,
        pages,
        all_replies if all_replies is not None else replies,
        str(variables.get("formhash") or "") or None,
        int_or_none(variables.get("member_uid")),
        normalise_charset(str(payload.get("Charset") or "")) or "utf-8",
    )
    if not tid:
        problems.append("thread: no tid in the answer or the URL")
    page_read = new_thread_page(
        info,
        tuple(posts),
        Source.API,
        url,
        author_filter,
        tuple(problems),
    )
    check_post_count(page_read, ppp)
    return page_read


def _read_post(
    item: Mapping[str, Any],
    pid: int,
    tid: int | None,
    author_filter: int | None,
    usernames: bool,
    now: datetime | None,
    tz: ZoneInfo,
    keep_html: bool,
    problems: list[str],
) -> Post:
    """One ``postlist`` item. Every scalar comes as a string: the common shapes are read inline (a call
    per field costs more than the field), anything else through :func:`int_or_none` and friends."""
    get = item.get
    value = get("authorid")
    authorid = (int(value) if type(value) is str and value.isdigit() else int_or_none(value)) or 0
    value = get("anonymous")
    anonymous = (value != "0" and value != "") if type(value) is str else str(value or "0") not in ("", "0")
    if anonymous or authorid == 0:
        author, uid = "", None
    else:
        author = _text(get("author")) or _text(get("username"))
        uid = authorid if get("username") or not usernames else None

    value = get("dbdateline")
    seconds = int(value) if type(value) is str and value.isdigit() else int_or_none(value)
    exact = _epoch(seconds) if seconds is not None else None
    if exact is not None:
        start = end = exact
        source = TimeSource.API
    else:
        display = _text(get("dateline"))
        time_range = parse_display_time(display, now=now, tz=tz) if display else None
        if time_range is None:
            problems.append(f"post {pid}: no time found")
            time_range = UNKNOWN_TIME
        start, end, source = time_range.start, time_range.end, time_range.source

    value = get("position")
    position = int(value) if type(value) is str and value.isdigit() else int_or_none(value)
    floor: int | None
    if position is not None:
        floor, floor_exact = position, True
    elif author_filter is None:
        floor, floor_exact = int_or_none(get("number")), True
    else:
        floor, floor_exact = None, False

    message = get("message")
    body = read_fragment(message if type(message) is str else str(message or ""), tz, keep_html=keep_html)
    state, text = body.state, body.text
    if len(text) <= _SHORT_NOTICE or text.startswith("提示"):
        notice = classify_notice(text)
        if notice is not None and state is PostState.NORMAL:
            state, text = notice, ""
    value = get("status")
    status = (int(value) if type(value) is str and value.isdigit() else int_or_none(value)) or 0
    if status > 0 and status & 1 and state in (PostState.NORMAL, PostState.HIDDEN):
        state = PostState.BLOCKED  # status bit 1: banned by a moderator, shown as 该帖被管理员或版主屏蔽

    value = get("tid")
    first = get("first")
    return new_post(
        pid,
        (int(value) if type(value) is str and value.isdigit() else int_or_none(value)) or tid,
        author,
        uid,
        floor,
        start,
        end,
        source,
        text,
        body.html,
        body.quotes,
        body.mentions,
        body.edit,
        state,
        (first == "1") if type(first) is str else str(first or "0") == "1",
        "",
        floor_exact,
    )


def parse_api_forum(payload: Mapping[str, Any], url: str) -> ForumPage:
    """Read a forumdisplay answer: one request says which threads changed (replies, dblastpost)."""
    variables = _map(payload.get("Variables"))
    rows = _items(variables.get("forum_threadlist"))
    raise_for_api_message(payload, url, has_content=bool(rows))
    forum = _map(variables.get("forum"))
    if not variables or (not forum and not rows):
        raise UnparseablePage(url, "", "API answer without forum or forum_threadlist")
    threads: list[ForumThread] = []
    for row in rows:
        tid = int_or_none(row.get("tid"))
        if tid is None:
            continue
        threads.append(
            ForumThread(
                tid=tid,
                subject=_text(row.get("subject")),
                replies=int_or_none(row.get("replies")) or 0,
                last_post_at=_epoch(row.get("dblastpost")),
                last_poster=_text(row.get("lastposter")),
                author=_text(row.get("author")),
            )
        )
    tpp = int_or_none(variables.get("tpp")) or 20
    count = int_or_none(forum.get("threadcount")) or int_or_none(forum.get("threads"))
    page = int_or_none(variables.get("page")) or url_page(url) or 1
    return ForumPage(
        fid=int_or_none(forum.get("fid")) or url_fid(url) or 0,
        name=_text(forum.get("name")),
        page=page,
        pages=max(pages_from_count(count, tpp) or 1, page),
        threads=tuple(threads),
        formhash=str(variables.get("formhash") or "") or None,
        source=Source.API,
        url=url,
    )
