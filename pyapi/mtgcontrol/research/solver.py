"""The solver of research's searches: one clingo program, grounded once, solved under
assumptions.

A search program is ``encodings/generator.lp`` (``exact=0``: every snapshot of the
fragment *up to* the bounds, as choice rules), the bridge
``encodings/search/bridge.lp`` that turns the generated snapshot into the rules'
input predicates for one slot per CR version judged, the rule encodings of those
versions (and proposals, guarded to their slots), and a goal.  An unsatisfiable
program is a proof within the bounds; a model is a witness.  Python never
enumerates snapshots.

`SearchProgram` says what to ground (it is sent to worker processes, which ground it
once and keep it); `Search` is the grounding, solved for exactly ``k`` objects +
effects (the externals ``cap(k)`` and ``atleast(k)``) under a cube of further
assumptions, stopped when its CPU budget is spent or when it is cancelled.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources

import clingo

from .. import catalog
from ..engine.interrupts import ground
from ..engine.proposals import guard_changes
from ..engine.solve import NoRuling, Program
from .gen import Bounds, generator_text, model_to_doc
from .space import bridge_text

Progress = Callable[[str], None]
StopWhen = Callable[[], bool]

SLICE = 0.1
"""Seconds between two looks at the clock (and at signals) while the solver runs."""



@cache
def search_file(name: str) -> str:
    return (resources.files("mtgcontrol.encodings") / "search" / name).read_text(
        encoding="utf-8")


def switch_off_text(groups: Iterable[str]) -> str:
    """A proposal switching off each of ``groups`` whose external ``xoff(G)`` is true
    (search/switch-off.lp), with one external per group."""
    externals = "".join(f"#external {switch_off_external(g)}.\n" for g in groups)
    return externals + search_file("switch-off.lp")


def switch_off_external(group: str) -> clingo.Symbol:
    return clingo.Function("xoff", [clingo.String(group)])


def rules_text(versions: Sequence[catalog.Version], changes: Sequence[str] = ()) -> str:
    """The rule encodings of ``versions`` (and proposals) for a search program."""
    return Program(tuple(versions), tuple(changes)).text()


@cache
def effect_kinds(generator: str) -> tuple[str, ...]:
    """The generator's effect kinds (its ``effkind(K,I)`` facts), in its canonical order."""
    ctl = clingo.Control(["--warn=none", "-c np=2", "-c no=1", "-c ne=1", "-c exact=0"])
    ctl.add("base", [], generator)
    ctl.ground([("base", [])])
    found = sorted((a.symbol.arguments[1].number, str(a.symbol.arguments[0]))
                   for a in ctl.symbolic_atoms.by_signature("effkind", 2))
    return tuple(name for _, name in found)


def cells(bounds: Bounds, size: int) -> list[tuple[int, int]]:
    """(objects, effects) of snapshots of exactly ``size`` within ``bounds`` (at least
    one object; the rest of the size is details, at most ``bounds.details``)."""
    if size > bounds.max_size:
        return []
    return [(o, e) for o in range(1, bounds.objects + 1) for e in range(bounds.effects + 1)
            if 0 <= size - o - e <= bounds.details]


def cell_bounds(bounds: Bounds, objects: int, effects: int, details: int) -> Bounds:
    """The bounds a cell's program is grounded with: its objects and effects (the cube
    makes them exact) and its details (the size makes them exact): the time domain
    and the choices of details are those of the cell alone.  What the generator makes
    only when details are searched at all follows ``bounds.details``
    (`SearchProgram.search_details`)."""
    return Bounds(bounds.players, objects, effects, details, objects + effects + details)


Cube = tuple[tuple[str, bool], ...]
"""Assumptions, each an atom's text and its value."""


def cubes(generator: str, effects: int, most: int, objects: int = 1) -> list[Cube]:
    """The snapshots with exactly ``objects`` objects and ``effects`` effects (of at most
    ``most``), one cube per kind of each effect: ``ob(objects)`` (objects are a prefix),
    ``ef(E)`` for E <= effects and not beyond, ``etype(E,K)``.  Every such snapshot is
    in exactly one (each effect has one kind), so together they are the cell; a tuple
    the generator's canonical order rules out is refuted at once."""
    count = ((f"ob({objects})", True),) + tuple(
        (f"ef({e})", e <= effects) for e in range(1, most + 1))
    return [count + tuple((f"etype({e},{k})", True) for e, k in enumerate(combo, 1))
            for combo in itertools.product(effect_kinds(generator), repeat=effects)]


def cpu_seconds() -> float:
    """CPU seconds of this process so far, every thread (clingo's solver threads too)."""
    return time.process_time()


