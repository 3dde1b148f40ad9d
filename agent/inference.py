"""Fit and check the card-belief table of :mod:`agent.belief` on played games.

    python -m agent.inference fit --player flat --games 300     # writes agent/belief_table.json
    python -m agent.inference check --player flat --games 100 --seed 2

``fit`` plays games between two copies of a player and, at every decision while the stock
lasts, counts for each bucket how often the opponent really held the card against how often
uniform worlds would give it one.  ``check`` plays fresh games and compares the weights the
table gives the opponent's real hidden cards with those it gives the cards in the stock: a
table that has learnt something weighs the real ones higher.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from agent.baselines import get_policy
from agent.belief import TABLE_PATH, card_weights, load_table, new_observations
from agent.determinize import make_root
from agent.playout import seed_kernels
from tressette import AgentState, Deal, Variant, state_from_view, suit_of, view_of

PSEUDO_COUNT = 3.0
"""Each bucket's ratio is shrunk toward 1 as if this many expected holdings had matched."""


def decisions(player: str, games: int, seed: int) -> Iterator[tuple[AgentState, frozenset[int]]]:
    """Yield (state, the opponent's real hand) at every decision while the stock lasts.

    ``games`` deals of each variant, both seats played by ``player``.
    """
    rng = random.Random(seed)
    seed_kernels(seed)
    policy = get_policy(player)
    for game in range(games):
        for variant in Variant:
            deal = Deal.new(variant, game % 2, random.Random(seed * 100_003 + game))
            while not deal.is_over:
                state = state_from_view(view_of(deal, deal.to_move))
                if not state.all_known:
                    yield state, frozenset(deal.hands[1 - deal.to_move])
                deal.play(policy(state, rng))


def fit(player: str, games: int, seed: int) -> dict[str, list[float]]:
    """Return ``{bucket: [real holdings, uniform expectation]}`` over ``games`` deals of each variant."""
    tally: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for state, held in decisions(player, games, seed):
        root = make_root(state)
        allowed = sum(1 for c in state.hidden if not (root.voids >> suit_of(c)) & 1)
        for bucket, card in new_observations(state):
            if (root.voids >> suit_of(card)) & 1:
                continue  # known to be in the stock: no belief needed
            row = tally[bucket]
            row[0] += card in held
            row[1] += root.need / allowed
    return dict(tally)


def write_table(tally: dict[str, list[float]], meta: dict[str, object], path: Path = TABLE_PATH) -> None:
    """Write the ratios (shrunk toward 1 by :data:`PSEUDO_COUNT`) and the raw counts as JSON."""
    ratios = {k: round((real + PSEUDO_COUNT) / (expected + PSEUDO_COUNT), 4)
              for k, (real, expected) in sorted(tally.items())}
    counts = {k: [int(real), round(expected, 2)] for k, (real, expected) in sorted(tally.items())}
    path.write_text(json.dumps({**meta, "pseudo_count": PSEUDO_COUNT, "ratios": ratios, "counts": counts},
                               indent=1) + "\n")


def check(player: str, games: int, seed: int, table: dict[str, float]) -> dict[str, float]:
    """Return the mean log weight of the opponent's real hidden cards and of the stock's, per variant."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for state, held in decisions(player, games, seed):
        weights = card_weights(state, table)
        row = sums[state.variant.value]
        for c in state.hidden:
            i = 0 if c in held else 2
            row[i] += math.log(weights[c])
            row[i + 1] += 1
    out = {}
    for variant, (held_sum, held_n, stock_sum, stock_n) in sums.items():
        out[f"{variant}_held"] = held_sum / held_n
        out[f"{variant}_stock"] = stock_sum / stock_n
    return out


def main(argv: list[str] | None = None) -> None:
    """Fit the belief table (``fit``) or check one on fresh games (``check``)."""
    parser = argparse.ArgumentParser(prog="python -m agent.inference", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["fit", "check"])
    parser.add_argument("--player", default="flat", help="the player both seats use")
    parser.add_argument("--games", type=int, default=300, help="deals of each variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--table", type=Path, default=TABLE_PATH, help="the table written or checked")
    args = parser.parse_args(argv)
    if args.command == "fit":
        tally = fit(args.player, args.games, args.seed)
        write_table(tally, {"player": args.player, "games_per_variant": args.games, "seed": args.seed}, args.table)
        print(f"{len(tally)} buckets from {args.games} deals of each variant -> {args.table}")
        return
    result = check(args.player, args.games, args.seed, load_table(args.table))
    print(f"mean log weight of hidden cards, {args.player}, {args.games} deals of each variant (seed {args.seed}):")
    for variant in Variant:
        held, stock = result[f"{variant.value}_held"], result[f"{variant.value}_stock"]
        print(f"  {variant.value:9s} opponent's hand {held:+.4f}   stock {stock:+.4f}   "
              f"ratio of geometric means {math.exp(held - stock):.3f}")


if __name__ == "__main__":
    main()
