"""The day's application under R004: the vote elimination with the lover swap and the 威权 tie-break
(AMB-60), red cards (AMB-77), a win check after every single elimination (§e.3), passing 威权 (AMB-61)
and the killers' surrender (AMB-83)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace

from engine.eliminations import finish, require_alive, require_day, sequential_check
from engine.errors import EngineError, IllegalActionError
from engine.events import JUDGE, PUBLIC, EventKind, Resolution, event, to_player
from engine.gameover import game_over_events
from engine.outcome import Outcome, Termination, Winner
from engine.r004.night import identity_label, r004_bookkeeping
from engine.roles import R004_ROLES, Cause, GroupId
from engine.state import GameState, Phase
from engine.working import Work

NO_EXECUTION = "无人出局"


def execute(
    state: GameState, chosen: str | None, day: int, tied: frozenset[str] | set[str] | None
) -> Resolution:
    w = Work(state)
    if chosen is not None and tied and state.flags.r004_mayor_target_must_be_tied and chosen not in tied:
        w.emit(
            event(
                EventKind.NOTE,
                JUDGE,
                f"威权持有者的投票对象 {chosen} 不在平票者之中：无人出局（AMB-60）",
                amb="AMB-60",
            )
        )
        chosen = None
    if chosen is None:
        w.emit(event(EventKind.NO_EXECUTION, PUBLIC, NO_EXECUTION, day=day))
        return Resolution(w.freeze(), tuple(w.events))
    require_alive(state, chosen, "被票出")
    goes, cause = chosen, Cause.VOTE
    if state.lovers and chosen in state.lovers:
        other = state.lovers[1] if chosen == state.lovers[0] else state.lovers[0]
        if state.is_alive(other):
            goes, cause = other, Cause.LOVER
    return eliminate_in_order(w, [(goes, cause)], day, voted=chosen)


def eliminate_in_order(
    w: Work, outs: list[tuple[str, Cause]], day: int, *, voted: str | None = None
) -> Resolution:
    """Eliminate R004 roles one by one with a win check after each (§e.3); stop once won (AMB-81)."""
    outcome: Outcome | None = None
    for name, cause in outs:
        if outcome is not None and w.flags.r004_stop_when_won:
            break
        if not w.eliminate(name, cause, day):
            continue
        r004_bookkeeping(w, name, cause, day)
        red = cause is Cause.RED_CARD
        line = f"{name} 红牌罚下出局" if red else f"{name} 出局"
        if w.flags.r004_reveal_identity_on_elimination:
            line += f"，身份：{identity_label(w.p(name))}"
        data: dict[str, object] = {"out": name, "cause": cause.value}
        if voted is not None and not red:
            data["voted"] = voted
        w.emit(event(EventKind.RED_CARD if red else EventKind.EXECUTION, PUBLIC, line, **data))
        eligible = name in w.lastwords
        w.emit(
            event(
                EventKind.OUT_NOTICE,
                to_player(name),
                f"你已出局，{'可以留下遗言（下一讨论日开始前提交）' if eligible else '不能留下遗言'}。",
                last_words=eligible,
            )
        )
        if w.authority_pending == name:
            w.emit(
                event(
                    EventKind.AUTHORITY,
                    to_player(name),
                    "你持有<威权>，出局时须选择一名其他角色获得<威权>（下一讨论日开始前联系导演）",
                    pending=True,
                )
            )
        if outcome is None:
            outcome = w.outcome_now()
    if outcome is not None:
        w.end(outcome)
        st = w.freeze()
        return Resolution(st, (*w.events, *game_over_events(st)), tuple(w.out))
    return Resolution(w.freeze(), tuple(w.events), tuple(w.out))


def resolve_red_cards(state: GameState, names: Iterable[str], *, day: int) -> Resolution:
    """R004 红牌罚下, executed after the vote: no lover swap, no last words (AMB-77 slot), win check each."""
    require_day(state, day, "出示红牌")
    outs = []
    for name in names:
        require_alive(state, name, "被红牌罚下")
        outs.append((name, Cause.RED_CARD))
    return eliminate_in_order(Work(state), outs, day)


def pass_authority(state: GameState, to: str | None, *, seed: int | str | None = None) -> Resolution:
    """The eliminated 威权 holder names the new holder (``to``), or ``to=None``: the director draws one
    uniformly at random from the living roles other than the passer, with ``seed`` (AMB-61)."""
    passer = state.authority_pending
    if passer is None:
        raise IllegalActionError("现在没有需要移交的<威权>（威权持有者没有出局）", rule="R004 市长·威权")
    flags = state.flags

    def eligible(name: str) -> bool:
        if name not in {q.name for q in state.players}:
            return False
        p = state.player(name)
        if name == passer:
            return False
        if p.alive:
            return True
        return flags.r004_authority_to_out_tonight and p.out_round == state.round

    w = Work(state)
    if to is None:
        if seed is None:
            raise EngineError("随机指定<威权>需要一个种子（记录下来，抽签才能重现）")
        pool = [p.name for p in state.players if eligible(p.name)]
        to = random.Random(seed).choice(pool) if pool else None
        w.emit(
            event(
                EventKind.NOTE,
                JUDGE,
                f"{passer} 未交出<威权>：随机指定 {to}（种子 {seed}）",
                holder=to,
                seed=seed,
                amb="AMB-61",
            )
        )
    elif not eligible(to):
        if to not in {p.name for p in state.players}:
            why = f"{to} 不是本局的角色"
        else:
            why = "不能交给自己" if to == passer else f"{to} 已出局，不能获得<威权>"
        raise IllegalActionError(
            f"{passer} 移交<威权>给 {to} 无效：{why}；请在下一讨论日开始前另选一名未出局的角色", rule="AMB-61"
        )
    w.set(authority_holder=to, authority_pending=None)
    if to is not None:
        w.emit(event(EventKind.AUTHORITY, to_player(to), "你获得<威权>", holder=to, passer=passer))
    return Resolution(w.freeze(), tuple(w.events))


def surrender_group(state: GameState) -> tuple[str, ...]:
    """Who must agree to an R004 surrender (AMB-83): the killers' group, out ones included."""
    if state.flags.r004_surrender_requires == "all_killer_camp":
        return tuple(p.name for p in state.players if R004_ROLES[p.role].camp.value == "杀手阵营")
    return state.group_members(GroupId.KILLERS)


