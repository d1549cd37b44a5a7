"""Command line: ``mtgcontrol adjudicate | explain | batch | check | test | rules | impact |
verify | import forge | serve``.

Exit codes: 0 done, 1 the rulings found problems (check, test, verify; for verify
also an invariant left undecided by --time-limit) or some corpus lines became error
records (batch, check, impact), 2 bad input or usage, 3 the output could not be
written to the end (disk full), 130/143 stopped by SIGINT/SIGTERM.  Bad input is
reported one line per problem, never as a traceback.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from . import catalog
from .engine.api import InputError, adjudicate_many, load_snapshot, parse_json
from .engine.files import WriteFailed, check_outputs, read_input, write_output
from .engine.interrupts import (
    Interrupted,
    exit_if_stopped,
    interruptible,
    restore_default_signals,
)
from .engine.ruling import Ruling
from .engine.solve import NoRuling, load_changes
from .engine.validate import InputProblem, positive_int, shown
from .present.text import escaped, ruling_table

EPILOG = ("Exit codes: 0 done (batch: every line judged); 1 problems found (check, test, "
          "verify; or a verify --time-limit left an invariant undecided) or some corpus "
          "lines became error records (batch, check, impact); 2 usage error, unreadable "
          "input or unwritable output; 3 output failed part way (disk full); 130/143 "
          "stopped by SIGINT (Ctrl-C) or SIGTERM.  "
          "Snapshot format and rulings: docs/format.md.  Rule versions: mtgcontrol rules.")


# verify's worker processes by default: one per core, at most MAX_DEFAULT_WORKERS (each
# holds its own groundings; BENCHMARKS.md measures the speed-up).
MAX_DEFAULT_WORKERS = 4
DEFAULT_WORKERS = min(MAX_DEFAULT_WORKERS, os.cpu_count() or 1)


def worker_count(text: str) -> int:
    """An argparse type: a number of worker processes, from 1 to `MAX_WORKERS`."""
    from .batch.workers import workers_problem

    try:
        value = int(text)
    except ValueError:
        value = 0
    problem = workers_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"expected {problem}, got {shown(text)}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds, got {shown(text)}")
    return value


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mtgcontrol")
    except PackageNotFoundError:
        return "unknown"


class VersionAction(argparse.Action):
    """``--version``: this package's, clingo's and the supported CR versions."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the versions of mtgcontrol, clingo and the CR, and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        import clingo

        names = [v.name for v in catalog.versions()]
        print(f"mtgcontrol {_version()}\nclingo {clingo.__version__}\n"
              f"CR versions: {', '.join(names)} (default {names[-1]})")
        parser.exit()


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", metavar="DATE",
                        help="CR version (a release of the rules catalog), or any later date "
                             "(the version in force that day); default: the snapshot's own "
                             "`rules`, else the newest")
    parser.add_argument("--change", metavar="FILE.lp", action="append", default=[],
                        help="a proposal file layered over the rules (repeatable)")


def _file_options(parser: argparse.ArgumentParser, reads: Sequence[str] = (),
                  writes: Sequence[tuple[str, str]] = ()) -> None:
    """Which options name the files a command reads (``reads``: dests) and writes
    (``writes``: (dest, flag)); ``check_outputs`` holds the outputs apart from the
    inputs for every command before it starts."""
    parser.set_defaults(reads=tuple(reads), writes=tuple(writes))


