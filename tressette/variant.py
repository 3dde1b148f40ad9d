"""The two games played with the same deal: Tressette and Kifameno."""

from __future__ import annotations

import enum
from typing import Literal, TypeAlias

VariantName: TypeAlias = Literal["tressette", "kifameno"]
"""A variant's name on the protocol and in the API: the values of :class:`Variant` (a test holds them alike)."""


class Variant(enum.Enum):
    """Which way the points count: more wins (Tressette) or fewer wins (Kifameno)."""

    TRESSETTE = "tressette"
    KIFAMENO = "kifameno"

    @property
    def cfm(self) -> bool:
        """Return the agent protocol's ``cfm`` flag (True for Kifameno)."""
        return self is Variant.KIFAMENO

    @classmethod
    def from_cfm(cls, cfm: bool) -> Variant:
        """Return the variant for the agent protocol's ``cfm`` flag."""
        return cls.KIFAMENO if cfm else cls.TRESSETTE

    def winner(self, points: tuple[int, int]) -> int:
        """Return the seat (0 or 1) that wins a finished deal with these final points."""
        if points[0] == points[1]:
            raise ValueError(f"a finished deal cannot be drawn: {points}")
        more = 0 if points[0] > points[1] else 1
        return more if self is Variant.TRESSETTE else 1 - more
