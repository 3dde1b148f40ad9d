"""Post-game analysis of a deal (issue #21): every move's loss against the best card, labels, accuracy.

Each move is judged from what its player knew when making it, as the bot would
be: the mover's agent state comes from the rules package's view of the deal at
that moment (``view_of`` then ``state_from_view``, history and draws included).

- **Known part** (the stock is empty, every card's place is known): the exact
  solver gives every legal card's final points, so a move's loss is exact and a
  win is a win (``noise`` is 0).
- **Hidden part** (the first ten tricks): every legal card gets a search of its
  own (:mod:`agent.search.evaluate`, the same number of iterations each, in independent
  batches); a card's value is the mean of the mover's final points over those
  iterations and its win chance the share of them won.  ``noise`` is the
  standard error of the difference between the played card's value and the best
  card's (from its spread over the batches), so a loss counts only beyond
  ``NOISE_Z`` times it.

Points are in thirds (RULES.md); the "best" card is the one with the most
expected points for the mover in Tressette and the fewest in Kifameno (the
exact solver's card in the known part, where the points-best card is also the
win-best).  ``loss`` is how much worse (in the mover's direction) the card played
is.  Labels, from the loss beyond the noise (``excess``) and from the drop in win
chance beyond its noise (``drop``):

========== ==============================================================
label      when
========== ==============================================================
best       no card is valued higher: a ``loss`` of 0 (the best card or an equal one)
good       ``excess`` < ``INACCURACY_LOSS`` (1.5: one figure, a third of a point), a card
           valued lower than the best but within the noise of the estimate (as chess
           analysis boards call a move "good" that is not the engine's but as good as it can tell)
inaccuracy ``excess`` >= 1.5, or ``drop`` >= ``INACCURACY_WIN_DROP`` (5 points of win chance)
mistake    ``excess`` >= ``MISTAKE_LOSS`` (3: an ace, one traditional point),
           or ``drop`` >= ``MISTAKE_WIN_DROP`` (10 points of win chance)
blunder    ``excess`` >= ``BLUNDER_LOSS`` (6: two traditional points), or the
           move throws away a win: exactly in the known part (the best card
           wins, the card played loses), in the hidden part when ``drop`` >=
           ``BLUNDER_WIN_DROP`` (25 points of win chance)
========== ==============================================================

``kind`` is set when a move gives up a win (the best card wins, or is more
likely than not to, and the card played loses, or is less likely than not to,
with the drop of a blunder): ``"missed_win"`` when the opponent's move just
before had itself given up a win (the win was handed over and not taken),
``"threw_win"`` otherwise.  A player's ``accuracy`` is the share of its moves
with a choice (more than one legal card) labelled best or good, in percent;
``avg_loss`` is its mean loss over those moves.

``puzzles`` lists the deal's endgame puzzles (:mod:`agent.puzzles`; ``missed`` and
``after_mistake`` read from the moves' ``kind``), ``puzzle_finder`` the finder's version.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from agent.decide import SearchConfig, known_position
from agent.puzzles import FINDER_VERSION, find_puzzles
from agent.search.evaluate import BATCHES, CardValue, card_values, paired_se
from agent.search.mcts import Tree
from agent.search.solver import new_table, solve_root
from tressette import (
    N_CARDS,
    TOTAL_POINTS,
    AgentState,
    Card,
    CardError,
    Deal,
    IllegalMoveError,
    Variant,
    card_name,
    parse_cards,
    state_from_view,
    view_of,
)

ANALYSIS_VERSION = "analysis-1"

DEFAULT_ITERATIONS = 20_000
"""Iterations of each legal card's own search in the hidden part."""

NOISE_Z = 2.0
"""A hidden-part loss or win drop counts only beyond this many standard errors."""
GOOD_LOSS = 0.5
INACCURACY_LOSS = 1.5
MISTAKE_LOSS = 3.0
BLUNDER_LOSS = 6.0
"""Loss thresholds (thirds, beyond the noise): see the module's table."""
INACCURACY_WIN_DROP = 0.05
MISTAKE_WIN_DROP = 0.10
BLUNDER_WIN_DROP = 0.25
"""Win-chance drop thresholds (beyond the noise): see the module's table."""

LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
ACCURATE = frozenset(("best", "good"))
"""The labels that count as accurate moves."""


class RecordError(ValueError):
    """A deal record that cannot be analysed: malformed, or a move the rules forbid."""


@dataclass(frozen=True, slots=True)
class Record:
    """A validated deal record: the deal as dealt and the cards played in order."""

    variant: Variant
    deck: tuple[Card, ...]
    first_leader: int
    moves: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Values:
    """Every legal card's value for the mover: final points and win chance, and in the hidden part
    the searches' world-by-world results (for the noise of a difference)."""

    points: dict[Card, float]
    win: dict[Card, float]
    searched: dict[Card, CardValue] | None = None

    @property
    def known(self) -> bool:
        """Return True when the values are exact (the solver's)."""
        return self.searched is None


def version() -> str:
    """Return the analysis version string stored with each analysis."""
    try:
        pkg = metadata.version("treset")
    except metadata.PackageNotFoundError:  # run from a source tree without the package installed
        pkg = "unknown"
    return f"{ANALYSIS_VERSION} (treset-agent {pkg})"


def parse_record(record: Mapping[str, Any]) -> Record:
    """Validate a deal record (``variant``, ``deck``, ``first_leader``, ``moves``; extra keys ignored).

    ``moves`` lists ``{"seat": s, "card": "D AS"}`` objects in order (extra keys
    ignored); every move must be legal and by the seat to move.  Raises
    :class:`RecordError` with a one-line reason.
    """
    if not isinstance(record, Mapping):
        raise RecordError("the record must be a JSON object")
    missing = [k for k in ("variant", "deck", "first_leader", "moves") if k not in record]
    if missing:
        raise RecordError(f"missing field(s): {', '.join(missing)}")
    try:
        variant = Variant(record["variant"])
    except ValueError:
        raise RecordError(f"'variant' must be 'tressette' or 'kifameno', got {record['variant']!r}") from None
    deck = _cards(record["deck"], "deck")
    if len(deck) != N_CARDS or len(set(deck)) != N_CARDS:
        raise RecordError("'deck' must list each of the 40 cards once")
    first_leader = record["first_leader"]
    if first_leader not in (0, 1) or isinstance(first_leader, bool):
        raise RecordError(f"'first_leader' must be 0 or 1, got {first_leader!r}")
    raw_moves = record["moves"]
    if not isinstance(raw_moves, list):
        raise RecordError("'moves' must be a list of {\"seat\": s, \"card\": name}")
    deal = Deal.from_deck(deck, variant, first_leader)
    moves: list[Card] = []
    for k, item in enumerate(raw_moves):
        if not isinstance(item, Mapping) or "card" not in item or "seat" not in item:
            raise RecordError(f"'moves'[{k}] must be {{\"seat\": s, \"card\": name}}")
        card = _cards([item["card"]], f"moves[{k}].card")[0]
        try:
            deal.play(card, item["seat"])
        except IllegalMoveError as exc:
            raise RecordError(f"'moves'[{k}] ({card_name(card)} by seat {item['seat']!r}): {exc}") from None
        moves.append(card)
    return Record(variant, tuple(deck), first_leader, tuple(moves))


def _cards(raw: Any, key: str) -> list[Card]:
    try:
        return parse_cards(raw)
    except CardError as exc:
        raise RecordError(f"'{key}': {exc}") from None


def known_values(state: AgentState, tt: np.ndarray) -> Values:
    """Return every legal card's exact final points and win (0 or 1) for the mover of a known position."""
    values = np.zeros(N_CARDS, dtype=np.int64)
    solve_root(*known_position(state), state.cfm, tt, values, np.zeros(1, dtype=np.int64), True)
    points = {c: float(state.points + int(values[c])) for c in state.legal_moves()}
    return Values(points, {c: _won(state.variant, p) for c, p in points.items()})


def hidden_values(state: AgentState, *, iterations: int, seed: int, tree: Tree) -> Values:
    """Return every legal card's estimated final points and win chance (each card's own search, same worlds)."""
    found = card_values(state, iterations=iterations, seed=seed, config=SearchConfig(), tree=tree)
    return Values({c: v.mean for c, v in found.items()}, {c: v.win for c, v in found.items()}, found)


