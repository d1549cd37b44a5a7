"""Coverage of the rules catalog: for a CR version, each catalog rule with the
encoding files that implement its group and the scenario files that cover it.

A scenario file covers (version V, rule number N) when it runs under V (its
``rules`` list; default the newest version) and either

* N is in its ``covers`` list (static), or
* its ruling under V cites N: a ``because`` rule, a fate, a choice, a
  violation or a controlled player (dynamic).

The dynamic part judges every scenario snapshot once per version, in one
grounding per version, and keeps the cited numbers in a cache file keyed by the
encodings, the catalog and each scenario's text, so ``mtgcontrol rules`` stays
fast.  A static ``covers`` entry is taken at its word, except a number that
names different rules in the versions the scenario runs under (2017's 111.2 is a
spell rule, 2020's a token rule): that one counts only where the ruling cites it.

Catalog groups marked ``unencoded`` (in scope, but not expressible in
snapshot/1) are listed by ``unencoded`` and printed separately.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import textwrap
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from . import catalog
from .engine.validate import shown

# `mtgcontrol rules` and ``print_catalog``: look for scenario files here,
# relative to the current directory.
DEFAULT_SCENARIOS = Path("tests") / "scenarios"

# The atoms a ruling cites rule numbers in, and the argument holding the number
# (after the snapshot number).
CITING_ATOMS = {"because": 2, "fate": 2, "choice": 3, "violation": 0, "controlled_player": 2}

# A rule group named in an encoding: on(S,"G") and any other quoted group id.
ON_GROUP = re.compile(r'on\(S,"([^"]+)"\)')
GROUP_STRING = re.compile(r'"(\d{3}\.\d+[a-z]?(?:@\d{4}-\d\d-\d\d)?)"')
COMMENT = re.compile(r"%.*")


@dataclass(frozen=True)
class RuleCoverage:
    number: str
    group: str  # the encoding group (asp)
    paraphrase: str
    in_extract: bool
    id: str = ""  # the catalog variant key: the stable group id (@ the date of a later meaning)
    encodings: list[str] = field(default_factory=list)
    scenarios: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Unencoded:
    """A catalog entry in scope but not expressible in snapshot/1."""

    number: str
    group: str
    paraphrase: str
    reason: str
    id: str = ""


@dataclass(frozen=True)
class ScenarioFile:
    """What coverage needs of a scenario file."""

    path: Path
    versions: tuple[str, ...]  # resolved CR version names
    covers: tuple[str, ...]
    snapshot: dict[str, Any]
    digest: str


# --- catalog and encodings ------------------------------------------------------------

def _version(version: catalog.Version | str | None) -> catalog.Version:
    if isinstance(version, catalog.Version):
        return version
    return catalog.resolve(version)


def unencoded(version: catalog.Version | str | None = None) -> list[Unencoded]:
    """The version's catalog entries marked ``unencoded``, in catalog order."""
    return [Unencoded(u.number, u.group, u.paraphrase, u.reason, u.variant)
            for u in _version(version).unencoded]


@cache
def encoding_texts() -> dict[str, str]:
    """Every encoding file of the installed package: file name -> text."""
    root = resources.files("mtgcontrol.encodings")
    return {entry.name: entry.read_text(encoding="utf-8")
            for entry in sorted(root.iterdir(), key=lambda e: e.name)
            if entry.name.endswith(".lp")}


def encodings_of(group: str) -> list[str]:
    """The encoding files whose text contains the group id in double quotes."""
    quoted = f'"{group}"'
    return [name for name, text in encoding_texts().items() if quoted in text]


def encoded_groups() -> dict[str, list[str]]:
    """Every group the encodings' code names (comments aside): ``on(S,"G")``
    literals and other quoted group ids, as in ``G = ("603.3a"; "113.8"), on(S,G)``;
    group -> files."""
    found: dict[str, list[str]] = defaultdict(list)
    for name, text in encoding_texts().items():
        code = COMMENT.sub("", text)
        for group in sorted(set(ON_GROUP.findall(code)) | set(GROUP_STRING.findall(code))):
            found[group].append(name)
    return dict(found)


# --- scenario files -----------------------------------------------------------------

def checkout_scenarios() -> Path | None:
    """``tests/scenarios`` of the checkout this package runs from (editable install)."""
    here = Path(__file__).resolve().parents[2] / "tests" / "scenarios"
    return here if here.is_dir() else None


def _yaml(text: str) -> Any:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader


def load_scenarios(folder: Path) -> list[ScenarioFile]:
    """Every scenario file (``*.yaml`` with ``snapshot`` and ``expect``) under ``folder``."""
    found = []
    for path in sorted(folder.rglob("*.yaml")):
        raw = path.read_bytes()
        try:
            data = _yaml(raw.decode("utf-8"))
        except (UnicodeDecodeError, yaml.YAMLError):
            continue
        if not (isinstance(data, dict) and "snapshot" in data and "expect" in data):
            continue
        rules = data.get("rules")
        wanted = [rules] if isinstance(rules, str) else list(rules or [None])
        versions = []
        for name in wanted:
            try:
                versions.append(catalog.resolve(name).name)
            except catalog.UnknownVersion:
                continue
        found.append(ScenarioFile(path, tuple(dict.fromkeys(versions)),
                                  tuple(str(c) for c in data.get("covers") or ()),
                                  data["snapshot"], hashlib.sha256(raw).hexdigest()))
    return found


