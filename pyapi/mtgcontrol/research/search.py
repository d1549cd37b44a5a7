"""Verification by search: one clingo program per question, the solver searches.

A search program is ``encodings/generator.lp`` (with ``exact=0``: every
snapshot of the fragment *up to* the bounds, as choice rules), the bridge
``encodings/search/bridge.lp`` that turns the generated snapshot into the rules'
input predicates for one slot per CR version judged, the rule encodings of those
versions, and a goal: the negation of an invariant (``verify``) or "some fact
differs between the two slots and is of no kind found yet" (``impact``).  An
unsatisfiable program is a proof within the bounds; a model is a witness.

Minimal witnesses: one grounding, solved under assumptions ``cap(k)`` for
k = 1, 2, ... (exactly k objects + effects), so the first witness found has the
fewest objects and effects; within that size, the fewest players (an
optimisation), then none leaving the game.  Python never enumerates snapshots.

``verify`` proves with several solver threads (clasp's splitting: each thread
searches its own part of the space) and takes each counterexample from a fresh
one-thread solve of its size, so what it prints does not depend on the number
of threads or on their timing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from importlib import resources
from pathlib import Path
from typing import Any

import clingo
from clingo import ast

from .. import catalog
from ..engine.api import engine_for
from ..engine.engine import Frame, Lens
from ..engine.facts import Names
from ..engine.interrupts import ground
from ..engine.solve import NoRuling, Program
from .gen import Bounds, generator_text, model_to_doc
from .space import bridge_text, name_of
from .impact import _explain_witnesses
from .reports import ImpactReport
from .views import Sides, compare, judge_one, judge_pairs, show_value
from .views import _rule_order as _rule_key

Progress = Callable[[str], None]

# Solver threads for verify's proofs: the machine's cores, at most 4 (each
# thread holds its own copy of the solver's state of a large program).
DEFAULT_THREADS = min(4, os.cpu_count() or 1)

# The size of a snapshot: objects + effects + details (generator.lp's n_size/1).
SIZE_CAPS = """
#external cap(K) : K = 1..no+ne+nd.
#external atleast(K) : K = 2..no+ne+nd.
:- cap(K), n_size(N), N > K.
:- atleast(K), n_size(N), N < K.
#minimize{ 1@1,P : pl(P) }.
#minimize{ 1@0 : g_left(_,_) }.
"""


def rules_text(versions: Sequence[catalog.Version], changes: Sequence[str] = ()) -> str:
    """The rule encodings of ``versions`` (and proposals) for a search program."""
    return Program(tuple(versions), tuple(changes)).text()


@cache
def search_file(name: str) -> str:
    return (resources.files("mtgcontrol.encodings") / "search" / name).read_text(
        encoding="utf-8")


# ---------------------------------------------------------------------------------
# Invariants


@dataclass(frozen=True)
class Invariant:
    """An ASP file deriving ``fail(S,What,X)`` when the invariant fails; ``cones``:
    the file says ``% locality: cone`` (verify searches it by rooted cones, which
    `verify --check-locality` checks is sound)."""

    name: str
    summary: str
    text: str

    @property
    def cones(self) -> bool:
        return any(line.strip() == "% locality: cone" for line in self.text.splitlines())


def _summary(text: str) -> str:
    first = text.splitlines()[0] if text.strip() else ""
    return first.lstrip("% ").strip().rstrip(".") if first.startswith("%") else ""


def builtin_invariants() -> list[Invariant]:
    root = resources.files("mtgcontrol.encodings") / "invariants"
    found = sorted((p for p in root.iterdir() if p.name.endswith(".lp")), key=lambda p: p.name)
    order = ("one-controller", "no-controller-elsewhere", "one-owner", "you-defined",
             "no-open-choice", "no-violation")
    out = []
    for path in found:
        text = path.read_text(encoding="utf-8")
        out.append(Invariant(path.name[:-3], _summary(text), text))
    return sorted(out, key=lambda i: (order.index(i.name) if i.name in order else 99, i.name))


def load_invariant(path: str | Path) -> Invariant:
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    return Invariant(path.stem, _summary(text) or path.stem, text)


# ---------------------------------------------------------------------------------
# One search program, solved bound by bound


@dataclass
class Found:
    """A witness: the generated snapshot and the atoms of the goal."""

    size: int
    doc: dict[str, object]
    atoms: list[clingo.Symbol]


class Stopped(Exception):
    """The time limit came while size ``proved`` + 1 was being searched."""

    def __init__(self, proved: int) -> None:
        super().__init__(proved)
        self.proved = proved


def _wait(handle: clingo.SolveHandle, deadline: float | None) -> bool:
    """Wait for a running solve until it is done (True) or ``deadline`` (False: the
    solve is cancelled), in slices, so that Python's signal handlers (Ctrl-C,
    SIGTERM) run meanwhile."""
    while True:
        left = 0.25 if deadline is None else min(0.25, deadline - time.perf_counter())
        if handle.wait(max(0.0, left)):
            return True
        if left <= 0:
            handle.cancel()
            return False


@dataclass(frozen=True)
class Searched:
    """How far a search for the smallest witness got: ``found`` its size (None: no
    witness of up to ``proved`` objects + effects); ``complete`` is False when the
    time limit stopped it while size ``proved`` + 1 was being searched."""

    found: int | None
    proved: int
    complete: bool


class Search:
    """One grounding of generator + bridge + rules + goal; solved with size caps.
    ``orderings``: one time ordering per class the rules cannot tell apart
    (generator.lp; `verify --check-orderings` checks it), else every ordering."""

    def __init__(self, bounds: Bounds, slots: Sequence[tuple[int, catalog.Version]],
                 goal: str, changes: Sequence[str] = (), show: str = "",
                 late: bool = False, fewest_players: bool = True,
                 options: Sequence[str] = (), threads: int = 1,
                 connected: bool = True, orderings: bool = True) -> None:
        self.bounds = bounds
        self.max_size = bounds.max_size
        self.messages: list[str] = []
        self.unit = "snapshots" if connected else "cones"
        # clasp's "trendy" configuration: 2.9x faster on the UNSAT proofs measured
        # (BENCHMARKS.md, verify one-controller at 3 / 3 / 2, size 4); it changes
        # how the solver searches, not what a model or a proof is.  With several
        # threads, each searches its own part of the space (--parallel-mode split):
        # 1.6x faster in wall time on 2 cores for the size-4 proof (BENCHMARKS.md).
        parallel = [f"--parallel-mode={threads},split"] if threads > 1 else []
        # An explicit --configuration in ``options`` (a benchmark's) replaces trendy.
        configuration = [] if any(o.startswith("--configuration") for o in options) \
            else ["--configuration=trendy"]
        self.ctl = clingo.Control(
            ["--warn=none", *configuration, *parallel,
             f"--opt-mode={'opt' if fewest_players else 'ignore'}",
             f"-c np={bounds.players}",
             f"-c no={bounds.objects}", f"-c ne={bounds.effects}",
             f"-c nd={bounds.details}", "-c exact=0",
             f"-c late={int(late)}", f"-c connected={int(connected)}",
             f"-c orderings={int(orderings)}", *options],
            logger=lambda _code, text: self.messages.append(text))
        versions = sorted({v for _, v in slots}, key=lambda v: v.name)
        slot_facts = "\n".join(f"slot({s},{v.const})." for s, v in slots)
        try:
            self.ctl.add("base", [], "\n".join((
                generator_text(), bridge_text(), rules_text(versions, changes),
                slot_facts, SIZE_CAPS, goal, show)))
            ground(self.ctl, [("base", [])])  # served by a signal at once
        except RuntimeError:
            raise NoRuling("the search program could not be grounded (an invariant or "
                           "proposal file's error?): "
                           + " ".join(m.strip() for m in self.messages)) from None
        self._parts = 0

    def add(self, text: str) -> None:
        """Add rules or constraints (e.g. a kind found) for the following solves."""
        self._parts += 1
        name = f"step{self._parts}"
        self.ctl.add(name, [], text)
        ground(self.ctl, [(name, [])])

    def _caps(self, size: int, exact: bool) -> None:
        for k in range(1, self.max_size + 1):
            self.ctl.assign_external(clingo.Function("cap", [clingo.Number(k)]), k == size)
            if k > 1:
                self.ctl.assign_external(clingo.Function("atleast", [clingo.Number(k)]),
                                         exact and k == size)

    def solve_at(self, size: int, exact: bool = False,
                 deadline: float | None = None) -> Found | None:
        """The best witness with at most ``size`` objects + effects (exactly ``size``
        if ``exact``: for a caller that has searched the smaller sizes), or None.
        `Stopped` if ``deadline`` (a ``time.perf_counter()`` value) comes first; the
        solver searches the same way with or without one."""
        self._caps(size, exact)
        best: list[clingo.Symbol] | None = None
        with self.ctl.solve(yield_=True, async_=True) as handle:
            while True:
                handle.resume()
                if not _wait(handle, deadline):
                    raise Stopped(size - 1)
                model = handle.model()
                if model is None:
                    break
                best = list(model.symbols(shown=True))
        if best is None:
            return None
        generated = [s for s in best if s.name.startswith("g_")]
        return Found(size, model_to_doc(generated), [s for s in best
                                                      if not s.name.startswith("g_")])

    def _sizes(self, start: int, progress: Progress | None, label: str) -> Iterable[int]:
        for size in range(max(1, start), self.max_size + 1):
            if progress is not None:
                progress(f"{label}searching {self.unit} with {size} object(s) + effect(s) "
                         f"(up to {self.bounds.players} players)")
            yield size

    def first(self, start: int = 1, progress: Progress | None = None,
              label: str = "", deadline: float | None = None) -> Found | None:
        """The smallest witness of size >= ``start`` (sizes below were searched, so
        each size is searched alone: exactly that many objects + effects).  `Stopped`
        if ``deadline`` comes first."""
        for size in self._sizes(start, progress, label):
            found = self.solve_at(size, exact=True, deadline=deadline)
            if found is not None:
                return found
        return None

    def smallest(self, progress: Progress | None = None, label: str = "",
                 deadline: float | None = None) -> Searched:
        """The fewest objects + effects of any witness (the first model of each size
        decides; none is read), or a proof that there is none; the search stops at
        ``deadline`` (a ``time.perf_counter()`` value) if it is given."""
        proved = 0
        for size in self._sizes(1, progress, label):
            self._caps(size, exact=True)
            with self.ctl.solve(async_=True) as handle:
                if not _wait(handle, deadline):
                    return Searched(None, proved, False)
                if handle.get().satisfiable:
                    return Searched(size, proved, True)
            proved = size
        return Searched(None, proved, True)


def bounds_text(bounds: Bounds) -> str:
    text = (f"≤ {bounds.players} players, ≤ {bounds.objects} objects, "
            f"≤ {bounds.effects} effects{bounds.details_text()}")
    if bounds.max_size != bounds.objects + bounds.effects + bounds.details:
        text += f", ≤ {bounds.max_size} in all"
    return text


# ---------------------------------------------------------------------------------
# Verify


VERIFY_SHOW = "#show fail/3.\n"


def cone_bounds_text(bounds: Bounds) -> str:
    players = "2 players" if bounds.players <= 2 else f"2 to {bounds.players} players"
    parts = "objects + effects + details" if bounds.details else "objects + effects"
    return (f"up to {bounds.max_size} {parts} (≤ {bounds.objects} "
            f"objects, ≤ {bounds.effects} effects{bounds.details_text()}; {players})")


@dataclass
class Verdict:
    """One invariant under one version: holds within the bounds, or a counterexample.
    ``mode``: how it was searched: ``cone`` (every snapshot that is one rooted cone;
    by the locality lemma that covers every snapshot whose cones are within the
    bounds), ``snapshot`` (every connected snapshot within the bounds) or
    ``locality`` (the check of the lemma itself for this invariant)."""

    version: str
    invariant: Invariant
    bounds: Bounds
    seconds: float
    counterexample: dict[str, object] | None = None
    size: int = 0
    failures: list[dict[str, str]] | None = None
    reproduced: bool | None = None
    # False when the time limit stopped the search: no counterexample of up to
    # ``proved`` objects + effects, the larger sizes not decided.
    complete: bool = True
    proved: int = 0
    mode: str = "snapshot"

    @property
    def holds(self) -> bool:
        return self.counterexample is None and self.complete

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "rules": self.version, "invariant": self.invariant.name,
            "summary": self.invariant.summary, "bounds": self.bounds.to_dict(),
            "searched": self.mode, "verdict": self.word(),
            "holds": self.holds if self.complete else None, "seconds": round(self.seconds, 2)}
        if not self.complete:
            out["proved_upto"] = self.proved
        elif not self.holds:
            out.update(size=self.size, failures=self.failures, counterexample=self.counterexample)
            if self.mode not in ("locality", "orderings"):
                out["reproduced"] = self.reproduced
        return out

    def word(self) -> str:
        """holds, fails or undecided."""
        return "holds" if self.holds else "undecided" if not self.complete else "fails"

    def scope(self, upto: int | None = None) -> str:
        """What a proof covers (up to ``upto`` objects + effects if given)."""
        bounds = self.bounds if upto is None else Bounds(
            self.bounds.players, min(self.bounds.objects, upto), min(self.bounds.effects, upto),
            min(self.bounds.details, upto), min(self.bounds.max_size, upto))
        if self.mode == "cone":
            text = cone_bounds_text(bounds)
            return f"every cone {text}, so every snapshot whose cones are within that"
        if self.mode in ("locality", "orderings"):
            what = f"up to {upto} objects + effects" if upto is not None else \
                bounds_text(self.bounds)
            if self.mode == "orderings":
                return (f"every snapshot with {what}, in every time ordering: its facts and "
                        "failures are those of its ordering's representative")
            return (f"every snapshot with {what}: each object and effect has the facts "
                    "of its cone alone, and fails the invariant only where its cone does")
        if upto is not None:
            return f"every snapshot of up to {upto} objects + effects ({bounds_text(bounds)})"
        return f"all snapshots with {bounds_text(self.bounds)}"

    def text(self) -> str:
        head = f"{self.version} {self.invariant.name}" + \
            (f" {self.mode}" if self.mode in ("locality", "orderings")
             else f" ({self.invariant.summary})")
        if self.holds:
            return f"{head}: holds for {self.scope()} ({self.seconds:.1f} s)"
        if not self.complete:
            proved = f"holds for {self.scope(self.proved)}" if self.proved else \
                "no size finished"
            return (f"{head}: undecided beyond size {self.proved} (time limit, "
                    f"{self.seconds:.1f} s): {proved}; size {self.proved + 1} not finished")
        fails = ", ".join(f"{f['what']} {f['object']}" for f in self.failures or ())
        if self.mode == "locality":
            return (f"{head}: fails: a snapshot of size {self.size} whose failures at its "
                    f"root differ from its cone's ({self.seconds:.1f} s): {fails}")
        if self.mode == "orderings":
            return (f"{head}: fails: a snapshot of size {self.size} whose facts or failures "
                    f"differ from its ordering's representative's ({self.seconds:.1f} s): "
                    f"{fails}")
        return (f"{head}: fails: counterexample of size {self.size} ({self.seconds:.1f} s): "
                f"{fails}{'' if self.reproduced else ' (NOT reproduced by adjudicate!)'}")


def _name_of(value: clingo.Symbol) -> str:
    """A search id as the counterexample document names it (bridge.lp's ranges)."""
    if value.type != clingo.SymbolType.Number:
        return str(value)
    return name_of(value.number)


def _failures(atoms: Iterable[clingo.Symbol]) -> list[dict[str, str]]:
    out = {(str(a.arguments[1]), _name_of(a.arguments[2]))
           for a in atoms if a.name == "fail" and len(a.arguments) == 3}
    return [{"what": w, "object": o} for w, o in sorted(out)]


def reproduce(doc: dict[str, object], version: catalog.Version, invariant: Invariant,
              changes: Sequence[str] = ()) -> list[dict[str, str]]:
    """The invariant's failures in ``doc`` judged as `adjudicate` judges it: through
    the engine, with the invariant's lens."""
    doc = {**doc, "id": doc.get("id", "counterexample")}
    lens = Lens("replay", show="invariant", text=invariant.text, raw=True, symbols=True,
                read=_replayed)
    return engine_for(tuple(changes), fast=False).judge([(doc, version)], lens)[0]


def _replayed(frame: Frame, atoms: list[clingo.Symbol]) -> list[dict[str, str]]:
    names = frame.names
    found: set[tuple[str, str]] = set()
    for a in atoms:
        x = a.arguments[2]
        name = names.name(x.number) if x.type == clingo.SymbolType.Number and \
            0 < x.number < len(names.names) else "-"
        found.add((str(a.arguments[1]), name))
    return [{"what": w, "object": o} for w, o in sorted(found)]


class _Tagged(ast.Transformer):
    """fail(S,What,X) -> ifail(I,S,What,X): invariant I's failures, apart from the others'."""

    def __init__(self, index: int) -> None:
        self.index = index

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        term = node.symbol
        if term.ast_type == ast.ASTType.Function and term.name == "fail" and \
                len(term.arguments) == 3:
            tag = ast.SymbolicTerm(term.location, clingo.Number(self.index))
            return node.update(symbol=ast.Function(term.location, "ifail",
                                                   [tag, *term.arguments], 0))
        return node


# The goal of a search by cones: a failure at the root of a snapshot that is one
# cone (search/cone.lp).
CONE_GOAL = """
ifail_root(I) :- ifail(I,_,_,X), root_id(X).
:- goal(I), not ifail_root(I).
:- node(N), not cone(N).
"""

MODES = ("snapshot", "cone", "locality", "orderings")


def invariant_search(bounds: Bounds, version: catalog.Version,
                     invariants: Sequence[Invariant], mode: str,
                     changes: Sequence[str] = (), threads: int = 1,
                     fewest_players: bool = True, options: Sequence[str] = (),
                     orderings: bool = True) -> Search:
    """The search program for ``invariants`` under one version: ``snapshot`` (a
    connected snapshot that fails), ``cone`` (a snapshot that is one rooted cone and
    fails at its root), ``locality`` (a snapshot whose failures at a root differ
    from those of the root's cone alone: two slots) or ``orderings`` (a snapshot of
    every time ordering, also those objects enter after a player left, whose facts
    or failures differ from those of its ordering's representative: two slots).
    The first two search representatives of the time orderings only (every ordering
    with ``orderings`` False: a benchmark's baseline)."""
    two = mode in ("locality", "orderings")
    slots = [(0, version), (1, version)] if two else [(0, version)]
    goal = tagged(invariants, whole=mode == "snapshot")
    if mode == "orderings":
        goal += "\n" + search_file("orderings.lp")
    elif mode != "snapshot":
        goal += "\n" + search_file("cone.lp") + (CONE_GOAL if mode == "cone" else
                                                  search_file("locality.lp"))
    search = Search(bounds, slots, goal, changes, fewest_players=fewest_players,
                    options=options, threads=threads, connected=mode == "snapshot",
                    orderings=orderings and not two, late=mode == "orderings")
    if mode == "locality":
        search.unit = "snapshots (any, with a root's cone)"
    elif mode == "orderings":
        search.unit = "snapshots (every time ordering)"
    return search


def tagged(invariants: Sequence[Invariant], whole: bool = True) -> str:
    """The invariant files as one text, each file's fail/3 tagged with its index (clingo's
    AST, not text substitution), plus (``whole``) the goal: a failure of the invariant
    whose external goal(I) is true."""
    out: list[str] = []

    def add(index: int, stm: ast.AST) -> None:
        out.append(str(_Tagged(index)(stm)))

    for i, inv in enumerate(invariants):
        try:
            ast.parse_string(inv.text, partial(add, i))
        except RuntimeError:
            raise NoRuling(f"the invariant file {inv.name} is not a valid ASP program") from None
    out.append(f"#external goal(I) : I = 0..{len(invariants) - 1}.")
    if whole:
        out.append("ifail_any(I) :- ifail(I,_,_,_).")
        out.append(":- goal(I), not ifail_any(I).")
    out.append("#show ifail(I,S,W,X) : ifail(I,S,W,X), goal(I).")
    return "\n".join(out)


def counterexample(bounds: Bounds, version: catalog.Version, invariant: Invariant,
                   size: int, changes: Sequence[str] = (), mode: str = "snapshot") -> Found:
    """The counterexample of exactly ``size`` objects + effects (a size the proof found
    one at): the best model of a fresh one-thread search for this invariant alone, so
    that it does not depend on what the proof's threads learnt or in which order."""
    search = invariant_search(bounds, version, [invariant], mode, changes)
    search.ctl.assign_external(clingo.Function("goal", [clingo.Number(0)]), True)
    found = search.solve_at(size, exact=True)
    if found is None:
        raise RuntimeError(f"verify: no counterexample of size {size} to {invariant.name} "
                           "in a fresh search (the proof found one)")
    return found


def _mode_groups(invariants: Sequence[Invariant], locality: bool, orderings: bool = False
                 ) -> list[tuple[str, list[int]]]:
    """Which invariants are searched how: by cones (those that say so), over whole
    snapshots (the others); or, for the locality or orderings check, every one given."""
    if locality or orderings:
        return [("locality" if locality else "orderings", list(range(len(invariants))))]
    cones = [i for i, inv in enumerate(invariants) if inv.cones]
    whole = [i for i, inv in enumerate(invariants) if not inv.cones]
    return [(mode, group) for mode, group in (("cone", cones), ("snapshot", whole)) if group]


def _locality_failures(atoms: Sequence[clingo.Symbol]) -> list[dict[str, str]]:
    root = next((_name_of(_node_number(a.arguments[0])) for a in atoms if a.name == "root"),
                "-")
    out = {(f"fact {a.arguments[0]} differs", root) for a in atoms
           if a.name == "fact_differs"}
    out |= {(f"failure {a.arguments[1]} differs", root) for a in atoms
            if a.name == "fail_differs"}
    out |= {(f"failure {a.arguments[1]} at no object or effect", "-") for a in atoms
            if a.name == "fail_nonlocal"}
    return [{"what": w, "object": o} for w, o in sorted(out)]


def _ordering_failures(atoms: Sequence[clingo.Symbol]) -> list[dict[str, str]]:
    """What differs between a snapshot and its ordering's representative."""
    out = {(f"fact {a.arguments[1]} differs", _name_of(a.arguments[0])) for a in atoms
           if a.name == "order_differs"}
    out |= {(f"failure {a.arguments[1]} differs", _name_of(a.arguments[2])) for a in atoms
            if a.name == "order_fail_differs"}
    return [{"what": w, "object": o} for w, o in sorted(out)]


def _node_number(node: clingo.Symbol) -> clingo.Symbol:
    """o(O) / e(E) as bridge.lp numbers them."""
    base = 10 if node.name == "o" else 20
    return clingo.Number(base + node.arguments[0].number)


def verify_version(bounds: Bounds, version: catalog.Version, invariants: Sequence[Invariant],
                   changes: Sequence[str] = (), progress: Progress | None = None,
                   threads: int = DEFAULT_THREADS, limit: float | None = None,
                   locality: bool = False, orderings: bool = False) -> list[Verdict]:
    """Every invariant under one version: one grounding per way of searching (by
    cones, over whole snapshots; or the locality check), one search per invariant
    (with ``threads`` solver threads, stopped after ``limit`` seconds if given: the
    verdict is then undecided beyond the sizes proved), then each counterexample."""
    verdicts: dict[int, Verdict] = {}
    for mode, group in _mode_groups(invariants, locality, orderings):
        start = time.perf_counter()
        chosen = [invariants[i] for i in group]
        search = invariant_search(bounds, version, chosen, mode, changes,
                                  fewest_players=False, threads=threads)
        grounded = time.perf_counter() - start
        for n, invariant in enumerate(chosen):
            step = time.perf_counter()
            for j in range(len(chosen)):
                search.ctl.assign_external(clingo.Function("goal", [clingo.Number(j)]), n == j)
            check = f" {mode}" if mode in ("locality", "orderings") else ""
            searched = search.smallest(progress, f"{version.name} {invariant.name}{check}: ",
                                       None if limit is None else step + limit)
            verdict = Verdict(version.name, invariant, bounds, 0.0, complete=searched.complete,
                              proved=searched.proved, mode=mode)
            if searched.found is not None:
                found = counterexample(bounds, version, invariant, searched.found, changes,
                                       mode)
                doc = {"id": "counterexample", "rules": version.name, **found.doc}
                verdict.counterexample = doc
                verdict.size = found.size
                if mode == "locality":
                    verdict.failures = _locality_failures(found.atoms)
                elif mode == "orderings":
                    verdict.failures = _ordering_failures(found.atoms)
                else:
                    verdict.failures = _failures(
                        clingo.Function("fail", a.arguments[1:]) for a in found.atoms
                        if a.name == "ifail")
                    verdict.reproduced = reproduce(doc, version, invariant, changes) == \
                        verdict.failures
            verdict.seconds = time.perf_counter() - step + (grounded if n == 0 else 0.0)
            verdicts[group[n]] = verdict
    return [verdicts[i] for i in range(len(invariants))]


def verify_one(bounds: Bounds, version: catalog.Version, invariant: Invariant,
               changes: Sequence[str] = (), progress: Progress | None = None,
               threads: int = DEFAULT_THREADS, limit: float | None = None) -> Verdict:
    return verify_version(bounds, version, [invariant], changes, progress, threads, limit)[0]


def verify_all(bounds: Bounds, versions: Sequence[catalog.Version],
               invariants: Sequence[Invariant], changes: Sequence[str] = (),
               progress: Progress | None = None, threads: int = DEFAULT_THREADS,
               limit: float | None = None, locality: bool = False,
               orderings: bool = False) -> list[Verdict]:
    return [v for version in versions
            for v in verify_version(bounds, version, invariants, changes, progress, threads,
                                    limit, locality, orderings)]


# ---------------------------------------------------------------------------------
# Impact: every kind of difference, one minimal witness each


@dataclass(frozen=True)
class FoundKind:
    """A kind as the search program sees it: a fact label, whether the value differs
    (else only the cited groups), and the groups cited on each side."""

    label: str
    meaning: bool
    from_groups: frozenset[str]
    to_groups: frozenset[str]

    def exclusion(self, i: int) -> str:
        """Constraints ruling this kind out for ``pick/1`` (search/differ.lp)."""
        facts = [f"xa({i},{g})." for g in sorted(self.from_groups)]
        facts += [f"xb({i},{g})." for g in sorted(self.to_groups)]
        value = "vdiff(K)" if self.meaning else "not vdiff(K)"
        return "\n".join(facts + [
            "#defined xa/2. #defined xb/2.",
            f"xmis({i},K) :- pick(K), kg(0,K,G), not xa({i},G).",
            f"xmis({i},K) :- pick(K), xa({i},G), not kg(0,K,G).",
            f"xmis({i},K) :- pick(K), kg(1,K,G), not xb({i},G).",
            f"xmis({i},K) :- pick(K), xb({i},G), not kg(1,K,G).",
            f":- pick(K), label(K,{self.label}), {value}, not xmis({i},K)."])


def model_kinds(atoms: Iterable[clingo.Symbol]) -> set[FoundKind]:
    """Every kind of difference a witness model shows (its dk/1 keys)."""
    labels: dict[str, str] = {}
    meaning: set[str] = set()
    groups: dict[tuple[int, str], set[str]] = {}
    keys: set[str] = set()
    for a in atoms:
        if a.name == "dk":
            keys.add(str(a.arguments[0]))
        elif a.name == "label":
            labels[str(a.arguments[0])] = str(a.arguments[1])
        elif a.name == "vdiff":
            meaning.add(str(a.arguments[0]))
        elif a.name == "kg":
            groups.setdefault((a.arguments[0].number, str(a.arguments[1])), set()).add(
                str(a.arguments[2]))
    return {FoundKind(labels[k], k in meaning, frozenset(groups.get((0, k), ())),
                      frozenset(groups.get((1, k), ()))) for k in keys}


# impact by cones: the generated snapshot is the cone of its root, and the
# difference picked is about the root (a violation about no object or effect, e.g.
# a player, in any cone).
IMPACT_CONE_GOAL = """
:- node(N), not cone(N).
root_key(k(F,O)) :- dk(k(F,O)), root_id(O).
root_key(k(choice,O,F)) :- dk(k(choice,O,F)), root_id(O).
root_key(k(violation,C,X,Y)) :- dk(k(violation,C,X,Y)), root_id(X).
root_key(k(violation,C,X,Y)) :- dk(k(violation,C,X,Y)), not node_id(X).
:- pick(K), not root_key(K).
"""


def impact_search(bounds: Bounds, v1: catalog.Version, v2: catalog.Version,
                  progress: Progress | None = None, limit: float | None = None,
                  cones: bool = True) -> ImpactReport:
    """Every kind of difference between ``v1`` and ``v2`` within ``bounds``, each with
    a minimal witness: both versions in one program, the goal "some fact differs
    and is of no kind found yet"; after each witness its kinds are excluded.  With
    ``limit`` (seconds after grounding) the search stops there: the report has the
    kinds found so far and says up to which size the search was exhaustive.  With
    ``cones`` (the default) the snapshots searched are rooted cones (search/cone.lp) and
    the difference picked is about the root: a kind is a difference in one part's cone."""
    report = ImpactReport(v1.name, v2.name, False, "exhaustive", bounds=bounds.to_dict(),
                          searched="cone" if cones else "snapshot")
    start = time.perf_counter()
    # Witnesses with the fewest objects and effects; the number of players is not
    # minimised (an optimality proof per witness costs more than it tells).
    goal = search_file("differ.lp")
    if cones:
        goal += "\n" + search_file("cone.lp") + IMPACT_CONE_GOAL
    search = Search(bounds, [(0, v1), (1, v2)], goal, late=True, fewest_players=False,
                    connected=not cones)
    excluded: set[FoundKind] = set()
    witnesses: list[Found] = []
    size = 1
    deadline = None if limit is None else time.perf_counter() + limit
    while True:
        step = time.perf_counter()
        try:
            found = search.first(size, progress, f"impact {v1.name} -> {v2.name}, "
                                                 f"{len(excluded)} kind(s) found: ", deadline)
        except Stopped as stop:
            report.exhausted_upto = stop.proved
            break
        if found is None:
            break
        size = found.size
        new = model_kinds(found.atoms) - excluded
        if not new:
            raise RuntimeError("impact search: a witness showed no new kind (search/differ.lp "
                               "and the exclusion disagree)")
        for kind in sorted(new, key=str):
            search.add(kind.exclusion(len(excluded)))
            excluded.add(kind)
        witnesses.append(found)
        report.per_size.append({"size": found.size, "new_kinds": len(new),
                                "seconds": round(time.perf_counter() - step, 2)})
    sides = Sides.of(v1, v2)
    docs = [w.doc for w in witnesses]
    pairs, names = judge_pairs(docs, v1, v2) if docs else ([], Names())
    compared = [compare(a, b, sides) for a, b in pairs]
    attribute(docs, [d for d, _ in compared], pairs, v1, v2, sides)
    for n, (w, (diffs, renumbered)) in enumerate(zip(witnesses, compared, strict=True), 1):
        if not diffs:
            report.errors.append({"id": "witness", "line": n, "error": [
                {"path": "$", "expected": "a difference (the search and the engine disagree)"}]})
        report.record(diffs, renumbered, n, names)
        for diff in diffs:
            entry = report.kinds[(diff.kind, diff.category)]
            if entry.witness is None:
                entry.witness = {"size": w.size, "object": diff.subject(names),
                                 "snapshot": w.doc,
                                 "from": show_value(diff.key, diff.before, names),
                                 "to": show_value(diff.key, diff.after, names),
                                 "cause": [list(diff.cause[0]), list(diff.cause[1])]}
        report.judged += 1
    _explain_witnesses(report, v1, v2, ())
    report.seconds = time.perf_counter() - start
    return report


def summary_line(verdicts: Sequence[Verdict]) -> str:
    """The last line: holds, fails (a counterexample) or undecided beyond size N."""
    failed = [v for v in verdicts if v.complete and not v.holds]
    undecided = [v for v in verdicts if not v.complete]
    held = len(verdicts) - len(failed) - len(undecided)
    counts = f"{held} of {len(verdicts)} hold"
    if undecided:
        counts += f", {len(undecided)} undecided (time limit)"
    if failed:
        names = ", ".join(f"{v.invariant.name} {v.version}" for v in failed)
        what = {"locality": "the locality lemma refuted for",
                "orderings": "the orderings lemma refuted for"}.get(failed[0].mode,
                                                                  "counterexample to")
        return f"fails: {what} {names} ({counts})"
    if undecided:
        return (f"undecided beyond size {min(v.proved for v in undecided)} "
                f"({counts})")
    return f"holds: {counts} within the bounds"


def verdicts_text(verdicts: Sequence[Verdict], table: bool = False) -> str:
    """Readable verdicts: one line each (or a version x invariant table), then every
    counterexample as a snapshot document that `mtgcontrol adjudicate` reads."""
    out: list[str] = []
    if table and verdicts:
        names = list(dict.fromkeys(v.invariant.name for v in verdicts))
        versions = list(dict.fromkeys(v.version for v in verdicts))
        cell = {(v.version, v.invariant.name): v for v in verdicts}
        width = max(len(n) for n in names) + 2
        out.append(f"bounds: {bounds_text(verdicts[0].bounds)}; invariants marked "
                   "'locality: cone' are searched by cones (every cone within these bounds)")
        out.append("invariant".ljust(width) + "".join(f"{v:<24}" for v in versions))
        for n in names:
            row = n.ljust(width)
            for version in versions:
                v = cell.get((version, n))
                text = "" if v is None else (
                    f"holds {v.seconds:.1f} s" if v.holds else
                    f"undecided > {v.proved} {v.seconds:.1f} s" if not v.complete else
                    f"fails, size {v.size} {v.seconds:.1f} s")
                row += f"{text:<24}"
            out.append(row)
        out.append("")
    else:
        out.extend(v.text() for v in verdicts)
    for v in verdicts:
        if v.counterexample is not None:
            out.append("")
            what = {"locality": "a snapshot refuting the locality of",
                    "orderings": "a snapshot refuting the orderings lemma for"}.get(
                        v.mode, "counterexample to")
            out.append(f"{what} {v.invariant.name} under {v.version} "
                       f"(size {v.size}: fewest objects + effects, then players, then leavers): "
                       + ", ".join(f"{f['what']} {f['object']}" for f in v.failures or ()))
            out.append(json.dumps(v.counterexample, ensure_ascii=False))
    out.append("")
    out.append(summary_line(verdicts))
    return "\n".join(out)


def attribute(docs: Sequence[dict[str, object]], diffs: Sequence[list[Any]],
              pairs: Sequence[tuple[Any, Any]], v1: catalog.Version, v2: catalog.Version,
              sides: Any) -> None:
    """File each difference under the rule groups whose meaning decides it.

    Counterfactually: a group in force on one side only is a cause of a
    difference if switching it off on that side (``off(G)``, as a proposal
    would) changes the fact there -- its value, or for a citation-only
    difference the groups cited.  This finds rules the ruling does not cite
    (e.g. a new timestamp rule that only moves an effect in timestamp order).
    Where no one-sided group changes the fact, the cause found from citations
    (``Sides.cause``) stays.
    """
    if not docs:
        return
    named: dict[int, tuple[set[str], set[str]]] = {}
    for index, (version, groups) in enumerate(((v1, sides.only_from), (v2, sides.only_to))):
        for group in sorted(groups):
            changed, _ = judge_one(docs, version, (f'off("{group}").',))
            for i, found in enumerate(diffs):
                view, other = pairs[i][index], pairs[i][1 - index]
                for diff in found:
                    before = view.facts.get(diff.key, (None, frozenset()))
                    after = changed[i].facts.get(diff.key, (None, frozenset()))
                    if before[0] != after[0] if diff.category == "meaning" else before != after:
                        number = view.number(group)
                        clash = "@" in group and number in other.cite.values()
                        named.setdefault(id(diff), (set(), set()))[index].add(
                            group if clash else number)
    for found in diffs:
        for diff in found:
            if id(diff) in named:
                left, right = named[id(diff)]
                diff.cause = (tuple(sorted(left, key=_rule_key)),
                              tuple(sorted(right, key=_rule_key)))