def _won(variant: Variant, points: float) -> float:
    p = round(points)
    return 1.0 if variant.winner((p, TOTAL_POINTS - p)) == 0 else 0.0


def better(variant: Variant, a: float, b: float) -> float:
    """Return how much better final points ``a`` are than ``b`` for their player (negative: worse)."""
    return b - a if variant.cfm else a - b


def best_card(values: Values, variant: Variant, played: Card) -> Card:
    """Return a best card: the most points for the mover (fewest in Kifameno), then the best win chance.

    Ties keep the card played, so an optimal move names itself.
    """
    return max(values.points, key=lambda c: (better(variant, values.points[c], 0.0), values.win[c], c == played))


def label(excess: float, drop: float, threw: bool) -> str:
    """Return the label of a move losing ``excess`` thirds and ``drop`` win chance beyond the noise.

    ``threw``: the move gives up a win exactly (the known part).
    """
    if threw or excess >= BLUNDER_LOSS or drop >= BLUNDER_WIN_DROP:
        return "blunder"
    if excess >= MISTAKE_LOSS or drop >= MISTAKE_WIN_DROP:
        return "mistake"
    if excess >= INACCURACY_LOSS or drop >= INACCURACY_WIN_DROP:
        return "inaccuracy"
    return "good" if excess >= GOOD_LOSS else "best"


def judge_move(values: Values, variant: Variant, played: Card) -> dict[str, Any]:
    """Return a move's judgement (the contract's per-move fields but ``move``, ``trick``, ``seat``, ``kind``
    and ``eval``), plus ``gave_up_win``: whether it gives up a win (its ``kind`` is then set by the caller).
    """
    best = best_card(values, variant, played)
    value, best_value = values.points[played], values.points[best]
    win, best_win = values.win[played], values.win[best]
    loss = max(0.0, better(variant, best_value, value))
    if values.searched is None or played == best:
        noise = win_noise = 0.0
    else:
        noise, win_noise = paired_se(values.searched[played], values.searched[best])
    excess = max(0.0, loss - NOISE_Z * noise)
    drop = max(0.0, (best_win - win) - NOISE_Z * win_noise)
    if values.known:
        gave_up = best_win == 1.0 and win == 0.0
        mark = label(excess, 0.0, gave_up)
    else:
        mark = label(excess, drop, False)
        gave_up = drop >= BLUNDER_WIN_DROP and best_win >= 0.5 > win
    if mark == "best" and _r(loss) > 0:
        mark = "good"  # "best" only when no card is valued higher, or the list of cards would contradict it
    return {
        "card": card_name(played), "known": values.known, "best": card_name(best),
        "value": _r(value), "best_value": _r(best_value), "loss": _r(loss), "noise": _r(noise),
        "win": _r(win, 4), "best_win": _r(best_win, 4), "label": mark, "gave_up_win": gave_up,
        "cards": [{"card": card_name(c), "value": _r(values.points[c]), "win": _r(values.win[c], 4)}
                  for c in sorted(values.points)],
    }


def _r(x: float, digits: int = 3) -> float:
    return round(float(x), digits)


def move_kind(gave_up: bool, previous: Mapping[str, Any] | None, seat: int) -> str | None:
    """Return the move's ``kind``: None, ``"missed_win"`` when the opponent's move just before had
    given up a win (the win was handed over and not taken), ``"threw_win"`` otherwise."""
    if not gave_up:
        return None
    if previous is not None and previous["seat"] != seat and previous["kind"] is not None:
        return "missed_win"
    return "threw_win"


def eval_after(value: float, win: float, seat: int) -> dict[str, list[float]]:
    """Return both seats' expected final points and win chances once ``seat`` has moved (for the graph)."""
    points = [0.0, 0.0]
    wins = [0.0, 0.0]
    points[seat], points[1 - seat] = _r(value), _r(TOTAL_POINTS - value)
    wins[seat], wins[1 - seat] = _r(win, 4), _r(1.0 - win, 4)
    return {"points": points, "win": wins}


