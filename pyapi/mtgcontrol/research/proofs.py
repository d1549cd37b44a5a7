"""verify by search: every invariant proved within bounds, or a minimal counterexample.

Each invariant under each version is searched by a program (solver.py): the
negation of the invariant, by cones (the invariant's own cone, search/cone.lp, or
the one holding it that is searched anyway: `WITHIN`) or over whole snapshots; the
invariants of one version searched the same way share a program.  The space is cut
by structure into tasks, proved apart:

* sizes (objects + effects + details) 1, 2, ... ; a counterexample of size k is
  minimal when every task of the sizes below is unsatisfiable;
* within a size, cells: exactly o objects, e effects and d details, each grounded
  with the bounds (players, o, e, d) -- a smaller program (fewer time points, no
  other counts, no choice of a detail that cannot fit) than the bounds' whole one,
  which is what makes a conflict cheap;
* within a cell, cubes: the kind of each effect (assumptions ``etype(E,K)``), one
  solve each on the cell's grounding.

The tasks of every invariant run on workers (workers.py: processes of this machine
or a Dask cluster), the smallest sizes first.  Which tasks there are does not
depend on the workers, and each is a complete search of its part, so the verdicts
do not either; a counterexample is read from a fresh search of its size (one
thread, the best model: fewest players, then none leaving).

``--time-limit`` is CPU seconds per invariant and version (its tasks' groundings
and solves, on every worker): a verdict that does not depend on the machine's load.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import clingo

from .. import catalog
from ..engine.api import engine_for
from ..engine.engine import Frame, Lens
from .gen import Bounds, generator_text
from .invariants import Invariant, tagged
from .solver import (
    Budget,
    Found,
    Progress,
    SearchProgram,
    Solved,
    cell_bounds,
    cells,
    cubes,
    search_file,
)
from .space import name_of
from .workers import POLL, Failure, Groundings, Runner, run_one, runner

# ---------------------------------------------------------------------------------
# Search programs


MODES = ("snapshot", "cone", "locality", "orderings")
UNITS = {"snapshot": "snapshots", "cone": "cones",
         "locality": "snapshots (any, with a root's cone)",
         "orderings": "snapshots (every time ordering)"}


def mode_of(invariant: Invariant, locality: bool = False, orderings: bool = False) -> str:
    if locality:
        return "locality"
    if orderings:
        return "orderings"
    return "cone" if invariant.cones else "snapshot"


# A cone whose snapshots are all snapshots of another cone: a snapshot that is the
# `owner` (or `structure`) cone of its root is the `dependencies` cone of it too (the
# dependencies cone follows requires/2 and depends/2, and every cone_edge/3 of the
# other two is one of those: tests/test_search.py searches for an edge that is not).
# So when the dependencies cone is searched anyway, an invariant of a smaller cone is
# searched in it, in the same program and solve (docs/research.md, "One search for
# every cone kind"): a superset of its own space, so a proof is still a proof.
WITHIN = {"owner": "dependencies", "structure": "dependencies"}


def searched_cones(invariants: Sequence[Invariant]) -> list[str | None]:
    """The cone each invariant of one run is searched by (None: not by cones): its
    own, or the cone holding it (`WITHIN`) when another invariant is searched by that."""
    own = [i.cone for i in invariants]
    return [WITHIN[c] if c in WITHIN and WITHIN[c] in own else c for c in own]


def invariant_program(bounds: Bounds, version: catalog.Version,
                      invariant: Invariant | Sequence[Invariant], mode: str,
                      changes: Sequence[str] = (), threads: int = 1,
                      fewest_players: bool = False, options: Sequence[str] = (),
                      orderings: bool = True, generator: str | None = None,
                      cone: str | None = None,
                      search_details: int | None = None) -> SearchProgram:
    """The search program for one invariant under one version: ``snapshot`` (a
    connected snapshot that fails), ``cone`` (a snapshot that is the invariant's cone
    of its root and fails at its root), ``locality`` (a snapshot whose failures at a
    root are not failures of the root's cone alone: two slots) or ``orderings`` (a
    snapshot of any time ordering, also one where objects enter after a player left,
    whose facts or failures differ from its ordering's representative's: two slots).
    The first two search representatives of the time orderings only (every ordering
    with ``orderings`` False: a benchmark's baseline).  Several invariants (of one
    cone, in the first two modes) are searched together: a failure of any whose
    goal/1 is set.  ``cone``: the cone searched (by default the first invariant's);
    ``search_details``: the search's details bound when ``bounds`` are a cell's."""
    group = [invariant] if isinstance(invariant, Invariant) else list(invariant)
    invariant = group[0]
    two = mode in ("locality", "orderings")
    slots = ((0, version.name), (1, version.name)) if two else ((0, version.name),)
    goal = tagged(group, whole=mode == "snapshot")
    if mode == "orderings":
        goal += "\n" + search_file("orderings.lp")
    elif mode != "snapshot":
        cone = cone or invariant.cone or "dependencies"
        goal += f"\ncone_kind({cone}).\n" + search_file("cone.lp") \
            + "\n" + search_file("verify-cone.lp" if mode == "cone" else "locality.lp")
    return SearchProgram(bounds, slots, goal, tuple(changes), late=mode == "orderings",
                         connected=mode == "snapshot",
                         orderings=orderings and not two, fewest_players=fewest_players,
                         options=tuple(options), threads=threads,
                         generator=generator if generator is not None else generator_text(),
                         search_details=search_details)


@dataclass
class CubeTask:
    """One cube of one cell of one size of the space of some invariants searched
    together (``members``: their tracks' places in the run, in the program's goal
    order; ``goals``: those still searched when it starts), or (``model``) the best
    counterexample of a size of one invariant."""

    number: int
    program: SearchProgram
    size: int
    cube: tuple[tuple[str, bool], ...] = ()
    model: bool = False
    budget: float | None = None
    members: tuple[int, ...] = (0,)
    cell: tuple[int, int, int] = (0, 0, 0)  # objects, effects, details
    goals: tuple[int, ...] = (0,)

    @property
    def track(self) -> int:
        return self.members[0]

    def run(self, groundings: Groundings, budget: Budget) -> Solved:
        search = groundings.get(self.program)
        cube = [(clingo.parse_term(atom), value) for atom, value in self.cube]
        if not self.model:
            solved = search.solve_goals(self.size, self.goals, len(self.members), cube,
                                        budget)
            solved.cpu = budget.spent()
            return solved
        search.set_goal(0, 1)
        solved = search.solve(self.size, cube, budget, self.model)
        solved.cpu = budget.spent()
        if solved.found is not None:  # symbols do not travel between processes
            solved.found.atoms = [str(a) for a in solved.found.atoms]  # type: ignore[misc]
        return solved

    def stopped(self, cpu: float) -> Solved:
        return Solved(None, cpu)


# ---------------------------------------------------------------------------------
# Verdicts


def cone_bounds_text(bounds: Bounds) -> str:
    players = "2 players" if bounds.players <= 2 else f"2 to {bounds.players} players"
    parts = "objects + effects + details" if bounds.details else "objects + effects"
    return (f"up to {bounds.max_size} {parts} (≤ {bounds.objects} "
            f"objects, ≤ {bounds.effects} effects{bounds.details_text()}; {players})")


def bounds_text(bounds: Bounds) -> str:
    text = (f"≤ {bounds.players} players, ≤ {bounds.objects} objects, "
            f"≤ {bounds.effects} effects{bounds.details_text()}")
    if bounds.max_size != bounds.objects + bounds.effects + bounds.details:
        text += f", ≤ {bounds.max_size} in all"
    return text


@dataclass
class Verdict:
    """One invariant under one version: holds within the bounds, or a counterexample.
    ``mode``: how it was searched: ``cone`` (every snapshot that is one rooted cone of
    the invariant's cone; by the locality lemma that covers every snapshot whose cones
    are within the bounds), ``snapshot`` (every connected snapshot within the bounds),
    ``locality`` or ``orderings`` (the check of a lemma for this invariant).
    ``seconds`` is CPU seconds of the search (every worker's), ``wall`` beside it."""

    version: str
    invariant: Invariant
    bounds: Bounds
    seconds: float = 0.0
    counterexample: dict[str, object] | None = None
    size: int = 0
    failures: list[dict[str, str]] | None = None
    reproduced: bool | None = None
    # False when the time limit stopped the search: no counterexample of up to
    # ``proved`` objects + effects, the larger sizes not decided.
    complete: bool = True
    proved: int = 0
    mode: str = "snapshot"
    wall: float = 0.0
    tasks: int = 0
    per_size: list[dict[str, Any]] = field(default_factory=list)
    searched_cone: str | None = None
    """The cone searched when not the invariant's own (`WITHIN`)."""

    @property
    def holds(self) -> bool:
        return self.counterexample is None and self.complete

    @property
    def cone(self) -> str | None:
        if self.mode not in ("cone", "locality"):
            return None
        return self.searched_cone or self.invariant.cone

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "rules": self.version, "invariant": self.invariant.name,
            "summary": self.invariant.summary, "bounds": self.bounds.to_dict(),
            "searched": self.mode, "verdict": self.word(),
            "holds": {"holds": True, "fails": False}.get(self.word()),
            "cpu_seconds": round(self.seconds, 2), "wall_seconds": round(self.wall, 2),
            "tasks": self.tasks, "per_size": self.per_size}
        if self.cone is not None:
            out["cone"] = self.cone
        if not self.complete and self.counterexample is None:
            out["proved_upto"] = self.proved
        elif not self.holds:
            out.update(size=self.size, failures=self.failures, counterexample=self.counterexample)
            if self.mode not in ("locality", "orderings"):
                out["reproduced"] = self.reproduced
            if not self.complete:
                out["proved_upto"] = self.proved
        return out

    def word(self) -> str:
        """holds, fails or undecided."""
        if self.counterexample is not None:
            return "fails"
        return "holds" if self.complete else "undecided"

    def clock(self) -> str:
        return f"{self.seconds:.1f} s CPU, {self.wall:.1f} s wall"

    def scope(self, upto: int | None = None) -> str:
        """What a proof covers (up to ``upto`` objects + effects if given)."""
        bounds = self.bounds if upto is None else Bounds(
            self.bounds.players, min(self.bounds.objects, upto), min(self.bounds.effects, upto),
            min(self.bounds.details, upto), min(self.bounds.max_size, upto))
        if self.mode == "cone":
            text = cone_bounds_text(bounds)
            which = f"{self.cone} cone" if self.cone != "dependencies" else "cone"
            return f"every {which} {text}, so every snapshot whose cones are within that"
        if self.mode in ("locality", "orderings"):
            what = f"up to {upto} objects + effects" if upto is not None else \
                bounds_text(self.bounds)
            if self.mode == "orderings":
                return (f"every snapshot with {what}, in every time ordering: its facts and "
                        "failures are those of its ordering's representative")
            cone = "" if self.cone == "dependencies" else f" ({self.cone} cone)"
            return (f"every snapshot with {what}: each object and effect fails the "
                    f"invariant only where its cone{cone} does"
                    + (", and has the facts of its cone alone"
                       if self.cone == "dependencies" else ""))
        if upto is not None:
            return f"every snapshot of up to {upto} objects + effects ({bounds_text(bounds)})"
        return f"all snapshots with {bounds_text(self.bounds)}"

    def text(self) -> str:
        head = f"{self.version} {self.invariant.name}" + \
            (f" {self.mode}" if self.mode in ("locality", "orderings")
             else f" ({self.invariant.summary})")
        if self.holds:
            return f"{head}: holds for {self.scope()} ({self.clock()})"
        if self.counterexample is None:
            proved = f"holds for {self.scope(self.proved)}" if self.proved else \
                "no size finished"
            return (f"{head}: undecided beyond size {self.proved} (time limit, "
                    f"{self.clock()}): {proved}; size {self.proved + 1} not finished")
        fails = ", ".join(f"{f['what']} {f['object']}" for f in self.failures or ())
        minimal = "" if self.complete else \
            f"; not shown minimal: size {self.proved + 1} not finished (time limit)"
        if self.mode == "locality":
            return (f"{head}: fails: a snapshot of size {self.size} whose failures at its "
                    f"root differ from its cone's ({self.clock()}{minimal}): {fails}")
        if self.mode == "orderings":
            return (f"{head}: fails: a snapshot of size {self.size} whose facts or failures "
                    f"differ from its ordering's representative's ({self.clock()}{minimal}): "
                    f"{fails}")
        return (f"{head}: fails: counterexample of size {self.size} ({self.clock()}{minimal}): "
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


def _node_number(node: clingo.Symbol) -> clingo.Symbol:
    """o(O) / e(E) as bridge.lp numbers them."""
    base = 10 if node.name == "o" else 20
    return clingo.Number(base + node.arguments[0].number)


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


# ---------------------------------------------------------------------------------
# The run: every invariant's tasks on the workers


@dataclass
class Settings:
    """How a verify run searches: solver ``threads`` per task, ``workers`` processes
    (0: in this process) or a Dask cluster (``dask``: an address or ``local``), a CPU
    ``limit`` in seconds per invariant and version, and ``options`` for clasp (a
    benchmark's) and the generator's text (a variant's)."""

    threads: int = 1
    workers: int = 0
    dask: str | None = None
    limit: float | None = None
    options: tuple[str, ...] = ()
    orderings: bool = True
    generator: str | None = None
    first: bool = False
    """Stop every other invariant's search once one is found to fail."""


@dataclass
class _Track:
    """One invariant under one version, searched one way: its tasks and what they said."""

    verdict: Verdict
    version: catalog.Version
    changes: tuple[str, ...]
    label: str
    tasks: dict[int, list[CubeTask]] = field(default_factory=dict)  # size -> tasks
    unsat: dict[int, int] = field(default_factory=dict)  # size -> tasks proved
    cpu: float = 0.0
    found: int | None = None
    stopped: bool = False
    failed: str | None = None
    started: float | None = None
    ended: float = 0.0
    announced: set[int] = field(default_factory=set)
    size_cpu: dict[int, float] = field(default_factory=dict)
    refuted: set[int] = field(default_factory=set)  # tasks proved to hold no witness

    def proved(self) -> int:
        upto = 0
        for size in sorted(self.tasks):
            if self.unsat.get(size, 0) < len(self.tasks[size]):
                break
            upto = size
        return upto

    def live(self, task: CubeTask) -> bool:
        return not self.stopped and self.failed is None and (
            self.found is None or task.size < self.found)


def _groups(tracks: list[_Track]) -> list[tuple[int, ...]]:
    """The tracks searched together: the invariants of one version, searched by the same
    cone (or over whole snapshots), share each program and each solve -- one search for
    a failure of any of them.  Its unsatisfiability proves each; a witness says which it
    fails, and those are set aside while the rest are searched on (`Search.solve_goals`).
    A lemma's check (locality, orderings) is one invariant's alone."""
    out: dict[tuple[Any, ...], list[int]] = {}
    for index, track in enumerate(tracks):
        v = track.verdict
        key: tuple[Any, ...] = (v.version, track.changes, v.mode, v.bounds, v.cone)
        if v.mode not in ("snapshot", "cone"):
            key += (index,)
        out.setdefault(key, []).append(index)
    return [tuple(members) for members in out.values()]


def _plan(tracks: list[_Track], settings: Settings) -> list[CubeTask]:
    tasks: list[CubeTask] = []
    generator = settings.generator if settings.generator is not None else generator_text()
    for members in _groups(tracks):
        first = tracks[members[0]]
        v = first.verdict
        for size in range(1, v.bounds.max_size + 1):
            for objects, effects in cells(v.bounds, size):
                details = size - objects - effects
                program = invariant_program(
                    cell_bounds(v.bounds, objects, effects, details), first.version,
                    [tracks[m].verdict.invariant for m in members], v.mode, first.changes,
                    settings.threads, options=settings.options,
                    orderings=settings.orderings, generator=generator, cone=v.cone,
                    search_details=v.bounds.details)
                for cube in cubes(generator, effects, effects, objects):
                    task = CubeTask(len(tasks), program, size, cube, members=members,
                                    cell=(objects, effects, details),
                                    goals=tuple(range(len(members))))
                    tasks.append(task)
                    for m in members:
                        tracks[m].tasks.setdefault(size, []).append(task)
    # The smallest sizes first, every group's in turn (a cell's cubes together).
    return sorted(tasks, key=lambda t: (t.size, t.track, t.cell, t.number))


def _live(tracks: list[_Track], task: CubeTask) -> bool:
    return any(tracks[m].live(task) for m in task.members)


def _share(task: CubeTask, cpu: float) -> float:
    """A track's share of a task's CPU (the task searched for each of its members)."""
    return cpu / len(task.members)


def prove(tracks: list[_Track], settings: Settings, progress: Progress | None = None,
          work: Runner | None = None) -> None:
    """Run every track's tasks on the workers; fills the tracks' verdicts (the
    counterexamples are read after, by `finish`)."""
    pending = _plan(tracks, settings)
    own = work is None
    work = work or runner(settings.workers, settings.dask)
    running: list[CubeTask] = []
    try:
        while pending or running:
            for index, track in enumerate(tracks):
                _limit(track, [t for t in running if index in t.members], work,
                       settings.limit)
            if settings.first and any(t.found is not None for t in tracks):
                for track in tracks:
                    track.stopped = track.stopped or track.found is None
            pending = [t for t in pending if _live(tracks, t)]
            for task in running:  # a smaller witness, or the limit: its tasks stop
                if not _live(tracks, task):
                    work.cancel(task)
            window = pending[:4 * work.workers]
            for task in window:
                live = [i for i, m in enumerate(task.members) if tracks[m].live(task)]
                task.goals = tuple(live)
                # Each live member's share of the task's CPU stays within its limit.
                task.budget = None if settings.limit is None else len(task.members) * min(
                    max(0.0, settings.limit - tracks[task.members[i]].cpu - sum(
                        _share(t, work.spent(t)) for t in running
                        if task.members[i] in t.members)) for i in live)
            for started in work.dispatch(window):
                task = cast(CubeTask, started)
                pending.remove(task)
                running.append(task)
                for i in task.goals:
                    track = tracks[task.members[i]]
                    if track.started is None:
                        track.started = time.perf_counter()
                    if progress is not None and task.size not in track.announced:
                        track.announced.add(task.size)
                        v = track.verdict
                        progress(f"{track.label}searching {UNITS[v.mode]} with {task.size} "
                                 f"object(s) + effect(s) (up to {v.bounds.players} players)")
            for ended, result in work.wait(POLL):
                task = cast(CubeTask, ended)
                running.remove(task)
                for i in task.goals:
                    _record(tracks[task.members[i]], task, result, i)
    finally:
        if own:
            work.close()


def _limit(track: _Track, running: list[CubeTask], work: Runner, limit: float | None) -> None:
    if limit is None or track.stopped or track.found is not None:
        return
    if track.cpu + sum(_share(t, work.spent(t)) for t in running) >= limit:
        track.stopped = True  # its tasks stop when no other track needs them (`prove`)


def _record(track: _Track, task: CubeTask, result: Any, goal: int = 0) -> None:
    """What ``task`` said of ``track``, its member of goal ``goal``."""
    track.ended = time.perf_counter()
    if isinstance(result, Failure):
        track.failed = track.failed or result.message
        return
    cpu = _share(task, result.cpu)
    track.cpu += cpu
    track.size_cpu[task.size] = track.size_cpu.get(task.size, 0.0) + cpu
    if result.sat is None:
        if track.found is None or task.size < track.found:
            track.stopped = True
    elif goal in result.failing:
        track.found = task.size if track.found is None else min(track.found, task.size)
    else:
        track.unsat[task.size] = track.unsat.get(task.size, 0) + 1
        track.refuted.add(task.number)


def _counterexample_tasks(track: _Track, size: int, settings: Settings) -> list[CubeTask]:
    """The searches for the counterexample of exactly ``size``: the cubes of that size in
    their canonical order (cell, then kinds), each the invariant's own program for the
    cell (one thread) and its best model (fewest players, then none leaving); the first
    cube with a witness gives it.  Cubes the proof refuted are left out: which cube
    gives the counterexample does not depend on the workers or on timing."""
    v = track.verdict
    out = []
    for task in sorted(track.tasks[size], key=lambda t: (t.cell, t.number)):
        if task.number in track.refuted:
            continue
        program = invariant_program(
            cell_bounds(v.bounds, *task.cell), track.version, v.invariant, v.mode,
            track.changes, 1, fewest_players=True, options=settings.options,
            orderings=settings.orderings, generator=settings.generator, cone=v.cone,
            search_details=v.bounds.details)
        out.append(CubeTask(-1, program, size, task.cube, model=True, cell=task.cell))
    return out


def finish(tracks: list[_Track], settings: Settings, work: Runner | None = None) -> None:
    """Each track's verdict: proved sizes, its CPU and wall time, and each
    counterexample (read by a task of its own, then judged again by the engine)."""
    own = work is None
    try:
        for track in tracks:
            v = track.verdict
            if track.failed is not None:
                raise RuntimeError(f"verify {v.invariant.name} under {v.version}: "
                                   f"{track.failed}")
            v.proved = track.proved()
            v.seconds = track.cpu
            v.wall = track.ended - track.started if track.started is not None else 0.0
            v.tasks = sum(len(t) for t in track.tasks.values())
            v.per_size = [{"size": size, "cpu_seconds": round(track.size_cpu.get(size, 0.0), 2),
                           "tasks": len(tasks), "proved": track.unsat.get(size, 0) == len(tasks)}
                          for size, tasks in sorted(track.tasks.items())]
            if track.found is None:
                v.complete = not track.stopped
                continue
            v.complete = v.proved >= track.found - 1
            if work is None:
                work = runner(min(1, settings.workers), settings.dask)
            solved: Any = Failure("no cube of that size is left unrefuted")
            for task in _counterexample_tasks(track, track.found, settings):
                # The read shares the limit: out of time, the best model so far is
                # the counterexample (of that size, perhaps not the fewest players).
                task.budget = settings.limit
                solved = run_one(work, task)
                if isinstance(solved, Failure):
                    break
                v.seconds += solved.cpu
                if solved.found is not None:
                    break
            if isinstance(solved, Failure) or solved.found is None:
                raise RuntimeError(f"verify: no counterexample of size {track.found} to "
                                   f"{v.invariant.name} in a fresh search (the proof found one)"
                                   + (f": {solved.message}" if isinstance(solved, Failure)
                                      else ""))
            _counterexample(track, solved.found)
    finally:
        if own and work is not None:
            work.close()


def _counterexample(track: _Track, found: Found) -> None:
    v = track.verdict
    atoms = [clingo.parse_term(a) if isinstance(a, str) else a for a in found.atoms]
    doc = {"id": "counterexample", "rules": v.version, **found.doc}
    v.counterexample = doc
    v.size = found.size
    if v.mode == "locality":
        v.failures = _locality_failures(atoms)
    elif v.mode == "orderings":
        v.failures = _ordering_failures(atoms)
    else:
        v.failures = _failures(clingo.Function("fail", a.arguments[1:]) for a in atoms
                               if a.name == "ifail")
        v.reproduced = reproduce(doc, track.version, v.invariant, track.changes) == v.failures


def verify_all(bounds: Bounds, versions: Sequence[catalog.Version],
               invariants: Sequence[Invariant], changes: Sequence[str] = (),
               progress: Progress | None = None, settings: Settings | None = None,
               locality: bool = False, orderings: bool = False) -> list[Verdict]:
    """Every invariant under every version (verdicts in that order); ``locality`` or
    ``orderings``: the check of that lemma for each invariant instead."""
    settings = settings or Settings()
    tracks = []
    searched = searched_cones(invariants)
    for version in versions:
        for invariant, cone in zip(invariants, searched, strict=True):
            mode = mode_of(invariant, locality, orderings)
            check = f" {mode}" if mode in ("locality", "orderings") else ""
            verdict = Verdict(version.name, invariant, bounds, mode=mode)
            if mode == "cone" and cone != invariant.cone:
                verdict.searched_cone = cone
            tracks.append(_Track(verdict, version, tuple(changes),
                                 f"{version.name} {invariant.name}{check}: "))
    work = runner(settings.workers, settings.dask)
    try:
        prove(tracks, settings, progress, work)
        finish(tracks, settings, work)
    finally:
        work.close()
    return [t.verdict for t in tracks]


def verify_version(bounds: Bounds, version: catalog.Version, invariants: Sequence[Invariant],
                   changes: Sequence[str] = (), progress: Progress | None = None,
                   settings: Settings | None = None, locality: bool = False,
                   orderings: bool = False) -> list[Verdict]:
    return verify_all(bounds, [version], invariants, changes, progress, settings, locality,
                      orderings)


def verify_one(bounds: Bounds, version: catalog.Version, invariant: Invariant,
               changes: Sequence[str] = (), progress: Progress | None = None,
               settings: Settings | None = None) -> Verdict:
    return verify_version(bounds, version, [invariant], changes, progress, settings)[0]

