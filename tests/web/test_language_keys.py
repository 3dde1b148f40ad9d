"""Every string of the page in every language (issue #45): Italian and Croatian have each key English has.

English and Slovenian strings live in web/js/i18n.js (and the rules and puzzle pages' own tables in rules.js and
puzzle_text.js); Italian and Croatian in web/js/lang_it.js and lang_hr.js. A key added to English and not yet
translated fails here, naming it. Plural keys need the forms of each language's plural rules (Intl.PluralRules:
Slovenian one/two/few/other, Croatian one/few/other, Italian one/other), and a translation keeps the English
text's {parameters}.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

JS = ROOT / "web" / "js"
# Each language's plural categories for whole numbers (CLDR, as Intl.PluralRules gives them).
PLURALS = {"en": {"one", "other"}, "sl": {"one", "two", "few", "other"}, "it": {"one", "other"},
           "hr": {"one", "few", "other"}}
FORMS = ("_one", "_two", "_few", "_other", "_frac")


def _entries(block: str) -> dict[str, str]:
    """Return the ``key: "text"`` pairs of a JS object literal's source (texts joined with ``+`` kept whole)."""
    block = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("//"))
    out = {}
    for m in re.finditer(r"(\w+): ((?:\"(?:[^\"\\]|\\.)*\"\s*(?:\+\s*)?)+)", block):
        out[m[1]] = "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m[2]))
    # A theme is [name, explanation]: kept as "name|explanation".
    for m in re.finditer(r"(\w+): \[\"((?:[^\"\\]|\\.)*)\", \"((?:[^\"\\]|\\.)*)\"\]", block):
        out[m[1]] = f"{m[2]}|{m[3]}"
    return out


def _block(source: str, start: str, end: str) -> str:
    i = source.index(start)
    return source[i:source.index(end, i + len(start))]


def _pack(lang: str, part: str) -> dict[str, str]:
    """Return a part ("strings", "rules", "puzzles", "themes") of web/js/lang_<lang>.js."""
    source = (JS / f"lang_{lang}.js").read_text()
    ends = {"strings": "\n  },\n", "rules": "\n  },\n  puzzles:", "puzzles": "\n  },\n  themes:", "themes": "\n  },\n};"}
    return _entries(_block(source, f"  {part}: {{", ends[part]))


def _english(part: str) -> dict[str, str]:
    """Return English's texts of ``part`` from the files that hold English and Slovenian."""
    if part == "strings":
        return _entries(_block((JS / "i18n.js").read_text(), "  en: {", "  sl: {"))
    if part == "rules":
        return _entries(_block((JS / "rules.js").read_text(), "  en: {", "  sl: {"))
    if part == "puzzles":
        return _entries(_block((JS / "puzzle_text.js").read_text(), "  en: {", "  sl: {"))
    themes = (JS / "puzzle_text.js").read_text()
    return _entries(_block(themes, "const THEMES = {\n  en: {", "  sl: {"))


def _params(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", ["it", "hr"])
@pytest.mark.parametrize("part", ["strings", "rules", "puzzles", "themes"])
def test_every_key_in_every_language(lang: str, part: str) -> None:
    """Italian and Croatian have every key English has (plural keys in their own forms), and no other."""
    en, there = _english(part), _pack(lang, part)
    assert len(en) > (100 if part == "strings" else 5)
    plural_bases = {k.rsplit("_", 1)[0] for k in en if k.endswith("_other") and k.replace("_other", "_one") in en}
    wanted = {k for k in en if not (k.endswith(FORMS) and k.rsplit("_", 1)[0] in plural_bases)}
    wanted |= {f"{base}_{form}" for base in plural_bases for form in PLURALS[lang]}
    optional = {f"{base}_frac" for base in plural_bases}  # a fraction's own form (Croatian "3⅔ punta")
    missing, extra = wanted - set(there), set(there) - wanted - optional
    assert not missing, f"{lang} {part}: no text for {sorted(missing)}"
    assert not extra, f"{lang} {part}: keys English does not have: {sorted(extra)}"
    for key, text in there.items():
        english = en.get(key) or en[key.rsplit("_", 1)[0] + "_other"]
        assert _params(text) == _params(english), f"{lang} {key}: {text!r} has not the parameters of {english!r}"
        assert text.strip() and text != english or key in SAME, f"{lang} {key}: {text!r} is not translated"


# Keys whose text is the same in every language: names, symbols and patterns without words.
SAME = {"tressette", "seconds", "matchYou", "matchNamed", "pileTotal", "password", "kifameno", "levelA", "levelB",
        "AS", "KRALJ", "KAVAL", "FANT", "provisionalMark"}


def test_rules_name_every_corner_letter() -> None:
    """Each language's rules explain the corner letters its cards show (an Italian king is R, a Croatian konj Kn)."""
    for lang in ("it", "hr"):
        source = (JS / f"lang_{lang}.js").read_text()
        letters = _entries(_block(source, "  letters: {", "}"))
        names = _entries(_block(source, "    names: {", "}"))
        for rank, letter in letters.items():
            assert names[rank].startswith(f"{letter} = "), (lang, rank, names[rank])
    assert _entries(_block((JS / "lang_it.js").read_text(), "  letters: {", "}"))["KRALJ"] == "R"
