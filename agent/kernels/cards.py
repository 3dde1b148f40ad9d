"""Card tables for the compiled kernels, taken from the rules package (never re-typed).

Numba reads module-level NumPy arrays as compile-time constants, so the
kernels see exactly the rules package's strength order and points.
"""

from __future__ import annotations

import numpy as np

from tressette.cards import N_CARDS, N_RANKS, N_SUITS, POINTS, suit_mask

POINTS_ARR = np.array(POINTS, dtype=np.int64)
SUIT_MASKS = np.array([suit_mask(s) for s in range(N_SUITS)], dtype=np.int64)
RANK_ARR = np.array([c % N_RANKS for c in range(N_CARDS)], dtype=np.int64)
"""Rank index of each card: 0 is the strongest (the 3), 9 the weakest (the 4)."""
SUIT_ARR = np.array([c // N_RANKS for c in range(N_CARDS)], dtype=np.int64)
