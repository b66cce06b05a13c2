"""A small R001 game of several days written straight into a store (no board): each day a vote thread and
a discussion thread, as a poll would have stored them (forumbot/store/pagewrite.py).

Six players, no roles stored (who is alive comes from the days' results). Day 1: 己 gets three votes
(甲 乙 丙) and is executed; 戊 gets 丁's vote. Day 2: 戊 gets two (甲 乙), 甲 gets 戊's and the dead
己's (not counted). Day 3: 丁 gets two (甲 乙). Everyone posts three times in each discussion thread,
except 丙, who posts once (short of the minimum two days running: drowned on day 2).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from forumbot.config import Game, game_from_dict
from forumbot.parsers.records import Post, Source, ThreadInfo, ThreadPage, TimeSource
from forumbot.store import Store, pagewrite

BOARD = "https://bbs.example.com/"
ROSTER = ("甲", "乙", "丙", "丁", "戊", "己")
T0 = datetime(2026, 6, 4, 9, 20, tzinfo=UTC)  # day 1 opens (17:20 in Asia/Shanghai)

VOTES: dict[int, list[tuple[str, str]]] = {
    1: [("甲", "己"), ("乙", "己"), ("丙", "己"), ("丁", "戊"), ("戊", "丁"), ("己", "甲")],
    2: [("甲", "戊"), ("乙", "戊"), ("丙", "丁"), ("丁", "丙"), ("戊", "甲"), ("己", "甲")],
    3: [("甲", "丁"), ("乙", "丁"), ("丁", "乙"), ("戊", "甲")],
}


def opens(day: int) -> datetime:
    return T0 + timedelta(days=day - 1)


def closes(day: int) -> datetime:
    return opens(day) + timedelta(hours=19, minutes=40)  # 13:00 the next day


def vote_tid(day: int) -> int:
    return 100 + 2 * day


def discussion_tid(day: int) -> int:
    return 101 + 2 * day


def vote_pid(day: int, k: int) -> int:
    """The pid of the k-th vote of ``day`` (k = 0, 1...; the judges' opening post is k = -1)."""
    return 10_000 * day + 2 + k


def game(store_url: str, days: int = 3) -> Game:
    local = {d: opens(d).astimezone(UTC) + timedelta(hours=8) for d in range(1, days + 1)}
    data: dict[str, Any] = {
        "game": {"name": "测试杀", "ruleset": "R001", "timezone": "Asia/Shanghai", "judges": ["法官"]},
        "board": {"url": BOARD, "source": "pc", "fid": 3},
        "players": {"roster": list(ROSTER)},
        "timetable": {"first_night": "2026-06-03", "night_deadline": "17:00", "vote_close": "13:00"},
        "days": [
            {
                "day": d,
                "vote": vote_tid(d),
                "discussion": discussion_tid(d),
                "opens": local[d].strftime("%Y-%m-%d %H:%M"),
            }
            for d in range(1, days + 1)
        ],
    }
    data["game"]["store"] = store_url
    return game_from_dict(data)


def post(pid: int, tid: int, author: str, at: datetime, text: str, *, first: bool = False) -> Post:
    return Post(
        pid=pid,
        tid=tid,
        author=author,
        uid=None,
        floor=None,
        posted_at=at,
        posted_until=at,
        time_source=TimeSource.TEXT,
        text=text,
        html=f"<p>{text}</p>",
        first=first,
    )


def store_page(store: Store, tid: int, posts: list[Post], seen_at: datetime) -> None:
    pagewrite.record_page(
        store, BOARD, ThreadPage(ThreadInfo(tid, 3, "t", 1, 1), tuple(posts), Source.PC), seen_at=seen_at
    )


def vote_thread(day: int) -> list[Post]:
    out = [post(vote_pid(day, -1), vote_tid(day), "法官", opens(day), "投票帖", first=True)]
    for k, (who, whom) in enumerate(VOTES.get(day, [])):
        out.append(
            post(vote_pid(day, k), vote_tid(day), who, opens(day) + timedelta(hours=1 + k), f"投票：{whom}")
        )
    return out


def discussion_thread(day: int) -> list[Post]:
    tid = discussion_tid(day)
    out = [post(10_000 * day + 5000, tid, "法官", opens(day), "【案情】", first=True)]
    pid = 10_000 * day + 5001
    for who in ROSTER:
        for k in range(1 if who == "丙" else 3):
            out.append(
                post(
                    pid,
                    tid,
                    who,
                    opens(day) + timedelta(minutes=10 + pid % 97),
                    f"{who}的第{k + 1}次发言，认真分析",
                )
            )
            pid += 1
    return out


def fill(store: Store, days: int = 3) -> None:
    """Every day's threads, as read completely after the last day's close."""
    seen = closes(days) + timedelta(minutes=5)
    for d in range(1, days + 1):
        store_page(store, vote_tid(d), vote_thread(d), seen)
        store_page(store, discussion_tid(d), discussion_thread(d), seen)
