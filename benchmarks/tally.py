"""How long does judging a busy vote thread take? 2,000 posts, 35 players (target: < 50 ms).

Generates a thread (votes, changes, voids, chat, typos, quotes, late posts, spectators), then times
(a) reading every post's text and (b) the pure day resolution, for both procedures.

    .venv/bin/python benchmarks/tally.py [--posts 2000] [--players 35] [--repeat 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import (
    DayInput,
    DayTimes,
    ProxyVote,
    VotePost,
    judge_day,
)
from forumbot.parsers.votes import read_ballot

OPEN = datetime(2026, 6, 10, 13, 0, tzinfo=UTC)
CLOSE = OPEN + timedelta(days=2)


def make_thread(n_posts: int, n_players: int, procedure: str, seed: int = 7) -> tuple[list[str], list[tuple]]:
    rng = random.Random(seed)
    players = [f"玩家{i:02d}" if i % 3 else f"Player{i:02d}" for i in range(n_players)]
    chatter = [
        "顶",
        "+1",
        "我是好人",
        "？？？",
        "投票截止前还能改吗？",
        "看了一圈讨论帖，说一下我的想法：大家冷静",
        "弃权是因为信息太少",
    ]
    raw: list[tuple] = []
    first_vote: dict[str, int] = {}
    for pid in range(1, n_posts + 1):
        author = rng.choice(players) if rng.random() > 0.02 else "吃瓜群众"
        t = OPEN + timedelta(
            seconds=int((CLOSE - OPEN).total_seconds() * pid / n_posts) + rng.randint(-60, 60)
        )
        target = rng.choice(players)
        roll = rng.random()
        quotes: tuple[int, ...] = ()
        if procedure == "r004":
            if roll < 0.25:
                text = f"投票对象：{target}\n投票理由：发言诡异"
            elif roll < 0.35 and author in first_vote:
                text = f"[quote]原投票[/quote]\n改票对象：{target}\n改票理由：觉得更诡异"
                quotes = (first_vote[author],)
            elif roll < 0.40:
                text = f"投票：{target}"
            elif roll < 0.43:
                text = f"投票对象：{target}x\n投票理由：手滑"
            else:
                text = rng.choice(chatter)
        else:
            if roll < 0.25:
                text = f"投票：{target}（理由见讨论帖）"
            elif roll < 0.30:
                text = "废票"
            elif roll < 0.33:
                text = f"我投{target}吧"
            elif roll < 0.36:
                text = f"投票：{target}，{rng.choice(players)}"
            elif roll < 0.38:
                text = "投票：弃权"
            else:
                text = rng.choice(chatter)
        if "对象" in text and author not in first_vote and "改票" not in text:
            first_vote[author] = pid
        raw.append((pid, author, t, text, quotes, rng.random() < 0.01))
    return players, raw


def build(procedure: str, players: list[str], raw: list[tuple]) -> DayInput:
    posts = tuple(
        VotePost(
            pid=pid,
            floor=pid + 1,
            author=a,
            at=t,
            ballot=read_ballot(text, procedure, players),  # type: ignore[arg-type]
            quoted_pids=q,
            edited=e,
        )
        for pid, a, t, text, q, e in raw
    )
    return DayInput(
        family=procedure,
        day=2,
        roster=tuple(players),
        alive=frozenset(players[:-3]),
        posts=posts,
        times=DayTimes(OPEN, CLOSE),
        discussion_counts={p: 3 for p in players},
        strikes={players[0]: 1},
        proxy_votes=(ProxyVote(players[1], players[2], OPEN + timedelta(hours=1), entered_by="法官"),),
        authority_holder=players[4] if procedure == "r004" else None,
    )


def timed(fn: Callable[[], None], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return min(samples), statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=2000)
    ap.add_argument("--players", type=int, default=35)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    worst = 0.0
    for procedure in ("r001", "r004"):
        players, raw = make_thread(args.posts, args.players, procedure)
        inp = build(procedure, players, raw)

        def read_all(
            procedure: str = procedure, players: list[str] = players, raw: list[tuple] = raw
        ) -> None:
            for r in raw:
                read_ballot(r[3], procedure, players)  # type: ignore[arg-type]

        def judge(inp: DayInput = inp) -> None:
            judge_day(inp)

        parse_min, parse_med = timed(read_all, args.repeat)
        judge_min, judge_med = timed(judge, args.repeat)
        result = judge_day(inp)
        total = parse_med + judge_med
        worst = max(worst, total)
        read = f"read {parse_med:.1f} ms (min {parse_min:.1f})"
        judged = f"judge {judge_med:.1f} ms (min {judge_min:.1f})"
        outcome = f"{result.outcome.kind.value} {','.join(result.outcome.out)}"
        print(
            f"{procedure}: {args.posts} posts, {args.players} players: {read}, {judged}, total {total:.1f} ms"
        )
        print(f"      outcome {outcome}; {len(result.verdicts)} verdicts")
    print(f"worst total {worst:.1f} ms — target < 50 ms: {'OK' if worst < 50 else 'SLOW'}")
    return 0 if worst < 50 else 1


if __name__ == "__main__":
    raise SystemExit(main())
