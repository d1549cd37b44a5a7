"""The `impact` and `verify` commands (cli/commands.py calls them; cli/research.py
declares their arguments)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .. import catalog
from ..engine.api import InputError
from ..engine.files import read_input
from ..engine.solve import check_change
from .gen import Bounds
from .impact import impact_corpus, impact_exhaustive
from .reports import impact_text

# ---------------------------------------------------------------------------------
# Commands


# Default bounds.  verify: two players, cones of up to three objects + effects +
# details among at most two objects, two effects (two effects on one object:
# layer 2) and one history detail -- about 20 s of CPU for the six (BENCHMARKS.md);
# impact --exhaustive: cones of up to three objects + effects + details among two
# objects, one effect and one history detail, as verify's (a token phasing out is a
# detail: 110.5f -> 111.7), about 50 s.
VERIFY_BOUNDS = Bounds(2, 2, 2, details=1, size=3)
IMPACT_BOUNDS = Bounds(2, 2, 1, details=1, size=3)


def _bounds(args: argparse.Namespace, default: Bounds) -> Bounds:
    """The bounds given, each one not given taken from ``default``; its size cap only
    when no object, effect or detail bound is given (else objects + effects)."""
    values = {}
    for name in ("players", "objects", "effects", "details"):
        value = getattr(args, name, None)
        value = getattr(default, name) if value is None else value
        low = 1 if name in ("players", "objects") else 0
        if not isinstance(value, int) or not low <= value <= 6:
            raise InputError([_usage(f"--{name}", f"an integer from {low} to 6, got {value}")])
        values[name] = value
    size = getattr(args, "size", None)
    if size is None and all(getattr(args, n, None) is None
                            for n in ("objects", "effects", "details")):
        size = default.size
    if size is not None and not (isinstance(size, int) and 1 <= size <= 18):
        raise InputError([_usage("--size", f"an integer from 1 to 18, got {size}")])
    return Bounds(values["players"], values["objects"], values["effects"], values["details"],
                  size)


def _usage(where: str, expected: str) -> Any:
    from ..engine.validate import InputProblem

    return InputProblem("mtgcontrol", where, expected)


def _progress(args: argparse.Namespace) -> Any:
    if getattr(args, "quiet", False):
        return None
    return lambda message: print(f"  ... {message}", file=sys.stderr, flush=True)


def cmd_impact(args: argparse.Namespace, changes: tuple[str, ...]) -> int:
    v1 = catalog.resolve(args.from_version)
    v2 = catalog.resolve(args.to_version)
    if args.batch_size < 1:
        raise InputError([_usage("--batch-size", f"a positive integer, got {args.batch_size}")])
    if args.time_limit is not None and not (args.exhaustive and not args.enumerate):
        raise InputError([_usage("--time-limit", "only with --exhaustive (the search; not "
                                 "--enumerate)")])
    if args.exhaustive:
        if args.corpus is not None:
            raise InputError([_usage("CORPUS.jsonl", "no corpus with --exhaustive")])
        if args.enumerate:
            report = impact_exhaustive(_bounds(args, IMPACT_BOUNDS), v1, v2, changes,
                                       batch_size=max(args.batch_size, 1000))
        else:
            from .differences import impact_search

            report = impact_search(_bounds(args, IMPACT_BOUNDS), v1, v2, changes,
                                   quiet=getattr(args, "quiet", False), limit=args.time_limit,
                                   workers=1, dask=args.dask)
    else:
        if args.enumerate:
            raise InputError([_usage("--enumerate", "only with --exhaustive")])
        if args.corpus is None:
            raise InputError([_usage("CORPUS.jsonl", "a corpus file (or '-'), or --exhaustive")])
        if args.dask is not None:
            raise InputError([_usage("--dask", "only with --exhaustive (the search)")])
        from ..batch.lines import count_lines, numbered, open_input
        from ..batch.progress import counted  # a progress bar on a terminal

        stream = open_input(args.corpus)
        try:
            total = count_lines(args.corpus) if sys.stderr.isatty() else None
            report = impact_corpus(counted(numbered(stream), total), v1, v2, changes,
                                   args.batch_size)
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(impact_text(report))
    return 1 if report.errors else 0  # as batch and check: some lines could not be judged


def cmd_verify(args: argparse.Namespace, changes: tuple[str, ...]) -> int:
    from .invariants import builtin_invariants, invariant_of
    from .proofs import Settings, verify_all
    from .reports import verdicts_text

    if args.all_versions and args.rules is not None:
        raise InputError([_usage("--all-versions", "either --rules or --all-versions")])
    if sum((args.check_locality, args.check_orderings, args.check_answers)) > 1:
        raise InputError([_usage("--check-orderings", "one of --check-locality, "
                                 "--check-orderings and --check-answers")])
    versions = catalog.versions() if args.all_versions else [catalog.resolve(args.rules)]
    if args.check_answers:
        return _check_answers(args, versions, changes)
    invariants = []
    for path in args.invariant:
        data = read_input(path, where="--invariant", what="invariant file")
        text = data.decode("utf-8", errors="replace")
        check_change(text, path)  # no #include, no stray byte for clingo's messages
        invariants.append(invariant_of(path, text))  # the text read once, bounded
    if not invariants:
        invariants = builtin_invariants()
        if args.check_locality:  # the lemma matters for the invariants searched by cones
            invariants = [i for i in invariants if i.cones]
    bounds = _bounds(args, VERIFY_BOUNDS)
    settings = Settings(threads=args.threads, workers=args.workers, dask=args.dask,
                        limit=args.time_limit, first=args.first_failure)
    verdicts = verify_all(bounds, versions, invariants, changes, _progress(args),
                          settings, args.check_locality, args.check_orderings)
    if args.format == "json":
        print(json.dumps({"bounds": bounds.to_dict(), "proposal": bool(changes),
                          "check": "locality" if args.check_locality else
                          "orderings" if args.check_orderings else "invariants",
                          "cpu_seconds": round(sum(v.seconds for v in verdicts), 2),
                          "verdicts": [v.to_dict() for v in verdicts]},
                         indent=2, ensure_ascii=False))
    else:
        print(verdicts_text(verdicts, table=args.all_versions))
    return 0 if all(v.holds for v in verdicts) else 1


def _check_answers(args: argparse.Namespace, versions: Sequence[catalog.Version],
                   changes: tuple[str, ...]) -> int:
    from .answers import check_answers

    bounds = _bounds(args, VERIFY_BOUNDS)
    found = [check_answers(bounds, version, changes) for version in versions]
    if args.format == "json":
        print(json.dumps({"bounds": bounds.to_dict(), "proposal": bool(changes),
                          "check": "answers", "versions": [a.to_dict() for a in found]},
                         indent=2, ensure_ascii=False))
    else:
        print("\n".join(a.text() for a in found))
    return 0 if all(a.holds for a in found) else 1
