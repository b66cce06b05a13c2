"""Access to the captured pages in ../shared/fixtures (outside the repo) and their database truth.

Every test module here calls :func:`require_fixtures` at import, so the whole suite is skipped on a clone
without the captures, fails under CI (CI=true) when they are missing, and runs wherever they sit next to
the repository.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tests.shared_fixtures import SHARED_FIXTURES, require_shared

FIXTURES = SHARED_FIXTURES
BOARDS = ("discuz-x35-utf8", "discuz-x35-gbk")


def require_fixtures() -> None:
    """Skip the calling test module when the captures are not next to the repository (fail under CI)."""
    require_shared(FIXTURES / BOARDS[0] / "truth.json")


@dataclass(frozen=True)
class Capture:
    """One captured response: its body, the URL asked for, and the final response's headers."""

    board: str
    path: Path
    url: str
    status: int
    headers: dict[str, str]

    @property
    def name(self) -> str:
        return f"{self.board}/{self.path.relative_to(FIXTURES / self.board)}"

    @property
    def body(self) -> bytes:
        return self.path.read_bytes()

    @property
    def date(self) -> str | None:
        return self.headers.get("date")

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")

    @property
    def view(self) -> str:
        """pc, touch, api_v1..api_v4, printable, archiver or ajax, from the file name."""
        stem = self.path.name
        for prefix in ("api_v1", "api_v2", "api_v3", "api_v4"):
            if stem.startswith(prefix):
                return prefix
        if stem.startswith(("printable", "touch_printable")):
            return "printable"
        if stem.startswith("archiver"):
            return "archiver"
        if stem.startswith(("touch", "mobile2_with_python")):
            return "touch"
        if stem.endswith(".xml"):
            return "ajax"
        return "pc"


def read_capture(board: str, path: Path) -> Capture:
    lines = Path(f"{path}.headers").read_text(encoding="utf-8").splitlines()
    url = lines[0].split(" ", 1)[1].strip()
    status = 200
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line.startswith("HTTP "):
            status = int(line.split()[1])
            headers = {}  # keep only the final response's headers (after redirects)
        elif ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    return Capture(board, path, url, status, headers)


def captures(board: str, pattern: str = "**/*") -> list[Capture]:
    root = FIXTURES / board
    found = [
        read_capture(board, p)
        for p in sorted(root.glob(pattern))
        if p.is_file() and p.suffix in (".html", ".json", ".xml") and Path(f"{p}.headers").is_file()
    ]
    return found


def all_captures() -> list[Capture]:
    if not (FIXTURES / BOARDS[0]).is_dir():
        return []
    return [c for board in BOARDS for c in captures(board)]


@cache
def truth(board: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / board / "truth.json").read_text(encoding="utf-8"))
    return data


def truth_posts(board: str) -> dict[int, dict[str, Any]]:
    return {p["pid"]: p for p in truth(board)["posts"]}


def truth_threads(board: str) -> dict[int, dict[str, Any]]:
    return {t["tid"]: t for t in truth(board)["threads"]}


# --- the normaliser: stored BBCode → the text a reader sees ---------------------------------------

_QUOTE = re.compile(r"\[quote\].*?\[/quote\]", re.DOTALL | re.IGNORECASE)
_EDIT = re.compile(r"\[i=s\]\s*本帖最后由.*?编辑\s*\[/i\]", re.DOTALL)
_DROP_WHOLE = re.compile(
    r"\[(img|attach|attachimg|media|flash|audio)[^\]]*\].*?\[/\1\]", re.DOTALL | re.IGNORECASE
)
_TAG = re.compile(
    r"\[/?(?:b|i|u|s|p|color|size|font|align|float|backcolor|url|email|list|\*|indent|hr|table|tr|td"
    r"|hide|free|code|quote|sup|sub|qq|p)(?:=[^\]]*)?\]",
    re.IGNORECASE,
)
# Discuz! default smilies (common/smilies.php, type "default") and the {:N_NN:} form.
_SMILIES = (":'(", ":lol", ":loveliness:", ":funk:", ":curse:", ":dizzy:", ":shutup:", ":sleepy:", ":hug:",
            ":victory:", ":time:", ":kiss:", ":handshake", ":call:", ":)", ":(", ":D", ":@", ":o", ":P",
            ":$", ";P", ":L", ":Q")  # fmt: skip
_SMILIE_CODE = re.compile(r"\{:\d+_\d+:\}")
_SPACES = re.compile(r"[ \t\xa0]+")


def expected_text(message: str) -> str:
    """The text a parser should produce for a stored message: quotes, the edit marker, smilies and
    BBCode tags removed; HTML entities decoded; each line stripped, runs of spaces and blank lines
    collapsed (the same normalisation the parsers apply)."""
    text = message.replace("\r\n", "\n")
    while True:
        stripped = _QUOTE.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = _EDIT.sub("", text)
    text = _DROP_WHOLE.sub("", text)
    text = _TAG.sub("", text)
    text = _SMILIE_CODE.sub("", text)
    for code in _SMILIES:
        text = text.replace(code, "")
    text = html.unescape(text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    out = "\n".join(lines).strip("\n")
    while "\n\n\n" in out:
        out = out.replace("\n\n\n", "\n\n")
    return out


_QUOTE_BODY = re.compile(r"\[quote\](.*?)\[/quote\]", re.DOTALL)
_QUOTE_HEADER = re.compile(r"^\s*\[size=2\]\[url=[^\]]*\].*?\[/url\]\[/size\]", re.DOTALL)


def quoted_texts(message: str) -> tuple[str, ...]:
    """The quoted excerpts as a reader sees them (the "X 发表于 T" header line removed)."""
    return tuple(expected_text(_QUOTE_HEADER.sub("", m)) for m in _QUOTE_BODY.findall(message))


def quoted_pids(message: str) -> tuple[int, ...]:
    return tuple(int(m) for m in re.findall(r"\[quote\].*?findpost&pid=(\d+)", message, re.DOTALL))


def editor(message: str) -> str | None:
    match = re.search(r"\[i=s\]\s*本帖最后由\s*(\S+)\s*于", message)
    return match.group(1) if match else None
