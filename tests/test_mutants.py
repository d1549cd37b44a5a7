"""The mutant set (tests/mutants/): every rule family has mutants, both kinds of
edit are there, and every mutant is live -- its witness fails the mutant's
invariant only under the mutant, and gets another ruling (a dead mutant, or one
whose edit no longer applies, fails)."""

from __future__ import annotations

import json

import pytest
from mutant_set import FAMILIES, Mutant, applied, load_all, mutated_text

from mtgcontrol import catalog
from mtgcontrol.engine.api import engine_for
from mtgcontrol.engine.ruling import EngineFault
from mtgcontrol.research.invariants import builtin_invariants
from mtgcontrol.research.proofs import reproduce

MUTANTS = load_all()
INVARIANTS = {i.name: i for i in builtin_invariants()}


def test_the_set_covers_every_family_with_both_kinds_of_edit() -> None:
    assert len(MUTANTS) >= 20
    assert {m.family for m in MUTANTS} == set(FAMILIES)
    assert {m.kind for m in MUTANTS} == {"encoding", "proposal"}
    for m in MUTANTS:
        assert m.intent.strip() and "\n" not in m.intent.strip(), m.id
        assert m.invariant in INVARIANTS or (m.invariant is None and m.note), m.id
        assert set(m.bounds) >= {"players", "objects", "effects"}, m.id
        assert m.witness, f"{m.id} has no witness"
        assert len(m.witness["objects"]) <= m.bounds["objects"] and \
            len(m.witness["effects"]) <= m.bounds["effects"], m.id


def _ruling(m: Mutant, mutated: bool) -> dict[str, object]:
    version = catalog.resolve(m.rules)
    doc = {**m.witness, "id": m.id}
    changes = m.changes() if mutated else ()
    try:
        ruling = engine_for(changes, fast=True).judge([(doc, version)])[0]
    except EngineFault as fault:  # an undecided object: no-violation reads it as a failure
        return {"engine_fault": str(fault)}
    return ruling.to_dict()  # type: ignore[union-attr]


@pytest.mark.parametrize("m", MUTANTS, ids=[m.id for m in MUTANTS])
def test_the_mutant_is_live_on_its_witness(m: Mutant) -> None:
    if m.file is not None:
        mutated_text(m)  # its edit still applies (the text occurs once)
    version = catalog.resolve(m.rules)
    doc = {**m.witness, "id": m.id}
    before = _ruling(m, False)
    invariants = [INVARIANTS[m.invariant]] if m.invariant else list(INVARIANTS.values())
    for invariant in invariants:
        assert reproduce(doc, version, invariant) == [], \
            f"the witness of {m.id} fails {invariant.name} under the rules themselves"
    with applied(m):
        after = _ruling(m, True)
        failures = [f for i in invariants for f in reproduce(doc, version, i, m.changes())]
    if m.invariant is None:  # live, and seen by no invariant: a survivor by design
        assert before != after, f"{m.id} is dead: its witness gets the same ruling"
        assert failures == [], f"{m.id}: an invariant sees it, name it ({failures})"
        return
    # Live: the rules' output on the witness changes so that the invariant fails (a
    # "you" the ruling shows once may fail as two, so the ruling alone may not differ).
    assert failures, f"{m.id} is dead: its witness does not fail {m.invariant} under the " \
        f"mutant ({json.dumps(after)[:300]})"
    assert before != after or m.invariant == "you-defined", \
        f"{m.id}: its witness gets the same ruling"
