"""The engine: one object that loads a rule set once and judges snapshots through lenses.

``Engine(changes)`` holds the rules (every CR version's numbering and the
proposal texts ``changes``) and judges batches of validated snapshots with one
grounding per batch: ``Engine.judge(frames, lens)`` is the one place a judging
``clingo.Control`` is made.  Each snapshot is translated on its own (``Frame``):
its ids become small integers from 1 in the order the snapshot names them, and
on the fast path its timestamps become ranks (``facts.Clock``), so the facts of
a snapshot -- and hence its ruling -- do not depend on the batch it is in, and
clingo's symbol table (which is never freed) stays small.  Snapshots whose facts
have been judged before are answered from a bounded cache of the atoms the
program showed for them (the key is the lens's program and the whole fact text:
sound by construction).  ``fast=False`` turns both off (raw timestamps, no cache),
and the event points too: every object is derived at every time point
(``every_time_point.``: moments.lp, points.lp), the reference the fast path is tested against.

A ``Lens`` is what one judging shows and how it is read: extra encodings (e.g.
explain.lp), extra program text of its own (an invariant, causes' externals),
a ``#show`` file under ``encodings/show/`` and a reader.  The rule files show
nothing themselves, so no program text is ever edited.  The lenses of this
module: ``RULING`` (``ruling.Ruling``), ``ATOMS`` (the shown atoms with ids and
times read back) and ``VIOLATIONS``; explain, causes, replay and research views
define theirs next to their readers.  See docs/engine.md for the flow, the lens
table and the soundness argument.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

import clingo
from clingo import ast

from .. import catalog
from .facts import (
    KNOWN_TYPES,
    PLAIN_CLOCK,
    Clock,
    Names,
    snapshot_facts,
    snapshot_now,
    snapshot_times,
)
from .interrupts import ground
from .ruling import VIA, EngineFault, Ruling, build_ruling
from .slicing import Slicing, enabled
from .solve import RULING_SHOW, Atom, NoRuling, Program, atoms_by_snapshot, shown_texts
from .vocabulary import OUTPUTS


@dataclass
class Frame:
    """One snapshot's translation: its names, its clock, ``now`` and its fact text."""

    doc: dict[str, Any]
    version: catalog.Version
    names: Names
    clock: Clock
    facts: str  # with '#' where the batch number goes
    now: int = 0
    # The JSON path each fact (line of ``facts``) comes from, when asked for.
    provenance: tuple[str, ...] = ()

    @classmethod
    def of(cls, doc: dict[str, Any], version: catalog.Version, fast: bool,
           types: frozenset[str] = KNOWN_TYPES, names: Names | None = None,
           provenance: bool = False) -> Frame:
        """``names``: a numbering shared with other frames (research compares
        snapshots by their integers); by default the frame's own.  ``provenance``:
        record each fact's JSON path (``facts.snapshot_facts``)."""
        shared = names is not None
        names = names if names is not None else Names()
        clock = PLAIN_CLOCK
        now = snapshot_now(doc)
        if fast:
            times = snapshot_times(doc)
            times.add(now)
            if min(times) >= 0:
                clock = Clock.ranked(times)
        paths: list[str] | None = [] if provenance else None
        try:
            facts = snapshot_facts(doc, "#", version.const, names, clock, types, paths, now)
        except KeyError:  # a time the ranking did not see: write the times as they are
            names, clock = (names if shared else Names()), PLAIN_CLOCK
            paths = [] if provenance else None
            facts = snapshot_facts(doc, "#", version.const, names, clock, types, paths, now)
        return cls(doc, version, names, clock, facts, now, tuple(paths or ()))

    def item_paths(self) -> dict[tuple[str, str], str]:
        """The JSON path of every player, object, ability and effect, by (space, id),
        from the provenance of the fact that introduces it (``provenance=True``)."""
        found: dict[tuple[str, str], str] = {}
        for fact, path in zip(self.facts.splitlines(), self.provenance, strict=True):
            pred, _, args = fact.partition("(")
            if pred in INTRODUCES:
                space, k = INTRODUCES[pred]
                item = ITEM.match(path)
                if item is not None:
                    ident = self.names.names[int(args.split(",")[k])][1]
                    found.setdefault((space, ident), item.group(0))
        return found


