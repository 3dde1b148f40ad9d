"""The rules package stays pure: standard library only, no I/O modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import tressette

PACKAGE = Path(tressette.__file__).parent


def test_imports_only_the_standard_library() -> None:
    """Every import in the package (subpackages too) is either the package itself or a stdlib module."""
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top == "tressette" or top in sys.stdlib_module_names, f"{path.name} imports {name}"


def test_importing_loads_nothing_outside_the_standard_library() -> None:
    """A fresh interpreter importing tressette and its four-player game loads only stdlib modules besides."""
    code = (
        "import sys, tressette, tressette.partnership\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] not in sys.stdlib_module_names"
        " and m.split('.')[0] not in ('tressette', '__main__', '_distutils_hack'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == ""
