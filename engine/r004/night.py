"""Night rules of R004 (杀人游戏): checking submissions, the out-list (steps 1–7) and the feedback.

Resolution (rules.md §d.3, 总体流程 3–4). The out-list is ordered; adding a role already on it does
nothing and keeps its recorded cause (注意):

1. 放烟花: the terrorist, then the target unless its identity is 杀手 (not a 指杀: no hug/heal);
2. 指杀 in the order 撕票 → 狙击 → 暗杀 → 杀人: ① hug target → fails; ② heal target → fails;
   ③ killers→sniper or sniper→killer → not added, 归队; ④ added with the source as cause;
3. 救治: an empty heal (not a 指杀 target, not the hug target) counts; at 2 the healed role is added;
4. 拥抱: the butterfly on the list ⇒ the hug target is added;
5. 悍匪: the terrorist on the list by double empty heal ⇒ the doctor is added;
6. 丘比特之箭: exactly one lover on the list, the other alive ⇒ swapped (AMB-65);
7. eliminate in list order, a win check after each, stop once won (AMB-81).

Then the feedback (out notices with last-words eligibility, 威权, check, spy, 归队, lovers, kidnapping
AMB-69) and the public day-start post (AMB-88; identities only for the mayor under 警戒, AMB-64).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import (
    ACTION_KINDS,
    Arrow,
    Assassinate,
    Check,
    Fireworks,
    Heal,
    Hug,
    Kidnap,
    Kill,
    KillHostages,
    Night,
    NightAction,
    Snipe,
    Spy,
)
from engine.errors import IllegalActionError
from engine.events import JUDGE, PUBLIC, Audience, EventKind, Resolution, event, to_group, to_player
from engine.gameover import game_over_events
from engine.outcome import Outcome
from engine.r004.outcome import r004_counts, r004_outcome_of
from engine.roles import R004_ROLES, ActionKind, Cause, GroupId, RoleId
from engine.state import GameState, Phase, Player
from engine.working import Work

#: Night skills of killer-camp roles: all void on a 警戒 night (AMB-52).
KILLER_CAMP_KINDS = frozenset(
    {
        ActionKind.KILL,
        ActionKind.SNIPE,
        ActionKind.FIREWORKS,
        ActionKind.SPY,
        ActionKind.KIDNAP,
        ActionKind.KILL_HOSTAGES,
    }
)

#: Who submits each kind (the killers jointly; the police jointly; single holders otherwise).
ACTOR_ROLE: dict[ActionKind, RoleId] = {
    ActionKind.KILL: RoleId.KILLER,
    ActionKind.SNIPE: RoleId.SNIPER,
    ActionKind.FIREWORKS: RoleId.TERRORIST,
    ActionKind.SPY: RoleId.SPY,
    ActionKind.KIDNAP: RoleId.KIDNAPPER,
    ActionKind.KILL_HOSTAGES: RoleId.KIDNAPPER,
    ActionKind.CHECK: RoleId.POLICE,
    ActionKind.HEAL: RoleId.DOCTOR,
    ActionKind.HUG: RoleId.BUTTERFLY,
    ActionKind.ASSASSINATE: RoleId.AGENT,
    ActionKind.ARROW: RoleId.CUPID,
}

GROUP_ACTIONS = frozenset({ActionKind.KILL, ActionKind.CHECK})

SKILL_ZH: dict[ActionKind, str] = {
    ActionKind.KILL: "杀人",
    ActionKind.SNIPE: "狙击",
    ActionKind.FIREWORKS: "放烟花",
    ActionKind.SPY: "潜伏",
    ActionKind.KIDNAP: "绑架",
    ActionKind.KILL_HOSTAGES: "撕票",
    ActionKind.CHECK: "查验",
    ActionKind.HEAL: "救治",
    ActionKind.HUG: "拥抱",
    ActionKind.ASSASSINATE: "暗杀",
    ActionKind.ARROW: "丘比特之箭",
}

_POLICE = to_group(GroupId.POLICE)
_KILLERS = to_group(GroupId.KILLERS)
_LOVERS = to_group(GroupId.LOVERS)
_KIDNAPPED = to_group(GroupId.KIDNAPPED)

LATE_TEXT = "关门后两小时内未与导演取得联系，视为放弃夜晚行动"
NOBODY_OUT = "昨夜无人出局"


def camp_label(p: Player) -> str:
    """What the police learn: the camp (杀手阵营 / 平民阵营)."""
    return R004_ROLES[p.role].check_label


def identity_label(p: Player) -> str:
    """What the spy learns: the exact identity (具体身份)."""
    return R004_ROLES[p.role].name_zh


def _targets(action: NightAction) -> tuple[str, ...]:
    if isinstance(action, Arrow):
        return (action.first, action.second)
    if isinstance(action, KillHostages):
        return tuple(action.order or ())
    if isinstance(action, Kill):
        return (action.victim,) if action.victim is not None else ()
    target = getattr(action, "target", None)
    return (target,) if isinstance(target, str) else ()


# ---- checking ----------------------------------------------------------------------------------------


def check_action(state: GameState, action: NightAction, night: Night | None) -> None:
    """Raise IllegalActionError if ``action`` breaks an R004 rule (see night.check_action): who may act,
    on whom, then the skill's own rule (限定 skills, bullets, 撕票 vs 绑架, self-targets)."""
    if action.kind not in ACTOR_ROLE:
        raise IllegalActionError(f"R004 没有这种夜间行动：{ACTION_KINDS[action.kind].name_zh}", rule="R004")
    actor = _check_actor(state, action)
    _check_targets(state, action)
    skill_check = _SKILL_CHECKS.get(type(action))
    if skill_check is not None:
        skill_check(state, action, night, actor)


