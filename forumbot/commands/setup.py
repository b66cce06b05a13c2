"""The game's setup and its secret state: ``setup``, ``state``, ``init``, ``undo``, ``flags``."""

from __future__ import annotations

import argparse
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import fields as dc_fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forumbot.commands.common import console, lit, open_desk
from forumbot.errors import UsageError
from forumbot.i18n import N_, _, current_language
from forumbot.labels import actor_label, out_label, outcome_label, phase_label, version_label

if TYPE_CHECKING:
    from forumbot.config import Game


def cmd_setup(args: argparse.Namespace) -> int:
    from engine import Setup

    game, store, desk = open_desk(args)
    with store:
        roles = None
        if args.roles:
            roles = tomllib.loads(Path(args.roles).read_text("utf-8")).get("roles")
            if not isinstance(roles, dict):
                raise UsageError(_("{file}: expected a [roles] table of name = role").format(file=args.roles))
        made = desk.setup(seed=args.seed, roles=roles, variant=args.variant, force=args.force)
        state = made.state if isinstance(made, Setup) else made
        out = console()
        out.print(
            _("[b]{game}[/b]: roles stored for {n} players ({ruleset}).").format(
                game=lit(game.name), n=len(state.players), ruleset=state.ruleset_id
            )
        )
        for w in made.warnings if isinstance(made, Setup) else ():
            out.print(_("[yellow]warning:[/yellow] {w}").format(w=lit(w)))
        notices: Mapping[str, str] = made.notices if isinstance(made, Setup) else {}
        if notices and args.notices:
            out.print("\n" + _("[b]Private notices (send each to the player's main account):[/b]"))
            for name, text in notices.items():
                out.print(f"\n── {lit(name)} ──\n{lit(text)}")
        elif notices:
            out.print(_("Private notices not shown (--no-notices)."))
    return 0


def _names(text: str) -> tuple[str, ...]:
    """Names given as ``A,B`` or ``A，B``."""
    return tuple(x.strip() for x in text.replace("，", ",").split(",") if x.strip())


def cmd_signup(args: argparse.Namespace) -> int:
    """The sign-up thread: read it (``--read``: from the board first), show each post's verdict and the
    lists; ``--confirm`` them (``--players``/``--substitutes`` to change them, ``--why`` kept with your
    name); ``--seed N`` / ``--roles FILE`` the roles of the confirmed players. The runner's sign-up
    moment then sends each identity notice through the outbox."""
    from rich.table import Table

    game, store, desk = open_desk(args)
    with store:
        cfg = desk.signup_config()
        out = console()
        if args.read:
            from forumbot.client import BoardClient
            from forumbot.poll import poll

            with BoardClient(game.board) as client:
                report = poll(client, store, game.board, [cfg.tid], full=True, progress=False)
            if not report.ok:
                raise UsageError(report.failure_message())
        result = desk.signup_read()
        desk.signup_record(result)
        table = Table(_("floor"), _("author"), _("time"), _("verdict"), _("reason"))
        for v in result.verdicts:
            table.add_row(
                str(v.floor or "-"),
                lit(v.author),
                game.local(v.at).strftime("%m-%d %H:%M"),
                v.code.value + (" ⚑" if v.needs_review else ""),
                lit(v.reason),
            )
        out.print(table)
        conf = desk.signup_confirmed()
        if args.confirm and conf is None:
            conf = desk.signup_confirm(
                result,
                why=args.why or "",
                players=_names(args.players) if args.players is not None else None,
                substitutes=_names(args.substitutes) if args.substitutes is not None else None,
                now=datetime.now(UTC),
            )
        players, subs = (conf.players, conf.substitutes) if conf else (result.players, result.substitutes)
        out.print(
            _("[b]players[/b] ({n}): {players}").format(n=len(players), players=lit("、".join(players)))
        )
        out.print(_("[b]substitutes[/b]: {subs}").format(subs=lit("、".join(subs)) or _("none")))
        if conf is None:
            out.print(_("not confirmed yet: forumbot signup --confirm (with --why when a post is flagged ⚑)"))
            return 0
        out.print(_("confirmed by {judge} ({why})").format(judge=lit(conf.by), why=lit(conf.why)))
        if (args.seed is not None or args.roles) and desk.state() is None:
            roles = None
            if args.roles:
                roles = tomllib.loads(Path(args.roles).read_text("utf-8")).get("roles")
                if not isinstance(roles, dict):
                    raise UsageError(
                        _("{file}: expected a [roles] table of name = role").format(file=args.roles)
                    )
            desk.signup_roles(seed=args.seed, roles=roles)
            out.print(_("roles stored; the runner sends each identity notice through the outbox"))
        if desk.state() is not None:
            owners = desk.owners()
            for a in desk.private_forum_access():
                if a.fid is None:
                    out.print(
                        _("open {group} (no forum named in [night_sources]) to: {members}").format(
                            group=a.group, members=lit("、".join(a.members))
                        )
                    )
                    continue
                out.print(
                    _("open {group} (fid {fid}) to: {members}").format(
                        group=a.group, fid=a.fid, members=lit("、".join(a.members))
                    )
                )
            if any(k != v for k, v in owners.items()):
                out.print(
                    _("role accounts: {pairs}").format(
                        pairs=lit("；".join(f"{a}←{o}" for a, o in sorted(owners.items())))
                    )
                )
    return 0


