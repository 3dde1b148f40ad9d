"""The ``treset`` command: one entry point whose sub-commands live beside the code they run.

Each sub-command is a ``main(argv) -> int`` in its own module, imported only
when used, so ``treset play`` works without the server's dependencies loaded.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("treset.play", "play a deal in the terminal against a simple opponent"),
    "serve": ("server.cli", "run the game server (migrations first)"),
    "migrate": ("server.tools.migrate", "bring the database to the latest schema and exit"),
    "up": ("treset.up", "start everything: server on the default database, bot account, one agent"),
    "admin": ("server.tools.admin_cli", "admin tools: exports, seeding, puzzles, bot-versus-bot series"),
}
SUBCOMMANDS: dict[tuple[str, str], str] = {("admin", "puzzles"): "treset.puzzles"}
"""Sub-commands run by another module than their command's: ``admin puzzles`` needs the agent,
which the server's admin tools never import."""


def _usage() -> str:
    lines = ["usage: treset COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<8} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``treset COMMAND ...`` to the command's module."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"treset: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    target = SUBCOMMANDS.get((name, rest[0])) if rest else None
    if target is not None:
        name, rest = f"{name} {rest[0]}", rest[1:]
    module = importlib.import_module(target or COMMANDS[name][0])
    result: int = module.main(rest)
    return result


if __name__ == "__main__":
    sys.exit(main())