def _limits(parser: argparse.ArgumentParser) -> None:
    """The limits of judging a corpus (batch, check): each snapshot over one becomes an
    error record, never a hang or a crash."""
    from .batch.judge import (
        DEFAULT_MAX_EFFECTS,
        DEFAULT_MAX_MEMORY,
        DEFAULT_MAX_OBJECTS,
        DEFAULT_TIMEOUT,
    )
    from .batch.lines import DEFAULT_MAX_LINE_BYTES

    parser.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT,
                        metavar="SECONDS",
                        help=f"CPU time limit per snapshot (default {DEFAULT_TIMEOUT:g}; a "
                             "load on the machine does not count); a snapshot over it "
                             "becomes an error record")
    parser.add_argument("--max-objects", type=positive_int, default=DEFAULT_MAX_OBJECTS,
                        metavar="N", help=f"objects per snapshot at most (default "
                                          f"{DEFAULT_MAX_OBJECTS}); more is an error record")
    parser.add_argument("--max-effects", type=positive_int, default=DEFAULT_MAX_EFFECTS,
                        metavar="N", help=f"effects per snapshot at most (default "
                                          f"{DEFAULT_MAX_EFFECTS}); more is an error record")
    parser.add_argument("--max-memory", type=positive_int, default=DEFAULT_MAX_MEMORY,
                        metavar="MB",
                        help=f"data memory a worker process may hold at any moment (default "
                             f"{DEFAULT_MAX_MEMORY}; RLIMIT_DATA): a snapshot needing more "
                             "becomes an error record")
    parser.add_argument("--max-line-bytes", type=positive_int, default=DEFAULT_MAX_LINE_BYTES,
                        metavar="N", help=f"longest input line judged, in bytes (default "
                                          f"{DEFAULT_MAX_LINE_BYTES}); a longer one is read "
                                          "past and becomes an error record")


