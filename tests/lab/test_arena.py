"""The lab's arena and result pooling, through ``treset-agent arena`` and ``pool`` as they are run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lab.arena import wilson
from tests.forkserver import run_module


def _agent(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return run_module("agent.cli", list(args), input=stdin)


def test_arena_with_a_command_side() -> None:
    """The arena runs an external command that speaks the JSON protocol as a side."""
    script = "import sys, tressette as t; s = t.parse_state(sys.stdin.read()); print(t.card_name(s.legal_moves()[-1]))"
    cmd = f"cmd:{sys.executable} -c '{script}'"
    out = _agent("arena", cmd, "random", "--deals", "1", "--json", "-", "--no-progress")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout[out.stdout.index("{"):])
    assert summary["games"] == 2 and summary["A"]["moves"] == 40


def test_pool_adds_up_arena_chunks(tmp_path: Path) -> None:
    """Two arena chunks pool to their sums with the interval of the total; mixed matches are refused."""
    files = []
    for seed in (1, 2):
        out = tmp_path / f"chunk-{seed}.json"
        run = _agent("arena", "greedy", "random", "--deals", "3", "--seed", str(seed), "--json", str(out), "--no-progress")
        assert run.returncode == 0, run.stderr
        files.append(out)
    chunks = [json.loads(f.read_text()) for f in files]
    pooled = json.loads(_agent("pool", "--json", *map(str, files)).stdout)
    wins = sum(c["A"]["wins"] for c in chunks)
    assert pooled["games"] == 12 and pooled["deals"] == 6 and pooled["runs"] == 2
    assert pooled["A"]["wins"] == wins and pooled["B"]["wins"] == 12 - wins
    assert pooled["a_win_rate"] == wins / 12 and list(wilson(wins, 12)) == [wins / 12, *pooled["a_ci95"]]
    assert pooled["A"]["moves"] == sum(c["A"]["moves"] for c in chunks)
    text = _agent("pool", *map(str, files)).stdout
    assert f"wins {wins}," in text and "12 games (6 duplicate deals in 2 runs)" in text
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**chunks[0], "variant": "kifameno"}))
    refused = _agent("pool", str(files[0]), str(other))
    assert refused.returncode == 2 and "different matches" in refused.stderr
    twice = _agent("pool", str(files[0]), str(files[1]), str(files[0]))
    assert twice.returncode == 2 and "deal 0 of seed 1 is in two of the runs" in twice.stderr


def test_compare_pairs_two_players_deal_by_deal(tmp_path: Path) -> None:
    """Per-deal results add up to the totals; the paired difference is the mean of per-deal differences."""
    from lab.pool import compare

    runs = {}
    for player in ("greedy", "random"):
        out = tmp_path / f"{player}.json"
        run = _agent("arena", player, "random", "--deals", "4", "--seed", "3", "--json", str(out), "--no-progress")
        assert run.returncode == 0, run.stderr
        runs[player] = json.loads(out.read_text())
        assert len(runs[player]["per_deal"]) == 4 and sum(runs[player]["per_deal"]) == runs[player]["A"]["wins"]
    c = compare(runs["greedy"], runs["random"])
    diffs = [(a - b) / 2 for a, b in zip(runs["greedy"]["per_deal"], runs["random"]["per_deal"], strict=True)]
    assert c["deals"] == 4 and c["difference"] == sum(diffs) / 4
    assert c["ci95"][0] <= c["difference"] <= c["ci95"][1]
    text = _agent("pool", "--compare", str(tmp_path / "greedy.json"), str(tmp_path / "random.json")).stdout
    assert "4 common duplicate deals" in text
    # A chunk from deal 2 on replays the same deals: it pairs with the whole run's deals 2 and 3 only.
    chunk = tmp_path / "chunk.json"
    run = _agent("arena", "random", "random", "--deals", "2", "--first", "2", "--seed", "3", "--json", str(chunk),
                 "--no-progress")
    assert run.returncode == 0, run.stderr
    assert json.loads(chunk.read_text())["per_deal"] == runs["random"]["per_deal"][2:]
    text = _agent("pool", "--compare", f"{tmp_path / 'greedy.json'}", str(chunk)).stdout
    assert "2 common duplicate deals" in text
    # ... and overlaps the whole run, so the two cannot stand together for one side.
    refused = _agent("pool", "--compare", f"{tmp_path / 'greedy.json'}", f"{tmp_path / 'random.json'},{chunk}")
    assert refused.returncode == 2 and "deal 2 of seed 3 is in two of the runs" in refused.stderr
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**runs["random"], "seed": 4}))
    refused = _agent("pool", "--compare", str(tmp_path / "greedy.json"), str(other))
    assert refused.returncode == 2 and "share no deal" in refused.stderr
    other.write_text(json.dumps({**runs["random"], "b": "greedy"}))
    refused = _agent("pool", "--compare", str(tmp_path / "greedy.json"), str(other))
    assert refused.returncode == 2 and "same opponent" in refused.stderr


def test_arena_chunks_script_resumes_and_pools_to_the_whole_match(tmp_path: Path) -> None:
    """lab/scripts/arena-chunks.sh writes one file per chunk, skips finished chunks, and pools to the one-run result."""
    script = Path(__file__).resolve().parents[2] / "lab" / "scripts" / "arena-chunks.sh"
    args = ["bash", str(script), "greedy", "random", "kifameno", "5", "0", "5", str(tmp_path), "2"]
    first = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    chunks = sorted(tmp_path.glob("kifameno-5-*.json"))
    assert [p.name for p in chunks] == ["kifameno-5-0.json", "kifameno-5-2.json", "kifameno-5-4.json"]
    again = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0 and "deals" not in again.stdout  # nothing left to play
    whole = tmp_path / "whole.json"
    _agent("arena", "greedy", "random", "--deals", "5", "--seed", "5", "--variant", "kifameno", "--json", str(whole),
           "--no-progress")
    pooled = json.loads(_agent("pool", "--json", *map(str, chunks)).stdout)
    expected = json.loads(whole.read_text())
    assert pooled["deals"] == 5 and pooled["A"]["wins"] == expected["A"]["wins"]
    assert [w for c in chunks for w in json.loads(c.read_text())["per_deal"]] == expected["per_deal"]


def test_a_told_seat_sees_the_opponents_whole_hand_and_only_it() -> None:
    """``play_game(..., told={0})`` hands seat 0 the opponent's cards as ``hiscards``; seat 1's view
    is what it would be without the oracle, and the game is played the same."""
    import random
    from collections.abc import Callable

    from lab.arena import play_game
    from tressette import AgentState, Variant

    def recorder(seen: list[tuple[int, AgentState]], seat: int) -> Callable[[AgentState, random.Random], int]:
        def first_legal(state: AgentState, rng: random.Random) -> int:
            seen.append((seat, state))
            return state.legal_moves()[0]
        return first_legal

    runs = []
    for told in (frozenset(), frozenset({0})):
        seen: list[tuple[int, AgentState]] = []
        players = {0: ("A", recorder(seen, 0)), 1: ("B", recorder(seen, 1))}
        stats = play_game(players, Variant.TRESSETTE, 5, 0, random.Random(1), told)
        runs.append((seen, stats))
    (plain, plain_stats), (oracle, oracle_stats) = runs
    assert {k: (v.wins, v.points, v.moves) for k, v in plain_stats.items()} == {
        k: (v.wins, v.points, v.moves) for k, v in oracle_stats.items()}
    assert [s for s in plain if s[0] == 1] == [s for s in oracle if s[0] == 1]
    for (seat, before), (_, after) in zip(plain, oracle, strict=True):
        if seat == 1:
            continue
        assert (before.hand, before.unknown, before.inplay) == (after.hand, after.unknown, after.inplay)
        assert set(before.hiscards) <= set(after.hiscards) <= set(after.unknown)
        assert len(after.hiscards) == after.opponent_hand_size


def test_per_deal_points_add_up_and_compare_in_the_goals_direction(tmp_path: Path) -> None:
    """Arena files keep A's points per deal; ``compare`` pairs them per game, the gain signed by the goal."""
    from lab.pool import compare

    runs = {}
    for player in ("greedy", "random"):
        out = tmp_path / f"{player}.json"
        run = _agent("arena", player, "random", "--deals", "4", "--seed", "3", "--variant", "kifameno",
                     "--json", str(out), "--no-progress")
        assert run.returncode == 0, run.stderr
        runs[player] = json.loads(out.read_text())
        assert len(runs[player]["per_deal_points"]) == 4
        assert sum(runs[player]["per_deal_points"]) == runs[player]["A"]["points"]
    c = compare(runs["greedy"], runs["random"])["points"]
    diffs = [(a - b) / 2 for a, b in zip(runs["greedy"]["per_deal_points"], runs["random"]["per_deal_points"],
                                         strict=True)]
    assert c["difference"] == sum(diffs) / 4 and c["gain"] == -c["difference"]  # fewer points win Kifameno
    assert c["x_mean"] == runs["greedy"]["A"]["mean_points"] and c["ci95"][0] <= c["difference"] <= c["ci95"][1]
    assert c["gain_ci95"] == sorted(-v for v in c["ci95"])
    text = _agent("pool", "--compare", str(tmp_path / "greedy.json"), str(tmp_path / "random.json")).stdout
    assert "gain toward the goal (fewer points)" in text
    old = {k: v for k, v in runs["random"].items() if k != "per_deal_points"}  # a file from before
    assert "points" not in compare(runs["greedy"], old)
