"""The four-player duplicate arena: both games of a pair share the cards, the summary adds up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lab.partnership_arena import deck_of, main, play_pair, summary


def test_a_pair_swaps_the_partnerships_on_the_same_cards() -> None:
    """The two games of a pair put PIMC on each side of one deck; the scores are the deal's."""
    games = play_pair((3, 1, 2, True))
    assert [g.pimc_side for g in games] == [0, 1]
    assert deck_of(3, 1) == deck_of(3, 1) != deck_of(3, 2)
    for g in games:
        assert sum(g.thirds) == 35 and g.moves == 20  # two PIMC seats, ten cards each
        assert g.score[0] + g.score[1] >= 11


def test_summary_and_saved_run(tmp_path: Path) -> None:
    """The saved run's summary is recomputed from its games; margins are per deal, halved per pair."""
    out = tmp_path / "run.json"
    main(["--pairs", "1", "--worlds", "2", "--seed", "5", "--json", str(out)])
    saved = json.loads(out.read_text())
    again = summary(saved["games"])
    assert again["pairs"] == 1 and again["deals"] == 2
    assert again["won"] + again["drawn"] + again["lost"] == 2
    margin = sum((g["score"][g["pimc_side"]] - g["score"][1 - g["pimc_side"]]) for g in saved["games"]) / 2
    assert abs(again["margin"] - margin) < 1e-9
    assert abs(saved["summary"]["margin"] - margin) < 1e-9


def test_deals_chain_into_matches_to_31() -> None:
    """Each side's series is cut into matches: 8-3 four times wins one to 31 (32-12); an unfinished one is left out."""
    from lab.partnership_arena import matches

    games: list[dict[str, Any]] = [{"pair": p, "pimc_side": s, "score": [8, 3] if s == 0 else [3, 8]}
                                   for p in range(5) for s in (0, 1)]
    m = matches(games)
    assert m["matches_won"] == 2 and m["matches_lost"] == 0  # one per series; the fifth deals start new ones
    lost = [{**g, "score": g["score"][::-1]} for g in games]
    assert matches(lost)["matches_lost"] == 2


def test_named_players_and_a_mixed_pair_play_a_pair() -> None:
    """``--a``/``--b`` specs: a mixed pair against random; a bad spec is refused before any game."""
    import pytest

    from lab.partnership_players import player

    games = play_pair((3, 2, 0, True, "rules+level:normal,w2", "random"))
    assert [g.pimc_side for g in games] == [0, 1] and all(sum(g.thirds) == 35 for g in games)
    for bad in ("grandmaster", "level:master,fast", "rules+rules+rules"):
        with pytest.raises(ValueError):
            player(bad, 0)
