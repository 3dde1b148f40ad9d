"""How often lost known endgames are won against ``random``: the solver's card against the best-odds card.

    python scripts/endgame-odds.py SEED GAMES [SHARES] [SPEC]

plays GAMES Tressette games of the arena player SPEC (default ``mcts:i3000``) against ``random`` up to
SPEC's first decision in a known endgame (the stock gone). Where the solver shows that position lost,
it is played out ten times against ``random`` by each endgame policy: ``0`` the solver's card (best
points against perfect play), and each share X of SHARES (default ``1,0.5,0.2``) the card with the
best odds against an opponent playing a random card a share X of the time (``agent/search/odds.py``).
Prints one JSON line: the lost endgames found and each policy's share of them won.
"""

from __future__ import annotations

import json
import random
import sys
from functools import cache

from agent.decide import SearchConfig, decide, solve, warmup
from lab.baselines import get_policy
from tressette import TOTAL_POINTS, AgentState, Deal, Variant, parse_state, state_from_view, view_of

PLAYOUTS = 10


@cache
def _card(state_json: str, share: float) -> int:
    # Rollouts revisit their first positions: each is decided once per policy.
    return decide(parse_state(state_json), config=SearchConfig(fallible_share=share)).card


def _lost_endgame(deal: Deal, seat: int, spec_rng: random.Random, rng: random.Random, spec: str) -> bool:
    """Play SPEC (``seat``) against random to SPEC's first known position; return whether it is lost."""
    player = get_policy(spec)
    while not deal.is_over:
        if deal.to_move == seat:
            state = state_from_view(view_of(deal, seat))
            if state.all_known:
                return _lost(state)
            deal.play(player(state, spec_rng))
        else:
            deal.play(rng.choice(deal.legal_moves()))
    return False


def _lost(state: AgentState) -> bool:
    """Return whether ``state`` (every card known) is lost against perfect play."""
    value = solve(state)[1]
    return state.variant.winner((value, TOTAL_POINTS - value)) != 0


def _wins(deal: Deal, seat: int, share: float, rng: random.Random) -> int:
    """Play the endgame out against random; return 1 if ``seat`` wins."""
    game = deal.copy()
    while not game.is_over:
        if game.to_move == seat:
            game.play(_card(state_from_view(view_of(game, seat)).to_json(), share))
        else:
            game.play(rng.choice(game.legal_moves()))
    return int(game.outcome().winner == seat)


def main() -> None:
    """Collect the lost endgames and print each policy's wins."""
    seed, games = int(sys.argv[1]), int(sys.argv[2])
    shares = [0.0, *(float(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "1,0.5,0.2").split(","))]
    spec = sys.argv[4] if len(sys.argv) > 4 else "mcts:i3000"
    warmup()
    rng = random.Random(seed)
    wins = dict.fromkeys(shares, 0)
    lost = 0
    for g in range(games):
        deal = Deal.new(Variant.TRESSETTE, g % 2, rng)
        if not _lost_endgame(deal, 0, random.Random(rng.random()), rng, spec):
            continue
        lost += 1
        for share in shares:
            play_rng = random.Random(lost)  # every policy meets the same random player's draws
            wins[share] += sum(_wins(deal, 0, share, play_rng) for _ in range(PLAYOUTS))
        _card.cache_clear()
    print(json.dumps({"seed": seed, "games": games, "spec": spec, "lost_endgames": lost,
                      "won_share": {str(s): round(w / max(1, lost * PLAYOUTS), 4) for s, w in wins.items()}}))


if __name__ == "__main__":
    main()