@dataclass(frozen=True)
class SearchProgram:
    """What a search grounds: the generator at ``bounds``, the bridge, the rules of the
    slots' versions, ``changes`` (proposal texts; with ``changed_slots`` they apply to
    those slots only, research/proposals.py) and ``goal``.  ``generator`` is the
    generator's text (empty: generator.lp), so a variant made by the caller (a
    benchmark's, a test's planted bug) is the one grounded in a worker process too."""

    bounds: Bounds
    slots: tuple[tuple[int, str], ...]
    goal: str
    changes: tuple[str, ...] = ()
    changed_slots: tuple[int, ...] | None = None
    late: bool = False
    connected: bool = True
    orderings: bool = True
    fewest_players: bool = True
    options: tuple[str, ...] = ()
    threads: int = 1
    generator: str = ""
    search_details: int | None = None
    """The details bound of the whole search when ``bounds`` are one cell's."""

    @property
    def unit(self) -> str:
        """What one model is, as progress lines name it: a whole snapshot or a cone."""
        return "snapshots" if self.connected else "cones"

    @cached_property
    def key(self) -> str:
        """Equal programs have equal keys (a worker keeps one grounding per key)."""
        return hashlib.sha256(repr(self).encode("utf-8")).hexdigest()[:24]

    def constants(self) -> list[str]:
        """The generator's constants for these bounds and switches (clingo options)."""
        bounds = self.bounds
        return [f"-c np={bounds.players}", f"-c no={bounds.objects}",
                f"-c ne={bounds.effects}", f"-c nd={bounds.details}", "-c exact=0",
                f"-c late={int(self.late)}", f"-c connected={int(self.connected)}",
                f"-c orderings={int(self.orderings)}",
                *([] if self.search_details is None
                  else [f"-c search_details={self.search_details}"])]

    def text(self) -> str:
        versions = sorted({catalog.resolve(v) for _, v in self.slots}, key=lambda v: v.name)
        slot_facts = "\n".join(f"slot({s},{catalog.resolve(v).const})." for s, v in self.slots)
        if self.changed_slots is None:
            rules, changes = rules_text(versions, self.changes), ""
        else:
            rules = rules_text(versions)
            changes = guard_changes(self.changes, self.changed_slots)
        return "\n".join((self.generator or generator_text(), bridge_text(), rules,
                          changes, slot_facts, search_file("sizes.lp"), self.goal))

    def ground(self) -> Search:
        return Search(self)


@dataclass
class Found:
    """A witness: its size, the generated snapshot and the atoms of the goal."""

    size: int
    doc: dict[str, object]
    atoms: list[clingo.Symbol]


@dataclass
class Solved:
    """One solve: ``sat`` True (a model), False (none: a proof), None (stopped);
    ``found`` the best model when one was asked for; CPU and wall seconds."""

    sat: bool | None
    cpu: float = 0.0
    wall: float = 0.0
    conflicts: int = 0
    found: Found | None = None
    failing: tuple[int, ...] = ()
    """Of the goals searched together (`Search.solve_goals`), those with a witness."""


class Stopped(Exception):
    """The search stopped (time limit, cancelled) while size ``proved`` + 1 was being
    searched."""

    def __init__(self, proved: int) -> None:
        super().__init__(proved)
        self.proved = proved


@dataclass
class Budget:
    """When a search must stop: after ``cpu`` seconds of this process's CPU from now
    (None: no limit), or as soon as ``cancelled()`` says so."""

    cpu: float | None = None
    cancelled: StopWhen = field(default=lambda: False)
    start: float = field(default_factory=cpu_seconds)

    def spent(self) -> float:
        return cpu_seconds() - self.start

    def over(self) -> bool:
        return (self.cpu is not None and self.spent() >= self.cpu) or self.cancelled()


def _wait(handle: clingo.SolveHandle, budget: Budget | None) -> bool:
    """Wait for a running solve until it is done (True) or the budget says stop (False:
    the solve is cancelled), in slices, so that Python's signal handlers (Ctrl-C,
    SIGTERM) run meanwhile."""
    while not handle.wait(SLICE):
        if budget is not None and budget.over():
            handle.cancel()
            return False
    return True


def enumerating(program: SearchProgram, text: str) -> clingo.Control:
    """``text`` (``program``'s, or its generator's part) grounded to enumerate every
    model, projected onto the shown atoms, optimisation ignored (research/answers.py)."""
    messages: list[str] = []
    ctl = clingo.Control(["0", "--project", "--opt-mode=ignore", "--warn=none",
                          *program.constants()],
                         logger=lambda _code, message: messages.append(message))
    try:
        ctl.add("base", [], text)
        ground(ctl, [("base", [])])  # served by a signal at once
    except RuntimeError:
        raise NoRuling("the program could not be grounded (a proposal file's error?): "
                       + " ".join(m.strip() for m in messages)) from None
    return ctl


