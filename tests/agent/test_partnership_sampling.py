"""Sampling the hidden four-player hands: every world fits the public record, and each is equally likely."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from agent.partnership.constraints import constraints_of
from agent.partnership.sampling import NoConsistentWorld, World, WorldSampler, is_consistent, sample_worlds
from agent.partnership_player import choose_partnership_move
from tressette.cards import ALL_CARDS, parse_card, suit_of
from tressette.partnership import (
    N_SEATS,
    Declaration,
    PartnershipDeal,
    PartnershipOptions,
    PartnershipView,
    Signal,
    view_of_partnership,
)


def _step(deal: PartnershipDeal, rng: random.Random) -> None:
    """Play one move: the rule player or a random legal card, random (true) signals, some declarations."""
    if rng.random() < 0.5:
        deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))
        return
    card = rng.choice(deal.legal_moves())
    signal = rng.choice([None, *deal.allowed_signals(card)])
    declarable = deal.declarable()
    # Declaring is voluntary: some players keep some of it to themselves.
    declared = [d for d in declarable if rng.random() < 0.7]
    deal.play(card, declarations=declared, signal=signal)


def _deals(n: int, seed0: int = 0):  # type: ignore[no-untyped-def]
    """Yield (rng, deal, view of the seat to move, true world) at every position of ``n`` seeded deals."""
    for seed in range(seed0, seed0 + n):
        rng = random.Random(seed)
        deal = PartnershipDeal.new(seed % N_SEATS, rng, PartnershipOptions())
        while not deal.is_over:
            view = view_of_partnership(deal, deal.to_move)
            yield rng, deal, view, _world(deal)
            _step(deal, rng)


def _world(deal: PartnershipDeal) -> World:
    return tuple(tuple(sorted(h)) for h in deal.hands)


def _check_world(view: PartnershipView, world: World) -> None:
    """The world keeps the viewer's hand and every count and puts each unseen card in one hidden hand."""
    assert view.seat is not None
    assert world[view.seat] == view.hand
    assert tuple(len(h) for h in world) == view.hand_counts
    seen = view.played | set(view.table)
    cards = [c for h in world for c in h]
    assert len(cards) == len(set(cards)) and set(cards) | seen == set(ALL_CARDS)
    assert is_consistent(view, world)


def _check_samples(n_deals: int, seed0: int) -> None:
    """Over ``n_deals`` seeded deals: the true deal always fits its record; sampled worlds do too."""
    positions = sampled = 0
    for rng, _deal, view, truth in _deals(n_deals, seed0):
        positions += 1
        assert is_consistent(view, truth)
        if rng.random() < 0.06:
            sampler = WorldSampler.of(view)
            assert sampler.count > 0
            for world in sample_worlds(view, 3, rng, sampler=sampler):
                _check_world(view, world)
                sampled += 1
    assert positions == n_deals * 40 and sampled > n_deals * 40 * 0.06 * 3 * 0.8


def test_true_world_is_consistent_and_samples_fit() -> None:
    """60 seeded deals: the true deal fits at every position, sampled worlds fit and keep the counts."""
    _check_samples(60, seed0=100_000)


@pytest.mark.slow
def test_true_world_is_consistent_and_samples_fit_thousands() -> None:
    """The same over 2,000 seeded deals (one to two minutes)."""
    _check_samples(2000, seed0=0)


def _record_facts(view: PartnershipView) -> tuple[dict[int, set[int]], dict[int, set[int]], dict[int, set[int]]]:
    """Return per seat, read straight from the record: void suits, suits promised, cards declared and unplayed.

    The missing card of three of a kind goes in the voids' place as a negative card code.
    """
    voids: dict[int, set[int]] = {s: set() for s in range(N_SEATS)}
    promised: dict[int, set[int]] = {s: set() for s in range(N_SEATS)}
    held: dict[int, set[int]] = {s: set() for s in range(N_SEATS)}
    tricks = [(t.leader, list(t.cards), t.signal) for t in view.history]
    if view.table:
        tricks.append((view.leader, list(view.table), view.table_signal))
    later: dict[int, list[int]] = {s: [] for s in range(N_SEATS)}  # cards each seat played after a point
    for i in range(len(tricks) - 1, -1, -1):
        leader, cards, signal = tricks[i]
        led = suit_of(cards[0])
        for k, c in enumerate(cards):
            seat = (leader + k) % N_SEATS
            if suit_of(c) != led:
                voids[seat].add(led)
        if signal is Signal.VOLO:
            voids[leader].add(led)
        if signal is Signal.STRISCIO and not any(suit_of(c) == led for c in later[leader]):
            promised[leader].add(led)
        for k, c in enumerate(cards):
            later[(leader + k) % N_SEATS].append(c)
    for seat, ds in enumerate(view.declarations):
        for d in ds:
            held[seat] |= set(d.cards) - set(later[seat])
            if d.missing is not None:
                voids[seat].add(-1 - d.missing)
    return voids, promised, held


