#!/usr/bin/env bash
# `make test` after the install: every check, arranged so the two cores stay busy.
#
# - The agent's numba kernels compile once into their cache first (the play's, with the four-player solver's,
#   and the analysis's, a process each), the lint (ruff, mypy; niced) beside them: every test process after
#   loads the kernels from there instead of compiling them again (~20 s of a core each; the test processes'
#   forkservers load them too).
# - Then, at once and to the end: the tests marked `alone` (process pauses against 1 s leases, which the
#   machine's load must not make a healthy process miss: they keep the normal priority, the workers below
#   run niced), and the suite on three workers, a module at a time each (a module's browser or virtualenv is
#   made once; the modules with the most slow tests first: tests/conftest.py). The `alone` and lint reports
#   are printed after the workers'.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
PYTEST=("$PYTHON" -m pytest -p no:benchmark --durations=25)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

{ nice -n 10 "$PYTHON" -m ruff check . && nice -n 10 "$PYTHON" -m mypy; } >"$logs/lint" 2>&1 &
lint=$!

"$PYTHON" -c "from agent.decide import warmup; warmup(); from agent.partnership.solver import warmup; warmup()" &
play=$!
"$PYTHON" -c "from agent.service import warm_analysis; warm_analysis()"
analysis=$?
if ! wait "$play" || [[ $analysis -ne 0 ]]; then
  echo "the agent's kernels did not compile" >&2
  kill "$lint" 2>/dev/null
  exit 1
fi

"${PYTEST[@]}" -m alone tests >"$logs/alone" 2>&1 &
alone=$!
nice -n 10 "${PYTEST[@]}" -n 3 --dist loadfile -m "not alone" --doctest-modules tressette agent server treset tests
suite=$?
wait "$alone"
alone_rc=$?
wait "$lint"
lint_rc=$?
echo
echo "================ the tests marked alone (run beside the others) ================"
cat "$logs/alone"
echo "================ lint: ruff, mypy ================"
cat "$logs/lint"
(( suite == 0 && alone_rc == 0 && lint_rc == 0 ))
