"""Properties of the four-player partnership game over thousands of seeded random deals.

Each deal is played by random legal moves with random true declarations and signals; on the
way, false declarations and signals and illegal cards are tried and must be refused without a
trace; views of all four seats are checked against the full deal.
"""

from __future__ import annotations

import random
from typing import Any

from tressette import ALL_CARDS, POINTS, IllegalMoveError, card_name, rank_of, suit_of
from tressette.partnership import (
    N_TRICKS,
    SEATS,
    Declaration,
    PartnershipDeal,
    PartnershipMove,
    PartnershipOptions,
    Signal,
    parse_partnership_view,
    partnership_of,
    possible_declarations,
    replay_partnership,
    view_of_partnership,
)

N_DEALS = 2_000
"""Seeded random deals, every rule checked in each (about two seconds)."""

ALL_DECLARATIONS: tuple[Declaration, ...] = (
    *(Declaration("napoletana", suit=s) for s in range(4)),
    *(Declaration("three", suit=s, rank=r) for r in (0, 1, 2) for s in range(4)),
    *(Declaration("four", rank=r) for r in (0, 1, 2)),
)
OPTIONS = [PartnershipOptions(d, s) for d in (True, False) for s in (True, False)]


def _snapshot(deal: PartnershipDeal) -> tuple[Any, ...]:
    return (tuple(tuple(h) for h in deal.hands), tuple(deal.table), deal.table_signal, len(deal.history),
            tuple(deal.points), tuple(tuple(d) for d in deal.declarations))


def _refused(deal: PartnershipDeal, reason: str, card: int, seat: int | None = None, *,
             declarations: tuple[Declaration, ...] = (), signal: Signal | None = None) -> None:
    """Check that ``deal`` refuses the move with ``reason`` and stays exactly as it was."""
    before = _snapshot(deal)
    try:
        deal.play(card, seat, declarations=declarations, signal=signal)
    except IllegalMoveError as refused:
        assert refused.reason == reason, (refused.reason, str(refused))
        assert _snapshot(deal) == before
        return
    raise AssertionError(f"{card_name(card)} {declarations} {signal} was not refused ({reason})")


def _check_views(deal: PartnershipDeal) -> None:
    """Check the four seats' views and a spectator's against the full deal."""
    for seat in (*SEATS, None):
        view = view_of_partnership(deal, seat)
        text = view.to_json()
        # A card name in the JSON is a string token of its own, quotes included.
        leaks = [name for s in SEATS if s != seat for c in deal.hands[s] if (name := f'"{card_name(c)}"') in text]
        assert not leaks, (seat, leaks)
        assert list(view.hand) == ([] if seat is None else sorted(deal.hands[seat]))
        assert view.hand_counts == tuple(len(h) for h in deal.hands)
        assert view.points == tuple(deal.points)
        assert view.declared == deal.declared_points()
        assert view.to_move == (None if deal.is_over else deal.to_move)
        if seat is None or seat == view.to_move:  # the agent's state, and a spectator's (the slower half)
            assert parse_partnership_view(text) == view
        if seat is not None and seat == view.to_move:
            assert view.legal_moves() == deal.legal_moves()
            assert view.declarable() == deal.declarable()
            assert all(view.allowed_signals(c) == deal.allowed_signals(c) for c in view.hand)
        else:
            assert view.legal_moves() == [] and view.declarable() == ()


