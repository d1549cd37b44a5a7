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

from . import catalog
from .facts import (
    KNOWN_TYPES,
    PLAIN_CLOCK,
    Clock,
    Names,
    default_now,
    snapshot_facts,
    snapshot_times,
)
from .ruling import VIA, Ruling, build_ruling
from .solve import Atom, NoRuling, Program, atoms_by_snapshot
from .vocabulary import OUTPUTS, field_at, object_refs

OUTPUT_KINDS = ("ruling", "atoms", "violations")


@dataclass
class Frame:
    """One snapshot's translation: its names, its clock and its fact text; or, when
    it is split into independent parts (``split``), one frame per part."""

    doc: dict[str, Any]
    version: catalog.Version
    names: Names
    clock: Clock
    facts: str  # with '#' where the batch number goes ('' when split into parts)
    parts: list[Frame] | None = None

    @classmethod
    def of(cls, doc: dict[str, Any], version: catalog.Version, fast: bool,
           may_split: bool = False, static_elsewhere: bool = False,
           types: frozenset[str] = KNOWN_TYPES) -> Frame:
        if fast and may_split and (pieces := split(doc)) is not None:
            return cls(doc, version, Names(), PLAIN_CLOCK, "", [
                cls.of(part, version, fast, static_elsewhere=other_static, types=types)
                for part, other_static in pieces])
        names = Names()
        clock = PLAIN_CLOCK
        if fast:
            times = snapshot_times(doc)
            times.add(doc["now"] if "now" in doc else max(times, default=-1) + 1)  # default_now
            if min(times) >= 0:
                clock = Clock.ranked(times)
        try:
            facts = snapshot_facts(doc, "#", version.const, names, clock, static_elsewhere, types)
        except KeyError:  # a time the ranking did not see: write the times as they are
            names, clock = Names(), PLAIN_CLOCK
            facts = snapshot_facts(doc, "#", version.const, names, clock, static_elsewhere, types)
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


def read_types(program: str) -> frozenset[str]:
    """The card types the program's text names (comments aside): a type no rule
    names cannot change a ruling, as no rule counts or shows types."""
    text = re.sub(r"%[^\n]*", "", program)
    return frozenset(t for t in KNOWN_TYPES if re.search(rf"\b{t}\b", text))


# --- Independent parts ---------------------------------------------------------------
# Which snapshot fields tie objects and effects together: every reference the
# encodings follow from one object or effect to another (vocabulary.OBJECT_REFS,
# docs/engine.md).
OBJECT_LINKS = object_refs("o")
EFFECT_LINKS = object_refs("e")
GLOBAL_FIELDS = ("players", "active_player", "turns", "options", "rules", "format")


def planar(obj: dict[str, Any]) -> bool:
    """A plane or phenomenon card, or a card of a planar deck (variants.lp planar_card)."""
    return obj.get("kind") == "card" and (
        (obj.get("start") or {}).get("zone") == "planar-deck"
        or bool({"plane", "phenomenon"} & set(obj.get("types", ()))))


