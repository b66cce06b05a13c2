"""Night rules of the r001 family: R001 (12-player 鬼毒), R000-GP, R000-G1, R000-G2.

Resolution order (rules.md §d.1, §d.2), one batch:

0. guardians: record legal protections; voluntary/forced skips; dereliction deaths (AMB-41, AMB-45);
1. kill: the victim dies, unless effective protections make the guardian(s) die instead (AMB-43);
   the poison hit ⇒ the pledge dies with it (AMB-12); the bandit-guardian killed directly ⇒ the
   police-guardian is converted and his protection of this round is void (R000-G2 rule 6);
2. possession (先杀人后附体; only if the ghost still lives, AMB-09): civilian → bandit; police → void
   but used; poison → ghost and poison die; same target as the kill / a bandit / oneself / dead →
   void (AMB-08, AMB-10);
3. check on this round's truth (after 1–2); the poison checked ⇒ it is told, and one extra check is owed
   (resolved later by :func:`resolve_extra_check`, AMB-15);
4. the batch win check (AMB-06), and the case post: dead list + kill text, never identities.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.actions import ACTION_KINDS, Check, Kill, Night, NightAction, Protect
from engine.errors import IllegalActionError, Refusal
from engine.events import JUDGE, PUBLIC, EventKind, Resolution, event, to_group, to_player
from engine.gameover import game_over_events
from engine.outcome import Outcome
from engine.r001.guardians import (
    GUARDIAN_ROLES,
    effective_protectors,
    legal_protect_targets,
    protected_before,
)
from engine.r001.outcome import r001_outcome
from engine.roles import R001_ROLES, ActionKind, Cause, GroupId, RoleId
from engine.state import GameState, Phase, Player, frozen_map
from engine.working import Work

RULE_POSSESSION = "R001 §五 鬼匪"
RULE_GUARDIAN = "R000 守护规则"

POSSESSION_USED = "附体已使用"
POLICE_POSSESSED = "你方人员遭遇附体，但未生效"
POSSESSION_OK = "附体成功"
POSSESSION_VOID = "附体未生效"
POISON_CHECKED = "警察已经验过您，知晓您的身份了"
PEACEFUL_NIGHT = "今晚平安夜"
POSSESSED_PLEDGE_LINE = "与毒药同死的匪徒为‘被附体匪’"
CONVERTED_NOTICE = "匪方守护神已被杀手直接杀害，自本轮起你不再具备守护能力（身份不变），本轮守护作废"


# ---- small helpers ---------------------------------------------------------------------------------


def bandit_group(state: GameState | Work, *, alive: bool = True) -> list[str]:
    """Members of the bandit group who can take part in a kill (AMB-11 for the possessed)."""
    joined = state.flags.gp_possessed_joins_bandit_group
    return [
        p.name
        for p in state.players
        if (p.role in (RoleId.BANDIT, RoleId.GHOST) or (joined and p.possessed)) and (p.alive or not alive)
    ]


def is_bandit(p: Player) -> bool:
    return p.role in (RoleId.BANDIT, RoleId.GHOST) or p.possessed


def check_label(p: Player, state: GameState | Work) -> str:
    """What a police check on ``p`` answers now (AMB-14; the ghost is 杀手; 被附体匪)."""
    return R001_ROLES[p.role].label_for_check(p, state.flags)


def reveal_label(p: Player, state: GameState | Work) -> str:
    """The identity an execution announces (the ghost is 杀手; 被附体匪; 毒药 AMB-16; 警方守护神)."""
    return R001_ROLES[p.role].label_for_reveal(p, state.flags)


def _ghost(state: GameState | Work) -> Player | None:
    for p in state.players:
        if p.role is RoleId.GHOST:
            return p
    return None


# ---- checking ----------------------------------------------------------------------------------------


def check_action(state: GameState, action: NightAction, night: Night | None) -> None:
    """Raise IllegalActionError if ``action`` breaks an r001-family rule (see night.check)."""
    n = state.round
    if isinstance(action, Kill):
        _check_kill(state, action, n)
    elif isinstance(action, Check):
        _check_check(state, action, n)
    elif isinstance(action, Protect):
        _check_protect(state, action, n)
    else:
        raise IllegalActionError(
            f"{state.ruleset_id} 没有这种夜间行动：{ACTION_KINDS[action.kind].name_zh}", rule=state.ruleset_id
        )


def _check_kill(state: GameState, kill: Kill, n: int) -> None:
    living_bandits = bandit_group(state)
    if not living_bandits:
        raise IllegalActionError(f"第{n}夜：没有存活的匪徒，无人可以提交杀人", rule="R001 §二.3")
    if kill.by is not None and kill.by not in living_bandits:
        who = "已死亡" if state.has(kill.by) and not state.is_alive(kill.by) else "不在匪帮里"
        raise IllegalActionError(f"第{n}夜：{kill.by} {who}，不能提交匪帮的杀人", rule="R001 §二.3")
    if kill.victim is not None:
        victim = state.player(kill.victim)
        if not victim.alive:
            raise IllegalActionError(f"第{n}夜：{kill.victim} 已死亡，匪帮不能杀他", rule="R001 §二.3")
    if kill.pledge is not None:
        pledge = state.player(kill.pledge)
        if kill.pledge not in living_bandits:
            why = "已死亡" if not pledge.alive else "不是匪徒"
            raise IllegalActionError(
                f"第{n}夜：生死状必须写一名存活的匪徒，{kill.pledge} {why}",
                rule="R001 §五 其他细微规则变化2",
            )
    if kill.possess is not None:
        _check_possession(state, kill, n)


def _check_possession(state: GameState, kill: Kill, n: int) -> None:
    target = kill.possess
    assert target is not None
    ghost = _ghost(state)
    if ghost is None:
        raise IllegalActionError(f"{state.ruleset_id} 没有鬼匪，无人可以附体", rule=RULE_POSSESSION)
    if not ghost.alive:
        raise IllegalActionError(f"第{n}夜：鬼匪 {ghost.name} 已死亡，只有活着才能附体", rule=RULE_POSSESSION)
    if state.possession_used:
        raise IllegalActionError(
            f"第{n}夜：{POSSESSION_USED}，鬼匪 {ghost.name} 唯一一次附体已经用过",
            rule=RULE_POSSESSION,
        )
    tp = state.player(target)
    if target == ghost.name:
        raise IllegalActionError(
            f"第{n}夜：鬼匪 {ghost.name} 不能附体自己",
            rule="AMB-10",
            refusal=Refusal.VOID_AT_RESOLUTION,
        )
    if not tp.alive:
        raise IllegalActionError(
            f"第{n}夜：{target} 已死亡，鬼匪不能附体他",
            rule="AMB-10",
            refusal=Refusal.VOID_AT_RESOLUTION,
        )
    if is_bandit(tp):
        raise IllegalActionError(
            f"第{n}夜：{target} 已是匪徒，鬼匪不能附体他",
            rule="AMB-10",
            refusal=Refusal.VOID_AT_RESOLUTION,
        )
    if target == kill.victim:
        raise IllegalActionError(
            f"第{n}夜：杀人和附体写的是同一名玩家 {target}；先结算杀人，附体将无效且算作已使用，"
            "请另选附体对象",
            rule="AMB-08",
            refusal=Refusal.VOID_AT_RESOLUTION,
        )


def _check_check(state: GameState, check: Check, n: int) -> None:
    police = state.with_role(RoleId.POLICE, alive=True)
    if not state.with_role(RoleId.POLICE):
        raise IllegalActionError(f"{state.ruleset_id} 没有警察，无人可以验人", rule="R001 §二.4")
    if check.by is not None:
        by = state.player(check.by)
        if by.role is not RoleId.POLICE:
            raise IllegalActionError(f"第{n}夜：{check.by} 不是警察，不能验人", rule="R001 §二.4")
        if not by.alive:
            raise IllegalActionError(f"第{n}夜：警察 {check.by} 已死亡，不能验人", rule="R001 §四.7")
    if not police:
        raise IllegalActionError(f"第{n}夜：警察已全部死亡，不能验人", rule="R001 §四.7")
    state.player(check.target)  # must exist


def _check_protect(state: GameState, prot: Protect, n: int) -> None:
    g = state.player(prot.guardian)
    if g.role not in GUARDIAN_ROLES:
        raise IllegalActionError(f"第{n}夜：{prot.guardian} 不是守护，不能守护", rule=RULE_GUARDIAN)
    if not g.alive:
        raise IllegalActionError(f"第{n}夜：守护 {prot.guardian} 已死亡，不能守护", rule=RULE_GUARDIAN)
    if g.converted and not state.flags.guardian_converted_keeps_duty:
        raise IllegalActionError(
            f"第{n}夜：警守 {prot.guardian} 已失去守护能力（匪神被直接杀死）",
            rule="R000-G2 双守护规则6",
        )
    if prot.target is None:
        return
    t = state.player(prot.target)
    if prot.target == prot.guardian:
        raise IllegalActionError(f"第{n}夜：守护 {prot.guardian} 不能守护自己", rule="R000 守护规则1")
    if not t.alive:
        raise IllegalActionError(
            f"第{n}夜：{prot.target} 已死亡，守护 {prot.guardian} 不能守护他",
            rule="R000 守护规则1",
        )
    if prot.target in protected_before(state, prot.guardian):
        raise IllegalActionError(
            f"第{n}夜：{prot.target} 已被守护过，每位玩家只有一次被守护的机会",
            rule="R000 守护规则3 / AMB-42",
        )


# ---- resolution ----------------------------------------------------------------------------------------


def resolve(state: GameState, night: Night, seed: int | None) -> Resolution:
    w = Work(state)
    n = state.round
    flags = state.flags
    dead: list[str] = []  # the case post's dead list, in order
    outcome: list[Outcome] = []  # first outcome reached (sequential checks, AMB-06 alternative)
    wait = state.police_last_words  # §四.5.3: results wait for an executed officer's last words

    def die(name: str, cause: Cause) -> None:
        if w.eliminate(name, cause, n):
            dead.append(name)
            if flags.r001_win_check == "sequential" and not outcome:
                found = r001_outcome(w)
                if found:
                    outcome.append(found)

    # -- step 0: guardians ---------------------------------------------------------------------------------
    protections = _step_guardians(w, night, n, die)

    # -- step 1: kill --------------------------------------------------------------------------------------
    kill_sub = night.get(ActionKind.KILL)
    kill = kill_sub.action if kill_sub is not None and not kill_sub.late else None
    assert kill is None or isinstance(kill, Kill)
    if kill_sub is not None and kill_sub.late:
        w.emit(
            event(
                EventKind.FORFEITED,
                to_group(GroupId.BANDITS),
                f"杀人名单提交超时：{PEACEFUL_NIGHT}",
                late=True,
            )
        )
    possessed_pledge = False
    kill_took_effect = False
    victim = kill.victim if kill is not None else None
    if victim is not None and w.alive(victim):
        kill_took_effect, possessed_pledge = _step_kill(w, kill, victim, protections, seed, n, die)
    elif victim is not None:
        kill_took_effect = True  # e.g. a guardian who died of dereliction: listed once (AMB-45)

    # -- step 2: possession --------------------------------------------------------------------------------
    possess = None
    if kill is not None:
        possess = kill.possess
    elif kill_sub is not None and kill_sub.late and not flags.gp_late_kill_loses_possession:
        assert isinstance(kill_sub.action, Kill)
        possess = kill_sub.action.possess
    elif (
        kill_sub is not None
        and kill_sub.late
        and isinstance(kill_sub.action, Kill)
        and kill_sub.action.possess
    ):
        w.emit(event(EventKind.NOTE, JUDGE, "杀人名单迟交，本回合附体一并作废（AMB-18）", amb="AMB-18"))
    if possess is not None:
        _step_possession(w, possess, victim, n, die)

    # -- step 3: check -------------------------------------------------------------------------------------
    _step_check(w, night, n, wait)

    # -- protections kept for the day's execution (void ones removed) ------------------------------------
    w.set(protections=frozen_map(protections), protection_round=n, police_last_words=None)

    # -- step 4: case post and the batch win check ---------------------------------------------------------
    lines: list[str] = []
    no_kill = kill is None or kill.victim is None
    if no_kill or not dead:
        lines.append(PEACEFUL_NIGHT)
    if dead:
        dead_line = "死者：" + "、".join(dead)
        if flags.guardian_announce_dereliction_cause:
            derelict = [d for d in dead if w.p(d).cause in (Cause.DERELICTION, Cause.FORCED_DERELICTION)]
            if derelict:
                dead_line += "\n" + "\n".join(f"{d} 渎职死亡" for d in derelict)
        lines.append(dead_line)
        if possessed_pledge:
            lines.append(POSSESSED_PLEDGE_LINE)
    if kill is not None and kill_took_effect and kill.text:
        lines.append(kill.text)
    data: dict[str, object] = {"dead": tuple(dead), "peaceful": no_kill, "round": n}
    if wait:
        data["after_last_words_of"] = wait
    w.emit(event(EventKind.CASE_POST, PUBLIC, "\n".join(lines), **data))

    final = outcome[0] if outcome else (r001_outcome(w) if flags.r001_win_check == "per_batch" else None)
    if final is not None:
        w.end(final)
        new_state = w.freeze()
        return Resolution(new_state, (*w.events, *game_over_events(new_state)), tuple(w.out))
    w.set(phase=Phase.DAY)
    return Resolution(w.freeze(), tuple(w.events), tuple(w.out))


Die = Callable[[str, Cause], None]


def _step_guardians(w: Work, night: Night, n: int, die: Die) -> dict[str, str]:
    """Record protections and skips; dereliction deaths (AMB-41, AMB-45). Returns guardian → protégé."""
    flags = w.flags
    protections: dict[str, str] = {}
    history = dict(w.guardian_history)
    for g in [p for p in w.players if p.role in GUARDIAN_ROLES and p.alive]:
        if g.converted and not flags.guardian_converted_keeps_duty:
            continue  # AMB-46: no duty, no dereliction
        sub = night.get(ActionKind.PROTECT, guardian=g.name)
        legal = legal_protect_targets(w, g.name)
        target = None
        if sub is not None and not sub.late:
            assert isinstance(sub.action, Protect)
            if sub.action.target in legal:
                target = sub.action.target
        if target is not None:
            if not g.converted:
                protections[g.name] = target
            history[g.name] = (*history.get(g.name, ()), target)
            w.put("guardian_forced_streak", g.name, 0)
            continue
        if not legal:  # objectively nobody left to protect (守护规则5)
            streak = w.bump("guardian_forced_streak", g.name)
            skips = w.bump("guardian_skips", g.name) if flags.guardian_forced_skip_counts_as_voluntary else 0
            w.emit(
                event(
                    EventKind.NOTE,
                    JUDGE,
                    f"守护神 {g.name} 客观上无人可守（连续 {streak} 回合）",
                    guardian=g.name,
                    forced_streak=streak,
                    amb="AMB-41",
                )
            )
            if streak >= 2:
                die(g.name, Cause.FORCED_DERELICTION)
            elif skips >= 2:
                die(g.name, Cause.DERELICTION)
            continue
        skips = w.bump("guardian_skips", g.name)
        w.put("guardian_forced_streak", g.name, 0)
        why = (
            "迟交" if sub is not None and sub.late else ("放弃守护" if sub is not None else "未提交守护名单")
        )
        w.emit(
            event(
                EventKind.NOTE,
                JUDGE,
                f"守护神 {g.name} {why}：累计不守护 {skips} 次",
                guardian=g.name,
                skips=skips,
                amb="AMB-41",
            )
        )
        if skips >= 2:
            die(g.name, Cause.DERELICTION)
    w.set(guardian_history=frozen_map(history))
    return protections


def _random_bandit(w: Work, seed: int | None, n: int) -> tuple[str | None, str]:
    living = bandit_group(w)
    seed_used = str(seed) if seed is not None else f"{w.ruleset_id}:night{n}:pledge"
    if not living:
        return None, seed_used
    return random.Random(seed_used).choice(living), seed_used


def _step_kill(
    w: Work, kill: Kill | None, victim: str, protections: dict[str, str], seed: int | None, n: int, die: Die
) -> tuple[bool, bool]:
    """Step 1. Returns (the kill took effect, the pledge who died is a possessed bandit)."""
    assert kill is not None
    flags = w.flags
    vp = w.p(victim)
    protectors = effective_protectors(w, protections, victim)
    if protectors:
        both_die = flags.guardian_same_protege == "protege_dies_too" and len(protectors) >= 2
        if both_die:
            die(victim, Cause.KILLED)
        for g in protectors:
            die(g, Cause.GUARDED_KILL)
        if flags.guardian_kill_text_editable:
            w.emit(
                event(
                    EventKind.NOTE,
                    JUDGE,
                    f"守护神 {'、'.join(protectors)} 替 {victim} 被杀："
                    "不公布被害真相，可适当编修杀文（AMB-47）",
                    guardians=tuple(protectors),
                    protege=victim,
                    amb="AMB-47",
                )
            )
        if not both_die:
            return True, False
    possessed_pledge = False
    if vp.role is RoleId.POISON and w.alive(victim):
        pledge = kill.pledge if kill.pledge is not None and kill.pledge in bandit_group(w) else None
        if pledge is None:
            if flags.gp_missing_pledge == "kill_invalid":
                w.emit(
                    event(
                        EventKind.NOTE,
                        JUDGE,
                        f"目标 {victim} 为毒药但生死状缺失：本次杀人无效（AMB-12）",
                        amb="AMB-12",
                    )
                )
                return False, False
            pledge, seed_used = _random_bandit(w, seed, n)
            w.emit(
                event(
                    EventKind.NOTE,
                    JUDGE,
                    f"生死状缺失：随机抽取 {pledge} 与毒药同死（种子 {seed_used}，AMB-12）",
                    pledge=pledge,
                    seed=seed_used,
                    amb="AMB-12",
                )
            )
        die(victim, Cause.KILLED)
        if pledge is not None:
            possessed_pledge = w.p(pledge).possessed
            die(pledge, Cause.PLEDGE)
            if flags.gp_notify_bandits:
                w.emit(
                    event(
                        EventKind.PLEDGE,
                        to_group(GroupId.BANDITS),
                        f"目标为毒药，{pledge} 依生死状同死",
                        victim=victim,
                        pledge=pledge,
                    )
                )
        return True, possessed_pledge
    die(victim, Cause.KILLED)
    if vp.role is RoleId.BANDIT_GUARDIAN:
        for pg in [p for p in w.players if p.role is RoleId.POLICE_GUARDIAN and p.alive and not p.converted]:
            w.set_player(pg.name, converted=True)
            protections.pop(pg.name, None)
            w.emit(
                event(EventKind.GUARDIAN_CONVERTED, to_player(pg.name), CONVERTED_NOTICE, rule="R000-G2 6")
            )
    return True, False


def _step_possession(w: Work, target: str, victim: str | None, n: int, die: Die) -> None:
    flags = w.flags
    ghost = _ghost(w)
    if ghost is None or not ghost.alive:
        if ghost is not None:
            w.emit(
                event(
                    EventKind.NOTE,
                    JUDGE,
                    f"鬼匪 {ghost.name} 已在杀人结算中死亡：附体不执行（AMB-09）",
                    amb="AMB-09",
                )
            )
        return
    if w.possession_used:
        w.emit(event(EventKind.NOTE, JUDGE, f"{POSSESSION_USED}：本次附体无效", amb="R001 §五"))
        return
    notify = flags.gp_notify_bandits
    bandits = to_group(GroupId.BANDITS)
    tp = w.p(target) if target in w.index else None
    if target == victim:
        consumed = flags.gp_kill_and_possess_same_target == "void_and_consumed"
        w.set(possession_used=w.possession_used or consumed)
        w.emit(event(EventKind.NOTE, JUDGE, f"附体与杀人同一目标 {target}：附体无效（AMB-08）", amb="AMB-08"))
        if notify:
            w.emit(event(EventKind.POSSESSION, bandits, POSSESSION_VOID, target=target))
        return
    if tp is None or not tp.alive or tp.name == ghost.name or is_bandit(tp):
        consumed = flags.gp_invalid_possession == "no_effect_consumed"
        w.set(possession_used=w.possession_used or consumed)
        w.emit(event(EventKind.NOTE, JUDGE, f"附体目标 {target} 无效：无效果（AMB-10）", amb="AMB-10"))
        if notify:
            w.emit(event(EventKind.POSSESSION, bandits, POSSESSION_VOID, target=target))
        return
    w.set(possession_used=True)
    if tp.role is RoleId.CIVILIAN:
        w.set_player(target, possessed=True)
        joins = (
            "，并加入匪帮讨论组，自下一回合起参与杀人决定" if flags.gp_possessed_joins_bandit_group else ""
        )
        w.emit(
            event(
                EventKind.POSSESSION,
                to_player(target),
                f"你已被鬼匪附体，身份转变为匪（被附体匪）。法官确认后你可与鬼匪 {ghost.name} 联系{joins}",
                ghost=ghost.name,
            ),
            event(
                EventKind.POSSESSION,
                to_player(ghost.name),
                f"{POSSESSION_OK}：{target} 已转变为匪，法官确认后你们可以彼此联系",
                target=target,
            ),
        )
        if notify:
            w.emit(event(EventKind.POSSESSION, bandits, POSSESSION_OK, target=target))
    elif tp.role is RoleId.POLICE:
        w.emit(event(EventKind.POSSESSION, to_group(GroupId.POLICE), POLICE_POSSESSED))
        if notify:
            w.emit(event(EventKind.POSSESSION, bandits, POSSESSION_VOID, target=target))
    elif tp.role is RoleId.POISON:
        die(ghost.name, Cause.POSSESSED_POISON)
        die(target, Cause.POSSESSED_POISON)
    else:  # a guardian, in a combined game (AMB-48): nothing happens, the possession is used
        if notify:
            w.emit(event(EventKind.POSSESSION, bandits, POSSESSION_VOID, target=target))


def _step_check(w: Work, night: Night, n: int, wait: str | None) -> None:
    sub = night.get(ActionKind.CHECK)
    if sub is None:
        return
    police = to_group(GroupId.POLICE)
    if sub.late:
        w.emit(event(EventKind.FORFEITED, police, "验人提交超时，不予受理", late=True))
        return
    assert isinstance(sub.action, Check)
    _answer_check(w, sub.action.target, n, wait, extra=False)


def _answer_check(w: Work, target: str, n: int, wait: str | None, *, extra: bool) -> None:
    flags = w.flags
    tp = w.p(target)
    label = check_label(tp, w)
    data: dict[str, object] = {"target": target, "label": label, "extra": extra, "round": n}
    if wait:
        data["after_last_words_of"] = wait
    w.emit(event(EventKind.CHECK_RESULT, to_group(GroupId.POLICE), f"{target}：{label}", **data))
    if tp.role is RoleId.POISON and not extra and (tp.alive or flags.gp_possessed_poison_checked_extra):
        w.emit(event(EventKind.POISON_CHECKED, to_player(target), POISON_CHECKED))
        w.set(extra_check_round=n)
        minutes = flags.gp_extra_check_window_minutes
        w.emit(
            event(
                EventKind.EXTRA_CHECK_GRANTED,
                to_group(GroupId.POLICE),
                f"毒药被验到：警方本回合可再验一人（{minutes} 分钟内提交）",
                window_minutes=minutes,
                amb="AMB-15",
            )
        )


def resolve_extra_check(state: GameState, target: str, *, late: bool = False) -> Resolution:
    """The extra check owed after the poison was checked (R001 §五 毒药4; AMB-15).

    Answered on the same round's truth; a late one (after the window) is forfeited.
    """
    if state.extra_check_round != state.round:
        raise IllegalActionError(f"第{state.round}轮没有应得的追加验人", rule="R001 §五 毒药4")
    w = Work(state)
    w.set(extra_check_round=None)
    if late:
        w.emit(
            event(
                EventKind.FORFEITED,
                to_group(GroupId.POLICE),
                "追加验人超时，不予受理",
                late=True,
                amb="AMB-15",
            )
        )
    else:
        state.player(target)
        _answer_check(w, target, state.round, None, extra=True)
    return Resolution(w.freeze(), tuple(w.events))