def cmd_state(args: argparse.Namespace) -> int:
    from rich.table import Table

    from forumbot.desk import describe_state

    game, store, desk = open_desk(args)
    with store:
        st = desk.require_state()
        info = describe_state(st)
        if args.history:
            info["history"] = [
                {
                    "id": v.id,
                    "label": v.label,
                    "at": v.at.isoformat(),
                    "by": v.by,
                    "undone_at": v.undone_at.isoformat() if v.undone_at else None,
                    "undone_by": v.undone_by,
                }
                for v in desk.history()
            ]
        if args.json:
            print(json.dumps(info, ensure_ascii=False, indent=1, default=str))
            return 0
        out = console()
        # The judge's words (labels.py); the codes stay in --json.
        where = phase_label(st.phase.value, st.round)
        if st.outcome is not None:
            winner = st.outcome.winner.value if st.outcome.winner else None
            where = _("game over: {outcome}").format(
                outcome=outcome_label(st.outcome.termination.value, winner)
            )
        out.print(f"[b]{info['ruleset']}[/b]{_(', ')}{where}")
        t = Table(_("player"), _("role"), _("status"), _("notes"))
        for p, player in zip(info["players"], st.players, strict=True):
            notes = _(", ").join(_(k) for k in ("possessed", "converted") if p[k])
            how = out_label(player.cause.value if player.cause else None, player.out_round)
            t.add_row(
                lit(p["name"]),
                p["role"],
                _("alive") if p["alive"] else _("out: {how}").format(how=how),
                notes,
            )
        out.print(t)
        if args.history:  # shown in the board's zone (the JSON keeps UTC)
            for v in desk.history():
                undone = (
                    _(" — undone {at} by {who}").format(
                        at=_local(v.undone_at, game), who=lit(actor_label(v.undone_by))
                    )
                    if v.undone_at
                    else ""
                )
                by = _(" by {who}").format(who=lit(actor_label(v.by))) if v.by else ""
                out.print(f"  #{v.id} {lit(version_label(v.label))} ({_local(v.at, game)}{by}){undone}")
    return 0


def _local(at: datetime, game: Game) -> str:
    return at.astimezone(game.tz).strftime("%Y-%m-%d %H:%M")


def cmd_init(args: argparse.Namespace) -> int:
    """Write a starter game file (nothing secret in it) for the judges to fill in."""
    from forumbot import drafts
    from forumbot.config import canonical_ruleset

    path = Path(args.game or "forumbot.toml")
    if path.exists() and not args.force:
        raise UsageError(_("{path} exists; pass --force to overwrite it").format(path=path))
    ruleset = canonical_ruleset(args.ruleset)
    r004 = ruleset == "R004"
    text = drafts.render_text(
        "game.toml.j2",
        name=args.name,
        ruleset=ruleset,
        board=args.board,
        night_deadline="23:00" if r004 else "17:00",
        vote_close="21:00" if r004 else "13:00",
    )
    path.write_text(text, "utf-8")
    console().print(
        _("wrote {path}: fill in the roster and the days, then `forumbot poll`").format(path=path)
    )
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    _game, store, desk = open_desk(args)
    with store:
        undone, now = desk.undo()
        console().print(
            _("undone: {undone}; the game is back at: {now} (the undo is kept in `state --history`)").format(
                undone=lit(version_label(undone)), now=lit(version_label(now))
            )
        )
    return 0


@dataclass(frozen=True)
class _FlagLine:
    name: str
    side: str
    default: Any
    amb: str
    doc: str
    choices: tuple[Any, ...] = ()


def flag_lines() -> list[_FlagLine]:
    """Every flag a game file's ``[flags]`` takes: the engine's (day, night, both; then the readings
    that are not switches) and the night messages' (side ``night_messages``, forumbot/nightmail.py),
    each with the values it takes where they are a list (``true``/``false`` for a switch)."""
    from engine import NightFlags, all_flags
    from forumbot.nightmail import NightMailFlags

    night_choices = {f.name: tuple(f.metadata.get("choices", ())) for f in dc_fields(NightFlags)}
    engine = [
        _FlagLine(
            r.name,
            r.side,
            r.default,
            r.amb,
            r.doc,
            night_choices.get(r.name) or ((True, False) if isinstance(r.default, bool) else ()),
        )
        for r in all_flags()
    ]
    switches = [line for line in engine if line.side in ("day", "night", "both")]
    readings = [line for line in engine if line.side not in ("day", "night", "both")]
    mail = [
        _FlagLine(name, "night_messages", default, amb, doc, NightMailFlags.choices(name))
        for name, default, amb, doc in NightMailFlags.describe()
    ]
    return switches + mail + readings