def split(doc: dict[str, Any]) -> list[tuple[dict[str, Any], bool]] | None:
    """The snapshot's independent parts, each a snapshot of its own with every global
    field (players, leavers, turns, active player, now, options, rules), and whether
    another part has a static control effect; None when it is not split (one part,
    or a Planechase game, whose planar controller is global)."""
    objects = doc.get("objects", [])
    effects = doc.get("effects", [])
    if any(planar(obj) for obj in objects):
        return None
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        root = x
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(a: tuple[str, str], b: tuple[str, str]) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    for obj in objects:
        me = ("o", obj["id"])
        find(me)
        for path in OBJECT_LINKS:
            if path[0] in obj and (ref := field_at(obj, path)) is not None:
                union(me, ("o", ref))  # type: ignore[arg-type]
        for path in EFFECT_LINKS:
            if path[0] in obj and (ref := field_at(obj, path)) is not None:
                union(me, ("e", ref))  # type: ignore[arg-type]
        for ab in obj.get("abilities", ()):
            union(me, ("o", ab["id"]))
            if "granted_by" in ab:
                union(me, ("o", ab["granted_by"]))
    player_effects = []
    for eff in effects:
        # players.lp: no object changes controller, but every object of a controlled
        # player cites the effect (723.3): the effect is global, in every part.
        if eff["kind"] == "control-player":
            player_effects.append(eff)
            continue
        me = ("e", eff["id"])
        find(me)
        if "source" in eff:
            union(me, ("o", eff["source"]))
        for target in eff.get("objects", ()):
            union(me, ("o", target))
    groups: dict[tuple[str, str], tuple[list[Any], list[Any]]] = {}
    for obj in objects:
        groups.setdefault(find(("o", obj["id"])), ([], []))[0].append(obj)
    for eff in effects:
        if eff["kind"] == "control-player":
            for _, effs in groups.values():
                effs.append(eff)  # in every part, in the snapshot's order
        elif (root := find(("e", eff["id"]))) in groups:
            groups[root][1].append(eff)
        else:  # an effect that names no object of the snapshot: not split
            return None
    pieces = list(groups.items())
    if len(pieces) < 2:
        return None
    base = {k: doc[k] for k in GLOBAL_FIELDS if k in doc}
    base["now"] = doc["now"] if "now" in doc else default_now(doc)
    claims = doc.get("claims") or []
    static_in = {root for root, (_, effs) in pieces
                 if any(e["kind"] == "control" and e.get("origin") == "static" for e in effs)}
    out = []
    for root, (objs, effs) in pieces:
        part = dict(base, objects=objs, effects=effs)
        if claims:
            part["claims"] = [c if find(("o", c["object"])) == root else None for c in claims]
        out.append((part, bool(static_in - {root})))
    return out


@dataclass
class Phases:
    """Seconds spent per phase, summed over every batch judged (for benchmarks)."""

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
    cache_size: int = 20_000
    # Snapshots (or parts) per grounding: few, so that the snapshot numbers, and
    # with them the ground atoms clingo keeps for the life of the process, stay few.
    grounding_size: int = 128
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
    def frame(self, doc: dict[str, Any], version: catalog.Version,
              may_split: bool = True) -> Frame:
        start = time.perf_counter()
        fast = self.fast and not self.changes
        frame = Frame.of(doc, version, fast, may_split, types=self.types if fast else KNOWN_TYPES)
        self.phases.facts += time.perf_counter() - start
        return frame

    def judge(self, items: Sequence[tuple[dict[str, Any], catalog.Version]],
              output: str = "ruling") -> list[Any]:
        """Judge validated ``(document, version)`` pairs, in order (one grounding)."""
        if output not in OUTPUT_KINDS:
            raise ValueError(f"output must be one of {OUTPUT_KINDS}, not {output!r}")
        frames = [self.frame(doc, version, output != "atoms") for doc, version in items]
        return self.judge_frames(frames, output)

    def judge_frames(self, frames: Sequence[Frame], output: str = "ruling") -> list[Any]:
        flat = [p for f in frames for p in (f.parts or [f])]
        found = iter(self.atoms_of(flat))
        atoms = [[next(found) for _ in f.parts] if f.parts else next(found) for f in frames]
        start = time.perf_counter()
        if output == "atoms":
            if any(f.parts for f in frames):
                raise ValueError("atoms output needs frames that are not split")
            out: list[Any] = [read_atoms(f, a) for f, a in zip(frames, atoms, strict=True)]
        else:
            out = [merged_ruling(f, a) if f.parts else
                   build_ruling(f.doc, f.version.name, a, f.names, f.clock)
                   for f, a in zip(frames, atoms, strict=True)]
            if output == "violations":
                out = [r.violations for r in out]
        self.phases.ruling += time.perf_counter() - start
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
        keys = list(todo)
        for first in range(0, len(keys), self.grounding_size):
            chunk = keys[first:first + self.grounding_size]
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

    def solve(self, fact_texts: Sequence[str]) -> dict[int, list[Atom]]:
        """Ground and solve one batch: ``fact_texts[s]`` become snapshot ``s``."""
        ph = self.phases
        start = time.perf_counter()
        messages: list[str] = []
        ctl = clingo.Control(["--warn=none"], logger=lambda _c, text: messages.append(text))
        try:
            self._add_program(ctl)
            ctl.add("base", [], "\n".join(text.replace("(#", f"({s}")
                                          for s, text in enumerate(fact_texts)))
            ph.parse += time.perf_counter() - start
            start = time.perf_counter()
            ctl.ground([("base", [])])
        except RuntimeError:
            raise NoRuling("the program could not be grounded (a proposal file's error?): "
                           + " ".join(m.strip() for m in messages)) from None
        ph.ground += time.perf_counter() - start
        start = time.perf_counter()
        with ctl.solve(yield_=True) as handle:
            model = next(iter(handle), None)
            if model is None:
                raise NoRuling("the rules have no answer for this batch: a proposal file's "
                               "constraint rules out every ruling (use error/5 atoms instead)")
            symbols = model.symbols(shown=True)
            ph.solve += time.perf_counter() - start
            start = time.perf_counter()
            by_snapshot = atoms_by_snapshot(symbols)
        ph.read_back += time.perf_counter() - start
        start = time.perf_counter()
        del ctl, handle, model  # clingo frees the ground program here
        ph.release += time.perf_counter() - start
        return by_snapshot


