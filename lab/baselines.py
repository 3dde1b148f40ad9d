"""Baseline players every improvement is measured against.

- ``random``: a uniformly random legal card.
- ``greedy``: one-ply common sense (the playout policy without randomness).
- ``flat``: the thesis's agent (Briskula.si): flat UCB1 over its own cards,
  uniform determinizations (no inference from voids), weighted random
  playouts (the guided policy with half its cards random), C = sqrt(2),
  delta = 1 (reward = (win + points share) / 2), 10,000 iterations, and
  plain exact alpha-beta in the last 10 tricks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from agent.decide import SearchConfig, decide, solve
from agent.kernels.playout import GUIDED, RANDOM, guided_card, playout, seed_kernels
from agent.kernels.world import NOGIL, W_SIZE, legal_mask, step
from agent.search.mcts import reward0
from agent.search.worlds import make_root, sample_world
from tressette import AgentState

Policy = Callable[[AgentState, random.Random], int]
"""Pick a legal card for a state; randomness only from the given generator."""

Player = Policy
"""The arena's name for a policy."""

FLAT_ITERATIONS = 10_000
FLAT_C = math.sqrt(2)
FLAT_DELTA = 0.5  # delta = 1 in the thesis's units: win and points share weigh the same
FLAT_EPS = 0.5


@njit(cache=True, nogil=NOGIL)
def run_flat(visits: np.ndarray, total: np.ndarray, w0: np.ndarray, hidden: np.ndarray, need: int,
             cfm: bool, iterations: int, c_explore: float, delta: float, policy: int, eps: float) -> None:
    """Flat UCB1 over the root's cards with uniform determinizations (the thesis's agent)."""
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    sample_world(w0, hidden, need, 0, w, stock)
    legal = legal_mask(w)
    done = 0
    for c in range(40):
        done += visits[c]
    for _ in range(iterations):
        sample_world(w0, hidden, need, 0, w, stock)
        best = -1
        best_score = -1e300
        for c in range(40):
            if not (legal >> c) & 1:
                continue
            if visits[c] == 0:
                best = c
                break
            score = total[c] / visits[c] + c_explore * math.sqrt(math.log(done + 1) / visits[c])
            if score > best_score:
                best_score = score
                best = c
        step(w, stock, best)
        p0 = playout(w, stock, cfm, policy, eps)
        visits[best] += 1
        total[best] += reward0(p0, cfm, delta)
        done += 1


def random_policy(state: AgentState, rng: random.Random) -> int:
    """Return a uniformly random legal card."""
    return rng.choice(state.legal_moves())


def greedy_policy(state: AgentState, rng: random.Random) -> int:
    """Return the one-ply sensible card (random among leads)."""
    legal = state.legal_moves()
    if state.is_leading:
        return rng.choice(legal)
    root = make_root(state)
    mask = 0
    for c in legal:
        mask |= 1 << c
    seed_kernels(rng.randrange(2**31))
    return int(guided_card(root.w, mask, state.cfm, 0.0))


def flat_policy(state: AgentState, rng: random.Random, iterations: int = FLAT_ITERATIONS) -> int:
    """Return the thesis agent's card: flat UCB1 + exact endgame."""
    if state.all_known:
        return solve(state)[0]
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]
    root = make_root(state, use_voids=False)
    visits = np.zeros(40, dtype=np.int64)
    total = np.zeros(40, dtype=np.float64)
    seed_kernels(rng.randrange(2**31))
    run_flat(visits, total, root.w, root.hidden, root.need, state.cfm, iterations, FLAT_C, FLAT_DELTA,
             GUIDED, FLAT_EPS)
    return int(max(legal, key=lambda c: (visits[c], total[c])))


@dataclass(frozen=True, slots=True)
class MctsPolicy:
    """The full agent at a fixed budget, as a policy (for the arena)."""

    time_ms: int = 1000
    iterations: int | None = None
    jobs: int = 1
    config: SearchConfig = SearchConfig()

    def __call__(self, state: AgentState, rng: random.Random) -> int:
        """Return the agent's card, seeded from ``rng``."""
        return decide(state, time_ms=self.time_ms, iterations=self.iterations,
                      seed=rng.randrange(2**31), jobs=self.jobs, config=self.config).card


_CONFIG_KEYS = {"c": "c_explore", "d": "delta", "e": "eps", "f": "fallible_share"}


