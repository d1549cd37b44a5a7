"""The mutant set: bugs planted in the rules, each with a witness (tests/mutants/).

One YAML file per mutant (schema: tests/mutants/README.md):

* ``id`` (the file's name), ``family`` (the rule family it breaks: one of
  ``FAMILIES``), ``intent`` (one line: what the bug is);
* the edit: ``file`` (an encoding, e.g. ``layer2.lp``) with ``replace`` (text that
  occurs exactly once in it) and ``with`` (what it becomes), or ``proposal`` (a
  proposal file's text, layered over the rules as ``--change`` does);
* ``witness``: a snapshot whose ruling the mutant changes, and on which it makes
  ``invariant`` fail (under ``rules``, default the newest version); ``invariant:
  null`` for a mutant no built-in invariant can see (one wrong controller instead
  of the right one): its witness fails none, and ``note`` says so -- a survivor
  of verify at every bound, kept to measure what the invariants miss;
* ``bounds``: the players, objects, effects and details the witness needs
  (``verify`` at bounds that hold it can find the bug).

``applied(mutant)`` puts the mutant in force in this process (the encodings the
engine and the search read, with their caches cleared); tests/test_mutants.py
checks every witness is live, benchmarks/bench_mutants.py runs `verify` on each.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

MUTANTS = Path(__file__).resolve().parent / "mutants"
# The rule families of the issue that asked for the set; each has a mutant.
FAMILIES = ("108", "110", "111", "112", "109.5", "113.8", "603", "613.7", "613.7m", "613.8",
            "611.2", "701.12", "800.4a", "800.4c", "800.4d", "702.26")
KEYS = {"family", "intent", "file", "replace", "with", "proposal", "witness", "bounds",
        "invariant", "rules", "note"}


@dataclass(frozen=True)
class Mutant:
    id: str
    family: str
    intent: str
    witness: dict[str, Any]
    bounds: dict[str, int]
    invariant: str | None
    rules: str = "2026-08-07"
    file: str | None = None
    replace: str | None = None
    with_: str | None = None
    proposal: str | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return "proposal" if self.proposal is not None else "encoding"

    def changes(self) -> tuple[str, ...]:
        return (self.proposal,) if self.proposal is not None else ()

    def size(self) -> int:
        return self.bounds["objects"] + self.bounds["effects"] + self.bounds.get("details", 0)


def load(path: Path) -> Mutant:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    unknown = set(data) - KEYS
    assert not unknown, f"{path.name}: unknown keys {sorted(unknown)}"
    assert data["family"] in FAMILIES, f"{path.name}: family {data['family']!r}"
    assert (data.get("proposal") is None) != (data.get("file") is None), \
        f"{path.name}: either file + replace + with, or proposal"
    return Mutant(path.stem, data["family"], data["intent"], data.get("witness", {}),
                  data["bounds"],
                  data.get("invariant"), data.get("rules", "2026-08-07"), data.get("file"),
                  data.get("replace"), data.get("with"), data.get("proposal"),
                  data.get("note", ""))


def load_all() -> list[Mutant]:
    return [load(p) for p in sorted(MUTANTS.glob("*.yaml"))]


def edited(mutant: Mutant, text: str) -> str:
    """``text`` (the mutant's encoding file) with its edit made."""
    assert mutant.replace is not None and mutant.with_ is not None
    count = text.count(mutant.replace)
    assert count == 1, (f"mutant {mutant.id}: the text to replace occurs {count} times "
                        f"in {mutant.file} (the encoding changed: update the mutant)")
    return text.replace(mutant.replace, mutant.with_)


def mutated_text(mutant: Mutant) -> str:
    """The encodings (solve.ENCODINGS, in order) with the mutant's edit made."""
    from mtgcontrol.engine import solve

    root = resources.files("mtgcontrol.encodings")
    assert mutant.file is None or mutant.file in {f"{n}.lp" for n in solve.ENCODINGS}, \
        f"mutant {mutant.id}: no encoding {mutant.file}"
    parts = []
    for name in solve.ENCODINGS:
        text = (root / f"{name}.lp").read_text(encoding="utf-8")
        parts.append(edited(mutant, text) if f"{name}.lp" == mutant.file else text)
    return "\n".join(parts)


@contextmanager
def applied(mutant: Mutant) -> Iterator[None]:
    """The mutant's encodings in force for the engine and the search (a proposal
    mutant needs nothing: pass ``mutant.changes()``)."""
    from mtgcontrol.engine import api, solve

    if mutant.file is None:
        yield
        return
    original = solve.encoding_text
    text = mutated_text(mutant)
    solve.encoding_text = lambda: text  # type: ignore[assignment]
    api._engine.cache_clear()
    try:
        yield
    finally:
        solve.encoding_text = original  # type: ignore[assignment]
        api._engine.cache_clear()
