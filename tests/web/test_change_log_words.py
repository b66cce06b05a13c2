"""The History page speaks the judge's language (issue 20): the desk's change log names actions and items
in words («发件箱：批准», «#22 计票（已修改：第2版）», «撤销：第2日 → 第2夜»). The store keeps the codes."""

from __future__ import annotations

from flask.testing import FlaskClient

from forumbot.desk import Desk
from forumbot.store import judges
from forumbot.web import data
from tests.web.conftest import JUDGE


def test_the_change_log_and_the_versions_read_in_chinese(client: FlaskClient, desk: Desk) -> None:
    data.undo(desk.game, desk.store, JUDGE)
    # a line as the desk's outbox approval writes it (forumbot/web/data.py approve_outbox)
    judges.log_change(desk.store, JUDGE, "outbox approve", "#22 vote_count (edited: revision 2)")
    page = client.get("/history").get_data(as_text=True)
    assert "发件箱：批准" in page and "#22 计票（已修改：第2版）" in page, page
    assert "撤销" in page and "第2日 → 第2夜" in page, page
    for code in ("outbox approve", "vote_count", "edited: revision", "forumbot-runner", "day 2 → night 2"):
        assert code not in page, code
    # the store keeps what was written, for tools
    assert [e.action for e in judges.desk_log(desk.store, limit=2)] == ["outbox approve", "undo"]
