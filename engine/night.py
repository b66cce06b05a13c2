"""Night submissions and their resolution: the entry points the CLI calls.

Checking is separate from applying (like python-chess's ``is_legal`` / ``push``):

* :func:`check_action` raises :class:`~engine.errors.IllegalActionError` naming the rule an action breaks;
* :func:`submit` checks and returns the :class:`~engine.actions.Night` with the submission added
  (a later submission in the same slot replaces an earlier one; a late one never replaces an on-time one);
* :func:`record_submission` is :func:`submit` for a night as recorded: a submission the rules void at
  resolution (:class:`~engine.errors.Refusal`) is kept, and the resolution voids it;
* :func:`resolve_night` trusts the night it is given and returns a
  :class:`~engine.events.Resolution` (new state, ordered events, who went out);
* :func:`legal_targets` lists the names an action may name now (for menus, tests and simulations).

Late submissions are data (``late=True``): the caller compares the post time with the deadline; the
engine has no clock. R001: a late kill ⇒ 今晚平安夜 (and no possession, AMB-18); a late check is
不予受理; a guardian's missing/late protection is a voluntary skip. R004: a late action is given up.
"""

from __future__ import annotations

from dataclasses import replace

from engine.actions import ACTION_KINDS, Kill, Night, NightAction, Protect, Submission
from engine.errors import GameOverError, IllegalActionError, Refusal
from engine.events import Resolution
from engine.lastacts import arm, fire_armed, split_night
from engine.roles import ActionKind
from engine.ruleset import rules_of
from engine.state import GameState, Phase


def new_night(state: GameState) -> Night:
    """An empty Night for the state's current round."""
    return Night(state.round)


def check_action(state: GameState, action: NightAction, *, night: Night | None = None) -> None:
    """Raise IllegalActionError (with ``.rule``) if ``action`` may not be submitted now.

    ``night`` (the submissions so far) is needed for rules across submissions (R004: no 绑架 on a
    撕票 night).
    """
    if state.outcome is not None:
        raise GameOverError(f"本局已结束（{state.outcome.text}），不再接受提交")
    if state.phase is not Phase.NIGHT:
        raise IllegalActionError(
            f"第{state.round}日结束后才开始接受第{state.round + 1}夜的提交",
            rule="时间表",
        )
    if night is not None and night.round != state.round:
        raise IllegalActionError(f"这些提交属于第{night.round}夜，但现在是第{state.round}夜")
    rules = rules_of(state)
    if not any(action.kind in rules.role(p.role).night_actions for p in state.players):
        raise IllegalActionError(
            f"本局（{state.ruleset_id}）没有角色可以{ACTION_KINDS[action.kind].name_zh}",
            rule=state.ruleset_id,
        )
    rules.check_action(state, action, night)


def is_legal(state: GameState, action: NightAction, *, night: Night | None = None) -> bool:
    try:
        check_action(state, action, night=night)
    except IllegalActionError:
        return False
    return True


def submit(state: GameState, night: Night, action: NightAction, *, late: bool = False) -> Night:
    """Check ``action`` and add it to ``night``.

    ``late``: posted after the deadline (kept, then forfeited at resolution).
    """
    check_action(state, action, night=night)
    return night.with_submission(Submission(action, late))


def refusal_of(
    state: GameState, action: NightAction, *, night: Night | None = None
) -> IllegalActionError | None:
    """None when ``action`` may be submitted now; else the rules' refusal, whose ``.refusal`` says whether
    the rules forbid it (refused before the deadline) or void it at resolution (recorded, then void)."""
    try:
        check_action(state, action, night=night)
    except IllegalActionError as exc:
        return exc
    return None


def record_submission(state: GameState, night: Night, action: NightAction, *, late: bool = False) -> Night:
    """Add ``action`` to ``night`` as the rules record it: like :func:`submit`, except that a submission
    the rules void at resolution (``Refusal.VOID_AT_RESOLUTION``: AMB-08, AMB-10) is kept as submitted,
    so :func:`resolve_night` voids it, uses it up per the flags and says why. Raises IllegalActionError
    for a submission the rules forbid."""
    exc = refusal_of(state, action, night=night)
    if exc is not None and exc.refusal is not Refusal.VOID_AT_RESOLUTION:
        raise exc
    return night.with_submission(Submission(action, late))


def withdraw(night: Night, kind: ActionKind, *, guardian: str | None = None) -> Night:
    """Remove a submission before the deadline (e.g. a 绑架 the kidnapper replaces by 撕票)."""
    kept = tuple(
        s
        for s in night.submissions
        if not (
            s.action.kind is kind and (guardian is None or getattr(s.action, "guardian", None) == guardian)
        )
    )
    return replace(night, submissions=kept)


def resolve_night(state: GameState, night: Night, *, seed: int | None = None) -> Resolution:
    """Resolve night ``state.round`` from its submissions, in the rule set's exact order.

    ``seed`` is used only for the random draws the rules leave to the judge (AMB-12's random pledge);
    without one a seed derived from the rule set and round is used and reported in a JUDGE event.
    """
    if state.outcome is not None:
        raise GameOverError(f"本局已结束（{state.outcome.text}），不再结算夜晚")
    if state.phase is not Phase.NIGHT:
        raise IllegalActionError(f"第{state.round}夜已经结算，请先结束第{state.round}日")
    if night.round != state.round:
        raise IllegalActionError(f"这些提交属于第{night.round}夜，但现在是第{state.round}夜")
    rest, armed = split_night(state, night)  # armed submissions wait for their holder to go out
    res = rules_of(state).resolve_night(arm(state, armed), rest, seed)
    return fire_armed(res, check_win=True)


def resolve_extra_check(state: GameState, target: str, *, late: bool = False) -> Resolution:
    """The police's extra check after checking the poison (R001 §五 毒药4, AMB-15)."""
    return rules_of(state).resolve_extra_check(state, target, late=late)


def legal_targets(
    state: GameState, kind: ActionKind, *, actor: str | None = None, night: Night | None = None
) -> tuple[str, ...]:
    """Every name a single-target action of ``kind`` may name now (``actor``: the guardian for PROTECT)."""
    out: list[str] = []
    for name in state.names():
        action = _probe(kind, name, actor)
        if action is not None and is_legal(state, action, night=night):
            out.append(name)
    return tuple(out)


def _probe(kind: ActionKind, name: str, actor: str | None) -> NightAction | None:
    """A one-target action of ``kind`` naming ``name`` (None for kinds that name several or none)."""
    if kind is ActionKind.KILL:
        return Kill(name)
    if kind is ActionKind.PROTECT:
        return Protect(actor, name) if actor else None
    spec = ACTION_KINDS[kind]
    return spec.cls(name) if spec.single_target else None
