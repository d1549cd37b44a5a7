"""Migration aid: the ``[[group]]`` blocks for rules/catalog.toml that a branch still
writing the old per-version catalogs (``rules/<version>.toml``, before issue 13) adds.

    python3 rules/from_version_tomls.py rules/2012-10-01.toml ... rules/2026-08-07.toml

prints, for every group (the old ``group`` string, now ``asp``) that the given files
have and rules/catalog.toml lacks, a block with its numbers by release; its ``id`` is
provisional (``new-`` and the old id), to be renamed before committing.  Groups whose
numbers change meaning or gap across releases are printed with a ``# check`` comment.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

CATALOG = Path(__file__).resolve().parent / "catalog.toml"


def main(paths: list[str]) -> int:
    known = {v["asp"] for g in tomllib.loads(CATALOG.read_text(encoding="utf-8"))["group"]
             for v in g.get("variant", [g])}
    by_group: dict[str, dict[str, dict[str, str]]] = {}
    for path in paths:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        for kind in ("rule", "unencoded"):
            for entry in data.get(kind, []):
                by_group.setdefault(entry["group"], {})[data["version"]] = entry
    releases = sorted({v for entries in by_group.values() for v in entries})
    for asp, entries in sorted(by_group.items()):
        if asp in known:
            continue
        present = sorted(entries)
        numbers: dict[str, str] = {}
        for version in present:
            if entries[version]["number"] != (list(numbers.values()) or [None])[-1]:
                numbers[version] = entries[version]["number"]
        first = releases.index(present[0])
        gap = present != releases[first:first + len(present)]
        texts = {e["paraphrase"] for e in entries.values()}
        print("[[group]]" + ("  # check: not in force in consecutive releases" if gap else ""))
        print(f'id = "new-{asp.replace(".", "-").replace("@", "-")}"')
        print("numbers = { " + ", ".join(f'"{v}" = "{n}"' for v, n in numbers.items()) + " }")
        if first + len(present) < len(releases):
            print(f'until = "{releases[first + len(present)]}"')
        last = entries[present[-1]]
        if last.get("in_extract", True) is False:
            print("in_extract = false")
        if "reason" in last:
            print(f"unencoded = {json.dumps(last['reason'], ensure_ascii=False)}")
        print(f"asp = {json.dumps(asp)}")
        print(f"paraphrase = {json.dumps(last['paraphrase'], ensure_ascii=False)}"
              + ("  # check: paraphrases differed by version" if len(texts) > 1 else ""))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
