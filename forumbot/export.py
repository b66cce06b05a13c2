"""A day's and a whole game's record as tables, written as CSV or XLSX (issue 20: judge teams keep their
records in spreadsheets).

The tables are made from what the desk shows (:mod:`forumbot.web.data`'s day, night and game views),
never computed again here, so a spreadsheet says exactly what the desk page says. Headers are in the
judge's language; the cells are the desk's own words (verdict labels, reasons in Chinese).

Two things a spreadsheet does that a web page does not, and what is done about them:
- A cell that starts with ``=``, ``+``, ``-``, ``@`` (or a tab/CR) is run as a formula by Excel and
  LibreOffice when a CSV is opened ("CSV injection"): a player can choose such a name. Every text cell
  that starts so gets a leading apostrophe in CSV (shown as text, the usual defence), and is written as
  an explicit string cell in XLSX (openpyxl would otherwise store it as a formula).
- Excel reads a CSV without a byte-order mark in the machine's code page (GBK on a Chinese Windows):
  CSV files are written as UTF-8 *with* a BOM, which Excel, LibreOffice and Python's csv all read.

A game export holds every role: it is for the judges only (the desk serves it behind the login, and the
CLI writes it where the judge says).
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from forumbot.i18n import _

if TYPE_CHECKING:
    from forumbot.config import Game
    from forumbot.store.db import Store

Cell = str | int | None

FORMATS = ("csv", "xlsx")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_SHEET_BAD = re.compile(r"[\[\]:*?/\\]")


@dataclass(frozen=True)
class Table:
    """One sheet: ``name`` (a file or sheet name: short, no path characters), headers, rows."""

    name: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


def _yes(flag: bool) -> str:
    return _("yes") if flag else ""


def day_tables(game: Game, store: Store, n: int) -> list[Table]:
    """Day ``n`` as the desk's day page shows it: every vote post's verdict, the tally, attendance, and
    the 电梯 draft line by line."""
    from forumbot.web import data

    v = data.day_view(game, store, n)
    verdicts = Table(
        _("day{n}-verdicts").format(n=n),
        (
            _("floor"),
            _("pid"),
            _("author"),
            _("time"),
            _("verdict"),
            _("target"),
            _("reason"),
            _("needs review"),
            _("overridden by"),
            _("override reason"),
            _("link"),
        ),
        tuple(
            (
                x.floor,
                x.pid,
                x.author,
                x.at,
                x.label,
                x.target,
                x.reason,
                _yes(x.needs_review),
                x.override_by or "",
                x.override_why or "",
                x.url,
            )
            for x in v.verdicts
        ),
    )
    tally = Table(
        _("day{n}-tally").format(n=n),
        (_("target"), _("votes"), _("voters")),
        tuple((t.target, t.count, "、".join(name for name, _link in t.voters)) for t in v.tally),
    )
    attendance = Table(
        _("day{n}-attendance").format(n=n),
        (_("player"), _("valid posts"), _("all posts"), _("short of posts")),
        tuple((a.name, a.valid, a.total, _yes(a.short)) for a in v.attendance),
    )
    elevator = Table(
        _("day{n}-elevator").format(n=n),
        (_("elevator (BBCode)"),),
        tuple((line,) for line in v.elevator_draft.splitlines()),
    )
    return [verdicts, tally, attendance, elevator]


def game_tables(game: Game, store: Store) -> list[Table]:
    """The whole game: the players with their roles and how they went out, the timeline, each night's
    submissions, deaths and private notices, and every day's tables."""
    from forumbot.web import data

    o = data.game_overview(game, store)
    out = [
        Table(
            _("players"),
            (_("player"), _("role"), _("alive"), _("out"), _("notes")),
            tuple((p.name, p.role, _yes(p.alive), p.out, "、".join(p.notes)) for p in o.players),
        ),
        Table(
            _("timeline"),
            (_("phase"), _("number"), _("starts"), _("ends"), _("threads")),
            tuple(
                (
                    _("night") if t.kind == "night" else _("day"),
                    t.number,
                    t.starts,
                    t.ends,
                    " ".join(str(tid) for tid in t.threads),
                )
                for t in o.timeline
            ),
        ),
    ]
    if o.has_state:
        nights: list[tuple[Cell, ...]] = []
        for t in o.timeline:
            if t.kind != "night" or t.status == "upcoming":
                continue
            nv = data.night_view(game, store, t.number)
            for s in nv.submissions:
                nights.append((t.number, s.at, s.by, s.kind, s.detail, _yes(s.late), _yes(s.ok), s.reason))
            for name in nv.out:
                nights.append((t.number, "", "", _("out"), name, "", "", ""))
            for recipient, messages in nv.private:
                for m in messages:
                    nights.append((t.number, "", recipient, _("private message"), m, "", "", ""))
        out.append(
            Table(
                _("nights"),
                (
                    _("night"),
                    _("time"),
                    _("who"),
                    _("kind"),
                    _("detail"),
                    _("late"),
                    _("accepted"),
                    _("reason"),
                ),
                tuple(nights),
            )
        )
    for d in game.days:
        if d.vote_tid:
            out.extend(day_tables(game, store, d.day))
    return out