def _check_actor(state: GameState, action: NightAction) -> str:
    """警戒, the role exists and lives, ``by`` holds it. Returns the acting holder."""
    n, kind = state.round, action.kind
    skill = SKILL_ZH[kind]
    if kind in KILLER_CAMP_KINDS and state.alert_night == n:
        raise IllegalActionError(
            f"警戒：市长因杀手阵营的技能出局，第{n}夜杀手阵营不能使用任何技能，{skill}无效",
            rule="R004 市长·警戒",
        )
    role = ACTOR_ROLE[kind]
    holders = state.with_role(role)
    if not holders:
        raise IllegalActionError(f"本局没有{R004_ROLES[role].name_zh}，无人可以{skill}", rule="R004")
    living = [h for h in holders if state.is_alive(h)]
    by = getattr(action, "by", None)
    if by is not None:
        bp = state.player(by)
        if bp.role is not role:
            raise IllegalActionError(
                f"第{n}夜：{by} 不是{R004_ROLES[role].name_zh}，不能{skill}", rule="R004"
            )
        if not bp.alive:
            raise IllegalActionError(f"第{n}夜：{by} 已出局，不能{skill}", rule="R004 出局")
    if not living:
        raise IllegalActionError(
            f"第{n}夜：{R004_ROLES[role].name_zh}已全部出局，无人可以{skill}", rule="R004 出局"
        )
    return living[0]


def _check_targets(state: GameState, action: NightAction) -> None:
    """No pledge or possession in R004; every named role is alive."""
    n, skill = state.round, SKILL_ZH[action.kind]
    if isinstance(action, Kill) and (action.pledge is not None or action.possess is not None):
        raise IllegalActionError("R004 没有生死状和附体", rule="R004")
    for t in _targets(action):
        if not state.player(t).alive:
            raise IllegalActionError(f"第{n}夜：{t} 已出局，不能作为技能对象（{skill}）", rule="R004 出局")


