"""Render an example game scenario into Discuz! X3.5 PC pages (the markup of a real X3.5 board).

Usage: python tools/make_example_board.py data/examples/meishi

Writes ``board/<snapshot>/`` beside the scenario: ``viewthread-<tid>-<page>.html``,
``forumdisplay-<fid>-1.html`` and ``snapshot.json`` (the moment the pages were rendered: the HTTP
Date header the demo server sends, against which relative times like "2 小时前" resolve).
The pages are committed; this script exists so that a changed scenario can be re-rendered. The markup
lives in :mod:`forumbot.exampleboard.render`, shared with the living example board.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from zoneinfo import ZoneInfo

from forumbot.exampleboard.render import P, local, render_forum, render_thread


def main(folder: Path) -> None:
    sc = tomllib.loads((folder / "scenario.toml").read_text("utf-8"))
    board, users = sc["board"], sc["users"]
    snaps = [s["name"] for s in sc["snapshots"]]
    for snap in sc["snapshots"]:
        name, now = snap["name"], local(snap["at"])
        idx = snaps.index(name)
        out = folder / "board" / name
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.html"):
            old.unlink()
        positions: dict[int, int] = {}
        by_pid: dict[int, P] = {}
        visible: dict[int, list[P]] = {}
        for raw in sc["posts"]:
            tid = int(raw["tid"])
            positions[tid] = positions.get(tid, 0) + 1
            if "from_snapshot" in raw and snaps.index(raw["from_snapshot"]) > idx:
                continue
            edited = "edit_from_snapshot" in raw and snaps.index(raw["edit_from_snapshot"]) <= idx
            p = P(
                pid=int(raw["pid"]),
                tid=tid,
                author=raw["author"],
                uid=int(users[raw["author"]]),
                at=local(raw["at"]),
                text=raw["edited_text"] if edited else raw["text"],
                position=positions[tid],
                edited_at=local(raw["edited_at"]) if edited else None,
                first=positions[tid] == 1,
            )
            by_pid[p.pid] = p
            if "deleted_from_snapshot" in raw and snaps.index(raw["deleted_from_snapshot"]) <= idx:
                continue
            visible.setdefault(tid, []).append(p)
        listing = []
        for t in sc["threads"]:
            tid = int(t["tid"])
            posts = visible.get(tid, [])
            if not posts:  # the thread does not exist yet at this snapshot
                continue
            for page, text in render_thread(tid, t["subject"], posts, by_pid, now, board):
                (out / f"viewthread-{tid}-{page}.html").write_text(text, "utf-8")
            listing.append((tid, t["subject"], t["author"], len(posts) - 1, posts[-1]))
        listing.sort(key=lambda row: row[4].at, reverse=True)
        (out / f"forumdisplay-{board['fid']}-1.html").write_text(
            render_forum(listing, now, board, users), "utf-8"
        )
        date = now.astimezone(ZoneInfo("UTC"))
        (out / "snapshot.json").write_text(
            json.dumps({"name": name, "date": date.strftime("%a, %d %b %Y %H:%M:%S GMT")}, indent=1) + "\n",
            "utf-8",
        )
        print(f"{out}: {len(list(out.glob('*.html')))} pages")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "data/examples/meishi"))
