"""The day's application under R001 and the R000 variants: executions with guardian substitution and the
double kill (AMB-40, AMB-43, AMB-50), the executed police officer's last words, drownings (§四.2),
sending off (AMB-33), concession (§三.3)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from engine.eliminations import finish, require_alive, require_day, sequential_check
from engine.errors import IllegalActionError
from engine.events import JUDGE, PUBLIC, EventKind, Resolution, event, to_player
from engine.gameover import game_over_events
from engine.outcome import Outcome, Termination, Winner
from engine.r001.guardians import effective_protectors
from engine.r001.night import reveal_label
from engine.roles import R001_ROLES, Cause, RoleId
from engine.state import GameState, Phase
from engine.working import Work

NO_EXECUTION = "平安夜，无人票死"


def double_kill_pairs(state: GameState, day: int) -> tuple[tuple[str, str], ...]:
    """(guardian, protégé) for every living guardian whose protection of round ``day`` works now.

    The tally uses it to spot an original count whose top tie is exactly such a pair (AMB-40).
    """
    if state.protection_round != day:
        return ()
    out: list[tuple[str, str]] = []
    for g, protege in state.protections.items():
        if g in effective_protectors(state, state.protections, protege):
            out.append((g, protege))
    return tuple(out)


def execute(
    state: GameState, chosen: str | None, day: int, tied: frozenset[str] | set[str] | None
) -> Resolution:
    """The vote's result: nobody (or the guardian and his protégé, AMB-40), a guardian in the chosen
    one's place (AMB-50, AMB-43), or the chosen one with his identity revealed."""
    w = Work(state)
    outcomes: list[Outcome] = []

    def die(name: str, cause: Cause) -> None:
        if w.eliminate(name, cause, day):
            sequential_check(w, outcomes)

    if chosen is None:
        pair = next(
            (p for p in double_kill_pairs(state, day) if tied and frozenset(p) == frozenset(tied)), None
        )
        if pair is not None and state.flags.guardian_double_kill_rule != "off":
            _double_kill(w, state, pair, die)
        else:
            w.emit(event(EventKind.NO_EXECUTION, PUBLIC, NO_EXECUTION, day=day))
        return finish(w, outcomes)
    require_alive(state, chosen, "被处决")
    protectors = (
        effective_protectors(state, state.protections, chosen) if state.protection_round == day else []
    )
    if protectors:
        _guarded_execution(w, state, chosen, protectors, die)
        return finish(w, outcomes)
    label = reveal_label(state.player(chosen), state)
    die(chosen, Cause.EXECUTED)
    w.emit(
        event(
            EventKind.EXECUTION,
            PUBLIC,
            f"{chosen} 被处决，身份：{label}",
            executed=chosen,
            revealed={chosen: label},
        )
    )
    _police_last_words(w, chosen)
    return finish(w, outcomes)


def _double_kill(w: Work, state: GameState, pair: tuple[str, str], die: Callable[[str, Cause], None]) -> None:
    """双杀票数 (AMB-40): the guardian and his protégé tied on top both die, identities revealed."""
    g, protege = pair
    lp = reveal_label(state.player(protege), state)
    lg = R001_ROLES[state.player(g).role].reveal_label  # executed directly: 守护神/警神/匪神
    die(protege, Cause.DOUBLE_KILL)
    die(g, Cause.DOUBLE_KILL)
    w.emit(
        event(
            EventKind.DOUBLE_KILL,
            PUBLIC,
            f"双杀票数：守护人与被守护人二者同死\n{protege} 被处决，身份：{lp}\n{g} 被处决，身份：{lg}",
            executed=(protege, g),
            revealed={protege: lp, g: lg},
            amb="AMB-40",
        )
    )
    _police_last_words(w, protege)


