"""``treset-agent fit-policy`` on a real PostgreSQL database filled by the seeder."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent.cli import main as agent_main
from agent.fitpolicy import query
from agent.opponent.policy import load_policy, read_policy, use_policy
from server.store.db import session_factory, upgrade
from server.tools.seed import generate
from tressette import Deal, Variant, state_from_view, view_of


def test_fit_policy_reads_the_move_log_and_beats_uniform_on_held_out_moves(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The seeded players' plays are read, fitted, scored on held-out games and written as a policy file
    that ``decide --policy`` plays with; the fitted policy predicts them better than uniform."""
    upgrade(pg_url)
    with session_factory(pg_url)() as session:
        generate(session, moves=8000, players=6, seed=2, days=5)
    out = tmp_path / "people.json"
    code = agent_main(["fit-policy", "--database-url", pg_url, "--people-only", "--min-games", "1",
                       "--out", str(out), "--json", "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    report = json.loads(printed[:printed.rindex("}") + 1])
    written = json.loads(out.read_text())
    assert written["held_out"] == report and set(written["theta"]) == {"tressette", "kifameno"}
    for r in report.values():
        if r["fitted"]:
            assert r["held_out"] > 0
            assert r["fitted"]["log_likelihood"] > r["uniform"]["log_likelihood"]
            assert r["fitted"]["top1"] > r["uniform"]["top1"]
    assert any(r["fitted"] for r in report.values())
    try:
        use_policy(out)
        assert load_policy() == read_policy(out)
    finally:
        use_policy(None)
    state = state_from_view(view_of(Deal.new(Variant.TRESSETTE, 0, random.Random(1)), 0))
    assert agent_main(["decide", state.to_json(), "--policy", str(out), "--iterations", "200"]) == 0
    use_policy(None)


def test_fit_policy_filters_and_refuses_an_empty_selection(pg_url: str, tmp_path: Path) -> None:
    """The filters become SQL conditions; nothing selected is an error, not an empty policy."""
    sql, params = query(variant="kifameno", since=None, min_games=10, people_only=True)
    assert "u.role <> 'bot'" in sql and params == {"variant": "kifameno", "min_games": 10}
    upgrade(pg_url)
    out = tmp_path / "none.json"
    assert agent_main(["fit-policy", "--database-url", pg_url, "--out", str(out), "--no-progress"]) == 2
    assert not out.exists()