def _engine_digest() -> str:
    from .engine.solve import encoding_text

    h = hashlib.sha256(encoding_text().encode())
    for version in catalog.versions():
        h.update(catalog.numbering_facts(version).encode())
    return h.hexdigest()


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mtgcontrol" / "coverage.json"


def _read_cache(path: Path, engine: str) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("engine") != engine:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def _write_cache(path: Path, engine: str, entries: dict[str, list[str]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"engine": engine, "entries": entries}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs time


def _judge_citations(version: catalog.Version,
                     snapshots: Sequence[dict[str, Any]]) -> list[set[str]]:
    """The rule numbers each snapshot's ruling cites under ``version`` (the engine's
    plain path, one grounding)."""
    from .engine.api import engine_for
    from .engine.validate import problems

    engine = engine_for((), False)
    judged = [i for i, doc in enumerate(snapshots) if not problems(doc, "scenario")]
    frames = [engine.frame(snapshots[i], version) for i in judged]
    cited: list[set[str]] = [set() for _ in snapshots]
    for i, atoms in zip(judged, engine.atoms_of(frames), strict=True):
        for pred, args in atoms:
            if pred in CITING_ATOMS:
                cited[i].add(str(args[CITING_ATOMS[pred]]))
    return cited


def cited_numbers(scenarios: Sequence[ScenarioFile], only: str | None = None
                  ) -> dict[tuple[Path, str], set[str]]:
    """The rule numbers each scenario's ruling cites, per version it runs under (or
    only under version ``only``).  Cached: entries of scenario texts not among
    ``scenarios`` are dropped whenever the cache is written."""
    engine = _engine_digest()
    path = _cache_file()
    entries = _read_cache(path, engine)
    todo: dict[str, list[ScenarioFile]] = defaultdict(list)
    result: dict[tuple[Path, str], set[str]] = {}
    for sc in scenarios:
        for v in sc.versions:
            if only is not None and v != only:
                continue
            key = f"{sc.digest}|{v}"
            if key in entries:
                result[(sc.path, v)] = set(entries[key])
            else:
                todo[v].append(sc)
    for name, pending in todo.items():
        version = catalog.resolve(name)
        for sc, numbers in zip(pending, _judge_citations(version, [s.snapshot for s in pending]),
                               strict=True):
            result[(sc.path, name)] = numbers
            entries[f"{sc.digest}|{name}"] = sorted(numbers)
    if todo:
        known = {sc.digest for sc in scenarios}
        _write_cache(path, engine, {k: v for k, v in entries.items()
                                    if k.partition("|")[0] in known})
    return result


def scenario_coverage(version: catalog.Version | str | None, scenarios: Sequence[ScenarioFile],
                      dynamic: bool = True) -> dict[str, set[Path]]:
    """Rule number -> the scenario files that cover it under ``version``.

    A ``covers`` number that names different rules in the versions the scenario
    runs under (``ambiguous_covers``) counts only where the ruling cites it."""
    name = _version(version).name
    runs = [sc for sc in scenarios if name in sc.versions]
    cited = cited_numbers(scenarios, name) if dynamic else {}
    unclear = {(path, number) for path, number, _ in ambiguous_covers(runs)}
    covered: dict[str, set[Path]] = defaultdict(set)
    for sc in runs:
        numbers = cited.get((sc.path, name), set())
        for number in sc.covers:
            if (sc.path, number) not in unclear or number in numbers:
                covered[number].add(sc.path)
        for number in numbers:
            covered[number].add(sc.path)
    return covered


def ambiguous_covers(scenarios: Sequence[ScenarioFile]) -> list[tuple[Path, str, dict[str, str]]]:
    """``covers`` numbers that name different groups in the versions a scenario runs under:
    (file, number, {version: group})."""
    groups = {v.name: {r.number: r.group for r in v.rules} for v in catalog.versions()}
    found = []
    for sc in scenarios:
        for number in sc.covers:
            meaning = {v: groups[v][number] for v in sc.versions if number in groups[v]}
            if len(set(meaning.values())) > 1:
                found.append((sc.path, number, meaning))
    return found


# --- the catalog with its coverage ----------------------------------------------------

class _Checkout:
    """Default of ``coverage``: the checkout's ``tests/scenarios``."""


CHECKOUT = _Checkout()


def coverage(version: catalog.Version | str | None = None,
             scenarios: Path | Sequence[ScenarioFile] | _Checkout | None = CHECKOUT,
             dynamic: bool = True) -> list[RuleCoverage]:
    """Every ``[[rule]]`` entry of ``version`` with its encoding files and covering
    scenario files.  ``scenarios``: a folder, loaded scenario files, ``None`` (no
    scenarios), or by default the checkout's ``tests/scenarios`` if there is one."""
    v = _version(version)
    if isinstance(scenarios, _Checkout):
        scenarios = checkout_scenarios()
    if isinstance(scenarios, Path):
        scenarios = load_scenarios(scenarios)
    covered = scenario_coverage(v, scenarios, dynamic) if scenarios else {}
    return [RuleCoverage(r.number, r.group, r.paraphrase, r.in_extract, r.variant,
                         encodings_of(r.group), sorted(str(p) for p in covered.get(r.number, ())))
            for r in v.rules]


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width) or [""]


