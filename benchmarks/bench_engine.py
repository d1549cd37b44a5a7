"""The engine's figures: rates against the reference, phases, memory, cost, extremes.

    python benchmarks/bench_engine.py rates  [--snapshots 4000] [--seed 1]
    python benchmarks/bench_engine.py phases [--snapshots 2000] [--plain] [--objects 20] [--atoms]
    python benchmarks/bench_engine.py memory [--small 2000] [--large 8000] [--objects 20]
    python benchmarks/bench_engine.py cost   [--per-cell 20]
    python benchmarks/bench_engine.py extremes
    python benchmarks/bench_engine.py effects [--n 200]
    python benchmarks/bench_engine.py differential [--snapshots 100000] [--phasing | --crowded]
    python benchmarks/bench_engine.py run --snapshots 1000000 [--workers 2]
    python benchmarks/bench_engine.py floor [--snapshots 2048]
    python benchmarks/bench_engine.py citations [--snapshots 256] [--rounds 5] [--top 12]
    python benchmarks/bench_engine.py dask  [--snapshots 2000] [--workers 2] [--rounds 2]
                                            [-- BATCH-OPTIONS]
    python benchmarks/bench_engine.py cluster [--snapshots 1000000] [--sample 100000]

The corpus is ``make_corpus.realistic``: 20-object snapshots, 2-6 players, 0-8
effects (seeded: the same snapshots every run).  ``rates`` judges one file with
the plain-Python reference (benchmarks/reference.py, one core) and with
``mtgcontrol batch --workers 1`` and ``--workers 2`` (full rules, full rulings,
end to end, JSON Lines in and out) and prints snapshots/s and the ratio.
``memory`` prints the peak RSS of the whole process tree (sampled every 20 ms).
``run`` is the long run (write the corpus, judge it, time and peak memory).
``floor`` prints what judging costs at the least, in CPU seconds of one process,
against the per-snapshot budget the rate target leaves each worker.
``citations`` grounds the ruling program with parts of the citations cut (alternated
in each round) and counts the why/7 atoms by fact and rule group: what they cost.
``dask`` judges one corpus with ``batch --workers N`` and ``batch --dask local
--workers N``, alternating, and prints both rates (wall and CPU of the process tree),
their CPU efficiency and peak memory (RSS and PSS of the tree) and whether the outputs
are the same bytes.  ``cluster`` judges a corpus on a Dask cluster of separate
processes (``dask scheduler``, ``dask worker``) and compares a sample with ``--workers 2``.
Figures only, no assertion; the machine may be shared (say so when recording).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(name: str):  # noqa: ANN201
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_corpus(path: Path, n: int, seed: int, objects: int = 20, effects: int = 8) -> None:
    make = load("make_corpus")
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            doc = make.realistic(rng, i + 1, objects, effects)
            out.write(json.dumps(doc, separators=(",", ":")) + "\n")


def mtgcontrol() -> list[str]:
    exe = Path(sys.executable).with_name("mtgcontrol")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mtgcontrol.cli"]


# --- peak RSS of a process tree -------------------------------------------------------
def _tree_rss(root: int) -> int:
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            pid, ppid = int(entry), int(fields[1])
            rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            children.setdefault(ppid, []).append(pid)
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total


def timed_run(cmd: list[str], env: dict[str, str] | None = None,
              every: float = 0.02) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of the command's whole process tree,
    sampled ``every`` seconds (a sample reads all of /proc: at 20 ms it costs
    about a third of a core, too much for a run of hours)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, env=env)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(every)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    code = proc.wait()
    done.set()
    thread.join()
    if code:
        raise SystemExit(f"{' '.join(cmd)} failed ({code})")
    return time.perf_counter() - start, peak


def batch_cmd(path: Path, workers: int, out: str = os.devnull) -> list[str]:
    return [*mtgcontrol(), "batch", str(path), "--workers", str(workers), "-o", out]


# --- subcommands ------------------------------------------------------------------------
def cmd_rates(args: argparse.Namespace) -> None:
    reference = load("reference")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        write_corpus(path, args.snapshots, args.seed)
        start = time.perf_counter()
        with path.open(encoding="utf-8") as src, open(os.devnull, "w") as out:
            n = reference.run(src, out)
        ref = n / (time.perf_counter() - start)
        print(f"corpus: {n} realistic 20-object snapshots (seed {args.seed}); "
              f"{os.cpu_count()} core(s)")
        print(f"reference (plain Python, 1 core): {ref:8.0f} snapshots/s")
        rates = {}
        for workers in (1, 2):
            seconds, peak = timed_run(batch_cmd(path, workers))
            rates[workers] = n / seconds
            print(f"mtgcontrol batch --workers {workers}:  {rates[workers]:8.0f} snapshots/s "
                  f"({seconds:.1f} s, peak RSS {peak / 2**20:.0f} MB)")
        print(f"ratio (2 workers / reference): {rates[2] / ref:.1%} (target 35 %)")


def facts_floor(texts: list[str], program: str = "#show obj/4.") -> float:
    """CPU seconds per snapshot for clingo to read these fact texts (128 to a
    grounding) with ``program`` (by default no rule: the facts floor)."""
    import clingo

    begin = time.process_time()
    for first in range(0, len(texts), 128):
        ctl = clingo.Control(["--warn=none"])
        ctl.add("base", [], program)
        ctl.add("base", [], "\n".join(t.replace("(#", f"({s}")
                                      for s, t in enumerate(texts[first:first + 128])))
        ctl.ground([("base", [])])
        with ctl.solve(yield_=True) as handle:
            for model in handle:
                [str(symbol) for symbol in model.symbols(shown=True)]
    return (time.process_time() - begin) / len(texts)


def ground_atoms(engine, texts: list[str], size: int = 128) -> float:  # noqa: ANN001
    """Ground atoms per snapshot of the engine's program over these fact texts."""
    import clingo

    from mtgcontrol.engine.engine import RULING

    atoms = 0.0
    for first in range(0, len(texts), size):
        ctl = clingo.Control(["--warn=none", "--stats"])
        engine.add_program(ctl, RULING)
        ctl.add("base", [], "\n".join(t.replace("(#", f"({s}")
                                      for s, t in enumerate(texts[first:first + size])))
        ctl.ground([("base", [])])
        ctl.solve()
        atoms += ctl.statistics["problem"]["lp"]["atoms"]
    return atoms / len(texts)


