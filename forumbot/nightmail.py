"""The verdict of every night message: which submission each one makes, and the night's final list.

Players send night actions where the rules put them: the killers in the 匪帮讨论组, the police in the
警署讨论组 (001 §二.3–4), every single-holder skill (守护, R004's 救/狙/抱/绑/烟花/丘比特 …) by private
message to the judge (R004: 与导演取得联系). :func:`judge_night` is a pure function, like the day's vote
verdicts: messages (group-thread posts and PMs) + the game state (roster, secret roles, groups, who is
alive) + the deadline + flags → one :class:`NightVerdict` per message (an English ``code`` and a Chinese
``reason``) and the engine's :class:`~engine.actions.Night` built from the accepted ones.

How a message is judged, in order (the first failing step gives the code):

1. read (:func:`forumbot.parsers.nightmsg.read_night_message`): no statement → ``not_a_submission``;
   a name that is no player → ``unknown_name`` (a suggestion, never taken); several names for one target
   → ``ambiguous``; nothing readable after a keyword → ``unreadable``; a tentative mention (mid-sentence,
   a question) → ``ambiguous`` (flag ``night_tentative``);
2. who: the author must be in the acting group (匪帮/杀手, 警署) or hold the skill's role → ``not_member``
   (who submits each kind, where, what a late one means: the rule set's night vocabulary,
   ``RuleSet.night_words``; the rule set answers ``submit_refusal``);
3. where: a group's action in its own group thread or by PM (flag ``night_group_actions_by_pm``); a
   single-holder skill by PM (flag ``night_solo_actions_in_group_thread``) → ``wrong_channel``;
4. when: before ``opens_at`` → ``early``; at or after the deadline → ``late`` (flag
   ``night_deadline_inclusive``); a page time that straddles the deadline → ``ambiguous``;
5. the rules: :func:`engine.night.check` on the action (with the group's earlier parts for a composite
   kill: victim, 生死状, 附体, 线文) → ``illegal`` with the engine's rule, unless the rules void it at
   resolution (``engine.Refusal``: AMB-08, AMB-10): then accepted, its reason saying it will be void;
6. the slot: a later accepted submission in the same slot makes the earlier one ``superseded``; two
   members of one group disagreeing is settled by flag ``night_group_conflict``.

A judge's :class:`NightOverride` (by message id, with who and why) replaces a message's reading or strikes
it out; the message is then judged by the same rules (unless ``waive_time``), and the verdict carries the
override. Nothing here reads the clock or the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from engine import (
    ACTION_KINDS,
    GROUP_ZH,
    ActionKind,
    Check,
    EngineError,
    Form,
    GameState,
    GroupId,
    IllegalActionError,
    Kill,
    Night,
    NightAction,
    NightWord,
    Phase,
    Protect,
    Refusal,
    RoleId,
    Submission,
    check_action,
    resolve_extra_check,
    rules_of,
)
from forumbot.i18n import N_
from forumbot.labels import message_label
from forumbot.parsers.nightmsg import (
    NightReading,
    NightStatement,
    Problem,
    read_night_message,
)
from forumbot.parsers.pm import PmMessage
from forumbot.parsers.records import Post, PostState

__all__ = [
    "CODE_LABELS",
    "MAIL_FLAG_NAMES",
    "MailFlagError",
    "NightChannel",
    "NightCode",
    "NightMail",
    "NightMailFlags",
    "NightMessage",
    "NightOverride",
    "NightVerdict",
    "judge_night",
    "mail_flags",
    "override_log",
    "pm_messages",
    "thread_messages",
]


# --- flags (forumbot/nightflags.py) ---------------------------------------------------------------------

from forumbot.nightflags import MAIL_FLAG_NAMES, MailFlagError, NightMailFlags, mail_flags

# --- inputs and outputs ---------------------------------------------------------------------------------


class NightChannel(StrEnum):
    GROUP_THREAD = "group_thread"  # a post in a group's private thread (匪帮讨论组, 警署讨论组)
    PM = "pm"  # a private message to the judge


@dataclass(frozen=True, slots=True)
class NightMessage:
    """One message that may hold night actions.

    ``id``: stable and unique (``"pid:53"``, ``"pm:9"``); overrides refer to it. ``at``/``until``: the UTC
    interval the page allows (``until`` None: exact). ``group``: the group whose thread a GROUP_THREAD
    post is in. ``author``: the role-account name as the board shows it.
    """

    id: str
    channel: NightChannel
    author: str
    at: datetime
    text: str
    until: datetime | None = None
    group: GroupId | None = None

    def __post_init__(self) -> None:
        if self.at.tzinfo is None or (self.until is not None and self.until.tzinfo is None):
            raise ValueError(f"message {self.id}: times must be timezone-aware (UTC)")
        if self.channel is NightChannel.GROUP_THREAD and self.group is None:
            raise ValueError(f"message {self.id}: a group-thread post needs its group")

    @property
    def latest(self) -> datetime:
        return self.until or self.at


class NightCode(StrEnum):
    ACCEPTED = "accepted"
    SUPERSEDED = "superseded"  # replaced by a later accepted submission in the same slot
    LATE = "late"
    EARLY = "early"  # before the night opened (an earlier night's message)
    NOT_MEMBER = "not_member"  # not in that group / does not hold that skill / not a player
    WRONG_CHANNEL = "wrong_channel"
    ILLEGAL = "illegal"  # the engine's rule (reason names it)
    UNREADABLE = "unreadable"
    UNKNOWN_NAME = "unknown_name"  # a name that is no player (suggestion given, never taken)
    AMBIGUOUS = "ambiguous"  # flagged for the judge
    CONFLICT = "conflict"  # differs from the group's earlier submission (night_group_conflict='first')
    NOT_A_SUBMISSION = "not_a_submission"
    OVERRIDDEN = "overridden"  # struck out by the judge


#: The judge's words for each code (English msgids, translated where shown; JSON keeps the codes).
CODE_LABELS: dict[NightCode, str] = {
    NightCode.ACCEPTED: N_("accepted"),
    NightCode.SUPERSEDED: N_("superseded"),
    NightCode.LATE: N_("late"),
    NightCode.EARLY: N_("before the night"),
    NightCode.NOT_MEMBER: N_("not a member"),
    NightCode.WRONG_CHANNEL: N_("wrong channel"),
    NightCode.ILLEGAL: N_("against the rules"),
    NightCode.UNREADABLE: N_("unreadable"),
    NightCode.UNKNOWN_NAME: N_("unknown name"),
    NightCode.AMBIGUOUS: N_("doubtful: a judge decides"),
    NightCode.CONFLICT: N_("conflicts with the group"),
    NightCode.NOT_A_SUBMISSION: N_("not a submission"),
    NightCode.OVERRIDDEN: N_("struck out by a judge"),
}

#: Codes that wait for the judge.
REVIEW_CODES = frozenset({NightCode.AMBIGUOUS, NightCode.UNKNOWN_NAME, NightCode.UNREADABLE})


@dataclass(frozen=True, slots=True)
class NightOverride:
    """A judge's correction of one message (logged: who, when, why).

    ``statements``: the message's new reading (e.g. the suggested name taken); None with ``strike`` to
    strike the message out (code ``overridden``). The judge's reading is firm and settles its slots
    like a correction (改刀): a group member's earlier, different submission does not make it doubtful
    again. ``actor``: the message is judged as sent by this player (a player writing from another
    account, a message signed for the group). ``waive_time``: accept it although late/early (e.g. the
    board was down at the deadline).
    """

    message_id: str
    why: str
    by: str
    at: datetime | None = None
    statements: tuple[NightStatement, ...] | None = None
    strike: bool = False
    waive_time: bool = False
    actor: str | None = None

    @staticmethod
    def take(message_id: str, kind: str, *targets: str, why: str, by: str) -> NightOverride:
        """The common case: read the message as ``kind`` on ``targets``."""
        return NightOverride(message_id, why, by, statements=(NightStatement(kind, tuple(targets)),))


@dataclass(frozen=True, slots=True)
class NightPart:
    """What became of one slot a message fills (a message may fill several: 救治 + 威权)."""

    slot: tuple[str, ...]
    kinds: tuple[str, ...]
    code: NightCode
    reason: str
    action: NightAction | None = None  # the engine action this part contributed to (accepted parts)
    rule: str = ""
    superseded_by: str | None = None


@dataclass(frozen=True, slots=True)
class NightVerdict:
    """The verdict on one message: ``code`` and a Chinese ``reason``, the parts, the resulting actions."""

    message_id: str
    author: str
    channel: NightChannel
    at: datetime
    code: NightCode
    reason: str
    parts: tuple[NightPart, ...] = ()
    suggestion: str | None = None
    override: NightOverride | None = None

    @property
    def needs_review(self) -> bool:
        return self.code in REVIEW_CODES or any(p.code in REVIEW_CODES for p in self.parts)

    @property
    def actions(self) -> tuple[NightAction, ...]:
        return tuple(p.action for p in self.parts if p.code is NightCode.ACCEPTED and p.action is not None)


@dataclass(frozen=True, slots=True)
class NightMail:
    """Every message's verdict and the night's final submissions.

    ``night``: the engine's Night (on-time accepted actions; a late one only for a slot with nothing on
    time, marked late, so the resolution can say what was forfeited). ``authority``: (passer, new holder)
    of an accepted 威权 hand-over (R004; the desk applies it with the engine). ``open``: what waits for
    the judge (Chinese), empty when the list is final. ``extra_check``: R001's extra check after the
    poison was checked (§五 毒药4, AMB-15), judged when the state is the resolved night's day with an
    extra check owed (the deadline is then the extra check's window); the desk passes it to
    ``engine.night.resolve_extra_check``.
    """

    verdicts: tuple[NightVerdict, ...]
    night: Night
    authority: tuple[str, str] | None = None
    open: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    extra_check: Submission | None = None

    @property
    def complete(self) -> bool:
        return not self.open

    def verdict(self, message_id: str) -> NightVerdict:
        for v in self.verdicts:
            if v.message_id == message_id:
                return v
        raise KeyError(message_id)


def thread_messages(posts: Iterable[Post], group: GroupId) -> list[NightMessage]:
    """A group thread's posts (from the page parsers) as night messages (``pid:N``). A post whose body
    the board withholds (banned, blocked, pending …) keeps its place with empty text, so its verdict
    says it holds no submission instead of silently vanishing."""
    out: list[NightMessage] = []
    for p in posts:
        text = p.text if p.state in (PostState.NORMAL, PostState.HIDDEN) else ""
        until = p.posted_until if p.posted_until != p.posted_at else None
        out.append(
            NightMessage(f"pid:{p.pid}", NightChannel.GROUP_THREAD, p.author, p.posted_at, text, until, group)
        )
    return out


def pm_messages(messages: Iterable[PmMessage]) -> list[NightMessage]:
    """The players' private messages to the judge as night messages (``pm:N``); the judge's own are left
    out (they are his, not submissions)."""
    out: list[NightMessage] = []
    for m in messages:
        if m.mine:
            continue
        until = m.sent_until if m.sent_until != m.sent_at else None
        out.append(NightMessage(f"pm:{m.pmid}", NightChannel.PM, m.from_name, m.sent_at, m.text, until))
    return out


# --- who submits what: the rule set's night vocabulary (engine/vocab.py) ----------------------------------


def _word(state: GameState, kind: str) -> NightWord:
    return rules_of(state).night_word(kind)


def _zh(state: GameState, kind: str) -> str:
    return _word(state, kind).name_zh


def _slot(state: GameState, kind: str, author: str) -> tuple[str, ...]:
    """The slot a statement fills: a part fills its kind's (生死状 → the kill), 绑架 and 撕票 share one,
    a guardian's 守护 and a 放弃行动 are the author's own."""
    return _word(state, kind).slot_of(author)


def _membership(state: GameState, kind: str, author: str) -> tuple[GroupId | None, str | None]:
    """(the group the kind belongs to, or None for a single holder's skill; why the author may not)."""
    word = _word(state, kind)
    return word.group, rules_of(state).submit_refusal(state, word, author)


# --- the judge ------------------------------------------------------------------------------------------


@dataclass
class _Held:
    """The accepted part currently filling a slot."""

    message_id: str
    author: str
    value: tuple[Any, ...]
    action: NightAction | None
    part_index: int


@dataclass
class _Work:
    state: GameState
    flags: NightMailFlags
    parts: dict[str, list[NightPart]] = field(default_factory=dict)
    held: dict[tuple[str, ...], _Held] = field(default_factory=dict)
    kill_fields: dict[str, tuple[str, str, Any]] = field(default_factory=dict)  # field → (msg, author, value)
    late: dict[tuple[str, ...], NightAction] = field(default_factory=dict)
    disputed: dict[tuple[str, ...], list[tuple[str, int]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    judges: frozenset[str] = frozenset()
    leaders: Mapping[GroupId, str] = field(default_factory=dict)

    @property
    def extra_mode(self) -> bool:
        """The night is resolved and the police owe their extra check (R001 §五 毒药4)."""
        s = self.state
        return s.phase is Phase.DAY and s.extra_check_round == s.round

    def night(self, without: tuple[str, ...] | None = None) -> Night:
        night = Night(self.state.round)
        for slot, held in self.held.items():
            if slot != without and held.action is not None:
                night = night.with_submission(Submission(held.action))
        return night

    def set_part(self, message_id: str, index: int, **changes: Any) -> None:
        plist = self.parts[message_id]
        plist[index] = replace(plist[index], **changes)


def _kind_name(kind: str) -> str:
    """A night action kind's Chinese name from the engine's table (any rule set's), for a judge's reading
    that names a kind this game's rule set lacks; «未知种类» when no rule set has it."""
    try:
        return ACTION_KINDS[ActionKind(kind)].name_zh
    except (ValueError, KeyError):
        return "未知种类"


def judge_night(
    state: GameState,
    messages: Iterable[NightMessage],
    *,
    deadline: datetime | None,
    opens_at: datetime | None = None,
    flags: NightMailFlags | None = None,
    overrides: Iterable[NightOverride] = (),
    judges: Iterable[str] = (),
    leaders: Mapping[GroupId, str] | None = None,
) -> NightMail:
    """The verdict of every message of night ``state.round`` and the night's final submissions.

    ``state``: the game at this night (roster, secret roles, groups, who is alive); ``deadline``: when
    submissions close (UTC; None: still open, nothing is late); ``opens_at``: when the night opened
    (messages before it are an earlier night's); ``judges``: the judges' accounts (their own posts and
    PMs are not submissions); ``leaders``: each group's leader, for ``night_group_conflict='leader'``.
    Messages are judged in time order (ties: as given).
    """
    flags = flags or NightMailFlags()
    by_id: dict[str, NightOverride] = {}
    for o in overrides:
        by_id[o.message_id] = o  # the last override of a message wins
    msgs = sorted(enumerate(messages), key=lambda im: (im[1].at, im[0]))
    seen: set[str] = set()
    for _, m in msgs:
        if m.id in seen:
            raise ValueError(f"two messages share the id {m.id!r}")
        seen.add(m.id)
    work = _Work(state, flags, judges=frozenset(judges), leaders=dict(leaders or {}))
    verdicts: list[NightVerdict] = []
    for _, m in msgs:
        verdicts.append(_judge_message(work, m, by_id.get(m.id), deadline, opens_at))
    hand_over = next(
        (w for w in rules_of(state).night_words if w.action is None and w.form is Form.TARGET), None
    )
    held_authority = work.held.get(hand_over.slot_of("")) if hand_over is not None else None
    authority = (held_authority.author, str(held_authority.value[0])) if held_authority else None
    final = [_finish(v, work.parts.get(v.message_id, [])) for v in verdicts]
    extra: Submission | None = None
    if work.extra_mode:
        held_check = work.held.pop(("check",), None)
        late_check = work.late.pop(("check",), None)
        if held_check is not None and held_check.action is not None:
            extra = Submission(held_check.action)
        elif late_check is not None:
            extra = Submission(late_check, late=True)
    night = work.night()
    for slot, action in work.late.items():
        if slot not in work.held:
            night = night.with_submission(Submission(action, late=True))
    open_items = [f"{v.message_id}（{v.author}）：{v.reason}" for v in final if v.needs_review]
    for slot, disputed in work.disputed.items():
        if disputed and slot not in work.held:
            ids = "、".join(d[0] for d in disputed)
            open_items.append(f"{'/'.join(slot)}：组内提交不一致（{ids}），请法官决定")
    notes = list(work.notes)
    kill = night.get(Kill.kind)
    if kill is not None and isinstance(kill.action, Kill) and not kill.late:
        if (
            flags.night_missing_pledge_review
            and kill.action.victim is not None
            and kill.action.pledge is None
            and state.with_role(RoleId.POISON, alive=True)
            and not _judge_took(by_id, work.kill_fields.get("victim"))
        ):
            open_items.append("匪帮的杀人提交没有生死状（毒药局必须附上；否则按 AMB-12 处理），请法官提醒")
    elif ("pledge" in work.kill_fields or "possess" in work.kill_fields) and "victim" not in work.kill_fields:
        notes.append("匪帮提交了生死状/附体，但没有杀人目标")
    return NightMail(tuple(final), night, authority, tuple(open_items), tuple(notes), extra)


def _judge_took(by_id: Mapping[str, NightOverride], victim: tuple[str, str, Any] | None) -> bool:
    """The kill's victim comes from a message a judge accepted by override: he has seen the kill as it
    stands (without a 生死状), so it no longer waits for him (AMB-NM7)."""
    o = by_id.get(victim[0]) if victim is not None else None
    return o is not None and o.statements is not None


def _supersede(work: _Work, old_id: str, slot: tuple[str, ...], new_id: str) -> None:
    for i, p in enumerate(work.parts.get(old_id, [])):
        if p.slot == slot and p.code is NightCode.ACCEPTED:
            work.set_part(
                old_id,
                i,
                code=NightCode.SUPERSEDED,
                superseded_by=new_id,
                reason=f"被{message_label(new_id)}取代",
            )


def _finish(v: NightVerdict, parts: list[NightPart]) -> NightVerdict:
    """The message's code from its parts (after later messages superseded some)."""
    if not parts:
        return v
    codes = [p.code for p in parts]
    if all(c is NightCode.ACCEPTED for c in codes):
        code = NightCode.ACCEPTED
    elif all(c in (NightCode.ACCEPTED, NightCode.SUPERSEDED) for c in codes):
        code = NightCode.ACCEPTED if NightCode.ACCEPTED in codes else NightCode.SUPERSEDED
    else:
        code = next(c for c in codes if c not in (NightCode.ACCEPTED, NightCode.SUPERSEDED))
    reason = "；".join(p.reason for p in parts if p.reason)
    if v.override is not None:
        reason = f"法官更正（{v.override.by}：{v.override.why}）；{reason}"
    return replace(v, code=code, reason=reason, parts=tuple(parts))


def _judge_message(
    work: _Work,
    m: NightMessage,
    override: NightOverride | None,
    deadline: datetime | None,
    opens_at: datetime | None,
) -> NightVerdict:
    state, flags = work.state, work.flags
    if override is not None and override.actor and not override.strike:
        m = replace(m, author=override.actor)
    base = NightVerdict(m.id, m.author, m.channel, m.at, NightCode.NOT_A_SUBMISSION, "", override=override)
    if m.author in work.judges:
        return replace(base, reason="法官自己的消息")
    if override is not None and override.strike:
        return replace(base, code=NightCode.OVERRIDDEN, reason=f"法官划掉（{override.by}：{override.why}）")
    if override is not None and override.statements is not None:
        reading = NightReading(
            tuple(replace(s, firm=True, problem=None, correction=True) for s in override.statements), m.text
        )
    else:
        reading = read_night_message(m.text, rules_of(state), state.names(), author=m.author)
    rules = rules_of(state)
    unknown = next((s for s in reading.statements if not rules.has_night_kind(s.kind)), None)
    if unknown is not None:  # a judge's reading naming a kind this rule set does not have
        named = _kind_name(unknown.kind)
        return replace(base, code=NightCode.NOT_MEMBER, reason=f"本规则没有这种夜间行动：{named}")
    statements = [s for s in reading.statements if _word(state, s.kind).form is not Form.FORCED]
    if not reading.statements:
        return replace(base, reason="不含夜间行动")
    if not statements:
        return replace(base, reason=reading.statements[0].note or "强制技能，无需提交")
    if not state.has(m.author):
        return replace(base, code=NightCode.NOT_MEMBER, reason=f"{m.author} 不是本局玩家")
    bad = next((s for s in statements if s.problem is not None), None)
    if bad is not None:
        code = {
            Problem.UNKNOWN_NAME: NightCode.UNKNOWN_NAME,
            Problem.SEVERAL_NAMES: NightCode.AMBIGUOUS,
        }.get(bad.problem, NightCode.UNREADABLE)  # type: ignore[arg-type]
        return replace(
            base, code=code, reason=bad.note or f"{_zh(state, bad.kind)}看不懂", suggestion=bad.suggestion
        )
    if any(not s.firm for s in statements):
        if flags.night_tentative == "ignore":
            return replace(base, reason="只是提到（句中或带问号），按讨论处理")
        if flags.night_tentative == "ambiguous":
            s = next(s for s in statements if not s.firm)
            return replace(
                base,
                code=NightCode.AMBIGUOUS,
                reason=f"「{s.keyword}{s.written}」像是讨论而不是正式提交（句中或带问号），请法官确认",
            )
    # group by slot; within one message the last statement of a slot (or of a kill part) wins
    slots: dict[tuple[str, ...], list[NightStatement]] = {}
    for s in statements:
        slots.setdefault(_slot(state, s.kind, m.author), []).append(s)
    work.parts[m.id] = []
    for slot, sts in slots.items():
        work.parts[m.id].append(_judge_part(work, m, override, slot, sts, deadline, opens_at))
    return replace(base, code=NightCode.ACCEPTED)


def _judge_part(
    work: _Work,
    m: NightMessage,
    override: NightOverride | None,
    slot: tuple[str, ...],
    sts: list[NightStatement],
    deadline: datetime | None,
    opens_at: datetime | None,
) -> NightPart:
    state, flags = work.state, work.flags
    kinds = tuple(dict.fromkeys(s.kind for s in sts))
    what = "、".join(_zh(state, k) for k in kinds)

    def part(code: NightCode, reason: str, **kw: Any) -> NightPart:
        return NightPart(slot, kinds, code, reason, **kw)

    # who
    group: GroupId | None = None
    for s in sts:
        group, why = _membership(state, s.kind, m.author)
        if why is not None:
            return part(NightCode.NOT_MEMBER, why)
    # where
    if m.channel is NightChannel.GROUP_THREAD:
        here = GROUP_ZH[m.group] if m.group is not None else "讨论组"
        anywhere = all(_word(state, k).anyone for k in kinds)  # 放弃行动 may be said anywhere
        if group is None and not anywhere and not flags.night_solo_actions_in_group_thread:
            return part(NightCode.WRONG_CHANNEL, f"{what}须私信法官，不能发在{here}")
        if group is not None and m.group is not group:
            return part(
                NightCode.WRONG_CHANNEL,
                f"{what}应在{GROUP_ZH[group]}提交，不是{here}",
            )
    elif group is not None and not flags.night_group_actions_by_pm:
        return part(NightCode.WRONG_CHANNEL, f"{what}须在{GROUP_ZH[group]}提交（本局不收私信）")
    # build the action (a kill is composed from the group's parts)
    built = _build(work, m, slot, sts)
    if isinstance(built, NightPart):
        return built
    action, value, fields_set = built
    # when
    waive = override is not None and override.waive_time
    if opens_at is not None and m.latest < opens_at and not waive:
        return part(NightCode.EARLY, "在本夜开始之前发出（属于之前的夜晚）", action=action)
    if deadline is not None and not waive:
        late_at = m.at >= deadline if not flags.night_deadline_inclusive else m.at > deadline
        on_time = m.latest < deadline if not flags.night_deadline_inclusive else m.latest <= deadline
        if late_at:
            if action is not None and slot not in work.held:
                work.late[slot] = action
            return part(
                NightCode.LATE, f"{what}在截止时间之后提交（{_late_words(state, kinds)}）", action=action
            )
        if not on_time:
            return part(
                NightCode.AMBIGUOUS,
                "页面只显示到分钟，发出时间跨过截止时间，请法官核对确切时间",
                action=action,
            )
    # the rules
    if work.extra_mode:
        if slot != ("check",) or not isinstance(action, Check):
            return part(NightCode.ILLEGAL, "今晚已结算，现在只收警方的追加验人", rule="R001 §五 毒药4")
        try:
            resolve_extra_check(state, action.target)
        except IllegalActionError as exc:
            return part(NightCode.ILLEGAL, f"不合规则：{exc}", action=action, rule=exc.rule)
    elif action is not None:
        try:
            check_action(state, action, night=work.night(without=slot))
        except IllegalActionError as exc:
            if exc.refusal is not Refusal.VOID_AT_RESOLUTION:
                return part(
                    NightCode.ILLEGAL,
                    f"不合规则：{exc}",
                    action=action,
                    rule=exc.rule,
                )
            # The rules record it and void it at resolution (AMB-08, AMB-10): taken, and said why.
            taken = _take_slot(work, m, slot, kinds, group, action, value, fields_set, sts)
            if taken.code is not NightCode.ACCEPTED:
                return taken
            why = f"；按规则记录，结算时判无效：{exc}"
            return replace(taken, reason=taken.reason + why, rule=exc.rule)
        except EngineError as exc:
            return part(NightCode.ILLEGAL, f"不合规则：{exc}", action=action)
    elif not _is_composite(state, slot) and _word(state, kinds[-1]).form is Form.TARGET:
        # a hand-over without an engine action (R004's 威权): the rule set checks whom it goes to
        refused = rules_of(state).check_hand_over(state, _word(state, kinds[-1]), m.author, str(value[0]))
        if refused is not None:
            return part(NightCode.ILLEGAL, str(refused), rule=refused.rule)
    # the slot
    return _take_slot(work, m, slot, kinds, group, action, value, fields_set, sts)


def _late_words(state: GameState, kinds: tuple[str, ...]) -> str:
    """What a late submission means (the rule set's word for the first kind: 今晚平安夜, 不予受理 …)."""
    return _word(state, kinds[0]).late_zh


def _build(
    work: _Work, m: NightMessage, slot: tuple[str, ...], sts: list[NightStatement]
) -> tuple[NightAction | None, tuple[Any, ...], dict[str, Any]] | NightPart:
    """The engine action this message's statements make for ``slot`` (a kill: merged with the group's
    earlier parts), the value compared for conflicts, and the kill fields it sets."""
    state = work.state
    last = sts[-1]
    kinds = tuple(dict.fromkeys(s.kind for s in sts))
    if _is_composite(state, slot):
        mine: dict[str, Any] = {}
        for s in sts:
            word = _word(state, s.kind)
            if word.form is Form.TEXT:
                mine[word.field] = s.text
            else:
                mine[word.field] = None if s.none else s.target
        if "victim" not in mine and not work.flags.night_kill_parts_separately:
            return NightPart(slot, kinds, NightCode.UNREADABLE, "生死状/附体/线文须与杀人目标同帖提交")
        merged = {k: v[2] for k, v in work.kill_fields.items()}
        merged.update(mine)
        victim_by = m.author if "victim" in mine else work.kill_fields.get("victim", ("", m.author, None))[1]
        action: NightAction | None
        if "victim" not in merged and merged.get("possess") is None:
            action = None  # only a pledge / a kill text so far
        else:
            action = Kill(
                merged.get("victim"),
                pledge=merged.get("pledge"),
                possess=merged.get("possess"),
                text=merged.get("text", "") or "",
                by=victim_by if _may_sign(state, victim_by) else None,
            )
        return action, tuple(sorted((k, str(v)) for k, v in mine.items())), mine
    word = _word(state, last.kind)
    if word.form is Form.NOTHING:
        return None, (word.kind,), {}
    value = last.targets if word.form in (Form.PAIR, Form.ORDER) else (last.target,)
    # the rule set's word builds the engine action (None for a word without one: 威权's hand-over)
    return word.build(m.author, last.targets, none=last.none), value, {}


def _may_sign(state: GameState, name: str) -> bool:
    """Whether a group's action names its poster in ``by`` (the rule set says: R004's engine wants a
    杀手; a sniper who rejoined submits for the group unsigned)."""
    return rules_of(state).signs_group_action(state, name)


def _is_composite(state: GameState, slot: tuple[str, ...]) -> bool:
    """The slot of a kind composed from parts (the kill with its 生死状, 附体 and 线文)."""
    return any(w.part_of == slot[0] for w in rules_of(state).night_words)


def _group_slots(state: GameState) -> frozenset[str]:
    return frozenset((w.part_of or w.slot or w.kind) for w in rules_of(state).night_words if w.group)


def _take_slot(
    work: _Work,
    m: NightMessage,
    slot: tuple[str, ...],
    kinds: tuple[str, ...],
    group: GroupId | None,
    action: NightAction | None,
    value: tuple[Any, ...],
    fields_set: dict[str, Any],
    sts: list[NightStatement],
) -> NightPart:
    index = len(work.parts[m.id])
    described = _describe(work.state, action, sts)
    correction = any(s.correction for s in sts)
    if _is_composite(work.state, slot):
        return _take_kill(work, m, slot, kinds, group, action, fields_set, index, described, correction)
    held = work.held.get(slot)
    conflict = (
        group is not None
        and held is not None
        and held.author != m.author
        and not correction
        and held.value != value
    )
    decision = _decide(work, group, held.author, m.author) if conflict and held is not None else "take"
    if decision != "take":
        assert held is not None
        if decision != "dispute":
            return NightPart(
                slot,
                kinds,
                NightCode.CONFLICT,
                f"与同组 {held.author} 已提交的不同（{held.message_id}），{decision}，未采用",
                action=action,
            )
        _dispute(work, slot, held.message_id, m)
        del work.held[slot]
        return NightPart(
            slot,
            kinds,
            NightCode.AMBIGUOUS,
            f"与同组 {held.author} 先前的提交（{held.message_id}）不同，请法官决定",
            action=action,
        )
    if held is not None:
        _supersede(work, held.message_id, slot, m.id)
    _settle_dispute(work, slot, m.id)
    if _word(work.state, kinds[0]).form is Form.NOTHING:
        _clear_author_slots(work, m)
    work.held[slot] = _Held(m.id, m.author, value, action, index)
    note = ""
    if group is not None and held is not None and held.author != m.author and held.value != value:
        note = f"（与 {held.author} 的提交不同，{'更正' if correction else '按最后一条'}）"
    return NightPart(slot, kinds, NightCode.ACCEPTED, f"接受：{described}{note}", action=action)


def _decide(work: _Work, group: GroupId | None, earlier: str, later: str) -> str:
    """Two members disagree: "take" the later one, "dispute" (both to the judge), or the Chinese reason
    the later one is refused (flag night_group_conflict)."""
    policy = work.flags.night_group_conflict
    if policy == "last":
        return "take"
    if policy == "first":
        return "按首条为准"
    if policy == "leader" and group is not None:
        leader = work.leaders.get(group)
        if leader == later:
            return "take"
        if leader == earlier:
            return f"按组长 {leader} 的提交为准"
    return "dispute"


def _dispute(work: _Work, slot: tuple[str, ...], old_id: str, m: NightMessage) -> None:
    for i, p in enumerate(work.parts.get(old_id, [])):
        if p.slot == slot and p.code is NightCode.ACCEPTED:
            work.set_part(
                old_id,
                i,
                code=NightCode.AMBIGUOUS,
                reason=f"与同组 {m.author} 后来的提交（{message_label(m.id)}）不同，请法官决定",
            )
    work.disputed.setdefault(slot, []).extend([(old_id, 0), (m.id, 0)])


def _settle_dispute(work: _Work, slot: tuple[str, ...], new_id: str) -> None:
    for mid, _i in work.disputed.pop(slot, []):
        for i, p in enumerate(work.parts.get(mid, [])):
            if p.slot == slot and p.code is NightCode.AMBIGUOUS and mid != new_id:
                work.set_part(
                    mid,
                    i,
                    code=NightCode.SUPERSEDED,
                    superseded_by=new_id,
                    reason=f"被{message_label(new_id)}取代",
                )


_FIELD_ZH = {"victim": "杀人目标", "pledge": "生死状", "possess": "附体", "text": "线文"}


def _take_kill(
    work: _Work,
    m: NightMessage,
    slot: tuple[str, ...],
    kinds: tuple[str, ...],
    group: GroupId | None,
    action: NightAction | None,
    fields_set: dict[str, Any],
    index: int,
    described: str,
    correction: bool,
) -> NightPart:
    """The group's kill is composed field by field (victim, 生死状, 附体, 线文): each message replaces the
    fields it names; a message stays accepted while it still provides one of them."""
    current = work.kill_fields.get("victim")
    if (
        "victim" in fields_set
        and current is not None
        and current[1] != m.author
        and current[2] != fields_set["victim"]
        and not correction
        and (decision := _decide(work, group, current[1], m.author)) != "take"
    ):
        if decision != "dispute":
            return NightPart(
                slot,
                kinds,
                NightCode.CONFLICT,
                f"杀人目标与同组 {current[1]} 已提交的不同（{current[0]}），{decision}，未采用",
                action=action,
            )
        _dispute(work, slot, current[0], m)
        work.kill_fields.pop("victim", None)
        work.held.pop(slot, None)
        return NightPart(
            slot,
            kinds,
            NightCode.AMBIGUOUS,
            f"杀人目标与同组 {current[1]} 先前的提交（{current[0]}）不同，请法官决定",
            action=action,
        )
    note = ""
    if (
        current is not None
        and "victim" in fields_set
        and current[1] != m.author
        and current[2] != fields_set["victim"]
    ):
        note = f"（与 {current[1]} 的提交不同，{'更正' if correction else '按最后一条'}）"
    for name, v in fields_set.items():
        work.kill_fields[name] = (m.id, m.author, v)
    _settle_dispute(work, slot, m.id)
    work.held[slot] = _Held(m.id, m.author, (fields_set.get("victim"),), action, index)
    for mid, plist in work.parts.items():
        if mid == m.id:
            continue
        for i, p in enumerate(plist):
            if p.slot != slot or p.code not in (NightCode.ACCEPTED, NightCode.SUPERSEDED):
                continue
            provides = [_FIELD_ZH[n] for n, f in work.kill_fields.items() if f[0] == mid]
            if provides:
                work.set_part(
                    mid,
                    i,
                    code=NightCode.ACCEPTED,
                    superseded_by=None,
                    reason=f"接受：本条的{'、'.join(provides)}仍有效",
                )
            elif p.code is NightCode.ACCEPTED:
                work.set_part(
                    mid,
                    i,
                    code=NightCode.SUPERSEDED,
                    superseded_by=m.id,
                    reason=f"被{message_label(m.id)}取代",
                )
    extra = "" if "victim" in fields_set else "（补充本组的杀人提交）"
    return NightPart(slot, kinds, NightCode.ACCEPTED, f"接受：{described}{extra}{note}", action=action)


def _clear_author_slots(work: _Work, m: NightMessage) -> None:
    """放弃行动: the author's single-holder skills of tonight are withdrawn."""
    groups = _group_slots(work.state)
    skip = next(
        (w.slot_of(m.author) for w in rules_of(work.state).night_words if w.form is Form.NOTHING), None
    )
    for slot, held in list(work.held.items()):
        if held.author == m.author and slot[0] not in groups and slot != skip:
            _supersede(work, held.message_id, slot, m.id)
            del work.held[slot]


def _describe(state: GameState, action: NightAction | None, sts: Sequence[NightStatement]) -> str:
    if isinstance(action, Kill):
        bits = [f"杀 {action.victim}" if action.victim else "不杀人（空刀）"]
        if action.pledge:
            bits.append(f"生死状 {action.pledge}")
        if action.possess:
            bits.append(f"附体 {action.possess}")
        if action.text:
            bits.append("附线文")
        return "，".join(bits)
    if isinstance(action, Protect):
        return f"守护 {action.target}" if action.target else "放弃守护"
    last = sts[-1]
    word = _word(state, last.kind)
    if word.form is Form.NOTHING:
        return "放弃今晚的行动"
    if action is None:
        return f"{word.name_zh}交给 {last.target}"  # a hand-over (威权) names who receives it
    if word.form is Form.ORDER:
        return word.name_zh + (f"（顺序：{'、'.join(last.targets)}）" if last.targets else "")
    if word.form is Form.PAIR:
        return f"{word.name_zh} {'、'.join(last.targets)}"
    target = getattr(action, word.field, None)
    return f"{word.name_zh} {target}"


def override_log(mail: NightMail) -> list[Mapping[str, Any]]:
    """Every override applied (who, when, why, the message, the resulting code), for the judge's log."""
    out: list[Mapping[str, Any]] = []
    for v in mail.verdicts:
        if v.override is not None:
            o = v.override
            out.append(
                {
                    "message_id": v.message_id,
                    "by": o.by,
                    "at": o.at.isoformat() if o.at else None,
                    "why": o.why,
                    "code": v.code.value,
                }
            )
    return out
