"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013), one game per rating period.

Pure arithmetic: the repositories call :func:`update` for both players at each game's end,
each against the other's rating from before the game, so the order of the two updates
does not matter. Bots are rated like people (each bot level is its own account).

>>> me = Rating(1500.0, 200.0, 0.06)
>>> new = update(me, [(Rating(1400.0, 30.0, 0.06), 1.0), (Rating(1550.0, 100.0, 0.06), 0.0),
...                   (Rating(1700.0, 300.0, 0.06), 0.0)])
>>> round(new.rating, 2), round(new.rd, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # the Glicko-2 scale factor: 400 / ln(10)
DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5  # constrains volatility changes; Glickman suggests 0.3..1.2
PROVISIONAL_RD = 110.0
"""A rating whose deviation is above this is shown as provisional ("1500?"), as Lichess does."""
_EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale: rating, rating deviation and volatility."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(phi: float, sigma: float, delta: float, v: float) -> float:
    """Solve for the new volatility with the Illinois algorithm (step 5 of the paper)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / TAU**2

    lo = a
    if delta**2 > phi**2 + v:
        hi = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        hi = a - k * TAU
    f_lo, f_hi = f(lo), f(hi)
    while abs(hi - lo) > _EPSILON:
        c = lo + (lo - hi) * f_lo / (f_hi - f_lo)
        f_c = f(c)
        if f_c * f_hi <= 0:
            lo, f_lo = hi, f_hi
        else:
            f_lo /= 2.0
        hi, f_hi = c, f_c
    return math.exp(lo / 2.0)


def update(player: Rating, results: Sequence[tuple[Rating, float]]) -> Rating:
    """Return ``player``'s rating after one period with ``results`` (opponent, score 1/0.5/0).

    With no results only the deviation grows (a period of inactivity).
    """
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    if not results:
        return Rating(player.rating, min(DEFAULT_RD, SCALE * math.sqrt(phi**2 + player.volatility**2)),
                      player.volatility)
    inv_v = 0.0
    gain = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - DEFAULT_RATING) / SCALE
        g_j = _g(opponent.rd / SCALE)
        e_j = _expected(mu, mu_j, opponent.rd / SCALE)
        inv_v += g_j * g_j * e_j * (1.0 - e_j)
        gain += g_j * (score - e_j)
    v = 1.0 / inv_v
    sigma = _new_volatility(phi, player.volatility, v * gain, v)
    phi_star = math.sqrt(phi**2 + sigma**2)
    phi_new = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    mu_new = mu + phi_new**2 * gain
    return Rating(SCALE * mu_new + DEFAULT_RATING, min(DEFAULT_RD, SCALE * phi_new), sigma)


def provisional(rd: float) -> bool:
    """Return True if a rating with deviation ``rd`` is still provisional (too few results to trust it)."""
    return rd > PROVISIONAL_RD


def after_game(a: Rating, b: Rating, winner: int) -> tuple[Rating, Rating]:
    """Return both players' ratings after a game between ``a`` (seat 0) and ``b`` (seat 1)."""
    return update(a, [(b, 1.0 if winner == 0 else 0.0)]), update(b, [(a, 1.0 if winner == 1 else 0.0)])
