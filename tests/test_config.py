"""The game file: what a judge writes, and the clear errors a wrong one gets."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest

from forumbot.config import canonical_ruleset, game_from_dict, load_game
from forumbot.errors import ConfigError, GameFileError

# These tests check each rule by its message's English wording (the msgid); the Chinese a judge
# reads is checked in tests/test_error_language.py.
pytestmark = pytest.mark.usefixtures("english_messages")

BASE: dict[str, Any] = {
    "game": {"name": "测试局", "ruleset": "R001", "judges": ["法官"]},
    "board": {"url": "https://bbs.example.com/", "fid": 3},
    "players": {"roster": ["甲", "乙", "丙"]},
    "timetable": {"first_night": "2026-06-03"},
    "days": [{"day": 1, "discussion": 2, "vote": 3}, {"day": 2, "discussion": 4, "vote": 5}],
}


def game(**patch: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    for dotted, value in patch.items():
        node = data
        *path, last = dotted.split("__")
        for key in path:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return data


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_r001_timetable_defaults_follow_the_rule_post():
    """R001 §二: submissions due 17:00, the vote closes 13:00 next day, voids effective to 12:30."""
    g = game_from_dict(game())
    d1, d2 = g.days
    assert d1.opens == utc("2026-06-03 09:20")  # 17:20 Beijing: the case post after the 17:00 deadline
    assert d1.closes == utc("2026-06-04 05:00")  # 13:00 Beijing
    assert d1.void_cutoff == utc("2026-06-04 04:30")  # 12:30 Beijing
    assert d1.night_deadline == utc("2026-06-04 09:00")  # the next night's 17:00
    assert d2.opens == utc("2026-06-04 09:20")
    assert d2.discussion_opens == d1.closes  # attendance: previous close ≤ t < close (AMB-24)
    assert g.watched_tids() == [2, 3, 4, 5]


def test_r004_closes_at_21_on_the_last_of_two_calendar_days():
    data = game(game__ruleset="R004")
    data["days"] = [{"day": 1, "vote": 3, "opens": "2026-06-09 21:30"}]  # a Tuesday
    d = game_from_dict(data).days[0]
    assert d.closes == utc("2026-06-10 13:00")  # Wednesday 21:00 Beijing
    assert d.change_cutoff == utc("2026-06-10 12:00")  # no change in the last hour
    assert d.night_deadline == utc("2026-06-10 15:00")  # two hours after closing


def test_r004_day_with_a_weekend_gets_one_more_day():
    data = game(game__ruleset="杀人游戏")
    data["days"] = [{"day": 1, "vote": 3, "opens": "2026-06-12 21:30"}]  # a Friday
    assert game_from_dict(data).days[0].closes == utc("2026-06-14 13:00")  # Sunday 21:00


@pytest.mark.parametrize("alias", ["R001", "r001", "001", "鬼毒", "12人鬼毒"])
def test_rule_set_aliases(alias):
    assert canonical_ruleset(alias) == "R001"


@pytest.mark.parametrize(
    ("patch", "field", "words"),
    [
        ({"game__ruleset": "R999"}, "game.ruleset", "unknown rule set"),
        ({"board__url": "bbs.example.com"}, "board.url", "not an http(s) URL"),
        ({"board__user_agent": "MyBot/1.0"}, "board.user_agent", "robots"),
        ({"board__password": "secret"}, "board.password", "password_env"),
        ({"board__source": "rss"}, "board.source", "api, pc, touch"),
        ({"players__roster": ["甲", "甲"]}, "players.roster", "twice"),
        ({"game__judges": ["甲"]}, "game.judges", "both a judge and a player"),
        ({"game__timezone": "Mars/Base"}, "game.timezone", "unknown time zone"),
        ({"days__0__close": "2026-06-03 12:00"}, "days[day=1].close", "before it opens"),
        ({"days__1__day": 3}, "days[day=3].day", "follows day 1"),
        ({"days__1__opens": "2026-06-03 18:00"}, "days[day=2].opens", "opens before day 1 closes"),
        ({"days__0__void_cutoff": "2026-06-05 12:00"}, "days[day=1].void_cutoff", "outside the vote window"),
        ({"days__0__vote": None}, "days[day=1].vote", "no vote thread"),
        ({"days__0__opens": "tomorrow"}, "days[day=1].opens", "cannot read the time"),
    ],
)
def test_a_wrong_game_file_names_the_field_and_the_fix(patch, field, words):
    data = game(**patch)
    if data["days"][0].get("vote", 0) is None:
        del data["days"][0]["vote"]
    with pytest.raises(GameFileError) as err:
        game_from_dict(data)
    assert err.value.field == field
    assert words in str(err.value)
    assert "Fix:" in str(err.value)


def test_acceleration_is_a_switch_or_the_moment_it_was_declared():
    data = game(game__ruleset="R004")
    data["days"] = [
        {"day": 1, "vote": 3, "opens": "2026-06-09 21:30", "accelerated": True},
        {"day": 2, "vote": 5, "opens": "2026-06-11 00:00", "accelerated": "2026-06-11 10:00"},
    ]
    d1, d2 = game_from_dict(data).days
    assert d1.accelerated and d1.accelerated_at is None
    assert not d2.accelerated and d2.accelerated_at == utc("2026-06-11 02:00")
    data["days"][1]["accelerated"] = 3
    with pytest.raises(GameFileError, match="accelerated"):
        game_from_dict(data)


def test_unknown_player_in_a_proxy_vote_is_refused():
    data = game()
    data["days"][0]["proxy_votes"] = [{"player": "丁", "target": "甲", "at": "2026-06-04 10:00"}]
    with pytest.raises(GameFileError, match="not in the roster") as err:
        game_from_dict(data)
    assert err.value.field == "days[day=1].proxy_votes[0].player"


def test_missing_game_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_game(tmp_path / "nope.toml")


def test_broken_toml_is_reported(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text("[game\nname=", "utf-8")
    with pytest.raises(GameFileError, match="not valid UTF-8 TOML"):
        load_game(p)


def test_relative_store_path_is_next_to_the_game_file(tmp_path):
    p = tmp_path / "g.toml"

    p.write_text(
        '[game]\nruleset="R001"\nstore="x.db"\n[board]\nurl="https://b.example/"\n[players]\nroster=["甲"]\n',
        "utf-8",
    )
    assert load_game(p).store_url == str((tmp_path / "x.db").resolve())


def test_the_bundled_example_game_file_loads():
    from forumbot.resources import data_dir

    g = load_game(data_dir() / "examples" / "meishi" / "game.toml")
    assert g.ruleset == "R001" and len(g.roster) == 12 and g.days[0].vote_tid == 3