def _guarded_execution(
    w: Work, state: GameState, chosen: str, protectors: list[str], die: Callable[[str, Cause], None]
) -> None:
    """The chosen one's guardians go out in his place (AMB-50); two on one protégé may take him too
    (AMB-43 flag)."""
    both_die = state.flags.guardian_same_protege == "protege_dies_too" and len(protectors) >= 2
    names = "、".join(protectors)
    if both_die:
        lx = reveal_label(state.player(chosen), state)
        die(chosen, Cause.EXECUTED)
        for g in protectors:
            die(g, Cause.GUARDED_EXECUTION)
        text = f"{chosen} 被处决，身份：{lx}\n守护神 {names} 同死，身份：守护神"
        revealed = {chosen: lx, **dict.fromkeys(protectors, "守护神")}
        _police_last_words(w, chosen)
    else:
        for g in protectors:
            die(g, Cause.GUARDED_EXECUTION)
        text = state.flags.guardian_execution_wording.format(x=chosen, g=names)
        revealed = dict.fromkeys(protectors, "守护神")
    w.emit(
        event(
            EventKind.GUARDED_EXECUTION,
            PUBLIC,
            text,
            voted=chosen,
            guardians=tuple(protectors),
            revealed=revealed,
            amb="AMB-50",
        )
    )


def _police_last_words(w: Work, name: str) -> None:
    if w.p(name).role is RoleId.POLICE:
        w.set(police_last_words=name)
        w.emit(
            event(
                EventKind.LAST_WORDS,
                to_player(name),
                "你被票死：可在新案情发布前于[讨论]发表一次遗言（发布后不得编辑），之后仅可参与警署内部讨论",
                rule="R001 §四.5.3",
            ),
            event(
                EventKind.NOTE,
                JUDGE,
                f"被票死的警察 {name} 发布遗言后，方可给出验人结果并发布新案情（AMB-31）",
                amb="AMB-31",
            ),
        )


def resolve_drowning(state: GameState, names: Iterable[str], *, day: int) -> Resolution:
    """R001 §四.2: drowned players go out, announced by name only (identity secret until the end).

    A player already executed in this day's resolution is skipped: 同时满足被票杀和淹死情况，按照被票杀宣布.
    """
    require_day(state, day, "判淹死")
    w = Work(state)
    outcomes: list[Outcome] = []
    for name in names:
        p = state.player(name)
        if not w.alive(name):
            if p.cause in (Cause.EXECUTED, Cause.GUARDED_EXECUTION, Cause.DOUBLE_KILL) or name in w.out:
                w.emit(
                    event(
                        EventKind.NOTE,
                        JUDGE,
                        f"{name} 同时满足被票杀和淹死：按照被票杀宣布",
                        rule="R001 §四.2.5",
                    )
                )
                continue
            raise IllegalActionError(f"{name} 已死亡，不能再判淹死", rule="R001 §四.2")
        w.eliminate(name, Cause.DROWNED, day)
        sequential_check(w, outcomes)
        w.emit(event(EventKind.DROWNING, PUBLIC, f"{name} 淹死", drowned=name))
    return finish(w, outcomes)


def concede(state: GameState, side: str) -> Resolution:
    """R001 §三.3: the bandits (``"bandits"``) or the police (``"police"``) concede; the judge has verified.

    The other side wins. R004 has no concession (use :func:`surrender`).
    """
    if side not in ("bandits", "police"):
        raise IllegalActionError(f"认输的一方只能是匪帮或警方，不能是「{side}」", rule="R001 §三.3")
    winner = Winner.POLICE if side == "bandits" else Winner.BANDITS
    st = replace(state, outcome=Outcome(Termination.CONCESSION, winner), phase=Phase.OVER)
    return Resolution(st, tuple(game_over_events(st)))


def send_off(state: GameState, name: str, day: int) -> Resolution:
    """R001 §四.10 判作立即出局 (AMB-33): by name; the identity only under the flag."""
    w = Work(state)
    outcomes: list[Outcome] = []
    w.eliminate(name, Cause.SENT_OFF, day)
    sequential_check(w, outcomes)
    text = f"{name} 违反规则（以站内短消息、QQ等记录作为证据），判作立即出局"
    revealed: dict[str, str] = {}
    if state.flags.r001_sent_off_reveals_identity:
        label = reveal_label(state.player(name), state)
        text += f"，身份：{label}"
        revealed[name] = label
    w.emit(event(EventKind.SENT_OFF, PUBLIC, text, out=name, revealed=revealed, amb="AMB-33"))
    return finish(w, outcomes)
