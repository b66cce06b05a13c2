"""Sign-up to roles (issue 19): the sign-up thread read at its close, the list confirmed, the roles
drawn (or given), and each player's identity notice with the private forums the judge must open.

The lists go to the store as the judges' decisions (``signup_read`` each time forumbot reads the thread,
``signup_confirmed`` once a judge — or ``[signup] auto_confirm`` when no post needs a judge — accepts
them, ``signup_draw`` with who plays which role account), so every face shows the same lists and who
confirmed them, and nothing is asked twice.

Two kinds of game, as the game file says:

- ``[players].roster`` lists role accounts (角色ID) the board's admin prepared (R001 §一, §七): the
  players who signed up keep their own accounts (本尊ID) for the identity notice, and each gets one role
  account, drawn with the seed (the same seed gives the same draw, recorded);
- no ``[players]``: the players play with the accounts they signed up with; the confirmed list *is* the
  roster (:func:`signed_up_game`).

forumbot does not change the board's permissions: :meth:`SignupSteps.private_forum_access` lists who
the judge must let into each group's private forum.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine import GROUP_ZH, GameState, GroupId, Setup, setup_notices
from forumbot.config import SignupConfig
from forumbot.desk.roster import (
    SIGNUP_CONFIRMED,
    ConfirmedSignup,
    confirmed_signup,
    signed_up_game,
    with_signup_roster,
)
from forumbot.desk.setup import SetupSteps
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.parsers.signup import SignupResult, read_signup
from forumbot.store import posts, records

SIGNUP_READ = "signup_read"
SIGNUP_DRAW = "signup_draw"


@dataclass(frozen=True)
class IdentityNotice:
    """One player's identity notice: the slot (``player``, the roster's name), the account it goes to
    (``owner``: the 本尊ID, the player himself without role accounts) and its text."""

    player: str
    owner: str
    uid: int | None
    body: str


@dataclass(frozen=True)
class ForumAccess:
    """One private forum the judge must open to its group's members (forumbot changes no permission)."""

    group: str  # the group's Chinese name (匪帮, 警署...)
    fid: int | None  # from [night_sources], None when the file names no forum for it
    members: tuple[str, ...]