def print_catalog(version: catalog.Version | str | None = None,
                  folder: Path | None | _Checkout = CHECKOUT, out: Any = None) -> int:
    """``mtgcontrol rules``: the catalog of ``version`` as a table with its coverage.

    ``folder``: where scenario files are; by default ``tests/scenarios`` under the
    current directory if it exists, else none (encodings only)."""
    out = out or sys.stdout
    width = max(100, shutil.get_terminal_size((120, 24)).columns)
    v = _version(version)
    if isinstance(folder, _Checkout):
        folder = DEFAULT_SCENARIOS if DEFAULT_SCENARIOS.is_dir() else None
    rows = sorted(coverage(v, folder), key=lambda r: catalog.rule_order(r.number))
    with_scenarios = folder is not None
    print(f"CR {v.name}: {len(rows)} catalog rules"
          + (f", scenarios from {folder}" if with_scenarios else
             " (no scenario folder: encodings only)"), file=out)
    number_w = max([len("rule")] + [len(r.number) for r in rows])
    group_w = max([len("group")] + [len(r.id) for r in rows])
    files_w = max([len("encodings")] + [len(" ".join(f.removesuffix(".lp") for f in r.encodings))
                                        for r in rows])
    head = f"{'rule':<{number_w}}  {'group':<{group_w}}  {'encodings':<{files_w}}"
    head += "  scen" if with_scenarios else ""
    indent = len(head) + 2
    print(f"{head}  paraphrase", file=out)
    for r in rows:
        group = r.id
        files = " ".join(f.removesuffix(".lp") for f in r.encodings) or "-"
        line = f"{r.number + ('' if r.in_extract else '*'):<{number_w}}  {group:<{group_w}}  "
        line += f"{files:<{files_w}}"
        if with_scenarios:
            line += f"  {len(r.scenarios):>4}"
        text = _wrap(r.paraphrase, max(40, width - indent))
        print(f"{line}  {text[0]}", file=out)
        for more in text[1:]:
            print(" " * indent + more, file=out)
    if any(not r.in_extract for r in rows):
        print("* not in this version's CR extract", file=out)
    encoded = sum(1 for r in rows if r.encodings)
    summary = f"coverage: {encoded}/{len(rows)} encoded"
    if with_scenarios:
        covered = sum(1 for r in rows if r.scenarios)
        summary += f", {covered}/{len(rows)} covered by scenarios"
        missing = [r.number for r in rows if not r.scenarios]
        if missing:
            summary += f" (none for {', '.join(missing)})"
    unenc = unencoded(v)
    print(summary, file=out)
    if unenc:
        print(f"\nIn scope, not encodable in snapshot/1 ({len(unenc)}):", file=out)
        w = max(len(u.number) for u in unenc)
        for u in sorted(unenc, key=lambda u: catalog.rule_order(u.number)):
            group = f" [{u.id}]"
            lines = _wrap(f"{u.paraphrase}{group} -- {u.reason}", max(40, width - w - 2))
            print(f"{u.number:<{w}}  {lines[0]}", file=out)
            for more in lines[1:]:
                print(" " * (w + 2) + more, file=out)
    return 0


def print_group(group_id: str, out: Any = None) -> int:
    """``mtgcontrol rules --group ID``: one group's numbers by release and its meanings."""
    out = out or sys.stdout
    try:
        g = catalog.group(group_id)
    except KeyError:
        ids = ", ".join(sorted(g.id for g in catalog.groups()))
        print(f"mtgcontrol: --group: expected a catalog group id ({ids}), "
              f"got {shown(group_id)}", file=sys.stderr)
        return 2
    print(f"group {g.id}" + ("" if g.in_extract else " (not in the CR extracts)"), file=out)
    for since, until, number in g.dated_numbers():
        print(f"  {number:<8} from {since}" + (f" until {until}" if until else ""), file=out)
    for v in g.variants:
        print(f"{v.key} (since {v.since}, encoding group \"{v.asp}\")", file=out)
        notes = [v.paraphrase] + [f"changed: {v.change}"] * bool(v.change) + \
            [f"not encodable in snapshot/1: {v.unencoded}"] * bool(v.unencoded)
        for note in notes:
            for line in _wrap(note, 96):
                print(f"  {line}", file=out)
    return 0
