"""Scenario files: a snapshot, the ruling expected for it, one line of intent.

The format is in docs/scenarios.md.  ``load_scenario`` reads a file and checks it
against ``schema/scenario.schema.json`` (a misspelled key anywhere is an error),
the snapshot against the snapshot schema, and every id ``expect`` names against
the snapshot; ``mismatches`` compares a ruling with the expectations (only what
is written is compared); ``run_paths`` runs folders of scenario files for
``mtgcontrol test``; the pytest plugin uses the same code.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from . import catalog
from .engine import validate
from .engine.api import InputError, adjudicate
from .engine.files import TooLarge, read_bounded, write_output
from .engine.ruling import Ruling, controller_at
from .engine.validate import shown
from .present.text import escaped

FACTS = ("owner", "controller", "you", "default_controller")


@dataclass
class Scenario:
    path: Path
    intent: str
    versions: list[str | None]
    covers: list[str]
    snapshot: dict[str, Any]
    expect: dict[str, Any]


class ScenarioError(ValueError):
    """A scenario file that cannot be read as one: its problems, each ``$.path: expected
    ...`` (or ``$.path: what is wrong``); one line per problem, ``FILE: problem``."""

    def __init__(self, path: Path, problems: Sequence[str]) -> None:
        self.path, self.problems = path, list(problems)
        super().__init__("\n".join(escaped(f"{path}: {p}") for p in self.problems))


SCENARIO_KEYS = ("intent", "rules", "covers", "snapshot", "expect", "note")


def looks_like_scenario(data: object) -> bool:
    """A YAML mapping that means to be a scenario: it has one of the scenario's keys.

    A file with ``snapshot`` and a misspelled ``expect`` is still a scenario (and
    then fails its schema), never silently skipped."""
    return isinstance(data, dict) and any(key in data for key in SCENARIO_KEYS)


@cache
def _validator() -> Draft202012Validator:
    text = (resources.files("mtgcontrol.schema") / "scenario.schema.json").read_text("utf-8")
    return Draft202012Validator(json.loads(text))


def _where(path: Sequence[object]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def schema_problems(data: object) -> list[str]:
    """Every way ``data`` breaks the scenario schema, one line each (path: message)."""
    found = []
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.path))):
        if err.validator == "additionalProperties":
            allowed = sorted(err.schema.get("properties", {}))
            extra = sorted(set(err.instance) - set(allowed), key=str)
            found.append(f"{_where(err.path)}: unknown key(s) {', '.join(map(shown, extra))}; "
                         f"expected one of {', '.join(allowed)}")
        else:
            found.append(f"{_where(err.path)}: {err.message}")
    return found


def _snapshot_ids(snapshot: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """Object ids (abilities listed on objects included), effect ids, player ids."""
    objects, effects = set(), set()
    for obj in snapshot.get("objects") or ():
        if isinstance(obj, dict):
            objects.add(str(obj.get("id")))
            objects.update(str(a.get("id")) for a in obj.get("abilities") or ()
                           if isinstance(a, dict))
    for eff in snapshot.get("effects") or ():
        if isinstance(eff, dict):
            effects.add(str(eff.get("id")))
    players = {p if isinstance(p, str) else str(p.get("id"))
               for p in snapshot.get("players") or () if isinstance(p, str | dict)}
    return objects, effects, players


def _check_objects(part: dict[str, Any], at: str, need: Callable[..., None],
                   found: list[str], objects: set[str], players: set[str]) -> None:
    """``id_problems`` of the ``objects`` of one part of an expectation."""
    for oid, fields in (part.get("objects") or {}).items():
        need(f"{at}.objects", oid, objects, "an object id")
        for fact in ("owner", "controller", "you", "default_controller"):
            need(f"{at}.objects.{oid}.{fact}", (fields or {}).get(fact), players, "a player")
        for t, who in ((fields or {}).get("controller_at") or {}).items():
            if not isinstance(t, int) and not str(t).lstrip("-").isdigit():
                found.append(f"{at}.objects.{oid}.controller_at: {shown(t)} is not a timestamp")
            need(f"{at}.objects.{oid}.controller_at.{t}", who, players, "a player")


def id_problems(snapshot: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """Ids in ``expect`` (and its ``by_version`` parts) that the snapshot does not have."""
    objects, effects, players = _snapshot_ids(snapshot)
    found: list[str] = []

    def need(where: str, value: object, known: set[str], what: str) -> None:
        if value is not None and str(value) not in known:
            found.append(f"{where}: {shown(value)} is not {what} of the snapshot")

    def check(part: dict[str, Any], at: str) -> None:
        _check_objects(part, at, need, found, objects, players)
        for aid, fields in (part.get("abilities") or {}).items():
            need(f"{at}.abilities", aid, objects, "an ability id")
            need(f"{at}.abilities.{aid}.may_activate", (fields or {}).get("may_activate"),
                 players, "a player")
        for oid in part.get("left_game") or {}:
            need(f"{at}.left_game", oid, objects, "an object id")
        for i, choice in enumerate(part.get("choices") or ()):
            need(f"{at}.choices[{i}].object", choice.get("object"), objects, "an object id")
            need(f"{at}.choices[{i}].chooser", choice.get("chooser"), players, "a player")
            for who in choice.get("outcomes") or ():
                need(f"{at}.choices[{i}].outcomes", who, players, "a player")
        for i, viol in enumerate(part.get("violations") or ()):
            for oid in viol.get("objects") or ():
                need(f"{at}.violations[{i}].objects", oid, objects | effects,
                     "an object or effect id")
        need(f"{at}.planar_controller", part.get("planar_controller"), players, "a player")
        for q, p in (part.get("controlled_players") or {}).items():
            need(f"{at}.controlled_players", q, players, "a player")
            need(f"{at}.controlled_players.{q}", p, players, "a player")

    check(expect, "$.expect")
    for version, part in (expect.get("by_version") or {}).items():
        check(part or {}, f"$.expect.by_version.{version}")
    return found


MAX_YAML_VALUES = 100_000
"""Values in one scenario file at most, counted with every alias expanded (a real one
has a few hundred): 550 bytes of nested aliases (a "billion laughs") would otherwise be
a billion values to check."""


def read_yaml(text: str) -> Any:
    """YAML text as data: libyaml's parser when PyYAML has it (about 8 times faster),
    and on an error the pure-Python parser again, whose message quotes the bad line.
    A document of more than `MAX_YAML_VALUES` values (aliases expanded), or one that
    refers to itself, is a `yaml.YAMLError` too."""
    try:
        data = _load(text, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        if "maximum nesting depth" in str(err):  # the pure-Python parser would recurse
            raise
        data = _load(text, yaml.SafeLoader)
    if expanded_size(data, MAX_YAML_VALUES) > MAX_YAML_VALUES:
        raise yaml.YAMLError(f"at most {MAX_YAML_VALUES} values with every alias "
                             "expanded, got more")
    return data


def _load(text: str, loader: Any) -> Any:
    """``yaml.load``; a value PyYAML's constructors fail to build with Python's own
    exceptions (``!!timestamp 2001``: an AttributeError) is a `yaml.YAMLError` too."""
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError:
        raise
    except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError) as err:
        raise yaml.YAMLError(f"a tagged value PyYAML cannot build ({type(err).__name__}: "
                             f"{err})") from None


def expanded_size(data: Any, limit: int) -> int:
    """How many values ``data`` holds, an alias (a shared list or mapping) counted each
    time it is used, counting stopped past ``limit``; a value that holds itself counts
    as over the limit.  Each shared value is walked once."""
    sizes: dict[int, int] = {}
    walking: set[int] = set()

    def size(node: Any) -> int:
        if not isinstance(node, dict | list):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in walking:  # an alias inside its own anchor
            return limit + 1
        walking.add(key)
        total = 1
        for child in (x for pair in node.items() for x in pair) if isinstance(node, dict) \
                else node:
            total += size(child)
            if total > limit:
                break
        walking.discard(key)
        sizes[key] = total
        return total

    return size(data)


def read_yaml_file(path: Path) -> Any:
    """A YAML file's data (within the size limit of a file read whole and
    `MAX_YAML_VALUES`); `ScenarioError` saying why it cannot be read."""
    try:
        return read_yaml(read_bounded(path).decode("utf-8"))
    except TooLarge as err:
        raise ScenarioError(path, [f"$: expected a readable YAML file ({err.expected})"]) from None
    except RecursionError:
        raise ScenarioError(path, ["$: expected a readable YAML file (nested too deeply)"]
                            ) from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError) as err:
        raise ScenarioError(path, [f"$: expected a readable YAML file ({err})"]) from None


def load_scenario(path: Path) -> Scenario:
    """Read and check one scenario file; ``ScenarioError`` lists every problem."""
    data = read_yaml_file(path)
    problems = schema_problems(data)
    if not problems:
        snapshot, expect = data["snapshot"], data["expect"] or {}
        problems = [f"$.snapshot{p.path[1:]}: expected {p.expected}"
                    for p in validate.problems(snapshot, str(path))]
        if not problems:  # ids are looked up in a snapshot of the right shape only
            problems = id_problems(snapshot, expect)
        rules = data.get("rules")
        judged = set()
        for name in [rules] if isinstance(rules, str) else rules or [None]:
            try:
                judged.add(catalog.resolve(name).name)
            except catalog.UnknownVersion as err:
                problems.append(f"$.rules: expected {err}")
        for version in expect.get("by_version") or {}:
            if version not in judged:
                problems.append(f"$.expect.by_version.{version}: expected a version the "
                                f"scenario is judged under ({', '.join(sorted(judged))}); "
                                "else it is never compared")
    if problems:
        raise ScenarioError(path, problems)
    rules = data.get("rules")
    versions: list[str | None] = [rules] if isinstance(rules, str) else list(rules or [None])
    return Scenario(path, data["intent"], versions, [str(c) for c in data.get("covers", [])],
                    data["snapshot"], data["expect"] or {})


def expectations(scenario: Scenario, version: str, numbered_in: str | None = None
                 ) -> dict[str, Any]:
    """The expectations under ``version``: common ones with its ``by_version`` part merged.
    ``numbered_in``: the version whose rule numbers the common ``cites`` are written in,
    when it is not ``version`` (``test --rules``): they are read as the catalog numbers
    the same rules have in ``version``."""
    expect = copy.deepcopy(scenario.expect)
    if numbered_in is not None and numbered_in != version:
        for fields in (expect.get("objects") or {}).values():
            if isinstance(fields, dict) and "cites" in fields:
                fields["cites"] = [catalog.renumbered(str(n), numbered_in, version)
                                   for n in fields["cites"]]
    extra = (expect.pop("by_version", None) or {}).get(version, {})
    for key, value in extra.items():
        if key == "objects":
            for oid, fields in value.items():
                expect.setdefault("objects", {}).setdefault(oid, {}).update(fields)
        else:
            expect[key] = value
    return expect


def run(scenario: Scenario, changes: Sequence[str] = (), rules: str | None = None
        ) -> Iterator[tuple[str, list[str]]]:
    """Judge the scenario under each of its versions (or under ``rules`` alone):
    (version, mismatches)."""
    # Under --rules the common expectations' numbers are those of the scenario's own
    # (first) version: every version it names numbers them alike, or it says by_version.
    own = catalog.resolve(scenario.versions[0]).name if rules is not None else None
    for version, result in judged(scenario, changes, rules):
        if isinstance(result, Ruling):
            yield version, mismatches(result, expectations(scenario, version, own))
        else:
            yield version, result


def judged(scenario: Scenario, changes: Sequence[str] = (), rules: str | None = None
           ) -> Iterator[tuple[str, Ruling | list[str]]]:
    """The ruling under each version (or the problems of a bad snapshot)."""
    for wanted in [rules] if rules is not None else scenario.versions:
        try:
            ruling = adjudicate(scenario.snapshot, rules=wanted, changes=changes)
        except InputError as err:
            yield str(wanted), [f"bad snapshot: {p}" for p in err.problems]
            continue
        yield ruling.rules, ruling


def _same_set(a: object, b: object) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(str, a)) == sorted(map(str, b))
    return a == b


def _entry_matches(want: dict[str, Any], got: dict[str, Any]) -> bool:
    return all(_same_set(value, got.get(key)) for key, value in want.items())


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _object_mismatches(oid: str, fields: dict[str, Any], obj: dict[str, Any]) -> list[str]:
    """``mismatches`` of one object of the ruling."""
    found: list[str] = []
    for fact in FACTS:
        if fact in fields and fields[fact] != obj[fact]:
            found.append(f"objects.{oid}.{fact}: expected {shown(fields[fact])}, "
                         f"got {shown(obj[fact])}")
    rules = {b["rule"] for b in obj["because"]}
    for rule in fields.get("cites", []):
        if str(rule) not in rules:
            found.append(f"objects.{oid}.cites: {rule} not among {sorted(rules)}")
    vias = [b["via"] for b in obj["because"]]
    for text in fields.get("via", []):
        if not any(str(text) in v for v in vias):
            found.append(f"objects.{oid}.via: no because mentions {shown(text)}")
    for at, player in (fields.get("controller_at") or {}).items():
        actual = controller_at(obj["history"], int(at))
        if actual != player:
            found.append(f"objects.{oid}.controller_at.{at}: expected {shown(player)}, "
                         f"got {shown(actual)}")
    return found


def mismatches(ruling: Ruling, expect: dict[str, Any]) -> list[str]:
    """Every difference between ``ruling`` and ``expect``, one line each."""
    found: list[str] = []
    got = ruling.to_dict()
    for oid, fields in (expect.get("objects") or {}).items():
        oid = str(oid)
        obj = got["objects"].get(oid)
        if obj is None:
            found.append(f"objects.{oid}: not in the ruling")
            continue
        found += _object_mismatches(oid, fields, obj)
    for aid, fields in (expect.get("abilities") or {}).items():
        actual = got["abilities"].get(str(aid), {}).get("may_activate")
        if "may_activate" in fields and fields["may_activate"] != actual:
            found.append(f"abilities.{aid}.may_activate: expected "
                         f"{shown(fields['may_activate'])}, got {shown(actual)}")
    for key in ("planar_controller", "controlled_players", "left_game"):
        if key in expect and (expect[key] or None) != (got[key] or None):
            found.append(f"{key}: expected {_json(expect[key])}, got {_json(got[key])}")
    for key in ("choices", "violations"):
        if key not in expect:
            continue
        wanted = expect[key] or []
        if not wanted and got[key]:
            found.append(f"{key}: expected none, got {_json(got[key])}")
        for entry in wanted:
            if not any(_entry_matches(entry, g) for g in got[key]):
                found.append(f"{key}: no entry matches {_json(entry)}; got {_json(got[key])}")
    return found


def scenario_files(paths: Sequence[Path]) -> list[Path]:
    """The ``*.yaml`` files under each folder, and each file given as such."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.yaml")) if path.is_dir() else [path])
    return files


