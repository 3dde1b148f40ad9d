"""A four-player table's state in memory: four seats, the partnership deal, the match, and what each seat may see.

No I/O here: the table's room (:mod:`server.game.partnership.room`) persists and broadcasts. The
shapes are docs/protocol-four.md's (``table.table`` at a four-player table).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from server.game.tables import MatchStanding, Seat
from tressette import card_name
from tressette.partnership import (
    N_SEATS,
    PartnershipDeal,
    PartnershipMatch,
    PartnershipOptions,
    draw_first_leader,
    leader_of_deal,
    partner_of,
    view_of_partnership,
)

GAME = "partnership"
"""The ``game`` of a four-player table (the two-player tables' messages carry none)."""
VARIANT_KEY = "partnership"
"""The ``variant`` of a four-player deal's rows and of its totals and ratings."""
DEFAULT_LEVEL = "rules"
"""The four-player bot level a table gets when none is asked: the honest rule player, a newcomer's opponent."""


def default_level(served: list[str]) -> str:
    """Return the level of bots filling seats when none is named: :data:`DEFAULT_LEVEL` if served, else the first served."""
    return DEFAULT_LEVEL if DEFAULT_LEVEL in served or not served else served[0]


@dataclass(slots=True)
class FourTable(MatchStanding):
    """One four-player table (seats 0 and 2 against 1 and 3) and its current (or last) deal."""

    id: str
    opponent: str
    options: PartnershipOptions
    target: int = 0
    bot_level: str | None = None
    """The level of the bots the table seats (a leaver's substitute too)."""
    invite: str | None = None
    created_at: float = field(default_factory=time.time)
    seats: list[Seat | None] = field(default_factory=lambda: [None] * N_SEATS)
    replaced: list[str | None] = field(default_factory=lambda: [None] * N_SEATS)
    """The name of the person whose seat a bot took (they left or ran out of time)."""
    creator: int | None = None
    """The user id of the person who opened the table (who may seat bots while it waits)."""
    deal: PartnershipDeal | None = None
    game_id: int | None = None
    deal_number: int = 0
    first_leader: int = field(default_factory=draw_first_leader)
    """The seat that leads the table's first deal (drawn at random); each later deal passes to the next seat."""
    status: str = "waiting"
    result: dict[str, Any] | None = None
    rematch: list[bool] = field(default_factory=lambda: [False] * N_SEATS)
    deadline: float | None = None
    spectators: int = 0
    notice: dict[str, str] | None = None
    fence: int = 0
    match: PartnershipMatch | None = None
    match_id: int | None = None
    match_end: dict[str, Any] | None = None
    bot_retry_at: float | None = None
    bot_asked: float = 0.0
    series_left: int = 0
    """Always 0 (the clock's and lobby's shared reading of a table)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)

    game: str = GAME
    variant_name: str = "tressette"

    @property
    def move_number(self) -> int:
        """Return how many cards have been played in the current deal."""
        if self.deal is None:
            return 0
        return N_SEATS * self.deal.trick_number + len(self.deal.table)

    @property
    def fenced(self) -> tuple[str, int]:
        """Return the table's fence: its id and this process's token."""
        return (self.id, self.fence)

    @property
    def next_leader(self) -> int:
        """Return the seat that leads the next deal (the match's rule; single deals pass the lead on too)."""
        return leader_of_deal(self.first_leader, self.deal_number)

    def seat_of(self, user_id: int) -> int | None:
        """Return the seat of ``user_id`` at this table, if seated."""
        for i, s in enumerate(self.seats):
            if s is not None and s.user_id == user_id:
                return i
        return None

    @property
    def people(self) -> list[int]:
        """Return the seats held by people (not bots)."""
        return [i for i, s in enumerate(self.seats) if s is not None and not s.is_bot]

    def _header(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "variant": self.variant_name, "status": self.status,
                "opponent": self.opponent, "bot_level": self.bot_level, "target": self.target,
                "options": self.options.to_dict()}

    def summary(self) -> dict[str, Any]:
        """Return the lobby's line for this table."""
        return {**self._header(), "players": [s.username if s else None for s in self.seats],
                "spectators": self.spectators, "created_at": int(self.created_at * 1000)}

    def snapshot(self, seat: int | None, *, with_invite: bool = False, reconnect_grace_s: float = 0.0
                 ) -> dict[str, Any]:
        """Return the table as ``seat`` (None: a spectator) may see it: never another seat's hand while it plays."""
        view = (view_of_partnership(self.deal, seat, self.match).to_dict() if self.deal is not None else None)
        return {
            **self._header(),
            "players": [
                {"username": s.username, "is_bot": s.is_bot, "connected": s.connected,
                 "reconnect_deadline": (int((s.disconnected_at + reconnect_grace_s) * 1000)
                                        if s.disconnected_at is not None and not s.is_bot else None),
                 "level": s.level if s.is_bot else None, "replaced": self.replaced[i]} if s else None
                for i, s in enumerate(self.seats)
            ],
            "you": seat,
            "partner": None if seat is None else partner_of(seat),
            "game_id": self.game_id,
            "deal_number": self.deal_number,
            "view": view,
            "turn_deadline": int(self.deadline * 1000) if self.deadline and self.status == "playing" else None,
            "result": self.result,
            "rematch": list(self.rematch),
            "invite": self.invite if with_invite else None,
            "notice": self.notice,
            "match": self.match_state(),
        }

    def result_of(self, reason: str) -> dict[str, Any]:
        """Return the public end-of-deal record: every hand as dealt and the deck (public once the deal is over)."""
        deal = self.deal
        assert deal is not None
        if deal.is_over:
            outcome = deal.outcome()
            points, declared, score = outcome.card_score, outcome.declared, outcome.score
            winner, cappotto = outcome.winner, outcome.cappotto is not None
        else:  # abandoned: every person left before the end
            declared = deal.declared_points()
            points = (deal.points[0] // 3, deal.points[1] // 3)
            score = (points[0] + declared[0], points[1] + declared[1])
            winner, cappotto = None, False
        return {
            "points": list(points), "declared": list(declared), "score": list(score), "winner": winner,
            "reason": reason, "cappotto": cappotto,
            "hands": [[card_name(c) for c in deal.deck[10 * s:10 * s + 10]] for s in range(N_SEATS)],
            "deck": [card_name(c) for c in deal.deck],
            "players": [s.username if s else None for s in self.seats],
        }