CONSTANT = re.compile(r"[a-z_][A-Za-z0-9_]*")


def atom_text(pred: str, args: tuple) -> str:
    """A shown atom as a fact with '#' for the snapshot number (strings that are
    no clingo constant, i.e. rule numbers, quoted)."""
    return f"{pred}(#," + ",".join(
        str(a) if isinstance(a, int) or CONSTANT.fullmatch(a) else f'"{a}"' for a in args) + ")."


def ruling_floor(engine, lines: list[str]) -> float:  # noqa: ANN001
    """CPU seconds per snapshot of every Python step of a judging (JSON parse,
    validation, frame, read-back, ruling, output) with clingo given each
    snapshot's shown atoms as facts (no rule work), in the engine's groundings.
    The atoms are the engine's (from its cache: judge the lines first)."""
    import clingo

    from mtgcontrol.engine.api import version_for
    from mtgcontrol.engine.ruling import build_ruling
    from mtgcontrol.engine.solve import atoms_by_snapshot
    from mtgcontrol.engine.validate import problems

    try:  # the engine's own read-back (an older engine reads the symbols themselves)
        from mtgcontrol.engine.solve import shown_texts  # type: ignore[attr-defined]
    except ImportError:
        def shown_texts(model):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN202
            return model.symbols(shown=True)

    docs = [json.loads(line) for line in lines]
    frames = [engine.frame(d, version_for(d, None, "floor")) for d in docs]
    found = engine.atoms_of(frames)
    facts = {f.facts: "\n".join(atom_text(p, a) for p, a in atoms)
             for f, atoms in zip(frames, found, strict=True)}
    shown = sorted({(p, len(a) + 1) for atoms in found for p, a in atoms})
    program = "#show.\n" + "\n".join(f"#show {p}/{n}." for p, n in shown)
    begin = time.process_time()
    docs = [json.loads(line) for line in lines]
    frames = []
    for d in docs:
        assert not problems(d, "floor")
        frames.append(engine.frame(d, version_for(d, None, "floor")))
    out = []
    for chunk in engine.groundings([f.facts for f in frames]):
        ctl = clingo.Control(["--warn=none"])
        ctl.add("base", [], program)
        ctl.add("base", [], "\n".join(facts[t].replace("(#", f"({s}") for s, t in enumerate(chunk)))
        ctl.ground([("base", [])])
        with ctl.solve(yield_=True) as handle:
            by_snapshot = atoms_by_snapshot(shown_texts(next(iter(handle))))
        out.extend(by_snapshot.get(s, []) for s in range(len(chunk)))
        del ctl, handle
    for f, atoms in zip(frames, out, strict=True):
        build_ruling(f.doc, f.version.name, atoms, f.names, f.clock).to_json()
    return (time.process_time() - begin) / len(lines)


