"""The server's shuffle: every card equally likely in every place, from one request for random bytes."""

from __future__ import annotations

import random
from collections import Counter

from tressette import ALL_CARDS, shuffled_deck
from tressette.deal import csprng_shuffle


def test_a_shuffled_deck_holds_every_card_once() -> None:
    decks = [shuffled_deck() for _ in range(50)]
    assert all(sorted(d) == sorted(ALL_CARDS) for d in decks)
    assert len({tuple(d) for d in decks}) == 50  # 40! orders: fifty equal ones would be a broken source


def test_each_place_is_uniform() -> None:
    """Chi-square of card-by-place counts over 20,000 shuffles of 10 items (99.9% bound: 125.0 for 81 df)."""
    source = random.Random(7)
    counts: Counter[tuple[int, int]] = Counter()
    runs = 20_000
    for _ in range(runs):
        items = list(range(10))
        csprng_shuffle(items, source.randbytes)
        counts.update((item, place) for place, item in enumerate(items))
    expected = runs / 10
    chi2 = sum((counts[(i, p)] - expected) ** 2 / expected for i in range(10) for p in range(10))
    assert chi2 < 125.0, chi2


def test_values_that_would_bias_are_drawn_again() -> None:
    """A draw past the largest multiple of the range is rejected and replaced by the next (refilling the pool)."""
    asked: list[int] = []

    def source(n: int) -> bytes:
        asked.append(n)
        # First request: every draw is 2**64 - 1, past the limit for any range that is not a power of two.
        return b"\xff" * n if len(asked) == 1 else bytes(n)

    items = list(range(3))
    csprng_shuffle(items, source)
    # Range 3: 2**64 % 3 == 1, so 2**64 - 1 is past the limit; all three draws of the first pool are
    # rejected, the refill's zeros give j = 0 for range 3 and then for range 2: [0,1,2] → [2,1,0] → [1,2,0].
    assert asked == [24, 16]
    assert items == [1, 2, 0]


def test_a_seeded_shuffle_stays_as_it_was() -> None:
    """Simulations and tests pass their own generator: its deck is Python's own shuffle, unchanged."""
    expected = list(ALL_CARDS)
    random.Random(3).shuffle(expected)
    assert shuffled_deck(random.Random(3)) == expected
