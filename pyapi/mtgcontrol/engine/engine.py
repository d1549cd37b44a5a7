"""The engine: one object that loads a rule set once and judges snapshots.

``Engine(changes)`` holds the program (every CR version's numbering and the
proposal texts ``changes``) and judges batches of validated snapshots with one
grounding per batch.  Each snapshot is translated on its own (``Frame``): its
ids become small integers from 1 in the order the snapshot names them, and on
the fast path its timestamps become ranks (``facts.Clock``), so the facts of a
snapshot -- and hence its ruling -- do not depend on the batch it is in, and
clingo's symbol table (which is never freed) stays small.  Snapshots whose
facts have been judged before are answered from a bounded cache of the atoms
the program showed for them (the key is the whole fact text: sound by
construction).  ``fast=False`` turns both off (raw timestamps, no cache).

Outputs (``Engine.judge(..., output=...)``): ``"ruling"`` (``ruling.Ruling``),
``"atoms"`` (the shown atoms with ids and times read back, what ``impact``
compares) or ``"violations"`` (only the ruling's violations).
See docs/engine.md for the flow and the soundness argument.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import clingo
from clingo import ast

from .. import catalog
from .facts import (
    KNOWN_TYPES,
    PLAIN_CLOCK,
    Clock,
    Names,
    default_now,
    snapshot_facts,
    snapshot_times,
)
from .interrupts import ground
from .ruling import VIA, Ruling, build_ruling
from .solve import Atom, NoRuling, Program, atoms_by_snapshot
from .vocabulary import OUTPUTS

OUTPUT_KINDS = ("ruling", "atoms", "violations")


@dataclass
class Frame:
    """One snapshot's translation: its names, its clock and its fact text."""

    doc: dict[str, Any]
    version: catalog.Version
    names: Names
    clock: Clock
    facts: str  # with '#' where the batch number goes

    @classmethod
    def of(cls, doc: dict[str, Any], version: catalog.Version, fast: bool,
           types: frozenset[str] = KNOWN_TYPES) -> Frame:
        names = Names()
        clock = PLAIN_CLOCK
        if fast:
            times = snapshot_times(doc)
            times.add(doc["now"] if "now" in doc else default_now(doc))
            if min(times) >= 0:
                clock = Clock.ranked(times)
        try:
            facts = snapshot_facts(doc, "#", version.const, names, clock, types)
        except KeyError:  # a time the ranking did not see: write the times as they are
            names, clock = Names(), PLAIN_CLOCK
            facts = snapshot_facts(doc, "#", version.const, names, clock, types)
        return cls(doc, version, names, clock, facts)


def replace_show(program: str, show: str) -> str:
    """``program`` with its ``#show`` statements replaced by ``show``."""
    kept: list[str] = []
    skipping = False
    for line in program.splitlines():
        if skipping or line.lstrip().startswith("#show"):
            skipping = not line.rstrip().endswith(".")
            continue
        kept.append(line)
    kept.append(show)
    return "\n".join(kept)


def strip_show(text: str) -> str:
    """Program text without its ``#show`` lines (a search or a lens shows its own)."""
    return replace_show(text, "")


def read_types(program: str) -> frozenset[str]:
    """The card types the program's text names (comments aside): a type no rule
    names cannot change a ruling, as no rule counts or shows types."""
    text = re.sub(r"%[^\n]*", "", program)
    return frozenset(t for t in KNOWN_TYPES if re.search(rf"\b{t}\b", text))


@dataclass
class Phases:
    """CPU seconds spent per phase, summed over every batch judged (for benchmarks)."""

    validate: float = 0.0
    facts: float = 0.0
    parse: float = 0.0
    ground: float = 0.0
    solve: float = 0.0
    read_back: float = 0.0
    release: float = 0.0  # freeing the grounding (clingo's Control)
    ruling: float = 0.0
    snapshots: int = 0
    lookups: int = 0
    cache_hits: int = 0

    def as_dict(self) -> dict[str, float]:
        return {k: v for k, v in vars(self).items()}


