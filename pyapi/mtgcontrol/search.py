"""Verification by search: one clingo program per question, the solver searches.

A search program is ``encodings/generator.lp`` (with ``exact=0``: every
snapshot of the fragment *up to* the bounds, as choice rules), the bridge
``encodings/search/bridge.lp`` that turns the generated snapshot into the rules'
input predicates for one slot per CR version judged, the rule encodings of those
versions, and a goal: the negation of an invariant (``verify``) or "some fact
differs between the two slots and is of no kind found yet" (``impact``).  An
unsatisfiable program is a proof within the bounds; a model is a witness.

Minimal witnesses: one grounding, solved under assumptions ``cap(k)`` for
k = 1, 2, ... (at most k objects + effects), so the first witness found has the
fewest objects and effects; within that size, the fewest players (an
optimisation).  Python never enumerates snapshots.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import clingo

from . import catalog
from .facts import Names, default_now, snapshot_facts
from .research import Bounds, generator_text, model_to_doc
from .solve import NoRuling, Program

Progress = Callable[[str], None]

# layer2.lp's dependency depth (ekey/5's third key) grows by one per dependency
# step; with inputs that are facts the grounder stops where the chain stops, but
# over choice rules it cannot see that, so the search bounds it by the number of
# effects (a chain of dependencies goes through distinct effects).
_DEPTH_RULE = "ekey(S,W,Src,T,(A,B,C)), K <= (A,B,C+1)."
_DEPTH_BOUND = "ekey(S,W,Src,T,(A,B,C)), K <= (A,B,C+1), C < ne."

SIZE_CAPS = """
#external cap(K) : K = 1..no+ne.
:- cap(K), n_objects(A), n_effects(B), A + B > K.
#minimize{ 1@1,P : pl(P) }.
"""


def strip_show(text: str) -> str:
    """Program text without its ``#show`` lines (a search shows its own)."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        if skipping or line.lstrip().startswith("#show"):
            skipping = not line.rstrip().endswith(".")
            continue
        kept.append(line)
    return "\n".join(kept)


def rules_text(versions: Sequence[catalog.Version], changes: Sequence[str] = ()) -> str:
    """The rule encodings of ``versions`` (and proposals) for a search program."""
    text = strip_show(Program(tuple(versions), tuple(changes)).text())
    if _DEPTH_RULE not in text:
        raise RuntimeError("search.py: layer2.lp's dependency rule changed; update "
                           "_DEPTH_RULE (the bound on the dependency depth)")
    return text.replace(_DEPTH_RULE, _DEPTH_BOUND)


@cache
def search_file(name: str) -> str:
    return (resources.files("mtgcontrol.encodings") / "search" / name).read_text(
        encoding="utf-8")


# ---------------------------------------------------------------------------------
# Invariants


@dataclass(frozen=True)
class Invariant:
    """An ASP file deriving ``fail(S,What,X)`` when the invariant fails."""

    name: str
    summary: str
    text: str


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


class Search:
    """One grounding of generator + bridge + rules + goal; solved with size caps."""

    def __init__(self, bounds: Bounds, slots: Sequence[tuple[int, catalog.Version]],
                 goal: str, changes: Sequence[str] = (), show: str = "") -> None:
        self.bounds = bounds
        self.max_size = bounds.objects + bounds.effects
        self.messages: list[str] = []
        self.ctl = clingo.Control(
            ["--warn=none", "--opt-mode=opt", f"-c np={bounds.players}",
             f"-c no={bounds.objects}", f"-c ne={bounds.effects}", "-c exact=0"],
            logger=lambda _code, text: self.messages.append(text))
        versions = sorted({v for _, v in slots}, key=lambda v: v.name)
        slot_facts = "\n".join(f"slot({s},{v.const})." for s, v in slots)
        try:
            self.ctl.add("base", [], "\n".join((
                generator_text(), search_file("bridge.lp"), rules_text(versions, changes),
                slot_facts, SIZE_CAPS, goal, show)))
            self.ctl.ground([("base", [])])
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
        self.ctl.ground([(name, [])])

    def solve_at(self, size: int) -> Found | None:
        """The best witness with at most ``size`` objects + effects, or None."""
        for k in range(1, self.max_size + 1):
            self.ctl.assign_external(clingo.Function("cap", [clingo.Number(k)]), k == size)
        best: list[clingo.Symbol] | None = None
        with self.ctl.solve(yield_=True) as handle:
            for model in handle:
                best = list(model.symbols(shown=True))
        if best is None:
            return None
        generated = [s for s in best if s.name.startswith("g_")]
        return Found(size, model_to_doc(generated), [s for s in best
                                                      if not s.name.startswith("g_")])

    def first(self, start: int = 1, progress: Progress | None = None,
              label: str = "") -> Found | None:
        """The smallest witness of size >= ``start`` (sizes below were searched)."""
        for size in range(max(1, start), self.max_size + 1):
            if progress is not None:
                progress(f"{label}searching snapshots with {size} object(s) + effect(s) "
                         f"(up to {self.bounds.players} players)")
            found = self.solve_at(size)
            if found is not None:
                return found
        return None