# The facts that introduce a player, object, ability or effect (its space and the
# argument that holds it), and the item part of a fact's provenance.
INTRODUCES = {"player": ("p", 1), "obj": ("o", 1), "has_ability": ("o", 2), "effect": ("e", 1)}
ITEM = re.compile(r"\$\.(?:players|objects|effects)\[\d+\](?:\.abilities\[\d+\])?")


Reader = Callable[[Frame, list[Any]], Any]
Collect = Callable[[clingo.Control], dict[Any, list[Any]]]


@dataclass(frozen=True)
class Lens:
    """What one judging shows and how it is read (docs/engine.md, the lens table).

    ``show``: a file of ``encodings/show/``; ``files``: extra encodings (paths
    under ``encodings/``); ``text``: the lens's own program text (an invariant
    file, causes' externals: never a user string); ``read(frame, items)``: one
    frame's answer from its shown atoms (``Atom`` tuples, or ``clingo.Symbol``s
    when ``symbols``); ``raw``: the frames keep the snapshot's own times and
    every card type; ``provenance``: the frames record each fact's JSON path
    (``Frame.provenance``); ``together``: every frame in one grounding, frame ``i``
    numbered ``i`` (a lens comparing neighbours), each also given the atoms
    keyed by its version; ``collect``: solves the
    grounding itself (causes: many solves with externals) and gives the items
    by snapshot number.
    """

    name: str
    show: str
    read: Reader
    files: tuple[str, ...] = ()
    text: str = ""
    raw: bool = False
    provenance: bool = False
    symbols: bool = False
    together: bool = False
    collect: Collect | None = None

    @property
    def program_key(self) -> tuple[str, tuple[str, ...], str]:
        """Lenses with one key show the same atoms (they share the engine's cache)."""
        return (self.show, self.files, self.text)


@cache
def encoding_file(path: str) -> str:
    """An encoding file by its path under ``encodings/`` (``show/ruling.lp``)."""
    node = resources.files("mtgcontrol.encodings")
    for part in path.split("/"):
        node = node / part
    return node.read_text(encoding="utf-8")


