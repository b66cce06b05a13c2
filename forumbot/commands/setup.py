"""The game's setup and its secret state: ``setup``, ``state``, ``init``, ``undo``, ``flags``."""

from __future__ import annotations

import argparse
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import fields as dc_fields
from datetime import datetime
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