def _page_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (required with --format html)")
    parser.add_argument("--lang", default="en", metavar="en|fr|it",
                        help="language of explanations, labels and paraphrases (default en)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mtgcontrol", epilog=EPILOG,
        description="Judge who owns and who controls every object in Magic: The Gathering "
                    "game snapshots, by the Comprehensive Rules encoded in ASP.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("adjudicate", help="print the ruling for snapshot files",
                       description="Print the ruling (JSON, or a readable table) for each "
                                   "snapshot file; '-' reads one snapshot from standard input.")
    p.add_argument("files", nargs="+", metavar="FILE|-")
    p.add_argument("--format", choices=("json", "text", "html"), default="json",
                   help="json (default, the ruling of the spec), text (a table) or html "
                        "(a page with every derivation; needs -o)")
    _common(p)
    _page_options(p)
    _file_options(p, ("files", "change"), [("output", "-o")])

    p = sub.add_parser("facts", help="print a snapshot's ASP facts (to run clingo by hand)",
                       description="Print the facts the engine grounds for one snapshot, the "
                                   "rule numbering of its CR version, and what each integer "
                                   "id stands for: a file to run clingo on with the "
                                   "encodings (docs/predicates.md, 'Running clingo by "
                                   "hand').")
    p.add_argument("file", metavar="FILE|-")
    p.add_argument("--rules", metavar="DATE",
                   help="CR version, or any later date; default: the snapshot's own "
                        "`rules`, else the newest")
    p.add_argument("-o", "--output", metavar="FILE", help="default: standard output")
    _file_options(p, ("file",), [("output", "-o")])

    p = sub.add_parser("explain", help="why an object has its owner, controller, ...",
                       description="The derivation of one fact of one object as a tree: each "
                                   "rule applied (numbered as in the chosen CR version, with "
                                   "a paraphrase), the snapshot facts it rests on (JSON "
                                   "paths), the derivations it uses, and the control effects "
                                   "that lost and why.  JSON schema: docs/explain.md.")
    p.add_argument("file", metavar="FILE|-")
    p.add_argument("object", metavar="OBJECT", help="an object or ability id of the snapshot")
    p.add_argument("--fact", default="controller",
                   choices=("owner", "controller", "you", "default-controller", "fate",
                            "may-activate"), help="default: controller")
    p.add_argument("--why-not", metavar="PLAYER",
                   help="also say why PLAYER does not hold the fact")
    p.add_argument("--format", choices=("text", "json", "html"), default="text")
    _common(p)
    _page_options(p)
    _file_options(p, ("file", "change"), [("output", "-o")])

    from .batch.judge import DEFAULT_WORKER_MEMORY
    from .batch.progress import EXIT_CODES
    from .batch.workers import MAX_WORKERS

    p = sub.add_parser(
        "batch", help="judge a JSON Lines file of snapshots, in order",
        epilog=EXIT_CODES[0].upper() + EXIT_CODES[1:] + ".",
        description="Judge one snapshot per line; write exactly one line per input line, in "
                    "the same order: the ruling, or an error record {\"line\", \"id\", "
                    "\"error\": [{\"path\", \"expected\"}]} for a blank, broken or invalid "
                    "line, one over the limits, or one that takes longer than --timeout.  "
                    "Every other line is still judged.  A worker process that dies is "
                    "replaced and its lines judged again.  IN and OUT may be '-' "
                    "(standard input/output) and may end in .gz.  Ctrl-C or SIGTERM stops "
                    "with whole lines written; --resume continues.  A progress bar is shown "
                    "when standard error is a terminal; a summary at the end.")
    p.add_argument("input", metavar="IN.jsonl|-")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", help="default: standard output")
    p.add_argument("--workers", type=worker_count, default=1,
                   help=f"worker processes (default 1, at most {MAX_WORKERS}: 4 per core); "
                        "with --dask local, Dask workers")
    p.add_argument("--batch-size", type=positive_int, default=100,
                   help="lines per chunk: what a worker judges at a time and the output "
                        "written together (default 100; the engine grounds up to 128 "
                        "snapshots at a time, whatever the chunk)")
    _limits(p)
    p.add_argument("--worker-memory", type=positive_int, default=DEFAULT_WORKER_MEMORY,
                   metavar="MB", help=f"replace a worker process once its memory has "
                                      f"peaked over MB megabytes by the end of a chunk (default "
                                      f"{DEFAULT_WORKER_MEMORY}; clingo never frees memory)")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run: keep the whole lines of -o and judge "
                        "the rest (the finished file equals an undisturbed run's)")
    p.add_argument("--dask", metavar="ADDRESS|local",
                   help="judge on a Dask distributed cluster (scheduler address, e.g. "
                        "tcp://host:8786, or 'local' for a LocalCluster of --workers "
                        "processes); needs `pip install mtgcontrol[dask]`")
    _common(p)
    p.add_argument("--html", metavar="PAGE.html",
                   help="also write a summary page of the results (needs -o)")
    p.add_argument("--lang", default="en", metavar="en|fr|it",
                   help="language of the summary page (default en)")
    _file_options(p, ("input", "change"), [("output", "-o"), ("html", "--html")])

    p = sub.add_parser("check", help="report violations and claims that contradict the rules",
                       description="Judge snapshot files and list their violations, including "
                                   "`claims` that contradict the rules.  A FILE ending in "
                                   ".jsonl or .jsonl.gz is a corpus, one snapshot per line: "
                                   "each violation and each bad line is listed as FILE:LINE, "
                                   "with a progress bar on a terminal and a summary.  Each "
                                   "snapshot is judged in a worker process within the limits "
                                   "below; one over them is listed as an error.  Exit 1 if "
                                   "any violation, bad line or snapshot over a limit, 2 on "
                                   "unreadable input.")
    p.add_argument("files", nargs="+", metavar="FILE|-")
    p.add_argument("--format", choices=("text", "html"), default="text",
                   help="text (default) or html (a summary page; needs -o)")
    p.add_argument("--causes", action="store_true",
                   help="for each violation, a minimal set of the snapshot's parts (JSON "
                        "paths) that still causes it")
    _common(p)
    _page_options(p)
    _limits(p)
    _file_options(p, ("files", "change"), [("output", "-o")])

    p = sub.add_parser("test", help="run scenario files (snapshot + expected ruling)",
                       description="Run every scenario file (*.yaml) under the given folders "
                                   "or files and show a diff for each failure, with a progress "
                                   "bar on a terminal.  Exit 1 if any fails.")
    p.add_argument("paths", nargs="+", metavar="DIR|FILE")
    p.add_argument("--change", metavar="FILE.lp", action="append", default=[],
                   help="a proposal file layered over the rules (repeatable)")
    p.add_argument("-k", dest="pattern", metavar="PATTERN",
                   help="only the scenario files whose path or intent contains PATTERN "
                        "(any case)")
    p.add_argument("--rules", metavar="DATE",
                   help="judge every scenario under this CR version instead of its own "
                        "`rules` (compared with the expectations for that version)")
    p.add_argument("--update", action="store_true",
                   help="after a deliberate rules change: rewrite the expectations that "
                        "no longer match (only what they state) and print each file's diff")
    _file_options(p, ("paths", "change"))

    p = sub.add_parser("rules", help="the rules catalog with its coverage; `rules diff`",
                       description="List, for a CR version, every rule number this project "
                                   "encodes, a paraphrase, the encoding file and the scenarios "
                                   "that cover it.  `mtgcontrol rules diff OLD.txt NEW.txt` "
                                   "compares two CR text files.")
    p.add_argument("--version", metavar="DATE", help="default: the newest")
    p.add_argument("--group", metavar="ID", help="one rule group (stable id, as listed): its "
                                                 "numbers by release and its meanings")
    rules_sub = p.add_subparsers(dest="rules_command", metavar="[diff]")
    d = rules_sub.add_parser("diff", help="ownership/control rules changed between two CR texts",
                             description="List the ownership and control rules whose text "
                                         "changed, appeared or disappeared between two CR "
                                         "files in the official plain-text format, matched "
                                         "across renumbering, with the encodings citing them.")
    d.add_argument("old", metavar="OLD.txt")
    d.add_argument("new", metavar="NEW.txt")
    d.add_argument("--format", choices=("text", "json"), default="text")
    d.add_argument("--catalog-draft", metavar="FILE.toml",
                   help="write the rules catalog with the new release and its renumberings "
                        "applied (docs/new-cr-release.md)")
    _file_options(d, ("old", "new"), [("catalog_draft", "--catalog-draft")])

    bounds = argparse.ArgumentParser(add_help=False)
    # Default bounds (research/commands.py: VERIFY_BOUNDS, IMPACT_BOUNDS).
    bounds.add_argument("--players", type=int, help="players at most (default 2)")
    bounds.add_argument("--objects", type=int, help="objects at most (default 2)")
    bounds.add_argument("--effects", type=int, help="effects at most (default: verify 2, "
                        "impact 1)")
    bounds.add_argument("--details", type=int, help="history details at most: turn entries, "
                        "more players leaving, phasing, tapping, ... (docs/research.md, "
                        "The search space; default: verify 1, impact 0)")
    bounds.add_argument("--size", type=int, help="objects + effects + details at most "
                        "(default: verify 3 when no object, effect or detail bound is "
                        "given; else objects + effects, so details take the place of parts)")
    bounds.add_argument("--format", choices=("text", "json", "html"), default="text",
                        help="text (default), json, or html (a summary page; needs -o)")
    bounds.add_argument("--quiet", action="store_true",
                        help="no progress (the bound being searched) on standard error")
    _page_options(bounds)
    bounds.add_argument("--change", metavar="FILE.lp", action="append", default=[],
                        help="a proposal file layered over the rules (repeatable)")

    # Each command gets its own copy of the shared options: a command's set_defaults
    # writes the defaults into its parents' actions, which would otherwise be shared
    # (verify's bounds became impact's).
    p = sub.add_parser("impact", parents=[copy.deepcopy(bounds)],
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
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help="with --exhaustive (the search): stop after SECONDS of CPU time of the "
                        "search and report the kinds found, saying up to which size the "
                        "search was exhaustive")
    p.add_argument("--dask", metavar="ADDRESS|local", default=None,
                   help="with --exhaustive: search on a Dask cluster (its scheduler's address, "
                        "or 'local'); needs `pip install mtgcontrol[dask]`")
    p.set_defaults(players=None, objects=None, effects=None, details=None, size=None)
    _file_options(p, ("corpus", "change"), [("output", "-o")])

    p = sub.add_parser("verify", parents=[copy.deepcopy(bounds)],
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
    p.add_argument("--check-orderings", action="store_true",
                   help="check the orderings lemma instead (a two-slot search): each snapshot "
                        "within the bounds, in every time ordering, has the facts and "
                        "invariant failures of its ordering's representative, the only "
                        "ordering verify and impact --exhaustive search (docs/research.md, "
                        "Time orderings)")
    p.set_defaults(players=None, objects=None, effects=None, details=None, size=None)
    _file_options(p, ("invariant", "change"), [("output", "-o")])

    from .forge.command import add_parser as add_import_parser

    add_import_parser(sub)

    from .serve.command import add_parser as add_serve_parser

    add_serve_parser(sub, positive_int, positive_float, worker_count)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; ``argv`` None: this process's own (then a run stopped by a signal
    during a grounding ends the process at once, see interrupts.py)."""
    code = _main(argv)
    if argv is None:
        exit_if_stopped(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    own = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with interruptible():  # batch handles its own; the others simply stop
            parser = build_parser()
            args = parser.parse_args(argv)
            args.argv = argv
            if args.command in HTML_ONLY_OUTPUT and args.output and args.format != "html":
                parser.error(f"{args.command}: -o FILE goes with --format html")
            check_paths(args)
            code = COMMANDS[args.command](args)
            if own:  # what is still buffered: a full disk is told here, not at exit
                sys.stdout.flush()
            return code
    except Interrupted as stop:
        print(f"mtgcontrol: stopped by {stop}", file=sys.stderr)
        return stop.exit_code
    except KeyboardInterrupt:  # main() called outside the main thread
        print("mtgcontrol: stopped by SIGINT", file=sys.stderr)
        return 130
    except InputError as err:
        for problem in err.problems:
            print(error_line(problem), file=sys.stderr)
        return 2
    except (catalog.UnknownVersion, NoRuling) as err:
        prefix = "--rules: expected " if isinstance(err, catalog.UnknownVersion) else ""
        print(f"mtgcontrol: {prefix}{err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _drop_stdout()
        return 0
    except WriteFailed as err:
        print(f"mtgcontrol: {escaped(str(err))}", file=sys.stderr)
        return 3
    except OSError as err:  # standard output: a full disk, a file size limit
        _drop_stdout()
        print(f"mtgcontrol: cannot write standard output ({err.strerror or err})",
              file=sys.stderr)
        return 3
    except MemoryError:
        print("mtgcontrol: out of memory: the input needs more memory than this process "
              "may have (for a corpus: `mtgcontrol batch`, whose --max-memory makes such a "
              "snapshot an error record)", file=sys.stderr)
        return 2
    finally:
        if not own:  # called in-process (tests): the caller's signal handling back
            restore_default_signals()


def _drop_stdout() -> None:
    """Standard output that cannot be written any more: what is still buffered goes
    nowhere, so that the interpreter's last flush has nothing to fail on."""
    import os
    from contextlib import suppress

    with suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