def selected(files: Sequence[Path], pattern: str | None) -> list[Path]:
    """The files whose path or intent contains ``pattern`` (any case); all without one.
    A file that cannot be read as a scenario is kept (it is then reported)."""
    if pattern is None:
        return list(files)
    low = pattern.lower()

    def matches(path: Path) -> bool:
        if low in str(path).lower():
            return True
        try:
            return low in load_scenario(path).intent.lower()
        except ScenarioError:
            return True
    return [p for p in files if matches(p)]


def run_paths(paths: Sequence[Path], changes: Sequence[str] = (), pattern: str | None = None,
              rules: str | None = None, update: bool = False) -> int:
    """``mtgcontrol test``: run scenario files, print failures with their diffs.

    ``pattern`` keeps the files whose path or intent contains it; ``rules`` judges
    every scenario under that version instead of its own; ``update`` rewrites the
    expectations that no longer match (after a deliberate rules change) and prints
    each file's diff.  A progress bar is shown on a terminal.  Exit 1 if any scenario
    fails (without ``update``) or is not a valid scenario file, 2 if a path does not
    exist or no scenario file is selected (a test run that checks nothing)."""
    from .batch.progress import Bar

    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        for name in missing:
            print(escaped(f"mtgcontrol: {name}: expected a scenario file or folder (no such "
                          "file or folder)"), file=sys.stderr)
        return 2
    folders = {f: p if p.is_dir() else p.parent for p in paths for f in scenario_files([p])}
    files = selected(list(folders), pattern)
    if not files:
        also = f" matching {shown(pattern)}" if pattern is not None else ""
        print(escaped(f"mtgcontrol: {', '.join(map(str, paths))}: expected scenario files "
                      f"(*.yaml){also}"), file=sys.stderr)
        return 2
    passed = failed = updated = 0
    with Bar(len(files), unit="file") as bar:
        for path in files:
            bar.update()
            try:
                scenario = load_scenario(path)
            except ScenarioError as err:
                print(err)
                failed += 1
                continue
            if update:
                try:
                    diff = rewrite(scenario, changes, folders[path])
                except ScenarioError as err:
                    print(err)
                    failed += 1
                    continue
                if diff:
                    updated += 1
                    print(diff, end="")
                continue
            for version, problems in run(scenario, changes, rules):
                if problems:
                    failed += 1
                    print(f"FAIL {path} [{version}]: {scenario.intent}")
                    for line in problems:
                        print(f"    {line}")
                else:
                    passed += 1
    if update:
        print(f"{updated} file(s) updated, {len(files) - updated - failed} unchanged"
              + (f", {failed} not valid or not updated (above)" if failed else ""))
    else:
        print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def rewrite(scenario: Scenario, changes: Sequence[str] = (), folder: Path | None = None
            ) -> str:
    """Rewrite the file's ``expect`` so that it matches the rulings; the unified diff
    of the file ("" when nothing changed).  Only what the expectations already say is
    rewritten, for each version in the part that version reads (the common part when
    the scenario has one version, else ``by_version``).  A file that is a link to a
    file outside ``folder`` (the folder given to ``mtgcontrol test``, by default the
    file's own) is not rewritten: `ScenarioError`."""
    import difflib

    expect = copy.deepcopy(scenario.expect)
    for version, ruling in judged(scenario, changes):
        if not isinstance(ruling, Ruling):
            continue
        wanted = expectations(scenario, version)
        if not mismatches(ruling, wanted):
            continue
        fixed = matching(ruling, wanted)
        if len(scenario.versions) == 1:
            expect.update({k: v for k, v in fixed.items() if k != "by_version"})
        else:
            common = {k: v for k, v in scenario.expect.items() if k != "by_version"}
            expect.setdefault("by_version", {})[version] = _over(fixed, common)
    if expect == scenario.expect:
        return ""
    target = scenario.path.resolve()
    root = (folder or scenario.path.parent).resolve()
    if not target.is_relative_to(root):
        raise ScenarioError(scenario.path, [f"$: expected a file inside {folder or root} "
                                            f"(not updated: it links to {target})"])
    old = read_bounded(scenario.path).decode("utf-8")
    new = replace_expect(old, expect)
    write_output(scenario.path, new, "--update")
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        str(scenario.path), str(scenario.path)))


