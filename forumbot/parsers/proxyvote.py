"""Reading a proxy-vote request (代投) a player sends the judge by private message.

The rules: R001 §四.1.5 «受理无法登陆玩家代投事宜，每位玩家只能申请两次代投» (twice per game, AMB-32);
R004 «投票帖可以申请由导演代发。代投时需给出明确的投票对象（不可设立投票条件）», and no proxy vote in the
last hour before closing. Who may ask (a living player of the roster), how many times and until when are
the day engine's and the desk's to judge; this reader only says what the message asks:

- a request names the keyword **代投** (代为投票, 帮我投 are not taken: a careful judge asks back);
- its target is the one roster name after the keyword (labels 对象/目标/给/投票对象 and a colon allowed),
  or 弃权; text after 理由/原因 is the reason and is not searched for names;
- a request with a condition (如果/若/假如/要是/万一/除非/否则/…的话) is refused: the rules want an
  explicit target; two names (饺子或包子) are not a target either;
- «取消代投», «不用代投» and a question (代投怎么申请？) are not requests.

Pure text → :class:`ProxyRequest` or None; never raises.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from forumbot.parsers.votes import name_matcher, normalize_vote_text

__all__ = ["ProxyRequest", "read_proxy_request"]

_KEYWORD = re.compile(r"代投")
_NOT_A_REQUEST = re.compile(
    r"(?:取消|不用|不要|不需要|无需|别|撤回|撤销)(?:帮我|请)?代投|代投(?:规则|次数|怎么|吗|呢)"
)
_CONDITION = re.compile(r"如果|假如|假设|若|要是|万一|除非|否则|不然|的话|看情况|视情况")
_LABEL = re.compile(r"^[\s:]*(?:一票|投票)?(?:对象|目标|给)?[\s:]*")
_REASON = re.compile(r"(?:投票|改票)?(?:理由|原因)\s*:")
_ABSTAIN = re.compile(r"弃权")


@dataclass(frozen=True)
class ProxyRequest:
    """What one PM asks: ``target`` (a roster name, or «弃权»), or ``problem`` (Chinese) when it asks
    for a proxy vote the judge cannot enter as written."""

    target: str | None
    problem: str | None
    written: str

    @property
    def ok(self) -> bool:
        return self.problem is None and self.target is not None


def read_proxy_request(text: str, players: Collection[str]) -> ProxyRequest | None:
    """The proxy-vote request in ``text`` (a PM's plain text), or None when it asks for none."""
    t = normalize_vote_text(text or "")
    m = _KEYWORD.search(t)
    if m is None or _NOT_A_REQUEST.search(t):
        return None
    rest = t[m.end() :]
    line_start = t.rfind("\n", 0, m.start()) + 1
    first, _sep, after = rest.partition("\n")
    if "?" in first:
        return None  # a question about proxy votes, not a request
    target_line = first
    if not _LABEL.sub("", first, count=1).strip():  # «代投» on its line, the target on the next
        target_line = after.partition("\n")[0]
    written = (first + (" " + target_line if target_line is not first else "")).strip(" :,.")[:60]
    if _CONDITION.search(t[line_start : m.start()] + " " + first + " " + target_line):
        return ProxyRequest(None, "代投须给出明确的投票对象，不可设立投票条件", written)
    reason = _REASON.search(target_line)
    target_text = _LABEL.sub("", target_line[: reason.start()] if reason else target_line, count=1)
    names = name_matcher(tuple(players)).find_all(target_text)
    if len(names) > 1:
        return ProxyRequest(None, f"代投对象不明确（写了 {'、'.join(names)}），须只写一名角色", written)
    if names:
        return ProxyRequest(names[0], None, written)
    if _ABSTAIN.search(target_text):
        return ProxyRequest("弃权", None, written)
    shown = re.split(r"[,.!;]", target_text.strip(" :"), maxsplit=1)[0].strip()
    if shown:
        return ProxyRequest(None, f"「{shown}」不是本局的角色名（须与角色ID完全一致）", written)
    return ProxyRequest(None, "没有读出代投对象（须写明：代投：角色名，或 代投：弃权）", written)
