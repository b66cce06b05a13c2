"""Reading a night message (a group-thread post or a private message to the judge) into submissions.

Pure text → :class:`NightReading`: a list of :class:`NightStatement` s, one per keyword the text uses, in
the order written. The reader never raises on any text; what it cannot read it says in the statement's
``problem`` (an unknown name, several names for one target, nothing after the keyword). Judging the
statements (who may submit what, where, until when, whether the rules allow it) is
:mod:`forumbot.nightmail`'s job.

The vocabulary is the rule set's (``RuleSet.night_words``, engine/vocab.py): each kind's keywords, its
explicit nothing (空刀, 不附体, 放弃守护, 放弃行动 …) and what follows the keyword (one name, two, an order,
free text, a 生死状 sentence, nothing at all for a forced skill). ``:`` / ``：`` and every other
punctuation mark read alike (AMB-25). Each statement's ``kind`` is the engine's name of the kind.

* Labels 对象/目标/名单/给 may follow a
  keyword (杀人名单：X, 威权给X); ``@X`` works.
* ``改`` before a keyword (改刀 X, 改验 X) or a line starting with 更正/修改 marks a **correction**.
* Names are matched as votes are (:func:`forumbot.parsers.votes.name_matcher`): exactly, after
  punctuation folding, longest roster name first, with word boundaries. A name one edit away (or equal
  after case/width folding) is **suggested, never taken** (``problem="unknown_name"``). ``自己``/``我``
  after a keyword means the author (a killer's suicide, 001 §四.6).
* Quoted text (``[quote]…[/quote]``, and what the page parsers already cut) is ignored; BBCode is dropped.
* A statement is **firm** when the keyword has a colon or a label, or begins its line (after words like
  今晚/确认/最终/决定/我们); a keyword in the middle of a sentence (我觉得可以杀烧卖) or on a line with a
  question (要不要杀烧卖?) is **tentative**: nightmail flags it for the judge instead of taking it.
* A keyword without a colon followed by no name (杀手, 抱歉, 验证码) is no statement at all; after a
  negation (别杀X, 不要验X) neither.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from engine import Form, NightWord, RuleSet, get_ruleset, suggest_name
from forumbot.parsers.votes import NameMatcher, name_matcher, normalize_vote_text

__all__ = [
    "NightReading",
    "NightStatement",
    "Problem",
    "Vocabulary",
    "keyword_table",
    "read_night_message",
]

#: What a reader is given: a rule set, its name (id or alias), or its night words.
Vocabulary = RuleSet | str | Sequence[NightWord]


class Problem(StrEnum):
    """Why a statement cannot be taken as written."""

    UNKNOWN_NAME = "unknown_name"  # not a player (a suggestion may be given)
    SEVERAL_NAMES = "several_names"  # a one-target skill naming two or more players
    NO_TARGET = "no_target"  # a keyword with a colon and nothing after it
    WRONG_COUNT = "wrong_count"  # a two-name skill (丘比特之箭) with another number of names


@dataclass(frozen=True, slots=True)
class NightStatement:
    """One keyword and what follows it.

    ``kind`` is the engine's name of the kind (the rule set's :class:`~engine.NightWord`). ``targets``
    are exact roster names (empty when ``problem`` is set, for an order-taking skill without an order, and
    for the explicit nothing: ``none`` = 空刀 / 不附体 / 放弃守护). ``written`` is the text after the keyword
    as written (for the judge). ``text`` is the free text of a text statement (线文).
    """

    kind: str
    targets: tuple[str, ...] = ()
    written: str = ""
    none: bool = False
    correction: bool = False
    firm: bool = True
    problem: Problem | None = None
    suggestion: str | None = None
    keyword: str = ""
    line: int = 0
    pos: int = 0
    text: str = ""
    note: str = ""

    @property
    def target(self) -> str | None:
        return self.targets[0] if self.targets else None


@dataclass(frozen=True, slots=True)
class NightReading:
    """Everything one message says. ``text`` is the normalised text the statements were read from."""

    statements: tuple[NightStatement, ...]
    text: str

    @property
    def readable(self) -> bool:
        return all(s.problem is None for s in self.statements)

    @property
    def empty(self) -> bool:
        return not self.statements


# --- the vocabulary -----------------------------------------------------------------------------------


def _words(vocabulary: Vocabulary) -> tuple[NightWord, ...]:
    if isinstance(vocabulary, RuleSet):
        return vocabulary.night_words
    if isinstance(vocabulary, str):
        return get_ruleset(vocabulary).night_words
    return tuple(vocabulary)


def keyword_table(vocabulary: Vocabulary) -> dict[str, str]:
    """keyword → the engine's kind, for a rule set (what the reader looks for)."""
    return {kw: w.kind for w in _words(vocabulary) for kw in w.keywords}


