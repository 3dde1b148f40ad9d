"""``treset-agent serve``: the bot as its own process, playing the seats the server assigns it.

The command line of :class:`agent.service.BotService`: read the options and the token, warm the
search kernels, run the service until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys

from agent.levels import LEVELS
from agent.load import cores, default_capacity
from agent.options import use_policy_option
from agent.partnership_turn import PARTNERSHIP_LEVELS
from agent.service import BotService

log = logging.getLogger("treset.agent.service")  # the service's name: its log lines read as before


def read_token(token_file: str | None) -> str | None:
    """Return the bot token: from ``token_file`` if given, else ``TRESET_BOT_TOKEN`` (never from argv,
    which every local user can read in the process list)."""
    if token_file:
        with open(token_file, encoding="utf-8") as f:
            return f.read().strip() or None
    return os.environ.get("TRESET_BOT_TOKEN") or None


def main(argv: list[str]) -> int:
    """Run ``treset-agent serve --server URL [--token-file F] [--capacity N] [--levels a,b] [--analysis N]
    [--analyse-only]`` (the token from ``TRESET_BOT_TOKEN`` or ``--token-file``)."""
    parser = argparse.ArgumentParser(prog="treset-agent serve", description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the server's URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token-file", help="a file holding the bot account's API token "
                        "(default: the TRESET_BOT_TOKEN environment variable)")
    parser.add_argument("--token", help=argparse.SUPPRESS)  # old form: visible in the process list; use the above
    parser.add_argument("--capacity", type=int, default=default_capacity(),
                        help="games this process thinks about at once (default: 12 per core, "
                        f"{default_capacity()} here; budgets shrink beyond a third of it)")
    parser.add_argument("--policy", help="the opponent policy file to play with (default: the shipped one; "
                        "written by treset-agent fit-policy)")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels to play")
    parser.add_argument("--no-partnership", action="store_true",
                        help="do not play four-player seats (by default the rule-based level 'rules' is announced)")
    parser.add_argument("--analysis", type=int, default=1,
                        help="deal analyses this process runs at once, in low-priority workers (0: none)")
    parser.add_argument("--analyse-only", action="store_true",
                        help="only analyse deals (an analysis worker: plays no seat)")
    parser.add_argument("--no-warmup", action="store_true", help="skip compiling the search kernels first")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    token = args.token or read_token(args.token_file)
    if args.token:
        log.warning("--token shows the token in the process list: set TRESET_BOT_TOKEN or use --token-file")
    if not token:
        print("treset-agent serve: set TRESET_BOT_TOKEN or give --token-file", file=sys.stderr)
        return 2
    levels = [lv for lv in args.levels.split(",") if lv]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if args.analyse_only:
        levels, capacity = [], 0
        if args.analysis < 1:
            print("treset-agent serve: --analyse-only needs --analysis of at least 1", file=sys.stderr)
            return 2
    elif unknown or not levels or args.capacity < 1 or args.analysis < 0:
        print(f"treset-agent serve: bad --levels/--capacity/--analysis (levels: {', '.join(LEVELS)})",
              file=sys.stderr)
        return 2
    else:
        capacity = args.capacity
    if not use_policy_option(args.policy, "treset-agent serve"):
        return 2
    if not args.no_warmup and capacity:
        from agent.decide import warmup

        warmup()
        if not args.no_partnership:
            from agent.partnership.solver import warmup as partnership_warmup

            partnership_warmup()  # the four-player levels' solver: loaded before the first turn, not during it
    service = BotService(server=args.server, token=token, levels=levels, capacity=capacity,
                         analysis=args.analysis,
                         partnership_levels=[] if args.no_partnership or not capacity else PARTNERSHIP_LEVELS)
    # `make up` shows the bot's log to whoever starts the site: the load figures are for a developer (DEBUG).
    log.debug("capacity %d on %d cores: budgets shrink beyond %d decisions at once", capacity, cores(),
              service.pool.slots)
    return asyncio.run(_run_until_signalled(service))


async def _run_until_signalled(service: BotService) -> int:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, service.stop.set)
    return await service.run()