def _check_snipe(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    n = state.round
    if state.sniper_rejoined:
        raise IllegalActionError(f"第{n}夜：狙击手已归队，失去狙击", rule="R004 归队")
    if state.sniper_bullets <= 0:
        raise IllegalActionError(f"第{n}夜：狙击手的子弹已用完", rule="R004 狙击手")


def _check_fireworks(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    assert isinstance(action, Fireworks)
    n = state.round
    if state.fireworks_used:
        raise IllegalActionError(f"第{n}夜：放烟花是<限定>技能，已经用过", rule="R004 恐怖分子")
    if action.target == actor and not state.flags.r004_fireworks_may_target_self:
        raise IllegalActionError(f"第{n}夜：恐怖分子放烟花不能选自己", rule="AMB-84")


def _check_kidnap(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    n = state.round
    if state.hostages_killed:
        raise IllegalActionError(f"第{n}夜：撕票之后绑匪不能再绑架", rule="R004 绑匪")
    if night is not None and night.on_time(ActionKind.KILL_HOSTAGES) is not None:
        raise IllegalActionError(
            f"第{n}夜已提交撕票，当夜不能绑架（须先撤回撕票）",
            rule="R004 绑匪",
        )


def _check_kill_hostages(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    assert isinstance(action, KillHostages)
    n = state.round
    if state.hostages_killed:
        raise IllegalActionError(f"第{n}夜：撕票是<限定>技能，已经用过", rule="R004 绑匪")
    if night is not None and night.on_time(ActionKind.KIDNAP) is not None:
        raise IllegalActionError(
            f"第{n}夜已提交绑架，当夜不能撕票（须先撤回绑架）",
            rule="R004 绑匪",
        )
    hostages = [h for h in state.kidnapped if state.is_alive(h)]
    if not hostages:
        raise IllegalActionError(f"第{n}夜：没有未出局的被绑架角色，无票可撕", rule="R004 绑匪")
    if action.order is not None and sorted(action.order) != sorted(hostages):
        raise IllegalActionError(
            f"第{n}夜：撕票顺序须把每个未出局的被绑架角色各列一次：{'、'.join(hostages)}",
            rule="R004 绑匪",
        )


def _check_heal(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    assert isinstance(action, Heal)
    if action.target == actor and not state.flags.r004_doctor_may_heal_self:
        raise IllegalActionError(f"第{state.round}夜：医生不能救治自己", rule="AMB-63")


def _check_hug(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    assert isinstance(action, Hug)
    n = state.round
    if action.target == actor:
        raise IllegalActionError(f"第{n}夜：花蝴蝶只能拥抱其他角色", rule="R004 花蝴蝶")
    if action.target in state.hug_targets_used:
        raise IllegalActionError(
            f"第{n}夜：{action.target} 已被拥抱过，每个角色只能被拥抱一次",
            rule="R004 花蝴蝶",
        )


def _check_assassinate(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    if state.assassination_used:
        raise IllegalActionError(f"第{state.round}夜：暗杀是<限定>技能，已经用过", rule="R004 特工")


def _check_arrow(state: GameState, action: NightAction, night: Night | None, actor: str) -> None:
    assert isinstance(action, Arrow)
    n = state.round
    if state.arrow_used:
        raise IllegalActionError(f"第{n}夜：丘比特之箭是<限定>技能，已经用过", rule="R004 丘比特")
    if action.first == action.second:
        raise IllegalActionError(f"第{n}夜：丘比特之箭须选两个不同的角色", rule="R004 丘比特")
    if actor in (action.first, action.second) and not state.flags.r004_cupid_may_choose_self:
        raise IllegalActionError(f"第{n}夜：丘比特不能选自己", rule="AMB-65")


#: Each skill's own rule, checked after the actor and the targets.
_SKILL_CHECKS: dict[type, Callable[[GameState, NightAction, Night | None, str], None]] = {
    Snipe: _check_snipe,
    Fireworks: _check_fireworks,
    Kidnap: _check_kidnap,
    KillHostages: _check_kill_hostages,
    Heal: _check_heal,
    Hug: _check_hug,
    Assassinate: _check_assassinate,
    Arrow: _check_arrow,
}


# ---- resolution ----------------------------------------------------------------------------------------


class _OutList:
    """The ordered out-list of one night with recorded causes (注意: re-adding changes nothing)."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.cause: dict[str, Cause] = {}

    def add(self, name: str, cause: Cause) -> None:
        if name not in self.cause:
            self.order.append(name)
            self.cause[name] = cause

    def remove(self, name: str) -> int:
        i = self.order.index(name)
        del self.order[i]
        del self.cause[name]
        return i

    def insert(self, i: int, name: str, cause: Cause) -> None:
        if name not in self.cause:
            self.order.insert(i, name)
            self.cause[name] = cause

    def __contains__(self, name: object) -> bool:
        return name in self.cause


class _Tonight:
    """What one night's resolution steps share: the scratch state, tonight's valid actions, the out-list."""

    def __init__(self, state: GameState, night: Night) -> None:
        self.state = state
        self.w = Work(state)
        self.n = state.round
        self.flags = state.flags
        self.alert = state.alert_night == self.n
        self.alive_at_start = {p.name for p in state.players if p.alive}
        self.acts: dict[ActionKind, NightAction] = {}
        self.out = _OutList()
        self.kill_targets: set[str] = set()
        self.rejoin = False
        self._collect(night)
        hug = self.acts.get(ActionKind.HUG)
        heal = self.acts.get(ActionKind.HEAL)
        self.hug_target = hug.target if isinstance(hug, Hug) else None
        self.heal_target = heal.target if isinstance(heal, Heal) else None
        self.terrorist = state.holders_of(RoleId.TERRORIST)
        self.doctor = state.holders_of(RoleId.DOCTOR)
        self.butterfly = state.holders_of(RoleId.BUTTERFLY)
        self.eliminated: list[str] = []
        self.alerted: str | None = None
        self.outcome: Outcome | None = None

    def alive(self, name: str) -> bool:
        return name in self.alive_at_start

    def _collect(self, night: Night) -> None:
        """Tonight's actions that count: late ones are given up, killer-camp ones void on a 警戒 night."""
        w = self.w
        for sub in night.submissions:
            kind = sub.action.kind
            role = ACTOR_ROLE.get(kind, RoleId.CIVILIAN)
            holders = [h for h in self.state.holders_of(role) if h in self.alive_at_start]
            audience: Audience = _KILLERS if kind is ActionKind.KILL else _POLICE
            if kind not in GROUP_ACTIONS and holders:
                audience = to_player(holders[0])
            if sub.late:
                text = f"{SKILL_ZH.get(kind, kind.value)}：{LATE_TEXT}"
                w.emit(event(EventKind.FORFEITED, audience, text, late=True))
                continue
            if self.alert and kind in KILLER_CAMP_KINDS:
                w.emit(event(EventKind.NOTE, JUDGE, f"警戒夜：{SKILL_ZH[kind]} 无效（AMB-52）", amb="AMB-52"))
                continue
            if not holders:
                continue
            self.acts[kind] = sub.action


def resolve(state: GameState, night: Night, seed: int | None) -> Resolution:
    """Resolve night ``state.round``: steps 1–7 of the module docstring, then the feedback and the post."""
    t = _Tonight(state, night)
    _step_fireworks(t)
    _step_directed_kills(t)
    _step_heal(t)
    _step_hug(t)
    _step_hanfei(t)
    _step_arrow(t)
    _step_eliminate(t)
    _feedback_out_notices(t)
    _feedback_skills(t)
    _feedback_judge_notes(t)
    _day_start_post(t)
    w = t.w
    w.set(since_day_start=(), day_start_out=(*t.state.since_day_start, *t.eliminated))
    if t.outcome is not None:
        w.end(t.outcome)
        st = w.freeze()
        return Resolution(st, (*w.events, *game_over_events(st)), tuple(t.eliminated))
    w.set(phase=Phase.DAY)
    return Resolution(w.freeze(), tuple(w.events), tuple(t.eliminated))


def _step_fireworks(t: _Tonight) -> None:
    """Step 1, 放烟花: the terrorist, then the target unless it is a 杀手 (not a 指杀: no hug/heal)."""
    fw = t.acts.get(ActionKind.FIREWORKS)
    if isinstance(fw, Fireworks) and t.terrorist and not t.state.fireworks_used:
        t.out.add(t.terrorist[0], Cause.FIREWORKS)
        if t.alive(fw.target) and t.w.role(fw.target) is not RoleId.KILLER:
            t.out.add(fw.target, Cause.FIREWORKS)
        t.w.set(fireworks_used=True)


def _shots(t: _Tonight) -> list[tuple[Cause, str]]:
    """The 指杀 of tonight in source order: 撕票 → 狙击 → 暗杀 → 杀人."""
    state, w = t.state, t.w
    shots: list[tuple[Cause, str]] = []
    kh = t.acts.get(ActionKind.KILL_HOSTAGES)
    if isinstance(kh, KillHostages) and not state.hostages_killed:
        order = list(kh.order) if kh.order else list(state.kidnapped)
        if not kh.order and t.flags.r004_default_hostage_order == "reverse":
            order.reverse()
        shots += [(Cause.HOSTAGE, h) for h in order if t.alive(h)]
        w.set(hostages_killed=True)
    sn = t.acts.get(ActionKind.SNIPE)
    if isinstance(sn, Snipe) and not state.sniper_rejoined and state.sniper_bullets > 0:
        shots.append((Cause.SNIPE, sn.target))
    ag = t.acts.get(ActionKind.ASSASSINATE)
    if isinstance(ag, Assassinate) and not state.assassination_used:
        shots.append((Cause.ASSASSINATION, ag.target))
        w.set(assassination_used=True)
    kl = t.acts.get(ActionKind.KILL)
    if isinstance(kl, Kill) and kl.victim is not None:
        shots.append((Cause.KILLERS, kl.victim))
    return shots


def _step_directed_kills(t: _Tonight) -> None:
    """Step 2, 指杀: ① the hug target and ② the heal target are spared; ③ killers↔sniper → 归队; ④ listed."""
    w, flags = t.w, t.flags
    bullets = t.state.sniper_bullets
    for cause, x in _shots(t):
        if not t.alive(x):
            continue
        t.kill_targets.add(x)
        stopped = True
        if x in (t.hug_target, t.heal_target):  # ① hug, ② heal
            pass
        elif (cause is Cause.KILLERS and w.role(x) is RoleId.SNIPER) or (
            cause is Cause.SNIPE and w.role(x) is RoleId.KILLER
        ):  # ③ 归队
            sniper = t.state.holders_of(RoleId.SNIPER)[0]
            if sniper not in t.out or flags.r004_rejoin_when_sniper_listed:
                t.rejoin = True
        else:  # ④
            t.out.add(x, cause)
            stopped = False
        if cause is Cause.SNIPE and (flags.r004_blocked_shot_uses_bullet or not stopped):
            bullets -= 1
    if t.rejoin:
        bullets = 0
        w.set(sniper_rejoined=True)
    if bullets != t.state.sniper_bullets:
        w.set(sniper_bullets=max(bullets, 0))


def _step_heal(t: _Tonight) -> None:
    """Step 3, 救治: an empty heal (no 指杀 on the target, not the hug target) counts; at 2 it kills."""
    target = t.heal_target
    empty = target is not None and target not in t.kill_targets and target != t.hug_target
    if empty and target is not None and t.alive(target) and t.doctor:
        key = target if t.flags.r004_empty_heal_counter == "per_target" else t.doctor[0]
        if t.w.bump("empty_heals", key) >= 2:
            t.out.add(target, Cause.DOUBLE_EMPTY_HEAL)


def _step_hug(t: _Tonight) -> None:
    """Step 4, 拥抱: the butterfly on the list takes the hug target with him."""
    if t.hug_target is not None:
        t.w.set(hug_targets_used=(*t.w.hug_targets_used, t.hug_target))
        if t.butterfly and t.butterfly[0] in t.out and t.alive(t.hug_target):
            t.out.add(t.hug_target, Cause.HUG)


def _step_hanfei(t: _Tonight) -> None:
    """Step 5, 悍匪: the terrorist out by a double empty heal takes the doctor (not under 警戒, AMB-52)."""
    terrorist, doctor = t.terrorist, t.doctor
    if (
        terrorist
        and t.out.cause.get(terrorist[0]) is Cause.DOUBLE_EMPTY_HEAL
        and doctor
        and t.alive(doctor[0])
    ):
        if t.alert and t.flags.r004_alert_blocks_forced_skills:
            t.w.emit(event(EventKind.NOTE, JUDGE, "警戒夜：悍匪 不发动（AMB-52）", amb="AMB-52"))
        else:
            t.out.add(doctor[0], Cause.HANFEI)


def _step_arrow(t: _Tonight) -> None:
    """Step 6, 丘比特之箭: exactly one lover listed and the other alive ⇒ the other goes instead (AMB-65)."""
    flags, out = t.flags, t.out
    arrow = t.acts.get(ActionKind.ARROW)
    lovers = t.state.lovers
    if isinstance(arrow, Arrow) and not t.state.arrow_used:
        t.w.set(arrow_used=True, lovers=(arrow.first, arrow.second))
        if flags.r004_arrow_works_same_night:
            lovers = (arrow.first, arrow.second)
    if lovers is None:
        return
    listed = [x for x in lovers if x in out]
    if len(listed) != 1:
        return
    x = listed[0]
    other = lovers[1] if x == lovers[0] else lovers[0]
    spared = not (
        not flags.r004_lover_swap_spares_terrorist
        and t.w.role(x) is RoleId.TERRORIST
        and out.cause[x] is Cause.FIREWORKS
    )
    if not (t.alive(other) and spared):
        return
    i = out.remove(x)
    if flags.r004_lover_substitute_position == "append":
        out.add(other, Cause.LOVER)
    else:
        out.insert(i, other, Cause.LOVER)
    if flags.r004_rerun_hug_after_lover_swap and t.hug_target is not None and t.butterfly:
        if t.butterfly[0] in out:
            out.add(t.hug_target, Cause.HUG)
        elif out.cause.get(t.hug_target) is Cause.HUG:
            out.remove(t.hug_target)


def _step_eliminate(t: _Tonight) -> None:
    """Step 7: eliminate in list order, a win check after each; stop once won (AMB-81)."""
    state, flags = t.state, t.flags
    tally = r004_counts(state) if t.out.order else None
    for x in t.out.order:
        if t.outcome is not None and flags.r004_stop_when_won:
            break
        t.eliminated.append(x)
        if _eliminate(t.w, x, t.out.cause[x], t.n):
            t.alerted = x
        assert tally is not None
        tally = tally.without(t.w.p(x).role, state.spy_counted, flags)
        if t.outcome is None:
            t.outcome = r004_outcome_of(tally)


def _feedback_out_notices(t: _Tonight) -> None:
    """Feedback 1: out notices (with last-words eligibility) and 威权 to pass."""
    w, eliminated = t.w, t.eliminated
    for x in eliminated:
        eligible = x in w.lastwords and x not in t.state.lastwords
        words = "可以留下遗言" if eligible else "不能留下遗言"
        w.emit(
            event(
                EventKind.OUT_NOTICE,
                to_player(x),
                f"今晚出局名单：{'、'.join(eliminated)}。你已出局，{words}。",
                out=tuple(eliminated),
                last_words=eligible,
            )
        )
        if w.authority_pending == x:
            w.emit(
                event(
                    EventKind.AUTHORITY,
                    to_player(x),
                    "你持有<威权>，出局时须选择一名其他角色获得<威权>（下一讨论日开始前联系导演）",
                    pending=True,
                )
            )


def _feedback_skills(t: _Tonight) -> None:
    """Feedback 2–5: 查验, 潜伏, 归队, 丘比特之箭, 绑架 (AMB-69)."""
    w, state, acts = t.w, t.state, t.acts
    chk = acts.get(ActionKind.CHECK)
    if isinstance(chk, Check):
        label = camp_label(w.p(chk.target))
        w.emit(
            event(EventKind.CHECK_RESULT, _POLICE, f"{chk.target}：{label}", target=chk.target, label=label)
        )
    spy = acts.get(ActionKind.SPY)
    spies = t.state.holders_of(RoleId.SPY)
    if isinstance(spy, Spy) and spies:
        label = identity_label(w.p(spy.target))
        text = f"{spy.target}：{label}"
        w.emit(event(EventKind.SPY_RESULT, to_player(spies[0]), text, target=spy.target, label=label))
    if t.rejoin and not state.sniper_rejoined:
        sniper = t.state.holders_of(RoleId.SNIPER)[0]
        w.emit(
            event(EventKind.REJOIN, to_player(sniper), "归队：你失去<狙击>，与杀手互知共群，加入杀手频道"),
            event(EventKind.REJOIN, _KILLERS, f"狙击手 {sniper} 归队，加入杀手频道", sniper=sniper),
        )
    arrow = acts.get(ActionKind.ARROW)
    if isinstance(arrow, Arrow) and not state.arrow_used:
        w.emit(
            event(
                EventKind.LOVERS,
                _LOVERS,
                f"丘比特之箭：{arrow.first} 与 {arrow.second} 成为情侣，互知共群",
                lovers=(arrow.first, arrow.second),
            )
        )
    _feedback_kidnap(t)


def _feedback_kidnap(t: _Tonight) -> None:
    """绑架: the target joins the kidnapped (unless 撕票 tonight or before), learns who else is (AMB-69)."""
    w, state = t.w, t.state
    kd = t.acts.get(ActionKind.KIDNAP)
    kh = t.acts.get(ActionKind.KILL_HOSTAGES)
    if not isinstance(kd, Kidnap) or state.hostages_killed or isinstance(kh, KillHostages):
        return
    earlier = tuple(state.kidnapped)
    if kd.target not in earlier:
        w.set(kidnapped=(*earlier, kd.target))
    if t.flags.r004_kidnap_feedback:
        others = "、".join(e for e in earlier if e != kd.target) or "（暂无）"
        w.emit(
            event(
                EventKind.KIDNAPPED,
                to_player(kd.target),
                f"你被绑架了，与之前被绑架的所有角色互知共群：{others}",
                earlier=earlier,
                amb="AMB-69",
            ),
            event(EventKind.KIDNAPPED, _KIDNAPPED, f"{kd.target} 被绑架，加入本频道", target=kd.target),
        )


def _feedback_judge_notes(t: _Tonight) -> None:
    """For the judges: 警戒 for the next night, 威权 still to pass."""
    w, state = t.w, t.state
    if t.alerted is not None:
        w.emit(
            event(
                EventKind.ALERT,
                JUDGE,
                f"警戒：市长 {t.alerted} 因杀手阵营技能出局，第 {t.n + 1} 夜所有杀手阵营角色不能发动技能",
                mayor=t.alerted,
                night=t.n + 1,
            )
        )
    if state.authority_pending and state.authority_pending not in t.eliminated:
        w.emit(
            event(
                EventKind.NOTE,
                JUDGE,
                f"{state.authority_pending} 尚未交出<威权>：讨论日开始前未联系导演则随机指定",
                amb="AMB-61",
            )
        )


def _day_start_post(t: _Tonight) -> None:
    """The public day-start post (AMB-88; identities only for the mayor under 警戒, AMB-64)."""
    w, eliminated, alerted = t.w, t.eliminated, t.alerted
    listed = list(t.state.since_day_start) if t.flags.r004_daystart_includes_day_eliminations else []
    lines = [_out_line(w, x, alerted) for x in listed]
    lines += [_out_line(w, x, alerted) for x in eliminated]
    if not eliminated:
        lines.append(NOBODY_OUT)
    revealed = {alerted: "市长"} if alerted else {}
    w.emit(
        event(
            EventKind.DAY_START,
            PUBLIC,
            "\n".join(lines),
            out=tuple(listed + eliminated),
            night_out=tuple(eliminated),
            revealed=revealed,
            round=t.n,
        )
    )


def _out_line(w: Work, x: str, alerted: str | None) -> str:
    if x == alerted:
        return f"{x} 出局，身份：市长"
    if w.flags.r004_reveal_identity_on_elimination:
        return f"{x} 出局，身份：{identity_label(w.p(x))}"
    return f"{x} 出局"


def _eliminate(w: Work, x: str, cause: Cause, n: int) -> bool:
    """Eliminate one role with R004 bookkeeping. True if this triggers 警戒."""
    if not w.eliminate(x, cause, n):
        return False
    return r004_bookkeeping(w, x, cause, n)


def r004_bookkeeping(w: Work, x: str, cause: Cause, n: int) -> bool:
    """Last-words slot, day-start list, 威权, 警戒 for a role that just went out. True if 警戒."""
    flags = w.flags
    red = cause is Cause.RED_CARD
    if w.lastword_slots_used < w.lastword_slots and (not red or flags.r004_red_card_consumes_lastword_slot):
        w.set(lastword_slots_used=w.lastword_slots_used + 1)
        if not red:
            w.set(lastwords=(*w.lastwords, x))
    w.set(since_day_start=(*w.since_day_start, x))
    if w.authority_holder == x:
        w.set(authority_holder=None, authority_pending=x)
    if w.role(x) is RoleId.MAYOR and cause.value in flags.r004_alert_causes:
        w.set(alert_night=n + 1)
        return True
    return False
