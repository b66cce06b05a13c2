"""Applying a day to the game state, and the judge's game-ending actions (the core; rules in the rule set).

The day judgement (engine/day) decides from the posts whether the vote picks X, ends in a tie, or picks
nobody, and keeps the day's counters (strikes, proxy votes used, yellow cards). These functions apply
that to the secret state; what differs between rule sets is the rule set's hooks (engine/ruleset.py):

* :func:`resolve_execution` — the vote's elimination (guardian substitution, 双杀票数, the R004 lover
  swap, the 威权 tie-break, the identity line);
* :func:`resolve_drowning` (R001 §四.2), :func:`send_off` (AMB-33), :func:`resolve_red_cards` (R004);
* :func:`close_day` — the rule set's per-batch win check (AMB-06); then the next night;
* :func:`apply_day` — all of the above in the rules' order in one call, from a judged
  :class:`~engine.day.model.DayResult` (or from explicit decisions), and the day's counters into the state;
* :func:`pass_authority` (R004 威权), :func:`concede` (R001 §三.3), :func:`surrender` (R004),
  :func:`end_game` (R001 §三.4);
* counters kept in the state: :func:`add_strike`, :func:`record_proxy_vote`, :func:`add_yellow_card`.

Every function takes ``day`` (where it matters) and refuses a day that is not the current one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from engine.day.model import DayResult, OutcomeKind
from engine.errors import GameOverError, IllegalActionError
from engine.events import JUDGE, Event, EventKind, Resolution, event
from engine.flags_day import DayFlags
from engine.gameover import game_over_events
from engine.lastacts import fire_armed
from engine.outcome import Outcome, Termination, Winner
from engine.ruleset import evaluate_outcome, rules_of
from engine.state import GameState, Phase, frozen_map
from engine.working import Work


def require_day(state: GameState, day: int, what: str) -> None:
    """Refuse ``what`` unless the game is at day ``day`` and not over."""
    if state.outcome is not None:
        raise GameOverError(
            f"本局已结束（{state.outcome.text}），不能再{what}", rule="R001 §三 / R004 胜负判定"
        )
    if state.phase is not Phase.DAY or state.round != day:
        now = f"第{state.round}日" if state.phase is Phase.DAY else f"第{state.round}夜"
        if state.phase is Phase.OVER:
            now = "游戏结束"
        raise IllegalActionError(f"{what}属于第{day}日，但游戏现在处于{now}", rule="时间表")


def require_alive(state: GameState, name: str, what: str) -> None:
    if not state.player(name).alive:
        raise IllegalActionError(f"{name} 已出局，不能{what}", rule="R004 出局 / R001 §四.5")


def require_not_over(state: GameState) -> None:
    if state.outcome is not None:
        raise GameOverError(f"本局已结束（{state.outcome.text}）")


def sequential_check(w: Work, outcomes: list[Outcome]) -> None:
    """Under ``r001_win_check = "sequential"``: a win check after each elimination."""
    if w.flags.r001_win_check == "sequential" and not outcomes:
        found = evaluate_outcome(w)
        if found:
            outcomes.append(found)


def finish(w: Work, outcomes: list[Outcome]) -> Resolution:
    """Freeze a day step's scratch copy; the first outcome found ends the game."""
    if outcomes:
        w.end(outcomes[0])
        st = w.freeze()
        return Resolution(st, (*w.events, *game_over_events(st)), tuple(w.out))
    return Resolution(w.freeze(), tuple(w.events), tuple(w.out))


# ---- guardians on the day -------------------------------------------------------------------------


def double_kill_pairs(state: GameState, day: int) -> tuple[tuple[str, str], ...]:
    """(guardian, protégé) for every living guardian whose protection of round ``day`` works now.

    The tally uses it to spot an original count whose top tie is exactly such a pair (AMB-40).
    """
    return rules_of(state).double_kill_pairs(state, day)


def double_kill_pair(state: GameState, day: int) -> tuple[str, str] | None:
    """The single guardian's (guardian, protégé) of round ``day``; the first pair in a double game."""
    pairs = double_kill_pairs(state, day)
    return pairs[0] if pairs else None


def double_kill_applies(state: GameState, day: int, tied: frozenset[str] | set[str] | None) -> bool:
    """True if ``tied`` (the original count's top tie) is exactly a guardian and his protégé (AMB-40)."""
    if not tied or state.flags.guardian_double_kill_rule == "off":
        return False
    return any(frozenset(pair) == frozenset(tied) for pair in double_kill_pairs(state, day))