# The "snapshot" of a problem with the command line itself, not with an input file.
COMMAND_LINE = ("mtgcontrol", "command line")


def error_line(problem: InputProblem) -> str:
    """The one style of error line: ``mtgcontrol: FILE[:LINE]: $.path: expected ...``
    (a command-line problem: ``mtgcontrol: --option: expected ...``); a file name, an
    option's value or anything else with a terminal escape or a line break in it is
    shown escaped."""
    if problem.snapshot in COMMAND_LINE:
        return escaped(f"mtgcontrol: {problem.path}: expected {problem.expected}")
    return escaped(f"mtgcontrol: {problem}")


def check_paths(args: argparse.Namespace) -> None:
    """Before any work, for every command: a page needs its -o; no output may overwrite
    an input or another output (``engine.files.check_outputs``)."""
    if getattr(args, "format", None) == "html" and not getattr(args, "output", None):
        raise InputError([InputProblem("mtgcontrol", "-o", "an output file for --format "
                                       "html (-o FILE)")])
    reads = []
    for dest in getattr(args, "reads", ()):
        value = getattr(args, dest, None)
        reads += value if isinstance(value, list) else [] if value is None else [value]
    check_outputs(reads, [(flag, getattr(args, dest, None))
                          for dest, flag in getattr(args, "writes", ())])