def _text_cell(value: Cell) -> Cell:
    """A CSV cell that a spreadsheet shows as text, never runs as a formula."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _safe_name(name: str) -> str:
    return _SHEET_BAD.sub("_", name).strip() or "sheet"


def csv_bytes(table: Table) -> bytes:
    """One table as a UTF-8 CSV with a BOM (Excel opens it in Chinese), formulas neutralised."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(table.headers)
    for row in table.rows:
        w.writerow(["" if c is None else _text_cell(c) for c in row])
    return b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8")


def csv_zip(tables: Sequence[Table]) -> bytes:
    """Several tables as one ZIP of CSV files (one file per table), for a download."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for t in tables:
            z.writestr(f"{_safe_name(t.name)}.csv", csv_bytes(t))
    return buf.getvalue()


def xlsx_bytes(tables: Sequence[Table]) -> bytes:
    """The tables as one workbook, a sheet each; every text cell is an explicit string (no formula)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    first = True
    used: set[str] = set()
    for t in tables:
        title = _safe_name(t.name)[:31]
        while title in used:  # sheet names are unique and at most 31 characters
            title = title[:28] + f"~{len(used)}"
        used.add(title)
        ws = wb.active if first else wb.create_sheet()
        assert ws is not None
        ws.title = title
        first = False
        ws.append(list(t.headers))
        for cell in ws[1]:
            cell.font = Font(bold=True)
        for r, row in enumerate(t.rows, start=2):
            for c, value in enumerate(row, start=1):
                cell = ws.cell(row=r, column=c)
                cell.value = value
                if isinstance(value, str) and cell.data_type != "s":
                    # openpyxl takes a text starting with "=" for a formula: keep it text
                    cell._value = value  # openpyxl has no public setter for this
                    cell.data_type = "s"
        for c, header in enumerate(t.headers, start=1):
            width = max([len(str(header))] + [len(str(row[c - 1] or "")) for row in t.rows[:200]])
            ws.column_dimensions[ws.cell(row=1, column=c).column_letter].width = min(60, width * 2 + 2)
        ws.freeze_panes = "A2"
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def write(tables: Sequence[Table], fmt: str, out: Path) -> list[Path]:
    """Write ``tables`` under ``out``: a workbook ``out`` (``.xlsx``), or for CSV a folder ``out`` with
    one file per table. Returns the files written."""
    if fmt == "xlsx":
        path = out if out.suffix == ".xlsx" else out.with_suffix(".xlsx")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(xlsx_bytes(tables))
        return [path]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for t in tables:
        p = out / f"{_safe_name(t.name)}.csv"
        p.write_bytes(csv_bytes(t))
        written.append(p)
    return written
