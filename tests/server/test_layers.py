"""The game service never imports the parts that need Redis: the cluster plugs in behind ``ports.py``.

Read from the code as text (``ast``), so a module imported only for type checking counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "server" / "game"


def _imports() -> dict[str, set[str]]:
    """Return each module of ``server.game`` (dotted name) with the modules it imports (absolute names)."""
    found: dict[str, set[str]] = {}
    for path in GAME.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{name}: relative import"  # the project imports absolutely
                names.add(node.module or "")
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[name] = names
    return found


def test_the_service_never_imports_what_needs_redis() -> None:
    """No module of the game service imports Redis or a module that does; those modules are the cluster's."""
    imports = _imports()
    redis_backed = {m for m, names in imports.items() if any(n == "redis" or n.startswith("redis.") for n in names)}
    assert len(redis_backed) >= 7, redis_backed  # the node, its state, bus, routes, leases, limits, seeks
    for module, names in imports.items():
        if module in redis_backed or module.startswith("server.game.cluster"):
            continue
        assert not names & redis_backed, f"{module} imports {sorted(names & redis_backed)}"
    for service in ("server.game.hub", "server.game.router", "server.game.playing", "server.game.ports"):
        assert service in imports and service not in redis_backed, service
