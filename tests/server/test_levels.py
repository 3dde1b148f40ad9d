"""The bot levels: defined once by the agent, announced in ``bot_hello``, offered by the server."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.levels import LEVELS, level_info
from server.game.levels import FALLBACK_TIME_MS, offered_levels
from server.protocol import BotHello


def test_the_servers_fallback_is_the_agents_levels() -> None:
    """The fallback for a bot that has not said hello holds the agent's levels and times."""
    assert {lv.name: lv.time_ms for lv in LEVELS.values()} == FALLBACK_TIME_MS


def test_bot_hello_carries_the_agents_levels_and_the_server_takes_them() -> None:
    """``level_info`` comes from ``agent/levels.py`` and parses on the server; announced times win."""
    info = level_info(["normal", "strong", "nonsense"])
    assert info == [{"name": "normal", "time_ms": LEVELS["normal"].time_ms, "rating": LEVELS["normal"].rating},
                    {"name": "strong", "time_ms": LEVELS["strong"].time_ms, "rating": LEVELS["strong"].rating}]
    hello = BotHello.model_validate({"type": "bot_hello", "levels": ["normal", "strong"], "level_info": info,
                                     "capacity": 2})
    announced = {i.name: i.time_ms for i in hello.level_info}
    assert [i.rating for i in hello.level_info] == [LEVELS["normal"].rating, LEVELS["strong"].rating]
    assert offered_levels({**announced, "normal": 250}, []) == {**FALLBACK_TIME_MS, "normal": 250}
    assert list(offered_levels(announced, ["strong"])) == ["strong"]
    old = BotHello.model_validate({"type": "bot_hello", "levels": ["easy"], "capacity": 1})  # no level_info
    assert old.level_info == []
    with pytest.raises(ValidationError):
        BotHello.model_validate({"type": "bot_hello", "levels": ["easy"], "capacity": 1,
                                 "level_info": [{"name": "easy", "time_ms": 0}]})
