"""Command-line options that several ``treset-agent`` commands share (``decide``, ``serve``)."""

from __future__ import annotations

import sys


def use_policy_option(path: str | None, prefix: str) -> bool:
    """Make ``--policy PATH`` (when given) the opponent policy; on a bad file say why on stderr and return False."""
    if not path:
        return True
    from agent.opponent.policy import use_policy

    try:
        use_policy(path)
    except ValueError as exc:
        print(f"{prefix}: --policy: {exc}", file=sys.stderr)
        return False
    return True