def matching(ruling: Ruling, expect: dict[str, Any]) -> dict[str, Any]:
    """``expect`` with every value it states replaced by the ruling's."""
    got = ruling.to_dict()
    out = copy.deepcopy(expect)
    for oid, fields in list((out.get("objects") or {}).items()):
        obj = got["objects"].get(str(oid))
        if obj is None:
            del out["objects"][oid]
            continue
        for fact in FACTS:
            if fact in fields:
                fields[fact] = obj[fact]
        rules = sorted({b["rule"] for b in obj["because"]})
        if "cites" in fields:
            fields["cites"] = [r for r in fields["cites"] if str(r) in rules] or rules
        if "via" in fields:
            vias = [b["via"] for b in obj["because"]]
            fields["via"] = [t for t in fields["via"] if any(str(t) in v for v in vias)]
        for at in fields.get("controller_at") or {}:
            fields["controller_at"][at] = controller_at(obj["history"], int(at))
    for aid, fields in (out.get("abilities") or {}).items():
        if "may_activate" in fields:
            fields["may_activate"] = got["abilities"].get(str(aid), {}).get("may_activate")
    for key in ("planar_controller", "controlled_players", "left_game"):
        if key in out:
            out[key] = got[key]
    for key in ("choices", "violations"):
        if key in out:
            keys = {k for entry in out[key] or () for k in entry} or None
            out[key] = [{k: v for k, v in entry.items() if keys is None or k in keys}
                        for entry in got[key]]
    return out


