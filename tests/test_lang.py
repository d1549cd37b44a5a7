"""Languages are data: every language file has every entry English and the
rules catalog have; rule numbers never change with the language."""

from __future__ import annotations

import json
import string

import pytest
from test_engine import ROOT

from mtgcontrol import catalog
from mtgcontrol.cli import main
from mtgcontrol.engine.ruling import VIA
from mtgcontrol.present.explain import explain, to_document
from mtgcontrol.present.lang import codes, language

OTHERS = [c for c in codes() if c != "en"]


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_languages_present() -> None:
    assert {"en", "fr", "it"} <= set(codes())


@pytest.mark.parametrize("code", OTHERS)
def test_language_has_every_entry(code: str) -> None:
    en, other = language("en").data, language(code).data
    for section in ("label", "loss"):
        missing = set(en[section]) - set(other[section])
        assert not missing, f"{code}.toml [{section}] lacks {sorted(missing)}"
        for key, text in en[section].items():  # same placeholders
            assert fields(other[section][key]) == fields(text), (code, section, key)
    for category, terms in en["term"].items():
        missing = set(terms) - set(other["term"].get(category, {}))
        assert not missing, f"{code}.toml [term.{category}] lacks {sorted(missing)}"
    missing = set(VIA) - set(other["via"])
    assert not missing, f"{code}.toml [via] lacks {sorted(missing)}"
    for kind, (text, _, _) in VIA.items():
        assert fields(other["via"][kind]) == fields(text), (code, kind)
    groups = {r.group for v in catalog.versions() for r in v.rules}
    missing = groups - set(other["paraphrase"])
    assert not missing, f"{code}.toml [paraphrase] lacks rule groups {sorted(missing)}"
    unknown = set(other["paraphrase"]) - groups
    assert not unknown, f"{code}.toml [paraphrase] has unknown rule groups {sorted(unknown)}"


def test_english_paraphrases_come_from_the_catalog() -> None:
    version = catalog.newest()
    en = language("en")
    for rule in version.rules:
        assert en.paraphrase(version, rule.group) == rule.paraphrase


@pytest.mark.parametrize("code", OTHERS)
def test_same_rules_in_every_language(code: str) -> None:
    path = str(ROOT / "examples" / "03-act-of-treason.json")

    def rules(node: dict) -> list:
        return [(r["rule"], [rules(u) for u in r["uses"]]) for r in node.get("because", [])]

    en = to_document(explain(path), "bears", "controller", "alice")
    other = to_document(explain(path, lang=code), "bears", "controller", "alice")
    assert rules(en) == rules(other)
    assert other["lang"] == code and other["because"][0]["text"] != en["because"][0]["text"]


def test_official_terms(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(ROOT / "examples" / "01-mind-control.json")
    assert main(["explain", path, "bear", "--lang", "fr", "--why-not", "alice"]) == 0
    fr = capsys.readouterr().out
    assert "contrôleur de bear : bob" in fr and "contrôleur par défaut" in fr
    assert main(["explain", path, "bear", "--fact", "owner", "--lang", "it"]) == 0
    it = capsys.readouterr().out
    assert "proprietario di bear: alice" in it and "nel grimorio di alice" in it
    assert main(["explain", path, "bear", "--lang", "it", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["lang"] == "it"


def test_elision_only_before_a_vowel() -> None:
    fr, it = language("fr"), language("it")
    assert fr.label("gives", player="alice") == "donnerait le contrôle à alice"
    assert fr.label("fact_is", fact="contrôleur", object="angel", value="bob") == \
        "contrôleur d'angel : bob"
    assert fr.label("fact_is", fact="contrôleur", object="bear", value="bob") == \
        "contrôleur de bear : bob"
    assert it.label("gives", player="alice") == "darebbe il controllo ad alice"
    assert it.label("gives", player="bob") == "darebbe il controllo a bob"
    assert it.label("gives", player="") == "darebbe il controllo a "