def _check_record(n_deals: int, seed0: int) -> Counter[str]:
    """Check sampled hands against the record read directly, at 1 position in 20; return what was seen."""
    kinds: Counter[str] = Counter()
    for rng, _deal, view, _truth in _deals(n_deals, seed0):
        if rng.random() > 0.05:
            continue
        voids, promised, held = _record_facts(view)
        kinds.update(v for s in voids for v in ("void" if x >= 0 else "barred" for x in voids[s]) if s != view.seat)
        kinds.update("promised" for s in promised for _ in promised[s] if s != view.seat)
        kinds.update("held" for s in held for _ in held[s] if s != view.seat)
        for world in sample_worlds(view, 4, rng):
            for seat in range(N_SEATS):
                hand = set(world[seat])
                assert not any(suit_of(c) in voids[seat] or -1 - c in voids[seat] for c in hand)
                assert all(any(suit_of(c) == s for c in hand) for s in promised[seat])
                assert held[seat] <= hand
    return kinds


def test_voids_declarations_and_signals_are_respected() -> None:
    """Every sampled hand lacks each void suit and barred card, holds each declared card and promised suit."""
    kinds = _check_record(100, seed0=200_000)
    assert min(kinds["void"], kinds["held"], kinds["promised"]) >= 5, kinds


@pytest.mark.slow
def test_voids_declarations_and_signals_are_respected_thousands() -> None:
    """The same over 2,000 seeded deals, every kind of constraint met many times (about 25 s)."""
    kinds = _check_record(2000, seed0=5000)
    assert min(kinds["void"], kinds["held"], kinds["promised"], kinds["barred"]) >= 30, kinds


def _all_worlds(view: PartnershipView) -> list[World]:
    """Return by brute force every world the rules accept for ``view`` (small positions only)."""
    assert view.seat is not None
    hidden = [s for s in range(N_SEATS) if s != view.seat]
    unknown = sorted(set(ALL_CARDS) - view.played - set(view.table) - set(view.hand))
    counts = view.hand_counts
    out = []
    for a in itertools.combinations(unknown, counts[hidden[0]]):
        rest = [c for c in unknown if c not in a]
        for b in itertools.combinations(rest, counts[hidden[1]]):
            world: list[tuple[int, ...]] = [()] * N_SEATS
            world[view.seat] = view.hand
            world[hidden[0]], world[hidden[1]] = a, b
            world[hidden[2]] = tuple(c for c in rest if c not in b)
            if is_consistent(view, tuple(world)):
                out.append(tuple(world))
    return out


def _keep_honours(deal: PartnershipDeal, rng: random.Random) -> None:
    """Play a random legal card, a 3, 2 or Ace last, declaring all: declared cards stay unplayed late."""
    card = min(deal.legal_moves(), key=lambda c: (c % 10 in (0, 1, 2), rng.random()))
    deal.play(card, declarations=deal.declarable(), signal=rng.choice([None, *deal.allowed_signals(card)]))


def _late_positions(n: int, step: Callable[[PartnershipDeal, random.Random], None] = _step,
                    seed0: int = 9000) -> Iterator[PartnershipView]:
    """Yield views with at most nine unseen cards, of the seat to move, from seeded deals."""
    for seed in range(n):
        rng = random.Random(seed0 + seed)
        deal = PartnershipDeal.new(seed % N_SEATS, rng, PartnershipOptions())
        stop = 28 + seed % 5
        while len(deal.history) * 4 + len(deal.table) < stop:
            step(deal, rng)
        yield view_of_partnership(deal, deal.to_move)


def test_count_equals_brute_force_enumeration() -> None:
    """On 20 late positions the sampler's count is the number of worlds the rules accept, enumerated."""
    tight = 0
    for view in _late_positions(20):
        worlds = _all_worlds(view)
        assert WorldSampler.of(view).count == len(worlds) > 0
        tight += len(worlds) < math.comb(len(view.hand) * 3, len(view.hand)) // 4
    assert tight >= 3  # the record cut the worlds down in several positions


