"""Explanations over every scenario: the tree's rules are exactly the rules the
ruling cites, every reason rests on snapshot facts (JSON paths that resolve)
or on other derivations, and those agree with the ruling."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from test_engine import ROOT, all_snapshots

from mtgcontrol.cli import main
from mtgcontrol.engine.api import engine_for, version_for
from mtgcontrol.present.explain import (
    EXPLAIN,
    Derivation,
    Explained,
    _lookup,
    _reader,
    explain,
    to_document,
)
from mtgcontrol.present.pages import ruling_page

SNAPSHOTS = all_snapshots()
FACTS = ("owner", "controller", "you", "default_controller")
# The trees of every scenario are judged CHUNK to a grounding: ~7 ms a snapshot against
# ~60 ms for explain() alone (most of a lone grounding is the same for every snapshot).
# The engine gives the same answers alone or in any batch; the first tree of each chunk
# is compared with explain() alone, so that stays checked for this lens too.
CHUNK = 32
INDEX = {name: i for i, (name, _) in enumerate(SNAPSHOTS)}


@cache
def explained_chunk(start: int) -> list[Explained]:
    items = SNAPSHOTS[start:start + CHUNK]
    found = engine_for((), fast=False).judge(
        [(doc, version_for(doc, None, name)) for name, doc in items], EXPLAIN)
    assert found[0] == explain(items[0][1]), f"{items[0][0]}: judged alone, another tree"
    return found


def in_languages(doc: dict[str, Any]) -> list[tuple[str, Explained]]:
    """``explain(doc, lang=...)`` in each language, from one grounding: only the reader
    of the atoms differs (explain's ``lang`` is checked in test_lang.py, test_pages.py)."""
    langs = ("en", "fr", "it")
    readers = [_reader(lang) for lang in langs]
    lens = replace(EXPLAIN, read=lambda frame, atoms: [read(frame, atoms) for read in readers])
    (found,) = engine_for((), fast=False).judge([(doc, version_for(doc, None, "snapshot"))],
                                                 lens)
    assert [exp.lang.code for exp in found] == list(langs)
    return list(zip(langs, found, strict=True))


def explained(name: str) -> Explained:
    """What ``explain`` gives for the scenario ``name`` (judged in its chunk)."""
    i = INDEX[name]
    return explained_chunk(i - i % CHUNK)[i % CHUNK]


def check_tree(exp: Explained, d: Derivation, doc: dict[str, Any]) -> None:
    """Every reason has facts or uses; facts resolve; uses agree with the ruling."""
    if d.repeated:
        return
    history = d.object in exp.ruling.objects and exp.ruling.objects[d.object].history
    if d.at is not None and not d.would and history:  # the ruling's history agrees
        assert d.value == exp.ruling.controller(d.object, at=d.at)
    if d.would:  # exiled as that player left: the ruling says it has none from then on
        assert d.value is not None and exp.ruling.controller(d.object, at=d.at) is None
    if d.at is not None:
        assert d.value is not None and d.because, d  # the tree says who, and why
    for reason in d.because:
        assert reason.facts or reason.uses, (d.object, d.fact, reason.rule, reason.kind)
        for leaf in reason.facts:
            assert leaf.path.startswith("$")
            if leaf.present:
                assert _lookup(doc, leaf.path) == leaf.value, leaf.path
            else:  # an absent field: the path's parent exists
                parent = leaf.path.rsplit(".", 1)[0]
                assert _lookup(doc, parent) is not None
        for used in reason.uses:  # a derivation used is itself explained down to facts
            assert used.repeated or used.because, (d.object, reason.rule, used)
            check_tree(exp, used, doc)


@pytest.mark.parametrize("name,doc", SNAPSHOTS, ids=[n for n, _ in SNAPSHOTS])
def test_tree_cites_exactly_the_ruling(name: str, doc: dict[str, Any]) -> None:
    exp = explained(name)
    assert exp.doc == doc
    ruling = exp.ruling
    for oid, obj in ruling.objects.items():
        for fact in FACTS:
            cited = sorted({b.rule for b in obj.because if b.fact == fact})
            d = exp.derivation(oid, fact)
            assert d.rules() == cited, (oid, fact)
            assert d.value == getattr(obj, fact)
            check_tree(exp, d, doc)
        fate = exp.derivation(oid, "fate")
        assert bool(fate.because) == (oid in ruling.left_game)
        assert set(fate.rules()) <= {b.rule for b in obj.because if b.fact == "controller"}
        check_tree(exp, fate, doc)
    for cands in exp.candidates.values():  # every losing effect says why
        for cand in cands:
            assert cand.won or cand.losses, cand
            assert "other" not in [x.code for x in cand.losses], cand
    page = ruling_page([exp], exp.lang)  # every scenario renders, each object with a row
    assert all(f'<tr data-object="{oid}">' in page for oid in ruling.objects)
    for aid, ab in ruling.abilities.items():
        d = exp.derivation(aid, "may_activate")
        assert d.rules() == sorted({b["rule"] for b in ab["because"]
                                    if b["fact"] == "may_activate"})
        check_tree(exp, d, doc)


def test_losers_say_why() -> None:
    """An ended steal and an older one that lost: each with its reason and facts."""
    doc = {"players": ["alice", "bob", "carol"], "now": 30, "objects": [
        {"id": "spell", "kind": "card", "zone": "gone",
         "start": {"zone": "library", "player": "bob"}, "put_on_stack": {"at": 9, "by": "bob"}},
        {"id": "bear", "kind": "card", "zone": "battlefield",
         "start": {"zone": "library", "player": "alice"}, "entered": {"at": 3, "under": "alice"}}],
        "effects": [
        {"id": "old", "kind": "control", "origin": "resolution", "source": "spell",
         "player": "bob",
         "objects": ["bear"], "timestamp": 10},
        {"id": "ended", "kind": "control", "origin": "resolution", "source": "spell",
         "player": "carol",
         "objects": ["bear"], "timestamp": 20, "duration": "end-of-turn", "ended_at": 25},
        {"id": "new", "kind": "control", "origin": "resolution", "source": "spell",
         "player": "carol",
         "objects": ["bear"], "timestamp": 15}]}
    exp = explain(doc)
    cands = {c.effect: c for c in exp.derivation("bear", "controller").candidates}
    assert cands["new"].won and not cands["old"].won
    assert [x.code for x in cands["old"].losses] == ["later"]
    assert [x.code for x in cands["ended"].losses] == ["ended"]
    assert "$.effects[1].ended_at" in [f.path for f in cands["ended"].losses[0].facts]
    why = exp.why_not("bear", "controller", "bob")
    assert not why.is_value and [c.effect for c in why.candidates] == ["old"]
    assert exp.why_not("bear", "controller", "carol").is_value


def test_new_object_after_zone_change() -> None:
    doc = {"players": ["alice", "bob"], "now": 30, "objects": [
        {"id": "spell", "kind": "card", "zone": "gone",
         "start": {"zone": "library", "player": "bob"}, "put_on_stack": {"at": 9, "by": "bob"}},
        {"id": "bear", "kind": "card", "zone": "battlefield",
         "start": {"zone": "library", "player": "alice"}, "entered": {"at": 20, "under": "alice"}}],
        "effects": [{"id": "steal", "kind": "control", "origin": "resolution", "source": "spell",
         "player": "bob",
                     "objects": ["bear"], "timestamp": 10}]}
    exp = explain(doc)
    (cand,) = exp.derivation("bear", "controller").candidates
    assert [x.code for x in cand.losses] == ["new_object"]
    assert "400.7" in exp.derivation("bear", "controller").rules()


def test_json_document_is_stable(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(ROOT / "examples" / "01-mind-control.json")
    assert main(["explain", path, "bear", "--format", "json", "--why-not", "alice"]) == 0
    first = capsys.readouterr().out
    assert main(["explain", path, "bear", "--format", "json", "--why-not", "alice"]) == 0
    assert capsys.readouterr().out == first
    data = json.loads(first)
    assert data["format"] == "explanation/1"
    assert data["value"] == "bob" and data["why_not"]["holds"] is False
    assert {r["rule"] for r in data["because"]} == {"109.5", "613.1b"}
    assert data == to_document(explain(path), "bear", "controller", "alice")


def test_cli_errors(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(ROOT / "examples" / "01-mind-control.json")
    assert main(["explain", path, "nope"]) == 2
    assert "OBJECT" in capsys.readouterr().err
    assert main(["explain", path, "bear", "--why-not", "zed"]) == 2
    assert "--why-not" in capsys.readouterr().err
    assert main(["explain", path, "bear", "--lang", "xx"]) == 2
    assert "--lang" in capsys.readouterr().err
    assert main(["explain", path, "bear", "--format", "html"]) == 2
    assert "-o" in capsys.readouterr().err


def test_text_tree(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(ROOT / "examples" / "01-mind-control.json")
    assert main(["explain", path, "bear"]) == 0
    out = capsys.readouterr().out
    assert "[613.1b] effect e1" in out and "$.objects[1].entered" in out


def test_json_follows_the_schema() -> None:
    import jsonschema

    schema = json.loads((ROOT / "pyapi" / "mtgcontrol" / "schema" /
                         "explanation.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted((ROOT / "examples").glob("*.json")):
        exp = explain(str(path))
        players = [p if isinstance(p, str) else p["id"] for p in exp.doc["players"]]
        for oid in exp.ruling.objects:
            for fact in ("owner", "controller", "you", "default-controller", "fate"):
                validator.validate(to_document(exp, oid, fact, players[0]))
        for aid in exp.ruling.abilities:
            validator.validate(to_document(exp, aid, "may-activate", players[-1]))


def _atoms(text: str) -> set[tuple[str, int]]:
    """name/arity of every atom in ASP text (comments and strings left out)."""
    import re

    text = re.sub(r'%[^\n]*|"[^"]*"', "", text)
    found = set()
    for m in re.finditer(r"(?<![\w#])([a-z_]\w*)\(", text):
        depth, i, args = 1, m.end(), 1
        while depth and i < len(text):
            c = text[i]
            depth += (c == "(") - (c == ")")
            args += c == "," and depth == 1
            i += 1
        found.add((m.group(1), args))
    return found


def test_explain_lp_reads_only_predicates_that_exist() -> None:
    """A predicate renamed in a rule file must be renamed in explain.lp too."""
    import re

    encodings = ROOT / "encodings"
    explain_lp = (encodings / "explain.lp").read_text()
    rules = "\n".join(p.read_text() for p in sorted(encodings.glob("*.lp"))
                      if p.name not in ("explain.lp", "generator.lp"))
    heads = {a for a in _atoms("\n".join(re.findall(r"(?m)^[a-z_]\w*\([^:]*(?=:-|\.\s*$)",
                                                    rules)))}
    heads |= {(n, int(a)) for n, a in re.findall(r"#defined\s+(\w+)/(\d+)", rules)}
    body = "\n".join(line for line in explain_lp.splitlines()
                     if not line.lstrip().startswith("%"))
    own = _atoms("\n".join(re.findall(r"(?m)^x\w*\([^:]*(?=:-|\.\s*$)", body)))
    terms = {"f", "at", "o", "e", "p"}
    read = {a for a in _atoms(body) - own if a[0] not in terms and not a[0].startswith("x")}
    missing = sorted(f"{n}/{a}" for n, a in read - heads)
    assert not missing, f"explain.lp reads predicates no rule file derives: {missing}"
    header = "\n".join(line for line in explain_lp.splitlines() if line.startswith("%"))
    unlisted = sorted(f"{n}/{a}" for n, a in read if f"{n}/{a}" not in header)
    assert not unlisted, f"explain.lp's table does not list {unlisted}"


def test_open_choice_is_no_loss() -> None:
    exp = explain(str(ROOT / "examples" / "06-simultaneous-auras-2017.json"))
    cands = exp.derivation("x", "controller").candidates
    assert [c.outcome for c in cands] == ["tied", "tied"]
    why = exp.why_not("x", "controller", "bob")
    assert not why.is_value and "alice chooses between alice and bob" in why.text


def _scenario(rel: str, version: str | None = None) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load((ROOT / "tests" / "scenarios" / rel).read_text(encoding="utf-8"))
    return dict(data["snapshot"], rules=version) if version else data["snapshot"]


def _losses(exp: Explained, oid: str) -> dict[str, list[tuple[str, list[str]]]]:
    return {c.effect: [(x.code, [f.path for f in x.facts]) for x in c.losses]
            for c in exp.derivation(oid, "controller").candidates}


@pytest.mark.parametrize("rel,version,oid,effect,code,path", [
    ("layer2/219-face-down-source-static.yaml", None, "bear", "e-morph", "face_down",
     "$.objects[1].face_down"),
    ("leaving/205-sower-stolen-owner-leaves.yaml", None, "drake", "e-sower", "source_left_game",
     "$.players[0].left_at"),
    ("leaving/207-source-exiled-controller-leaves.yaml", None, "drake", "e-sower",
     "source_exiled", "$.players[1].left_at"),
    ("layer2/211-auras-enchanting-each-other-loop.yaml", "2017-04-28", "o1", "e1", "loop_tie",
     "$.effects[1]"),
    ("layer2/215-undecided-candidate-does-not-block.yaml", None, "bear", "e3", "player_unknown",
     "$.objects[2]"),
    ("phasing/012-exchange-half-phased-out-nothing-happens.yaml", None, "elk", "x1",
     "exchange_phased_out", "$.objects[1].phasing"),
    ("phasing/013-exchange-aura-phased-out-with-its-creature.yaml", None, "relic", "x1",
     "exchange_phased_out", "$.objects[1].attached_to"),
    ("phasing/018-phased-out-token-ceases-2012-2017.yaml", "2012-10-01", "tok", "e2",
     "token_ceased", "$.objects[0].phasing"),
    ("durations/006-your-next-turn-spell-stolen-on-the-stack.yaml", None, "bear", "e1", "ended",
     "$.turns"),
])
def test_rules_fidelity_losses(rel: str, version: str | None, oid: str, effect: str, code: str,
                               path: str) -> None:
    """The reasons an effect loses, each with its code and snapshot facts."""
    for _lang, exp in in_languages(_scenario(rel, version)):
        found = dict(_losses(exp, oid)[effect])
        assert path in found[code], found
        (loss,) = [x for c in exp.derivation(oid, "controller").candidates if c.effect == effect
                   for x in c.losses if x.code == code]
        assert loss.text != code and "{" not in loss.text, loss.text


@pytest.mark.parametrize("rel,version,oid,fact,rule,path", [
    ("phasing/011-aura-phased-out-directly-grants-nothing.yaml", None, "elk-gift", "may_activate",
     "702.26", "$.objects[1].phasing"),
    ("phasing/009-phased-out-permanent-nobody-activates.yaml", "2012-10-01", "bear-slash",
     "may_activate", "702.24", "$.objects[0].abilities[1].granted_by"),
    ("durations/006-your-next-turn-spell-stolen-on-the-stack.yaml", None, "bear", "controller",
     "109.5", "$.effects[1].duration"),
    ("leaving/103-card-enters-under-departed-player.yaml", "2012-10-01", "c", "controller",
     "800.4b", "$.players[1].left_at"),
    ("layer2/331-loop-confiscate-on-first-effects-source.yaml", None, "s2", "controller", "613.8",
     "$.effects[2]"),
])
def test_fidelity_four_reasons(rel: str, version: str | None, oid: str, fact: str, rule: str,
                               path: str) -> None:
    """Phasing, "your" next turn, 2012's 800.4b and a loop with an outside effect: the
    reason is cited under the version's number, rests on its snapshot fact and reads
    in every language."""
    for lang, exp in in_languages(_scenario(rel, version)):
        d = exp.derivation(oid, fact)
        reasons = [r for r in d.because if r.rule == rule]
        assert reasons, (lang, d.rules())
        assert any(path in [f.path for f in r.facts] for r in reasons), \
            (lang, [[f.path for f in r.facts] for r in reasons])
        assert all("{" not in r.text and r.text for r in reasons), [r.text for r in reasons]


def test_undecided_earlier_effect_loses_to_later() -> None:
    """215: an effect whose player cannot be derived still comes before the winner (613.7)."""
    exp = explain(_scenario("layer2/215-undecided-candidate-does-not-block.yaml"))
    assert [c for c, _ in _losses(exp, "bear")["e3"]] == ["later", "player_unknown"]


def test_undecided_earlier_effect_loses_to_later_on_an_object_no_effect_comes_from() -> None:
    """215 with carol's steal from a sorcery, so that the bear is no effect's source
    (lazy/2, layer2.lp: its keys are derived at `now` only): still "later"."""
    doc = _scenario("layer2/215-undecided-candidate-does-not-block.yaml")
    doc["objects"] = [*doc["objects"], {
        "id": "steal", "kind": "card", "zone": "graveyard", "types": ["sorcery"],
        "start": {"zone": "library", "player": "carol"}}]
    doc["effects"] = [*doc["effects"][:4], dict(doc["effects"][4], source="steal")]
    exp = explain(doc)
    assert exp.ruling.controller("bear") == "carol"
    assert [c for c, _ in _losses(exp, "bear")["e3"]] == ["later", "player_unknown"]


def test_exchange_with_permanent_spell_rests_on_its_caster() -> None:
    """202: who controlled the spell before the exchange is its caster, from `entered`."""
    exp = explain(_scenario("layer2/202-exchange-with-permanent-spell-resolved.yaml"))
    (reason,) = [r for r in exp.derivation("wolf", "controller").because if r.kind == "exchange"]
    paths = [f.path for f in reason.facts]
    assert "$.objects[1].entered.spell_put_on_stack_by" in paths
    assert [(u.object, u.at) for u in reason.uses] == [("wolf", 9)]


def test_loop_effect_rests_on_what_came_before_it() -> None:
    """613.8b: in a loop, an effect's player is its source's controller with only the
    effects placed before it applied, down to the source's default controller."""
    doc = {"players": ["alice", "bob", "carol"], "now": 10, "objects": [
        {"id": "o1", "kind": "card", "zone": "battlefield", "types": ["enchantment", "aura"],
         "start": {"zone": "library", "player": "alice"}, "entered": {"at": 1, "under": "bob"},
         "attached_to": "o2", "attached_at": 4},
        {"id": "o2", "kind": "card", "zone": "battlefield", "types": ["enchantment", "aura"],
         "start": {"zone": "library", "player": "bob"}, "entered": {"at": 1, "under": "alice"},
         "attached_to": "o1", "attached_at": 4},
        {"id": "spell", "kind": "card", "zone": "gone",
         "start": {"zone": "library", "player": "carol"},
         "put_on_stack": {"at": 2, "by": "carol"}}],
        "effects": [
        {"id": "e1", "kind": "control", "origin": "static", "source": "o2", "attached": True,
         "timestamp": 1},
        {"id": "e2", "kind": "control", "origin": "static", "source": "o1", "attached": True,
         "timestamp": 1},
        {"id": "steal", "kind": "control", "origin": "resolution", "source": "spell",
         "player": "carol", "objects": ["o1"], "timestamp": 3}]}
    exp = explain(doc)
    assert exp.ruling.controller("o1") == exp.ruling.controller("o2") == "alice"
    assert _losses(exp, "o1")["steal"] == [("loop_order", ["$.effects[0]", "$.effects[2]"])]
    # e1, the loop's first effect, reads o2's controller with nothing placed before it
    # applied: o2's default controller.
    (reason,) = [r for r in exp.derivation("o1", "controller").because if r.rule == "613.1b"]
    assert "$.effects[0]" in [f.path for f in reason.facts]
    assert [(u.object, u.fact) for u in reason.uses] == [("o2", "default_controller")]
    # Then (613.8c) e2 is no longer in a loop: it reads o1's controller after e1 gave it.
    (reason,) = [r for r in exp.derivation("o2", "controller").because if r.rule == "613.1b"]
    assert [(u.object, u.fact) for u in reason.uses] == [("o1", "controller")]
    (first,) = [r for r in exp.derivation("o2", "controller").because
                if r.kind == "loop_first_applied" and r.rule == "613.8"]
    assert "$.effects[0]" in [f.path for f in first.facts]  # e1 gave o1 to alice first


def test_undecided_source_and_loop_with_a_player_gone() -> None:
    """Whether an effect applies cannot be derived: each case says why, in its own code."""
    doc = _scenario("layer2/215-undecided-candidate-does-not-block.yaml")
    doc["effects"] = doc["effects"][:3] + [{
        "id": "e3", "kind": "control", "origin": "resolution", "source": "o3", "player": "carol",
        "objects": ["bear"], "timestamp": 5, "duration": "while-you-control-source"}]
    exp = explain(doc)
    assert exp.ruling.controller("bear") is None
    assert _losses(exp, "bear")["e3"] == [("source_undecided", ["$.effects[3]", "$.objects[2]"])]
    # A loop in a game a player has left, left open by bob's steal of o1 at 2 (a closed
    # one is walked over its orders and resolved, layer2.lp).
    doc = _scenario("layer2/211-auras-enchanting-each-other-loop.yaml")
    doc["players"] = ["alice", "bob", {"id": "carol", "left_at": 2}]
    doc["effects"].append({"id": "e3", "kind": "control", "origin": "resolution", "source": "o1",
                           "player": "bob", "objects": ["o1"], "timestamp": 2})
    exp = explain(doc)
    assert {v.rule for v in exp.ruling.violations} == {"613.8"}
    assert _losses(exp, "o1")["e1"] == [("loop_player_left",
                                         ["$.effects[0]", "$.players[2].left_at"])]


@pytest.mark.parametrize("version", ["2012-10-01", "2026-08-07"])
def test_loop_effect_waits_for_a_later_steal_once_the_first_is_applied(version: str) -> None:
    """613.8b/613.8c: after the loop's first effect (e1) is applied, e2 is no
    longer in a loop and waits for carol's steal of its source; said in each language."""
    texts = set()
    for _lang, exp in in_languages(
            _scenario("layer2/320-aura-loop-later-steal-breaks-loop.yaml", version)):
        assert exp.ruling.controller("o2") == "carol"
        (reason,) = [r for r in exp.derivation("o2", "controller").because
                     if r.kind == "loop_first_applied" and r.group == "613.8"]
        assert "$.effects[0]" in [f.path for f in reason.facts]  # the loop's first effect
        assert "e1" in reason.text and "e2" in reason.text and "{" not in reason.text
        texts.add(reason.text)
    assert len(texts) == 3


def test_tied_loop_agreeing_on_an_object_that_is_no_source() -> None:
    """613.8b with 613.7m: c is no effect's source; every order of the tied loop ends with
    bob controlling it, and the members whose player differs say so."""
    for _lang, exp in in_languages(
            _scenario("layer2/325-tied-loop-agree-only-at-end-non-source.yaml")):
        assert exp.ruling.controller("c") == "bob"
        losses = _losses(exp, "c")
        assert [code for code, _ in losses["e0"]] == ["loop_agreed"]
        (loss,) = [x for cand in exp.derivation("c", "controller").candidates
                   if cand.effect == "e0" for x in cand.losses]
        assert "bob" in loss.text and "{" not in loss.text
