"""The ladder's rating fit and the arena's level players."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from lab import ladder
from lab.baselines import get_policy
from lab.ladder import fit, short
from tressette import Deal, Variant, state_from_view, view_of


def _match(a: str, b: str, wins: int, games: int, variant: str = "tressette") -> dict[str, object]:
    return {"a": a, "b": b, "variant": variant, "A": {"wins": wins, "games": games}}


def test_the_fit_orders_players_anchors_the_scale_and_matches_a_known_gap() -> None:
    """A 76% head-to-head is about 200 points on the logistic 400 scale; the anchor stays fixed."""
    ratings = fit([_match("level:novice", "greedy", 760, 1000), _match("level:easy", "level:novice", 760, 1000)],
                  anchor=("greedy", 1500.0))
    assert ratings["greedy"] == (1500.0, 0.0)
    assert abs(ratings["novice"][0] - 1700) < 5 and abs(ratings["easy"][0] - 1900) < 10
    assert 0 < ratings["novice"][1] < ratings["easy"][1]
    assert short("level:strong,i20000") == "strong" and short("greedy") == "greedy"


def test_level_players_play_legal_cards_and_reject_bad_names() -> None:
    """``level:NAME`` and ``level:NAME,iN`` are arena players."""
    state = state_from_view(view_of(Deal.new(Variant.TRESSETTE, 0, random.Random(2)), 0))
    for name in ("level:beginner", "level:easy", "level:strong,i64"):
        assert get_policy(name)(state, random.Random(0)) in state.legal_moves()
    for bad in ("level:nobody", "level:strong,x5"):
        try:
            get_policy(bad)
        except KeyError:
            continue
        raise AssertionError(bad)


def test_the_fit_refuses_to_mix_variants() -> None:
    """Kifameno's matches are reported apart: one fit, one variant."""
    with pytest.raises(ValueError, match="one variant"):
        fit([_match("level:novice", "greedy", 60, 100), _match("level:easy", "level:novice", 60, 100, "kifameno")])


def test_run_plays_only_the_named_matches_and_keeps_finished_ones(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``--only A/B`` picks matches by level name; a file already there is not played again."""
    played: list[tuple[str, str, int]] = []

    class Result:
        def __init__(self, a: str, b: str) -> None:
            self.a, self.b = a, b

        def summary(self) -> dict[str, object]:
            return {"a": self.a, "b": self.b, "a_win_rate": 0.5, "a_ci95": [0.4, 0.6]}

    def fake_match(a: str, b: str, variant: object, deals: int, seed: int) -> Result:
        played.append((a, b, deals))
        return Result(a, b)

    monkeypatch.setattr(ladder, "run_match", fake_match)
    (tmp_path / ladder.file_name("flat", "level:normal", "kifameno")).write_text("{}")
    ladder.run(200, tmp_path, ladder.Variant.KIFAMENO, 25, ["flat/strong", "flat/normal", "master/strong"])
    assert played == [("level:master,i20000", "level:strong", 100), ("flat", "level:strong", 200)]
    assert json.loads((tmp_path / "flat--level_strong--kifameno.json").read_text())["a"] == "flat"


def test_the_report_pools_chunks_of_a_match_and_needs_the_anchor_for_ratings() -> None:
    """Two chunks of one match are one line; without ``greedy`` only the win rates are shown."""
    def chunk(first: int, wins: int) -> dict[str, object]:
        side = {"wins": wins, "games": 100, "points": 0, "moves": 0, "think_s": 0.0, "max_move_ms": 0.0}
        return {"a": "level:strong", "b": "level:normal", "variant": "kifameno", "deals": 50, "seed": 25,
                "first": first, "per_deal": [], "A": side, "B": side | {"wins": 100 - wins}}

    text = ladder.report([chunk(0, 60), chunk(50, 70)])
    assert text.count("strong vs normal") == 1 and "0.650" in text and "200" in text
    assert "no ratings" in text
