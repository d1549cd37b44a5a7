"""impact by search (``impact --exhaustive``): every kind of difference between two
sides within bounds, each with a minimal witness.

Both sides are one program (solver.py): the same generated snapshot in slot 0
(``--from``) and slot 1 (``--to``, with the proposals, which apply to that slot
only: engine/proposals.py), and the goal "some fact differs and is of no kind
found yet" (search/differ.lp).  Size by size, cell by cell (each grounded with its
own bounds) and cube by cube, one solve per cube enumerates witnesses: each one's
kinds are excluded from the rest of the solve (clauses) and from later cubes (rules).
The search runs as one task on a worker (workers.py), stopped by its CPU budget
(``--time-limit``); the witnesses are then judged by the corpus engine in this
process, which makes the report.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import clingo

from .. import catalog
from ..engine.facts import Names
from . import witnesses
from .gen import Bounds, generator_text
from .reports import ImpactReport
from .solver import (
    Budget,
    Cube,
    Found,
    Search,
    SearchProgram,
    Stopped,
    cell_bounds,
    cells,
    cubes,
    found_of,
    search_file,
    switch_off_external,
    switch_off_text,
)
from .views import Sides, compare, judge_pairs, judge_switched_off
from .workers import Failure, Groundings, run_one, runner


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


class KindClauses:
    """Kinds found as clauses over one grounding's literals, for the models still to
    come in a solve (`Search.enumerate`): for each key K a kind can be picked for,
    "not (pick(K), its label, vdiff(K) as the kind's, and exactly the kind's groups
    cited on each side)" -- the constraint `FoundKind.exclusion` grounds, as a clause."""

    def __init__(self, search: Search) -> None:
        lits = search.literals((("pick", 1), ("label", 2), ("vdiff", 1), ("kg", 3)))
        self.picks: dict[clingo.Symbol, int | bool] = {}
        self.labels: dict[clingo.Symbol, dict[str, int | bool]] = {}
        self.vdiff: dict[clingo.Symbol, int | bool] = {}
        self.groups: dict[tuple[int, clingo.Symbol], dict[str, int | bool]] = {}
        for atom, lit in lits.items():
            args = atom.arguments
            if atom.name == "pick":
                self.picks[args[0]] = lit
            elif atom.name == "label":
                self.labels.setdefault(args[0], {})[str(args[1])] = lit
            elif atom.name == "vdiff":
                self.vdiff[args[0]] = lit
            else:
                self.groups.setdefault((args[0].number, args[1]), {})[str(args[2])] = lit

    def clauses(self, kind: FoundKind) -> list[list[int]]:
        out = []
        for key, pick in self.picks.items():
            # The kind's match as (literal, value) pairs; a clause says one fails.
            wanted: list[tuple[int | bool | None, bool]] = [
                (pick, True), (self.labels.get(key, {}).get(kind.label), True),
                (self.vdiff.get(key), kind.meaning)]
            for side, groups in ((0, kind.from_groups), (1, kind.to_groups)):
                cited = self.groups.get((side, key), {})
                wanted += [(cited.get(g), True) for g in groups]
                wanted += [(lit, False) for g, lit in cited.items() if g not in groups]
            clause: list[int] | None = []
            for lit, value in wanted:
                if lit is None or lit is True:  # not in the program (false), or a fact
                    if (lit is True) != value:
                        clause = None  # this key can never show the kind
                        break
                    continue
                assert isinstance(lit, int) and clause is not None
                clause.append(-lit if value else lit)
            if clause is not None:
                out.append(clause)
        return out


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


@dataclass
class Witnesses:
    """What an impact search found: each witness (size, document, atoms as text), the
    sizes exhausted (None: all), one record per witness, and its CPU seconds."""

    found: list[tuple[int, dict[str, object], list[str]]] = field(default_factory=list)
    exhausted_upto: int | None = None
    per_size: list[dict[str, Any]] = field(default_factory=list)
    cpu: float = 0.0


