"""``treset-agent`` end to end, as other programs call it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.agent.test_solver import THESIS
from tests.forkserver import run_module


def _agent(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_module("agent.cli", list(args), input=stdin, env={**os.environ, **(env or {})})


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


def test_a_bad_policy_file_exits_2_with_one_line(tmp_path: Path) -> None:
    """``--policy`` naming a file that is not a policy: exit 2 and one line, for decide and serve alike."""
    for content, words in [("not json", "not a policy file"), ('{"x": 1}', "not a policy file"),
                           ('{"theta": {}}', "no policy weights")]:
        path = tmp_path / "policy.json"
        path.write_text(content)
        for out in (_agent("decide", "--policy", str(path), json.dumps(THESIS)),
                    _agent("serve", "--server", "http://127.0.0.1:9", "--policy", str(path), "--no-warmup",
                           env={"TRESET_BOT_TOKEN": "unused"})):
            assert out.returncode == 2 and out.stdout == "", out.stderr
            lines = out.stderr.strip().splitlines()
            assert words in lines[-1] and "Traceback" not in out.stderr


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




def test_the_mcts_rate_is_measured_when_no_iteration_fits_in_time() -> None:
    """A search given no time at all (what a busy machine does to a short one) still yields a rate above 0."""
    from agent.bench import mcts_iterations_per_s

    assert mcts_iterations_per_s(2, time_ms=0) > 0


def test_bench_partnership_json_prints_every_figure() -> None:
    """``bench partnership --json``: the four-player solver's times, median at most the maximum; bad options exit 2."""
    run = _agent("bench", "partnership", "--json", "--deals", "1", "--endings", "3", "--analyses", "0", "--bits", "16",
                 "--pimc", "1")
    assert run.returncode == 0, run.stderr
    r = json.loads(run.stdout)
    m = r["master"]
    assert m["positions"] == 1 and m["worlds_min"] >= 4 and m["move_ms_median"] >= m["budget_ms"] == 1000
    assert sorted(r["per_world"]) == [str(n) for n in range(9)]
    assert all(0 < f["leaves_ms_mean"] <= f["leaves_ms_max"] for f in r["per_world"].values())
    for key in ("full_best", "full_all", "last5_best", "last5_all"):
        assert 0 < r[key]["ms_median"] <= r[key]["ms_max"] and r[key]["nodes_median"] > 0, key
    assert r["last5_all"]["positions"] == 3 and sorted(r["depths"]) == [str(n) for n in range(2, 10)]
    assert "analysis" not in r and r["table_rows"] == 2**16
    bad = _agent("bench", "partnership", "--deals", "0")
    assert bad.returncode == 2 and "--deals" in bad.stderr and "Traceback" not in bad.stderr
