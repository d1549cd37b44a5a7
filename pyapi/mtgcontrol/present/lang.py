"""Languages of explanations and pages: data files ``languages/<code>.toml``.

A language file holds labels, terms (zones, fates, durations, facts), the
reasons an effect loses, the wording of each kind of reason (``via``) and a
paraphrase of each rule group.  English takes its ``via`` wording from the
ruling (ruling.VIA) and its paraphrases from the rules catalog, so that they
are written once.  Adding a language is adding a file; tests/test_lang.py fails
when a file lacks an entry that English or the catalog has.

Paraphrases are keyed by rule group id (the catalog's ``group``): the lookup
is ``Lang.paraphrase`` alone.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .. import catalog
from ..engine.ruling import VIA
from ..engine.validate import shown

FALLBACK = {"zone_in": "zone"}


@dataclass(frozen=True)
class Lang:
    code: str
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.data.get("name", self.code))

    def label(self, key: str, **values: Any) -> str:
        return self.format(str(self.data["label"][key]), values)

    def about(self, key: str, fact: str, **values: Any) -> str:
        """A label about a fact: ``<key>_<fact>`` where the language words that fact
        apart (e.g. "who may activate X"), else ``<key>`` with the fact's term."""
        own = f"{key}_{fact}"
        if own in self.data["label"]:
            return self.label(own, **values)
        return self.label(key, fact=self.term("fact", fact), **values)

    def title(self, key: str, id: str | None, **values: Any) -> str:
        """A title naming the snapshot ``id``, or its ``_anon`` form when it has none."""
        return self.label(key, id=id, **values) if id else self.label(key + "_anon", **values)

    def format(self, template: str, values: dict[str, Any]) -> str:
        """Fill a template; the file's ``[elision]`` table turns e.g. French "de {p}"
        into "d'alice" before a name starting with a vowel."""
        for word, rule in self.data.get("elision", {}).items():
            pattern = re.compile(r"(?<![\w'])" + re.escape(word) + r"\{(\w+)\}")

            def elide(m: re.Match[str], rule: dict[str, str] = rule) -> str:
                value = str(values.get(m.group(1), ""))
                if value and value[0].lower() in rule["before"]:
                    return rule["as"] + "{" + m.group(1) + "}"
                return m.group(0)

            template = pattern.sub(elide, template)
        return template.format(**values)

    def term(self, category: str, value: str) -> str:
        """A term of ``category``; ``zone_in`` (a zone as a phrase) falls back to ``zone``."""
        terms = self.data["term"]
        found = terms.get(category, {}).get(value)
        if found is None and category in FALLBACK:
            return self.term(FALLBACK[category], value)
        return str(found) if found is not None else value.replace("_", "-")

    def via(self, kind: str, **values: str) -> str:
        template = self.data.get("via", {}).get(kind)
        if template is None:
            template = VIA[kind][0] if kind in VIA else kind + " {a} {b}"
        return self.format(str(template), values)

    def loss(self, code: str, **values: str) -> str:
        return self.format(str(self.data["loss"].get(code, code)), values)

    def paraphrase(self, version: catalog.Version, group: str) -> str:
        """The paraphrase of rule group ``group`` (the one place groups are looked up)."""
        own = self.data.get("paraphrase", {}).get(group)
        if own is not None:
            return str(own)
        for rule in version.rules:
            if rule.group == group:
                return rule.paraphrase
        return ""


class UnknownLanguage(ValueError):
    """A --lang that no language file answers."""


def codes() -> list[str]:
    root = resources.files("mtgcontrol.present.languages")
    return sorted(e.name[:-5] for e in root.iterdir() if e.name.endswith(".toml"))


@cache
def language(code: str) -> Lang:
    if code not in codes():
        raise UnknownLanguage(f"a language among {', '.join(codes())}, got {shown(code)}")
    root = resources.files("mtgcontrol.present.languages")
    text = (root / f"{code}.toml").read_text(encoding="utf-8")
    return Lang(code, tomllib.loads(text))
