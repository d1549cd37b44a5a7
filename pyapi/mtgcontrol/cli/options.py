"""The command line's shared pieces: argument types, ``--version``, the epilog, and the
helpers that add an option group to one command's parser (each command calls the
ones it takes; no parser is a parent of another, so no command's defaults can
become another's)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from .. import catalog
from ..engine.validate import positive_int, shown

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
    from ..batch.workers import workers_problem

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


def rules_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--rules", metavar="DATE", help=help)


RULES_HELP = ("CR version (a release of the rules catalog), or any later date (the version "
              "in force that day); default: the snapshot's own `rules`, else the newest")


def change_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--change", metavar="FILE.lp", action="append", default=[],
                        help="a proposal file layered over the rules (repeatable)")


def common(parser: argparse.ArgumentParser) -> None:
    """``--rules`` and ``--change``, for the commands judging snapshot files."""
    rules_option(parser, RULES_HELP)
    change_option(parser)


def file_options(parser: argparse.ArgumentParser, reads: Sequence[str] = (),
                  writes: Sequence[tuple[str, str]] = ()) -> None:
    """Which options name the files a command reads (``reads``: dests) and writes
    (``writes``: (dest, flag)); ``check_outputs`` holds the outputs apart from the
    inputs for every command before it starts."""
    parser.set_defaults(reads=tuple(reads), writes=tuple(writes))


def limits(parser: argparse.ArgumentParser) -> None:
    """The limits of judging a corpus (batch, check): each snapshot over one becomes an
    error record, never a hang or a crash."""
    from ..batch.judge import (
        DEFAULT_MAX_EFFECTS,
        DEFAULT_MAX_MEMORY,
        DEFAULT_MAX_OBJECTS,
        DEFAULT_TIMEOUT,
    )
    from ..batch.lines import DEFAULT_MAX_LINE_BYTES

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


def page_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (required with --format html)")
    parser.add_argument("--lang", default="en", metavar="en|fr|it",
                        help="language of explanations, labels and paraphrases (default en)")
