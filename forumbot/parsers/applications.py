"""R004 delay and acceleration applications (延时/加速申请) as posted in the process thread (进程帖).

The grammar is small: ``申请延时`` / ``延时申请`` / ``延时`` (a post of just the word, ``+1`` allowed), the
same with ``加速``; ``取消`` / ``撤回`` / ``撤销`` before one of them withdraws it. Quotes, markup and the
edit marker are ignored and full/half width folded (as for votes). A negation (``不延时``, ``反对加速``)
is no application; a question, or a post naming both, or the word inside other talk is left to the
judges (UNCLEAR). Counting is the engine's (``engine.judge_applications``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from engine import ApplicationKind, ApplicationPost
from forumbot.parsers.records import Post, PostState
from forumbot.parsers.votes import normalize_vote_text

__all__ = ["application_posts", "read_application"]

_WORD = "(延时|延時|延迟|加速)"
_WITHDRAW = re.compile(rf"(取消|撤回|撤销|收回)(我的)?(申请)?{_WORD}")
_NEGATED = re.compile(rf"(不|别|反对|不要|不用|无需|没必要)(申请)?{_WORD}")
_PHRASE = re.compile(rf"申请{_WORD}|{_WORD}申请")
_BARE = re.compile(rf"^(我)?(要)?(申请)?{_WORD}(申请)?(\+1|1)?$")
_PUNCT = re.compile(r"[\s,.!~。，！、…:;：；'\"“”‘’()（）\[\]【】]+")


def _kind(word: str, withdraw: bool = False) -> ApplicationKind:
    delay = word in ("延时", "延時", "延迟")
    if withdraw:
        return ApplicationKind.WITHDRAW_DELAY if delay else ApplicationKind.WITHDRAW_ACCELERATE
    return ApplicationKind.DELAY if delay else ApplicationKind.ACCELERATE


def read_application(text: str) -> tuple[ApplicationKind, str]:
    """(what the post applies for, a Chinese note for the judges). Never raises."""
    if not isinstance(text, str):
        return ApplicationKind.NONE, "无正文"
    t = unicodedata.normalize("NFKC", normalize_vote_text(text))
    compact = _PUNCT.sub("", t)
    if not compact:
        return ApplicationKind.NONE, "空帖（或只有引用）"
    words = {("延时" if w in ("延时", "延時", "延迟") else w) for w in re.findall(_WORD, compact)}
    if not words:
        return ApplicationKind.NONE, "非申请内容"
    if len(words) > 1:
        return ApplicationKind.UNCLEAR, "同一帖同时提到延时和加速，请法官确认"
    question = "?" in t or "吗" in compact
    m = _WITHDRAW.search(compact)
    if m:
        if question:
            return ApplicationKind.UNCLEAR, "像是在问能否撤回申请，请法官确认"
        return _kind(m.group(4), withdraw=True), "撤回申请"
    if _NEGATED.search(compact):
        return ApplicationKind.NONE, "表示不申请/反对，不是申请"
    bare = _BARE.match(compact)
    if bare and not question:
        return _kind(bare.group(4)), ""
    m2 = _PHRASE.search(compact)
    if m2 and not question:
        return _kind(m2.group(1) or m2.group(2)), "帖中还有其他内容，按申请计"
    return ApplicationKind.UNCLEAR, "提到延时/加速，但看不出是在申请，请法官确认"


def application_posts(posts: Iterable[Post], judges: Iterable[str] = ()) -> tuple[ApplicationPost, ...]:
    """Stored process-thread posts → the engine's :class:`ApplicationPost` values, in pid order.

    The thread's first post (the judges' own) and the judges' posts are left out; a post the board shows
    only as deleted/hidden is read from what is stored, with a note. Duplicate pids are kept once.
    """
    skip = set(judges)
    seen: set[int] = set()
    out: list[ApplicationPost] = []
    for p in sorted(posts, key=lambda x: x.pid):
        if p.pid in seen or p.first or not p.author or p.author in skip:
            continue
        seen.add(p.pid)
        kind, note = read_application(p.text)
        if p.state is not PostState.NORMAL and kind is not ApplicationKind.NONE:
            kind, note = ApplicationKind.UNCLEAR, f"帖子状态异常（{p.state.value}），请法官确认"
        latest = p.posted_until if p.posted_until != p.posted_at else None
        out.append(ApplicationPost(p.pid, p.author, p.posted_at, kind, note, at_latest=latest))
    return tuple(out)
