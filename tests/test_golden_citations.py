"""Citations stay put: for every scenario file under tests/scenarios and every
supported CR version, every rule a ruling cites (each ``rule`` entry: where it
sits, the fact or violation code it backs, the number) equals the golden record
tests/data/citations.json, recorded before the catalog moved the five per-version
catalogs into one; and each version's ``number/3`` table equals tests/data/numbering.lp.

After a change that is meant to alter citations (a new rule group, a fixed
gap, a new release), rewrite both records with
``.venv/bin/python tests/test_golden_citations.py --update`` and review ``git diff``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mtgcontrol import catalog
from mtgcontrol.engine.api import ErrorRecord, adjudicate_many
from mtgcontrol.scenarios import read_yaml

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
GOLDEN = HERE / "data" / "citations.json"
NUMBERING = HERE / "data" / "numbering.lp"


def _cited(node: Any, path: str, out: list[str]) -> None:
    if isinstance(node, dict):
        if "rule" in node:
            fact = node.get("fact", node.get("code", ""))
            out.append(f"{path} {fact} {node['rule']}".strip())
        for key, value in node.items():
            _cited(value, f"{path}/{key}", out)
    elif isinstance(node, list):
        for value in node:
            _cited(value, path, out)


def citations(versions: list[str]) -> dict[str, dict[str, list[str]]]:
    """scenario file (relative) -> version -> its ruling's citations, sorted."""
    files = sorted(SCENARIOS.rglob("*.yaml"))
    docs = []
    for path in files:
        data = read_yaml(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "snapshot" in data:
            docs.append((path.relative_to(SCENARIOS).as_posix(), data["snapshot"]))
    found: dict[str, dict[str, list[str]]] = {name: {} for name, _ in docs}
    for version in versions:
        results = adjudicate_many([(doc, name) for name, doc in docs], rules=version)
        for (name, _), result in zip(docs, results, strict=True):
            if isinstance(result, ErrorRecord):
                found[name][version] = ["error " + json.dumps(result.to_dict(), sort_keys=True)]
                continue
            cited: list[str] = []
            _cited(result.to_dict(), "", cited)
            found[name][version] = sorted(set(cited))
    return found


def test_number_tables_are_unchanged() -> None:
    """The ``number/3`` facts each version loads, as a set per version (tests/data/numbering.lp)."""
    golden: dict[str, set[str]] = {}
    for line in NUMBERING.read_text(encoding="utf-8").splitlines():
        if line.startswith("% "):
            current = golden.setdefault(line[2:], set())
        elif line:
            current.add(line)
    now = {v.name: set(catalog.numbering_facts(v).splitlines()) for v in catalog.versions()}
    assert set(golden) <= set(now), "recorded versions the catalog no longer has"
    for name in golden:
        assert now[name] == golden[name], (
            f"{name}: number/3 facts differ from {NUMBERING.name}: only now "
            f"{sorted(now[name] - golden[name])}, only before {sorted(golden[name] - now[name])}")


def test_citations_are_unchanged() -> None:
    """Scenario files added since the record are not in it (rerun --update to add them)."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    versions = sorted({v for by_version in golden.values() for v in by_version})
    assert len(versions) >= 5
    now = citations(versions)
    gone = sorted(set(golden) - set(now))
    assert not gone, f"recorded scenario files that are gone (rerun --update): {gone}"
    differ = [f"{name} [{version}]" for name in sorted(golden) for version in versions
              if golden[name].get(version) != now[name].get(version)]
    assert not differ, (f"citations differ from {GOLDEN.name} (rerun with --update only if "
                        "the change is meant):\n  " + "\n  ".join(differ))


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python tests/test_golden_citations.py --update")
    everything = citations([v.name for v in catalog.versions()])
    GOLDEN.write_text(json.dumps(everything, indent=1, sort_keys=True, ensure_ascii=False)
                      + "\n", encoding="utf-8")
    NUMBERING.write_text("".join(f"% {v.name}\n{catalog.numbering_facts(v)}\n"
                                 for v in catalog.versions()), encoding="utf-8")
    print(f"wrote {GOLDEN} and {NUMBERING}")
