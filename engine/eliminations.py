"""Day-side rules that belong to roles, and the judge's game-ending actions.

The day tally (engine/day*.py) decides from the posts whether the vote picks X, ends in a tie, or picks
nobody; it then calls these functions for what follows — who actually goes out, what is revealed, and
the win check:

* :func:`resolve_execution` — guardian substitution (AMB-50, AMB-43), 双杀票数 (AMB-40, with
  :func:`double_kill_pair` / :func:`double_kill_applies`), the R004 lover swap, the 威权 tie-break target
  (AMB-60) and the identity line (“X 被处决，身份：杀手”; R004 none, AMB-64);
* :func:`resolve_drowning` (R001 §四.2, name only), :func:`send_off` (AMB-33),
  :func:`resolve_red_cards` (R004: no swap, no last words, AMB-77);
* :func:`close_day` — R001/R000: the one batch win check of the day (AMB-06); then the next night;
* :func:`resolve_day` — all of the above in the rules' order in one call;
* :func:`pass_authority` (R004 威权, AMB-61), :func:`concede` (R001 §三.3), :func:`surrender`
  (R004, AMB-83), :func:`end_game` (R001 §三.4);
* counters the day side keeps in the state: :func:`add_strike`, :func:`record_proxy_vote`,
  :func:`add_yellow_card`.

Every function takes ``day`` (where it matters) and refuses a day that is not the current one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial

from engine.errors import EngineError, GameOverError, IllegalActionError
from engine.events import JUDGE, PUBLIC, Event, EventKind, Resolution, event, to_player
from engine.guardians import GUARDIAN_ROLES, effective_protectors
from engine.night_r001 import reveal_label
from engine.night_r004 import identity_label, r004_bookkeeping
from engine.outcome import Outcome, Termination, Winner, evaluate_outcome, game_over_events
from engine.roles import R001_ROLES, R004_ROLES, Cause, GroupId, RoleId
from engine.state import GameState, Phase, frozen_map
from engine.working import Work

NO_EXECUTION_R001 = "平安夜，无人票死"
NO_EXECUTION_R004 = "无人出局"
PROXY_VOTE_LIMIT_R001 = 2  # R001 §四.1.5: 每位玩家只能申请两次代投 (AMB-32: per game)


def _require_day(state: GameState, day: int, what: str) -> None:
    if state.outcome is not None:
        raise GameOverError(
            f"the game is over ({state.outcome.text}); no {what}", rule="R001 §三 / R004 胜负判定"
        )
    if state.phase is not Phase.DAY or state.round != day:
        now = f"{state.phase.value} {state.round}"
        raise IllegalActionError(f"{what} belongs to day {day}, but the game is at {now}", rule="timetable")


def _alive_or_raise(state: GameState, name: str, what: str) -> None:
    if not state.player(name).alive:
        raise IllegalActionError(
            f"{name!r} is already out and cannot be {what}", rule="R004 出局 / R001 §四.5"
        )


# ---- guardians on the day -------------------------------------------------------------------------


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


def double_kill_pair(state: GameState, day: int) -> tuple[str, str] | None:
    """The single guardian's (guardian, protégé) of round ``day``; the first pair in a double game."""
    pairs = double_kill_pairs(state, day)
    return pairs[0] if pairs else None


def double_kill_applies(state: GameState, day: int, tied: frozenset[str] | set[str] | None) -> bool:
    """True if ``tied`` (the original count's top tie) is exactly a guardian and his protégé (AMB-40)."""
    if not tied or state.flags.guardian_double_kill_rule == "off":
        return False
    return any(frozenset(pair) == frozenset(tied) for pair in double_kill_pairs(state, day))


# ---- executions -------------------------------------------------------------------------------------


def resolve_execution(
    state: GameState,
    chosen: str | None,
    *,
    day: int,
    tied: frozenset[str] | set[str] | None = None,
) -> Resolution:
    """What follows the vote of ``day``: ``chosen`` is the player the vote picks (None: nobody).

    R001/R000: ``tied`` is the original count's top tie; if it is exactly a guardian and his protégé
    (AMB-40) both die with ``chosen=None``. Otherwise guardians substitute (AMB-50, AMB-43) and the
    executed player's identity is revealed. The win check waits for :func:`close_day` (per batch, AMB-06)
    unless the flag asks for sequential checks.

    R004: in a tie pass ``tied`` and the 威权 holder's target as ``chosen`` (AMB-60 may void it); a lover
    whose partner is alive is swapped; the win check runs at once and may end the game.
    """
    _require_day(state, day, "an execution")
    if state.family == "r004":
        return _execution_r004(state, chosen, day, tied)
    return _execution_r001(state, chosen, day, tied)