@dataclass
class ImpactTask:
    """The whole impact search, as one task of a worker."""

    number: int
    program: SearchProgram
    budget: float | None = None
    label: str = ""
    quiet: bool = True
    _clauses: tuple[Search, KindClauses] | None = field(default=None, init=False,
                                                        repr=False, compare=False)

    def run(self, groundings: Groundings, budget: Budget) -> Witnesses:
        # Kinds found are added to the programs as constraints: groundings of its own,
        # not ones a worker keeps for other tasks.
        del groundings
        bounds = self.program.bounds
        generator = self.program.generator or generator_text()
        out = Witnesses()
        excluded: dict[FoundKind, int] = {}  # each kind found, numbered in order
        for size in range(1, bounds.max_size + 1):
            if not self.quiet:
                _progress(f"{self.label}{len(excluded)} kind(s) found: searching "
                          f"{self.program.unit} with {size} object(s) + effect(s) (up to "
                          f"{bounds.players} players)")
            # Sizes in turn (each kind's first witness is a smallest one); within a size,
            # cell by cell and cube by cube (the kinds of the effects), each searched
            # until it has no witness of a kind not found yet.  Each cell is grounded
            # with its own bounds, as verify's cells are (solver.cell_bounds: its own
            # time domain, the same snapshots), the kinds found so far excluded.
            for objects, effects in cells(bounds, size):
                search = self._cell(objects, effects, size - objects - effects, excluded)
                for cube in cubes(generator, effects, effects, objects):
                    if not self._exhaust(search, size, cube, budget, excluded, out):
                        out.exhausted_upto = size - 1
                        out.cpu = budget.spent()
                        return out
        out.cpu = budget.spent()
        return out

    def stopped(self, cpu: float) -> Witnesses:
        return Witnesses(exhausted_upto=0, cpu=cpu)

    def _cell(self, objects: int, effects: int, details: int,
              excluded: dict[FoundKind, int]) -> Search:
        """One cell's grounding, the kinds found so far excluded."""
        bounds = self.program.bounds
        program = replace(self.program, bounds=cell_bounds(bounds, objects, effects, details),
                          search_details=bounds.details)
        search = program.ground()
        if excluded:
            search.add("\n".join(k.exclusion(i) for k, i in excluded.items()))
        return search

    def _exhaust(self, search: Search, size: int, cube: Cube, budget: Budget,
                 excluded: dict[FoundKind, int], out: Witnesses) -> bool:
        """Every new kind with a witness in ``cube``; False when the budget ran out.
        One solve enumerates the witnesses: each one's kinds are excluded from the rest
        of that solve as clauses (`KindClauses`), then from later solves as rules."""
        assumptions = [(clingo.parse_term(atom), value) for atom, value in cube]
        if self._clauses is None or self._clauses[0] is not search:
            self._clauses = (search, KindClauses(search))
        index = self._clauses[1]
        new_here: list[FoundKind] = []
        step = [time.process_time()]

        def on_model(atoms: list[clingo.Symbol]) -> list[list[int]]:
            found = found_of(size, atoms)
            new = model_kinds(found.atoms) - excluded.keys()
            if not new:
                raise RuntimeError("impact search: a witness showed no new kind "
                                   "(search/differ.lp and the exclusion disagree)")
            clauses = []
            for kind in sorted(new, key=str):
                excluded[kind] = len(excluded)
                new_here.append(kind)
                clauses += index.clauses(kind)
            out.found.append((found.size, found.doc, [str(a) for a in found.atoms]))
            now = time.process_time()
            out.per_size.append({"size": found.size, "new_kinds": len(new),
                                 "cpu_seconds": round(now - step[0], 2)})
            step[0] = now
            return clauses

        done = search.enumerate(size, assumptions, budget, on_model)
        if new_here:
            search.add("\n".join(k.exclusion(excluded[k]) for k in new_here))
            self._clauses = None  # the grounding grew: its literals are read again
        return done


def _progress(message: str) -> None:
    print(f"  ... {message}", file=sys.stderr, flush=True)


def impact_program(bounds: Bounds, v1: catalog.Version, v2: catalog.Version,
                   changes: Sequence[str] = (), cones: bool = True) -> SearchProgram:
    goal = search_file("differ.lp")
    if cones:
        goal += "\n" + search_file("cone.lp") + "\n" + search_file("impact-cone.lp")
    # Witnesses with the fewest objects and effects; the number of players is not
    # minimised (an optimality proof per witness costs more than it tells).
    return SearchProgram(bounds, ((0, v1.name), (1, v2.name)), goal, tuple(changes),
                         changed_slots=(1,) if changes else None, late=True,
                         fewest_players=False, connected=not cones,
                         generator=generator_text())


def _run_alone(task: Any, what: str, workers: int, dask: str | None = None) -> Any:
    """Run one task on one worker process (none with ``workers`` 0, in this process)."""
    work = runner(min(workers, 1), dask)
    try:
        result = run_one(work, task)
    finally:
        work.close()
    if isinstance(result, Failure):
        raise RuntimeError(f"{what}: {result.message}")
    return result


