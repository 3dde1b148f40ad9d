"""The bot levels a table may ask for, and their per-move thinking time (shown in the lobby).

The agent (``agent/levels.py``) owns what each level does; this is the
server's public description of them.
"""

from __future__ import annotations

LEVEL_TIME_MS: dict[str, int] = {"easy": 100, "normal": 300, "strong": 1000}