def _sequential_check(w: Work, outcomes: list[Outcome]) -> None:
    if w.flags.r001_win_check == "sequential" and not outcomes:
        found = evaluate_outcome(w)
        if found:
            outcomes.append(found)


def _finish(w: Work, outcomes: list[Outcome]) -> Resolution:
    if outcomes:
        w.end(outcomes[0])
        st = w.freeze()
        return Resolution(st, (*w.events, *game_over_events(st)), tuple(w.out))
    return Resolution(w.freeze(), tuple(w.events), tuple(w.out))


def _execution_r001(
    state: GameState, chosen: str | None, day: int, tied: frozenset[str] | set[str] | None
) -> Resolution:
    w = Work(state)
    outcomes: list[Outcome] = []

    def die(name: str, cause: Cause) -> None:
        if w.eliminate(name, cause, day):
            _sequential_check(w, outcomes)

    if chosen is None:
        pair = next(
            (p for p in double_kill_pairs(state, day) if tied and frozenset(p) == frozenset(tied)), None
        )
        if pair is not None and state.flags.guardian_double_kill_rule != "off":
            g, protege = pair
            lp = reveal_label(state.player(protege), state)
            lg = R001_ROLES[state.player(g).role].reveal_label  # executed directly: 守护神/警神/匪神
            die(protege, Cause.DOUBLE_KILL)
            die(g, Cause.DOUBLE_KILL)
            w.emit(
                event(
                    EventKind.DOUBLE_KILL,
                    PUBLIC,
                    f"双杀票数：守护人与被守护人二者同死\n{protege} 被处决，身份：{lp}\n"
                    f"{g} 被处决，身份：{lg}",
                    executed=(protege, g),
                    revealed={protege: lp, g: lg},
                    amb="AMB-40",
                )
            )
            _police_last_words(w, protege)
            return _finish(w, outcomes)
        w.emit(event(EventKind.NO_EXECUTION, PUBLIC, NO_EXECUTION_R001, day=day))
        return _finish(w, outcomes)

    _alive_or_raise(state, chosen, "executed")
    protectors = (
        effective_protectors(state, state.protections, chosen) if state.protection_round == day else []
    )
    if protectors:
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
        return _finish(w, outcomes)
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
    return _finish(w, outcomes)


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


