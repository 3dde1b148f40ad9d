"""Measure how far an opponent's plays bear out the evidence model of :mod:`agent.determinize`.

For each trick, at the observer's next decision, every kind of evidence the trick gives is
checked against the opponent's real hand and against uniform worlds (voids respected).  The
odds ratio of "the real hand holds a card of the mask" to "a uniform world does" is what a
world meeting that mask should be weighted by: the figures behind
:data:`agent.determinize.EVIDENCE_WEIGHTS`.

    python -m agent.inference --variant tressette --opponent flat --games 200
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from dataclasses import replace

import numpy as np

from agent.baselines import get_policy
from agent.determinize import EVIDENCE_WEIGHTS, evidence_by_kind, make_root, sample_world
from agent.playout import seed_kernels
from agent.world import W_H1, W_SIZE
from tressette import Deal, Variant, mask_of, state_from_view, view_of

WORLDS = 50


def measure(variant: Variant, opponent: str, observer: str, games: int, seed: int) -> dict[str, list[float]]:
    """Return ``{kind: [observations, real hits, expected uniform hits]}`` over ``games`` deals."""
    rng = random.Random(seed)
    seed_kernels(seed)
    players = (get_policy(observer), get_policy(opponent))
    w = np.zeros(W_SIZE, dtype=np.int64)
    stock = np.zeros(40, dtype=np.int64)
    tally: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for game in range(games):
        deal = Deal.new(variant, game % 2, random.Random(seed * 100_003 + game))
        while not deal.is_over:
            seat = deal.to_move
            state = state_from_view(view_of(deal, seat))
            if seat == 0 and state.history and not state.all_known:
                held = mask_of(deal.hands[1])
                root = make_root(state)
                for kind, mask in evidence_by_kind(replace(state, history=state.history[-1:])):
                    row = tally[kind]
                    row[0] += 1
                    row[1] += bool(held & mask)
                    for _ in range(WORLDS):
                        sample_world(root.w, root.hidden, root.need, root.voids, w, stock)
                        row[2] += bool(w[W_H1] & mask) / WORLDS
            deal.play(players[seat](state, rng))
    return dict(tally)


def odds_ratio(real: float, uniform: float) -> float:
    """Return the odds of ``real`` over the odds of ``uniform`` (both rates in (0, 1))."""
    return (real / (1 - real)) / (uniform / (1 - uniform))


def main(argv: list[str] | None = None) -> None:
    """Print, per kind of evidence, how often the opponent's real hand meets it against uniform worlds."""
    parser = argparse.ArgumentParser(prog="python -m agent.inference", description=__doc__.split("\n")[0])
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="tressette")
    parser.add_argument("--opponent", default="flat", help="the player whose plays are tested")
    parser.add_argument("--observer", default="flat:2000", help="the player whose view the evidence is taken from")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    tally = measure(Variant(args.variant), args.opponent, args.observer, args.games, args.seed)
    print(f"{args.opponent} observed by {args.observer}, {args.variant}, {args.games} deals")
    print(f"{'kind':18s} {'seen':>5s} {'real':>6s} {'uniform':>7s} {'odds ratio':>10s} {'weight':>6s}")
    for kind, (n, real, uniform) in sorted(tally.items()):
        r, u = real / n, uniform / n
        ratio = f"{odds_ratio(r, u):10.2f}" if 0 < r < 1 and 0 < u < 1 else f"{'-':>10s}"
        print(f"{kind:18s} {int(n):5d} {r:6.3f} {u:7.3f} {ratio} {EVIDENCE_WEIGHTS[kind]:6.2f}")


if __name__ == "__main__":
    main()