# ---- the day's steps ------------------------------------------------------------------------------


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
    require_day(state, day, "处决")
    rules = rules_of(state)
    res = rules.execute(state, chosen, day, tied)
    return fire_armed(res, check_win=rules.win_check_timing == "per_elimination")


def resolve_drowning(state: GameState, names: Iterable[str], *, day: int) -> Resolution:
    """R001 §四.2: drowned players go out, announced by name only (identity secret until the end)."""
    return rules_of(state).drown(state, names, day)


def send_off(state: GameState, name: str, *, day: int) -> Resolution:
    """R001 §四.10 判作立即出局 (AMB-33): out at once, by name, in the current batch."""
    require_not_over(state)
    if state.round != day:
        raise IllegalActionError(f"罚下属于第{day}轮，但游戏现在处于第{state.round}轮")
    require_alive(state, name, "被罚下")
    return rules_of(state).send_off(state, name, day)


def resolve_red_cards(state: GameState, names: Iterable[str], *, day: int) -> Resolution:
    """R004 红牌罚下, executed after the vote: no lover swap, no last words (AMB-77 slot), win check each."""
    return rules_of(state).red_cards(state, names, day)


def close_day(state: GameState, *, day: int) -> Resolution:
    """End day ``day``: a per-batch win check (R001/R000, AMB-06); then night ``day + 1``."""
    require_day(state, day, "结算本日")
    rules = rules_of(state)
    w = Work(state)
    if rules.win_check_timing == "per_batch" and state.flags.r001_win_check == "per_batch":
        found = rules.win_check(state)
        if found is not None:
            w.end(found)
            st = w.freeze()
            return Resolution(st, tuple(game_over_events(st)))
    w.emit(*rules.close_day_notes(state, day))
    w.set(round=day + 1, phase=Phase.NIGHT, extra_check_round=None)
    return Resolution(w.freeze(), tuple(w.events))


def day_decisions(result: DayResult) -> tuple[str | None, frozenset[str] | None, list[str], list[str]]:
    """What a judged day decides for the state: (executed, tied, drowned, red-carded).

    ``tied`` is the original count's top tie when it matters (a 威权 tie-break, a double kill).
    """
    outcome = result.outcome
    executed = None
    tied: frozenset[str] | None = None
    if outcome.kind in (OutcomeKind.EXECUTE, OutcomeKind.AUTHORITY) and outcome.out:
        executed = outcome.out[0]
    if outcome.kind is OutcomeKind.AUTHORITY:
        top = max((line.count for line in result.final_tally), default=0)
        tied = frozenset(line.target for line in result.final_tally if line.count == top)
    if outcome.kind is OutcomeKind.DOUBLE_EXECUTE:
        tied = frozenset(outcome.out)
    red = [c.player for c in result.cards if c.color.value == "red"]
    drowned = [d for d in result.drowned_names if d != executed]
    return executed, (tied if tied and len(tied) > 1 else None), drowned, red


def apply_day(
    state: GameState,
    result: DayResult | None = None,
    *,
    day: int | None = None,
    executed: str | None = None,
    tied: frozenset[str] | set[str] | None = None,
    drowned: Iterable[str] = (),
    sent_off: Iterable[str] = (),
    red_cards: Iterable[str] = (),
    close: bool = True,
) -> Resolution:
    """Apply a day to the state in the rules' order, as one call.

    With ``result`` (a judged day, :func:`engine.judgement.judge_day`), the vote's decisions come from it and
    the day's counters (strikes, proxy votes used, yellow cards) are written into the state, so the
    state owns them from then on. ``sent_off`` and ``red_cards`` add the judges' own decisions of the day.
    Without ``result``, pass the decisions (``executed``, ``tied``, ``drowned``) and ``day``.

    R001/R000: execution (or double kill / no execution), then drownings, then sendings-off, then (if
    ``close``) the batch win check. R004: the vote elimination, then each red card (win check after each).
    """
    reds = list(red_cards)
    if result is not None:
        day = result.input.day
        executed, tied, drowned_list, result_reds = day_decisions(result)
        drowned = drowned_list
        reds = result_reds + [n for n in reds if n not in result_reds]
        state = with_day_counters(state, result)
    if day is None:
        raise ValueError("apply_day needs a judged day (result) or the day number")
    events: list[Event] = []
    out: list[str] = []
    res = resolve_execution(state, executed, day=day, tied=tied)
    events += res.events
    out += res.out
    st = res.state
    for step in rules_of(state).day_steps(day, list(drowned), list(sent_off), reds):
        if st.outcome is not None:
            break
        res = fire_armed(step(st), check_win=rules_of(state).win_check_timing == "per_elimination")
        events += res.events
        out += res.out
        st = res.state
    if close and st.outcome is None:
        res = close_day(st, day=day)
        events += res.events
        st = res.state
    return Resolution(st, tuple(events), tuple(out))


