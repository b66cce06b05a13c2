"""A throwaway local Discuz! board for ``forumbot demo``: serves saved PC pages on 127.0.0.1.

The pages under data/examples/<game>/board/<snapshot>/ were rendered with the markup of a real
Discuz! X3.5 board; this server answers the same URLs a board does (viewthread, forumdisplay), sends
the snapshot's moment as the HTTP Date header (relative times resolve against it), clamps a page
beyond the last to the last page like Discuz! does, and answers anything else with Discuz!'s own
"thread not found" page. Switching the snapshot lets the demo show edits and deletions between polls.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from forumbot.demowriter import DemoWriter

# ruff: noqa: E501  (the page below is a board page, verbatim)

NOT_FOUND = """<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息 - 版杀测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><div id="ct" class="wp cl w"><div class="nfl"><div class="f_c altw">
<div id="messagetext" class="alert_error"><p>抱歉，指定的主题不存在或已被删除或正在被审核</p>
<script type="text/javascript">if(history.length > (BROWSER.ie ? 0 : 1)) {}</script>
<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a></p></div></div></div></div></div></body></html>"""


class DemoBoard:
    """``with DemoBoard(folder) as board: board.url`` — a board that serves one snapshot at a time."""

    def __init__(self, board_dir: Path) -> None:
        self.board_dir = board_dir
        self.snapshot = sorted(p.name for p in board_dir.iterdir() if p.is_dir())[0]
        self.requests: list[str] = []
        self.writer = DemoWriter(self)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # quiet
                return

            def date_time_string(self, timestamp: float | None = None) -> str:
                return outer.snapshot_date()

            def do_GET(self) -> None:
                outer.requests.append(self.path)
                written = outer.writer.answer_get(self.path, self.headers.get("Cookie", ""))
                status, body = written if written is not None else outer.answer(self.path)
                if written is None:
                    body = outer.writer.show_writes(self.path, body)
                self._send(status, body, {})

            def do_POST(self) -> None:  # the write side: see DemoWriter
                outer.requests.append("POST " + self.path)
                length = int(self.headers.get("Content-Length") or 0)
                status, body, extra = outer.writer.answer_post(
                    self.path, self.rfile.read(length), self.headers.get("Cookie", "")
                )
                self._send(status, body, extra)

            def _send(self, status: int, body: bytes, extra: dict[str, str]) -> None:
                self.send_response(status)
                ctype = "text/xml; charset=utf-8" if body.startswith(b"<?xml") else "text/html; charset=utf-8"
                self.send_header("Content-Type", ctype)
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._handler = Handler
        self._server: ThreadingHTTPServer | None = None  # bound on __enter__ only

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the demo board is not serving: use it as `with DemoBoard(...) as board`")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def snapshot_date(self) -> str:
        meta = json.loads((self.board_dir / self.snapshot / "snapshot.json").read_text("utf-8"))
        return str(meta["date"])

    def use(self, snapshot: str) -> None:
        if not (self.board_dir / snapshot).is_dir():
            raise ValueError(f"no snapshot {snapshot!r} in {self.board_dir}")
        self.snapshot = snapshot

    def answer(self, path: str) -> tuple[int, bytes]:
        parts = urlsplit(path)
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        folder = self.board_dir / self.snapshot
        name = None
        if parts.path.endswith("forum.php") and q.get("mod") == "viewthread" and q.get("tid", "").isdigit():
            tid, page = q["tid"], int(q.get("page", "1") or 1)
            pages = sorted(int(p.stem.rsplit("-", 1)[1]) for p in folder.glob(f"viewthread-{tid}-*.html"))
            if pages:
                name = f"viewthread-{tid}-{min(max(page, 1), pages[-1])}.html"
        elif (
            parts.path.endswith("forum.php") and q.get("mod") == "forumdisplay" and q.get("fid", "").isdigit()
        ):
            name = f"forumdisplay-{q['fid']}-1.html"
        if name and (folder / name).is_file():
            return 200, (folder / name).read_bytes()
        return 404, NOT_FOUND.encode("utf-8")

    def __enter__(self) -> DemoBoard:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