def _chi_square_critical(df: int, z: float = 3.09) -> float:
    """Return the chi-square value exceeded with probability about 0.001 (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def _split_suit(view: PartnershipView) -> bool:
    """Return True if a suit's unseen cards may go to different seats (a barred card beside others)."""
    c = constraints_of(view)
    return any(b in c.unknown and any(suit_of(x) == suit_of(b) and x != b and c.allows(s, x) for x in c.unknown)
               for s in c.hidden_seats for b in c.barred[s])


@pytest.mark.parametrize("kind", ["any", "split suit"])
def test_samples_are_uniform_over_the_consistent_worlds(kind: str) -> None:
    """On small constrained positions the sample frequencies fit the uniform law (chi-square, p = 0.001).

    ``split suit``: positions where three of a kind's missing card is unseen beside other cards of its
    suit, so the sampler shares that suit group by group.
    """
    tested = 0
    positions = _late_positions(40) if kind == "any" else (
        v for v in _late_positions(200, _keep_honours, seed0=0) if _split_suit(v))
    for view in positions:
        worlds = _all_worlds(view)
        if not 8 <= len(worlds) <= 400:
            continue
        sampler = WorldSampler.of(view)
        rng = random.Random(len(worlds))
        draws = 60 * len(worlds)
        freq = Counter(sampler.sample(rng) for _ in range(draws))
        assert set(freq) == set(worlds)
        expected = draws / len(worlds)
        chi2 = sum((freq[w] - expected) ** 2 / expected for w in worlds)
        assert chi2 < _chi_square_critical(len(worlds) - 1), (len(worlds), chi2)
        tested += 1
        if tested == 4:
            break
    assert tested == 4


def test_a_skewed_sampler_would_fail_the_uniformity_check() -> None:
    """The chi-square check can fail: a third of 50 worlds drawn twice as often as the rest is caught."""
    worlds = list(range(50))
    draws = 60 * len(worlds)
    freq = Counter(random.Random(1).choices(worlds, weights=[2] * 17 + [1] * 33, k=draws))
    expected = draws / len(worlds)
    chi2 = sum((freq[w] - expected) ** 2 / expected for w in worlds)
    assert chi2 > _chi_square_critical(len(worlds) - 1)


def test_a_contradictory_record_has_no_world() -> None:
    """Four of a rank declared by seat 1 while the viewer holds one of them: no world, and sampling says so."""
    deal = PartnershipDeal.new(0, random.Random(2))
    view = view_of_partnership(deal, 0)
    rank = next(c % 10 for c in view.hand if c % 10 in (0, 1, 2))  # a 3, 2 or Ace in seat 0's hand
    bad = PartnershipView(view.seat, view.options, view.first_leader, view.hand, view.history, view.table,
                          view.table_signal, ((), (Declaration("four", rank=rank),), (), ()))
    sampler = WorldSampler.of(bad)
    assert sampler.count == 0
    with pytest.raises(NoConsistentWorld):
        sampler.sample(random.Random(0))
    assert WorldSampler.of(bad, declarations=False).count == WorldSampler.of(view).count > 0


def test_the_weight_hook_reweighs_consistent_worlds() -> None:
    """A model that favours seat 1 holding the Ace of coins makes it likelier, and every world still fits."""
    deal = PartnershipDeal.new(0, random.Random(11))
    view = view_of_partnership(deal, 0)
    target = parse_card("D AS")
    assert target not in view.hand
    rng = random.Random(4)
    uniform = sum(target in w[1] for w in sample_worlds(view, 400, rng))
    weighted = sample_worlds(view, 400, rng, weight=lambda w: 10.0 if target in w[1] else 1.0)
    assert all(is_consistent(view, w) for w in weighted)
    assert sum(target in w[1] for w in weighted) > uniform + 100  # about 1/3 uniform, 5/6 weighted


def test_a_spectator_samples_all_four_hands() -> None:
    """A spectator's worlds share every unseen card among the four seats."""
    deal = PartnershipDeal.new(1, random.Random(6))
    rng = random.Random(6)
    for _ in range(13):
        _step(deal, rng)
    view = view_of_partnership(deal, None)
    c = constraints_of(view)
    assert c.hidden_seats == (0, 1, 2, 3) and len(c.unknown) == 27
    for world in sample_worlds(view, 20, rng):
        assert tuple(len(h) for h in world) == view.hand_counts and is_consistent(view, world)
