"""The lab's match arena: whole matches under the rules, the match score in every state, pooled chunks."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from lab.match_arena import main, pair_interval, play_match, pooled, run
from tressette import AgentState, Variant
from tressette.match import match_winner


def test_a_match_is_played_to_its_end_with_the_score_in_every_state() -> None:
    """Each state carries the totals before its deal; the match ends when the rules say so."""
    seen: list[tuple[int, int, int]] = []

    def first_card(state: AgentState, rng: random.Random) -> int:
        assert state.match is not None and state.match.target == 11
        seen.append((state.match.me, state.match.him, len(state.hand)))
        return state.legal_moves()[0]

    def random_card(state: AgentState, rng: random.Random) -> int:
        return rng.choice(state.legal_moves())

    game = play_match({0: ("A", first_card), 1: ("B", random_card)}, Variant.KIFAMENO, 11, 7, 0, random.Random(1))
    me, him = game.totals["A"], game.totals["B"]
    winner = match_winner(Variant.KIFAMENO, 11, (me, him))
    assert winner is not None and game.winner == ("A", "B")[winner]
    assert (me + him) == 11 * game.deals and game.moves["A"] == 20 * game.deals
    assert seen[0][:2] == (0, 0)
    # A deal's states share its totals, which move on by 11 between deals and end where the match did.
    sums = sorted({m + h for m, h, _ in seen})
    assert sums == [11 * i for i in range(game.deals)]


def test_duplicate_pairs_run_and_pool() -> None:
    """A run of random players gives one result per pair; chunks pool to their sums."""
    a = run("random", "greedy", Variant.TRESSETTE, 11, 2, seed=3)
    b = run("random", "greedy", Variant.TRESSETTE, 11, 2, seed=4)
    assert a["matches"] == 4 and len(a["per_pair"]) == 2 and a["mean_deals"] >= 1
    both: dict[str, Any] = pooled([a, b])
    assert both["matches"] == 8 and both["a_wins"] == a["a_wins"] + b["a_wins"]
    with pytest.raises(ValueError):
        pooled([a, run("random", "greedy", Variant.KIFAMENO, 11, 1, seed=5)])


def test_the_pair_interval_holds_the_mean() -> None:
    """The interval from the pairs' scores holds their mean and narrows with more pairs."""
    lo, hi = pair_interval([2, 1, 1, 0, 2, 1])
    assert lo < 7 / 12 < hi
    lo2, hi2 = pair_interval([2, 1, 1, 0, 2, 1] * 10)
    assert hi2 - lo2 < hi - lo


def test_the_command_writes_and_pools_chunks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Chunks written with --json pool with --pool and no sides; sides are needed otherwise."""
    files = [str(tmp_path / f"c{k}.json") for k in (0, 1)]
    for k, name in enumerate(files):
        assert main(["random", "greedy", "--target", "11", "--pairs", "1", "--first", str(k), "--json", name]) == 0
    assert main(["--pool", *files]) == 0
    assert "4 matches (2 duplicate pairs" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--pairs", "1"])
