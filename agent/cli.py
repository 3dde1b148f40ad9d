"""``treset-agent``: decide a card, run an arena or the benchmark, or serve as a bot.

``decide`` is the interface other programs rely on: the state JSON comes from
the argument or stdin, the card is the only line on stdout, and an invalid
state exits with status 2 and a one-line reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from tressette import InvalidStateError, card_name, parse_state


def decide_main(argv: list[str]) -> int:
    """Run ``treset-agent decide [STATE_JSON] [--time-ms N] [--iterations N] [--seed N] [--json]``."""
    parser = argparse.ArgumentParser(prog="treset-agent decide",
                                     description="Print the agent's card for a JSON state (RULES.md).")
    parser.add_argument("state", nargs="?", help="the state as JSON (read from stdin when omitted)")
    parser.add_argument("--time-ms", type=int, default=1000, help="thinking time per move (default 1000)")
    parser.add_argument("--iterations", type=int, default=None, help="stop after this many MCTS iterations")
    parser.add_argument("--seed", type=int, default=None, help="seed for a reproducible search")
    parser.add_argument("--jobs", type=int, default=1, help="parallel search threads (root parallelism)")
    parser.add_argument("--json", action="store_true", help="print the card, method, iterations and statistics")
    args = parser.parse_args(argv)
    text = args.state if args.state is not None else sys.stdin.read()
    try:
        state = parse_state(text)
    except InvalidStateError as exc:
        print(f"invalid state: {exc}", file=sys.stderr)
        return 2
    if args.time_ms <= 0 or (args.iterations is not None and args.iterations <= 0) or args.jobs < 1:
        print("invalid options: --time-ms, --iterations and --jobs must be positive", file=sys.stderr)
        return 2
    from agent.decide import decide, solve

    # The time limit is for thinking: loading the search kernels must not eat into it (on a busy
    # machine that alone can outlast the budget and leave no iterations, or no time for the odds of
    # a lost endgame after compiling the solver, which numba cannot cache).
    if state.all_known:
        solve(state)
    else:
        decide(state, time_ms=10**7, iterations=16, seed=0)
    decision = decide(state, time_ms=args.time_ms, iterations=args.iterations, seed=args.seed, jobs=args.jobs)
    print(json.dumps(decision.to_dict()) if args.json else card_name(decision.card))
    return 0


COMMANDS = {
    "decide": "print the agent's card for a JSON state",
    "arena": "play duplicate deals between two players",
    "pool": "add up arena results written with --json",
    "bench": "measure playouts, MCTS iterations and solver times",
    "serve": "connect to a server as a bot and play the seats it assigns",
}


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``treset-agent COMMAND ...``."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help") or args[0] not in COMMANDS:
        out = sys.stdout if not args or args[0] in ("-h", "--help") else sys.stderr
        print("usage: treset-agent COMMAND [ARGS...]\n\ncommands:", file=out)
        for name, help_ in COMMANDS.items():
            print(f"  {name:<8} {help_}", file=out)
        return 0 if out is sys.stdout else 2
    name, rest = args[0], args[1:]
    if name == "decide":
        return decide_main(rest)
    if name == "arena":
        from agent.arena import main as arena_main

        return arena_main(rest)
    if name == "pool":
        from agent.pool import main as pool_main

        return pool_main(rest)
    if name == "bench":
        from agent.bench import main as bench_main

        return bench_main(rest)
    from agent.service import main as serve_main

    return serve_main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
