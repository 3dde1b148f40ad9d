"""``treset-agent`` end to end, as other programs call it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agent.arena import wilson
from tests.agent.test_solver import THESIS


def _agent(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_decide_prints_only_the_card() -> None:
    """The thesis example by argument and by stdin: one line, ``B 7``."""
    by_arg = _agent("decide", json.dumps(THESIS))
    by_stdin = _agent("decide", stdin=json.dumps(THESIS))
    assert by_arg.returncode == 0 and by_arg.stdout == "B 7\n"
    assert by_stdin.returncode == 0 and by_stdin.stdout == "B 7\n"


def test_decide_json_reports_method_and_statistics() -> None:
    """--json gives the card, the method, iterations and per-card data; seeded MCTS repeats itself."""
    solved = json.loads(_agent("decide", "--json", json.dumps(THESIS)).stdout)
    assert solved["card"] == "B 7" and solved["method"] == "solver" and solved["value"] == 27
    assert solved["stats"]["B 7"] == {"value": 27}
    assert all(set(v) == {"at_most"} and v["at_most"] <= 27 for k, v in solved["stats"].items() if k != "B 7")
    early = {
        "hand": ["D 3", "D 2", "D AS", "D KRALJ", "D KAVAL", "D FANT", "D 7", "D 6", "D 5", "D 4"],
        "hiscards": [],
        "unknown": [f"{s} {r}" for s in "BKS" for r in ["3", "2", "AS", "KRALJ", "KAVAL", "FANT", "7", "6", "5", "4"]],
        "inplay": [],
        "points": 0,
        "cfm": False,
    }
    runs = [json.loads(_agent("decide", "--json", "--iterations", "2000", "--seed", "7", json.dumps(early)).stdout)
            for _ in range(2)]
    assert runs[0] == {**runs[1], "elapsed_ms": runs[0]["elapsed_ms"]}
    assert runs[0]["method"] == "mcts" and runs[0]["iterations"] == 2000
    assert runs[0]["card"] in early["hand"]
    assert sum(s["visits"] for s in runs[0]["stats"].values()) == 2000


def test_invalid_states_exit_2_with_one_line() -> None:
    """A bad state: exit status 2, nothing on stdout, one line saying what is wrong."""
    for bad, words in [("{not json", "not valid JSON"), (json.dumps({**THESIS, "inplay": ["B 7"]}), "'hand' and 'inplay'"),
                       (json.dumps({**THESIS, "hand": ["X 1"]}), "unknown card name")]:
        out = _agent("decide", bad)
        assert out.returncode == 2 and out.stdout == ""
        assert len(out.stderr.strip().splitlines()) == 1 and words in out.stderr


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
    from agent.pool import compare

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


def test_bench_json_prints_every_figure() -> None:
    """``bench --json`` is one object with the issue's keys, each a positive measurement."""
    run = _agent("bench", "--json", "--seconds", "0.2", "--positions", "2", "--time-ms", "40", "--endgames", "4")
    assert run.returncode == 0, run.stderr
    r = json.loads(run.stdout)
    for key in ("playouts_per_s", "reference_playouts_per_s", "mcts_iterations_per_s", "solver_ms_median",
                "solver_ms_p95", "solver_ms_max", "decide_ms_mean", "decide_full_ms_mean"):
        assert r[key] > 0, key
    assert r["playout_speedup"] == r["playouts_per_s"] / r["reference_playouts_per_s"]
    assert r["solver_ms_median"] <= r["solver_ms_p95"] <= r["solver_ms_max"] and r["solver_endgames"] == 4
    assert r["decide_limit_ms"] == 100 and r["decide_ms_max"] >= r["decide_ms_median"]


def test_arena_chunks_script_resumes_and_pools_to_the_whole_match(tmp_path: Path) -> None:
    """scripts/arena-chunks.sh writes one file per chunk, skips finished chunks, and pools to the one-run result."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "arena-chunks.sh"
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

    from agent.arena import play_game
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