def symbols_by_snapshot(symbols: Sequence[clingo.Symbol]) -> dict[int, list[clingo.Symbol]]:
    """A model's shown symbols grouped by their first argument (the snapshot number)."""
    by_snapshot: dict[int, list[clingo.Symbol]] = defaultdict(list)
    for sym in symbols:
        by_snapshot[sym.arguments[0].number].append(sym)
    return by_snapshot


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
    # Snapshots judged before, by their lens's program and whole fact text.
    cache_size: int = 1_000
    # Snapshots per grounding: few, so that the snapshot numbers, and
    # with them the ground atoms clingo keeps for the life of the process, stay few.
    grounding_size: int = 128
    # And a grounding's size bound: the sum over its snapshots of (facts)^2, the
    # measure its ground atoms grow with (objects x time points, at most): 128
    # snapshots of ~100 facts (20 objects), ~40 of 80 objects, a few of 200
    # (docs/engine.md, "Memory").
    grounding_weight: int = 4 * 128 * 100 ** 2
    # Ground only the statements that can fire on a grounding's facts (slicing.py).
    slicing: bool = field(default_factory=enabled)
    phases: Phases = field(default_factory=Phases)

    def __post_init__(self) -> None:
        self.changes = tuple(self.changes)
        versions = tuple(sorted(catalog.versions(), key=lambda v: v.name))
        self.program_text = Program(versions, self.changes).text() + (
            "" if self.fast else "\nevery_time_point.\n")
        self._cache: OrderedDict[tuple[Any, str], list[Any]] = OrderedDict()
        self._program: list[ast.AST] | None = None  # parsed once, on first use
        self._lenses: dict[tuple[str, tuple[str, ...], str], list[ast.AST]] = {}
        self._slicing: Slicing | None = None
        # The fast path writes only the card types some rule of the program names
        # (docs/engine.md); with proposals (which may read any type) every type.
        self.types = read_types(self.program_text) if not self.changes else KNOWN_TYPES

    def parsed_program(self) -> list[ast.AST]:
        """The rules' statements, parsed once (then handed to each grounding).  A
        ``#show`` a proposal file brings is left out: what is shown is the lens's."""
        if self._program is None:
            self._program = _parse(self.program_text, rules=True)
        return self._program

    def parsed_lens(self, lens: Lens) -> list[ast.AST]:
        """A lens's own statements (its files, text and show file), parsed once."""
        key = lens.program_key
        if key not in self._lenses:
            if len(self._lenses) > 32:  # per-call lenses (causes' externals) come and go
                self._lenses.clear()
            text = "\n".join([*(encoding_file(f) for f in lens.files), lens.text,
                               encoding_file(f"show/{lens.show}.lp")])
            self._lenses[key] = _parse(text)
        return self._lenses[key]

    def add_program(self, ctl: clingo.Control, lens: Lens, facts: str | None = None) -> None:
        """The rules and ``lens``'s statements into ``ctl`` (benchmarks count its
        atoms); given the grounding's fact text, only those that can fire on it."""
        with ast.ProgramBuilder(ctl) as builder:
            for statement in self.statements(lens, facts):
                builder.add(statement)

    def statements(self, lens: Lens, facts: str | None = None) -> list[ast.AST]:
        """The rules and ``lens``'s statements; with ``facts`` (and ``slicing``) the
        ones that can fire on them: the same answer (slicing.py, docs/engine.md)."""
        if facts is None or not self.slicing:
            return [*self.parsed_program(), *self.parsed_lens(lens)]
        return self.slicer().kept(lens.program_key, self.parsed_lens(lens), facts)

    def slicer(self) -> Slicing:
        """The rules read for slicing, once (a proposal's statements always kept)."""
        if self._slicing is None:
            keep = frozenset(map(str, _parse("\n".join(self.changes)))) if self.changes \
                else frozenset()
            self._slicing = Slicing(self.parsed_program(), keep)
        return self._slicing

    # --- judging -----------------------------------------------------------------
    def frame(self, doc: dict[str, Any], version: catalog.Version, raw: bool = False,
              names: Names | None = None, provenance: bool = False) -> Frame:
        """``doc``'s frame (``raw``: its own times and every card type, as a lens
        reading times or types needs; ``provenance``: each fact's JSON path)."""
        start = time.process_time()
        fast = self.fast and not self.changes and not raw
        frame = Frame.of(doc, version, fast, types=self.types if fast else KNOWN_TYPES,
                         names=names, provenance=provenance)
        self.phases.facts += time.process_time() - start
        return frame

    def judge(self, frames: Sequence[Frame | tuple[dict[str, Any], catalog.Version]],
              lens: Lens | str = "ruling", *, output: str | None = None) -> list[Any]:
        """Judge frames (or validated ``(document, version)`` pairs, framed here) in
        order through ``lens`` (a ``Lens``, or the name of one of this module's:
        ``ruling``, ``atoms``, ``violations``; ``output=`` is that name too)."""
        chosen = _lens(output if output is not None else lens)
        framed = [f if isinstance(f, Frame) else
                  self.frame(*f, raw=chosen.raw, provenance=chosen.provenance) for f in frames]
        found = self._together(framed, chosen) if chosen.together else \
            self.atoms_of(framed, chosen)
        start = time.process_time()
        out = [chosen.read(f, a) for f, a in zip(framed, found, strict=True)]
        self.phases.ruling += time.process_time() - start
        self.phases.snapshots += len(framed)
        return out

    def judge_each(self, frames: Sequence[Frame], lens: Lens | str = "ruling"
                   ) -> list[Any | EngineFault]:
        """`judge`, but a frame whose atoms show an engine fault gets its fault and the
        others their results (judged again one by one: a fault is rare, never on the
        common path)."""
        try:
            return self.judge(frames, lens)
        except EngineFault:
            out: list[Any | EngineFault] = []
            for frame in frames:
                try:
                    out.extend(self.judge([frame], lens))
                except EngineFault as fault:
                    out.append(fault)
            return out

    def _together(self, frames: Sequence[Frame], lens: Lens) -> list[list[Any]]:
        """One grounding, frame ``i`` numbered ``i`` (no cache, no merging); atoms
        whose first argument is a frame's version (not a snapshot number) are that
        frame's too (research's rule numbering, shown once per version)."""
        solved = self.solve([f.facts for f in frames], lens)
        return [solved.get(i, []) + solved.get(f.version.const, [])
                for i, f in enumerate(frames)]

    def atoms_of(self, frames: Sequence[Frame], lens: Lens | None = None) -> list[list[Any]]:
        """The shown atoms of each frame (cached or from one grounding)."""
        lens = lens or RULING
        found: list[list[Any] | None] = [None] * len(frames)
        todo: dict[str, list[int]] = {}
        use_cache = self.fast and self.cache_size > 0 and lens.collect is None
        program = lens.program_key
        self.phases.lookups += len(frames)
        for i, frame in enumerate(frames):
            if use_cache and (hit := self._cache.get((program, frame.facts))) is not None:
                self._cache.move_to_end((program, frame.facts))
                found[i] = hit
                self.phases.cache_hits += 1
            else:
                todo.setdefault(frame.facts, []).append(i)
        # Parts repeated within the batch are ground once: they count as hits too.
        self.phases.cache_hits += sum(len(at) - 1 for at in todo.values())
        for chunk in self.groundings(list(todo)):
            solved = self.solve(chunk, lens)
            for s, key in enumerate(chunk):
                result = solved.get(s, [])
                for i in todo[key]:
                    found[i] = result
                if use_cache:
                    self._cache[(program, key)] = result
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

    def solve(self, fact_texts: Sequence[str], lens: Lens | None = None) -> dict[Any, list[Any]]:
        """Ground and solve one batch through ``lens``: ``fact_texts[s]`` become
        snapshot ``s``.  The one judging ``clingo.Control`` of the package."""
        lens = lens or RULING
        ph = self.phases
        start = time.process_time()
        messages: list[str] = []
        ctl = clingo.Control(["--warn=none"], logger=lambda _c, text: messages.append(text))
        try:
            facts = "\n".join(text.replace("(#", f"({s}") for s, text in enumerate(fact_texts))
            self.add_program(ctl, lens, facts)
            ctl.add("base", [], facts)
            ph.parse += time.process_time() - start
            start = time.process_time()
            ground(ctl, [("base", [])])  # a signal is served at once (interrupts.py)
        except RuntimeError:
            raise NoRuling("the program could not be grounded (a proposal file's error?): "
                           + " ".join(m.strip() for m in messages)) from None
        ph.ground += time.process_time() - start
        start = time.process_time()
        if lens.collect is not None:
            by_snapshot = lens.collect(ctl)
            ph.solve += time.process_time() - start
            del ctl
            return by_snapshot
        with ctl.solve(yield_=True) as handle:
            model = next(iter(handle), None)
            if model is None:
                raise NoRuling("the rules have no answer for this batch: a proposal file's "
                               "constraint rules out every ruling (use error/5 atoms instead)")
            if lens.symbols:
                symbols = model.symbols(shown=True)
                ph.solve += time.process_time() - start
                start = time.process_time()
                by_snapshot = symbols_by_snapshot(symbols)
            else:
                ph.solve += time.process_time() - start
                start = time.process_time()
                by_snapshot = atoms_by_snapshot(shown_texts(model))
        ph.read_back += time.process_time() - start
        start = time.process_time()
        del ctl, handle, model  # clingo frees the ground program here
        ph.release += time.process_time() - start
        return by_snapshot


