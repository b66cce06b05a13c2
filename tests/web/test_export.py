"""The judges' records as spreadsheets: what the desk shows, as CSV and XLSX (issue 20)."""

from __future__ import annotations

import csv
import io
import tomllib
import zipfile
from pathlib import Path

import pytest
import tomli_w
from flask.testing import FlaskClient
from openpyxl import load_workbook

from forumbot import export
from forumbot.cli import main
from forumbot.resources import data_dir
from forumbot.web import data
from tests.web.conftest import Desk


def _csv_rows(body: bytes) -> list[list[str]]:
    assert body.startswith(b"\xef\xbb\xbf"), "Excel needs the BOM to read UTF-8"
    return list(csv.reader(io.StringIO(body[3:].decode("utf-8"))))


def test_a_days_tables_say_what_the_day_page_says(desk: Desk) -> None:
    view = data.day_view(desk.game, desk.store, 1)
    verdicts, tally, attendance, elevator = export.day_tables(desk.game, desk.store, 1)
    assert [(r[1], r[2], r[4], r[6]) for r in verdicts.rows] == [
        (v.pid, v.author, v.label, v.reason) for v in view.verdicts
    ]
    assert [(r[0], r[1]) for r in tally.rows] == [(t.target, t.count) for t in view.tally]
    assert [r[0] for r in attendance.rows] == [a.name for a in view.attendance]
    assert "\n".join(str(r[0]) for r in elevator.rows) == view.elevator_draft.rstrip("\n")
    rows = _csv_rows(export.csv_bytes(verdicts))
    assert rows[0][:5] == ["楼层", "帖子号", "作者", "时间", "判定"]
    assert len(rows) == len(view.verdicts) + 1


def test_the_workbook_holds_every_table_as_a_sheet(desk: Desk) -> None:
    tables = export.day_tables(desk.game, desk.store, 1)
    wb = load_workbook(io.BytesIO(export.xlsx_bytes(tables)))
    assert wb.sheetnames == [t.name for t in tables]
    sheet = wb[tables[0].name]
    assert [c.value for c in sheet[1]] == list(tables[0].headers)
    assert sheet.max_row == len(tables[0].rows) + 1


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://evil.example\",\"领奖\")", "+1", "-2+3", "@SUM(A1)"])
def test_a_name_that_looks_like_a_formula_stays_text(name: str) -> None:
    """A player chooses his name: a spreadsheet must never run it."""
    t = export.Table("t", ("玩家",), ((name,), ("饺子",)))
    rows = _csv_rows(export.csv_bytes(t))
    assert rows[1] == ["'" + name] and rows[2] == ["饺子"]
    sheet = load_workbook(io.BytesIO(export.xlsx_bytes([t])))["t"]
    assert sheet["A2"].value == name and sheet["A2"].data_type == "s"


def test_the_game_export_has_every_role_and_every_day(desk: Desk) -> None:
    tables = {t.name: t for t in export.game_tables(desk.game, desk.store)}
    assert {"玩家", "时间线", "夜晚", "第1日-结论", "第2日-结论"} <= set(tables)
    overview = data.game_overview(desk.game, desk.store)
    assert {(r[0], r[1]) for r in tables["玩家"].rows} == {(p.name, p.role) for p in overview.players}
    assert all(r[1] for r in tables["玩家"].rows), "every role is in the judges' export"


def test_the_desk_serves_exports_to_judges_only(desk: Desk, client: FlaskClient) -> None:
    stranger = desk.app.test_client()
    for url in ("/export/day/1.xlsx", "/export/game.zip"):
        assert stranger.get(url).status_code == 302
    resp = client.get("/export/day/1.xlsx")
    assert resp.status_code == 200 and "attachment" in resp.headers["Content-Disposition"]
    assert load_workbook(io.BytesIO(resp.data)).sheetnames[0] == "第1日-结论"
    resp = client.get("/export/game.zip")
    names = zipfile.ZipFile(io.BytesIO(resp.data)).namelist()
    assert "玩家.csv" in names and "第1日-出勤.csv" in names
    assert client.get("/export/day/9.xlsx").status_code == 404
    assert client.get("/export/day/1.pdf").status_code == 404
    assert 'href="/export/day/1.xlsx"' in client.get("/day/1").get_data(as_text=True)


def test_the_cli_writes_a_day_as_csv_files(
    desk: Desk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tomllib.loads((data_dir() / "examples" / "meishi" / "game.toml").read_text("utf-8"))
    game["game"]["store"] = str(desk.path)
    game_file = tmp_path / "forumbot.toml"
    game_file.write_text(tomli_w.dumps(game), "utf-8")
    out = tmp_path / "out"
    assert main(["--game", str(game_file), "export", "--day", "1", "--format", "csv", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        f"{t.name}.csv" for t in export.day_tables(desk.game, desk.store, 1)
    )
    assert "已写入" in capsys.readouterr().out
    assert main(["--game", str(game_file), "export", "--day", "7", "--out", str(out)]) == 1