def merged_ruling(frame: Frame, atoms: list[list[Atom]]) -> Ruling:
    """The ruling of a split snapshot: its parts' rulings side by side.

    Each part's history is expanded over every time point of the whole snapshot
    (the union of the parts' ``moment/2`` atoms); lists are put in the canonical
    order again (ruling.build_ruling).
    """
    assert frame.parts is not None
    moments: set[int] = set()
    for part, found in zip(frame.parts, atoms, strict=True):
        when = part.clock.time
        moments.update(when(a[0]) for pred, a in found if pred == "moment")
    over = sorted(moments)
    doc = frame.doc
    ruling = Ruling(id=doc.get("id"), rules=frame.version.name)
    pieces = [build_ruling(p.doc, frame.version.name, a, p.names, p.clock, over)
              for p, a in zip(frame.parts, atoms, strict=True)]
    objects: dict[str, Any] = {}
    abilities: dict[str, Any] = {}
    # Player control effects are in every part: their violations come from the first.
    global_ids = {e["id"] for e in doc.get("effects", []) if e["kind"] == "control-player"}
    for i, piece in enumerate(pieces):
        objects.update(piece.objects)
        abilities.update(piece.abilities)
        ruling.left_game.update(piece.left_game)
        ruling.controlled_players.update(piece.controlled_players)
        ruling.choices.extend(piece.choices)
        ruling.violations.extend(v for v in piece.violations
                                 if i == 0 or not (v.objects and set(v.objects) <= global_ids))
    order: dict[str, int] = {}
    for obj in doc.get("objects", []):
        order[obj["id"]] = len(order)
        ruling.objects[obj["id"]] = objects[obj["id"]]
        for ab in obj.get("abilities", ()):
            ruling.abilities[ab["id"]] = abilities[ab["id"]]
    ruling.left_game = {o: ruling.left_game[o] for o in sorted(
        ruling.left_game, key=lambda o: (order.get(o, 0), o))}
    ruling.choices.sort(key=lambda c: (order.get(c.object, len(order)), c.object, c.fact,
                                       c.chooser, c.rule))
    ruling.violations.sort(key=lambda v: (v.rule, v.code, v.objects, v.message))
    return ruling


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