def _parse(text: str, rules: bool = False) -> list[ast.AST]:
    """Statements of program text; ``rules``: without ``#show`` statements."""
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append, logger=lambda _c, _t: None)
    if rules:
        shows = (ast.ASTType.ShowSignature, ast.ASTType.ShowTerm)
        statements = [s for s in statements if s.ast_type not in shows]
    return statements


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


def _read_ruling(frame: Frame, atoms: list[Atom]) -> Ruling:
    return build_ruling(frame.doc, frame.version.name, atoms, frame.names, frame.clock)


def _read_violations(frame: Frame, atoms: list[Atom]) -> Any:
    return _read_ruling(frame, atoms).violations


RULING = Lens("ruling", show=RULING_SHOW.removeprefix("show/"), read=_read_ruling)
ATOMS = replace(RULING, name="atoms", read=read_atoms)
VIOLATIONS = replace(RULING, name="violations", read=_read_violations)
LENSES = {lens.name: lens for lens in (RULING, ATOMS, VIOLATIONS)}
OUTPUT_KINDS = tuple(LENSES)


def _lens(lens: Lens | str) -> Lens:
    if isinstance(lens, Lens):
        return lens
    if lens not in LENSES:
        raise ValueError(f"output must be one of {OUTPUT_KINDS}, not {lens!r}")
    return LENSES[lens]


__all__ = ["ATOMS", "Engine", "Frame", "Lens", "NoRuling", "Phases", "RULING", "Ruling",
           "VIOLATIONS"]
