"""Command line: ``mtgcontrol adjudicate | batch | check | test | rules``.

Exit codes: 0 done, 1 the rulings found problems (check, test), 2 bad input or
usage.  Bad input is reported one line per problem, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import catalog
from .api import InputError, adjudicate_many, load_snapshot
from .ruling import Ruling
from .solve import NoRuling, load_changes
from .text import ruling_table
from .validate import InputProblem

EPILOG = "Snapshot format and rulings: docs/format.md.  Rule versions: mtgcontrol rules."


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", metavar="DATE",
                        help="CR version, or any date from 2012-10-01 on (the version in force "
                             "that day); default: the snapshot's own `rules`, else the newest")
    parser.add_argument("--change", metavar="FILE.lp", action="append", default=[],
                        help="a proposal file layered over the rules (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mtgcontrol", epilog=EPILOG,
        description="Judge who owns and who controls every object in Magic: The Gathering "
                    "game snapshots, by the Comprehensive Rules encoded in ASP.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("adjudicate", help="print the ruling for snapshot files",
                       description="Print the ruling (JSON, or a readable table) for each "
                                   "snapshot file; '-' reads one snapshot from standard input.")
    p.add_argument("files", nargs="+", metavar="FILE|-")
    p.add_argument("--format", choices=("json", "text"), default="json",
                   help="json (default, the ruling of the spec) or text (a table)")
    _common(p)

    p = sub.add_parser("batch", help="judge a JSON Lines file of snapshots, in order",
                       description="Judge one snapshot per line; write one ruling per line, in "
                                   "the same order.  A bad line becomes an error record "
                                   "{\"id\", \"error\": [{\"path\", \"expected\"}]}; every "
                                   "other line is still judged.")
    p.add_argument("input", metavar="IN.jsonl|-")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", help="default: standard output")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--batch-size", type=int, default=500,
                   help="snapshots per grounding (default 500)")
    _common(p)

    p = sub.add_parser("check", help="report violations and claims that contradict the rules",
                       description="Judge snapshot files and list their violations, including "
                                   "`claims` that contradict the rules.  Exit 1 if any.")
    p.add_argument("files", nargs="+", metavar="FILE|-")
    p.add_argument("--causes", action="store_true",
                   help="for each violation, a minimal set of the snapshot's parts (JSON "
                        "paths) that still causes it")
    _common(p)

    p = sub.add_parser("test", help="run scenario files (snapshot + expected ruling)",
                       description="Run every scenario file (*.yaml) under the given folders "
                                   "or files and show a diff for each failure.  Exit 1 if any "
                                   "fails.")
    p.add_argument("paths", nargs="+", metavar="DIR|FILE")
    p.add_argument("--change", metavar="FILE.lp", action="append", default=[],
                   help="a proposal file layered over the rules (repeatable)")

    p = sub.add_parser("rules", help="the rules catalog with its coverage; `rules diff`",
                       description="List, for a CR version, every rule number this project "
                                   "encodes, a paraphrase, the encoding file and the scenarios "
                                   "that cover it.  `mtgcontrol rules diff OLD.txt NEW.txt` "
                                   "compares two CR text files.")
    p.add_argument("--version", metavar="DATE", help="default: the newest")
    rules_sub = p.add_subparsers(dest="rules_command", metavar="[diff]")
    d = rules_sub.add_parser("diff", help="ownership/control rules changed between two CR texts",
                             description="List the ownership and control rules whose text "
                                         "changed, appeared or disappeared between two CR "
                                         "files in the official plain-text format, matched "
                                         "across renumbering, with the encodings citing them.")
    d.add_argument("old", metavar="OLD.txt")
    d.add_argument("new", metavar="NEW.txt")
    d.add_argument("--format", choices=("text", "json"), default="text")

    bounds = argparse.ArgumentParser(add_help=False)
    bounds.add_argument("--players", type=int, default=3, help="players at most (default 3)")
    bounds.add_argument("--objects", type=int, default=3, help="objects at most (default 3)")
    bounds.add_argument("--effects", type=int, default=2, help="effects at most (default 2)")
    bounds.add_argument("--format", choices=("text", "json"), default="text")
    bounds.add_argument("--quiet", action="store_true",
                        help="no progress (the bound being searched) on standard error")
    bounds.add_argument("--change", metavar="FILE.lp", action="append", default=[],
                        help="a proposal file layered over the rules (repeatable)")

    p = sub.add_parser("impact", parents=[bounds],
                       help="what changes between two CR versions (or with a proposal)",
                       description="Judge a corpus (JSON Lines) under two versions and report "
                                   "every snapshot and object whose owner, controller, fate, "
                                   "choices or violations differ, grouped by the rule "
                                   "responsible.  With --exhaustive, search every small "
                                   "snapshot within the bounds and give one minimal witness "
                                   "per kind of difference.  --change applies to the --to side.")
    p.add_argument("corpus", nargs="?", metavar="CORPUS.jsonl")
    p.add_argument("--from", dest="from_version", required=True, metavar="V1")
    p.add_argument("--to", dest="to_version", required=True, metavar="V2")
    p.add_argument("--exhaustive", action="store_true",
                   help="search all small snapshots instead of a corpus")
    p.add_argument("--enumerate", action="store_true",
                   help="with --exhaustive: generate and judge every snapshot (the old way; "
                        "also used with --change) instead of one search")
    p.add_argument("--batch-size", type=int, default=500)

    p = sub.add_parser("verify", parents=[bounds],
                       help="check that every permanent and spell gets exactly one controller",
                       description="Search every small snapshot within the bounds and report, "
                                   "with a minimal counterexample each, where the rules of a "
                                   "version leave a permanent or spell without exactly one "
                                   "controller, leave a choice, or report a conflict.")
    p.add_argument("--rules", metavar="DATE", help="default: the newest")
    p.add_argument("--all-versions", action="store_true",
                   help="every supported version: a table version x invariant")
    p.add_argument("--invariant", metavar="FILE.lp", action="append", default=[],
                   help="an invariant file deriving fail(S,What,X) (repeatable); default: "
                        "the built-in invariants")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except InputError as err:
        for problem in err.problems:
            print(problem, file=sys.stderr)
        return 2
    except (catalog.UnknownVersion, NoRuling) as err:
        prefix = "--rules: expected " if isinstance(err, catalog.UnknownVersion) else ""
        print(f"mtgcontrol: {prefix}{err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def _changes(args: argparse.Namespace) -> tuple[str, ...]:
    try:
        return load_changes(args.change)
    except OSError as err:
        raise InputError([InputProblem(str(err.filename), "--change",
                                       f"a readable proposal file ({err.strerror})")]) from None


def _items(files: Sequence[str]) -> list[tuple[object, str]]:
    items = []
    for name in files:
        if name == "-":
            items.append(load_snapshot(sys.stdin.read()))
            items[-1] = (items[-1][0], "stdin")
        else:
            items.append(load_snapshot(Path(name)))
    return items


def _judge(args: argparse.Namespace, items: list[tuple[object, str]] | None = None
           ) -> list[Ruling]:
    if args.rules is not None:
        catalog_check(args.rules)
    items = _items(args.files) if items is None else items
    results = list(adjudicate_many(items, args.rules, _changes(args)))
    found = [p for r in results if not isinstance(r, Ruling) for p in r.problems]
    if found:
        raise InputError(found)
    return results  # type: ignore[return-value]


def catalog_check(rules: str) -> None:
    """Fail early, as a usage error, on a version no supported version answers."""
    catalog.resolve(rules)


def cmd_adjudicate(args: argparse.Namespace) -> int:
    rulings = _judge(args)
    for ruling in rulings:
        print(ruling_table(ruling) if args.format == "text" else ruling.to_json(indent=2))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    items = _items(args.files)
    rulings = _judge(args, items)
    bad = 0
    for name, (doc, _), ruling in zip(args.files, items, rulings, strict=True):
        causes = _causes(args, doc, ruling) if args.causes and ruling.violations else {}
        for v in ruling.violations:
            bad += 1
            print(f"{ruling.id or name}: {v.rule} {v.code}: {v.message}")
            if args.causes:
                print(f"  minimal cause: {', '.join(causes.get(_vkey(v), ['?']))}")
    if not bad:
        print(f"{len(rulings)} snapshot(s): no violations")
    return 1 if bad else 0


def _vkey(v: object) -> tuple[str, str, tuple[str, ...]]:
    return (v.rule, v.code, tuple(v.objects))  # type: ignore[attr-defined]


def _causes(args: argparse.Namespace, doc: object, ruling: Ruling) -> dict[object, list[str]]:
    from .causes import minimal_causes

    version = catalog.resolve(ruling.rules)
    return {_vkey(c.violation): c.paths for c in minimal_causes(doc, version, _changes(args))}


def cmd_batch(args: argparse.Namespace) -> int:
    from .batch import run_batch

    if args.rules is not None:
        catalog_check(args.rules)
    return run_batch(args.input, args.output, args.rules, _changes(args), args.workers,
                     args.batch_size)


def cmd_test(args: argparse.Namespace) -> int:
    from .scenarios import run_paths

    return run_paths([Path(p) for p in args.paths], _changes(args))


def cmd_rules(args: argparse.Namespace) -> int:
    if args.rules_command == "diff":
        from .rulediff import cmd_rules_diff

        return cmd_rules_diff(args)
    from .coverage import print_catalog

    if args.version is not None:
        catalog_check(args.version)
    return print_catalog(catalog.resolve(args.version))


def cmd_impact(args: argparse.Namespace) -> int:
    from .research import cmd_impact as run

    catalog_check(args.from_version)
    catalog_check(args.to_version)
    return run(args, _changes(args))


def cmd_verify(args: argparse.Namespace) -> int:
    from .research import cmd_verify as run

    if args.rules is not None:
        catalog_check(args.rules)
    return run(args, _changes(args))


COMMANDS = {"adjudicate": cmd_adjudicate, "batch": cmd_batch, "check": cmd_check,
            "test": cmd_test, "rules": cmd_rules, "impact": cmd_impact, "verify": cmd_verify}

if __name__ == "__main__":
    raise SystemExit(main())
