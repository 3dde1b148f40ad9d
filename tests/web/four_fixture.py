"""A four-player table as the server sends it (docs/protocol-four.md), played by the real rules package.

The browser tests of the page's positions that a real game reaches only by chance (a declaration of each kind, a
bot's signal, a match's end) feed it these ``table`` messages through the page's own message handler; the shapes
are the server's (checked against it in tests/web/test_four_live.py, which plays through the real server). Every message is
made from a real :class:`tressette.partnership.PartnershipDeal`: the view is ``PartnershipView.to_dict()`` of the
player's seat, and the player's moves are the ``play`` messages the page sent, played by the rules (so a false
declaration or signal from the page fails the test as the server would refuse it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tressette import card_name, parse_card
from tressette.partnership import (
    Declaration,
    PartnershipDeal,
    PartnershipMatch,
    PartnershipOptions,
    PartnershipTrick,
    Signal,
    possible_declarations,
    view_of_partnership,
)

TABLE_ID = "p7c2e9"
BOTS = ("bot-rules-a", "bot-rules-b", "bot-rules-c")
TARGET = 31
DEADLINE_MS = 4_102_444_800_000  # far ahead (2100): the clock shows a number of seconds, never 0


def _player(name: str | None, *, bot: bool) -> dict[str, Any] | None:
    if name is None:
        return None
    return {"username": name, "is_bot": bot, "connected": True, "reconnect_deadline": None,
            "level": "rules" if bot else None, "replaced": None}


def my_choice(deal: PartnershipDeal, signalled: bool) -> tuple[str, str | None]:
    """Return the card the test plays for seat 0 and its signal: the first legal card, except at the first lead
    where a *striscio* is true: then the first card it is true of, with it (``signalled``: already given)."""
    legal = deal.legal_moves()
    if not signalled and deal.may_signal():
        for card in legal:
            if Signal.STRISCIO in deal.allowed_signals(card):
                return card_name(card), "striscio"
    return card_name(legal[0]), None


def seeded_deal() -> PartnershipDeal:
    """Return a deal (seat 0 leads) where, played as the test plays it, seat 0 has something to declare, an
    opponent declares too, seat 0 leads a later trick with a *striscio* and a bot leads one with a signal."""
    options = PartnershipOptions.default_for(TARGET)
    for seed in range(20_000):
        deal = PartnershipDeal.new(0, random.Random(seed), options)
        if not deal.declarable(0) or not any(possible_declarations(deal.hands[s]) for s in (1, 3)):
            continue
        sim = deal.copy()
        mine = bots = False
        while not sim.is_over:
            if sim.to_move == 0:
                card, signal = my_choice(sim, mine)
                mine = mine or signal is not None
                sim.play(parse_card(card), 0, declarations=sim.declarable(),
                         signal=None if signal is None else Signal(signal))
            else:
                seat, card, decls, signal = _bot_move(sim)
                bots = bots or signal is not None
                sim.play(parse_card(card), seat, declarations=[Declaration.from_dict(d) for d in decls],
                         signal=None if signal is None else Signal(signal))
        if mine and bots:
            return deal
    raise AssertionError("no seeded deal shows every kind of declaration and signal")


def _bot_move(deal: PartnershipDeal) -> tuple[int, str, list[dict[str, Any]], str | None]:
    """Return the move of the bot to play: the first legal card, all it may declare, a true signal if any
    (striscio before volo before busso)."""
    seat = deal.to_move
    card = deal.legal_moves()[0]
    decls = [d.to_dict() for d in deal.declarable()]
    allowed = [s.value for s in deal.allowed_signals(card)]
    signal = next((s for s in ("striscio", "volo", "busso") if s in allowed), None)
    return seat, card_name(card), decls, signal


@dataclass
class FourTable:
    """One four-player table seen from seat 0 (``you``): the deal, the match, and the messages so far."""

    you_name: str
    deal: PartnershipDeal
    you: int | None = 0  # None: a spectator (the names are then the four players', ``you_name`` at seat 0)
    match: PartnershipMatch = field(default_factory=lambda: PartnershipMatch(TARGET, 0, (12, 9), 2))
    moves: list[dict[str, Any]] = field(default_factory=list)  # the record's moves (for the replay)
    hands: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hands = [[card_name(c) for c in self.deal.hands[s]] for s in range(4)]

    @property
    def names(self) -> list[str]:
        """Return the four names, seat by seat."""
        return [self.you_name, *BOTS]

    def message(self, event: dict[str, Any], *, status: str = "playing") -> dict[str, Any]:
        """Return the ``table`` message of the table now, with ``event``."""
        view = view_of_partnership(self.deal, self.you, self.match).to_dict()
        result = None
        match = {"target": TARGET, "scores": list(self.match.scores), "deal": self.match.deals + 1, "end": None,
                 "next_deal_at": None}
        if self.deal.is_over:
            status = "finished"
            out = self.deal.outcome()
            after = self.match.after(out)
            result = {"points": list(out.card_score), "declared": list(out.declared), "score": list(out.score),
                      "winner": out.winner, "reason": "finished", "cappotto": out.cappotto is not None,
                      "hands": self.hands, "deck": [card_name(c) for c in self.deal.deck], "players": self.names,
                      "rated": True}
            match["scores"] = list(after.scores)
            if after.is_over:
                margin = abs(after.scores[0] - after.scores[1])
                match["end"] = {"winner": after.winner, "margin": margin, "reason": "finished", "rated": True}
        table = {
            "id": TABLE_ID, "game": "partnership", "variant": "tressette", "status": status, "opponent": "bot",
            "target": TARGET, "options": self.deal.options.to_dict(),
            "players": [_player(self.you_name, bot=False), *(_player(b, bot=True) for b in BOTS)],
            "you": self.you, "partner": None if self.you is None else (self.you + 2) % 4, "game_id": 4242, "deal_number": self.match.deals + 1, "view": view,
            "turn_deadline": None if status != "playing" else DEADLINE_MS, "result": result,
            "rematch": [False, True, True, True] if result else [False] * 4, "invite": None, "notice": None,
            "match": match,
        }
        return {"type": "table", "table": table, "event": event}

    def play(self, seat: int, card: str, declarations: list[dict[str, Any]] | None = None,
             signal: str | None = None) -> list[dict[str, Any]]:
        """Play a move (refused by the rules if false); return the messages it makes (a play, or a trick)."""
        decls = [Declaration.from_dict(d) for d in declarations or []]
        trick = self.deal.play(parse_card(card), seat, declarations=decls, signal=None if signal is None else Signal(signal))
        said = [d.to_dict() for d in decls]
        # As the server's replay numbers them (server/api/partnership_replay.py): moves and tricks from 0.
        self.moves.append({"move": len(self.moves), "trick": len(self.deal.history) - (1 if trick else 0),
                           "seat": seat, "card": card, "declarations": said, "signal": signal})
        ev: dict[str, Any] = {"kind": "play", "seat": seat, "card": card, "declarations": said, "signal": signal}
        if trick is not None:
            ev = {"kind": "trick", "seat": seat, "card": card, "declarations": said, "signal": signal,
                  "trick": _trick(trick)}
        return [self.message(ev)]

    def bot_move(self) -> tuple[int, str, list[dict[str, Any]], str | None]:
        """Return the move of the bot to play (see ``_bot_move``)."""
        return _bot_move(self.deal)

    def record(self) -> dict[str, Any]:
        """Return the finished deal as GET /api/games/{id}/replay serves it (server/api/partnership_replay.py)."""
        out = self.deal.outcome()
        return {"id": 4242, "game": "partnership", "variant": "partnership", "players": self.names,
                "first_leader": self.deal.first_leader, "options": self.deal.options.to_dict(),
                "deck": [card_name(c) for c in self.deal.deck], "hands": self.hands, "moves": self.moves,
                "tricks": [_trick(t) for t in self.deal.history], "points": list(out.card_score),
                "declared": list(out.declared), "score": list(out.score), "winner": out.winner,
                "cappotto": out.cappotto is not None, "reason": "finished", "rated": True, "match": None}


def _trick(trick: PartnershipTrick) -> dict[str, Any]:
    return trick.to_dict()


def waiting_message(you_name: str) -> dict[str, Any]:
    """Return the table for four its creator sees while seats 1 and 3 are free (seat 2: a bot already)."""
    table = {
        "id": TABLE_ID, "game": "partnership", "variant": "tressette", "status": "waiting", "opponent": "anyone",
        "target": TARGET, "options": {"declarations": True, "signals": True},
        "players": [_player(you_name, bot=False), None, _player("bot-rules-b", bot=True), None],
        "you": 0, "partner": 2, "game_id": None, "deal_number": 0, "view": None, "turn_deadline": None,
        "result": None, "rematch": [False] * 4, "invite": None, "notice": None,
        "match": {"target": TARGET, "scores": [0, 0], "deal": 0, "end": None, "next_deal_at": None},
    }
    return {"type": "table", "table": table, "event": {"kind": "created"}}


def lobby_message(you_name: str) -> dict[str, Any]:
    """Return a ``lobby`` message listing a four-player table with two free seats (and one of the player's)."""
    # As the server sends it with the agent connected: its four-player level "rules", unrated.
    return {"type": "lobby", "online": 5, "bot_levels": [], "bot_ratings": {}, "partnership_levels": ["rules"],
            "partnership_ratings": {}, "tables": [
        {"id": "q4open", "game": "partnership", "variant": "tressette", "status": "waiting", "target": 41,
         "opponent": "anyone", "bot_level": None, "players": ["marta", None, None, "bot-rules-d"],
         "options": {"declarations": True, "signals": False}},
        {"id": "q4play", "game": "partnership", "variant": "tressette", "status": "playing", "target": 21,
         "opponent": "anyone", "bot_level": None, "players": ["ivo", "luka", "ana", "bot-rules-e"],
         "options": {"declarations": False, "signals": True}},
    ]}