SIDE_LABELS = {
    "day": N_("day"),
    "night": N_("night"),
    "both": N_("day and night"),
    "night_messages": N_("night messages"),
    "fixed": N_("fixed"),
    "config": N_("game file"),
}


def cmd_flags(args: argparse.Namespace) -> int:
    from rich.markup import escape as lit
    from rich.table import Table

    from forumbot.flagmeanings import meaning, value_text

    rows = flag_lines()
    if args.json:
        print(json.dumps([_row(r) for r in rows], ensure_ascii=False, indent=1, default=str))
        return 0
    lang = current_language()
    t = Table(_("flag"), _("side"), _("default"), "AMB", _("values"), _("meaning"))
    for r in rows:
        # The night messages' meanings are catalog msgids; the engine's are English docs with their
        # Chinese in forumbot/flagmeanings.py.
        doc = _(r.doc) if r.side == "night_messages" else meaning(r.name, r.doc, lang)
        t.add_row(
            lit(r.name),
            _(SIDE_LABELS.get(r.side, r.side)),
            lit(value_text(r.default, lang)),
            r.amb,
            lit(" | ".join(value_text(c, lang) for c in r.choices)),
            lit(doc),
        )
    console().print(t)
    return 0


def _row(r: _FlagLine) -> dict[str, Any]:
    return {
        "name": r.name,
        "side": r.side,
        "default": r.default,
        "amb": r.amb,
        "choices": list(r.choices),
        "doc": r.doc,
        "meaning_zh": _zh_meaning(r),
    }


def _zh_meaning(r: _FlagLine) -> str:
    from forumbot.flagmeanings import meaning
    from forumbot.i18n import translations

    if r.side == "night_messages":
        return translations("zh_CN").gettext(r.doc)
    return meaning(r.name, r.doc, "zh_CN")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("setup", help=_("draw roles for the roster (or store the judges' own) as secrets"))
    p.add_argument("--seed", type=int, help=_("the seed of the draw (recorded)"))
    p.add_argument(
        "--roles", metavar="FILE", help=_("a TOML file with [roles] name = 角色 instead of a draw")
    )
    p.add_argument("--variant", choices=("doctor", "butterfly"), help=_("R004 医生/花蝴蝶"))
    p.add_argument("--force", action="store_true", help=_("draw again (the old draw stays in the history)"))
    p.add_argument(
        "--no-notices",
        dest="notices",
        action="store_false",
        help=_("do not print the players' private notices"),
    )
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser("signup", help=_("the sign-up thread: each post's verdict, the lists, confirm, roles"))
    p.add_argument("--read", action="store_true", help=_("read the sign-up thread from the board first"))
    p.add_argument("--confirm", action="store_true", help=_("confirm the players and substitutes"))
    p.add_argument(
        "--why", help=_("why (kept with your name): needed when a post is flagged or a list changed")
    )
    p.add_argument(
        "--players", metavar="A,B,...", help=_("the players as you confirm them (default: as read)")
    )
    p.add_argument("--substitutes", metavar="A,B,...", help=_("the substitutes as you confirm them"))
    p.add_argument("--seed", type=int, help=_("draw the roles (and role accounts) with this seed (recorded)"))
    p.add_argument(
        "--roles", metavar="FILE", help=_("a TOML file with [roles] name = 角色 instead of a draw")
    )
    p.set_defaults(func=cmd_signup)

    p = sub.add_parser("state", help=_("the secret game state (judges only)"))
    p.add_argument("--json", action="store_true")
    p.add_argument("--history", action="store_true", help=_("every stored version of the state"))
    p.set_defaults(func=cmd_state)

    p = sub.add_parser("init", help=_("write a starter game file (--game FILE, default ./forumbot.toml)"))
    p.add_argument("--ruleset", default="R001", help=_("R001, R000-GP, R000-G1, R000-G2 or R004"))
    p.add_argument("--board", default="https://bbs.example.com/", help=_("the board's root URL"))
    p.add_argument("--name", default="版杀", help=_("the game's name (used in drafts and in the store)"))
    p.add_argument("--force", action="store_true", help=_("overwrite an existing file"))
    p.set_defaults(func=cmd_init)

    p = sub.add_parser(
        "undo", help=_("step the secret state back one version (a night, a day close, a setup)")
    )
    p.set_defaults(func=cmd_undo)

    p = sub.add_parser("flags", help=_("every rule-reading flag with its default and AMB id"))
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_flags)
