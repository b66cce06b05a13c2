"""The vote timeline: votes per target over the day, as an SVG drawn by the server (no JavaScript).

:func:`vote_series` turns the day's vote moves (who voted for whom, when; a change moves a vote, a
void or an abstention takes it back) into a step series per target; :func:`timeline_svg` draws those
steps. Both are pure: the caller passes the times already judged and the zone to label them in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from xml.sax.saxutils import escape, quoteattr

PALETTE = (
    "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939",
)  # fmt: skip


@dataclass(frozen=True)
class VoteMove:
    """At ``at``, ``voter``'s one vote goes to ``target`` (None: the vote is withdrawn)."""

    at: datetime
    voter: str
    target: str | None


Series = dict[str, list[tuple[datetime, int]]]


def vote_series(moves: Sequence[VoteMove]) -> Series:
    """Each target's count after every change of it, in time order (a voter holds one vote at a time)."""
    holding: dict[str, str] = {}
    counts: dict[str, int] = {}
    series: Series = {}
    for mv in sorted(moves, key=lambda m: m.at):
        old = holding.pop(mv.voter, None)
        if mv.target is not None:
            holding[mv.voter] = mv.target
        for target, delta in ((old, -1), (mv.target, +1)):
            if target is None or old == mv.target:
                continue
            counts[target] = counts.get(target, 0) + delta
            series.setdefault(target, []).append((mv.at, counts[target]))
    return series


def _ticks(start: datetime, end: datetime, tz: tzinfo, max_ticks: int = 8) -> list[datetime]:
    span = (end - start).total_seconds()
    for hours in (1, 2, 3, 4, 6, 12, 24, 48):
        if span / (hours * 3600) <= max_ticks:
            break
    local = start.astimezone(tz).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    while (local.hour % hours if hours < 24 else local.hour) != 0:  # on the hour grid (midnight for days)
        local += timedelta(hours=1)
    out = []
    while local <= end:
        out.append(local)
        local += timedelta(hours=hours)
    return out


def timeline_svg(
    series: Mapping[str, Sequence[tuple[datetime, int]]],
    *,
    start: datetime,
    end: datetime,
    tz: tzinfo,
    width: int = 760,
    height: int = 300,
    title: str = "",
    marks: Sequence[tuple[datetime, str]] = (),
) -> str:
    """Step lines of each target's votes from ``start`` to ``end``; ``marks`` are labelled verticals
    (the void cutoff, the close). Names are escaped: they come from the board."""
    if end <= start:
        end = start + timedelta(hours=1)
    left, right, top, bottom = 40, 130, 24, 34
    pw, ph = width - left - right, height - top - bottom
    top_count = max([c for pts in series.values() for _, c in pts] + [1])

    def x(t: datetime) -> float:
        t = min(max(t, start), end)
        return left + pw * (t - start).total_seconds() / (end - start).total_seconds()

    def y(c: int) -> float:
        return top + ph - ph * c / top_count

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(title or "timeline")}>',
        f"<title>{escape(title)}</title>",
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>',
    ]
    step = max(1, top_count // 6 + (1 if top_count % 6 else 0)) if top_count > 6 else 1
    for c in range(0, top_count + 1, step):
        parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(c):.1f}" y2="{y(c):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{y(c) + 4:.1f}" text-anchor="end" font-size="11">{c}</text>')
    for t in _ticks(start, end, tz):
        parts.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top}" y2="{top + ph}" stroke="#eee"/>')
        label = t.astimezone(tz).strftime("%H:%M" if t.astimezone(tz).hour else "%m-%d")
        parts.append(
            f'<text x="{x(t):.1f}" y="{top + ph + 16}" text-anchor="middle" font-size="11">{label}</text>'
        )
    for i, (at, label) in enumerate(marks):
        parts.append(
            f'<line x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{top}" y2="{top + ph}" stroke="#999" '
            'stroke-dasharray="4 3"/>'
        )
        parts.append(
            f'<text x="{x(at) - 3:.1f}" y="{top + 12 + 12 * i}" text-anchor="end" font-size="10" fill="#666">'
            f"{escape(label)}</text>"
        )
    ordered = sorted(series.items(), key=lambda kv: (-(kv[1][-1][1] if kv[1] else 0), kv[0]))
    for i, (target, pts) in enumerate(ordered):
        colour = PALETTE[i % len(PALETTE)]
        path = [f"M{x(start):.1f},{y(0):.1f}"]
        for at, c in pts:
            path.append(f"H{x(at):.1f}V{y(c):.1f}")
        path.append(f"H{x(end):.1f}")
        final = pts[-1][1] if pts else 0
        parts.append(
            f'<path d="{"".join(path)}" fill="none" stroke="{colour}" stroke-width="2" '
            f"data-target={quoteattr(target)}><title>{escape(target)}: {final}</title></path>"
        )
        ly = top + 14 + 18 * i
        parts.append(f'<rect x="{left + pw + 10}" y="{ly - 9}" width="12" height="4" fill="{colour}"/>')
        parts.append(
            f'<text x="{left + pw + 28}" y="{ly - 3}" font-size="12">{escape(target)} {final}</text>'
        )
    if not series:
        parts.append(
            f'<text x="{left + pw / 2}" y="{top + ph / 2}" text-anchor="middle" fill="#999">—</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)