def impact_search(bounds: Bounds, v1: catalog.Version, v2: catalog.Version,
                  changes: Sequence[str] = (), quiet: bool = True,
                  limit: float | None = None, cones: bool = True, workers: int = 0,
                  dask: str | None = None) -> ImpactReport:
    """Every kind of difference between ``v1`` and ``v2`` (with ``changes`` on the
    ``v2`` side) within ``bounds``, each with a minimal witness.  With ``limit`` (CPU
    seconds of the search) it stops there: the report has the kinds found so far and
    says up to which size the search was exhaustive.  With ``cones`` (the default) the
    snapshots searched are rooted cones (search/cone.lp) and the difference picked is
    about the root: a kind is a difference in one part's cone.  ``workers`` 0 searches
    in this process, else in a worker process (stopped at once by a signal)."""
    report = ImpactReport(v1.name, v2.name, bool(changes), "exhaustive",
                          bounds=bounds.to_dict(), searched="cone" if cones else "snapshot")
    start, wall = time.process_time(), time.perf_counter()
    task = ImpactTask(0, impact_program(bounds, v1, v2, changes, cones), limit,
                      f"impact {v1.name} -> {v2.name}{' + proposal' if changes else ''}, ",
                      quiet)
    result = _run_alone(task, "impact search", workers, dask)
    report.exhausted_upto = result.exhausted_upto
    report.per_size = result.per_size
    searched = [Found(size, doc, [clingo.parse_term(a) for a in atoms])
                 for size, doc, atoms in result.found]
    sides = Sides.of(v1, v2, changes)
    docs = [w.doc for w in searched]
    pairs, names = judge_pairs(docs, v1, v2, changes) if docs else ([], Names())
    compared = [compare(a, b, sides) for a, b in pairs]
    attribute(docs, [d for d, _ in compared], pairs, v1, v2, sides, changes)
    for n, (w, (diffs, renumbered)) in enumerate(zip(searched, compared, strict=True), 1):
        if not diffs:
            report.errors.append({"id": "witness", "line": n, "error": [
                {"path": "$", "expected": "a difference (the search and the engine disagree)"}]})
        report.record(diffs, renumbered, n, names)
        for diff in diffs:
            entry = report.kinds[(diff.kind, diff.category)]
            if entry.witness is None:
                entry.witness = witnesses.of_difference(w.size, diff, names, w.doc)
        report.judged += 1
    witnesses.explain(report, v1, v2, changes)
    report.cpu_seconds = result.cpu + time.process_time() - start
    report.seconds = time.perf_counter() - wall
    return report


def attribute(docs: Sequence[dict[str, object]], diffs: Sequence[list[Any]],
              pairs: Sequence[tuple[Any, Any]], v1: catalog.Version, v2: catalog.Version,
              sides: Any, changes: Sequence[str] = ()) -> None:
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
    for index, (version, groups, extra) in enumerate(((v1, sides.only_from, ()),
                                                      (v2, sides.only_to, tuple(changes)))):
        # Every group of a side switched off in turn, over one grounding.
        switched = judge_switched_off(docs, version, sorted(groups), extra) if groups else {}
        for group in sorted(groups):
            changed = switched[group]
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
                diff.cause = (tuple(sorted(left, key=catalog.rule_order)),
                              tuple(sorted(right, key=catalog.rule_order)))


@dataclass(frozen=True)
class Observed:
    """What switching one group off changes within the bounds: ``meaning`` True when
    some value of a ruling changes (else only the rules cited), with the size and
    snapshot of a smallest witness; ``stopped`` when the budget ran out first."""

    meaning: bool
    size: int
    doc: dict[str, object]


@dataclass
class ObservedTask:
    """For each group: a smallest snapshot within the bounds whose ruling changes in
    value when the group is switched off, else one whose citations change (None:
    neither).  One grounding for every group: the switch is an external (``xoff/1``)
    of a proposal applied to slot 1, and "a value differs" another (``xvalue``)."""

    number: int
    program: SearchProgram
    groups: tuple[str, ...]
    budget: float | None = None

    def run(self, groundings: Groundings, budget: Budget
            ) -> tuple[dict[str, Observed | None | str], float]:
        del groundings
        search = self.program.ground()
        value = clingo.Function("xvalue")
        out: dict[str, Observed | None | str] = {}
        for group in self.groups:
            switch = switch_off_external(group)
            search.ctl.assign_external(switch, True)
            out[group] = None
            try:
                for meaning in (True, False):
                    search.ctl.assign_external(value, meaning)
                    found = search.first(1, None, "", budget)
                    if found is not None:
                        out[group] = Observed(meaning, found.size, found.doc)
                        break
            except Stopped:
                out[group] = "stopped"
            search.ctl.assign_external(switch, False)
        return out, budget.spent()

    def stopped(self, cpu: float) -> tuple[dict[str, Observed | None | str], float]:
        return {group: "stopped" for group in self.groups}, cpu


def switch_off_each(bounds: Bounds, version: catalog.Version, groups: Sequence[str],
                    limit: float | None = None, workers: int = 0
                    ) -> tuple[dict[str, Observed | None | str], float]:
    """For each group of ``version``, a smallest witness of a difference that switching
    it off makes (one in value if there is one), as `impact --exhaustive --change`
    would find it (the same program); None where there is none within ``bounds``,
    "stopped" where ``limit`` (CPU seconds) ran out first.  With the search's CPU
    seconds."""
    program = impact_program(bounds, version, version, (switch_off_text(groups),))
    program = replace(program, goal=program.goal + "\n" + search_file("observable.lp"))
    task = ObservedTask(0, program, tuple(groups), limit)
    found, cpu = _run_alone(task, "observability search", workers)
    return dict(found), cpu