@dataclass
class Engine:
    """A rule set (all CR versions + proposal texts) loaded once; judges batches."""

    changes: tuple[str, ...] = ()
    fast: bool = True
    # ``#show`` lines that replace show.lp's (research.views: the facts impact
    # compares); every rule of the encodings is kept.
    show: str = ""
    # Snapshots judged before, by their whole fact text (repeats in a corpus).
    cache_size: int = 1_000
    # Snapshots per grounding: few, so that the snapshot numbers, and
    # with them the ground atoms clingo keeps for the life of the process, stay few.
    grounding_size: int = 128
    # And a grounding's size bound: the sum over its snapshots of (facts)^2, the
    # measure its ground atoms grow with (objects x time points): 128 snapshots
    # of ~100 facts (20 objects), a few of 80 or 200 objects (docs/engine.md).
    grounding_weight: int = 128 * 100 ** 2
    phases: Phases = field(default_factory=Phases)

    def __post_init__(self) -> None:
        self.changes = tuple(self.changes)
        versions = tuple(sorted(catalog.versions(), key=lambda v: v.name))
        self.program_text = Program(versions, self.changes).text()
        if self.show:
            self.program_text = replace_show(self.program_text, self.show)
        self._cache: OrderedDict[str, list[Atom]] = OrderedDict()
        self._program: list[ast.AST] | None = None  # parsed once, on first use
        # The fast path writes only the card types some rule of the program names
        # (docs/engine.md); with proposals (which may read any type) every type.
        self.types = read_types(self.program_text) if not self.changes else KNOWN_TYPES

    def parsed_program(self) -> list[ast.AST]:
        """The program's statements, parsed once (then handed to each grounding)."""
        if self._program is None:
            statements: list[ast.AST] = []
            ast.parse_string(self.program_text, statements.append, logger=lambda _c, _t: None)
            self._program = statements
        return self._program

    def _add_program(self, ctl: clingo.Control) -> None:
        with ast.ProgramBuilder(ctl) as builder:
            for statement in self.parsed_program():
                builder.add(statement)

    # --- judging -----------------------------------------------------------------
    def frame(self, doc: dict[str, Any], version: catalog.Version) -> Frame:
        start = time.process_time()
        fast = self.fast and not self.changes
        frame = Frame.of(doc, version, fast, types=self.types if fast else KNOWN_TYPES)
        self.phases.facts += time.process_time() - start
        return frame

    def judge(self, items: Sequence[tuple[dict[str, Any], catalog.Version]],
              output: str = "ruling") -> list[Any]:
        """Judge validated ``(document, version)`` pairs, in order (one grounding)."""
        if output not in OUTPUT_KINDS:
            raise ValueError(f"output must be one of {OUTPUT_KINDS}, not {output!r}")
        frames = [self.frame(doc, version) for doc, version in items]
        return self.judge_frames(frames, output)

    def judge_frames(self, frames: Sequence[Frame], output: str = "ruling") -> list[Any]:
        atoms = self.atoms_of(frames)
        start = time.process_time()
        if output == "atoms":
            out: list[Any] = [read_atoms(f, a) for f, a in zip(frames, atoms, strict=True)]
        else:
            out = [build_ruling(f.doc, f.version.name, a, f.names, f.clock)
                   for f, a in zip(frames, atoms, strict=True)]
            if output == "violations":
                out = [r.violations for r in out]
        self.phases.ruling += time.process_time() - start
        self.phases.snapshots += len(frames)
        return out

    def atoms_of(self, frames: Sequence[Frame]) -> list[list[Atom]]:
        """The shown atoms of each frame (cached or from one grounding)."""
        found: list[list[Atom] | None] = [None] * len(frames)
        todo: dict[str, list[int]] = {}
        use_cache = self.fast and self.cache_size > 0
        self.phases.lookups += len(frames)
        for i, frame in enumerate(frames):
            if use_cache and (hit := self._cache.get(frame.facts)) is not None:
                self._cache.move_to_end(frame.facts)
                found[i] = hit
                self.phases.cache_hits += 1
            else:
                todo.setdefault(frame.facts, []).append(i)
        # Parts repeated within the batch are ground once: they count as hits too.
        self.phases.cache_hits += sum(len(at) - 1 for at in todo.values())
        for chunk in self.groundings(list(todo)):
            solved = self.solve(chunk)
            for s, key in enumerate(chunk):
                result = solved.get(s, [])
                for i in todo[key]:
                    found[i] = result
                if use_cache:
                    self._cache[key] = result
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return [a if a is not None else [] for a in found]

    def groundings(self, fact_texts: list[str]) -> list[list[str]]:
        """``fact_texts`` cut, in order, into groundings of at most ``grounding_size``
        snapshots whose weights (facts squared) sum to at most ``grounding_weight``
        (one snapshot heavier than that is a grounding of its own)."""
        chunks: list[list[str]] = []
        chunk: list[str] = []
        weight = 0
        for text in fact_texts:
            own = (text.count("\n") + 1) ** 2
            if chunk and (len(chunk) == self.grounding_size
                          or weight + own > self.grounding_weight):
                chunks.append(chunk)
                chunk, weight = [], 0
            chunk.append(text)
            weight += own
        if chunk:
            chunks.append(chunk)
        return chunks

    def solve(self, fact_texts: Sequence[str]) -> dict[int, list[Atom]]:
        """Ground and solve one batch: ``fact_texts[s]`` become snapshot ``s``."""
        ph = self.phases
        start = time.process_time()
        messages: list[str] = []
        ctl = clingo.Control(["--warn=none"], logger=lambda _c, text: messages.append(text))
        try:
            self._add_program(ctl)
            ctl.add("base", [], "\n".join(text.replace("(#", f"({s}")
                                          for s, text in enumerate(fact_texts)))
            ph.parse += time.process_time() - start
            start = time.process_time()
            ground(ctl, [("base", [])])  # a signal is served at once (interrupts.py)
        except RuntimeError:
            raise NoRuling("the program could not be grounded (a proposal file's error?): "
                           + " ".join(m.strip() for m in messages)) from None
        ph.ground += time.process_time() - start
        start = time.process_time()
        with ctl.solve(yield_=True) as handle:
            model = next(iter(handle), None)
            if model is None:
                raise NoRuling("the rules have no answer for this batch: a proposal file's "
                               "constraint rules out every ruling (use error/5 atoms instead)")
            symbols = model.symbols(shown=True)
            ph.solve += time.process_time() - start
            start = time.process_time()
            by_snapshot = atoms_by_snapshot(symbols)
        ph.read_back += time.process_time() - start
        start = time.process_time()
        del ctl, handle, model  # clingo frees the ground program here
        ph.release += time.process_time() - start
        return by_snapshot


def read_atoms(frame: Frame, atoms: list[Atom]) -> list[tuple[Any, ...]]:
    """Shown atoms with the snapshot's own ids and times, sorted (``vocabulary.OUTPUTS``)."""
    name, when = frame.names.name, frame.clock.time

    def value(kind: str, arg: object) -> object:
        if not isinstance(arg, int):
            return arg
        if kind in "poe":
            return name(arg) if arg else None
        return when(arg) if kind == "t" else arg

    out = []
    for pred, args in atoms:
        kinds = OUTPUTS[pred].kinds
        if pred == "because":  # the via's two arguments: kinds from its via kind
            kinds = kinds[:4] + "".join(VIA.get(str(args[3]), ("", "n", "n"))[1:])
        elif pred == "violation":
            code = str(args[1])
            kinds = "rc" + ("oo" if code != "claim_contradicts" else "on")
        out.append((pred, *(value(k, a) for k, a in zip(kinds, args, strict=True))))
    return sorted(out, key=repr)


__all__ = ["Engine", "Frame", "NoRuling", "Phases", "Ruling"]