# ---- 威权, concession, surrender, the judge's end -----------------------------------------------------


def pass_authority(state: GameState, to: str | None, *, seed: int | str | None = None) -> Resolution:
    """The eliminated 威权 holder names the new holder (``to``), or ``to=None``: the director draws one
    uniformly at random from the living roles other than the passer, with ``seed`` (AMB-61)."""
    return rules_of(state).pass_authority(state, to, seed)


def concede(state: GameState, side: str) -> Resolution:
    """R001 §三.3: the bandits (``"bandits"``) or the police (``"police"``) concede; the other side wins."""
    require_not_over(state)
    return rules_of(state).concede(state, side)


def surrender_group(state: GameState) -> tuple[str, ...]:
    """Who must agree to an R004 surrender (AMB-83)."""
    return rules_of(state).surrender_group(state)


def surrender(state: GameState, agreeing: Iterable[str]) -> Resolution:
    """R004 投降: if every role of the killers' group (AMB-83) agrees, the killer camp loses."""
    require_not_over(state)
    return rules_of(state).surrender(state, agreeing)


def end_game(state: GameState, reason: str, winner: Winner | None = None) -> Resolution:
    """R001 §三.4: the judge ends the game for special reasons (``winner`` None: no winner)."""
    require_not_over(state)
    st = replace(state, outcome=Outcome(Termination.JUDGE_ENDED, winner), phase=Phase.OVER)
    return Resolution(
        st, (event(EventKind.NOTE, JUDGE, f"法官宣布提前结束：{reason}"), *game_over_events(st))
    )


# ---- counters the state keeps (the day's application writes them) ----------------------------------


def add_strike(state: GameState, name: str, n: int = 1) -> GameState:
    """R001 vote-attendance strike (淹水): no vote, an edited vote, a failed revote (AMB-22)."""
    state.player(name)
    counts = dict(state.strikes)
    counts[name] = counts.get(name, 0) + n
    return replace(state, strikes=frozen_map(counts))


def record_proxy_vote(state: GameState, name: str, *, flags: DayFlags | None = None) -> GameState:
    """A proxy vote (代投) for ``name``, within the rule set's per-game limit (R001 §四.1.5, AMB-32)."""
    if not state.player(name).alive:
        raise IllegalActionError(f"{name} 已出局，不能投票，代投也不行", rule="R001 §四.5.1")
    used = state.proxy_votes_used_of(name)
    limit = rules_of(state).proxy_vote_limit(flags or DayFlags())
    if limit is not None and used >= limit:
        raise IllegalActionError(f"{name} 本局的代投次数已用完（每局限{limit}次）", rule="R001 §四.1.5")
    counts = dict(state.proxy_votes_used)
    counts[name] = used + 1
    return replace(state, proxy_votes_used=frozen_map(counts))


def add_yellow_card(state: GameState, name: str) -> GameState:
    """R004 yellow card (未回复投票帖). Turning yellows into a red card is the day side's (AMB-71)."""
    state.player(name)
    counts = dict(state.yellow_cards)
    counts[name] = counts.get(name, 0) + 1
    return replace(state, yellow_cards=frozen_map(counts))


def with_day_counters(state: GameState, result: DayResult) -> GameState:
    """The state with the judged day's counters: strikes, proxy votes used, yellow cards, attendance."""
    return replace(
        state,
        strikes=frozen_map(result.strikes_after),
        proxy_votes_used=frozen_map(result.proxy_used_after),
        yellow_cards=frozen_map(result.yellow_totals),
        discussion_deficient=tuple(sorted(result.discussion_deficient)),
    )
