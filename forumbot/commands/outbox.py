"""``forumbot outbox``: list, show, approve (with $EDITOR), send, cancel, and add a judge's own post.

Why a command of its own: nothing reaches the board unless a judge approved it here (or the game file
auto-approves its kind), and a judge must see at any time what went out, what the board refused in its
own words, and what is still being verified.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forumbot.errors import ConfigError, UsageError
from forumbot.i18n import _
from forumbot.labels import (
    OUTBOX_KIND_LABELS,
    actor_label,
    colon,
    outbox_kind_label,
    outbox_note_label,
    outbox_status_label,
    phase_label,
)

if TYPE_CHECKING:
    from forumbot.config import Game
    from forumbot.outbox import Edit, NewThread, Outbox, PrivateMessage, Reply
    from forumbot.store.outbox import OutboxItem


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "outbox",
        help=_("posts, edits and private messages to the board: review, approve, send once"),
        description=_("Without an action: list the outbox. Nothing is sent unless approved."),
    )
    p.add_argument("--all", action="store_true", help=_("list sent and cancelled items too"))
    p.add_argument("--json", action="store_true", help=_("print JSON"))
    p.set_defaults(func=cmd_list)
    o = p.add_subparsers(dest="outbox_action", metavar="ACTION")

    s = o.add_parser("show", help=_("one item: destination, body, revisions, log"))
    s.add_argument("id", type=int)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_show)

    s = o.add_parser("approve", help=_("approve drafts (or refused items, to send them again)"))
    s.add_argument("ids", type=int, nargs="+", metavar="ID")
    s.add_argument(
        "--edit", action="store_true", help=_("edit the body in $EDITOR first (kept as a revision)")
    )
    s.add_argument(
        "--as-board-shows",
        action="store_true",
        help=_("on a GBK board: write the characters it cannot store as it will show them (€ → &#8364;)"),
    )
    s.add_argument("--by", help=_("who approves"))
    s.set_defaults(func=cmd_approve)

    s = o.add_parser(
        "send", help=_("send approved items once (settles unclear ones by reading the board first)")
    )
    s.add_argument("ids", type=int, nargs="*", metavar="ID")
    s.add_argument("--by", help=_("who sends"))
    s.set_defaults(func=cmd_send)

    s = o.add_parser("cancel", help=_("cancel an item that is not on the board (kept, never deleted)"))
    s.add_argument("id", type=int)
    s.add_argument("--why", default="", help=_("the reason, kept in the log"))
    s.add_argument("--by", help=_("who cancels"))
    s.set_defaults(func=cmd_cancel)

    s = o.add_parser("add", help=_("add a judge's own post or private message as a draft"))
    # The outbox's ItemKind values, from the light labels module (tests/test_startup.py checks they agree).
    s.add_argument("--kind", default="judge_post", choices=list(OUTBOX_KIND_LABELS), metavar="KIND")
    dest = s.add_mutually_exclusive_group(required=True)
    dest.add_argument("--reply", type=int, metavar="TID", help=_("a reply to this thread"))
    dest.add_argument(
        "--new-thread", type=int, metavar="FID", help=_("a new thread in this forum (give --subject)")
    )
    dest.add_argument(
        "--edit-pid", type=int, metavar="PID", help=_("new text for one of your posts (give --tid)")
    )
    dest.add_argument("--pm", type=int, nargs="+", metavar="UID", help=_("a private message to these uids"))
    s.add_argument("--tid", type=int, help=_("the thread of --edit-pid"))
    s.add_argument("--quote", type=int, metavar="PID", help=_("with --reply: quote this floor"))
    s.add_argument("--subject", help=_("the subject of --new-thread"))
    s.add_argument("--player", default="", help=_("secret kinds: the player it is for"))
    body = s.add_mutually_exclusive_group(required=True)
    body.add_argument("--body", help=_("the BBCode text"))
    body.add_argument("--file", help=_("read the BBCode text from this file ('-': stdin)"))
    s.add_argument("--day", type=int)
    s.add_argument("--night", type=int)
    s.add_argument("--by", help=_("who writes it"))
    s.set_defaults(func=cmd_add)


# --------------------------------------------------------------------------- helpers


def _open(args: argparse.Namespace) -> tuple[Game, Outbox]:
    from forumbot.config import find_game_file, load_game
    from forumbot.outbox import Outbox
    from forumbot.store.db import open_store

    path = find_game_file(getattr(args, "game", None))
    if path is None:
        raise ConfigError(
            _("no game file"), field="--game", fix=_("pass --game FILE or create ./forumbot.toml")
        )
    game = load_game(path)
    store = open_store(getattr(args, "store", None) or game.store_url)
    return game, Outbox(store, game, progress=lambda line: print(line, flush=True), by=_who(args, game))


def _who(args: argparse.Namespace, game: Game) -> str:
    """The outbox's ``--by`` is ``--judge`` under its older name (forumbot/judgename.py's rule)."""
    from forumbot.judgename import judge_name

    return judge_name(game, getattr(args, "by", None) or getattr(args, "judge", None))


def _item_json(item: OutboxItem) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in item.__slots__:
        value = getattr(item, name)
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = {str(k): v for k, v in value.items()}
        out[name] = value
    return out


def _local(game: Game, when: Any) -> str:
    return game.local(when).strftime("%m-%d %H:%M") if when is not None else ""


def _first_line(text: str, width: int = 36) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


# --------------------------------------------------------------------------- commands


def cmd_list(args: argparse.Namespace) -> int:
    from forumbot.outbox import STATUSES, describe

    game, ob = _open(args)
    with ob.store:
        statuses = None if args.all else [s for s in STATUSES if s not in ("sent", "cancelled")]
        items = ob.items(statuses)
        if args.json:
            print(json.dumps([_item_json(i) for i in items], ensure_ascii=False, indent=1))
            return 0
        if not items:
            print(
                _("The outbox is empty") + ("" if args.all else _(" (--all shows sent and cancelled items)"))
            )
            return 0
        names = {uid: name for name, uid in ob.uid_map().items()}
        for i in items:
            result = i.board_message if i.status in ("failed", "unknown") else (i.result_url or "")
            head = f"#{i.id:<4} {outbox_status_label(i.status):<4} {outbox_kind_label(i.kind):<6}"
            print(
                f"{head} {describe(i, names)}  "
                f"「{_first_line(i.body)}」 {_local(game, i.sent_at or i.updated_at)} {result}".rstrip()
            )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from forumbot.outbox import describe
    from forumbot.store import outbox as repo

    game, ob = _open(args)
    with ob.store:
        item = ob.get(args.id)
        revs = repo.revisions(ob.store, item.id)
        log = repo.log(ob.store, item.id)
        if args.json:
            data = _item_json(item)
            data["revisions"] = [
                {"number": r.number, "body": r.body, "by": r.by, "at": r.at.isoformat()} for r in revs
            ]
            data["log"] = [
                {"at": e.at.isoformat(), "by": e.by, "from": e.old_status, "to": e.new_status, "note": e.note}
                for e in log
            ]
            print(json.dumps(data, ensure_ascii=False, indent=1))
            return 0
        names = {uid: name for name, uid in ob.uid_map().items()}
        print(f"#{item.id} {outbox_kind_label(item.kind)}  {outbox_status_label(item.status)}")
        print(_("destination: {where}").format(where=describe(item, names)))
        rounds = [
            phase_label("night", item.night) if item.night else "",
            phase_label("day", item.day) if item.day else "",
        ]
        if any(rounds):
            print(_("for: {rounds}").format(rounds=_(", ").join(r for r in rounds if r)))
        if item.approved_by:
            print(
                _("approved: {who} {at}").format(
                    who=actor_label(item.approved_by), at=_local(game, item.approved_at)
                )
            )
        if item.status == "sent":
            print(
                _("sent: {at} pid {pid} pmid {pmid} {url}").format(
                    at=_local(game, item.sent_at),
                    pid=item.result_pid or "-",
                    pmid=item.result_pmid or "-",
                    url=item.result_url,
                )
            )
        if item.board_message:
            print(_("the board said: {words}").format(words=item.board_message))
        if item.dest == "pm" and len(item.uids) > 1:
            print(
                _("delivered: {whom}").format(
                    whom=", ".join(f"{names.get(u, u)}(pmid {p or '?'})" for u, p in item.delivered.items())
                )
            )
        print(_("—— body (BBCode) ——"))
        print(item.body)
        if len(revs) > 1:
            print(_("—— {n} revisions ——").format(n=len(revs)))
            for r in revs:
                print(f"  v{r.number} {actor_label(r.by)} {_local(game, r.at)} 「{_first_line(r.body)}」")
        print(_("—— log ——"))
        for e in log:
            change = f"{outbox_status_label(e.old_status) if e.old_status else '·'} → "
            change += outbox_status_label(e.new_status)
            print(f"  {_local(game, e.at)} {actor_label(e.by)}{colon()}{change}  {outbox_note_label(e.note)}")
    return 0


def _edit_in_editor(text: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UsageError(
            _("--edit needs $EDITOR (or $VISUAL): e.g. EDITOR=nano forumbot outbox approve 3 --edit")
        )
    with tempfile.NamedTemporaryFile("w", suffix=".bbcode", encoding="utf-8", delete=False) as fh:
        fh.write(text)
        path = Path(fh.name)
    try:
        rc = subprocess.call([*shlex.split(editor), str(path)])
        if rc != 0:
            raise UsageError(
                _("the editor exited with {rc}: nothing approved (your text is kept in {path})").format(
                    rc=rc, path=path
                )
            )
        return path.read_text("utf-8")
    finally:
        if path.exists() and path.read_text("utf-8") == text:
            path.unlink()


def cmd_approve(args: argparse.Namespace) -> int:
    game, ob = _open(args)
    who = _who(args, game)
    with ob.store:
        for item_id in args.ids:
            item = ob.get(item_id)
            body = None
            if args.edit:
                edited = _edit_in_editor(item.body)
                body = edited.rstrip("\n") if edited.rstrip("\n") != item.body else None
            done = ob.approve(item_id, by=who, body=body, as_board_shows=args.as_board_shows)
            note = _("(edited: revision {n})").format(n=done.revision) if body is not None else ""
            print(f"#{done.id} {outbox_status_label(done.status)} {note}".rstrip())
    return 0


def cmd_send(args: argparse.Namespace) -> int:
    _game, ob = _open(args)
    with ob.store:
        report = ob.send(args.ids or None)
        sent = sum(1 for s in report.steps if s.status == "sent")
        failed = [s for s in report.steps if s.status == "failed"]
        print(
            _("{n} sent").format(n=sent)
            + (_(", {n} refused by the board").format(n=len(failed)) if failed else "")
        )
        for s in failed:
            print("  " + _("#{id} refused: {words}").format(id=s.item_id, words=s.words))
        if report.stopped:
            print(_("stopped: {why}").format(why=report.stopped), file=sys.stderr)
            return 3
        return 1 if failed else 0


def cmd_cancel(args: argparse.Namespace) -> int:
    game, ob = _open(args)
    with ob.store:
        ob.cancel(args.id, by=_who(args, game), why=args.why)
        print(_("#{id} cancelled (kept in the log)").format(id=args.id))
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from forumbot.outbox import Edit, NewThread, PrivateMessage, Reply, describe

    game, ob = _open(args)
    if args.file:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    else:
        text = args.body
    if args.reply is not None:
        dest: Reply | NewThread | Edit | PrivateMessage = Reply(args.reply, quote_pid=args.quote)
    elif args.new_thread is not None:
        if not args.subject:
            raise UsageError(_("--new-thread needs --subject"))
        dest = NewThread(args.new_thread, args.subject)
    elif args.edit_pid is not None:
        if args.tid is None:
            raise UsageError(_("--edit-pid needs --tid (the thread of that post)"))
        dest = Edit(args.tid, args.edit_pid)
    else:
        dest = PrivateMessage(args.pm)
    with ob.store:
        item_id = ob.add(
            args.kind, dest, text, day=args.day, night=args.night, player=args.player, by=_who(args, game)
        )
        item = ob.get(item_id)
        print(f"#{item_id} {outbox_status_label(item.status)}：{describe(item, ob.names())}")
    return 0


# --------------------------------------------------------------------------- the demo's outbox step


def demo_outbox(
    out: Any, game: Game, store: Any, *, public: list[tuple[str, int, str]], private: list[tuple[str, str]]
) -> None:
    """``forumbot demo``: the day's drafts into the outbox, approved by the judge, sent once, read back.

    ``public`` holds (kind, tid, BBCode), ``private`` holds (player, text) for private notices. The demo
    board's judge account is 法官大人 / demo (uid 14); players' uids come from the posts in the store.
    """
    from dataclasses import replace as dc_replace

    from forumbot.client import BoardClient
    from forumbot.outbox import STATUS_ZH, ItemKind, Outbox, PrivateMessage, Reply

    outbox = dict(game.outbox)
    outbox.setdefault("pm_interval", 0)  # the demo's clock stands still; a real board needs UCenter's 15 s
    uids = dict(outbox.get("uids", {}))
    uids.setdefault(game.judges[0] if game.judges else "法官大人", 14)
    outbox["uids"] = uids
    board = dc_replace(
        game.board, username=game.board.username or "法官大人", password=game.board.password or "demo"
    )
    game = dc_replace(game, board=board, outbox=outbox)
    client = BoardClient(game.board)
    lines: list[str] = []
    ob = Outbox(store, game, client=client, progress=lines.append, by="demo-judge")
    ids = [ob.add(kind, Reply(tid), text) for kind, tid, text in public]
    known = ob.uid_map()
    for player, text in private:
        if player in known:
            ids.append(ob.add(ItemKind.PRIVATE_NOTICE, PrivateMessage(known[player]), text, player=player))
    for i in ids:
        ob.approve(i, by="demo-judge")
    report = ob.send()
    for line in lines:
        out.print(f"   {line}", markup=False)
    for i in ids:
        item = ob.get(i)
        where = f"pid {item.result_pid}" if item.result_pid else f"pmid {item.result_pmid}"
        status = STATUS_ZH.get(item.status, item.status)
        out.print(f"   #{i} {outbox_kind_label(item.kind)}：{status} ({where})", markup=False)
    if report.stopped:
        out.print("   " + _("stopped: {why}").format(why=report.stopped), markup=False)
    for kind, tid, _body in public:
        page = client.fetch_thread_page(tid, 999)
        mine = [p for p in page.posts if p.author == game.board.username]
        if mine:
            out.print(
                "   "
                + _("read back from thread {tid}: floor {floor} by {author} ({kind})").format(
                    tid=tid, floor=mine[-1].floor, author=mine[-1].author, kind=kind
                )
            )
    client.close()
