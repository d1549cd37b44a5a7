"""Do the rules answer every snapshot the search generates?  (``verify --check-answers``)

verify proves an invariant by searching generator + rules + the invariant's negation.
A snapshot for which the rules have no answer set (an integrity constraint, or a loop
through negation with no way out) has no model there, so no invariant can fail on it:
a proof would hold for it vacuously.  The rules of every version are meant to give one
answer per snapshot.  This check counts, with the solver, the snapshots the generator
makes within the bounds (every time ordering, connected or not, late entries too: the
widest space) and those the rules answer (the same program with the rules, projected
onto the generated atoms); the two counts are equal exactly when every snapshot has an
answer.  Where they differ, a snapshot without one is read: the first generated
snapshot (the solver's order, one thread) that is not among those answered.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import clingo

from .. import catalog
from .gen import Bounds
from .solver import SearchProgram, count_models, enumerating, search_file
from .space import generator_text, model_to_doc


@dataclass
class Answers:
    """Of the ``generated`` snapshots within the bounds, ``answered`` have an answer
    under ``version`` (with the proposal, if any); ``witness`` is one without."""

    version: str
    generated: int
    answered: int
    witness: dict[str, Any] | None
    cpu_seconds: float

    @property
    def holds(self) -> bool:
        return self.generated == self.answered

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": self.version, "holds": self.holds,
                               "generated": self.generated, "answered": self.answered,
                               "cpu_seconds": round(self.cpu_seconds, 2)}
        if self.witness is not None:
            out["witness"] = self.witness
        return out

    def text(self) -> str:
        head = f"{self.version}: "
        cost = f"; {self.cpu_seconds:.1f} s CPU"
        if self.holds:
            return (f"{head}the rules answer every snapshot within the bounds "
                    f"({self.generated} generated{cost})")
        return (f"{head}NO ANSWER for {self.generated - self.answered} of "
                f"{self.generated} snapshots{cost}; e.g. {json.dumps(self.witness)}")


def check_answers(bounds: Bounds, version: catalog.Version,
                  changes: Sequence[str] = ()) -> Answers:
    """The count of snapshots generated within ``bounds`` and of those the rules of
    ``version`` (with ``changes``) answer; a witness where they differ."""
    start = time.process_time()
    program = SearchProgram(bounds, ((0, version.name),), "", tuple(changes), late=True,
                            connected=False, orderings=False, fewest_players=False)
    sizes = search_file("sizes.lp")
    generator = "\n".join((generator_text(), sizes))
    text = program.text()
    generated = count_models(program, generator)
    answered = count_models(program, text)
    witness = None
    if answered != generated:
        seen = {frozenset(m) for m in _models(program, text)}
        witness = next(model_to_doc(m) for m in _models(program, generator)
                       if frozenset(m) not in seen)
    return Answers(version.name, generated, answered, witness, time.process_time() - start)


def _models(program: SearchProgram, text: str) -> Iterator[list[clingo.Symbol]]:
    ctl = enumerating(program, text)
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            yield model.symbols(shown=True)
