"""The four-player ladder: arena runs read as matches of deals, ratings anchored at the rule player."""

from __future__ import annotations

from typing import Any

from lab.partnership_ladder import ANCHOR, fit, match_of, name_of, report


def _run(a: str, b: str, scores: list[tuple[int, int]]) -> dict[str, Any]:
    """Return a saved run whose games give A (on alternating sides) ``scores`` (A's, B's)."""
    games = []
    for i, (mine, theirs) in enumerate(scores):
        side = i % 2
        games.append({"pair": i // 2, "pimc_side": side, "score": [mine, theirs] if side == 0 else [theirs, mine]})
    return {"args": {"a": a, "b": b, "worlds": 32}, "games": games}


def test_names_keep_their_options_and_draws_count_half() -> None:
    """A spec's options stay in its name (a budget is part of what was rated); a draw is half a win."""
    assert name_of("level:master,ms250") == "master/ms250" and name_of("rules+level:master") == "rules+master"
    m = match_of(_run("level:master,ms250", "rules", [(7, 4), (5, 5), (3, 8), (9, 2)]))
    assert m["a"] == "master/ms250" and m["b"] == "rules" and m["A"] == {"wins": 2.5, "games": 4}


def test_the_fit_anchors_the_rule_player_and_orders_by_strength() -> None:
    """A player who wins most deals against the rule player rates above it, one who loses most below."""
    runs = [_run("level:master,ms250", "rules", [(8, 3)] * 30 + [(3, 8)] * 10),
            _run("level:beginner", "rules", [(8, 3)] * 12 + [(3, 8)] * 28)]
    ratings = fit([match_of(r) for r in runs], ANCHOR)
    assert ratings["rules"][0] == ANCHOR[1]
    assert ratings["beginner"][0] < ANCHOR[1] < ratings["master/ms250"][0]
    text = report(runs)
    assert "master/ms250" in text and "rules" in text and "ratings" in text
