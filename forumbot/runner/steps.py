"""The runner's real steps: what each moment of the timetable does, on the board, through the desk.

Every step is written to be run again. The runner claims a moment before its work and marks it done
after; a process killed in between leaves the moment ``running``, and the next tick runs it again from
the start. So each step first looks in the store for its own earlier effects and never repeats them:

- night submissions read from the board are stored only when the same action with the same time is not
  stored yet;
- a night is resolved, a day closed, only when its state version (``night N``, ``day N``) does not exist;
  a revote is called only when the store has no call of that number;
- every outbox item has a stable key (``night2/case_post``, ``day1/revote1/call``, ``night2/private/烧卖``)
  and is added only when no item of this game has that key;
- the outbox items of a night or a day's close are added BEFORE the state version that the resolution
  makes: run again, the step finds the state unchanged, recomputes the same resolution (the engine is
  pure, the seed fixed) and adds only the items still missing; once the version exists, every item
  exists too.

What needs a judge stops the moment with :class:`~forumbot.runner.tick.WaitForJudge` (a Chinese reason):
no roles stored; a night message only a judge can read (ambiguous, an unknown name, unreadable, a
group that disagrees). The judge then settles each doubtful message (``forumbot night override``: the
night's messages are kept, and every judgement of them applies the overrides, so the next tick resolves
the night) or types the night's actions (``forumbot night submit``): a night with submissions the judge
entered is resolved from those, and the runner's own reading is shown but not stored. A day's flagged
posts do NOT stop the close: the engine's verdict stands (every flag is in the vote-count draft, which
waits for the judge's approval in the outbox like every public post).

What cannot be had now (the board is down, a read is incomplete) raises
:class:`~forumbot.runner.tick.Delay` with the read status's Chinese reason: nothing final changes, and
the moment runs again on the next tick.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import select

from engine import (
    AudienceKind,
    Event,
    EventKind,
    GameState,
    GroupId,
    Night,
    OutcomeKind,
    Phase,
    Resolution,
    action_from_dict,
    action_to_dict,
    new_night,
    resolve_night,
    submit,
)
from forumbot import urls
from forumbot.client import BoardClient
from forumbot.config import Game
from forumbot.desk import Desk, case_post_draft, elevator_draft, vote_count_draft
from forumbot.drafts import local_text
from forumbot.errors import BoardError, UsageError
from forumbot.nightmail import (
    NightMail,
    NightMailFlags,
    NightMessage,
    mail_flags,
    pm_messages,
    thread_messages,
)
from forumbot.outbox import Destination, ItemKind, Outbox, OutboxRefused, PrivateMessage, Reply
from forumbot.parsers.pm import PmMessage, parse_pm_conversation, parse_pm_list
from forumbot.poll import PollReport, poll
from forumbot.runner.plan import DayTimes, Facts, Moment, MomentKind, plan
from forumbot.runner.tick import Delay, StepResult, WaitForJudge
from forumbot.store import posts, records
from forumbot.store.models import NightSubmissionRow
from forumbot.store.reads import day_read_complete
from forumbot.urls import Url

RUNNER_BY = "forumbot-runner"  # who the runner's own decisions are logged as

# [night_sources] group names → the engine's groups, per submission grammar (as nightmail keys its tables).
_GROUPS: Mapping[str, Mapping[str, GroupId]] = {
    "r001": {"killers": GroupId.BANDITS, "bandits": GroupId.BANDITS, "police": GroupId.POLICE},
    "r004": {"killers": GroupId.KILLERS, "bandits": GroupId.KILLERS, "police": GroupId.POLICE},
}


def night_mail_flags(game_flags: Mapping[str, Any]) -> NightMailFlags:
    """The night-message flags the game file sets (``[flags]``, same names as NightMailFlags)."""
    return mail_flags(game_flags)


class BoardSteps:
    """The desk's workflow behind the runner's :class:`~forumbot.runner.tick.Steps` interface."""

    def __init__(
        self,
        game: Game,
        store: Any,
        *,
        client: BoardClient | None = None,
        outbox: Outbox | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        by: str = RUNNER_BY,
    ) -> None:
        self.game = game
        self.store = store
        self.clock = clock
        self.by = by
        self.desk = Desk(game, store, by=by)
        self.game_id = self.desk.gid
        self.client = client or BoardClient(game.board, now=clock)
        self.outbox = outbox or Outbox(store, game, client=self.client, now=clock, by=by)
        self.grammar = str(self.desk.ruleset.grammar)  # the submission grammar names the groups

    # ------------------------------------------------------------------ the plan

    def revote_minutes(self) -> int:
        return int(getattr(self.desk.day_flags, "r001_revote_deadline_minutes", 60))

    def plan(self) -> list[Moment]:
        """Every moment of the game, from the game file and the store (revotes called, the game over).

        Each day is followed by its night (the timetable's night deadline), so the last night of the
        file is played too. Once a night or a day ended the game, nothing after it is planned."""
        cutoff = MomentKind(self.desk.ruleset.day_cutoff)  # the rule set says which cutoff its days have
        days = [
            DayTimes(
                d.day,
                d.change_cutoff if cutoff is MomentKind.CHANGE_CUTOFF else d.void_cutoff,
                d.closes,
                d.night_deadline,
            )
            for d in self.game.days
        ]
        revotes: dict[int, list[tuple[int, datetime]]] = {}
        with self.store.session() as s:
            for d in self.game.days:
                for number, _plan, called_at in records.revotes_for(s, self.game_id, d.day):
                    deadline = called_at + timedelta(minutes=self.revote_minutes())
                    revotes.setdefault(d.day, []).append((number, deadline))
        moments = plan(
            cutoff_kind=cutoff,
            night1_deadline=self.game.night1_deadline,
            days=days,
            facts=Facts(revotes=revotes),
            last_night=True,
        )
        st = self.desk.state()
        if st is None or st.outcome is None:
            return moments
        label = self.desk.live_history()[-1].label
        kind, _, num = label.partition(" ")
        end = -1
        for i, m in enumerate(moments):
            if kind == "night" and m.kind is MomentKind.NIGHT_DEADLINE and str(m.round) == num:
                end = i
            if kind == "day" and m.kind is not MomentKind.NIGHT_DEADLINE and str(m.round) == num:
                end = i
        return moments[: end + 1] if end >= 0 else moments

    # ------------------------------------------------------------------ reading

    def _poll(self, tids: list[int], *, full: bool) -> PollReport:
        return poll(self.client, self.store, self.game.board, tids, full=full, progress=False)

    def read(self) -> str:
        """An incremental read of the day threads (the cheap poll between deadlines)."""
        report = self._poll(self.game.watched_tids(), full=False)
        if not report.ok:
            raise BoardError(report.failure_message())
        return report.summary()

    def _full_read(self, tids: list[int], after: datetime) -> None:
        """A full read of ``tids`` that must be complete and started after ``after``; else Delay.

        One already done after ``after`` (by this moment in an earlier life, killed since) is enough:
        every post up to the deadline is in the store, so the moment does not read everything again."""
        ok, _ = day_read_complete(self.store, self.game.board, tids, after, full=True, tz=self.game.tz)
        if ok:
            return
        self._poll(tids, full=True)
        ok, reasons = day_read_complete(self.store, self.game.board, tids, after, full=True, tz=self.game.tz)
        if not ok:
            raise Delay("；".join(reasons))

    def group_tids(self) -> list[tuple[GroupId, int]]:
        """Each group's thread(s): the ``tid`` given, else every thread of the group's forum."""
        src = self.game.night_sources
        if src is None:
            return []
        table = _GROUPS.get(self.grammar, _GROUPS["r001"])
        out: list[tuple[GroupId, int]] = []
        for g in src.groups:
            group = table[g.group]
            if g.tid is not None:
                out.append((group, g.tid))
                continue
            try:
                page = self.client.fetch_forum_page(g.fid)
            except BoardError as exc:
                raise Delay(f"无法读取 {g.group} 的讨论组版块 fid {g.fid}：{exc}") from exc
            out += [(group, t.tid) for t in page.threads]
        return out

    def read_pms(self) -> list[PmMessage]:
        """Every private message in the judge's conversations (every page), read now with his login."""
        root = self.game.board.url
        try:
            if self.client.has_credentials and not self.client.logged_in:
                self.client.login()
            page = self.client.get(urls.build(root, Url.PM_LIST))
            listing = parse_pm_list(
                page.body, page.url, date_header=page.date, content_type=page.content_type
            )
            found: list[PmMessage] = []
            for conv in listing.conversations:
                if conv.other_uid is None:
                    continue
                first = self.client.get(urls.build(root, Url.PM_VIEW, uid=conv.other_uid))
                view = parse_pm_conversation(
                    first.body, first.url, date_header=first.date, content_type=first.content_type
                )
                pages = [view]
                for n in range(1, (view.pages or 1) + 1):
                    if n == view.page:
                        continue
                    more = self.client.get(urls.build(root, Url.PM_VIEW_PAGE, uid=conv.other_uid, page=n))
                    pages.append(
                        parse_pm_conversation(
                            more.body, more.url, date_header=more.date, content_type=more.content_type
                        )
                    )
                for p in pages:
                    if p.problems:
                        raise Delay(f"与 {conv.other_name} 的短消息没有读全：{'；'.join(p.problems)}")
                    found += p.messages
        except BoardError as exc:
            raise Delay(f"无法读取法官的短消息：{exc}") from exc
        unique = {m.pmid: m for m in found}
        return sorted(unique.values(), key=lambda m: (m.sent_at, m.pmid))

    # ------------------------------------------------------------------ the steps

    def run(self, moment: Moment, now: datetime) -> StepResult:
        self.desk.refresh()
        if moment.kind is MomentKind.NIGHT_DEADLINE:
            return self.night_deadline(moment)
        if moment.kind in (MomentKind.VOID_CUTOFF, MomentKind.CHANGE_CUTOFF):
            return self.cutoff(moment)
        if moment.kind in (MomentKind.CLOSE, MomentKind.REVOTE_DEADLINE):
            return self.close(moment)
        raise UsageError(f"unknown moment {moment.kind}")

    def send(self) -> str:
        """Send what the judges approved (and settle anything unclear first)."""
        if not self.outbox.items(["approved", "unknown", "sending"]):
            return ""
        report = self.outbox.send()
        sent = sum(1 for s in report.steps if s.status == "sent")
        return f"{sent} sent" + (f"; stopped: {report.stopped}" if report.stopped else "")

    # ------------------------------------------------------------------ night

    def night_messages(self, n: int, deadline: datetime) -> list[NightMessage]:
        """Night ``n``'s messages: the groups' threads (read completely after the deadline) and the PMs."""
        groups = self.group_tids()
        if groups:
            self._full_read([tid for _, tid in groups], deadline)
        msgs: list[NightMessage] = []
        for group, tid in groups:
            stored = posts.thread_posts(self.store, self.game.board, tid)
            msgs += thread_messages([p.to_post() for p in stored if not p.first and p.author], group)
        if self.game.night_sources is not None and self.game.night_sources.pm:
            msgs += pm_messages(self.read_pms())
        # Night n's messages: from day n-1's opening (the game's start for night 1) to day n's opening
        # (game.toml: [night_sources]); earlier ones were judged with their own night, later ones are
        # night n+1's.
        starts = self.game.day(n - 1).opens if n > 1 else None
        ends = next((d.opens for d in self.game.days if d.day == n), None)
        return [m for m in msgs if (starts is None or m.latest >= starts) and (ends is None or m.at < ends)]

    def judged_entries(self, n: int) -> int:
        """How many of night ``n``'s stored submissions a judge entered (not the runner)."""
        with self.store.session() as s:
            rows = s.exec(
                select(NightSubmissionRow).where(
                    NightSubmissionRow.game_id == self.game_id, NightSubmissionRow.night == n
                )
            ).all()
        return sum(1 for r in rows if r.entered_by != self.by and not r.withdrawn)

    def _store_accepted(self, n: int, mail: NightMail, deadline: datetime) -> int:
        """Store the night's final submissions (each once: a re-run finds them and adds nothing)."""
        with self.store.session() as s:
            have = {
                (json.dumps(d, sort_keys=True, ensure_ascii=False), at)
                for d, at in records.night_submissions(s, self.game_id, n)
            }
        added = 0
        for sub in mail.night.submissions:
            times = [v.at for v in mail.verdicts for a in v.actions if a == sub.action]
            at = max(times) if times else (deadline + timedelta(seconds=1) if sub.late else deadline)
            key = (json.dumps(action_to_dict(sub.action), sort_keys=True, ensure_ascii=False), at)
            if key in have:
                continue
            self.desk.night_submit(n, sub.action, at)
            added += 1
        return added

    def night_deadline(self, m: Moment) -> StepResult:
        n = m.round
        st = self.desk.state()
        if st is None:
            raise WaitForJudge("还没有保存角色：请先运行 forumbot setup（抽取或录入身份），下一次 tick 继续")
        # Run again after a crash that came after the night was resolved: everything is computed again
        # from the state the night started from (same reads, same submissions, same seed), so the
        # result recorded is the same and only missing outbox items are added; nothing is stored again.
        resolved = self.desk.state_labelled(f"night {n}") is not None
        if resolved:
            before = self.desk.state_before_night(n)
            if before is None:
                raise WaitForJudge(f"第{n}夜已结算，但找不到它开始时的状态：请法官检查（forumbot history）")
            st = before
        if st.phase is not Phase.NIGHT or st.round != n:
            raise WaitForJudge(
                f"游戏现在是 {st.phase.value} {st.round}，不是第{n}夜：请法官检查（forumbot state）"
            )
        deadline = self.desk.night_deadline(n)
        msgs = self.night_messages(n, m.deadline)
        self.desk.record_night_messages(n, msgs)  # kept: the judge lists and overrides them by id
        mail = self.desk.night_mail(n, msgs, state=st)  # with the judges' overrides of single messages
        verdicts = [
            {"id": v.message_id, "author": v.author, "code": v.code.value, "reason": v.reason}
            for v in mail.verdicts
        ]
        by_judge = self.judged_entries(n)
        # A doubtful message sent after the deadline cannot change the night (a late submission is 不予受理,
        # §二.3-4): only doubts about messages on time wait for the judge.
        late = [f"{v.message_id}（" for v in mail.verdicts if v.needs_review and v.at >= deadline]
        blocking = [o for o in mail.open if not any(o.startswith(p) for p in late)]
        if blocking and not by_judge and not resolved:
            raise WaitForJudge(
                f"第{n}夜有需要法官决定的消息：{'；'.join(blocking)}。"
                "请用 forumbot night override 消息编号 --as accept/ignore 逐条裁定（或用 forumbot night "
                "submit 录入本夜的行动），下一次 tick 继续结算"
            )
        added = 0 if by_judge or resolved else self._store_accepted(n, mail, deadline)
        night = self._stored_night(st, n, deadline)
        seed = self.game_id * 1000 + n  # fixed: the resolution computed again after a crash is the same
        res = resolve_night(st, night, seed=seed)
        items = self._night_items(n, res)
        if not resolved:
            self.desk.night_resolve(n, seed=seed)
        return StepResult(
            f"第{n}夜结算：出局 {'、'.join(res.out) or '无'}",
            {
                "messages": len(msgs),
                "verdicts": verdicts,
                "accepted": [action_to_dict(s.action) for s in night.submissions],
                "stored": added,
                "by_judge": by_judge,
                "out": list(res.out),
                "outbox": items,
            },
        )

    def _stored_night(self, st: GameState, n: int, deadline: datetime) -> Night:
        """Night ``n``'s stored submissions as the engine holds them, from the state ``st`` it began with
        (what ``desk.night`` does from the current state)."""
        night = new_night(st)
        with self.store.session() as s:
            subs = records.night_submissions(s, self.game_id, n)
        for data, at in subs:
            night = submit(st, night, action_from_dict(data), late=at > deadline)
        return night

    def _night_items(self, n: int, res: Resolution) -> list[int]:
        """The case post and every private result, each added once."""
        tid = self._case_tid(n)
        ids = [
            self._add(
                f"night{n}/case_post",
                ItemKind.CASE_POST,
                Reply(tid),
                lambda: case_post_draft(self.desk, n, res.events),
                night=n,
            )
        ]
        for player, (kind, texts) in sorted(self._private(res.events, res.state).items()):
            body = f"【{self.game.name}】第{n}夜（仅你可见）\n" + "\n".join(texts)
            uid = self.outbox.uid_map().get(player)
            if uid is None:
                raise WaitForJudge(
                    f"不知道 {player} 的 uid，无法私信第{n}夜的结果：请在游戏文件 [outbox.uids] 写明"
                )
            ids.append(
                self._add(
                    f"night{n}/private/{player}",
                    kind,
                    PrivateMessage(uid),
                    functools.partial(str, body),
                    night=n,
                    player=player,
                )
            )
        # A night that ends the game: its case post already names the winner and every identity.
        return ids

    def _case_tid(self, n: int) -> int:
        """Where night ``n``'s case post goes: day ``n``'s discussion thread (else the last day's)."""
        day = next((d for d in self.game.days if d.day == n), None) or self.game.days[-1]
        tid = day.discussion_tid or day.vote_tid
        if tid is None:
            raise WaitForJudge(f"第{n}日没有讨论帖或投票帖：请在游戏文件 [[days]] 写明")
        return tid

    def _private(self, events: tuple[Event, ...], state: GameState) -> dict[str, tuple[ItemKind, list[str]]]:
        """What each living player learns in private: his own events and his group's."""
        out: dict[str, tuple[ItemKind, list[str]]] = {}
        alive = set(state.living())

        def give(name: str, e: Event) -> None:
            kind, texts = out.get(name, (ItemKind.NIGHT_RESULT, []))
            if e.kind is EventKind.CHECK_RESULT:
                kind = ItemKind.CHECK_RESULT
            out[name] = (kind, [*texts, e.text])

        for e in events:
            if e.audience.kind is AudienceKind.PLAYER and e.audience.name:
                give(e.audience.name, e)
            elif e.audience.kind is AudienceKind.GROUP and e.audience.name:
                for name in state.group_members(GroupId(e.audience.name)):
                    if name in alive:
                        give(name, e)
        return {k: v for k, v in out.items() if k in alive}

    def _game_over(self, events: tuple[Event, ...], tid: int) -> int:
        text = "\n".join(e.text for e in events if e.public and e.kind is EventKind.GAME_OVER)
        body = f"[b]【{self.game.name}】游戏结束[/b]\n{text}"
        return self._add("game/over", ItemKind.JUDGE_POST, Reply(tid), lambda: body)

    # ------------------------------------------------------------------ day

    def cutoff(self, m: Moment) -> StepResult:
        """The void (R001) or change (R004) cutoff: a full read and the running count."""
        n = m.round
        day = self.game.day(n)
        tids = [t for t in (day.vote_tid,) if t is not None]
        self._full_read(tids, m.deadline)
        judged = self.desk.tally(n, as_of=m.deadline)
        if day.vote_tid is None:
            return StepResult("没有投票帖", {})
        item = self._add(
            f"day{n}/{m.kind.value}/running_count",
            ItemKind.RUNNING_COUNT,
            Reply(day.vote_tid),
            lambda: vote_count_draft(self.desk, judged),
            day=n,
        )
        counts = {line.target: line.count for line in judged.result.final_tally}
        return StepResult(f"第{n}日截止前计票", {"count": counts, "outbox": [item]})

    def close(self, m: Moment) -> StepResult:
        """The close or a revote's deadline: a full read, the day judged, a revote called or the day
        closed."""
        n = m.round
        day = self.game.day(n)
        tids = [t for t in (day.vote_tid, day.discussion_tid) if t is not None]
        self._full_read(tids, m.deadline)
        if self.desk.state() is None:
            raise WaitForJudge("还没有保存角色：请先运行 forumbot setup，下一次 tick 结算这一天")
        with self.store.session() as s:
            called = records.revotes_for(s, self.game_id, n)
        # At the close, a revote already called means this moment ran before (a crash after the call):
        # only its post may be missing. At revote k's deadline, a revote k+1 already called likewise.
        if len(called) > m.number:
            number, plan_dict, called_at = called[m.number]
            item = self._revote_item(n, number, plan_dict, called_at)
            return StepResult(f"第{n}日重投 #{number} 已宣布", {"revote": number, "outbox": [item]})
        closed = self.desk.state_labelled(f"day {n}") is not None
        judged = self.desk.tally(n)
        r = judged.result
        if r.outcome.kind is OutcomeKind.REVOTE and r.outcome.plan is not None:
            judged = self.desk.revote(n, m.at)
            with self.store.session() as s:
                number, plan_dict, called_at = records.revotes_for(s, self.game_id, n)[-1]
            item = self._revote_item(n, number, plan_dict, called_at)
            return StepResult(f"第{n}日平票：重投 #{number}", {"revote": number, "outbox": [item]})
        preview = self.desk.preview_close(judged)
        if preview is None:
            raise WaitForJudge(f"第{n}日无法结算：保存的状态不是第{n}日（forumbot state）")
        # Run again after a crash that came after the close: the same preview (from the state the day
        # began with), only missing items added, the day not closed twice.
        items = self._day_items(n, judged, preview, m)
        res = preview if closed else self.desk.close_day(n)
        counts = {line.target: line.count for line in r.final_tally}
        return StepResult(
            f"第{n}日结算：出局 {'、'.join(res.out) or '无'}",
            {
                "count": counts,
                "executed": list(r.executed),
                "drowned": list(r.drowned_names),
                "outbox": items,
            },
        )

    def _revote_item(self, n: int, number: int, plan_dict: Mapping[str, Any], called_at: datetime) -> int:
        day = self.game.day(n)
        deadline = called_at + timedelta(minutes=self.revote_minutes())
        body = (
            f"[b]【{self.game.name}】第{n}日 重投 #{number}[/b]\n"
            f"平票，候选人：{'、'.join(plan_dict.get('candidates', []))}\n"
            f"需要重投的玩家：{'、'.join(plan_dict.get('participants', []))}\n"
            f"重投截止：{local_text(deadline, self.game.tz)}（格式：重投：名字）"
        )
        return self._add(
            f"day{n}/revote{number}/call", ItemKind.REVOTE_CALL, Reply(day.vote_tid or 0), lambda: body, day=n
        )

    def _day_items(self, n: int, judged: Any, preview: Resolution, m: Moment) -> list[int]:
        day = judged.day
        vote_tid = day.vote_tid or 0
        ids = [
            self._add(
                f"day{n}/vote_count",
                ItemKind.VOTE_COUNT,
                Reply(vote_tid),
                lambda: vote_count_draft(self.desk, judged),
                day=n,
            )
        ]
        execution = [
            e.text
            for e in preview.events
            if e.public
            and e.kind in (EventKind.EXECUTION, EventKind.GUARDED_EXECUTION, EventKind.NO_EXECUTION)
        ]
        if execution:
            ids.append(
                self._add(
                    f"day{n}/execution",
                    ItemKind.EXECUTION_NOTICE,
                    Reply(vote_tid),
                    lambda: "\n".join(execution),
                    day=n,
                )
            )
        drowned = [e.text for e in preview.events if e.public and e.kind is EventKind.DROWNING]
        if drowned:
            ids.append(
                self._add(
                    f"day{n}/drowning",
                    ItemKind.DROWNING_NOTICE,
                    Reply(vote_tid),
                    lambda: "\n".join(drowned),
                    day=n,
                )
            )
        if judged.attendance is not None and day.discussion_tid is not None:
            floors = {p.pid: p.floor for p in self.desk.discussion_posts(day)}
            att = judged.attendance
            ids.append(
                self._add(
                    f"day{n}/elevator",
                    ItemKind.ELEVATOR,
                    Reply(day.discussion_tid),
                    lambda: elevator_draft(self.desk, day, att, floors, day.closes),
                    day=n,
                )
            )
        if preview.state.outcome is not None:
            ids.append(self._game_over(preview.events, vote_tid))
        return ids

    # ------------------------------------------------------------------ the outbox, once per key

    def _add(
        self,
        key: str,
        kind: ItemKind,
        dest: Destination,
        body: Callable[[], str],
        *,
        day: int | None = None,
        night: int | None = None,
        player: str = "",
    ) -> int:
        found = self.outbox.by_key(key)
        if found is not None:
            return found
        try:
            return self.outbox.add(kind, dest, body(), day=day, night=night, player=player, key=key)
        except OutboxRefused as exc:
            raise WaitForJudge(f"{key}：{exc}") from exc


__all__ = ["RUNNER_BY", "BoardSteps", "night_mail_flags"]
