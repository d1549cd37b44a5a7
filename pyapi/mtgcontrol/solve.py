"""Ground and solve batches of snapshots with the encodings; return raw atoms.

One clingo ``Control`` judges a whole batch: every fact carries the snapshot's
batch number.  The program is stratified (see encodings/layer2.lp), so the
grounder decides it and the solver only reads off the single model.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import clingo

from .catalog import Version, numbering_facts

ENCODINGS = ("base", "ownership", "permanents", "spells", "abilities", "variants",
             "layer2", "leaving", "players", "checks", "ruling", "show")

Atom = tuple[str, tuple[object, ...]]


@cache
def encoding_text() -> str:
    """All encoding files, in order."""
    root = resources.files("mtgcontrol.encodings")
    return "\n".join((root / f"{name}.lp").read_text(encoding="utf-8") for name in ENCODINGS)


DIGITS = frozenset("-0123456789")


def parse_atom(text: str) -> Atom:
    """Split a flat shown atom, e.g. ``owner(1,4,2)``, into name and arguments.

    Every shown atom is flat: integers, constants and rule-number strings
    (which contain no commas or parentheses).
    """
    name, _, rest = text.partition("(")
    return name, tuple(int(arg) if arg[0] in DIGITS else arg.strip('"')
                       for arg in rest[:-1].split(","))


@dataclass(frozen=True)
class Program:
    """The encodings with a set of versions and proposal files layered over them."""

    versions: tuple[Version, ...]
    changes: tuple[str, ...] = ()

    def text(self) -> str:
        parts = [encoding_text()]
        parts.extend(numbering_facts(v) for v in self.versions)
        parts.extend(self.changes)
        return "\n".join(parts)


def solve(program: Program, facts: Sequence[str]) -> dict[int, list[Atom]]:
    """Judge a batch: ``facts[i]`` are snapshot ``i``'s facts.  Atoms by snapshot."""
    messages: list[str] = []
    ctl = clingo.Control(["--warn=none"], logger=lambda _code, text: messages.append(text))
    try:
        ctl.add("base", [], program.text())
        ctl.add("base", [], "\n".join(facts))
        ctl.ground([("base", [])])
    except RuntimeError:
        raise NoRuling("the program could not be grounded (a proposal file's error?): "
                       + " ".join(m.strip() for m in messages)) from None
    by_snapshot: dict[int, list[Atom]] = defaultdict(list)
    with ctl.solve(yield_=True) as handle:
        model = next(iter(handle), None)
        if model is None:
            raise NoRuling("the rules have no answer for this batch: a proposal file's "
                           "constraint rules out every ruling (use error/5 atoms instead)")
        for sym in model.symbols(shown=True):
            name, args = parse_atom(str(sym))
            by_snapshot[args[0]].append((name, args[1:]))  # type: ignore[index]
    return by_snapshot


class NoRuling(RuntimeError):
    """The program had no answer set (only possible with a proposal's constraint)."""


def load_changes(paths: Iterable[str | Path]) -> tuple[str, ...]:
    """Read proposal files (``--change FILE.lp``)."""
    return tuple(Path(p).read_text(encoding="utf-8") for p in paths)