def player_summary(moves: Sequence[Mapping[str, Any]], seat: int) -> dict[str, Any]:
    """Return a seat's accuracy (percent of its moves with a choice labelled best or good), mean loss and counts."""
    own = [m for m in moves if m["seat"] == seat]
    choices = [m for m in own if len(m["cards"]) > 1]
    counts = {name: sum(1 for m in choices if m["label"] == name) for name in LABELS}
    accurate = sum(1 for m in choices if m["label"] in ACCURATE)
    return {
        "seat": seat, "moves": len(own), "choices": len(choices),
        "accuracy": _r(100.0 * accurate / len(choices), 1) if choices else 100.0,
        "avg_loss": _r(sum(m["loss"] for m in choices) / len(choices)) if choices else 0.0,
        "inaccuracies": counts["inaccuracy"], "mistakes": counts["mistake"], "blunders": counts["blunder"],
    }


def thresholds() -> dict[str, float]:
    """Return the label thresholds, to store with each analysis."""
    return {"noise_z": NOISE_Z, "good_loss": GOOD_LOSS, "inaccuracy_loss": INACCURACY_LOSS, "mistake_loss": MISTAKE_LOSS,
            "blunder_loss": BLUNDER_LOSS, "inaccuracy_win_drop": INACCURACY_WIN_DROP,
            "mistake_win_drop": MISTAKE_WIN_DROP, "blunder_win_drop": BLUNDER_WIN_DROP}


def move_seed(seed: int, move: int) -> int:
    """Return the search seed of one move: independent of the other moves, reproducible from ``seed``."""
    return (seed * 1_000_003 + move) % (2**31 - 1) + 1


def analyse(record: Mapping[str, Any], *, iterations: int = DEFAULT_ITERATIONS, seed: int = 0) -> dict[str, Any]:
    """Return the analysis of a deal record (see :func:`parse_record`): every move judged, both players summed up.

    A forfeited deal's record holds only the moves played; those are analysed.
    ``iterations``: each legal card's search in the hidden part; ``seed`` makes the
    analysis reproducible.  Raises :class:`RecordError` for an invalid record.
    """
    if iterations < 1:
        raise ValueError("iterations must be positive")
    start = time.perf_counter()
    rec = parse_record(record)
    deal = Deal.from_deck(rec.deck, rec.variant, rec.first_leader)
    tt = new_table()
    tree = Tree(iterations // BATCHES + 1)
    moves: list[dict[str, Any]] = []
    spent = {True: 0.0, False: 0.0}
    for k, card in enumerate(rec.moves):
        seat = deal.to_move
        state = state_from_view(view_of(deal, seat))
        t0 = time.perf_counter()
        if state.all_known:
            values = known_values(state, tt)
        else:
            values = hidden_values(state, iterations=iterations, seed=move_seed(seed, k), tree=tree)
        spent[values.known] += time.perf_counter() - t0
        judged = judge_move(values, rec.variant, card)
        gave_up = judged.pop("gave_up_win")
        kind = move_kind(gave_up, moves[-1] if moves else None, seat)
        cards = judged.pop("cards")
        move = {"move": k, "trick": deal.trick_number, "seat": seat, **judged, "kind": kind, "cards": cards,
                "eval": eval_after(values.points[card], values.win[card], seat)}
        moves.append(move)
        deal.play(card)
    known_s = time.perf_counter()
    puzzles = find_puzzles(rec.variant, rec.deck, rec.first_leader, rec.moves, kinds=[m["kind"] for m in moves], tt=tt)
    spent[True] += time.perf_counter() - known_s
    return {
        "version": version(),
        "variant": rec.variant.value,
        "settings": {"iterations": iterations, "seed": seed, "thresholds": thresholds(),
                     "method": "hidden part: a search of its own per legal card (agent.search.evaluate); "
                               "known part: the exact solver"},
        "moves": moves,
        "players": [player_summary(moves, 0), player_summary(moves, 1)],
        "puzzles": puzzles, "puzzle_finder": FINDER_VERSION,
        "timing": {"hidden_s": _r(spent[False]), "known_s": _r(spent[True]),
                   "total_s": _r(time.perf_counter() - start)},
    }