def cmd_phases(args: argparse.Namespace) -> None:
    """CPU time per phase (one process), the facts floor of the same snapshots
    in the same run, and the ground atoms per snapshot."""
    from mtgcontrol import catalog
    from mtgcontrol.engine.api import adjudicate_many, engine_for

    make = load("make_corpus")
    rng = random.Random(args.seed)
    lines = [json.dumps(make.realistic(rng, i + 1, args.objects, args.effects))
             for i in range(args.snapshots)]
    fast = not args.plain
    engine = engine_for((), fast)
    engine.phases.__init__()  # type: ignore[misc]
    start = time.process_time()
    docs = [json.loads(line) for line in lines]
    parse = time.process_time() - start
    rulings = list(adjudicate_many([(d, "bench") for d in docs], fast=fast))
    start = time.process_time()
    for r in rulings:
        r.to_json()
    output = time.process_time() - start
    ph = engine.phases
    n = len(docs)
    rows = [("json parse", parse), ("validate", ph.validate), ("facts", ph.facts),
            ("program parse", ph.parse), ("ground", ph.ground), ("solve", ph.solve),
            ("read-back", ph.read_back), ("release", ph.release), ("ruling", ph.ruling),
            ("output", output)]
    total = sum(s for _, s in rows)
    print(f"{n} snapshots of {args.objects} objects (at most {args.effects} effects), "
          f"{'fast' if fast else 'plain'} path, one process, CPU time; "
          f"cache hits {ph.cache_hits} of {ph.lookups}")
    for label, seconds in rows:
        print(f"{label:>14}: {seconds / n * 1e3:7.3f} ms/snapshot  {seconds / total:6.1%}")
    print(f"{'total':>14}: {total / n * 1e3:7.3f} ms/snapshot  ({n / total:.0f} snapshots/s)")
    version = catalog.newest()
    texts = [engine.frame(d, version).facts for d in docs]
    floor = facts_floor(texts)
    print(f"{'facts floor':>14}: {floor * 1e3:7.3f} ms/snapshot (clingo reading the facts, "
          f"no rule); total = {total / n / floor:.1f}x the floor")
    ruling = ruling_floor(engine, lines)
    print(f"{'ruling floor':>14}: {ruling * 1e3:7.3f} ms/snapshot (the ruling's atoms as facts, "
          f"every Python step); total = {total / n / ruling:.2f}x the ruling floor")
    if args.atoms:
        print(f"{'ground atoms':>14}: {ground_atoms(engine, texts):9.0f} per snapshot")