def bounds_text(bounds: Bounds) -> str:
    return (f"≤ {bounds.players} players, ≤ {bounds.objects} objects, "
            f"≤ {bounds.effects} effects")


# ---------------------------------------------------------------------------------
# Verify


GOAL = """
fail_any :- fail(_,_,_).
:- not fail_any.
"""
VERIFY_SHOW = "#show fail/3.\n"


@dataclass
class Verdict:
    """One invariant under one version: holds within the bounds, or a counterexample."""

    version: str
    invariant: Invariant
    bounds: Bounds
    seconds: float
    counterexample: dict[str, object] | None = None
    size: int = 0
    failures: list[dict[str, str]] | None = None
    reproduced: bool | None = None

    @property
    def holds(self) -> bool:
        return self.counterexample is None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "rules": self.version, "invariant": self.invariant.name,
            "summary": self.invariant.summary, "bounds": self.bounds.to_dict(),
            "holds": self.holds, "seconds": round(self.seconds, 2)}
        if not self.holds:
            out.update(size=self.size, failures=self.failures, reproduced=self.reproduced,
                       counterexample=self.counterexample)
        return out

    def text(self) -> str:
        head = f"{self.version} {self.invariant.name} ({self.invariant.summary})"
        if self.holds:
            return (f"{head}: holds for all snapshots with {bounds_text(self.bounds)} "
                    f"({self.seconds:.1f} s)")
        fails = ", ".join(f"{f['what']} {f['object']}" for f in self.failures or ())
        return (f"{head}: COUNTEREXAMPLE of size {self.size} ({self.seconds:.1f} s): {fails}"
                f"{'' if self.reproduced else ' (NOT reproduced by adjudicate!)'}")


def _name_of(value: clingo.Symbol) -> str:
    """A search id as the counterexample document names it (bridge.lp's ranges)."""
    if value.type != clingo.SymbolType.Number:
        return str(value)
    n = value.number
    if n == 0:
        return "-"
    if n > 20:
        return f"e{n - 20}"
    if n > 10:
        return f"o{n - 10}"
    return f"p{n}"


def _failures(atoms: Iterable[clingo.Symbol]) -> list[dict[str, str]]:
    out = {(str(a.arguments[1]), _name_of(a.arguments[2]))
           for a in atoms if a.name == "fail" and len(a.arguments) == 3}
    return [{"what": w, "object": o} for w, o in sorted(out)]


def reproduce(doc: dict[str, object], version: catalog.Version, invariant: Invariant,
              changes: Sequence[str] = ()) -> list[dict[str, str]]:
    """The invariant's failures in ``doc`` judged as `adjudicate` judges it (facts.py)."""
    names = Names()
    doc = {**doc, "id": doc.get("id", "counterexample")}
    if "now" not in doc:
        doc["now"] = default_now(doc)
    facts = snapshot_facts(doc, 0, version.const, names)
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "\n".join((strip_show(Program((version,), tuple(changes)).text()),
                                   facts, invariant.text, VERIFY_SHOW)))
    ctl.ground([("base", [])])
    found: set[tuple[str, str]] = set()
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            for a in model.symbols(shown=True):
                x = a.arguments[2]
                name = names.name(x.number) if x.type == clingo.SymbolType.Number and \
                    0 < x.number < len(names.names) else "-"
                found.add((str(a.arguments[1]), name))
            break
    return [{"what": w, "object": o} for w, o in sorted(found)]


def verify_one(bounds: Bounds, version: catalog.Version, invariant: Invariant,
               changes: Sequence[str] = (), progress: Progress | None = None) -> Verdict:
    start = time.perf_counter()
    search = Search(bounds, [(0, version)], invariant.text + GOAL, changes, VERIFY_SHOW)
    found = search.first(progress=progress, label=f"{version.name} {invariant.name}: ")
    verdict = Verdict(version.name, invariant, bounds, time.perf_counter() - start)
    if found is not None:
        doc = {"id": "counterexample", "rules": version.name, **found.doc}
        verdict.counterexample = doc
        verdict.size = found.size
        verdict.failures = _failures(found.atoms)
        verdict.reproduced = reproduce(doc, version, invariant, changes) == verdict.failures
    return verdict


def verify_all(bounds: Bounds, versions: Sequence[catalog.Version],
               invariants: Sequence[Invariant], changes: Sequence[str] = (),
               progress: Progress | None = None) -> list[Verdict]:
    return [verify_one(bounds, v, inv, changes, progress) for v in versions for inv in invariants]
