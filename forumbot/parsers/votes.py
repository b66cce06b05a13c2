"""Reading a vote-thread post's text into a :class:`~engine.ballots.Ballot` (rules.md §a.2, §a.4).

Two grammars:

* ``"r001"`` — free format (“投票格式随意，理由可写可不写，表达清楚即可”). Canonical ``投票:某某``
  with ``:``/``：``/no colon; a reason after the name and bracketed remarks are ignored; ``弃权`` abstains;
  ``废票`` is an active void; ``@某某`` works. Looser phrasings (``我投Ken吧``, a bare name) are accepted
  but flagged ``needs_review``. Two names (``投票：Cal，Ken``) make the ballot ambiguous (a void, AMB-25).
* ``"r004"`` — strict (``投票对象：X`` + ``投票理由：…``, ``改票对象``/``改票理由`` for a change, one line
  allowed, full- and half-width punctuation alike). The 理由 label is required (its content may be empty,
  AMB-75). Anything vote-like that breaks the format is UNREADABLE (an invalid vote that must be corrected).

The text comes quote-stripped from the page parser; ``[quote]`` BBCode, other BBCode tags, the
“本帖最后由 … 编辑” marker and zero-width characters are stripped here too. Only punctuation width is
folded: a name written in full-width letters is *not* that name (the engine suggests it instead).
The reader never raises on any text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from operator import attrgetter
from typing import Literal, Protocol

from engine import (
    Ballot,
    BallotKind,
    VotePost,
    fold_punctuation,
    quick_init,
    suggest_name,
)
from forumbot.labels import post_state_label
from forumbot.lookalike import LookAlike, look_alikes
from forumbot.parsers.records import EditMarker, PostState

__all__ = [
    "Grammar",
    "NameMatcher",
    "name_matcher",
    "normalize_vote_text",
    "read_ballot",
    "suggest_name",
    "vote_posts",
]

Grammar = Literal["r001", "r004"]

# --- normalisation --------------------------------------------------------------------------------------

_QUOTE_BLOCK = re.compile(r"\[quote(?:=[^\]]*)?\](?:(?!\[quote)[\s\S])*?\[/quote\]", re.IGNORECASE)
_QUOTE_TAG = re.compile(r"\[/?quote(?:=[^\]]*)?\]", re.IGNORECASE)
_EDIT_MARK_BB = re.compile(r"\[i=s\][^\[]*?编辑\s*\[/i\]", re.IGNORECASE)
_EDIT_MARK = re.compile(r"本帖最后由\s*\S+\s*于\s*[\d\-/: ]+\s*编辑")
_DROP_BLOCK = re.compile(r"\[(img|attach|media|flash|audio|hide)[^\]]*\][\s\S]*?\[/\1\]", re.IGNORECASE)
_BBCODE_TAG = re.compile(
    r"\[/?(?:b|i|u|s|strike|color|size|font|align|backcolor|float|indent|p|list|\*|url|email|hr|sup|sub|"
    r"td|tr|table|free|code|qq|postbg|password|i=s)(?:=[^\]]*)?\]",
    re.IGNORECASE,
)


def normalize_vote_text(text: str) -> str:
    """Quotes, markup and the edit marker removed; punctuation folded to half-width; lines trimmed."""
    t = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
    # Every pattern but the plain edit marker starts with "[": a post without one (most) skips them.
    markup = "[" in t
    if markup:
        prev = None
        while prev != t:
            prev = t
            t = _QUOTE_BLOCK.sub("", t)
        t = _QUOTE_TAG.sub("", t)
        t = _EDIT_MARK_BB.sub("", t)
    if "本帖最后由" in t:
        t = _EDIT_MARK.sub("", t)
    if markup:
        t = _DROP_BLOCK.sub("", t)
        t = _BBCODE_TAG.sub("", t)
    t = fold_punctuation(t)
    if "\n" not in t:  # one line (most posts): its whitespace collapsed, no list of lines
        return " ".join(t.split())
    lines = [" ".join(line.split()) for line in t.split("\n")]
    return "\n".join(line for line in lines if line)


# --- names ------------------------------------------------------------------------------------------------


def _is_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


_PARTICLES = "吧啦了啊呀哦哈嘛呢哇噢咯喔哟~"
_SEPARATORS = re.compile(r"(?:\s|[,、/&+|;]|和|或|与|跟|还是|or\b)*", re.IGNORECASE)


_WORD_CLASS = "[A-Za-z0-9_]"  # the characters _is_word accepts


def _name_alternative(key: str) -> str:
    """``key`` as a regex that matches it only with word boundaries where :func:`_is_word` asks for them."""
    alt = re.escape(key)
    if _is_word(key[0]):
        alt = f"(?<!{_WORD_CLASS}){alt}"
    if _is_word(key[-1]):
        alt = f"{alt}(?!{_WORD_CLASS})"
    return alt


@dataclass(frozen=True, slots=True)
class _Names:
    by_key: dict[str, str]  # punctuation-folded name → name as in the roster
    by_first: dict[str, tuple[str, ...]]  # first character → folded names, longest first
    # Every folded name, longest first, each with its word boundaries: a regex tries the alternatives in
    # order and takes the first that matches, which is the longest name with its boundaries, found in C
    # (issue 21: a name at a position was one dict lookup per name length in Python).
    pattern: re.Pattern[str]

    def exact(self, s: str) -> str | None:
        return self.by_key.get(s)

    def match_at(self, s: str, pos: int) -> tuple[str, int] | None:
        """The longest player name starting at ``pos`` (≥ 0) with word boundaries on both sides."""
        m = self.pattern.match(s, pos)
        if m is None:
            return None
        return self.by_key[m.group()], m.end()

    def find_all(self, s: str) -> list[str]:
        """The names in ``s``, each once, in order: scanned as :meth:`match_at` at each position, a
        match skipping to its end (the regex's own left-to-right scan)."""
        return list(dict.fromkeys(self.by_key[m.group()] for m in self.pattern.finditer(s)))


@lru_cache(maxsize=64)
def _names(players: tuple[str, ...] | frozenset[str]) -> _Names:
    by_key: dict[str, str] = {}
    for p in sorted(x for x in players if isinstance(x, str)):
        key = fold_punctuation(p).strip()
        if key:
            by_key.setdefault(key, p)
    by_first: dict[str, list[str]] = {}
    longest_first = sorted(by_key, key=len, reverse=True)
    for key in longest_first:
        by_first.setdefault(key[0], []).append(key)
    pattern = re.compile("|".join(_name_alternative(k) for k in longest_first) or "(?!)")
    return _Names(by_key, {c: tuple(v) for c, v in by_first.items()}, pattern)


#: The roster's name matcher type (``exact``, ``match_at``, ``find_all``, ``by_key``).
NameMatcher = _Names


def _names_for(players: Collection[str]) -> _Names:
    if isinstance(players, (tuple, frozenset)):
        try:
            return _names(players)
        except TypeError:  # unhashable members
            pass
    try:
        return _names(tuple(p for p in players if isinstance(p, str)))
    except TypeError:
        return _names(())


def name_matcher(players: Collection[str]) -> NameMatcher:
    """The roster's name matcher (exact after punctuation folding, longest name first, word boundaries),
    shared with the night-submission reader (forumbot.parsers.nightmsg) so names match as in votes."""
    return _names_for(players)


# --- R001 -------------------------------------------------------------------------------------------------

_R001_KEYWORD = re.compile(
    r"(?P<kw>改票|再?投一票|投票|票投|投给|(?i:vote)|投)(?P<label>对象|目标|给)?[ ]*(?P<colon>:)?[ ]*"
)
_NOT_A_STATEMENT = re.compile(
    r"^(?:截止|帖|时间|结果|格式|规则|情况|率|数|统计|阶段|期间|环节|前|后|的|吗|了|呢|\?)"
)
_NEGATION = re.compile(r"别|不|没|勿|莫|谁|怎么|为什么|为啥")
_VOID_WORDS = re.compile(r"废票|作废|撤票|撤回(?:投票|我的票)?|取消投票")
_ABSTAIN_ONLY = re.compile(r"^(?:我)?(?:选择|决定|还是|就)?弃权(?:票)?(?:了|吧|啦)?[.!~]*$")
_REASON_LABEL = re.compile(r"^[\s,.;:!)\]]*(?:理由|原因)\s*:?\s*")
_TOKEN = re.compile(r"[^\s,.!?;:()\[\]<>、\"'~]+")


@quick_init  # made for every vote statement of a thread
@dataclass(frozen=True, slots=True)
class _Statement:
    kind: BallotKind
    target: str | None = None
    abstain: bool = False
    ambiguous: bool = False
    names: tuple[str, ...] = ()
    reason: str = ""
    canonical: bool = False  # 投票/改票 with a colon or label, or a name right after 投票
    review: bool = False
    note: str = ""
    line: int = 0

    @property
    def key(self) -> tuple[object, ...]:
        return (self.kind is BallotKind.VOID, self.target, self.abstain)


def _clean_reason(after: str) -> str:
    label = _REASON_LABEL.match(after)  # anchored at the start: what sub("") would remove, if anything
    return (after[label.end() :] if label else after).strip(" ,.;:!?()[]~")


def _parse_target(
    rest: str, names: _Names, kind: BallotKind, canonical: bool, line: int
) -> _Statement | None:
    r = rest.lstrip(" ([<\"'")
    if r.startswith("@"):
        r = r[1:].lstrip()
    if r.startswith("弃权"):
        return _Statement(kind, None, True, reason=_clean_reason(r[2:]), canonical=canonical, line=line)
    if r.startswith(("废票", "作废")):
        return _Statement(BallotKind.VOID, reason=_clean_reason(r[2:]), canonical=canonical, line=line)
    m = names.match_at(r, 0)
    if m is not None:
        name, end = m
        chain = [name]
        pos = end
        while True:
            sep = _SEPARATORS.match(r, pos)
            nxt = names.match_at(r, sep.end() if sep else pos)
            if nxt is None or nxt[0] in chain:
                break
            chain.append(nxt[0])
            pos = nxt[1]
        after = r[end:]
        review, note = False, ""
        if after and after[0] in _PARTICLES:
            review, note = True, f"名字后带语气词（{after[0]}）"
        elif after and not _is_boundary_text(after):
            review, note = True, "名字后直接接文字，请核对"
        if len(chain) > 1:
            return _Statement(
                kind,
                "，".join(chain),
                ambiguous=True,
                names=tuple(chain),
                canonical=canonical,
                review=True,
                note=f"写了多个名字（{'、'.join(chain)}），目标不明确",
                line=line,
            )
        return _Statement(
            kind,
            name,
            reason=_clean_reason(after.lstrip(_PARTICLES)),
            canonical=canonical,
            review=review,
            note=note,
            line=line,
            names=(name,),
        )
    if not canonical:
        return None
    tm = _TOKEN.match(r)
    token = tm.group(0) if tm else ""
    cut = token.find("理由")
    if cut > 0:
        token = token[:cut]
    token = token.rstrip(_PARTICLES) or token
    if not token:
        return _Statement(BallotKind.UNREADABLE, canonical=True, review=True, note="投票对象为空", line=line)
    inside = names.find_all(token)
    if len(inside) >= 2:
        return _Statement(
            kind,
            token,
            ambiguous=True,
            names=tuple(inside),
            canonical=True,
            review=True,
            note=f"写了多个名字（{'、'.join(inside)}），目标不明确",
            line=line,
        )
    return _Statement(
        kind,
        token,
        reason=_clean_reason(r[len(token) :]),
        canonical=True,
        line=line,
        note="" if names.exact(token) else "不是玩家名",
    )


def _is_boundary_text(after: str) -> bool:
    c = after[0]
    if c.isspace() or unicodedata.category(c)[0] in "PS":
        return True
    return bool(_REASON_LABEL.match(after)) or not ("\u4e00" <= c <= "\u9fff")


def _statements(t: str, names: _Names) -> list[_Statement]:
    out: list[_Statement] = []
    for i, line in enumerate(t.split("\n")):
        for m in _R001_KEYWORD.finditer(line):
            kw = m.group("kw")
            colon = m.group("colon") is not None or m.group("label") is not None
            rest = line[m.end() :]
            kind = BallotKind.CHANGE if kw == "改票" else BallotKind.VOTE
            if kw in ("投票", "改票") or kw.endswith("投一票") or kw.lower() == "vote":
                if not colon and _NOT_A_STATEMENT.match(rest):
                    continue
                st = _parse_target(rest, names, kind, canonical=True, line=i) if colon else None
                if st is None and not colon:
                    st = _parse_target(rest, names, kind, canonical=False, line=i)
                    if st is None:
                        tm = _TOKEN.match(rest)
                        if tm and suggest_name(tm.group(0), names.by_key.values()):
                            st = _Statement(kind, tm.group(0), canonical=True, line=i, note="不是玩家名")
                    elif st is not None:
                        st = _with(st, canonical=True)
                if st is not None:
                    out.append(st)
                continue
            # 投 / 投给 / 票投: a name (or 弃权/废票) must follow directly; "别投Ken" is not a vote
            if _NEGATION.search(line[max(0, m.start() - 3) : m.start()]):
                continue
            st = _parse_target(rest, names, kind, canonical=False, line=i)
            if st is not None:
                out.append(_with(st, review=True, note=st.note or "非标准格式（表达清楚即可），请法官确认"))
    return out


def _with(st: _Statement, **kw: object) -> _Statement:
    return replace(st, **kw)  # type: ignore[arg-type]


def _to_ballot(st: _Statement, **kw: object) -> Ballot:
    fields: dict[str, object] = {
        "kind": st.kind,
        "target": st.target,
        "abstain": st.abstain,
        "reason": st.reason,
        "needs_review": st.review,
        "note": st.note,
        "ambiguous": st.ambiguous,
        "names": st.names,
    }
    fields.update(kw)
    return Ballot(**fields)  # type: ignore[arg-type]


# Readings many posts share, made once: a Ballot is a frozen value, equal to any Ballot of the same fields.
_EMPTY_POST = Ballot(BallotKind.NOT_A_VOTE, note="空帖（或只有引用）")
_CHAT = Ballot(BallotKind.NOT_A_VOTE, note="非投票内容")
_ABSTAIN = Ballot(BallotKind.VOTE, abstain=True, note="弃权")
_ABSTAIN_MENTIONED = Ballot(BallotKind.NOT_A_VOTE, needs_review=True, note="提到弃权，但不像投票，请法官确认")
_VOID_AND_VOTE = Ballot(
    BallotKind.VOID, needs_review=True, note="同一帖既有废票又有投票，按废票处理，请法官确认"
)


def _read_r001(t: str, names: _Names, fast: bool = True) -> Ballot:
    """The R001 reading of a normalised text. ``fast`` takes the shortcuts (the one-line canonical vote,
    the text with no vote keyword); ``fast=False`` is the general reader they must agree with
    (tests/parsers/test_votes_fast.py)."""
    if not t:
        return _EMPTY_POST
    if fast:
        if t.startswith(("投票", "改票")):
            found = _canonical_vote(t, names)
            if found is not None:
                return found
        elif not _holds_keyword(t):
            # Chat (most posts of a thread): every vote statement starts at a keyword, so the text holds
            # none and is read as the general reader reads a text without one.
            return _without_statement(_strip_brackets(t), names)
    sts = _statements(t, names)
    canonical = [s for s in sts if s.canonical]
    chosen = canonical or sts
    lines_used = {s.line for s in chosen}
    other_text = (
        "\n".join(line for i, line in enumerate(t.split("\n")) if i not in lines_used) if lines_used else t
    )
    bare = _strip_brackets(other_text)
    if chosen:
        first = chosen[0]
        distinct: list[_Statement] = []
        for s in chosen:
            if s.key not in [d.key for d in distinct]:
                distinct.append(s)
        if len(distinct) > 1:
            if any(s.kind is BallotKind.VOID for s in distinct):
                void = next(s for s in distinct if s.kind is BallotKind.VOID)
                return _to_ballot(
                    void, needs_review=True, note="同一帖既有废票又有投票，按废票处理，请法官确认"
                )
            named = [n for s in distinct for n in (s.names or ((s.target,) if s.target else ()))]
            return Ballot(
                first.kind,
                "，".join(dict.fromkeys(str(n) for n in named)) or None,
                needs_review=True,
                ambiguous=True,
                names=tuple(dict.fromkeys(str(n) for n in named)),
                note="同一帖有多个不同的投票，目标不明确",
            )
        if first.kind is not BallotKind.VOID and _VOID_WORDS.search(bare):
            return _VOID_AND_VOTE
        return _to_ballot(first)
    return _without_statement(bare, names)


def _without_statement(bare: str, names: _Names) -> Ballot:
    """A text with no vote statement (its brackets stripped): a void, a bare abstention, a bare name,
    or chat."""
    if _VOID_WORDS.search(bare):
        if "?" in bare or names.find_all(bare):
            return Ballot(
                BallotKind.NOT_A_VOTE,
                needs_review=True,
                note="提到废票，但像是在评论（有问号或玩家名），请法官确认",
            )
        long = len(bare.replace(" ", "")) > 20
        return Ballot(
            BallotKind.VOID,
            needs_review=long,
            note="主动废票" + ("（帖中还有其他内容，请确认）" if long else ""),
        )
    compact = bare.replace(" ", "").replace("\n", "")
    if "弃权" in compact:  # every _ABSTAIN_ONLY match holds it
        return _ABSTAIN if _ABSTAIN_ONLY.match(compact) else _ABSTAIN_MENTIONED
    core = compact.lstrip("@").rstrip(_PARTICLES + ".!~")
    name = names.exact(core)
    if name is not None:
        return Ballot(
            BallotKind.VOTE, name, needs_review=True, names=(name,), note="只写了名字，按投票处理，请法官确认"
        )
    if "票" in compact and names.find_all(compact):
        return Ballot(
            BallotKind.NOT_A_VOTE, needs_review=True, note="提到投票和玩家名，但看不出投给谁，请法官确认"
        )
    return _CHAT


# The most common post of a vote thread, on one line: «投票：名字» or «改票：名字», a reason after it
# or none, nothing else vote-like. Read here in a few steps; anything else (or anything unsure) is left
# to the general reader above, whose reading this is exactly (tests/parsers/test_votes_fast.py).
_CANONICAL_HEAD = re.compile(r"(投票|改票)[ ]*:[ ]*")
_ANY_KEYWORD = re.compile(r"[投票]|(?i:vote)")  # every _R001_KEYWORD match holds one of them
# ... and every _ANY_KEYWORD match one of these characters ((?i:v) matches v and V only): one class
# scanned in C, where the pattern above tries its case-insensitive branch at every position.
_KEY_CHAR = re.compile(r"[投票vV]")


def _holds_keyword(s: str) -> bool:
    """Whether ``s`` holds anything :data:`_R001_KEYWORD` could match (see :data:`_ANY_KEYWORD`)."""
    return _KEY_CHAR.search(s) is not None and _ANY_KEYWORD.search(s) is not None


def _canonical_vote(t: str, names: _Names) -> Ballot | None:
    """The ballot of a one-line «投票/改票: name [reason]» post, as :func:`_read_r001` reads it; None for
    any other text (the general reader then reads it)."""
    if "\n" in t:
        return None
    head = _CANONICAL_HEAD.match(t)
    if head is None:
        return None
    rest = t[head.end() :]
    if not rest or rest[0] in " ([<\"'@" or rest.startswith(("弃权", "废票", "作废")):
        return None
    if _holds_keyword(rest):  # another statement would follow on the line
        return None
    m = names.match_at(rest, 0)
    if m is None:
        return None
    name, end = m
    sep = _SEPARATORS.match(rest, end)
    nxt = names.match_at(rest, sep.end() if sep else end)
    if nxt is not None and nxt[0] != name:  # two names: the general reader says ambiguous
        return None
    after = rest[end:]
    if after and (after[0] in _PARTICLES or not _is_boundary_text(after)):
        return None
    kind = BallotKind.CHANGE if head.group(1) == "改票" else BallotKind.VOTE
    # _to_ballot(_Statement(kind, name, reason=..., canonical=True, names=(name,))), made directly
    return Ballot(kind, name, False, _clean_reason(after), False, "", False, (name,))


_BRACKETS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|<[^<>]*>|（[^（）]*）")


def _strip_brackets(s: str) -> str:
    """``s`` without its bracketed remarks, nested ones too (removed until nothing changes)."""
    # Every _BRACKETS match starts with one of these: without one (most chat) nothing could match, and
    # after a pass that removed none, or that left none of them, the next pass would change nothing.
    while "(" in s or "[" in s or "<" in s or "（" in s:
        s, n = _BRACKETS.subn("", s)
        if not n:
            break
    return s


# --- R004 -------------------------------------------------------------------------------------------------

_R004_LABEL = re.compile(r"(投票|改票)对象")
# The format's patterns for each word (投票 or 改票), compiled once rather than looked up in re's cache
# for every post.
_R004_FULL = {
    w: re.compile(rf"{w}对象\s*:\s*(?P<t>.*?)\s*{w}理由\s*:(?P<reason>.*)", re.S) for w in ("投票", "改票")
}
_R004_LINE = {w: re.compile(rf"{w}对象\s*:\s*(?P<t>[^\n]*)") for w in ("投票", "改票")}
_R004_REASON_COLON = {w: re.compile(rf"{w}理由\s*:") for w in ("投票", "改票")}


def _r004_target(raw: str, names: _Names) -> tuple[str | None, bool, bool, tuple[str, ...]]:
    """(target, abstain, ambiguous, names) of the text after 投票对象:."""
    t = raw.strip()
    if t.startswith("@"):
        t = t[1:].strip()
    if t == "弃权":
        return None, True, False, ()
    exact = names.exact(t)
    if exact is not None:
        return exact, False, False, (exact,)
    inside = names.find_all(t)
    if len(inside) >= 2:
        return t, False, True, tuple(inside)
    return t, False, False, tuple(inside)


def _read_r004(
    t: str, names: _Names, require_reason_label: bool, allow_text_before: bool, void_is_attempt: bool = False
) -> Ballot:
    if not t:
        return Ballot(BallotKind.NOT_A_VOTE, note="空帖（或只有引用）")
    kinds = {m.group(1) for m in _R004_LABEL.finditer(t)}
    if len(kinds) > 1:
        return Ballot(
            BallotKind.UNREADABLE, needs_review=True, note="同一帖同时写了投票对象和改票对象，格式错误"
        )
    if not kinds:
        loose = _read_r001(t, names)
        if loose.kind is BallotKind.VOID and not void_is_attempt:
            # R004 knows no 废票: such a post casts nothing, so it is no floor a change could correct (AMB-72)
            return Ballot(
                BallotKind.NOT_A_VOTE, note="R004 没有废票：此帖不是投票（不算投票，也不能被改票更正）"
            )
        if loose.kind in (BallotKind.VOTE, BallotKind.CHANGE, BallotKind.VOID, BallotKind.UNREADABLE):
            what = "弃权须写在“投票对象”中" if loose.abstain else "须按“投票对象：…”“投票理由：…”格式"
            if loose.kind is BallotKind.VOID:
                what = "本规则没有废票；改票须按改票格式回复原投票楼层"
            return Ballot(
                BallotKind.UNREADABLE,
                loose.target,
                loose.abstain,
                needs_review=loose.needs_review,
                note=f"格式错误：{what}",
                ambiguous=loose.ambiguous,
                names=loose.names,
            )
        return Ballot(BallotKind.NOT_A_VOTE, needs_review=loose.needs_review, note=loose.note or "非投票内容")
    word = kinds.pop()
    kind = BallotKind.VOTE if word == "投票" else BallotKind.CHANGE
    m = _R004_FULL[word].search(t)
    pre = ""
    label_note = ""
    if m is not None:
        raw, reason, pre = m.group("t"), m.group("reason").strip(), t[: m.start()].strip()
    else:
        m2 = _R004_LINE[word].search(t)
        if m2 is None:
            return Ballot(BallotKind.UNREADABLE, needs_review=True, note=f"格式错误：“{word}对象”后缺少冒号")
        other = "改票" if word == "投票" else "投票"
        raw = m2.group("t")
        for stop in (f"{word}理由", "理由"):
            cut = raw.find(stop)
            if cut >= 0:
                raw = raw[:cut]
        target, abstain, ambiguous, found = _r004_target(raw, names)
        if _R004_REASON_COLON[other].search(t):
            why = f"格式错误：“{word}对象”须配“{word}理由”"
        elif f"{word}理由" in t:
            why = f"格式错误：“{word}理由”后缺少冒号"
        elif require_reason_label:
            why = f"格式错误：缺少“{word}理由”标签（AMB-75）"
        else:
            why = ""
        if why:
            return Ballot(BallotKind.UNREADABLE, target, abstain, note=why, ambiguous=ambiguous, names=found)
        label_note = f"缺少“{word}理由”标签（按设置接受）"
        reason, pre = "", t[: m2.start()].strip()
    if m is not None:
        target, abstain, ambiguous, found = _r004_target(raw, names)
    if not abstain and not (target or "").strip():
        return Ballot(BallotKind.UNREADABLE, None, note=f"格式错误：{word}对象为空")
    notes = [n for n in (label_note,) if n]
    review = False
    if pre and not allow_text_before:
        return Ballot(
            BallotKind.UNREADABLE,
            target,
            abstain,
            reason=reason,
            needs_review=True,
            note=f"格式错误：“{word}对象”前有其他文字（须严格按格式）",
            ambiguous=ambiguous,
            names=found,
        )
    if pre:
        review = True
        notes.append("格式前有其他文字（按设置接受），请法官确认")
    if ambiguous:
        review = True
        notes.append(f"写了多个名字（{'、'.join(found)}），目标不明确")
    return Ballot(
        kind,
        target,
        abstain,
        reason=reason,
        needs_review=review,
        note="；".join(notes),
        ambiguous=ambiguous,
        names=found,
    )


# --- entry point --------------------------------------------------------------------------------------


def read_ballot(
    text: str,
    grammar: Grammar,
    players: Collection[str],
    *,
    require_reason_label: bool = True,
    allow_text_before_format: bool = True,
    void_is_vote_attempt: bool = False,
) -> Ballot:
    """Read one post's text (quotes already stripped; stripped again defensively) under ``grammar``.

    ``players`` are the names to recognise (the roster, or the living players). The target is returned
    as written; whether it is a living player is the day engine's business. ``require_reason_label`` is
    DayFlags.r004_require_reason_label (AMB-75), ``allow_text_before_format``
    DayFlags.r004_allow_text_before_format, ``void_is_vote_attempt`` DayFlags.r004_void_post_is_vote_attempt
    (AMB-72: an R004 post saying 废票 is no vote by default). Never raises on any text; an unknown grammar
    raises ValueError.
    """
    if grammar not in ("r001", "r004"):
        raise ValueError(f"unknown vote grammar {grammar!r} (expected 'r001' or 'r004')")
    return _read_ballot(
        text,
        grammar,
        _names_for(players),
        require_reason_label,
        allow_text_before_format,
        void_is_vote_attempt,
    )


def _read_ballot(
    text: str,
    grammar: Grammar,
    names: _Names,
    require_reason_label: bool,
    allow_text_before_format: bool,
    void_is_vote_attempt: bool,
) -> Ballot:
    """:func:`read_ballot` with the roster's matcher made (once per thread, not once per post)."""
    if not isinstance(text, str):
        return Ballot(BallotKind.NOT_A_VOTE, note="无正文")
    t = normalize_vote_text(text)
    if grammar == "r001":
        return _read_r001(t, names)
    return _read_r004(t, names, require_reason_label, allow_text_before_format, void_is_vote_attempt)


_PID = attrgetter("pid")
_SHORT_TEXT = 64  # characters: the texts whose reading vote_posts keeps for the posts that repeat them


class VoteSource(Protocol):
    """What :func:`vote_posts` reads of a post: a parser :class:`~forumbot.parsers.records.Post`, or
    the store's lean record of one (forumbot/store/readpath.py's ``CurrentPost``, issue 12)."""

    @property
    def pid(self) -> int: ...
    @property
    def author(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def state(self) -> PostState: ...
    @property
    def edit(self) -> EditMarker | None: ...
    @property
    def floor(self) -> int | None: ...
    @property
    def floor_exact(self) -> bool: ...
    @property
    def posted_at(self) -> datetime: ...
    @property
    def posted_until(self) -> datetime: ...
    @property
    def quoted_pids(self) -> tuple[int, ...]: ...


def vote_posts(
    posts: Iterable[VoteSource],
    grammar: Grammar,
    players: Collection[str],
    *,
    require_reason_label: bool = True,
    allow_text_before_format: bool = True,
    void_is_vote_attempt: bool = False,
    edited_pids: Collection[int] = (),
    others: Collection[str] = (),
) -> tuple[VotePost, ...]:
    """Stored vote-thread posts → the day engine's :class:`~engine.day.VotePost` values, in pid order.

    A post counts as edited when it shows the edit marker or its pid is in ``edited_pids`` (the store saw
    its text change: the marker is missing for quick and admin edits). A minute-precision time becomes
    ``at``/``at_latest``. Floors from views that renumber them are dropped. Posts the board shows only as
    a placeholder, or that were deleted since, are read from what is stored and flagged for review.
    Duplicate pids (pages repeat pinned posts) are kept once.

    An author who is not a player or one of ``others`` (the judges) but whose name differs from one of
    theirs only by invisible, width or look-alike characters (forumbot/lookalike.py) keeps his post as
    a non-player's, flagged for review with the differing code points in its note.
    """
    if grammar not in ("r001", "r004"):
        raise ValueError(f"unknown vote grammar {grammar!r} (expected 'r001' or 'r004')")
    names = _names_for(players)
    alike = look_alikes({*players, *others})
    impostors: dict[str, LookAlike | None] = {}  # author → alike.find(author): a thread has few authors
    seen: set[int] = set()
    out: list[VotePost] = []
    edited_set = set(edited_pids)
    normal = PostState.NORMAL
    # A short text is read once per call: threads repeat 顶, +1, 投票：X word for word, and a Ballot is
    # a value (frozen), so posts saying the same share it. Long texts are not kept (memory).
    read: dict[str, Ballot] = {}
    for p in sorted(posts, key=_PID):
        pid = p.pid
        if pid in seen:
            continue
        seen.add(pid)
        text = p.text
        short = type(text) is str and len(text) <= _SHORT_TEXT
        known = read.get(text) if short else None
        if known is not None:
            ballot = known
        else:
            ballot = _read_ballot(
                text, grammar, names, require_reason_label, allow_text_before_format, void_is_vote_attempt
            )
            if short:
                read[text] = ballot
        if p.state is not normal:
            shown = post_state_label(p.state.value)
            ballot = replace(ballot, needs_review=True, note=f"帖子状态异常（{shown}），请法官确认")
        # The marker names the LAST editor only. A judge or moderator editing a player's vote post is
        # not the player editing his vote: flag it for the judges instead of voiding it.
        author = p.author
        edit = p.edit
        if edit is None:
            own_marker, edit_note = False, ""
        else:
            own_marker = not edit.by or edit.by == author
            if not own_marker:
                ballot = replace(
                    ballot, needs_review=True, note=f"本帖由 {edit.by} 编辑（非作者本人），请法官确认"
                )
            edit_note = edit.raw or f"本帖最后由 {edit.by} 编辑"
        if author in impostors:
            impostor = impostors[author]
        else:
            impostor = impostors[author] = alike.find(author)
        if impostor is not None:
            # Its own bracket in the reason («…（账号名…）（原注）»): the public draft drops a bracket
            # holding a note for the judges, and must keep this one.
            note = (
                f"{impostor.note}）（{ballot.note}" if ballot.needs_review and ballot.note else impostor.note
            )
            ballot = replace(ballot, needs_review=True, note=note)
        at, until = p.posted_at, p.posted_until
        out.append(
            VotePost(
                pid,
                p.floor if p.floor_exact else None,
                author,
                at,
                ballot,
                p.quoted_pids,
                own_marker or pid in edited_set,
                edit_note,
                until if until != at else None,
            )
        )
    return tuple(out)