def cmd_memory(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        peaks = {}
        for n in (args.small, args.large):
            path = Path(tmp) / f"c{n}.jsonl"
            write_corpus(path, n, args.seed, args.objects, args.effects)
            seconds, peak = timed_run(batch_cmd(path, args.workers))
            peaks[n] = peak
            print(f"{n:>7} snapshots of {args.objects} objects, --workers {args.workers}: "
                  f"{seconds:6.1f} s, "
                  f"peak RSS of the process tree {peak / 2**20:6.0f} MB")
        print(f"growth {args.small} -> {args.large}: "
              f"{peaks[args.large] / peaks[args.small] - 1:+.1%} (target within 15 %, < 400 MB)")


def cmd_cost(args: argparse.Namespace) -> None:
    from mtgcontrol import catalog
    from mtgcontrol.engine import Engine

    make = load("make_corpus")
    version = catalog.newest()
    effects = (0, 4, 16, 64)
    print(f"ms per snapshot (plain path: whole snapshots, no cache; {args.per_cell} per cell)")
    print("objects " + "".join(f"{f'{e} effects':>14}" for e in effects))
    for objects in (5, 10, 20, 40, 80):
        cells = []
        for n_eff in effects:
            rng = random.Random(objects * 100 + n_eff)
            docs = [make.Builder(rng, i, objects, n_eff, 6, exact_effects=True).build()
                    for i in range(args.per_cell)]
            engine = Engine(fast=False)
            start = time.perf_counter()
            engine.judge([(d, version) for d in docs])
            ms = (time.perf_counter() - start) / len(docs) * 1e3
            mean = sum(len(d["effects"]) for d in docs) / len(docs)
            cells.append(f"{ms:8.1f} ({mean:3.0f})")
        print(f"{objects:>7} " + "".join(f"{c:>14}" for c in cells), flush=True)
    print("(in parentheses: the mean number of effects the generator could place)")


def cmd_extremes(_args: argparse.Namespace) -> None:
    from mtgcontrol import adjudicate

    many = {"players": ["alice", "bob"], "now": 1000,
            "objects": [{"id": "bear", "kind": "card", "zone": "battlefield",
                         "start": {"zone": "library", "player": "alice"},
                         "entered": {"at": 1, "under": "alice"}},
                        {"id": "spell", "kind": "card", "zone": "graveyard",
                         "start": {"zone": "library", "player": "bob"}}],
            "effects": [{"id": f"e{i}", "kind": "control", "origin": "resolution",
                         "source": "spell", "player": ("alice", "bob")[i % 2],
                         "objects": ["bear"], "timestamp": 2 + 2 * i} for i in range(200)]}
    # The engine is built (catalog, program parse) by a first small snapshot:
    # the figures are the time to judge each snapshot, not the start-up.
    start = time.perf_counter()
    adjudicate({"players": ["alice"], "objects": [], "effects": []})
    print(f"start-up (first snapshot): {time.perf_counter() - start:.2f} s")
    start = time.perf_counter()
    adjudicate(many)
    print(f"200 control effects on one object: {time.perf_counter() - start:.2f} s")
    turns = {"players": ["alice", "bob", {"id": "carol", "left_at": 5990}], "now": 6001,
             "turns": [{"player": ("alice", "bob", "carol")[i % 3] if i < 2995 else
                        ("alice", "bob")[i % 2], "from": 2 * i} for i in range(3000)],
             "objects": [{"id": "bear", "kind": "card", "zone": "battlefield",
                          "start": {"zone": "library", "player": "carol"},
                          "entered": {"at": 1, "under": "carol"}}],
             "effects": []}
    start = time.perf_counter()
    adjudicate(turns)
    print(f"3,000 recorded turns and a player who left: {time.perf_counter() - start:.2f} s")


def many_effects(n: int, mix: str) -> dict:
    """``n`` control effects on one creature, ``bear``: ``steals`` (resolution
    effects, alternating players, distinct timestamps), ``aura`` (the same and one
    static Aura effect on the bear), ``tied`` (resolution effects in pairs that
    share a timestamp), ``mixed`` (a quarter static effects of Auras attached to
    the bear, the rest steals with mixed durations, every fifth tied)."""
    players = ("alice", "bob")
    objects: list[dict] = [
        {"id": "bear", "kind": "card", "zone": "battlefield", "types": ["creature"],
         "start": {"zone": "library", "player": "alice"}, "entered": {"at": 1, "under": "alice"}},
        {"id": "spell", "kind": "card", "zone": "graveyard", "types": ["sorcery"],
         "start": {"zone": "library", "player": "bob"}}]
    effects: list[dict] = []

    def aura(i: int, at: int) -> None:
        objects.append({"id": f"a{i}", "kind": "card", "zone": "battlefield",
                        "types": ["enchantment", "aura"],
                        "start": {"zone": "library", "player": players[i % 2]},
                        "entered": {"at": at, "under": players[i % 2]}, "attached_to": "bear"})
        effects.append({"id": f"e{i}", "kind": "control", "origin": "static",
                        "source": f"a{i}", "attached": True, "timestamp": at})

    durations = ("indefinite", "while-you-control-source", "end-of-turn", "indefinite")
    for i in range(n):
        ts = 2 + 2 * (i // 2 if mix == "tied" or (mix == "mixed" and i % 5 == 1) else i)
        if mix == "mixed" and i % 4 == 3:
            aura(i, ts)
            continue
        effect = {"id": f"e{i}", "kind": "control", "origin": "resolution", "source": "spell",
                  "player": players[i % 2], "objects": ["bear"], "timestamp": ts}
        if mix == "mixed" and durations[i % 4] != "indefinite":
            effect["duration"] = durations[i % 4]
            if durations[i % 4] == "end-of-turn":
                effect["ended_at"] = ts + 3
        effects.append(effect)
    if mix == "aura":
        aura(n, 2 * n + 3)
    return {"players": list(players), "now": 2 * n + 10, "objects": objects,
            "effects": effects}


def cmd_effects(args: argparse.Namespace) -> None:
    """CPU seconds to judge n control effects on one object, for each mix, and
    the growth from n/4 to n effects."""
    from mtgcontrol import adjudicate

    adjudicate({"players": ["alice"], "objects": [], "effects": []})  # start-up
    print(f"CPU seconds of one process to judge one snapshot (n = {args.n // 4}, {args.n})")
    for mix in ("steals", "aura", "tied", "mixed"):
        seconds = []
        for n in (args.n // 4, args.n):
            doc = many_effects(n, mix)
            start = time.process_time()
            adjudicate(doc)
            seconds.append(time.process_time() - start)
        print(f"{mix:>7}: {seconds[0]:7.3f} s, {seconds[1]:7.3f} s  "
              f"(x4 effects: x{seconds[1] / seconds[0]:.1f} time)", flush=True)


def cmd_differential(args: argparse.Namespace) -> None:
    from mtgcontrol.engine.api import adjudicate_many

    make = load("make_corpus")
    rng = random.Random(args.seed)
    differ = total = 0
    start = time.perf_counter()
    while total < args.snapshots:
        chunk = min(1000, args.snapshots - total)
        if args.phasing:
            docs = [make.phasing_game(rng, total + i) for i in range(chunk)]
        elif args.crowded:
            docs = [make.crowded_game(rng, total + i) for i in range(chunk)]
        else:
            docs = [make.realistic(rng, total + i) if i % 2
                    else make.Builder(rng, total + i).build() for i in range(chunk)]
        items = [(d, "differential") for d in docs]
        plain = [r.to_json() for r in adjudicate_many(items, fast=False)]
        fast = [r.to_json() for r in adjudicate_many(items, fast=True)]
        differ += sum(a != b for a, b in zip(plain, fast, strict=True))
        total += chunk
        print(f"\r{total} snapshots compared, {differ} differ", end="", flush=True)
    print(f"\n{total} snapshots, fast vs plain path: {differ} differ "
          f"({time.perf_counter() - start:.0f} s)")


def cmd_run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        path = Path(tmp) / "corpus.jsonl"
        start = time.perf_counter()
        write_corpus(path, args.snapshots, args.seed)
        print(f"corpus of {args.snapshots} snapshots written in "
              f"{time.perf_counter() - start:.0f} s ({path.stat().st_size / 2**20:.0f} MB)")
        out = Path(tmp) / "rulings.jsonl"
        seconds, peak = timed_run(batch_cmd(path, args.workers, str(out)), every=0.25)
        with out.open(encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        print(f"mtgcontrol batch --workers {args.workers}: {lines} rulings in {seconds:.0f} s "
              f"({args.snapshots / seconds:.0f} snapshots/s), "
              f"peak RSS of the process tree {peak / 2**20:.0f} MB")


# The clingo floor: the subset the reference judges (owner, default controller,
# latest control effect that names a player), written over the engine's facts.
REFERENCE_SUBSET = """
owner_is(S,O,P) :- start(S,O,_,P), not brought_in_by(S,O,_).
owner_is(S,O,P) :- brought_in_by(S,O,P).
owner_is(S,O,P) :- created(S,O,_,P).
dflt_is(S,O,P) :- entered(S,O,_,P), obj(S,O,_,battlefield).
dflt_is(S,O,P) :- put_on_stack(S,O,_,P), obj(S,O,_,stack).
later(S,O,T) :- affects(S,E,_,O), effect(S,E,control,_,T), affects(S,E2,_,O),
    effect(S,E2,control,_,T2), gives_to(S,E2,_), T2 > T.
stolen_by(S,O,P) :- affects(S,E,_,O), effect(S,E,control,_,T), gives_to(S,E,P),
    not later(S,O,T), dflt_is(S,O,_).
ctrl_is(S,O,P) :- stolen_by(S,O,P).
ctrl_is(S,O,P) :- dflt_is(S,O,P), not stolen_by(S,O,_).
#show owner_is/3. #show ctrl_is/3. #show dflt_is/3.
"""


CITATION_CUTS = {
    "none": lambda head, file: False,
    "because": lambda head, file: head == "#show because",
    "copies": lambda head, file: head == "why" and file == "ruling",
    "family": lambda head, file: head == "why" and file != "ruling",
    "all": lambda head, file: head in ("why", "#show because"),
}
"""What ``citations`` leaves out of the ruling program: nothing; the two ``#show
because`` lines (rule-number lookups); ruling.lp's why/7 rules (the copies of the
owns/7, dflt/7, fixed/7, you/7, may_activate/7 carriers and the phasing reasons); the
rule families' own why/7 rules; every why/7 rule and both lines."""


def citation_place(statement, starts: list[tuple[int, str]]) -> tuple[str, str]:  # noqa: ANN001
    """A statement's head predicate ('#show NAME' for a show line) and its encoding
    (by its first line in the program text: ``starts``)."""
    from clingo import ast

    head = ""
    if statement.ast_type == ast.ASTType.Rule and statement.head.ast_type == \
            ast.ASTType.Literal and statement.head.atom.ast_type == ast.ASTType.SymbolicAtom:
        head = getattr(statement.head.atom.symbol, "name", "")
    elif statement.ast_type == ast.ASTType.ShowTerm:
        head = "#show " + getattr(statement.term, "name", "")
    at = statement.location.begin.line
    return head, max((s for s in starts if s[0] <= at), default=(0, "?"))[1]


def cmd_citations(args: argparse.Namespace) -> None:
    """Grounding CPU time per snapshot of the ruling program with parts of the
    citations cut (``CITATION_CUTS``), the cuts alternated in each round, and the
    why/7 atoms per snapshot by fact and rule group.  Cutting changes the output:
    this measures what the citations cost, it is no way of judging."""
    import collections
    import statistics

    import clingo
    from clingo import ast

    from mtgcontrol.engine.api import engine_for, version_for
    from mtgcontrol.engine.engine import RULING, encoding_file
    from mtgcontrol.engine.solve import ENCODINGS

    make = load("make_corpus")
    rng = random.Random(args.seed)
    docs = [make.realistic(rng, i + 1) for i in range(args.snapshots)]
    engine = engine_for((), True)
    texts = [engine.frame(d, version_for(d, None, "bench")).facts for d in docs]
    groundings = ["\n".join(t.replace("(#", f"({s}") for s, t in enumerate(chunk))
                  for chunk in engine.groundings(texts)]
    starts, line = [], 1  # the first line of each encoding in the program text
    for name in ENCODINGS:
        starts.append((line, name))
        line += encoding_file(f"{name}.lp").count("\n") + 1

    programs = [(facts, engine.statements(RULING, facts)) for facts in groundings]

    def ground(cut: str) -> tuple[float, float]:
        seconds, atoms = 0.0, 0
        drop = CITATION_CUTS[cut]
        for facts, statements in programs:
            ctl = clingo.Control(["--warn=none", "--stats"])
            with ast.ProgramBuilder(ctl) as builder:
                for statement in statements:
                    if not drop(*citation_place(statement, starts)):
                        builder.add(statement)
            ctl.add("base", [], facts)
            start = time.process_time()
            ctl.ground([("base", [])])
            seconds += time.process_time() - start
            ctl.solve()
            atoms += ctl.statistics["problem"]["lp"]["atoms"]
        return seconds / len(docs) * 1e3, atoms / len(docs)

    cuts = list(CITATION_CUTS)
    times: dict[str, list[float]] = {c: [] for c in cuts}
    sizes = {}
    for _ in range(args.rounds):
        for cut in cuts:
            ms, sizes[cut] = ground(cut)
            times[cut].append(ms)
    print(f"{args.snapshots} snapshots of 20 objects, {len(programs)} groundings, "
          f"{args.rounds} rounds (cuts alternated), grounding CPU time per snapshot:")
    base = statistics.median(times["none"])
    for cut in cuts:
        med = statistics.median(times[cut])
        print(f"  cut {cut:>8}: median {med:6.2f} ms ({med / base - 1:+6.1%}), min "
              f"{min(times[cut]):6.2f} ms; {sizes[cut]:6.0f} lp atoms per snapshot")
    census: collections.Counter[tuple[str, str]] = collections.Counter()
    for facts, statements in programs:
        ctl = clingo.Control(["--warn=none"])
        with ast.ProgramBuilder(ctl) as builder:
            for statement in statements:
                builder.add(statement)
        ctl.add("base", [], facts)
        ctl.ground([("base", [])])
        for atom in ctl.symbolic_atoms.by_signature("why", 7):
            fact, group = atom.symbol.arguments[2:4]
            census[(str(fact), group.string)] += 1
    total = sum(census.values())
    print(f"why/7 atoms: {total / len(docs):.1f} per snapshot, the largest by fact and group:")
    for (fact, group), count in census.most_common(args.top):
        print(f"  {fact:>18} {group:<10} {count / len(docs):6.2f}")


def cmd_floor(args: argparse.Namespace) -> None:
    """The least a judging costs (CPU seconds of one process, per snapshot): the
    Python steps of the pipeline with every snapshot's atoms already known
    (a second pass, all from the cache), and clingo reading the same snapshots'
    facts, 128 to a grounding, with no rules or with only the reference's subset.
    Compared with the budget the target leaves each of 2 workers."""
    from mtgcontrol import catalog
    from mtgcontrol.engine.api import adjudicate_many, engine_for

    make = load("make_corpus")
    reference = load("reference")
    rng = random.Random(args.seed)
    lines = [json.dumps(make.realistic(rng, i + 1)) for i in range(args.snapshots)]
    n = len(lines)
    start = time.process_time()
    for line in lines:
        json.dumps(reference.judge(json.loads(line)))
    ref_rate = n / (time.process_time() - start)
    budget = 2 / (0.35 * ref_rate)
    print(f"{n} realistic 20-object snapshots; CPU time of one process")
    print(f"reference: {ref_rate:,.0f} snapshots/s; 35 % of it on 2 workers leaves each "
          f"worker {budget * 1e3:.3f} ms per snapshot")

    def pipeline() -> float:
        begin = time.process_time()
        docs = [(json.loads(line), "floor") for line in lines]
        for ruling in adjudicate_many(docs, fast=True, batch_size=100):
            ruling.to_json()
        return time.process_time() - begin

    engine = engine_for((), True)
    engine.cache_size = n
    cold = pipeline()
    warm = pipeline()
    for label, seconds in (("engine, every snapshot judged:", cold / n),
                           ("engine, every snapshot from the cache:", warm / n)):
        print(f"{label:<40} {seconds * 1e3:7.3f} ms per snapshot "
              f"({seconds / budget:.1f}x the budget)")
    print("  (from the cache: JSON parse, validation, facts, ruling and output only)")
    version = catalog.newest()
    texts = [engine.frame(json.loads(line), version).facts for line in lines]
    for label, program in (("clingo, the facts and no rule:", "#show obj/4."),
                           ("clingo, the reference's subset:", REFERENCE_SUBSET)):
        seconds = facts_floor(texts, program)
        print(f"{label:<40} {seconds * 1e3:7.3f} ms per snapshot "
              f"({seconds / budget:.1f}x the budget)")


def _pss(pid: int) -> int:
    """Proportional set size (bytes): resident pages, each shared page divided among
    the processes sharing it (forked workers share their parent's pages)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_run(cmd: list[str]) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak resident bytes and peak proportional set size
    of the command's whole process tree (sampled every 0.2 s, so the last moments of
    a short-lived process may be missed).  Resident bytes count a page shared by a
    forked worker and its parent twice; the proportional set size once."""
    start = time.perf_counter()
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (read only if the command fails)
    proc = subprocess.Popen(cmd, stderr=errors)
    tree = load("bench_memory")._tree  # pid -> (resident bytes, CPU ticks), from /proc
    seen: dict[int, float] = {}  # a process that ended keeps its last figure
    peak = peak_pss = 0
    while proc.poll() is None:
        found = tree(proc.pid)
        seen.update((pid, ticks / os.sysconf("SC_CLK_TCK")) for pid, (_rss, ticks) in found.items())
        peak = max(peak, sum(rss for rss, _ticks in found.values()))
        peak_pss = max(peak_pss, sum(_pss(pid) for pid in found))
        time.sleep(0.2)
    errors.seek(0)
    tail = errors.read().decode(errors="replace").splitlines()[-20:]
    errors.close()
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}); its last error lines:\n"
                         + "\n".join(tail))
    return time.perf_counter() - start, sum(seen.values()), peak, peak_pss


def cmd_dask(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        write_corpus(path, args.snapshots, args.seed)
        print(f"corpus: {args.snapshots} realistic 20-object snapshots (seed {args.seed}); "
              f"{os.cpu_count()} core(s), {args.workers} worker(s), load "
              f"{os.getloadavg()[0]:.1f}")
        kinds = {"--workers": [], "--dask local": ["--dask", "local"]}
        walls: dict[str, list[float]] = {k: [] for k in kinds}
        cpus: dict[str, list[float]] = {k: [] for k in kinds}
        peaks: dict[str, list[int]] = {k: [] for k in kinds}
        psss: dict[str, list[int]] = {k: [] for k in kinds}
        for _ in range(args.rounds):
            for kind, extra in kinds.items():
                out = str(Path(tmp) / f"{kind.strip('-').replace(' ', '-')}.jsonl")
                seconds, cpu, peak, pss = cpu_run([*batch_cmd(path, args.workers, out), *extra,
                                                   *args.extra])
                walls[kind].append(seconds)
                cpus[kind].append(cpu)
                peaks[kind].append(peak)
                psss[kind].append(pss)
        for kind in kinds:
            wall, cpu, peak, pss = (min(walls[kind]), min(cpus[kind]), max(peaks[kind]),
                                    max(psss[kind]))
            print(f"batch {kind} {args.workers}: {args.snapshots / wall:8.1f} snapshots/s "
                  f"(best wall {wall:.1f} s of {args.rounds}; CPU {cpu:.1f} s, "
                  f"{args.snapshots / cpu:.1f} snapshots per CPU second; "
                  f"peak of the tree: RSS {peak / 2**20:.0f} MB, PSS {pss / 2**20:.0f} MB)")
        same = (Path(tmp) / "workers.jsonl").read_bytes() == \
            (Path(tmp) / "dask-local.jsonl").read_bytes()
        print(f"outputs byte-identical: {same}")
        ratio = min(walls["--workers"]) / min(walls["--dask local"])
        print(f"ratio (dask / workers), wall: {ratio:.2f}x; CPU efficiency: "
              f"{min(cpus['--workers']) / min(cpus['--dask local']):.2f}x (target >= 0.8x); "
              f"memory (PSS): {max(psss['--dask local']) / max(psss['--workers']):.2f}x "
              f"(target <= 1.3x; RSS {max(peaks['--dask local']) / max(peaks['--workers']):.2f}x); "
              f"load {os.getloadavg()[0]:.1f}")


# Dask's configuration for a cluster that judges snapshots: what --dask local sets in
# its own process (the scheduler's machine watch every 5 s, event loop ticks every
# second, no statistical profiler in the workers); the workers load
# mtgcontrol.batch.dask_worker as they start (a warm engine, quieter monitors).
CLUSTER_ENV = {"DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
               "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
               "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}


class GrowingLines:
    """The lines of a file still being written, counted as they arrive: the rulings
    file grows to gigabytes, so it is never read whole again."""

    def __init__(self, path: Path) -> None:
        self.path, self.lines, self.offset = path, 0, 0

    def count(self) -> int:
        if self.path.exists():
            with self.path.open("rb") as f:
                f.seek(self.offset)
                while chunk := f.read(1 << 24):
                    self.lines += chunk.count(b"\n")
                    self.offset += len(chunk)
        return self.lines


def cmd_cluster(args: argparse.Namespace) -> None:
    """A run on a Dask cluster of separate processes, as a user's cluster is: one
    ``dask scheduler``, ``--workers`` times ``dask worker`` (a nanny and a worker each,
    one thread, ``--preload mtgcontrol.batch.dask_worker``), and ``mtgcontrol batch
    --dask ADDRESS`` as the client.  Prints its time, CPU and peak memory (RSS and PSS
    of every process of the cluster and the client, sampled every second) and the
    progress every minute; then judges the first ``--sample`` lines with ``batch
    --workers 2`` and compares the bytes."""
    dask_cli = str(Path(sys.executable).with_name("dask"))
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        path = Path(args.corpus) if args.corpus else Path(tmp) / "corpus.jsonl"
        if not args.corpus:
            start = time.perf_counter()
            write_corpus(path, args.snapshots, args.seed)
            print(f"corpus of {args.snapshots} snapshots written in "
                  f"{time.perf_counter() - start:.0f} s ({path.stat().st_size / 2**20:.0f} MB)",
                  flush=True)
        env = {**os.environ, **CLUSTER_ENV}
        file = Path(tmp) / "scheduler.json"
        scheduler = subprocess.Popen(
            [dask_cli, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(file)], env=env, stderr=subprocess.DEVNULL)
        while not file.exists():
            time.sleep(0.2)
        time.sleep(0.5)
        address = json.loads(file.read_text())["address"]
        workers = [subprocess.Popen(
            [dask_cli, "worker", address, "--nworkers", "1", "--nthreads", "1",
             "--no-dashboard", "--preload", "mtgcontrol.batch.dask_worker"],
            env=env, stderr=subprocess.DEVNULL) for _ in range(args.workers)]
        out = Path(tmp) / "dask.jsonl"
        tree = load("bench_memory")._tree
        seen: dict[int, float] = {}
        peak = peak_pss = 0
        start = time.perf_counter()
        client = subprocess.Popen([*mtgcontrol(), "batch", str(path), "-o", str(out),
                                   "--dask", address, "--workers", str(args.workers)],
                                  stderr=subprocess.DEVNULL, env=env)
        last_report = start
        written = GrowingLines(out)
        try:
            while client.poll() is None:
                found: dict[int, tuple[int, int]] = {}
                for root in (scheduler, *workers, client):
                    found.update(tree(root.pid))
                seen.update((pid, ticks / os.sysconf("SC_CLK_TCK"))
                            for pid, (_rss, ticks) in found.items())
                peak = max(peak, sum(rss for rss, _ in found.values()))
                peak_pss = max(peak_pss, sum(_pss(pid) for pid in found))
                if time.perf_counter() - last_report >= 60 and out.exists():
                    last_report = time.perf_counter()
                    done = written.count()
                    print(f"{done} lines in {last_report - start:.0f} s "
                          f"({done / (last_report - start):.1f}/s; load "
                          f"{os.getloadavg()[0]:.1f}); peak RSS {peak / 2**20:.0f} MB, "
                          f"PSS {peak_pss / 2**20:.0f} MB", flush=True)
                time.sleep(1.0)
        finally:
            wall = time.perf_counter() - start
            for proc in (*workers, scheduler):
                proc.terminate()
            for proc in (*workers, scheduler):
                proc.wait()
        done = written.count()  # fewer than the corpus's where the client was stopped
        print(f"cluster run (scheduler, {args.workers} workers, client as separate processes): "
              f"{done} of {args.snapshots} snapshots in {wall:.0f} s ({done / wall:.1f}/s), "
              f"CPU {sum(seen.values()):.0f} s, exit {client.returncode}; peak RSS of all its "
              f"processes {peak / 2**20:.0f} MB, PSS {peak_pss / 2**20:.0f} MB", flush=True)
        sample = Path(tmp) / "sample.jsonl"
        with path.open("rb") as src, sample.open("wb") as dst:
            for _, line in zip(range(args.sample), src, strict=False):
                dst.write(line)
        local = Path(tmp) / "local.jsonl"
        seconds, cpu, rss, pss = cpu_run(batch_cmd(sample, 2, str(local)))
        with out.open("rb") as f:
            head = b"".join(line for _, line in zip(range(args.sample), f, strict=False))
        print(f"batch --workers 2 on the first {args.sample} lines: {seconds:.0f} s, CPU "
              f"{cpu:.0f} s, peak RSS {rss / 2**20:.0f} MB, PSS {pss / 2**20:.0f} MB; "
              f"the cluster's lines byte-identical: {head == local.read_bytes()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func, default in (("rates", cmd_rates, 4000), ("phases", cmd_phases, 2000),
                                ("differential", cmd_differential, 100_000),
                                ("run", cmd_run, 1_000_000)):
        p = sub.add_parser(name)
        p.add_argument("--snapshots", type=int, default=default)
        p.add_argument("--seed", type=int, default=1)
        p.set_defaults(func=func)
        if name == "phases":
            p.add_argument("--plain", action="store_true", help="fast paths off")
            p.add_argument("--objects", type=int, default=20)
            p.add_argument("--effects", type=int, default=8)
            p.add_argument("--atoms", action="store_true", help="count ground atoms too")
        if name == "differential":
            p.add_argument("--phasing", action="store_true",
                           help="random games where permanents phase (make_corpus.phasing_game)")
            p.add_argument("--crowded", action="store_true",
                           help="many effects on one or two creatures (make_corpus.crowded_game)")
        if name == "run":
            p.add_argument("--workers", type=int, default=2)
            p.add_argument("--tmp", default=None, help="where to write the corpus")
    p = sub.add_parser("memory")
    p.add_argument("--small", type=int, default=2000)
    p.add_argument("--large", type=int, default=8000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--objects", type=int, default=20)
    p.add_argument("--effects", type=int, default=8)
    p.set_defaults(func=cmd_memory)
    p = sub.add_parser("cost")
    p.add_argument("--per-cell", type=int, default=20)
    p.set_defaults(func=cmd_cost)
    p = sub.add_parser("citations")
    p.add_argument("--snapshots", type=int, default=256)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=cmd_citations)
    p = sub.add_parser("floor")
    p.add_argument("--snapshots", type=int, default=2048)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=cmd_floor)
    p = sub.add_parser("dask")
    p.add_argument("--snapshots", type=int, default=2000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("extra", nargs="*", help="more batch options for both runs (after --)")
    p.set_defaults(func=cmd_dask)
    p = sub.add_parser("cluster")
    p.add_argument("--snapshots", type=int, default=1_000_000)
    p.add_argument("--sample", type=int, default=100_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--corpus", default=None, help="judge this file instead of writing one")
    p.add_argument("--tmp", default=None, help="where to write the corpus and the rulings")
    p.set_defaults(func=cmd_cluster)
    p = sub.add_parser("effects")
    p.add_argument("--n", type=int, default=200)
    p.set_defaults(func=cmd_effects)
    p = sub.add_parser("extremes")
    p.set_defaults(func=cmd_extremes)
    args = parser.parse_args(argv)
    args.func(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
