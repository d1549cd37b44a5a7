"""Reading JSON Lines input: a path, ``-`` for standard input, ``.gz`` decompressed.

Lines are read as bytes, every one of them (a blank line too, so that output line N
answers input line N), and decoded later, where a bad line becomes an error record.
"""

from __future__ import annotations

import gzip
import os
import sys
import zlib
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import BinaryIO

from .api import InputError
from .validate import InputProblem

GZIP_MAGIC = b"\x1f\x8b"

Line = tuple[int, bytes]
"""An input line: its number (from 1) and its bytes without the line ending."""


def open_input(source: str) -> BinaryIO:
    """The input as a binary stream; an unreadable file is an `InputError` (exit 2)."""
    try:
        if source == "-":
            stream: BinaryIO = sys.stdin.buffer
        elif os.path.isdir(source):
            raise IsADirectoryError(21, "Is a directory")
        else:
            stream = open(source, "rb")  # noqa: SIM115
        if stream.peek(2)[:2] != GZIP_MAGIC:  # type: ignore[attr-defined]
            return stream
        if source == "-":
            return gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[return-value]
        stream.close()
        return gzip.open(source, "rb")  # type: ignore[return-value]
    except OSError as err:
        raise InputError([InputProblem(source, "input", f"a readable file ({err.strerror})")]
                         ) from None


def count_lines(source: str) -> int | None:
    """Lines in a plain input file (for a progress bar's total); None when unknown."""
    if source == "-":
        return None
    try:
        with open(source, "rb") as stream:
            if stream.read(2) == GZIP_MAGIC:
                return None
            stream.seek(0)
            count = last = 0
            while block := stream.read(1 << 20):
                count += block.count(b"\n")
                last = block[-1]
            return count + (last not in (0, 10))
    except OSError:
        return None


class numbered:  # noqa: N801 - used like a generator function
    """Every line with its number, the first ``skip`` left out; ``count`` = lines read.

    A read error or a truncated ``.gz`` part way through is reported as an
    `InputError` naming the line where reading stopped.
    """

    def __init__(self, stream: BinaryIO, skip: int = 0) -> None:
        self.stream, self.skip, self.count = stream, skip, 0

    def __iter__(self) -> Iterator[Line]:
        try:
            for raw in self.stream:
                self.count += 1
                if self.count > self.skip:
                    yield self.count, raw.rstrip(b"\n").removesuffix(b"\r")
        except (OSError, EOFError, zlib.error) as err:
            reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
            raise InputError([InputProblem(getattr(self.stream, "name", "input"),
                                           f"line {self.count + 1}",
                                           f"readable input ({reason})")]) from None


def chunks(lines: Iterable[Line], size: int, skipped: int = 0) -> Iterator[list[Line]]:
    """Lists of ``size`` lines (the last may be shorter), cut where they would have been
    cut had the ``skipped`` lines before been read too (so a resumed run judges the same
    chunks as an undisturbed one)."""
    each = iter(lines)
    first = size - skipped % size
    while chunk := list(islice(each, first)):
        yield chunk
        first = size
