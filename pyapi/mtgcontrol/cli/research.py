"""The arguments of ``impact`` and ``verify``, each command's own: the bounds of the
search space are declared per command, with that command's defaults in its help
(research/commands.py: `IMPACT_BOUNDS`, `VERIFY_BOUNDS`)."""

from __future__ import annotations

import argparse
from typing import Any

from ..engine.validate import positive_int
from .options import (
    DEFAULT_WORKERS,
    MAX_DEFAULT_WORKERS,
    change_option,
    file_options,
    page_options,
    positive_float,
    worker_count,
)


def search_options(p: argparse.ArgumentParser, default: Any) -> None:
    """The bounds, output and proposal options of a search; ``default``: the command's
    own default bounds (a `research.gen.Bounds`), named in the help."""
    size = (f"default {default.size} when no object, effect or detail bound is given; else "
            "objects + effects, so details take the place of parts" if default.size else
            "default: objects + effects, so details take the place of parts")
    p.add_argument("--players", type=int, help=f"players at most (default {default.players})")
    p.add_argument("--objects", type=int, help=f"objects at most (default {default.objects})")
    p.add_argument("--effects", type=int, help=f"effects at most (default {default.effects})")
    p.add_argument("--details", type=int, help="history details at most: turn entries, "
                   "more players leaving, phasing, tapping, ... (docs/research.md, The "
                   f"search space; default {default.details})")
    p.add_argument("--size", type=int, help=f"objects + effects + details at most ({size})")
    p.add_argument("--format", choices=("text", "json", "html"), default="text",
                   help="text (default), json, or html (a summary page; needs -o)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress (the bound being searched) on standard error")
    page_options(p)
    change_option(p)
    # None: not given, so that the command's own bounds apply (and its size cap only
    # when no object, effect or detail bound is given).
    p.set_defaults(players=None, objects=None, effects=None, details=None, size=None)


def impact_parser(sub: Any) -> None:
    from ..research.commands import IMPACT_BOUNDS

    p = sub.add_parser("impact",
                       help="what changes between two CR versions (or with a proposal)",
                       description="Judge a corpus (JSON Lines) under two versions and report "
                                   "every snapshot and object whose owner, controller, fate, "
                                   "choices or violations differ, grouped by the rule "
                                   "responsible.  With --exhaustive, search every small "
                                   "snapshot within the bounds and give one minimal witness "
                                   "per kind of difference.  --change applies to the --to side.")
    search_options(p, IMPACT_BOUNDS)
    p.add_argument("corpus", nargs="?", metavar="CORPUS.jsonl")
    p.add_argument("--from", dest="from_version", required=True, metavar="V1")
    p.add_argument("--to", dest="to_version", required=True, metavar="V2")
    p.add_argument("--exhaustive", action="store_true",
                   help="search all small snapshots instead of a corpus")
    p.add_argument("--enumerate", action="store_true",
                   help="with --exhaustive: generate and judge every snapshot (the old way; "
                        "also used with --change) instead of one search")
    p.add_argument("--batch-size", type=int, default=500)
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help="with --exhaustive (the search): stop after SECONDS of CPU time of the "
                        "search and report the kinds found, saying up to which size the "
                        "search was exhaustive")
    p.add_argument("--dask", metavar="ADDRESS|local", default=None,
                   help="with --exhaustive: search on a Dask cluster (its scheduler's address, "
                        "or 'local'); needs `pip install mtgcontrol[dask]`")
    file_options(p, ("corpus", "change"), [("output", "-o")])


def verify_parser(sub: Any) -> None:
    from ..research.commands import VERIFY_BOUNDS

    p = sub.add_parser("verify",
                       help="check that every permanent and spell gets exactly one controller",
                       description="Search every small snapshot within the bounds and report, "
                                   "with a minimal counterexample each, where the rules of a "
                                   "version leave a permanent or spell without exactly one "
                                   "controller, leave a choice, or report a conflict.")
    search_options(p, VERIFY_BOUNDS)
    p.add_argument("--rules", metavar="DATE", help="default: the newest")
    p.add_argument("--all-versions", action="store_true",
                   help="every supported version: a table version x invariant")
    p.add_argument("--invariant", metavar="FILE.lp", action="append", default=[],
                   help="an invariant file deriving fail(S,What,X) (repeatable); default: "
                        "the built-in invariants")
    p.add_argument("--workers", type=worker_count, default=DEFAULT_WORKERS, metavar="N",
                   help="worker processes proving the parts of the space in parallel "
                        f"(default: the cores, at most {MAX_DEFAULT_WORKERS}); with --dask "
                        "local, the local cluster's workers; the verdicts and "
                        "counterexamples do not depend on it")
    p.add_argument("--dask", metavar="ADDRESS|local", default=None,
                   help="prove on a Dask cluster (its scheduler's address, or 'local': a local "
                        "cluster of --workers processes); needs `pip install mtgcontrol[dask]`")
    p.add_argument("--threads", type=positive_int, default=1, metavar="N",
                   help="solver threads per part of the space (default 1); the verdicts and "
                        "counterexamples do not depend on it")
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help="stop each invariant's search after SECONDS of CPU time (grounding "
                        "and solving, every worker's): its verdict is then undecided beyond "
                        "the sizes proved; the same for each check of --check-locality and "
                        "--check-orderings")
    p.add_argument("--first-failure", action="store_true",
                   help="stop at the first invariant found to fail (its counterexample is "
                        "still read and reproduced; the invariants not yet decided are "
                        "reported undecided): a quick yes/no, as a mutation run wants")
    p.add_argument("--check-locality", action="store_true",
                   help="check the locality lemma instead (a two-slot search): each snapshot "
                        "within the bounds has, at every object and effect, the facts and "
                        "invariant failures of its cone alone (docs/research.md, Cones)")
    p.add_argument("--check-answers", action="store_true",
                   help="check instead that the rules answer every snapshot within the "
                        "bounds (a snapshot without an answer would satisfy every "
                        "invariant vacuously): counts every generated snapshot, so meant "
                        "for small bounds (docs/research.md, Answers)")
    p.add_argument("--check-orderings", action="store_true",
                   help="check the orderings lemma instead (a two-slot search): each snapshot "
                        "within the bounds, in every time ordering, has the facts and "
                        "invariant failures of its ordering's representative, the only "
                        "ordering verify and impact --exhaustive search (docs/research.md, "
                        "Time orderings)")
    file_options(p, ("invariant", "change"), [("output", "-o")])