def _changes(args: argparse.Namespace) -> tuple[str, ...]:
    from .engine.proposals import check_switchable

    try:
        changes = load_changes(args.change)
    except OSError as err:
        raise InputError([InputProblem(str(err.filename), "--change",
                                       f"a readable proposal file ({err.strerror})")]) from None
    check_switchable(changes, args.change)
    return changes


def _items(files: Sequence[str]) -> list[tuple[Any, str]]:
    items = []
    for name in files:
        if name == "-":
            items.append((parse_json(read_input("-"), "stdin"), "stdin"))
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
    if args.format == "html":
        from .present.pages import cmd_adjudicate_html

        return cmd_adjudicate_html(args, _items(args.files), _changes(args))
    rulings = _judge(args)
    return _write(args.output, "".join(
        (ruling_table(r) if args.format == "text" else r.to_json(indent=2)) + "\n"
        for r in rulings))


def cmd_facts(args: argparse.Namespace) -> int:
    from .engine.api import version_for
    from .engine.validate import problems
    from .present.facts_text import facts_program

    if args.rules is not None:
        catalog_check(args.rules)
    doc, name = _items([args.file])[0]
    found = problems(doc, name)
    if found:
        raise InputError(found)
    text = facts_program(doc, version_for(doc, args.rules, name), name)
    return _write(args.output, text)


