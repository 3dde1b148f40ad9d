"""The bots a process can seat: their levels and capacity, and which bot thinks about which table's turn.

No I/O: a room (:mod:`server.game.playing`) asks the pool for a bot and sends it the turn (``bot_turn``). A bot connected to
another process of the portal (``server.game.cluster``) is here as a proxy connection, like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.game.connection import Connection
from server.game.levels import offered_levels
from server.protocol import LevelInfo


@dataclass
class BotPool:
    """The bots connected and the bot turns given out (or waiting for a bot with room)."""

    allowed: list[str]
    """``TRESET_BOT_LEVELS``: the only levels a table may ask for (empty: any a bot announces)."""
    bots: list[Connection] = field(default_factory=list)
    announced: dict[str, int | None] = field(default_factory=dict)
    """The levels bots have announced in ``bot_hello`` (kept after they leave), with per-move times."""
    ratings: dict[str, int] = field(default_factory=dict)
    partnership_announced: dict[str, int | None] = field(default_factory=dict)
    """The four-player levels bots have announced (kept after they leave), with per-move times."""
    partnership_ratings: dict[str, int] = field(default_factory=dict)
    """The four-player levels' measured ratings, as their bots announce them (the lobby's ``partnership_ratings``)."""
    turns: dict[str, tuple[int, Connection | None]] = field(default_factory=dict)
    """Per table: the bot turn asked (its move number) and the bot thinking about it (None: waiting for one)."""

    def register(self, conn: Connection, *, levels: list[str], capacity: int, analysis: int,
                 level_info: list[LevelInfo], partnership: list[LevelInfo] | None = None) -> None:
        """Take ``conn`` in as a bot for ``levels`` (those allowed), ``capacity`` tables at once.

        ``partnership``: the four-player levels it plays (docs/protocol-four.md, "Bots").
        """
        conn.partnership_levels = [info.name for info in partnership or ()]
        for info in partnership or ():
            self.partnership_announced[info.name] = info.time_ms
            if info.rating is not None:
                self.partnership_ratings[info.name] = info.rating
        conn.levels = [lv for lv in levels if not self.allowed or lv in self.allowed]
        times = {info.name: info.time_ms for info in level_info}
        for lv in conn.levels:  # the bots' word on their levels (agent/levels.py) outranks the fallback
            self.announced[lv] = times.get(lv, self.announced.get(lv))
        self.ratings |= {i.name: i.rating for i in level_info if i.rating is not None and i.name in conn.levels}
        conn.capacity = capacity
        conn.analysis = analysis
        if conn not in self.bots:
            self.bots.append(conn)

    def remove(self, conn: Connection) -> list[tuple[str, int]]:
        """Let ``conn`` go; return the turns it held ``(table_id, turn)``, now waiting for another bot."""
        if conn not in self.bots:
            return []
        self.bots.remove(conn)
        held = [(table_id, turn) for table_id, (turn, bot) in self.turns.items() if bot is conn]
        for table_id, turn in held:
            self.turns[table_id] = (turn, None)
        return held

    def offered(self) -> dict[str, int | None]:
        """Return the bot levels a table may ask for, with their per-move times (see :mod:`server.game.levels`)."""
        return offered_levels(self.announced, self.allowed)

    def live(self) -> list[Connection]:
        """Return the bots still connected."""
        return [b for b in self.bots if not b.closed]

    def serves(self, level: str) -> bool:
        """Return True if a connected bot plays ``level``."""
        return any(level in b.levels for b in self.live())

    def load(self, bot: Connection) -> int:
        """Return how many tables' turns ``bot`` is thinking about."""
        return sum(1 for _, b in self.turns.values() if b is bot)

    def has_room(self) -> bool:
        """Return True if some bot can take one more turn."""
        return any(self.load(b) < b.capacity for b in self.live())

    def partnership_offered(self) -> dict[str, int | None]:
        """Return the four-player levels a table may ask for (announced by a bot), with their per-move times."""
        return dict(self.partnership_announced)

    def serves_partnership(self, level: str) -> bool:
        """Return True if a connected bot plays four-player seats at ``level``."""
        return any(level in b.partnership_levels for b in self.live())

    def partnership_served(self) -> list[str]:
        """Return the four-player levels a connected bot plays, in the order announced."""
        live = self.live()
        return [lv for lv in self.partnership_announced if any(lv in b.partnership_levels for b in live)]

    def assign(self, table_id: str, turn: int, level: str, *, four: bool = False) -> tuple[Connection | None, bool]:
        """Give the table's turn to the least loaded bot of ``level`` with room (``four``: a four-player seat's).

        Return the bot (None: the turn waits) and whether any bot plays ``level`` at all.
        """
        self.turns.pop(table_id, None)  # this table's own turn does not count against a bot's capacity
        candidates = [b for b in self.live() if level in (b.partnership_levels if four else b.levels)]
        free = [b for b in candidates if self.load(b) < b.capacity]
        bot = min(free, key=self.load) if free else None
        self.turns[table_id] = (turn, bot)
        return bot, bool(candidates)

    def waiting(self) -> list[str]:
        """Return the tables whose bot turn waits for a bot, oldest request first."""
        return [table_id for table_id, (_, bot) in self.turns.items() if bot is None]

    def levels_served(self) -> list[str]:
        """Return the levels a connected bot plays, in the order the bots announced them (weakest first)."""
        live = self.live()
        return [lv for lv in self.announced if any(lv in b.levels for b in live)]

    def health(self) -> dict[str, Any]:
        """Return the pool's figures for ``/healthz``."""
        live = self.live()
        return {
            "bots_connected": len(live),
            "bot_capacity": sum(max(0, b.capacity - self.load(b)) for b in live),
            # The pool's load: turns the bots think about now, of how many they take, and turns waiting for one.
            "bot_turns": sum(self.load(b) for b in live),
            "bot_slots": sum(b.capacity for b in live),
            "bot_turns_waiting": len(self.waiting()),
            "bot_levels": self.levels_served(),
        }
