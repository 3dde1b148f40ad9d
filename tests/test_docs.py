"""The documentation holds together: links resolve, named commands exist, the settings table is the code's.

- Every relative Markdown link in README.md, docs/*.md and lab/MEASUREMENTS.md points at a file of the
  checkout, and its ``#anchor`` at a heading of the target (GitHub's heading ids).
- Every command the README and the docs name in code exists: ``make`` targets in the Makefile, ``treset`` and
  ``treset-agent`` sub-commands (and ``treset admin`` ones) in their dispatchers, ``python -m`` modules, and
  the ``lab/scripts/`` files.
- docs/deploy.md's settings table lists every setting of ``server/settings.py`` with its default, and no other.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

from agent.cli import COMMANDS as AGENT_COMMANDS
from server.settings import Settings
from server.tools import admin_cli
from treset.cli import COMMANDS as TRESET_COMMANDS
from treset.cli import SUBCOMMANDS

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "lab" / "MEASUREMENTS.md"]
COMMAND_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """Return ``text`` without its fenced code blocks (links and headings there are not Markdown's)."""
    return FENCE.sub("", text)


def _code(text: str) -> list[str]:
    """Return the fenced blocks' lines and the inline code spans of ``text``: where commands are written."""
    blocks = [line for block in FENCE.findall(text) for line in block.splitlines()[1:-1]]
    return blocks + re.findall(r"`([^`\n]+)`", _prose(text))


def anchors(text: str) -> set[str]:
    """Return the ids GitHub gives the headings of a Markdown page (duplicates numbered -1, -2, ...)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in _prose(text).splitlines():
        heading = re.match(r"#{1,6} +(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading[1])  # a link's text stays, its target goes
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_anchors_follow_github() -> None:
    """The ids are GitHub's: punctuation and code marks dropped, spaces to hyphens, repeats numbered."""
    text = "# A title\n## `make test`: the suite's time (issue #34)\n```\n# not a heading\n```\n## A title\n"
    assert anchors(text) == {"a-title", "make-test-the-suites-time-issue-34", "a-title-1"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """Each link to a file of the checkout finds the file, and each ``#anchor`` a heading there."""
    broken: list[str] = []
    links = LINK.findall(_prose(page.read_text(encoding="utf-8")))
    for target in links:
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto: are not the checkout's
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or ROOT not in file.parents:
            broken.append(f"{target}: no file {file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert links or page.name != "README.md", "the README links to nothing"
    assert not broken, "\n".join(broken)


def _make_targets() -> set[str]:
    return set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))


def _admin_commands() -> set[str]:
    """Return ``treset admin``'s sub-commands: its parser's, its aliases, and those other modules run."""
    parser: Any = admin_cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices) | set(admin_cli.ALIASES) | {rest for cmd, rest in SUBCOMMANDS if cmd == "admin"}


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_commands_named_exist(page: Path) -> None:
    """``make X``, ``treset X``, ``treset admin X``, ``treset-agent X``, ``python -m M`` and lab scripts exist."""
    missing: list[str] = []
    targets, admin = _make_targets(), _admin_commands()
    for code in _code(page.read_text(encoding="utf-8")):
        missing += [f"make {t}" for t in re.findall(r"(?:^|[;&|(]\s*)make +([a-z][\w-]*)", code)
                    if t not in targets]
        for command, sub in re.findall(r"(?:^|[\s;&|(=])treset +([a-z][\w-]*)(?: +([a-z][\w-]*))?", code):
            if command not in TRESET_COMMANDS:
                missing.append(f"treset {command}")
            elif command == "admin" and sub and sub not in admin:
                missing.append(f"treset admin {sub}")
        missing += [f"treset-agent {c}" for c in re.findall(r"treset-agent +([a-z][\w-]*)", code)
                    if c not in AGENT_COMMANDS]
        missing += [f"python -m {m}" for m in re.findall(r"python3? -m +([a-z][\w.]*)", code)
                    if m.split(".")[0] in ("server", "agent", "lab", "treset", "tressette")
                    and importlib.util.find_spec(m) is None]
        missing += [s for s in re.findall(r"\blab/scripts/[\w.-]+", code) if not (ROOT / s).exists()]
    assert not missing, f"{page.name} names what does not exist: {sorted(set(missing))}"


def test_the_readme_names_the_two_commands() -> None:
    """The README's first commands are ``make up`` and ``make test``, and both are Makefile targets."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = "\n".join(_code(readme))
    assert re.search(r"^make up\b", code, re.M) and re.search(r"^make test\b", code, re.M)
    assert {"up", "test", "lint"} <= _make_targets()


def _shown(field: Any) -> str:
    """Return a setting's default as the table writes it."""
    if field.default_factory is not None:
        return "(computed)"
    value = field.default
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "(empty)" if value == "" else str(value)


def test_the_settings_table_is_the_code() -> None:
    """Every setting of ``Settings`` has one row in docs/deploy.md with its environment name and default."""
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.match(r"`([A-Z_]+)`", cells[0]) if len(cells) == 3 else None
        if name:
            assert name[1] not in rows, f"{name[1]} twice"
            rows[name[1]] = cells[1].strip("`")
    expected = {}
    for attr, field in Settings.model_fields.items():
        env = field.validation_alias.choices[0] if field.validation_alias else f"TRESET_{attr.upper()}"
        expected[env] = _shown(field)
    assert rows == expected