def _write(output: str | None, text: str) -> int:
    """``text`` to standard output, or to FILE (``engine.files.write_output``)."""
    if output is None or output == "-":
        sys.stdout.write(text)
        return 0
    write_output(output, text)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from .present.pages import cmd_explain as run

    return run(args, _items([args.file])[0], _changes(args))


def cmd_check(args: argparse.Namespace) -> int:
    corpora = [f for f in args.files if f.endswith((".jsonl", ".jsonl.gz"))]
    singles = [f for f in args.files if f not in corpora]
    if args.format == "html" and corpora:
        print("mtgcontrol: --format html: expected snapshot files, not .jsonl corpora",
              file=sys.stderr)
        return 2
    if args.rules is not None:
        catalog_check(args.rules)
    started = time.monotonic()
    settings = _check_settings(args)
    bad = 0
    if singles:
        items = _items(singles)
        found = [p for doc, name in items for p in _snapshot_problems(doc, name, args.rules)]
        if found:
            raise InputError(found)
        records = _judged(args, settings, [json.dumps(doc).encode() for doc, _ in items])
        if args.format == "html":
            from .present.pages import cmd_check_html

            return cmd_check_html(args, records, time.monotonic() - started)
        for (doc, name), record in zip(items, records, strict=True):
            bad += _print_check(escaped(record.get("id") or name), record,
                                doc if args.causes else None, args)
        if not bad and not corpora:
            print(f"{len(records)} snapshot(s): no violations")
    for corpus in corpora:
        bad += _check_corpus(corpus, args, settings)
    return 1 if bad else 0


def _check_settings(args: argparse.Namespace) -> Any:
    from .batch.judge import Settings

    return Settings(args.rules, _changes(args), max_objects=args.max_objects,
                    max_effects=args.max_effects, max_memory=args.max_memory)


def _snapshot_problems(doc: Any, name: str, rules: str | None) -> list[InputProblem]:
    """A snapshot file's problems, and an unknown version it names."""
    from .engine.api import version_for
    from .engine.validate import problems

    found = problems(doc, name)
    if not found:
        try:
            version_for(doc, rules, name)
        except InputError as err:
            found = err.problems
    return found


def _judged(args: argparse.Namespace, settings: Any, texts: list[bytes]) -> list[Any]:
    """Snapshots (JSON texts) judged in a worker process within check's limits: a ruling
    or an error record each, as JSON data."""
    from contextlib import closing

    from .batch.lines import chunks
    from .batch.run import pool

    lines = list(enumerate(texts, 1))
    with closing(pool(settings, 1, args.timeout).run(chunks(lines, 100))) as results:
        return [json.loads(text) for chunk in results for _, text in chunk]


def _print_check(where: str, record: dict[str, Any], doc: Any,
                 args: argparse.Namespace) -> int:
    """A snapshot's violations (or its error record), one line each; their count.
    ``doc``: the snapshot, when a minimal cause is wanted for each violation."""
    if "error" in record:
        for p in record["error"]:
            print(escaped(f"{where}: {p['path']}: expected {p['expected']}"))
        return 1
    causes = _causes(args, doc, record) if doc is not None and record["violations"] else {}
    for v in record["violations"]:
        print(f"{where}: {v['rule']} {v['code']}: {escaped(v['message'])}")
        if doc is not None:
            print(f"  minimal cause: {', '.join(causes.get(_vkey(v), ['?']))}")
    return len(record["violations"])


