"""Measure how equal players split a deal's points: the data behind the bot's match equity.

Self-play (the same player in both seats) on seeded deals, the first lead alternating as in a
match; writes the histogram of the first leader's final points (thirds, 0..35) per variant as
JSON.  ``agent/match_split.json`` is this script's output, merged over the variants::

    PYTHONPATH=. nice python3 lab/scripts/deal-split.py --player mcts:i1000 --deals 2000 \
        --variant tressette --seed 32 --out split-t.json
    PYTHONPATH=. python3 lab/scripts/deal-split.py --merge split-t.json split-k.json --out agent/match_split.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from lab.arena import play_game, series_deal_seed, warm_players
from lab.baselines import get_policy
from tressette import TOTAL_POINTS, Variant


def measure(player: str, variant: Variant, deals: int, seed: int) -> list[int]:
    """Return the histogram of the first leader's final points over ``deals`` self-play deals."""
    warm_players(player)
    policy = get_policy(player)
    counts = [0] * (TOTAL_POINTS + 1)
    for i in range(deals):
        deal_seed = series_deal_seed(seed, i)
        leader = i % 2
        rng = random.Random(deal_seed)
        # play_game only reports per-side totals: name the seats by role to read the leader's points.
        names = {leader: ("leader", policy), 1 - leader: ("other", policy)}
        stats = play_game(names, variant, deal_seed, leader, rng)
        counts[stats["leader"].points] += 1
        if (i + 1) % 100 == 0:
            print(f"{variant.value}: {i + 1}/{deals}", file=sys.stderr, flush=True)
    return counts


def main() -> None:
    """Measure one variant, or merge measured files into the agent's data file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="mcts:i1000")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="tressette")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--merge", nargs="+", metavar="FILE", help="merge measured files instead of measuring")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.merge:
        out: dict[str, object] = {"doc": "First leader's final points (thirds 0..35) between equal players, "
                                  "per variant; written by lab/scripts/deal-split.py", "variants": {}}
        for name in args.merge:
            with open(name) as f:
                data = json.load(f)
            out["variants"][data["variant"]] = {k: data[k] for k in ("player", "deals", "seed", "leader_points")}  # type: ignore[index]
    else:
        counts = measure(args.player, Variant(args.variant), args.deals, args.seed)
        out = {"variant": args.variant, "player": args.player, "deals": args.deals, "seed": args.seed,
               "leader_points": counts}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
