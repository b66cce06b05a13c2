"""How to reach one Discuz! board: the settings the client needs, separate from any game."""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from zoneinfo import ZoneInfo

from forumbot.errors import ConfigError
from forumbot.i18n import _

DEFAULT_TZ = "Asia/Shanghai"
DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Safari/537.36 forum-judge-assistant/0.1 "
    "(judges' assistant for a forum game; contact: the game's judges)"
)


class SourceKind(StrEnum):
    API = "api"  # api/mobile/index.php?version=4 (exact times); falls back to PC pages when closed
    PC = "pc"  # forum.php?mod=viewthread
    TOUCH = "touch"  # forum.php?mod=viewthread&mobile=2


@dataclass(frozen=True)
class BoardConfig:
    """One board. ``url`` is the board's root (where forum.php lives), ending in a slash."""

    url: str
    source: SourceKind = SourceKind.PC
    fid: int | None = None  # the forum the game threads live in (one forum-list request per poll)
    username: str | None = None
    password: str | None = None  # taken from password_env at load time, never stored in the file
    login_via: str = "web"  # web | api
    min_interval: float = 2.0  # seconds between two requests to this board
    timeout: float = 20.0
    retries: int = 3
    user_agent: str = DEFAULT_USER_AGENT
    cookie_file: Path | None = None
    timezone: str = DEFAULT_TZ
    posts_per_page: int = 10  # the board's ppp for PC pages (Discuz! default 10)
    api_ppp: int = 50  # ppp asked of the API (no upper bound on the board; be modest)
    password_env: str | None = None  # the environment variable the password came from (for messages)
    charset: str | None = None  # the board's charset for form fields (None: read from the login page)

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ConfigError(
                _("board url {url!r} is not an http(s) URL").format(url=self.url),
                field="board.url",
                fix=_("give the board's root, e.g. https://bbs.example.com/"),
            )
        if not self.url.endswith("/"):
            object.__setattr__(self, "url", self.url + "/")
        # Discuz!'s checkrobot(): "http://" or bot/crawl/spider/slurp marks a robot, and robots get
        # pages without floor numbers. Contact details therefore go in words, not as a URL.
        bad = [w for w in ("bot", "spider", "crawl", "slurp", "http://") if w in self.user_agent.lower()]
        if bad:
            raise ConfigError(
                _(
                    "user_agent contains {word!r}: Discuz! treats such clients as robots and hides floor "
                    "numbers"
                ).format(word=bad[0]),
                field="board.user_agent",
                fix=_(
                    "use a browser-like User-Agent with a contact in words, without bot/spider/crawl/slurp/http://"
                ),
            )
        if self.min_interval < 0 or self.timeout <= 0:
            raise ConfigError(
                _("min_interval must be >= 0 and timeout > 0"),
                field="board.min_interval",
                fix=_("e.g. min_interval = 2, timeout = 20"),
            )
        try:
            ZoneInfo(self.timezone)
        except Exception as exc:  # ZoneInfoNotFoundError, ValueError
            raise ConfigError(
                _("unknown time zone {name!r}").format(name=self.timezone),
                field="game.timezone",
                fix=_("e.g. Asia/Shanghai"),
            ) from exc

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def key(self) -> str:
        """The store's name for this board: its root URL."""
        return self.url

    @staticmethod
    def password_from_env(name: str | None) -> str | None:
        return os.environ.get(name) if name else None
