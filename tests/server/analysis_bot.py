"""A scripted analysis bot for the tests: it answers ``analyse`` with a well-formed made-up analysis.

The figures are invented (no search), but the shape is the agent's (docs/protocol.md, "Analysis"):
every move of the record in order, with a legal best card, a loss, a label and the evaluation after it.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import LiveServer
from tests.server.client import Client, Msg
from tressette import Deal, Variant, card_name, parse_card

LABEL_OF_LOSS = ((0.0, "best"), (1.0, "good"), (2.0, "inaccuracy"), (4.0, "mistake"), (8.0, "blunder"))


def label_of(loss: float) -> str:
    """Return the label of a loss in thirds (the made-up thresholds of this bot)."""
    label = "best"
    for floor, name in LABEL_OF_LOSS:
        if loss >= floor:
            label = name
    return label


def fake_analysis(record: dict[str, Any], *, version: str = "test-1", spread: int = 5) -> dict[str, Any]:
    """Return an analysis of ``record``: every ``spread``-th move with a choice lost 4 thirds, every 11th 9."""
    deck = [parse_card(c) for c in record["deck"]]
    deal = Deal.from_deck(deck, Variant(record["variant"]), record["first_leader"])
    moves, totals = [], {0: [0, 0.0, 0], 1: [0, 0.0, 0]}
    expected = [17.5, 17.5]
    for m in record["moves"]:
        seat, card = m["seat"], parse_card(m["card"])
        legal = deal.legal_moves(seat)
        others = [c for c in legal if c != card]
        loss = 0.0
        if others and m["move"] % 11 == 10:
            loss = 9.0
        elif others and m["move"] % spread == 3:
            loss = 4.0
        elif others and m["move"] % 3 == 1:
            loss = 1.0
        best = others[0] if loss > 0 else card
        expected[seat] -= loss / 2
        expected[1 - seat] += loss / 2
        value = expected[seat]
        moves.append({
            "move": m["move"], "trick": m["trick"], "seat": seat, "card": m["card"], "known": m["move"] >= 20,
            "best": card_name(best), "value": value, "best_value": value + loss, "loss": loss, "noise": 0.2,
            "win": 0.5 - loss / 40, "best_win": 0.5, "label": label_of(loss),
            "kind": "threw_win" if loss >= 9 else None,
            "cards": [{"card": card_name(c), "value": value + (loss if c == best else 0.0), "win": 0.5}
                      for c in legal],
            "eval": {"points": [round(expected[0], 2), round(expected[1], 2)],
                     "win": [round(expected[0] / 35, 3), round(expected[1] / 35, 3)]},
        })
        totals[seat][0] += 1
        totals[seat][1] += loss
        totals[seat][2] += loss >= 8
        deal.play(card, seat)
    players = []
    for seat in (0, 1):
        n, lost, blunders = totals[seat]
        players.append({"seat": seat, "moves": n, "accuracy": round(100 - 2 * lost / max(1, n), 1),
                        "avg_loss": round(lost / max(1, n), 3), "inaccuracies": 0,
                        "mistakes": sum(1 for x in moves if x["seat"] == seat and x["label"] == "mistake"),
                        "blunders": blunders})
    return {"version": version, "variant": record["variant"], "moves": moves, "players": players,
            "timing": {"total_ms": 1}}


class AnalysisBot:
    """A bot connection that only analyses (``levels`` empty, ``capacity`` 0)."""

    def __init__(self, server: LiveServer, token: str, slots: int = 1) -> None:
        """Connect with the bot ``token`` and offer ``slots`` analyses at once."""
        self.client = Client(server.ws_url, token)
        assert self.client.recv()["type"] == "welcome"
        self.client.send({"type": "bot_hello", "levels": [], "capacity": 0, "analysis": slots})

    def job(self, timeout: float = 15) -> Msg:
        """Return the next ``analyse`` message."""
        return self.client.wait_for(lambda m: m["type"] == "analyse", timeout)

    def answer(self, job: Msg, *, version: str = "test-1", spread: int = 5) -> None:
        """Answer ``job`` with a made-up analysis of its record."""
        self.client.send({"type": "analysis", "job": job["job"], "game_id": job["game_id"], "version": version,
                          "analysis": fake_analysis(job["record"], version=version, spread=spread)})

    def close(self) -> None:
        """Drop the connection."""
        self.client.close()