def _play_one(deal: PartnershipDeal, rng: random.Random, moves: list[PartnershipMove], probe: bool) -> None:
    """Play a random legal card with random true declarations and signal; with ``probe``, first try
    refused moves.  Declarations and signals that could be made are always probed (false ones)."""
    mover = deal.to_move
    hand = list(deal.hands[mover])
    legal = deal.legal_moves()
    led = deal.table[0] if deal.table else None
    if led is not None and any(suit_of(c) == suit_of(led) for c in hand):
        assert legal == sorted(c for c in hand if suit_of(c) == suit_of(led))
    else:
        assert legal == sorted(hand)
    card = rng.choice(legal)
    if probe:
        illegal = [c for c in hand if c not in legal]
        if illegal:
            _refused(deal, "must_follow", rng.choice(illegal))
        _refused(deal, "not_your_turn", card, (mover + rng.randrange(1, 4)) % 4)
        _refused(deal, "not_in_hand", next(c for c in ALL_CARDS if c not in hand), mover)

    declarations: tuple[Declaration, ...] = ()
    if deal.may_declare():
        true = possible_declarations(hand)
        assert deal.declarable() == true
        false = [d for d in ALL_DECLARATIONS if d not in true]
        _refused(deal, "false_declaration", card, declarations=(*true, rng.choice(false)))
        if true:
            _refused(deal, "false_declaration", card, declarations=(true[0], true[0]))
        declarations = tuple(d for d in true if rng.random() < 0.7)
    elif probe:
        assert deal.declarable() == ()
        _refused(deal, "declaration_not_allowed", card, declarations=(rng.choice(ALL_DECLARATIONS),))

    signal = None
    if deal.may_signal():
        more = any(suit_of(c) == suit_of(card) for c in hand if c != card)
        assert deal.allowed_signals(card) == ((Signal.BUSSO, Signal.STRISCIO) if more else (Signal.BUSSO, Signal.VOLO))
        _refused(deal, "false_signal", card, signal=Signal.VOLO if more else Signal.STRISCIO)
        signal = rng.choice((None, *deal.allowed_signals(card)))
    elif probe:
        assert deal.allowed_signals(card) == ()
        _refused(deal, "signal_not_allowed", card, signal=rng.choice(list(Signal)))

    trick = deal.play(card, mover, declarations=declarations, signal=signal)
    moves.append(PartnershipMove(card, declarations, signal))
    if declarations:
        assert tuple(deal.declarations[mover]) == declarations
    if trick is not None:
        led_suit = suit_of(trick.cards[0])
        best = min(range(4), key=lambda i: (suit_of(trick.cards[i]) != led_suit, rank_of(trick.cards[i])))
        assert trick.winner == trick.seat_of(best)
        assert trick.signal == moves[-4].signal
        assert deal.leader == trick.winner and not deal.table and deal.table_signal is None


def test_random_deals_keep_every_rule() -> None:
    """Deal, play and score thousands of seeded deals, checking every rule on the way."""
    takers = [0, 0]
    declared_any = 0
    for seed in range(N_DEALS):
        rng = random.Random(seed)
        options = OPTIONS[seed % len(OPTIONS)]
        deal = PartnershipDeal.new(seed % 4, rng, options)
        assert sorted(c for h in deal.hands for c in h) == list(ALL_CARDS)
        assert all(len(h) == 10 for h in deal.hands)
        moves: list[PartnershipMove] = []
        # Views are checked at every move of one deal in fifty, at one random move of one in four of the
        # others; refused moves are probed at every move of one deal in ten, at one move in eight of the others.
        check_all = seed % 50 == 0
        check_at = rng.randrange(40) if seed % 4 == 1 else -1
        while not deal.is_over:
            if check_all or len(moves) == check_at:
                _check_views(deal)
            _play_one(deal, rng, moves, probe=seed % 10 == 0 or rng.random() < 0.125)
        if check_all:
            _check_views(deal)
        _refused(deal, "over", 0)

        assert len(deal.history) == N_TRICKS
        assert sorted(c for t in deal.history for c in t.cards) == list(ALL_CARDS)
        for before, after in zip(deal.history, deal.history[1:], strict=False):
            assert after.leader == before.winner
        assert deal.history[0].leader == seed % 4 and deal.history[0].signal is None
        if not options.signals:
            assert all(t.signal is None for t in deal.history)
        outcome = deal.outcome()
        assert sum(outcome.points) == 35
        assert sum(outcome.card_score) == 11
        last = partnership_of(deal.history[-1].winner)
        won = [sum(POINTS[c] for t in deal.history if partnership_of(t.winner) == p for c in t.cards) for p in (0, 1)]
        won[last] += 3
        assert outcome.points == tuple(won)
        declared = [sum(d.points for s in SEATS if partnership_of(s) == p for d in deal.declarations[s])
                    for p in (0, 1)]
        assert outcome.declared == tuple(declared)
        assert outcome.score == (won[0] // 3 + declared[0], won[1] // 3 + declared[1])
        assert sum(outcome.score) == 11 + sum(declared)
        if not options.declarations:
            assert declared == [0, 0]
        declared_any += sum(declared) > 0
        # Each seat's declarations were true of the hand it was dealt.
        for s in SEATS:
            dealt = deal.deck[10 * s : 10 * s + 10]
            assert set(deal.declarations[s]) <= set(possible_declarations(dealt))
        assert outcome.cappotto == (last if all(partnership_of(t.winner) == last for t in deal.history) else None)
        takers[last] += 1
        # The move log replays the deal exactly (checked in one deal of four, for time).
        if seed % 4:
            continue
        again = replay_partnership(deal.deck, seed % 4, [PartnershipMove.from_dict(m.to_dict()) for m in moves],
                                   options)
        assert _snapshot(again) == _snapshot(deal) and again.history == deal.history
    assert min(takers) > N_DEALS // 3  # both partnerships take last tricks: no seat bias
    assert declared_any > N_DEALS // 10  # declarations do happen (about half the deals have one to make)