def surrender(state: GameState, agreeing: Iterable[str]) -> Resolution:
    """R004 投降: if every role of the killers' group (AMB-83) agrees, the killer camp loses."""
    agreed = set(agreeing)
    missing = [n for n in surrender_group(state) if n not in agreed]
    if missing:
        raise IllegalActionError(
            f"投降须杀手组每个角色（含已出局的）都同意；还缺：{'、'.join(missing)}",
            rule="R004 投降 / AMB-83",
        )
    st = replace(state, outcome=Outcome(Termination.SURRENDER, Winner.CIVILIAN_CAMP), phase=Phase.OVER)
    return Resolution(st, tuple(game_over_events(st)))


def send_off(state: GameState, name: str, day: int) -> Resolution:
    """判作立即出局 (AMB-33) in an R004 game: by name, then the R004 bookkeeping and a win check."""
    w = Work(state)
    outcomes: list[Outcome] = []
    w.eliminate(name, Cause.SENT_OFF, day)
    sequential_check(w, outcomes)
    text = f"{name} 违反规则（以站内短消息、QQ等记录作为证据），判作立即出局"
    w.emit(event(EventKind.SENT_OFF, PUBLIC, text, out=name, revealed={}, amb="AMB-33"))
    r004_bookkeeping(w, name, Cause.SENT_OFF, day)
    found = w.outcome_now()
    if found:
        outcomes.append(found)
    return finish(w, outcomes)
