#!/usr/bin/env bash
# `make test` after the install: every check, arranged so the two cores stay busy.
#
# 1. Lint (ruff, mypy: one core) while the agent's numba kernels compile once into their cache (the play's
#    and the analysis's, one process each); every test process after loads them from there instead of
#    compiling them again (~20 s of a core each).
# 2. The suite on three workers, a module at a time each (a module's browser or virtualenv is made once;
#    the modules with slow tests first: tests/conftest.py), and beside it the few tests marked `alone` (process pauses against 1 s
#    leases): these run at the normal priority and the workers below it (nice), so the machine's load
#    cannot make a healthy process miss its lease. Their report is printed after the workers'.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
PYTEST=("$PYTHON" -m pytest -p no:benchmark --durations=25)

{ "$PYTHON" -m ruff check . && "$PYTHON" -m mypy; } &
lint=$!
"$PYTHON" -c "from agent.decide import warmup; warmup()" &
play=$!
"$PYTHON" -c "from agent.service import warm_analysis; warm_analysis()"
analysis=$?
wait "$play" && [[ $analysis -eq 0 ]] || { echo "the agent's kernels did not compile" >&2; exit 1; }
wait "$lint" || exit 1

alone_log=$(mktemp)
trap 'rm -f "$alone_log"' EXIT
"${PYTEST[@]}" -m alone tests >"$alone_log" 2>&1 &
alone=$!
nice -n 10 "${PYTEST[@]}" -n 3 --dist loadfile -m "not alone" --doctest-modules tressette agent server treset tests
suite=$?
wait "$alone"
alone_rc=$?
echo
echo "================ the tests marked alone (run beside the others) ================"
cat "$alone_log"
(( suite == 0 && alone_rc == 0 ))