def _is_number(text: str) -> bool:
    return text.replace(".", "", 1).isdigit()


def _mcts_policy(arg: str) -> MctsPolicy:
    """Parse ``MS`` or ``iN``, then optional ``,cX`` ``,dX`` ``,eX`` ``,pN`` ``,tX`` ``,mX`` ``,fX`` ``,random``
    ``,novoids`` ``,nomatch`` ``,full`` settings and ``,policy=FILE`` (the opponent policy file this process plays with,
    e.g. one written by ``treset-agent fit-policy``; KeyError for anything else).

    The settings issue #24 removed (``,draws``, ``,sN``, ``,mu``, ``,rX``, ``,uX``, ``,lN``) are at the tag
    ``search-options-before-24``."""
    budget, *options = arg.split(",") if arg else [""]
    changes: dict[str, object] = {}
    for opt in options:
        if opt == "random":
            changes["policy"] = RANDOM
        elif opt == "full":
            changes["stop_early"] = False
        elif opt[:1] == "p" and opt[1:].isdigit():
            changes["particles"] = int(opt[1:])
        elif opt[:1] == "t" and _is_number(opt[1:]):
            changes["temper"] = float(opt[1:])
        elif opt[:1] == "m" and _is_number(opt[1:]):
            changes["model_share"] = float(opt[1:])
        elif opt == "novoids":
            changes["use_voids"] = False
        elif opt == "nomatch":
            changes["play_match"] = False
        elif opt.startswith("policy="):
            from agent.opponent.policy import use_policy

            try:
                use_policy(opt.removeprefix("policy="))  # this process's policy: one mcts side per match
            except (OSError, ValueError) as exc:
                raise KeyError(f"bad policy file in {opt!r}: {exc}") from exc
        elif opt[:1] in _CONFIG_KEYS and _is_number(opt[1:]):
            changes[_CONFIG_KEYS[opt[0]]] = float(opt[1:])
        else:
            raise KeyError(f"unknown mcts option {opt!r}")
    config = replace(SearchConfig(), **changes)  # type: ignore[arg-type]
    if budget.startswith("i"):
        return MctsPolicy(time_ms=10**7, iterations=int(budget[1:]), config=config)
    return MctsPolicy(time_ms=int(budget) if budget else 1000, config=config)


def get_policy(name: str) -> Policy:
    """Return a policy by name.

    ``random``, ``greedy``, ``flat`` (``flat:N`` for N iterations), and
    ``mcts`` (``mcts:T`` for T ms per move, ``mcts:iN`` for N iterations, then
    optional settings such as ``mcts:i20000,c0.5,d0.1,e0.2,random,novoids``), and ``level:NAME`` a bot
    level of :mod:`agent.levels` (``level:strong,i20000``: at a fixed iteration count).
    Raises KeyError for an unknown name.
    """
    base, _, arg = name.partition(":")
    if base == "random" and not arg:
        return random_policy
    if base == "greedy" and not arg:
        return greedy_policy
    if base == "flat":
        n = int(arg) if arg else FLAT_ITERATIONS
        return lambda state, rng: flat_policy(state, rng, n)
    if base == "mcts":
        return _mcts_policy(arg)
    if base == "level":
        return _level_policy(arg)
    raise KeyError(f"unknown player {name!r} (random, greedy, flat[:N], mcts[:MS|:iN], level:NAME[,iN], "
                   "cmd:COMMAND)")


def _level_policy(arg: str) -> Policy:
    """Parse ``NAME`` or ``NAME,iN``: a bot level of :mod:`agent.levels`, its search capped at N iterations
    instead of its time (fixed counts make runs comparable on a busy machine).  KeyError for anything else."""
    from agent.levels import LEVELS, choose_card

    name, _, cap = arg.partition(",")
    if name not in LEVELS or (cap and not (cap[:1] == "i" and cap[1:].isdigit())):
        raise KeyError(f"unknown level player {arg!r} (levels: {', '.join(LEVELS)}; option iN)")
    iterations = int(cap[1:]) if cap else None

    def play(state: AgentState, rng: random.Random) -> int:
        return choose_card(state, name, seed=rng.randrange(2**31), iterations=iterations)

    return play


def get_player(name: str) -> Player:
    """Return a player by name (the same names as :func:`get_policy`)."""
    return get_policy(name)

