"""``treset play``: a deal in the terminal against a simple opponent, showing only what you may see.

The screen is drawn from :func:`tressette.view_of` for your seat, so it shows
exactly what a player at the portal sees: your hand, the opponent's face-up
draws, counts, the table and both scores.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from typing import TextIO

from tressette import (
    AgentState,
    Deal,
    IllegalMoveError,
    PlayerView,
    Variant,
    card_name,
    parse_card,
    state_from_view,
    traditional_points,
    view_of,
)
from tressette.cards import CardError

Policy = Callable[[AgentState, random.Random], int]


def _random_policy(state: AgentState, rng: random.Random) -> int:
    return rng.choice(state.legal_moves())


def opponent_policy(name: str) -> Policy:
    """Return the opponent's policy: ``random``, a bot level (``easy``, ``normal``, ``strong``), or a lab
    baseline such as ``greedy`` (from a checkout).  Raises KeyError for an unknown name."""
    if name == "random":
        return _random_policy
    from agent.levels import LEVELS, choose_card  # the agent is optional for this command

    if name in LEVELS:
        return lambda state, rng: choose_card(state, name, seed=rng.randrange(2**31))
    from agent.cli import lab_module

    baselines = lab_module("baselines")
    if baselines is None:
        raise KeyError(f"{name!r} is a lab baseline (a checkout's lab/); here: random, {', '.join(LEVELS)}")
    policy: Policy = baselines.get_policy(name)
    return policy


def _names(cards: tuple[int, ...]) -> str:
    return " ".join(f"[{card_name(c)}]" for c in cards) or "-"


def render(view: PlayerView) -> str:
    """Return the screen for ``view``: what that seat knows, and nothing else."""
    assert view.seat is not None
    me, opp = view.seat, 1 - view.seat
    lines = [
        f"--- trick {min(len(view.history) + 1, 20)}/20 · {view.variant.value} · stock {view.stock_count} ---",
        f"opponent: {view.hand_counts[opp]} cards; known: {_names(view.known[opp])}",
        f"table:    {_names(view.table)}",
        f"you:      {_names(view.hand)}",
        f"points:   you {view.points[me]} ({traditional_points(view.points[me])}), "
        f"opponent {view.points[opp]} ({traditional_points(view.points[opp])})",
    ]
    if view.history:
        last = view.history[-1]
        who = "you" if last.winner == me else "opponent"
        drawn = ", ".join(f"{'you' if s == me else 'opponent'} drew {card_name(c)}" for s, c in last.draws)
        lines.append(f"last trick: {_names(last.cards)} taken by {who}" + (f"; {drawn}" if drawn else ""))
    return "\n".join(lines)


def _ask(view: PlayerView, inp: TextIO, out: TextIO) -> int | None:
    legal = view.legal_moves()
    menu = "  ".join(f"{i + 1}={card_name(c)}" for i, c in enumerate(legal))
    while True:
        out.write(f"your card ({menu}, q to quit): ")
        out.flush()
        line = inp.readline()
        if not line or line.strip().lower() == "q":
            return None
        text = line.strip()
        try:
            card = legal[int(text) - 1] if text.isdigit() and 0 < int(text) <= len(legal) else parse_card(text)
        except CardError as exc:
            out.write(f"{exc}\n")
            continue
        return card


def play_deal(variant: Variant, policy: Policy, rng: random.Random, inp: TextIO, out: TextIO) -> int:
    """Play one deal with the human at seat 0; return 0 when finished, 1 if the human quit."""
    deal = Deal.new(variant, first_leader=rng.randrange(2), rng=rng)
    while not deal.is_over:
        if deal.to_move == 0:
            view = view_of(deal, 0)
            out.write(render(view) + "\n")
            card = _ask(view, inp, out)
            if card is None:
                out.write("you left the deal\n")
                return 1
            try:
                deal.play(card, seat=0)
            except IllegalMoveError as exc:
                out.write(f"illegal: {exc}\n")
        else:
            card = policy(state_from_view(view_of(deal, 1)), rng)
            out.write(f"opponent plays {card_name(card)}\n")
            deal.play(card, seat=1)
    outcome = deal.outcome()
    you, opp = outcome.points
    out.write(f"=== deal over: you {you} ({traditional_points(you)}), opponent {opp} ({traditional_points(opp)}) ===\n")
    out.write("you win!\n" if outcome.winner == 0 else "the opponent wins.\n")
    return 0


def main(argv: list[str]) -> int:
    """Run ``treset play [--variant V] [--opponent NAME] [--seed N]``."""
    parser = argparse.ArgumentParser(prog="treset play", description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="tressette")
    parser.add_argument("--opponent", default="easy",
                        help="random, a bot level: easy (default), normal, strong, or (from a checkout) a lab "
                        "baseline such as greedy")
    parser.add_argument("--seed", type=int, default=None, help="seed the shuffle and the opponent")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    try:
        policy = opponent_policy(args.opponent)
    except (ImportError, KeyError, ValueError) as exc:
        print(f"treset play: no opponent {args.opponent!r}: {exc}", file=sys.stderr)
        return 2
    return play_deal(Variant(args.variant), policy, rng, sys.stdin, sys.stdout)
