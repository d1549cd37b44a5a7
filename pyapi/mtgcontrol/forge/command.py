"""``mtgcontrol import forge FILE|DIR... [-o OUT.jsonl|-] [--report R.json]
[--forge-res DIR] [--html PAGE.html]``.

One snapshot line per accepted file, one report record per file (refused
files included); a summary on standard error.  Exit 0 when every file was
imported whole, 1 when some file was refused or partly imported, 2 on usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..engine.api import InputError
from ..engine.validate import InputProblem
from .cardscript import CardData
from .gamestate import Refused, parse
from .translate import Record, translate

SUFFIXES = (".pzl", ".pzl.example", ".txt")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("import", help="read another engine's game states as snapshots",
                       description="Turn game states of another engine into snapshot/1 "
                                   "lines whose `claims` are that engine's owners and "
                                   "controllers, for `check`/`batch`.  docs/forge.md.")
    engines = p.add_subparsers(dest="engine", required=True, metavar="ENGINE")
    f = engines.add_parser("forge", help="Forge puzzles (.pzl) and dev-mode state dumps",
                           description="Each Forge game state (puzzle .pzl or dev-mode dump) "
                                       "becomes one snapshot/1 line with Forge's owners and "
                                       "controllers as claims; a DIR gives its *.pzl, "
                                       "*.pzl.example and *.txt files (not recursive), sorted "
                                       "by name.  Exit 0 all imported, 1 a file refused or "
                                       "partly imported, 2 usage.")
    f.add_argument("files", nargs="+", metavar="FILE|DIR")
    f.add_argument("-o", "--output", metavar="OUT.jsonl|-", default="-",
                   help="the snapshots, one per line (default: standard output)")
    f.add_argument("--report", metavar="REPORT.json",
                   help="one record per file: status, reason, left_out, withheld, "
                        "superseded, notes, counts")
    f.add_argument("--forge-res", metavar="DIR",
                   help="Forge's res/ folder (cardsfolder/ or cardsfolder.zip, "
                        "tokenscripts/); without it, no controller claims are made")
    f.add_argument("--html", metavar="PAGE.html",
                   help="also judge the snapshots and write a page of the disagreements")


def files_of(names: list[str]) -> list[Path]:
    out: list[Path] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            out += sorted((p for p in path.iterdir()
                           if p.is_file() and p.name.endswith(SUFFIXES)), key=lambda p: p.name)
        else:
            out.append(path)
    return out


def import_file(path: Path, cards: CardData | None) -> tuple[dict[str, Any] | None, Record]:
    """One file: its snapshot (None if refused) and its report record."""
    try:
        data = path.read_bytes()
    except OSError as err:
        return None, Record(path.name, "unknown", "refused", f"unreadable: {err.strerror}")
    try:
        game = parse(data, path.name)
    except Refused as err:
        return None, Record(path.name, "unknown", "refused", f"{err.code}: {err.detail}")
    return translate(game, cards)


def summary(records: list[Record]) -> str:
    status = [r.status for r in records]
    owner = sum(r.counts.get("owner_claims", 0) for r in records)
    control = sum(r.counts.get("controller_claims", 0) for r in records)
    return (f"{len(records)} file(s): {status.count('imported')} imported, "
            f"{status.count('partial')} partial, {status.count('refused')} refused; "
            f"{owner + control} claims ({owner} owner, {control} controller); "
            f"{sum(len(r.superseded) for r in records)} superseded placements")


def cmd_import(args: argparse.Namespace) -> int:
    cards = None
    if args.forge_res is not None:
        try:
            cards = CardData(Path(args.forge_res))
        except (OSError, ValueError) as err:
            raise InputError([InputProblem("command line", "--forge-res",
                                           f"a Forge res folder ({err})")]) from None
    paths = files_of(args.files)
    if not paths:
        raise InputError([InputProblem("command line", "FILE|DIR", "at least one Forge "
                                       "file (*.pzl, *.pzl.example, *.txt)")])
    results = [import_file(p, cards) for p in paths]
    lines = [json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
             for doc, _ in results if doc is not None]
    try:
        if args.output == "-":
            sys.stdout.writelines(lines)
            sys.stdout.flush()
        else:
            Path(args.output).write_text("".join(lines), encoding="utf-8")
        if args.report:
            Path(args.report).write_text(json.dumps(
                [r.to_dict() for _, r in results], indent=1, ensure_ascii=False) + "\n",
                encoding="utf-8")
    except OSError as err:
        raise InputError([InputProblem(str(err.filename), "-o/--report",
                                       f"a writable file ({err.strerror})")]) from None
    records = [r for _, r in results]
    for r in records:
        if r.status == "refused":
            print(f"{r.file}: refused: {r.reason}", file=sys.stderr)
    print(summary(records), file=sys.stderr)
    if args.html:
        from .page import write_page

        write_page(args.html, results)
    return 0 if all(r.status == "imported" for r in records) else 1
