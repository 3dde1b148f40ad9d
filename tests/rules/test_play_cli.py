"""``treset play`` plays a whole deal in the terminal, showing only the player's view."""

from __future__ import annotations

import io
import random
import re

from tests.forkserver import run_module
from treset.play import _random_policy, play_deal
from tressette import Variant, parse_card


def test_a_whole_deal_in_the_terminal() -> None:
    """Always answering '1' (the first legal card) finishes a deal with 35 points in all."""
    out = io.StringIO()
    status = play_deal(Variant.KIFAMENO, _random_policy, random.Random(11), io.StringIO("1\n" * 20), out)
    assert status == 0
    text = out.getvalue()
    final = re.search(r"deal over: you (\d+) \(\d+\), opponent (\d+)", text)
    assert final and int(final[1]) + int(final[2]) == 35
    # The opponent's known cards shown on screen were all drawn face up (never more than it holds).
    for line in re.findall(r"opponent: (\d+) cards; known: (.*)", text):
        shown = re.findall(r"\[([^\]]+)\]", line[1])
        assert len(shown) <= int(line[0])
        assert all(parse_card(c) >= 0 for c in shown)


def test_bad_input_is_asked_again_and_quit_leaves() -> None:
    """An unknown card name is refused with a message; 'q' leaves the deal."""
    out = io.StringIO()
    status = play_deal(Variant.TRESSETTE, _random_policy, random.Random(2), io.StringIO("Z 9\nq\n"), out)
    text = out.getvalue()
    assert status == 1
    assert "unknown card name 'Z 9'" in text and "you left the deal" in text


def test_command_line_entry_point() -> None:
    """``treset play`` runs as a command and rejects an unknown opponent with exit status 2."""
    bad = run_module("treset.cli", ["play", "--opponent", "nobody"])
    assert bad.returncode == 2 and "no opponent 'nobody'" in bad.stderr
    ok = run_module("treset.cli", ["play", "--opponent", "random", "--seed", "4"], input="1\n" * 20)
    assert ok.returncode == 0 and "deal over" in ok.stdout
