"""Any room of this process: a two-player table's (:class:`~server.game.room.Room`) or a four-player one's."""

from __future__ import annotations

from typing import TypeAlias

from server.game.partnership.room import FourRoom
from server.game.partnership.table import FourTable
from server.game.room import Room
from server.game.tables import Table

AnyRoom: TypeAlias = Room | FourRoom
AnyTable: TypeAlias = Table | FourTable
__all__ = ["AnyRoom", "AnyTable", "FourRoom", "Room"]