def _execution_r004(
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
        w.emit(event(EventKind.NO_EXECUTION, PUBLIC, NO_EXECUTION_R004, day=day))
        return Resolution(w.freeze(), tuple(w.events))
    _alive_or_raise(state, chosen, "voted out")
    goes, cause = chosen, Cause.VOTE
    if state.lovers and chosen in state.lovers:
        other = state.lovers[1] if chosen == state.lovers[0] else state.lovers[0]
        if state.is_alive(other):
            goes, cause = other, Cause.LOVER
    return _r004_out(w, [(goes, cause)], day, voted=chosen)


def _r004_out(w: Work, outs: list[tuple[str, Cause]], day: int, *, voted: str | None = None) -> Resolution:
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


# ---- drownings, sending off, red cards ------------------------------------------------------------


def resolve_drowning(state: GameState, names: Iterable[str], *, day: int) -> Resolution:
    """R001 §四.2: drowned players go out, announced by name only (identity secret until the end).

    A player already executed in this day's resolution is skipped: 同时满足被票杀和淹死情况，按照被票杀宣布.
    """
    if state.family != "r001":
        raise IllegalActionError(
            "drowning (淹死) is an R001/R000 rule; R004 uses yellow and red cards", rule="R004"
        )
    _require_day(state, day, "a drowning")
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
            raise IllegalActionError(f"{name!r} is already dead and cannot drown", rule="R001 §四.2")
        w.eliminate(name, Cause.DROWNED, day)
        _sequential_check(w, outcomes)
        w.emit(event(EventKind.DROWNING, PUBLIC, f"{name} 淹死", drowned=name))
    return _finish(w, outcomes)


def send_off(state: GameState, name: str, *, day: int) -> Resolution:
    """R001 §四.10 判作立即出局 (AMB-33): out at once, by name, no identity, in the current batch."""
    if state.outcome is not None:
        raise GameOverError(f"the game is over ({state.outcome.text})")
    if state.round != day:
        raise IllegalActionError(
            f"sending off belongs to round {day}, but the game is at round {state.round}"
        )
    _alive_or_raise(state, name, "sent off")
    w = Work(state)
    outcomes: list[Outcome] = []
    w.eliminate(name, Cause.SENT_OFF, day)
    _sequential_check(w, outcomes)
    text = f"{name} 违反规则（以站内短消息、QQ等记录作为证据），判作立即出局"
    revealed: dict[str, str] = {}
    if state.flags.r001_sent_off_reveals_identity and state.family == "r001":
        label = reveal_label(state.player(name), state)
        text += f"，身份：{label}"
        revealed[name] = label
    w.emit(event(EventKind.SENT_OFF, PUBLIC, text, out=name, revealed=revealed, amb="AMB-33"))
    if state.family == "r004":
        r004_bookkeeping(w, name, Cause.SENT_OFF, day)
        found = w.outcome_now()
        if found:
            outcomes.append(found)
    return _finish(w, outcomes)


def resolve_red_cards(state: GameState, names: Iterable[str], *, day: int) -> Resolution:
    """R004 红牌罚下, executed after the vote: no lover swap, no last words (AMB-77 slot), win check each."""
    if state.family != "r004":
        raise IllegalActionError("red cards (红牌) are an R004 rule", rule="R004 替补")
    _require_day(state, day, "a red card")
    outs = []
    for name in names:
        _alive_or_raise(state, name, "red-carded")
        outs.append((name, Cause.RED_CARD))
    return _r004_out(Work(state), outs, day)


# ---- closing a day ---------------------------------------------------------------------------------


def close_day(state: GameState, *, day: int) -> Resolution:
    """End day ``day``: R001/R000 run the day's one batch win check (AMB-06); then night ``day + 1``."""
    _require_day(state, day, "closing the day")
    w = Work(state)
    if state.family == "r001" and state.flags.r001_win_check == "per_batch":
        found = evaluate_outcome(state)
        if found is not None:
            w.end(found)
            st = w.freeze()
            return Resolution(st, tuple(game_over_events(st)))
    if state.family == "r004" and state.authority_pending:
        w.emit(
            event(
                EventKind.NOTE,
                JUDGE,
                f"{state.authority_pending} 须在下一讨论日开始前交出<威权>，否则随机指定（pass_authority）",
                amb="AMB-61",
            )
        )
    w.set(round=day + 1, phase=Phase.NIGHT, extra_check_round=None)
    return Resolution(w.freeze(), tuple(w.events))


def resolve_day(
    state: GameState,
    *,
    day: int,
    executed: str | None = None,
    tied: frozenset[str] | set[str] | None = None,
    drowned: Iterable[str] = (),
    sent_off: Iterable[str] = (),
    red_cards: Iterable[str] = (),
    close: bool = True,
) -> Resolution:
    """The whole day resolution in the rules' order, as one call.

    R001/R000: execution (or double kill / no execution), then drownings, then sendings-off, then (if
    ``close``) the batch win check. R004: the vote elimination, then each red card (win check after each).
    """
    events: list[Event] = []
    out: list[str] = []
    res = resolve_execution(state, executed, day=day, tied=tied)
    events += res.events
    out += res.out
    st = res.state
    steps: list[Callable[[GameState], Resolution]] = []
    if state.family == "r001":
        drowned = list(drowned)
        if drowned:
            steps.append(lambda s: resolve_drowning(s, drowned, day=day))
        for name in sent_off:
            steps.append(partial(send_off, name=name, day=day))
    else:
        reds = list(red_cards)
        if reds:
            steps.append(lambda s: resolve_red_cards(s, reds, day=day))
    for step in steps:
        if st.outcome is not None:
            break
        res = step(st)
        events += res.events
        out += res.out
        st = res.state
    if close and st.outcome is None:
        res = close_day(st, day=day)
        events += res.events
        st = res.state
    return Resolution(st, tuple(events), tuple(out))


# ---- 威权 ---------------------------------------------------------------------------------------------


def pass_authority(state: GameState, to: str | None, *, seed: int | str | None = None) -> Resolution:
    """The eliminated 威权 holder names the new holder (``to``), or ``to=None``: the director draws one
    uniformly at random from the living roles other than the passer, with ``seed`` (AMB-61)."""
    if state.family != "r004":
        raise IllegalActionError("威权 is an R004 rule", rule="R004 市长")
    passer = state.authority_pending
    if passer is None:
        raise IllegalActionError("nobody has to pass 威权 now (the holder is not out)", rule="R004 市长·威权")
    flags = state.flags

    def eligible(name: str) -> bool:
        p = state.player(name)
        if name == passer:
            return False
        if p.alive:
            return True
        return flags.r004_authority_to_out_tonight and p.out_round == state.round

    w = Work(state)
    if to is None:
        if seed is None:
            raise EngineError("a random 威权 draw needs a seed (record it so the draw can be replayed)")
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
        why = "the passer himself" if to == passer else "out"
        raise IllegalActionError(
            f"{to!r} cannot receive 威权: {why}; choose another role before the deadline", rule="AMB-61"
        )
    w.set(authority_holder=to, authority_pending=None)
    if to is not None:
        w.emit(event(EventKind.AUTHORITY, to_player(to), "你获得<威权>", holder=to, passer=passer))
    return Resolution(w.freeze(), tuple(w.events))


# ---- judge actions that end the game -------------------------------------------------------------------


def concede(state: GameState, side: str) -> Resolution:
    """R001 §三.3: the bandits (``"bandits"``) or the police (``"police"``) concede; the judge has verified.

    The other side wins. R004 has no concession (use :func:`surrender`).
    """
    if state.outcome is not None:
        raise GameOverError(f"the game is over ({state.outcome.text})")
    if state.family != "r001":
        raise IllegalActionError(
            "in R004 only the killer camp can surrender (use surrender)", rule="R004 投降"
        )
    if side not in ("bandits", "police"):
        raise IllegalActionError(f"side must be 'bandits' or 'police', not {side!r}", rule="R001 §三.3")
    winner = Winner.POLICE if side == "bandits" else Winner.BANDITS
    st = replace(state, outcome=Outcome(Termination.CONCESSION, winner), phase=Phase.OVER)
    return Resolution(st, tuple(game_over_events(st)))


def surrender_group(state: GameState) -> tuple[str, ...]:
    """Who must agree to an R004 surrender (AMB-83): the killers' group, out ones included."""
    if state.flags.r004_surrender_requires == "all_killer_camp":
        return tuple(p.name for p in state.players if R004_ROLES[p.role].camp.value == "杀手阵营")
    return state.group_members(GroupId.KILLERS)


def surrender(state: GameState, agreeing: Iterable[str]) -> Resolution:
    """R004 投降: if every role of the killers' group (AMB-83) agrees, the killer camp loses."""
    if state.outcome is not None:
        raise GameOverError(f"the game is over ({state.outcome.text})")
    if state.family != "r004":
        raise IllegalActionError("surrender (投降) is an R004 rule; R001 uses concede", rule="R001 §三.3")
    agreed = set(agreeing)
    missing = [n for n in surrender_group(state) if n not in agreed]
    if missing:
        raise IllegalActionError(
            "surrender needs every role of the killers' group, out ones included; "
            f"missing: {', '.join(missing)}",
            rule="R004 投降 / AMB-83",
        )
    st = replace(state, outcome=Outcome(Termination.SURRENDER, Winner.CIVILIAN_CAMP), phase=Phase.OVER)
    return Resolution(st, tuple(game_over_events(st)))


def end_game(state: GameState, reason: str, winner: Winner | None = None) -> Resolution:
    """R001 §三.4: the judge ends the game for special reasons (``winner`` None: no winner)."""
    if state.outcome is not None:
        raise GameOverError(f"the game is over ({state.outcome.text})")
    st = replace(state, outcome=Outcome(Termination.JUDGE_ENDED, winner), phase=Phase.OVER)
    return Resolution(
        st, (event(EventKind.NOTE, JUDGE, f"法官宣布提前结束：{reason}"), *game_over_events(st))
    )


# ---- counters the day side keeps ------------------------------------------------------------------------


def add_strike(state: GameState, name: str, n: int = 1) -> GameState:
    """R001 vote-attendance strike (淹水): no vote, an edited vote, a failed revote (AMB-22)."""
    state.player(name)
    counts = dict(state.strikes)
    counts[name] = counts.get(name, 0) + n
    return replace(state, strikes=frozen_map(counts))


def record_proxy_vote(state: GameState, name: str) -> GameState:
    """A proxy vote (代投) for ``name``; R001 allows two per player per game (§四.1.5, AMB-32)."""
    if not state.player(name).alive:
        raise IllegalActionError(
            f"{name!r} is out and cannot vote, by proxy or otherwise", rule="R001 §四.5.1"
        )
    used = state.proxy_votes_used_of(name)
    if state.family == "r001" and used >= PROXY_VOTE_LIMIT_R001:
        raise IllegalActionError(
            f"{name!r} has used both proxy votes of the game (每位玩家只能申请两次代投)", rule="R001 §四.1.5"
        )
    counts = dict(state.proxy_votes_used)
    counts[name] = used + 1
    return replace(state, proxy_votes_used=frozen_map(counts))


def add_yellow_card(state: GameState, name: str) -> GameState:
    """R004 yellow card (未回复投票帖). Turning yellows into a red card is the day side's (AMB-71)."""
    state.player(name)
    counts = dict(state.yellow_cards)
    counts[name] = counts.get(name, 0) + 1
    return replace(state, yellow_cards=frozen_map(counts))


def guardians_of(state: GameState) -> tuple[str, ...]:
    return tuple(p.name for p in state.players if p.role in GUARDIAN_ROLES)