class SignupSteps(SetupSteps):
    """The desk's sign-up operations (a mixin of :class:`forumbot.desk.Desk`)."""

    def signup_config(self) -> SignupConfig:
        if self.game.signup is None:
            raise UsageError(
                _("this game file has no [signup] table: add tid and closes_at of the sign-up thread")
            )
        return self.game.signup

    def signup_read(self) -> SignupResult:
        """The sign-up thread as the store holds it, read as of its close (later posts are late)."""
        cfg = self.signup_config()
        stored = posts.thread_posts(self.store, self.game.board, cfg.tid)
        return read_signup(
            [p.to_post() for p in stored],
            closes_at=cfg.closes_at,
            cap=cfg.cap,
            judges=self.game.judges,
            tz=self.game.tz,
        )

    def signup_record(self, result: SignupResult) -> bool:
        """Keep what was read (a decision ``signup_read``) when it differs from the last one kept;
        True when something new was kept."""
        detail = _detail(result)
        with self.store.session() as s:
            last = records.decisions_for(s, self.gid, SIGNUP_READ)
            if last and last[-1].detail == detail:
                return False
            records.add_decision(
                s,
                self.gid,
                SIGNUP_READ,
                _("sign-up thread read: {players} players, {subs} substitutes").format(
                    players=len(result.players), subs=len(result.substitutes)
                ),
                self.by,
                detail=detail,
            )
            s.commit()
        return True

    def signup_confirmed(self) -> ConfirmedSignup | None:
        return confirmed_signup(self.store, self.gid)

    def signup_confirm(
        self,
        result: SignupResult,
        *,
        why: str = "",
        players: tuple[str, ...] | None = None,
        substitutes: tuple[str, ...] | None = None,
        now: datetime | None = None,
    ) -> ConfirmedSignup:
        """Accept the lists (``players``/``substitutes``: the judge's own, which need ``why``) and store
        them. Refused before the close, when already confirmed (the roles may be drawn from it), and
        when a post needs a judge and no ``why`` says how it was settled."""
        cfg = self.signup_config()
        if now is not None and now < cfg.closes_at:
            raise UsageError(
                _("the sign-up closes at {time}: confirm it after the close").format(
                    time=self.game.local(cfg.closes_at).strftime("%m-%d %H:%M")
                )
            )
        if self.signup_confirmed() is not None:
            raise UsageError(_("the sign-up is already confirmed (forumbot signup shows it)"))
        final = players if players is not None else result.players
        subs = substitutes if substitutes is not None else result.substitutes
        changed = final != result.players or subs != result.substitutes
        if (changed or result.review) and not why.strip():
            raise UsageError(
                _(
                    "{n} posts need a judge or the lists differ from the thread's: say why with --why "
                    "(kept with your name)"
                ).format(n=len(result.review))
            )
        if cfg.cap is not None and len(final) > cfg.cap:
            raise UsageError(_("{n} players for a cap of {cap}").format(n=len(final), cap=cfg.cap))
        if len(set(final)) != len(final) or set(final) & set(subs):
            raise UsageError(_("a name is listed twice in the players and substitutes"))
        if (
            self.game.signup is not None
            and self.game.signup.role_accounts
            and len(final) != len(self.game.roster)
        ):
            raise UsageError(
                _("{n} players signed up for {accounts} role accounts: give the list with --players").format(
                    n=len(final), accounts=len(self.game.roster)
                )
            )
        uids = dict(result.uids)
        detail = {"players": list(final), "substitutes": list(subs), "uids": uids, "changed": changed}
        with self.store.session() as s:
            d = records.add_decision(
                s, self.gid, SIGNUP_CONFIRMED, why or _("as read"), self.by, detail=detail
            )
            s.commit()
        self.game = signed_up_game(self.game, self.store, self.gid)
        return ConfirmedSignup(final, subs, uids, d.by, d.at, d.why)

    # ------------------------------------------------------------------ roles

    def owners(self) -> dict[str, str]:
        """Role account → the player (本尊) who plays it; each player himself without role accounts."""
        with self.store.session() as s:
            found = records.decisions_for(s, self.gid, SIGNUP_DRAW)
        if found:
            return {str(k): str(v) for k, v in found[-1].detail.get("owners", {}).items()}
        return {n: n for n in self.game.roster}

    def signup_roles(
        self,
        *,
        seed: int | None = None,
        roles: Mapping[str, str] | None = None,
        owners: Mapping[str, str] | None = None,
    ) -> Setup | GameState:
        """The roles of the confirmed players: drawn by ``seed`` (None: one picked now, recorded) or
        ``roles`` given by the judges. With role accounts, each player gets one: ``owners`` (role account
        → player) as the judges give it, else drawn with the same seed."""
        conf = self.signup_confirmed()
        if conf is None:
            raise UsageError(_("the sign-up is not confirmed yet: forumbot signup --confirm"))
        self.game = signed_up_game(self.game, self.store, self.gid)
        if seed is None and (roles is None or owners is None):
            seed = secrets.randbelow(10**9)  # never an unrecorded or guessable draw: kept below
        accounts = list(self.game.roster)
        if self.game.signup is not None and self.game.signup.role_accounts:
            if owners is None:
                pool = list(conf.players)
                random.Random(f"{seed}/accounts").shuffle(pool)
                owners = dict(zip(accounts, pool, strict=True))
            if sorted(owners) != sorted(accounts) or sorted(owners.values()) != sorted(conf.players):
                raise UsageError(_("each role account must go to one player who signed up, each player once"))
        else:
            owners = {n: n for n in accounts}
        cfg = self.game.signup
        cards = self.cards(cfg.cards) if cfg is not None and cfg.cards and roles is None else None
        done = self.setup(seed=None if roles is not None else seed, roles=roles, composition=cards)
        with self.store.session() as s:
            records.add_decision(
                s,
                self.gid,
                SIGNUP_DRAW,
                _("roles drawn with seed {seed}").format(seed=seed) if roles is None else _("roles given"),
                self.by,
                detail={
                    "seed": seed,
                    "owners": dict(owners),
                    "owner_uids": {a: conf.uids[o] for a, o in owners.items() if o in conf.uids},
                },
            )
            s.commit()
        return done

    def identity_notices(self) -> list[IdentityNotice]:
        """Each player's identity notice from the setup state (drawn or given: the same words)."""
        st = self.setup_state()
        notices, _groups = setup_notices(st)
        owners = self.owners()
        conf = self.signup_confirmed()
        uids = dict(conf.uids) if conf is not None else {}
        role_accounts = self.game.signup is not None and self.game.signup.role_accounts
        out: list[IdentityNotice] = []
        for p in st.players:
            owner = owners.get(p.name, p.name)
            lines = [f"【{self.game.name}】身份通知"]
            if role_accounts:
                lines.append(f"你的角色ID：{p.name}（密码由执法团另行发送；游戏中请只用角色ID发言）")
            lines.append(notices[p.name])
            out.append(IdentityNotice(p.name, owner, uids.get(owner), "\n".join(lines)))
        return out

    def setup_state(self) -> GameState:
        """The first stored state (the roles as set up), whatever happened since."""
        for v in self.live_history():
            if v.label.startswith("setup"):
                with self.store.session() as s:
                    found = records.load_state_by_id(s, v.id)
                if found is not None:
                    from engine import state_from_dict

                    return state_from_dict(found)
        raise UsageError(_("no roles are stored for this game yet: run `forumbot setup` first"))

    def records_not_by(self, by: str) -> int:
        """How many state versions and judges' decisions of this game someone other than ``by`` made
        (the demo counts what a judge had to type beside the runner)."""
        from sqlmodel import select

        from forumbot.store.models import JudgeDecisionRow

        with self.store.session() as s:
            versions = [v for v in records.state_history(s, self.gid) if v.by != by]
            decisions = s.exec(
                select(JudgeDecisionRow).where(
                    JudgeDecisionRow.game_id == self.gid, JudgeDecisionRow.by != by
                )
            ).all()
        return len(versions) + len(decisions)

    def private_forum_access(self) -> list[ForumAccess]:
        """Who the judge must let into each group's private forum (the role accounts that log in)."""
        _notices, groups = setup_notices(self.setup_state())
        src = self.game.night_sources
        by_name = {g.group: g.fid for g in (src.groups if src is not None else ())}
        fids: dict[str, int] = {}
        for name, gid in self.ruleset.group_sources.items():  # [night_sources] names → the groups
            if name in by_name:
                fids.setdefault(gid.value, by_name[name])
        return [
            ForumAccess(GROUP_ZH[GroupId(group)], fids.get(group), tuple(members))
            for group, members in groups.items()
        ]


def _detail(result: SignupResult) -> dict[str, Any]:
    return {
        "players": list(result.players),
        "substitutes": list(result.substitutes),
        "uids": dict(result.uids),
        "verdicts": [v.to_dict() for v in result.verdicts],
    }


__all__ = [
    "SIGNUP_CONFIRMED",
    "SIGNUP_DRAW",
    "SIGNUP_READ",
    "ConfirmedSignup",
    "ForumAccess",
    "IdentityNotice",
    "SignupSteps",
    "confirmed_signup",
    "signed_up_game",
    "with_signup_roster",
]