def count_models(program: SearchProgram, text: str) -> int:
    """How many models `enumerating` finds for ``text`` (projected)."""
    ctl = enumerating(program, text)
    with ctl.solve(async_=True) as handle:
        _wait(handle, None)
    return int(ctl.statistics["summary"]["models"]["enumerated"])


class Search:
    """One grounding of a `SearchProgram`; solved for exactly k objects + effects."""

    def __init__(self, program: SearchProgram) -> None:
        self.program = program
        bounds = program.bounds
        self.bounds = bounds
        self.max_size = bounds.max_size
        self.messages: list[str] = []
        # clasp's "trendy" configuration: 2.9x faster on the UNSAT proofs measured
        # (BENCHMARKS.md, verify one-controller at 3 / 3 / 2, size 4); it changes
        # how the solver searches, not what a model or a proof is.  With several
        # threads, each searches its own part of the space (--parallel-mode split).
        threads = program.threads
        parallel = [f"--parallel-mode={threads},split"] if threads > 1 else []
        options = program.options
        # An explicit --configuration in ``options`` (a benchmark's) replaces trendy.
        configuration = [] if any(o.startswith("--configuration") for o in options) \
            else ["--configuration=trendy"]
        self.ctl = clingo.Control(
            ["--warn=none", *configuration, *parallel,
             f"--opt-mode={'opt' if program.fewest_players else 'ignore'}",
             *program.constants(), *options],
            logger=lambda _code, text: self.messages.append(text))
        try:
            self.ctl.add("base", [], program.text())
            ground(self.ctl, [("base", [])])  # served by a signal at once
        except RuntimeError:
            raise NoRuling("the search program could not be grounded (an invariant or "
                           "proposal file's error?): "
                           + " ".join(m.strip() for m in self.messages)) from None
        self._parts = 0
        self._atoms: set[clingo.Symbol] | None = None

    def add(self, text: str) -> None:
        """Add rules or constraints (e.g. a kind found) for the following solves."""
        self._parts += 1
        name = f"step{self._parts}"
        self.ctl.add(name, [], text)
        ground(self.ctl, [(name, [])])

    def has(self, atom: clingo.Symbol) -> bool:
        """Whether ``atom`` is in the ground program (an assumption about an atom that is
        not cannot hold)."""
        if self._atoms is None:
            self._atoms = {a.symbol for a in self.ctl.symbolic_atoms}
        return atom in self._atoms

    def set_goal(self, index: int | None, count: int) -> None:
        """Search for the goal ``index`` of ``count`` (the externals goal/1)."""
        for j in range(count):
            self.ctl.assign_external(clingo.Function("goal", [clingo.Number(j)]), j == index)

    def _caps(self, size: int, exact: bool) -> None:
        for k in range(1, self.max_size + 1):
            self.ctl.assign_external(clingo.Function("cap", [clingo.Number(k)]), k == size)
            if k > 1:
                self.ctl.assign_external(clingo.Function("atleast", [clingo.Number(k)]),
                                         exact and k == size)

    def solve(self, size: int, cube: Sequence[tuple[clingo.Symbol, bool]] = (),
              budget: Budget | None = None, model: bool = False) -> Solved:
        """Is there a witness of exactly ``size`` objects + effects under the assumptions
        ``cube``?  With ``model``, the best one is read (optimisation: fewest players,
        then none leaving)."""
        start, wall = cpu_seconds(), time.perf_counter()
        if any(value and not self.has(atom) for atom, value in cube):
            return Solved(False)
        self._caps(size, exact=True)
        assumptions = [(atom, value) for atom, value in cube if self.has(atom)]
        best: list[clingo.Symbol] | None = None
        sat: bool | None = False
        with self.ctl.solve(assumptions=assumptions, yield_=model, async_=True) as handle:
            if model:
                while True:
                    handle.resume()
                    if not _wait(handle, budget):
                        sat = None
                        break
                    current = handle.model()
                    if current is None:
                        break
                    best = list(current.symbols(shown=True))
                sat = True if best is not None else sat
            elif not _wait(handle, budget):
                sat = None
            else:
                sat = bool(handle.get().satisfiable)
        stats = self.ctl.statistics["solving"]["solvers"]
        out = Solved(sat, cpu_seconds() - start, time.perf_counter() - wall,
                     int(stats["conflicts"]))
        if best is not None:
            out.found = found_of(size, best)
        return out

    def literals(self, signatures: Iterable[tuple[str, int]]
                 ) -> dict[clingo.Symbol, int | bool]:
        """The program literal of each ground atom of ``signatures`` (True: a fact)."""
        return {a.symbol: True if a.is_fact else a.literal
                for name, arity in signatures
                for a in self.ctl.symbolic_atoms.by_signature(name, arity)}

    def enumerate(self, size: int, cube: Sequence[tuple[clingo.Symbol, bool]],
                  budget: Budget | None,
                  on_model: Callable[[list[clingo.Symbol]], list[list[int]]]) -> bool:
        """Every model of exactly ``size`` objects + effects under ``cube``, in the
        solver's order, in one solve: each model's shown atoms go to ``on_model``,
        which returns clauses (lists of program literals) that every later model of
        this solve must satisfy.  False when the budget ran out first."""
        if any(value and not self.has(atom) for atom, value in cube):
            return True
        self._caps(size, exact=True)
        assumptions = [(atom, value) for atom, value in cube if self.has(atom)]

        def handler(model: clingo.Model) -> bool:
            for clause in on_model(list(model.symbols(shown=True))):
                model.context.add_clause(clause)
            return True

        solve = self.ctl.configuration.solve
        models = solve.models  # type: ignore[union-attr]
        solve.models = 0  # type: ignore[union-attr]
        try:
            with self.ctl.solve(assumptions=assumptions, on_model=handler,
                                async_=True) as handle:
                if not _wait(handle, budget):
                    return False
                handle.get()
        finally:
            solve.models = models  # type: ignore[union-attr]
        return True

    def solve_goals(self, size: int, goals: Sequence[int], count: int,
                    cube: Sequence[tuple[clingo.Symbol, bool]] = (),
                    budget: Budget | None = None) -> Solved:
        """Which of ``goals`` (of ``count``) have a witness of exactly ``size`` under
        ``cube``: one search for all of them (a witness of any); the goals a witness
        fails (its ``ifail_found/1``) are set aside and the rest searched again, until
        none is left or no witness is.  ``sat`` None when the budget ran out first."""
        start, wall = cpu_seconds(), time.perf_counter()
        if any(value and not self.has(atom) for atom, value in cube):
            return Solved(False)
        self._caps(size, exact=True)
        assumptions = [(atom, value) for atom, value in cube if self.has(atom)]
        left, failing = list(goals), []
        sat: bool | None = False
        conflicts = 0
        while left:
            for j in range(count):
                self.ctl.assign_external(clingo.Function("goal", [clingo.Number(j)]), j in left)
            seen: list[int] = []

            def on_model(model: clingo.Model, seen: list[int] = seen,
                         left: list[int] = left) -> bool:
                found = [a.arguments[0].number for a in model.symbols(shown=True)
                         if a.name == "ifail_found"]
                # A lemma's goal (locality.lp, orderings.lp) is one goal's, unnamed.
                seen.extend(found or (left if len(left) == 1 else [-1]))
                return False  # one witness is enough

            with self.ctl.solve(assumptions=assumptions, on_model=on_model,
                                async_=True) as handle:
                if not _wait(handle, budget):
                    sat = None
                    break
                handle.get()
            conflicts += int(self.ctl.statistics["solving"]["solvers"]["conflicts"])
            new = [j for j in left if j in seen]
            if not seen:
                break
            if not new:
                raise RuntimeError("a witness fails none of the goals searched")
            failing += new
            left = [j for j in left if j not in new]
        if sat is not None:
            sat = bool(failing)
        return Solved(sat, cpu_seconds() - start, time.perf_counter() - wall, conflicts,
                      failing=tuple(sorted(failing)))

    def solve_at(self, size: int, budget: Budget | None = None) -> Found | None:
        """The best witness of exactly ``size`` objects + effects, or None; `Stopped`
        when the budget runs out first."""
        solved = self.solve(size, budget=budget, model=True)
        if solved.sat is None:
            raise Stopped(size - 1)
        return solved.found

    def _sizes(self, start: int, progress: Progress | None, label: str) -> Iterable[int]:
        for size in range(max(1, start), self.max_size + 1):
            if progress is not None:
                progress(f"{label}searching {self.program.unit} with {size} object(s) + effect(s) "
                         f"(up to {self.bounds.players} players)")
            yield size

    def first(self, start: int = 1, progress: Progress | None = None,
              label: str = "", budget: Budget | None = None) -> Found | None:
        """The smallest witness of size >= ``start`` (sizes below were searched, so
        each size is searched alone: exactly that many objects + effects).  `Stopped`
        when the budget runs out first."""
        for size in self._sizes(start, progress, label):
            found = self.solve_at(size, budget)
            if found is not None:
                return found
        return None


def found_of(size: int, atoms: Iterable[clingo.Symbol]) -> Found:
    """A witness from a model's shown atoms: the generated snapshot (g_*) and the rest."""
    atoms = list(atoms)
    generated = [s for s in atoms if s.name.startswith("g_")]
    return Found(size, model_to_doc(generated), [s for s in atoms
                                                 if not s.name.startswith("g_")])
