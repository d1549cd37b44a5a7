"""Slicing (engine/slicing.py): a grounding gets only the statements that can fire on
its facts, and the answer is the same (docs/engine.md, "Slicing").

Checked against the whole program (``Engine(slicing=False)``), byte for byte: every
example and scenario file judged alone (one snapshot to a grounding, where slicing
leaves out the most), a sample under every CR version, the Forge puzzles, generated
snapshots alone, the explain, causes and research
lenses, and every proposal of docs/proposals.  The analysis itself on small
programs.  And the check has teeth: planted bugs in the analysis (a negated literal
read as required, an aggregate's atoms read as required, a comparison read the wrong
way round, a constant's digits masked, a pool read as its first constant) each
make it fail on a witness.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import clingo
import pytest
from clingo import ast
from test_differential import corpus_module
from test_engine import all_snapshots

from mtgcontrol import catalog
from mtgcontrol.engine import Engine
from mtgcontrol.engine import slicing as sl
from mtgcontrol.engine.api import engine_for, judge_batch, version_for
from mtgcontrol.engine.causes import minimal_causes
from mtgcontrol.engine.engine import RULING, Lens
from mtgcontrol.engine.slicing import WHOLE, Part, Slicer, shape
from mtgcontrol.forge.cardscript import CardData
from mtgcontrol.forge.command import import_file
from mtgcontrol.present.explain import EXPLAIN
from mtgcontrol.research import views
from mtgcontrol.research.views import PAIRED

ROOT = Path(__file__).resolve().parents[1]
FORGE = ROOT.parent / "shared" / "forge" / "puzzles"
PROPOSALS = sorted((ROOT / "docs" / "proposals").glob("*.lp"))


def differ(items: Sequence[tuple[dict[str, Any], str]], changes: tuple[str, ...] = (),
           rules: str | None = None) -> list[str]:
    """The names of the snapshots whose rulings differ: each judged alone, sliced,
    against the whole program in batches (``rules``: under that CR version)."""
    whole = Engine(changes, slicing=False)
    alone = Engine(changes, slicing=True, grounding_size=1, cache_size=0)
    a = [r.to_json() for r in judge_batch(items, rules, whole)]
    b = [r.to_json() for r in judge_batch(items, rules, alone)]
    assert len(a) == len(b) == len(items)
    return [items[i][1] for i in range(len(items)) if a[i] != b[i]]


def scenario_items(family: str | None = None) -> list[tuple[dict[str, Any], str]]:
    return [(doc, name) for name, doc in all_snapshots()
            if family is None or f"/scenarios/{family}/" in name
            or (family == "examples" and "/examples/" in name)]


FAMILIES = ["examples", *sorted(p.name for p in (ROOT / "tests" / "scenarios").iterdir()
                                if p.is_dir())]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_scenario_alone_sliced_as_whole(family: str) -> None:
    items = scenario_items(family)
    assert items
    assert not differ(items)


def test_generated_snapshots_alone_sliced_as_whole() -> None:
    make = corpus_module()
    rng = random.Random(11)
    docs = [make.Builder(rng, i).build() for i in range(80)]
    docs += [make.realistic(rng, 80 + i) for i in range(20)]
    assert not differ([(d, f"generated {d['id']}") for d in docs])


@pytest.mark.parametrize("version", [v.name for v in catalog.versions()])
def test_every_version_alone_sliced_as_whole(version: str) -> None:
    """A sample of the scenarios under each CR version, whatever version they name
    (the version's constant is part of what is sliced on)."""
    items = scenario_items("examples") + scenario_items()[::18]
    # (a snapshot naming this version, or none when it is the newest, is judged alone
    # under it by test_every_scenario_alone_sliced_as_whole already)
    items = [(doc, name) for doc, name in items if version_for(doc, None, name).name != version]
    assert len(items) >= 30
    assert not differ(items, rules=version)


@pytest.mark.skipif(not FORGE.is_dir(), reason="../shared/forge is absent")
def test_forge_puzzles_alone_sliced_as_whole() -> None:
    cards = CardData(FORGE.parent)
    items = []
    for path in sorted(FORGE.glob("*.pzl")):
        doc, _ = import_file(path, cards)
        if doc is not None:
            items.append((doc, path.name))
    assert len(items) >= 20
    assert not differ(items)


@pytest.mark.parametrize("proposal", PROPOSALS, ids=lambda p: p.stem)
def test_proposals_sliced_as_whole(proposal: Path) -> None:
    items = scenario_items("examples") + scenario_items("layer2")[::3]
    assert not differ(items, (proposal.read_text(encoding="utf-8"),))


def test_a_proposal_error_still_stops_the_grounding() -> None:
    """A proposal's statements are always kept: an unsafe rule whose body can never
    hold is an error sliced or not."""
    from mtgcontrol.engine.solve import NoRuling
    from mtgcontrol.engine.validate import InputError

    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    for slicing in (False, True):
        with pytest.raises((NoRuling, InputError), match="unsafe"):
            Engine(('never(X) :- planar_card(S,_).',), slicing=slicing).judge(
                [(doc, catalog.newest())])


def shown(lens: Lens) -> Lens:
    """``lens`` read as its sorted shown atoms."""
    return replace(lens, read=lambda _f, items: sorted(map(str, items)))


def test_explain_lens_sliced_as_whole() -> None:
    items = scenario_items("examples") + scenario_items()[::24]
    whole = Engine(slicing=False, fast=False)
    alone = Engine(slicing=True, fast=False)
    # Each snapshot's atoms with its number in the grounding (their first argument) read
    # as 0: the whole program judges them in one grounding (the reference, as in differ),
    # the sliced one each alone.
    lens = replace(EXPLAIN, read=lambda _f, items: sorted(
        str(clingo.Function(a.name, [clingo.Number(0), *a.arguments[1:]])) for a in items))
    pairs = [(doc, version_for(doc, None, name)) for doc, name in items]
    for pair, (_, name), expected in zip(pairs, items, whole.judge(pairs, lens), strict=True):
        assert alone.judge([pair], lens) == [expected], name


def test_causes_sliced_as_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = engine_for((), False)
    every = scenario_items()
    items: list[tuple[dict[str, Any], str]] = []
    for start in range(0, len(every), 128):  # the first 12 with a violation
        chunk = every[start:start + 128]
        items += [item for item, ruling in zip(chunk, judge_batch(chunk, None, engine),
                                               strict=True)
                  if json.loads(ruling.to_json()).get("violations")]
        if len(items) >= 12:
            break
    items = items[:12]
    assert len(items) >= 5
    for doc, name in items:
        version = version_for(doc, None, name)
        monkeypatch.setattr(engine, "slicing", False)
        whole = minimal_causes(doc, version)
        monkeypatch.setattr(engine, "slicing", True)
        assert minimal_causes(doc, version) == whole, name


def test_research_lenses_sliced_as_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [doc for doc, _ in scenario_items("layer2")[:40:4] + scenario_items("examples")]
    v1, v2 = catalog.resolve("2017-04-28"), catalog.newest()
    engine = views.research_engine()
    found = []
    for slicing in (False, True):
        monkeypatch.setattr(engine, "slicing", slicing)
        names = views.Names()
        frames = views._frames(docs, (v1, v2), names)
        found.append(engine.judge(frames, shown(PAIRED)))
    assert found[0] == found[1]


# --- the analysis ---------------------------------------------------------------

def parse(text: str) -> list[ast.AST]:
    out: list[ast.AST] = []
    ast.parse_string(text, out.append)
    return out


def kept(program: str, facts: str) -> list[str]:
    """The rules of ``program`` kept for ``facts`` (as text, without directives)."""
    slicer = Slicer([Part.of(parse(program))])
    return [str(s) for s in slicer.kept(shape(facts)) if s.ast_type == ast.ASTType.Rule]


def answer(statements: Sequence[str | ast.AST], facts: str) -> list[str]:
    ctl = clingo.Control(["--warn=none"])
    with ast.ProgramBuilder(ctl) as builder:
        for s in statements:
            if isinstance(s, str):
                ast.parse_string(s, builder.add)
            else:
                builder.add(s)
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    with ctl.solve(yield_=True) as handle:
        return sorted(map(str, next(iter(handle)).symbols(atoms=True)))


PROGRAM = """
a(X) :- p(X, red).
b(X) :- p(X, blue).
c(X) :- q(X), not r(X).
d :- #count { X: r(X) } = 0.
e(X) :- q(X), r(X) : s(X).
f(X) :- p(X, C), C != red.
g(X) :- p(X, C), C = (green; blue).
h(X) :- t(X, (red; green)).
i(X) :- a(X), b(X).
j(K) :- p(_, K), k(K).
k(red).
l(X) :- u(X).
#external u(1).
m(X) :- v(X, Y), w(Y, v2020).
n :- o(x1).
"""


@pytest.mark.parametrize("facts, present, absent", [
    ("p(1,red). q(1).", ["a(X)", "c(X)", "d", "e(X)", "j(K)", "l(X)"],
     ["b(X)", "f(X)", "g(X)", "h(X)", "i(X)", "m(X)", "n "]),
    ("p(1,blue). p(2,red).", ["a(X)", "b(X)", "f(X)", "g(X)", "i(X)", "j(K)"],
     ["c(X)", "h(X)"]),
    ("t(1,green).", ["h(X)"], ["a(X)", "g(X)"]),
    ("v(1,2). w(2,v2020).", ["m(X)"], []),
    ("v(1,2). w(2,v2024).", [], ["m(X)"]),
    ("o(x1).", ["n :-"], []),
    ("o(x2).", [], ["n :-"]),
])
def test_what_is_kept(facts: str, present: list[str], absent: list[str]) -> None:
    facts = facts.replace(". ", ".\n")  # one fact a line, as the engine writes them
    rules = kept(PROGRAM, facts)
    for head in present:
        assert any(r.startswith(head) for r in rules), (head, rules)
    for head in absent:
        assert not any(r.startswith(head) for r in rules), (head, rules)
    whole = [s for s in parse(PROGRAM)]
    sliced = Slicer([Part.of(parse(PROGRAM))]).kept(shape(facts))
    assert answer(sliced, facts) == answer(whole, facts)


def test_a_const_name_is_no_constant() -> None:
    program = "#const colour = red.\na(X) :- p(X, colour).\n"
    assert kept(program, "p(1,red).") == ["a(X) :- p(X,colour)."]
    # ... even when the #const is another part's (a lens's, a proposal's)
    slicer = Slicer([Part.of(parse("a(X) :- p(X, colour).")),
                     Part.of(parse("#const colour = red."))])
    assert any(s.ast_type == ast.ASTType.Rule for s in slicer.kept(shape("p(1,red).")))


@pytest.mark.parametrize("facts", [
    "#const x = 1.", "p(1). #external q(1).", "p(1) :- #count { X: q(X) } > 0.",
])
def test_a_directive_or_an_aggregate_in_the_facts_slices_nothing(facts: str) -> None:
    assert shape(facts) == WHOLE
    assert len(kept(PROGRAM, facts)) == len([s for s in parse(PROGRAM)
                                             if s.ast_type == ast.ASTType.Rule])


@pytest.mark.parametrize("facts, expected", [
    ("p(1,red).\np(22,blue).", {(("p", 2), (None, "red")), (("p", 2), (None, "blue"))}),
    ("version(0,v2026_08_07).", {(("version", 2), (None, "v2026_08_07"))}),
    ("q2(1).", {(("q0", -1), ())}),  # a name with digits: any predicate it may be
    ('s(1,"a b").', {(("s", -1), ()), (("a", -1), ()), (("b", -1), ())}),
    ("p(1). q(2).", {(("p", -1), ()), (("q", -1), ())}),  # two on a line: read by names
    ("o(1) :- u(3).", {(("o", 1), (None,))}),
    ("-p(1).", {(("-p", 1), (None,))}),
    ("% p(1).\n%* p(2). *% r(1).", {(("p", -1), ()), (("r", -1), ())}),
])
def test_shape(facts: str, expected: set[Any]) -> None:
    assert shape(facts) == frozenset(expected)


def test_unreadable_statements_slice_nothing() -> None:
    program = PROGRAM + '#script (python)\ndef f(): pass\n#end.\n'
    slicer = Slicer([Part.of(parse(program))])
    assert slicer.whole
    assert len(slicer.kept(shape("z."))) == len([s for s in parse(program)
                                                  if s.ast_type != ast.ASTType.Comment])


def test_the_engines_program_is_sliced() -> None:
    """A lone small snapshot leaves out most of the rules; a grounding of many keeps
    more; the cache answers a shape seen before."""
    engine = Engine()
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    frame = engine.frame(doc, catalog.newest())
    facts = frame.facts.replace("(#", "(0")
    every = engine.statements(RULING)
    one = engine.statements(RULING, facts)
    assert len(one) < 0.5 * len(every)
    assert engine.statements(RULING, facts) is one


# --- planted bugs -------------------------------------------------------------

def _negation_required(self: Any, body: Sequence[ast.AST]) -> Any:
    atoms, tests = ORIGINAL_BODY(self, body)
    for literal in body:
        if literal.ast_type == ast.ASTType.Literal and literal.sign != ast.Sign.NoSign:
            found = self.atoms(literal.atom)
            if found and len(found) == 1:
                atoms.extend(found)
    return atoms, tests


def _aggregates_required(self: Any, body: Sequence[ast.AST]) -> Any:
    atoms, tests = ORIGINAL_BODY(self, body)
    for literal in body:
        if literal.ast_type == ast.ASTType.Literal and \
                literal.atom.ast_type == ast.ASTType.BodyAggregate:
            for element in literal.atom.elements:
                for cond in element.condition:
                    if cond.ast_type == ast.ASTType.Literal and cond.sign == ast.Sign.NoSign:
                        atoms.extend(self.atoms(cond.atom) or ())
    return atoms, tests


def _comparison_inverted(self: Any, comparison: ast.AST) -> Any:
    found = ORIGINAL_TEST(self, comparison)
    return None if found is None else (found[0], not found[1], found[2])


def _digits_masked(text: str) -> Any:
    return frozenset((sig, tuple(v.translate(str.maketrans("123456789", "000000000"))
                                 if v else v for v in values)) if sig[1] >= 0 else (sig, values)
                     for sig, values in ORIGINAL_SHAPE(text))


def _one_line_per_predicate(text: str) -> Any:
    first: dict[Any, Any] = {}
    for sig, values in sorted(ORIGINAL_SHAPE(text), key=repr):
        first.setdefault(sig, values)
    return frozenset(first.items())


def _pool_first(self: Any, term: ast.AST) -> Any:
    found = ORIGINAL_TERM(self, term)
    if isinstance(found, frozenset):
        return min(found)
    return found


ORIGINAL_BODY = sl._Reader.body
ORIGINAL_TEST = sl._Reader.test
ORIGINAL_TERM = sl._Reader.term
ORIGINAL_SHAPE = sl.shape
MUTANTS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], str]] = {
    "a negated literal read as required": (
        lambda m: m.setattr(sl._Reader, "body", _negation_required), "01-mind-control"),
    "an aggregate's atoms read as required": (
        lambda m: m.setattr(sl._Reader, "body", _aggregates_required),
        "02-token-for-an-opponent"),
    "a comparison read the wrong way round": (
        lambda m: m.setattr(sl._Reader, "test", _comparison_inverted), "01-mind-control"),
    "a constant's digits masked": (
        lambda m: m.setattr(sl, "shape", _digits_masked), "01-mind-control"),
    "one fact read per predicate": (
        lambda m: m.setattr(sl, "shape", _one_line_per_predicate), "03-act-of-treason"),
    "a pool read as its first constant": (
        lambda m: m.setattr(sl._Reader, "term", _pool_first), "01-mind-control"),
}


@contextmanager
def planted(name: str) -> Iterator[None]:
    # The analysis is cached per statement: read every statement again, planted bug
    # and all, and forget those readings after.
    sl.compile_statement.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as m:
            MUTANTS[name][0](m)
            yield
    finally:
        sl.compile_statement.cache_clear()


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_planted_bugs_are_caught(name: str) -> None:
    witness = MUTANTS[name][1]
    items = [(doc, n) for doc, n in scenario_items() if witness in n]
    assert len(items) == 1
    assert not differ(items)
    with planted(name):
        assert differ(items), f"the planted bug '{name}' is not caught on {witness}"