def _over(expect: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    """The part of ``expect`` that differs from ``common`` (field by field for objects and
    abilities, as ``expectations`` merges them)."""
    out: dict[str, Any] = {}
    for key, value in expect.items():
        if key in ("objects", "abilities"):
            ids = {}
            for oid, fields in value.items():
                old = (common.get(key) or {}).get(oid) or {}
                changed = {f: v for f, v in fields.items() if old.get(f) != v}
                if changed:
                    ids[oid] = changed
            if ids:
                out[key] = ids
        elif key != "by_version" and common.get(key) != value:
            out[key] = value
    return out


def _flow(value: object) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, sort_keys=False,
                          width=1 << 30).strip()
    return text.removesuffix("...").strip()


def _expect_lines(part: dict[str, Any], depth: int = 1, versions: bool = False
                  ) -> list[str]:
    """A scenario's hand-written layout: nested blocks down to each object or version,
    each object's expectations on one flow line."""
    lines = []
    for key, value in part.items():
        pad = "  " * depth
        if isinstance(value, dict) and value and (
                versions or key in ("objects", "abilities", "by_version")):
            lines.append(f"{pad}{_flow(key)}:")
            lines += _expect_lines(value, depth + 1, key == "by_version" and not versions)
        else:
            lines.append(f"{pad}{_flow(key)}: {_flow(value)}")
    return lines


def replace_expect(text: str, expect: dict[str, Any]) -> str:
    """The scenario file's text with its top-level ``expect:`` block replaced (the
    intent, the snapshot and their layout kept as they are)."""
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("expect:"))
    last = next((i for i in range(first + 1, len(lines))
                 if lines[i][:1] not in (" ", "\t", "\n", "#", "")), len(lines))
    block = "\n".join(["expect:", *_expect_lines(expect)]) + "\n"
    return "".join(lines[:first]) + block + "".join(lines[last:])
