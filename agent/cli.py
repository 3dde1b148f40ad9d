"""``treset-agent``: decide a card, analyse a deal, benchmark, serve as a bot, or run the lab's arena.

``decide`` is the interface other programs rely on: the state JSON comes from
the argument or stdin, the card is the only line on stdout, and an invalid
state exits with status 2 and a one-line reason on stderr.  ``arena`` and
``pool`` load the lab (``lab/`` in a checkout, not installed with the package).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

from agent.options import use_policy_option
from tressette import InvalidStateError, card_name, parse_state


def decide_main(argv: list[str]) -> int:
    """Run ``treset-agent decide [STATE_JSON] [--time-ms N] [--iterations N] [--seed N] [--json] [--policy F]``."""
    parser = argparse.ArgumentParser(prog="treset-agent decide",
                                     description="Print the agent's card for a JSON state (RULES.md).")
    parser.add_argument("state", nargs="?", help="the state as JSON (read from stdin when omitted)")
    parser.add_argument("--time-ms", type=int, default=1000, help="thinking time per move (default 1000)")
    parser.add_argument("--iterations", type=int, default=None, help="stop after this many MCTS iterations")
    parser.add_argument("--seed", type=int, default=None, help="seed for a reproducible search")
    parser.add_argument("--jobs", type=int, default=1, help="parallel search threads (root parallelism)")
    parser.add_argument("--json", action="store_true", help="print the card, method, iterations and statistics")
    parser.add_argument("--policy", help="the opponent policy file (default: the shipped one)")
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

    if not use_policy_option(args.policy, "invalid options"):
        return 2

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


def analyse_main(argv: list[str]) -> int:
    """Run ``treset-agent analyse [FILE|-] [--seed N] [--iterations N] [--json-indent [N]]``."""
    from agent.analysis import DEFAULT_ITERATIONS

    parser = argparse.ArgumentParser(prog="treset-agent analyse",
                                     description="Print the post-game analysis of a deal record (JSON).")
    parser.add_argument("file", nargs="?", default="-", help="the record's JSON file ('-' or omitted: stdin)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the searches (default 0)")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                        help=f"each card's search in the hidden part (default {DEFAULT_ITERATIONS})")
    parser.add_argument("--json-indent", type=int, nargs="?", const=2, default=None,
                        help="indent the JSON (by 2 when no number is given)")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        print(f"cannot read the record: {exc}", file=sys.stderr)
        return 2
    if args.iterations <= 0:
        print("invalid options: --iterations must be positive", file=sys.stderr)
        return 2
    from agent.analysis import RecordError, analyse
    from agent.partnership import analysis as four

    try:
        record = json.loads(text)
        if four.is_four(record):  # a four-player deal: exact, no iterations or seed to use
            result = four.analyse(record)
        else:
            result = analyse(record, iterations=args.iterations, seed=args.seed)
    except json.JSONDecodeError as exc:
        print(f"invalid record: not valid JSON: {exc}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"invalid record: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=args.json_indent))
    return 0


def lab_module(name: str) -> ModuleType | None:
    """Return the lab's module ``name`` (``lab.NAME``), or None when the lab is not there.

    The lab is not installed with the package: it is found when importable, beside the
    ``agent`` package of a checkout (an editable install), or in the current directory.
    """
    try:
        return importlib.import_module(f"lab.{name}")
    except ModuleNotFoundError as exc:
        if exc.name not in ("lab", f"lab.{name}"):
            raise
    for root in (Path(__file__).resolve().parent.parent, Path.cwd()):
        if (root / "lab" / "__init__.py").is_file():
            sys.path.insert(0, str(root))
            return importlib.import_module(f"lab.{name}")
    return None


def _lab_main(command: str, module: str, argv: list[str]) -> int:
    lab = lab_module(module)
    if lab is None:
        print(f"treset-agent {command} needs the lab (lab/ in a checkout of the repository), which is not "
              "installed with the package: run it from a checkout", file=sys.stderr)
        return 2
    code: int = lab.main(argv)
    return code


COMMANDS = {
    "decide": "print the agent's card for a JSON state",
    "analyse": "print the post-game analysis of a deal record",
    "arena": "play duplicate deals between two players (lab: needs a checkout)",
    "pool": "add up arena results written with --json (lab: needs a checkout)",
    "bench": "measure playouts, MCTS iterations, solver and analysis times (bench partnership: four players)",
    "serve": "connect to a server as a bot and play the seats it assigns",
    "fit-policy": "fit the opponent policy to the moves a portal's database logged",
}


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``treset-agent COMMAND ...``."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help") or args[0] not in COMMANDS:
        out = sys.stdout if not args or args[0] in ("-h", "--help") else sys.stderr
        print("usage: treset-agent COMMAND [ARGS...]\n\ncommands:", file=out)
        for name, help_ in COMMANDS.items():
            print(f"  {name:<8} {help_}", file=out)
        print("\narena and pool load the lab (lab/ in a checkout); it is not installed with the package.", file=out)
        return 0 if out is sys.stdout else 2
    name, rest = args[0], args[1:]
    if name == "decide":
        return decide_main(rest)
    if name == "analyse":
        return analyse_main(rest)
    if name in ("arena", "pool"):
        return _lab_main(name, name, rest)
    if name == "bench":
        from agent.bench import main as bench_main

        return bench_main(rest)
    if name == "fit-policy":
        from agent.fitpolicy import main as fit_main

        return fit_main(rest)
    from agent.serve import main as serve_main

    return serve_main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