@dataclass(frozen=True, slots=True)
class _Grammar:
    """A vocabulary compiled for reading."""

    words: dict[str, NightWord]  # kind → word
    table: dict[str, NightWord]  # keyword → word
    keyword_re: re.Pattern[str] | None
    none_forms: tuple[tuple[re.Pattern[str], NightWord], ...]
    pledge: NightWord | None  # the word a "X与毒药同死" sentence makes, if the rule set has one


def _alternation(words: Collection[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@lru_cache(maxsize=32)
def _compile(words: tuple[NightWord, ...]) -> _Grammar:
    table = {kw: w for w in words for kw in w.keywords}
    keyword_re = (
        re.compile(
            r"(?P<fix>改(?:为|成)?)?(?P<kw>" + _alternation(table) + r")"
            r"(?P<label>对象|目标|名单|交给|传给|给)?[ ]*(?P<colon>[:=]|->|>)?[ ]*"
        )
        if table
        else None
    )
    # an explicit nothing, on a line of its own (after the usual prefixes)
    none_forms = tuple((re.compile(form), w) for w in words for form in w.none_forms)
    pledge = next((w for w in words if w.form is Form.PLEDGE), None)
    return _Grammar({w.kind: w for w in words}, table, keyword_re, none_forms, pledge)


_PREFIX = (
    r"(?:今晚|今夜|本轮|本夜|当晚|第[一二三四五六七八九十\d]+[夜晚轮天]|确认|最终|最后|决定|我们|我方|"
    r"我|就|还是|那就|那|改|更正|修改|一下|提交|同意|赞成|好的|好吧|好|行|可以|没问题|嗯|对|ok|OK|"
    r"不(?=[:,.!;\s])|[:,.!;\s()\[\]-])*"
)
# Where a clause begins: a statement's firmness is judged from the start of its own clause, so context
# and agreement written before it (烧卖太跳了，今晚杀烧卖 / 同意春卷，今晚验锅贴 / 今晚杀饺子，我附体汤圆)
# do not make a formal submission look like chatter; a question anywhere on the line still does.
_CLAUSE_END = ",.;!"
# After a keyword: the earlier choice stands (生死状不变, 附体照旧): no new statement, nothing to ask.
_UNCHANGED = re.compile(r"^[ :]*(?:不变|照旧|不改|同上|沿用|维持原样|维持|保持|一样|照原样|没变)")
_FIRM_PREFIX = re.compile("^" + _PREFIX + "$")
_NONE_LINE_TAIL = re.compile(r"^(?:了|吧|啦|哈|吧)?[.!~]*$")
_CORRECTION_LINE = re.compile(r"^\s*(?:更正|修改|改为|改成|改)")
_QUESTION = re.compile(r"\?|吗|要不要|是否|还是说|行不行|可不可以|好不好|如何|怎么样|呢")
_NEGATION_BEFORE = re.compile(r"(?:不|别|勿|没|莫|不要|不能|不会|不准|谁)\s*$")
_NOT_AFTER = frozenset("错自误被追谁")  # 错杀 / 自杀 / 误杀 / 被杀 / 追杀 / 谁杀: talk, not a submission
_PARTICLES = "吧啦了啊呀哦哈嘛呢哇噢咯喔哟~"
_SEPARATORS = re.compile(r"(?:\s|[,、/&+|;]|和|或|与|跟|及|以及|还有|then|and)*", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s,.!?;:()\[\]<>、\"'~]+")
_SELF = ("我自己", "自己", "我")
_PLEDGE_SENTENCE = re.compile(r"(?:与|和|跟|陪)毒药(?:一起|一同)?同死")


def _is_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


# --- reading ------------------------------------------------------------------------------------------


def read_night_message(
    text: str,
    vocabulary: Vocabulary,
    players: Collection[str],
    *,
    author: str | None = None,
) -> NightReading:
    """Every night statement in ``text`` (a post's or PM's plain text), in a rule set's vocabulary (the
    rule set, its name, or its night words).

    ``players``: the roster (every role-account name; whether a name is alive is the judge's question,
    not the reader's). ``author``: the writer, for ``自己``. Never raises on any text.
    """
    t = normalize_vote_text(text or "")
    g = _compile(_words(vocabulary))
    if g.keyword_re is None and not g.none_forms:
        return NightReading((), t)
    names = name_matcher(tuple(players))
    lines = t.split("\n")
    out: list[NightStatement] = []
    skip_lines: set[int] = set()
    for i, line in enumerate(lines):
        if i in skip_lines:
            continue
        out.extend(_none_statements(line, i, g))
        found = _line_statements(line, i, g, names, author)
        for st in found:
            if g.words[st.kind].form is Form.TEXT:
                st, used = _kill_text(st, lines, i, g)
                st = _as_written(st, t, text or "")
                skip_lines.update(used)
            out.append(st)
        if g.pledge is not None and not any(s.kind == g.pledge.kind for s in found):
            pledge = _pledge_sentence(line, i, names, g.pledge)
            if pledge is not None:
                out.append(pledge)
    out.sort(key=lambda s: (s.line, s.pos))
    return NightReading(tuple(out), t)


def _as_written(st: NightStatement, folded: str, original: str) -> NightStatement:
    """The kill text as the bandits wrote it (full-width punctuation kept: the case post quotes it),
    when folding kept every character in place (it maps one character to one)."""
    original = original.replace("\r\n", "\n").replace("\r", "\n")
    if not st.text or len(original) != len(folded):
        return st
    at = folded.find(st.text)
    return st if at < 0 else replace(st, text=original[at : at + len(st.text)])


def _none_statements(line: str, i: int, g: _Grammar) -> list[NightStatement]:
    out: list[NightStatement] = []
    for pattern, word in g.none_forms:
        for m in pattern.finditer(line):
            before, after = line[: m.start()], line[m.end() :]
            if not _FIRM_PREFIX.match(_clause(before)) or not _NONE_LINE_TAIL.match(
                _clause_head(after).strip()
            ):
                continue
            out.append(
                NightStatement(
                    word.kind,
                    none=True,
                    keyword=m.group(0),
                    line=i,
                    pos=m.start(),
                    correction=bool(_CORRECTION_LINE.match(line)),
                    note=f"明确表示：{m.group(0)}",
                )
            )
    return out


def _line_statements(
    line: str, i: int, g: _Grammar, names: NameMatcher, author: str | None
) -> list[NightStatement]:
    table = g.table
    out: list[NightStatement] = []
    question = bool(_QUESTION.search(line))
    pos = 0
    pattern = g.keyword_re
    while pattern is not None and pos < len(line):
        m = pattern.search(line, pos)
        if m is None:
            break
        pos = max(m.end(), m.start() + 1)
        kw = m.group("kw")
        word = table[kw]
        kind = word.kind
        start = m.start("kw")
        # a keyword inside a player's name (a player called 刀客) is the name, not the keyword
        inside = _inside_name(line, start, names)
        if inside is not None:
            pos = max(pos, inside)
            continue
        before = line[:start] if m.group("fix") is None else line[: m.start()]
        if start > 0 and line[start - 1] in _NOT_AFTER and m.group("fix") is None:
            continue
        if _NEGATION_BEFORE.search(before[-3:]) and not before.endswith(
            ("要不要", "要不", "能不能", "可不可以")
        ):
            continue
        colon = m.group("colon") is not None or m.group("label") is not None
        rest = line[m.end() :]
        if _UNCHANGED.match(rest):
            continue  # 生死状不变: the earlier part stands (AMB-NM6 keeps each part until replaced)
        correction = m.group("fix") is not None or bool(_CORRECTION_LINE.match(line))
        firm = (colon or bool(_FIRM_PREFIX.match(_clause(before)))) and not question
        base = NightStatement(kind, keyword=kw, line=i, pos=start, correction=correction, firm=firm)
        if word.form is Form.FORCED:
            if colon or _FIRM_PREFIX.match(_clause(before)):
                out.append(replace(base, note=f"{word.name_zh}是强制技能，无需提交"))
            continue
        if word.form is Form.NOTHING:
            continue  # only its explicit nothing (a line of its own) counts
        if word.form is Form.TEXT:
            if colon:
                out.append(replace(base, text=rest.strip()))
                break  # the kill text is free text: no keyword after it counts
            continue
        if word.form is Form.PLEDGE:
            st = _pledge_after(rest, names, base, word)
            if st is not None:
                out.append(st)
            continue
        st = _targets_after(word, rest, names, author, colon, base)
        if st is not None:
            out.append(st)
            if st.targets and st.problem is None:
                pos = max(pos, m.end() + len(st.written))
    return out


def _clause(before: str) -> str:
    """The part of ``before`` (a line up to a keyword) in the keyword's own clause."""
    cut = max(before.rfind(c) for c in _CLAUSE_END)
    return before[cut + 1 :] if cut >= 0 else before


def _clause_head(after: str) -> str:
    """The part of ``after`` (a line after an explicit nothing) up to the end of its clause."""
    cuts = [i for i in (after.find(c) for c in _CLAUSE_END) if i >= 0]
    return after[: min(cuts) + 1] if cuts else after


def _inside_name(line: str, start: int, names: NameMatcher) -> int | None:
    """If a player's name covers ``start`` (begins at most 6 characters before it), where it ends."""
    for back in range(0, min(start, 6) + 1):
        m = names.match_at(line, start - back)
        if m is not None and m[1] > start:
            return int(m[1])
    return None


def _chain(r: str, names: NameMatcher, first: tuple[str, int]) -> tuple[list[str], int]:
    chain = [first[0]]
    pos = first[1]
    while True:
        sep = _SEPARATORS.match(r, pos)
        nxt = names.match_at(r, sep.end() if sep else pos)
        if nxt is None or nxt[0] in chain:
            break
        chain.append(nxt[0])
        pos = nxt[1]
    return chain, pos


def _targets_after(
    word: NightWord,
    rest: str,
    names: NameMatcher,
    author: str | None,
    colon: bool,
    base: NightStatement,
) -> NightStatement | None:
    lead = len(rest) - len(rest.lstrip(" ([<\"'@"))
    r = rest[lead:]
    m = names.match_at(r, 0)
    if m is None and author is not None:
        for me in _SELF:
            if r.startswith(me) and not (len(r) > len(me) and _is_word(r[len(me)])):
                if names.exact(author) is not None:
                    m = (author, len(me))
                break
    if m is None:
        if word.form is Form.ORDER:
            return base
        tm = _TOKEN.match(r)
        token = tm.group(0) if tm else ""
        token = token.rstrip(_PARTICLES) or token
        if not token:
            if colon:
                return replace(base, problem=Problem.NO_TARGET, note=f"{word.name_zh}后没有写目标")
            return None
        suggestion = suggest_name(token, names.by_key.values())
        if not colon and suggestion is None:
            return None  # 杀手, 抱歉, 验证码 …: the keyword is part of another word
        hint = f"（是否指 {suggestion}？法官确认后才算）" if suggestion else ""
        return replace(
            base,
            written=token,
            problem=Problem.UNKNOWN_NAME,
            suggestion=suggestion,
            note=f"「{token}」不是玩家名{hint}",
        )
    chain, end = _chain(r, names, m)
    written = r[:end]
    if word.form in (Form.PAIR, Form.ORDER):
        if word.targets is not None and len(chain) != word.targets:
            return replace(
                base,
                written=written,
                problem=Problem.WRONG_COUNT,
                note=f"{word.name_zh}要{word.targets}个名字，这里有 {len(chain)} 个（{'、'.join(chain)}）",
            )
        return replace(base, targets=tuple(chain), written=written)
    if len(chain) > 1:
        return replace(
            base,
            written=written,
            problem=Problem.SEVERAL_NAMES,
            note=f"{word.name_zh}写了多个名字（{'、'.join(chain)}），目标不明确",
        )
    return replace(base, targets=(chain[0],), written=written)


def _pledge_after(
    rest: str, names: NameMatcher, base: NightStatement, word: NightWord
) -> NightStatement | None:
    """生死状: X — or a whole sentence (如果我们错杀毒药，X与毒药同死): the one name in it, or the name
    right before 与毒药同死 when there are several."""
    found: list[str] = names.find_all(rest)
    if len(found) == 1:
        return replace(base, targets=(found[0],), written=rest.strip())
    if len(found) > 1:
        picked = _name_before_pledge(rest, names)
        if picked is not None:
            return replace(base, targets=(picked,), written=rest.strip())
        return replace(
            base,
            written=rest.strip(),
            problem=Problem.SEVERAL_NAMES,
            note=f"{word.name_zh}写了多个名字（{'、'.join(found)}），看不出谁与毒药同死",
        )
    tm = _TOKEN.match(rest.strip())
    token = tm.group(0) if tm else ""
    if not token:
        return replace(base, problem=Problem.NO_TARGET, note=f"{word.name_zh}后没有写名字")
    sm = _PLEDGE_SENTENCE.search(rest)
    if sm is not None:  # 如果我们错杀毒药，月併与毒药同死: the word before 与毒药
        head = re.split(r"[\s,.!;:]", rest[: sm.start()])[-1]
        token = head or token
    suggestion = suggest_name(token, names.by_key.values())
    hint = f"（是否指 {suggestion}？法官确认后才算）" if suggestion else ""
    return replace(
        base,
        written=rest.strip(),
        problem=Problem.UNKNOWN_NAME,
        suggestion=suggestion,
        note=f"{word.name_zh}「{token}」不是玩家名{hint}",
    )


def _name_before_pledge(s: str, names: NameMatcher) -> str | None:
    sm = _PLEDGE_SENTENCE.search(s)
    if sm is None:
        return None
    before = s[: sm.start()]
    found: list[str] = names.find_all(before)
    if found and before.rstrip().endswith(found[-1]):
        return found[-1]
    return None


def _pledge_sentence(line: str, i: int, names: NameMatcher, word: NightWord) -> NightStatement | None:
    """A pledge written as a sentence without the word 生死状: 如果我们错杀毒药，月饼与毒药同死."""
    sm = _PLEDGE_SENTENCE.search(line)
    if sm is None:
        return None
    name = _name_before_pledge(line, names)
    base = NightStatement(word.kind, keyword=sm.group(0), line=i, pos=sm.start())
    if name is not None:
        return replace(base, targets=(name,), written=line)
    head = re.split(r"[\s,.!;:]", line[: sm.start()])[-1]
    suggestion = suggest_name(head, names.by_key.values()) if head else None
    hint = f"（是否指 {suggestion}？法官确认后才算）" if suggestion else ""
    return replace(
        base,
        written=line,
        problem=Problem.UNKNOWN_NAME if head else Problem.NO_TARGET,
        suggestion=suggestion,
        note=f"{word.name_zh}「{head}」不是玩家名{hint}" if head else f"{word.name_zh}没有写名字",
    )


def _kill_text(st: NightStatement, lines: list[str], i: int, g: _Grammar) -> tuple[NightStatement, set[int]]:
    """线文: the rest of its line and every following line up to the next line that starts with a keyword."""
    parts = [st.text] if st.text else []
    used: set[int] = set()
    pattern = g.keyword_re
    for j in range(i + 1, len(lines)):
        m = pattern.match(lines[j].lstrip()) if pattern is not None else None
        if m is not None and m.group("colon") is not None:
            break
        if _PLEDGE_SENTENCE.search(lines[j]):
            break
        parts.append(lines[j])
        used.add(j)
    text = "\n".join(parts).strip()
    return NightStatement(
        st.kind,
        text=text,
        written=text,
        keyword=st.keyword,
        line=st.line,
        pos=st.pos,
        correction=st.correction,
        firm=st.firm,
        problem=None if text else Problem.NO_TARGET,
        note="" if text else "线文为空",
    ), used
