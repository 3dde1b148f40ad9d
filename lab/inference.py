"""Fit and check the opponent model of :mod:`agent.opponent.policy` on played games.

    python -m lab.inference record --player flat --games 600 --seed 1 --out plays-1.npz
    python -m lab.inference fit-policy plays-1.npz plays-2.npz   # writes agent/opponent/policy.json
    python -m lab.inference check-policy --player flat --games 30 --seed 5

``record`` plays games between two copies of a player and keeps every play made while
cards were hidden (the mover's hand, the lead, the cards gone, the card chosen).
``fit-policy`` fits the conditional logit of :mod:`agent.opponent.policy` to recorded plays by
maximum likelihood.  ``check-policy`` plays fresh games and compares the probability the
weighted pool gives the opponent's real hidden cards with the prior's (uniform worlds):
a policy that has learnt something puts more on the real ones.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from agent.kernels.playout import seed_kernels
from agent.opponent.fit import choice_features, fit_logit
from agent.opponent.policy import POLICY_PATH
from agent.opponent.posterior import effective_size, particle_pool
from agent.search.worlds import make_root
from lab.baselines import get_policy
from tressette import AgentState, Deal, Variant, mask_of, state_from_view, view_of

RECORD_COLUMNS = ("hand", "lead", "gone", "chosen", "cfm")


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
            while deal.stock:  # once it is empty every card's place is known
                state = state_from_view(view_of(deal, deal.to_move))
                yield state, frozenset(deal.hands[1 - deal.to_move])
                deal.play(policy(state, rng))


def record_plays(player: str, games: int, seed: int) -> dict[str, np.ndarray]:
    """Return every play made while cards were hidden in ``games`` self-play deals of each variant.

    Columns: ``hand`` (the mover's hand as a mask), ``lead`` (-1 when leading), ``gone``
    (cards played before, the lead included), ``chosen`` and ``cfm``.
    """
    rng = random.Random(seed)
    seed_kernels(seed)
    policy = get_policy(player)
    rows: list[tuple[int, int, int, int, int]] = []
    for game in range(games):
        for variant in Variant:
            deal = Deal.new(variant, game % 2, random.Random(seed * 100_003 + game))
            while deal.stock:
                state = state_from_view(view_of(deal, deal.to_move))
                card = policy(state, rng)
                lead = state.inplay[0] if state.inplay else -1
                gone = mask_of(c for c in range(40) if c not in state.hand and c not in state.unknown)
                rows.append((mask_of(state.hand), lead, gone, card, int(state.cfm)))
                deal.play(card)
    cols = list(zip(*rows, strict=True))
    return {name: np.array(col, dtype=np.int64) for name, col in zip(RECORD_COLUMNS, cols, strict=True)}


def fit_policy(plays: dict[str, np.ndarray]) -> dict[str, list[float]]:
    """Return the fitted policy weights per variant name."""
    out = {}
    for variant in Variant:
        rows = np.flatnonzero(plays["cfm"] == int(variant.cfm))
        x, starts, chosen_at = choice_features(plays, rows)
        out[variant.value] = [round(float(t), 5) for t in fit_logit(x, starts, chosen_at)]
    return out


def check_policy(player: str, games: int, seed: int, *, size: int = 2048, temper: float = 1.0
                 ) -> dict[str, list[float]]:
    """Return, per variant, the posterior's and the prior's mean probability of the real hidden cards.

    Also the mean effective pool size.  A useful policy puts more probability than the prior
    (uniform worlds) on the cards the opponent really holds.
    """
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0, 0.0])
    for state, held in decisions(player, games, seed):
        root = make_root(state)
        cands, cum = particle_pool(state, root.hidden, root.need, root.voids, size=size, temper=temper)
        if not cands.size:
            continue
        weights = np.diff(cum, prepend=0.0)
        allowed = root.allowed
        row = sums[state.variant.value]
        for c in allowed:
            if c in held:
                row[0] += float(weights[(cands >> c) & 1 == 1].sum())
                row[1] += root.need / len(allowed)
                row[2] += 1
        row[3] += effective_size(cum)
        row[4] += 1
    return {v: [post / n, prior / n, ess / m] for v, (post, prior, n, ess, m) in sums.items()}

def main(argv: list[str] | None = None) -> None:
    """Record plays, fit the opponent policy to them, or check it on fresh games."""
    parser = argparse.ArgumentParser(prog="python -m lab.inference", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["record", "fit-policy", "check-policy"])
    parser.add_argument("files", nargs="*", type=Path, help="recorded plays (fit-policy)")
    parser.add_argument("--player", default="flat", help="the player both seats use")
    parser.add_argument("--games", type=int, default=300, help="deals of each variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policy", type=Path, default=POLICY_PATH, help="the policy written (fit-policy)")
    parser.add_argument("--out", type=Path, default=Path("plays.npz"), help="where record writes")
    parser.add_argument("--size", type=int, default=2048, help="candidate hands per decision (check-policy)")
    parser.add_argument("--temper", type=float, default=1.0, help="likelihood exponent (check-policy)")
    args = parser.parse_args(argv)
    if args.command == "record":
        plays = record_plays(args.player, args.games, args.seed)
        np.savez_compressed(args.out, **plays)  # type: ignore[arg-type]
        print(f"{len(plays['chosen'])} plays -> {args.out}")
        return
    if args.command == "fit-policy":
        if not args.files:
            parser.error("fit-policy needs recorded plays (files written by record)")
        loaded = [np.load(f) for f in args.files]
        plays = {k: np.concatenate([d[k] for d in loaded]) for k in RECORD_COLUMNS}
        theta = fit_policy(plays)
        args.policy.write_text(json.dumps({"plays": len(plays["chosen"]), "files": [f.name for f in args.files],
                                           "theta": theta}, indent=1) + "\n")
        print(f"policy from {len(plays['chosen'])} plays -> {args.policy}")
        return
    posterior = check_policy(args.player, args.games, args.seed, size=args.size, temper=args.temper)
    print(f"probability of the opponent's real hidden cards, {args.player}, {args.games} deals of each "
          f"variant (seed {args.seed}, pool {args.size}, temper {args.temper}):")
    for name, (post, prior, ess) in posterior.items():
        print(f"  {name:9s} posterior {post:.4f}   prior {prior:.4f}   ratio {post / prior:.3f}   "
              f"effective pool {ess:.0f}")


if __name__ == "__main__":
    main()
