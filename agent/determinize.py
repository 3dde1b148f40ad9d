"""Sampling worlds consistent with what the agent knows.

Every card the opponent drew from the stock was shown face up, so the
opponent's hidden cards all come from its first ten.  Hence a suit the
opponent once failed to follow can hold no hidden card of its hand: hidden
cards of such a suit are in the stock.  A sampled world puts ``hiscards`` in
the opponent's hand, fills the rest of that hand from the hidden cards allowed
there, and shuffles everything else into the stock.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from agent.world import NOGIL, W_H0, W_H1, W_LEAD, W_LEADER, W_P0, W_P1, W_SIZE, W_SLEN, W_SPOS, W_TRICKS
from tressette import HIM, ME, POINTS, AgentState, Card, mask_of, suit_of


@dataclass(frozen=True, slots=True)
class Root:
    """The agent's information set in the arrays the kernels take.

    ``w`` holds the known part of the world (the opponent's hand holds only its
    known cards), ``hidden`` the cards whose place is unknown, ``need`` how
    many of them the opponent holds, ``voids`` a 4-bit mask of suits the
    opponent cannot hold hidden cards of, ``evidence`` and ``weights`` the
    masks of :func:`opponent_evidence` and their factors.
    """

    w: np.ndarray
    hidden: np.ndarray
    need: int
    voids: int
    cfm: bool
    evidence: np.ndarray
    weights: np.ndarray


def opponent_voids(state: AgentState) -> int:
    """Return the 4-bit mask of suits the opponent has shown it lacks (from ``history``)."""
    voids = 0
    for trick in state.history or ():
        lead, follow = trick.cards
        if trick.leader == ME and suit_of(follow) != suit_of(lead):
            voids |= 1 << suit_of(lead)
    return voids


EVIDENCE_WEIGHTS: dict[str, float] = {
    "ducked_points": 0.75,       # T: followed a lead worth points with a loser while holding a winner
    "gave_points": 0.1,          # T: lost giving points while holding a worthless loser of the suit
    "discarded_points": 0.25,    # T: could not follow and threw points while holding worthless cards
    "won_high": 0.75,            # T: took the trick with more than the weakest winner it held
    "took": 0.5,                 # K: took the trick while holding a card of the suit that loses
    "dumped_little": 0.1,        # K: lost, keeping a losing card worth more than the one it threw
    "discarded_little": 0.25,    # K: could not follow and kept a card worth more than the one it threw
    "led_points": 0.45,          # K: led a card worth points while holding a worthless card of the suit
}
"""How much less likely each kind of observed play makes a hidden card that contradicts it.

