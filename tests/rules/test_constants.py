"""The rules' constants that the agent and the server import instead of re-typing them."""

from __future__ import annotations

from typing import get_args

from tressette import ACE_POINTS, LAST_TRICK_BONUS, POINTS, TOTAL_POINTS, WINNING_POINTS, Variant, VariantName


def test_points_total_and_winning_threshold() -> None:
    """35 points in a deal (cards and the last trick); 18 wins Tressette, and no draw is possible."""
    assert sum(POINTS) + LAST_TRICK_BONUS == TOTAL_POINTS
    assert WINNING_POINTS + (WINNING_POINTS - 1) == TOTAL_POINTS  # the least majority; a deal is never drawn
    assert max(POINTS) == ACE_POINTS and POINTS.count(ACE_POINTS) == 4


def test_variant_names_are_the_enum_values() -> None:
    """The protocol's variant names (a ``Literal`` the server validates with) are the ``Variant`` values."""
    assert set(get_args(VariantName)) == {v.value for v in Variant}
