"""The command line: ``mtgcontrol adjudicate | facts | explain | batch | check | test |
rules | impact | verify | import forge | serve`` (parser.py declares each command's
arguments; commands.py and check.py run them).

Exit codes: 0 done, 1 the rulings found problems (check, test, verify; for verify
also an invariant left undecided by --time-limit) or some corpus lines became error
records (batch, check, impact), 2 bad input or usage, 3 the output could not be
written to the end (disk full), 130/143 stopped by SIGINT/SIGTERM.  Bad input is
reported one line per problem, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import catalog
from ..engine.api import InputError
from ..engine.files import WriteFailed, check_outputs
from ..engine.interrupts import (
    Interrupted,
    exit_if_stopped,
    interruptible,
    restore_default_signals,
)
from ..engine.solve import NoRuling
from ..engine.validate import InputProblem
from ..present.text import escaped
from .check import cmd_check
from .commands import (
    cmd_adjudicate,
    cmd_batch,
    cmd_explain,
    cmd_facts,
    cmd_impact,
    cmd_import,
    cmd_rules,
    cmd_serve,
    cmd_test,
    cmd_verify,
)
from .messages import error_line
from .parser import build_parser


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
                parser.error(f"argument -o: expected --format html with -o FILE ({args.command} "
                             "writes only its page to a file)")
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


HTML_ONLY_OUTPUT = ("check", "impact", "verify")
COMMANDS = {"adjudicate": cmd_adjudicate, "facts": cmd_facts, "explain": cmd_explain,
            "batch": cmd_batch,
            "check": cmd_check, "test": cmd_test, "rules": cmd_rules, "impact": cmd_impact,
            "verify": cmd_verify, "import": cmd_import, "serve": cmd_serve}