Each is the odds ratio, against uniform worlds, of the opponent really holding such a card,
measured on `flat`'s play and rounded (``python -m agent.inference``; MEASUREMENTS.md).
"""


def evidence_by_kind(state: AgentState) -> list[tuple[str, int]]:
    """Return ``(kind, mask)`` for each earlier opponent play and the hidden cards that contradict it.

    The model is a player who does the obvious: in Tressette it takes a lead that carries
    points, gives no points away and takes with its weakest winner; in Kifameno it loses
    tricks when it can, dumps its most valuable losing card and leads cards worth points only
    when it has no worthless ones in the suit.  A hidden card in the opponent's hand now was
    in it at every earlier trick (drawn cards are shown), so a world whose opponent holds a
    card of a mask is less likely by the kind's weight in :data:`EVIDENCE_WEIGHTS`.
    """
    hidden = mask_of(state.hidden)
    found: list[tuple[str, int]] = []

    def note(kind: str, cards: list[Card]) -> None:
        mask = mask_of(cards) & hidden
        if mask:
            found.append((kind, mask))

    for trick in state.history or ():
        lead, other = trick.cards
        suit = suit_of(lead)
        same = [c for c in state.hidden if suit_of(c) == suit]
        if trick.leader != ME:
            if state.cfm and POINTS[lead] > 0:
                note("led_points", [c for c in same if POINTS[c] == 0])
            continue
        followed = suit_of(other) == suit
        won = followed and other < lead
        rest = [c for c in state.hidden if suit_of(c) != suit]
        if state.cfm:
            if won:
                note("took", [c for c in same if c > lead])
            elif followed:
                note("dumped_little", [c for c in same if c > lead and POINTS[c] > POINTS[other]])
            else:
                note("discarded_little", [c for c in rest if POINTS[c] > POINTS[other]])
        elif won:
            note("won_high", [c for c in same if other < c < lead])
        elif followed:
            if POINTS[lead] > 0:
                note("ducked_points", [c for c in same if c < lead])
            if POINTS[other] > 0:
                note("gave_points", [c for c in same if c > lead and POINTS[c] == 0])
        elif POINTS[other] > 0:
            note("discarded_points", [c for c in rest if POINTS[c] == 0])
    return found


def opponent_evidence(state: AgentState) -> tuple[list[int], list[float]]:
    """Return the masks of :func:`evidence_by_kind` and the weights of their kinds."""
    found = evidence_by_kind(state)
    return [m for _, m in found], [EVIDENCE_WEIGHTS[k] for k, _ in found]


def make_root(state: AgentState, *, use_voids: bool = True) -> Root:
    """Return the kernels' view of ``state`` (the agent, seat 0, is to move)."""
    w = np.zeros(W_SIZE, dtype=np.int64)
    known = state.opponent_known
    w[W_H0] = mask_of(state.hand)
    w[W_H1] = mask_of(known)
    w[W_LEADER] = ME if state.is_leading else HIM
    w[W_LEAD] = state.inplay[0] if state.inplay else -1
    w[W_P0] = state.points
    w[W_P1] = state.opponent_points
    w[W_SPOS] = 0
    w[W_SLEN] = state.stock_size
    w[W_TRICKS] = state.tricks_played
    hidden = np.array(state.hidden, dtype=np.int64)
    need = state.opponent_hand_size - len(known)
    voids = opponent_voids(state) if use_voids else 0
    allowed = sum(1 for c in state.hidden if not (voids >> suit_of(c)) & 1)
    if allowed < need:  # the history contradicts the counts: trust the counts
        voids = 0
    masks, weights = opponent_evidence(state) if use_voids else ([], [])
    return Root(w=w, hidden=hidden, need=need, voids=voids, cfm=state.cfm,
                evidence=np.array(masks, dtype=np.int64), weights=np.array(weights, dtype=np.float64))


@njit(cache=True, nogil=NOGIL)
def sample_world(w0: np.ndarray, hidden: np.ndarray, need: int, voids: int,
                 w: np.ndarray, stock: np.ndarray) -> None:
    """Fill ``w`` and ``stock`` with a random world consistent with the root."""
    w[:] = w0
    k = hidden.shape[0]
    buf = np.empty(k, dtype=np.int64)
    n_ok = 0
    n_bad = 0
    # Allowed cards first, then the void-suit cards (which can only be in the stock).
    for i in range(k):
        c = hidden[i]
        if (voids >> (c // 10)) & 1:
            buf[k - 1 - n_bad] = c
            n_bad += 1
        else:
            buf[n_ok] = c
            n_ok += 1
    # Partial Fisher-Yates: the opponent's share from the allowed cards.
    for i in range(need):
        j = i + np.random.randint(n_ok - i)
        t = buf[i]
        buf[i] = buf[j]
        buf[j] = t
        w[W_H1] |= np.int64(1) << buf[i]
    # The rest, allowed and void alike, is the stock in random order.
    s = k - need
    for i in range(s):
        stock[i] = buf[need + i]
    for i in range(s - 1, 0, -1):
        j = np.random.randint(i + 1)
        t = stock[i]
        stock[i] = stock[j]
        stock[j] = t
    w[W_SPOS] = 0
    w[W_SLEN] = s


@njit(cache=True, nogil=NOGIL)
def sample_likely_world(w0: np.ndarray, hidden: np.ndarray, need: int, voids: int, evidence: np.ndarray,
                        weights: np.ndarray, w: np.ndarray, stock: np.ndarray) -> None:
    """Sample a world as :func:`sample_world` does, weighted by how well it explains the opponent's plays.

    Rejection sampling: a world is kept with the product of the ``weights`` of the
    ``evidence`` masks its opponent's hand meets, so worlds are drawn in proportion to that
    weight (after 64 rejections the last world is kept, so a contradictory history cannot stall).
    """
    sample_world(w0, hidden, need, voids, w, stock)
    for _ in range(64):
        held = w[W_H1] & ~w0[W_H1]
        keep = 1.0
        for i in range(evidence.shape[0]):
            if held & evidence[i]:
                keep *= weights[i]
        if keep >= 1.0 or np.random.random() < keep:
            return
        sample_world(w0, hidden, need, voids, w, stock)