def _check_corpus(source: str, args: argparse.Namespace, settings: Any) -> int:
    """Violations and error records of a JSON Lines corpus, one line each; their count.
    Its lines are judged as batch judges them, within the same limits."""
    from contextlib import closing

    from .batch.lines import Line, chunks, count_lines, numbered, open_input
    from .batch.progress import Bar, summary
    from .batch.run import pool

    started = time.monotonic()
    stream = open_input(source)
    judged = errors = violations = 0
    numbers: deque[list[int]] = deque()  # of the chunks handed to the workers, in order

    def numbered_chunks() -> Iterator[list[Line]]:
        for chunk in chunks(numbered(stream, max_bytes=args.max_line_bytes),
                            settings.batch_size):
            numbers.append([number for number, _ in chunk])
            yield chunk

    try:
        with Bar(count_lines(source) if sys.stderr.isatty() else None) as bar, \
                closing(pool(settings, 1, args.timeout).run(numbered_chunks())) as results:
            for chunk in results:
                for number, (is_error, text) in zip(numbers.popleft(), chunk, strict=True):
                    record = json.loads(text)
                    where = f"{source}:{number}" + (f" {escaped(record['id'])}"
                                                    if record.get("id") else "")
                    count = _print_check(where, record, None, args)
                    errors += is_error
                    judged += not is_error
                    violations += 0 if is_error else count
                bar.update(len(chunk))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    print(f"{source}: {violations} violation(s); "
          + summary(judged + errors, judged, errors, time.monotonic() - started),
          file=sys.stderr)
    return violations + errors


def _vkey(v: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    return (v["rule"], v["code"], tuple(v["objects"]))


def _causes(args: argparse.Namespace, doc: dict[str, Any],
            record: dict[str, Any]) -> dict[object, list[str]]:
    from .engine.causes import minimal_causes

    version = catalog.resolve(record["rules"])
    return {(c.violation.rule, c.violation.code, tuple(c.violation.objects)): c.paths
            for c in minimal_causes(doc, version, _changes(args))}


def cmd_batch(args: argparse.Namespace) -> int:
    from .batch.judge import Settings
    from .batch.run import Run, run_batch

    if args.rules is not None:
        catalog_check(args.rules)
    if args.html is not None:
        from .present.pages import check_page_options

        check_page_options(args)
    settings = Settings(args.rules, _changes(args), args.batch_size, args.max_objects,
                        args.max_effects, args.max_memory)
    started = time.monotonic()
    code = run_batch(Run(args.input, args.output, settings, args.workers, args.timeout,
                         args.resume, args.dask, args.argv, args.worker_memory,
                         args.max_line_bytes))
    if args.html is not None and code in (0, 1):
        from .present.pages import batch_summary_file

        batch_summary_file(args.output, args.html, args.lang, args.input,
                           time.monotonic() - started)
    return code


def cmd_test(args: argparse.Namespace) -> int:
    from .scenarios import run_paths

    if args.rules is not None:
        catalog_check(args.rules)
        if args.update:
            raise InputError([InputProblem("mtgcontrol", "--update", "each scenario judged "
                                           "under its own versions (drop --rules)")])
    return run_paths([Path(p) for p in args.paths], _changes(args), args.pattern, args.rules,
                     args.update)


def cmd_rules(args: argparse.Namespace) -> int:
    if args.rules_command == "diff":
        from .release import cmd_rules_diff

        return cmd_rules_diff(args)
    from .coverage import print_catalog, print_group

    if args.group is not None:
        return print_group(args.group)
    if args.version is not None:
        catalog_check(args.version)
    return print_catalog(catalog.resolve(args.version))


def cmd_impact(args: argparse.Namespace) -> int:
    from .research import cmd_impact as run

    catalog_check(args.from_version)
    catalog_check(args.to_version)
    if args.format == "html":
        from .present.pages import cmd_research_html

        return cmd_research_html("impact", run, args, _changes(args))
    return run(args, _changes(args))


def cmd_verify(args: argparse.Namespace) -> int:
    from .research import cmd_verify as run

    if args.rules is not None:
        catalog_check(args.rules)
    if args.format == "html":
        from .present.pages import cmd_research_html

        return cmd_research_html("verify", run, args, _changes(args))
    return run(args, _changes(args))


def cmd_import(args: argparse.Namespace) -> int:
    from .forge.command import cmd_import as run

    return run(args)


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve.command import cmd_serve as run

    return run(args)


# Commands whose -o is the page of --format html (adjudicate and explain write any
# format to -o).
HTML_ONLY_OUTPUT = ("check", "impact", "verify")
COMMANDS = {"adjudicate": cmd_adjudicate, "facts": cmd_facts, "explain": cmd_explain,
            "batch": cmd_batch,
            "check": cmd_check, "test": cmd_test, "rules": cmd_rules, "impact": cmd_impact,
            "verify": cmd_verify, "import": cmd_import, "serve": cmd_serve}

if __name__ == "__main__":
    raise SystemExit(main())
