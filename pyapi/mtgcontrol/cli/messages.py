"""The command line's one style of error line, ``mtgcontrol: FILE[:LINE]: $.path: expected
...`` (a problem with the command line itself: ``mtgcontrol: --option: expected ...``),
for input problems and argparse's usage errors alike."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from ..engine.validate import InputProblem
from ..present.text import escaped

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


def _quoted(text: str) -> str:
    """argparse's 'value' as "value"."""
    return '"' + text.strip("'") + '"'


def _choices(text: str) -> str:
    return ", ".join(c.strip().strip("'") for c in text.split(","))


# argparse's messages (Python 3.11 to 3.13) -> (where, expected).
_ARGPARSE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"argument (?P<where>[^:]+): invalid choice: (?P<got>.*?) "
                r"\(choose from (?P<choices>.*)\)$"), "one of {choices}, got {got}"),
    (re.compile(r"argument (?P<where>[^:]+): invalid int value: (?P<got>.*)$"),
     "an integer, got {got}"),
    (re.compile(r"argument (?P<where>[^:]+): invalid \w+ value: (?P<got>.*)$"),
     "a valid value, got {got}"),
    (re.compile(r"argument (?P<where>[^:]+): expected one argument$"),
     "a value after it"),
    (re.compile(r"argument (?P<where>[^:]+): expected (?P<what>.*)$"), "{what}"),
    (re.compile(r"argument (?P<where>[^:]+): not allowed with argument (?P<other>.*)$"),
     "not both it and {other}"),
    (re.compile(r"argument (?P<where>[^:]+): (?P<what>.*)$"), "{what}"),
)


def usage_problems(message: str, prog: str) -> list[InputProblem]:
    """argparse's message as problems of the command line, one per argument."""
    required = re.match(r"the following arguments are required: (.*)$", message)
    if required:
        return [InputProblem("mtgcontrol", name.strip(), f"a value (required by {prog})")
                for name in required.group(1).split(", ")]
    for pattern, expected in _ARGPARSE:
        found = pattern.match(message)
        if found:
            parts = found.groupdict()
            values = {"got": _quoted(parts.get("got") or ""),
                      "choices": _choices(parts.get("choices") or ""),
                      "what": parts.get("what") or "", "other": parts.get("other") or ""}
            return [InputProblem("mtgcontrol", parts["where"], expected.format(**values))]
    return [InputProblem("mtgcontrol", prog, message)]


class Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are error lines of the one style (and exit 2,
    as argparse's), not a usage block."""

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: None = None) -> argparse.Namespace:
        """As argparse's, an unknown argument named with the command it was given to."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            self.stop([InputProblem("mtgcontrol", arg, f"an argument of {prog} ({prog} --help)")
                       for arg in extras])
        return parsed

    def error(self, message: str) -> NoReturn:
        self.stop(usage_problems(message, self.prog))

    def stop(self, problems: list[InputProblem]) -> NoReturn:
        for problem in problems:
            print(error_line(problem), file=sys.stderr)
        self.exit(2)
