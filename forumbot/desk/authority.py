"""R004 威权 handed over (市长·威权, 行动时限, AMB-61) at the desk: applied to the secret state as its own
version, so it is in the history and ``forumbot undo`` takes it back.

The rules: a 威权 holder who goes out (by day vote, at night, red card) **must** pick another role, which
gains 威权 and is told so; the choice is due **before the next discussion day starts**; an invalid choice
must be redone before then; without a valid one the director draws the new holder at random among the
living roles other than the passer (AMB-61). The version is labelled ``authority N`` where N is the round
of the state it was applied to (day N's state once night N was resolved, or night N's before it), so day
N's vote — whose tie the holder decides (§c.2) — is judged from it (:meth:`DaySteps.day_start_state`).

Who may hand over, to whom and until when is checked here in the judge's words (a Chinese reason a
player may be shown): the engine then applies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine import GameState, IllegalActionError, Resolution, pass_authority
from forumbot.desk.core import DeskCore
from forumbot.desk.private import PrivateNote, private_notes
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.store import records

AUTHORITY_DECISION = "authority_passed"  # the decision recording each hand-over (who, to whom, how)


class AuthorityRefused(UsageError):
    """A hand-over of 威权 the rules do not allow; the message (Chinese) says why, for the judge and the
    player who sent it."""


@dataclass(frozen=True)
class AuthorityPassed:
    """A hand-over applied: who passed it, the new holder, whether it was drawn, and the resolution."""

    passer: str
    holder: str | None
    drawn: bool
    resolution: Resolution


def authority_label(state: GameState) -> str:
    """The state version a hand-over makes: ``authority N``, N the round of the state it applies to."""
    return f"authority {state.round}"


def authority_key(passer: str, holder: str) -> str:
    """The outbox key of the new holder's PM: one per hand-over, whichever face applied it."""
    return f"authority/{passer}/{holder}"


def authority_notes(game_name: str, base: GameState, holder: str) -> tuple[PrivateNote, ...]:
    """The new holder's private message (the engine's «你获得<威权>», from whom, what it does): the
    runner and ``forumbot authority`` send the same words."""
    passer = base.authority_pending or ""
    res = pass_authority(base, holder)
    notes = private_notes(res.events, base, res.state, f"【{game_name}】威权")
    extra = f"{passer} 出局，将威权交给了你：讨论日平票时，你的最终有效投票对象出局。"
    return tuple(PrivateNote(n.player, False, (*n.texts, extra), f"{n.body}\n{extra}") for n in notes)


class AuthoritySteps(DeskCore):
    def authority_pending(self) -> str | None:
        """The role who went out holding 威权 and has not handed it over yet (None: nobody)."""
        st = self.state()
        return st.authority_pending if st is not None else None

    def authority_problem(self, state: GameState, sender: str, to: str) -> str | None:
        """Why ``sender`` may not hand 威权 to ``to`` now (Chinese), or None when the rules allow it."""
        if state.authority_pending is None:
            return f"{sender} 现在不需要移交威权：没有出局的威权持有者待移交"
        if sender != state.authority_pending:
            return f"{sender} 不是出局的威权持有者（待移交的是 {state.authority_pending}），不能移交威权"
        if to not in {p.name for p in state.players}:
            return f"{to} 不是本局的角色，威权须交给另一名未出局的角色"
        if to == sender:
            return "威权须交给另一名角色，不能交给自己"
        p = state.player(to)
        flags = state.flags
        if not p.alive and not (flags.r004_authority_to_out_tonight and p.out_round == state.round):
            return f"{to} 已出局，不能获得威权，请在下一讨论日开始前另选一名未出局的角色"
        return None

    def pass_authority(
        self,
        to: str | None,
        at: datetime,
        *,
        seed: int | None = None,
        sender: str | None = None,
        why: str = "",
    ) -> AuthorityPassed:
        """Apply the hand-over of 威权 to ``to`` (``None``: the director's random draw with ``seed``,
        when no valid choice came in time), made at ``at``; stored as version ``authority N`` with a
        decision naming who entered it (``self.by``), the sender and why. Raises AuthorityRefused."""
        st = self.require_state()
        passer = st.authority_pending
        if passer is None:
            raise AuthorityRefused(_("nobody has to hand over 威权 now (no 威权 holder went out)"))
        if to is not None:
            problem = self.authority_problem(st, sender or passer, to)
            if problem is not None:
                raise AuthorityRefused(problem)
        elif seed is None:
            seed = self.gid * 1000 + 500 + st.round  # fixed per game and round: a re-run draws alike
        try:
            res = pass_authority(st, to, seed=seed if to is None else None)
        except IllegalActionError as exc:
            raise AuthorityRefused(str(exc)) from exc
        holder = res.state.authority_holder
        self.save_state(authority_label(st), res.state)
        self._days.clear()  # day N is judged from this version now
        with self.store.session() as s:
            records.add_decision(
                s,
                self.gid,
                AUTHORITY_DECISION,
                why
                or (
                    f"{passer} 移交威权给 {holder}"
                    if to is not None
                    else f"{passer} 未移交威权：随机指定 {holder}"
                ),
                self.by,
                day=st.round,
                detail={
                    "passer": passer,
                    "holder": holder,
                    "drawn": to is None,
                    "seed": seed if to is None else None,
                    "at": at.isoformat(),
                },
            )
            s.commit()
        return AuthorityPassed(passer, holder, to is None, res)
