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
from typing import BinaryIO

from ..engine.api import InputError
from ..engine.validate import InputProblem

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


DEFAULT_MAX_LINE_BYTES = 16 * 2**20
"""Longest input line read (bytes); a longer one is read past and becomes an error record."""


class LongLine(bytes):
    """Stands for an input line over the length limit: its first bytes, and its length."""

    length: int
    limit: int

    def __new__(cls, head: bytes, length: int, limit: int) -> LongLine:
        line = super().__new__(cls, head)
        line.length, line.limit = length, limit
        return line

    def __reduce__(self) -> tuple[object, ...]:  # to a worker process and back
        return (LongLine, (bytes(self), self.length, self.limit))


class numbered:  # noqa: N801 - used like a generator function
    """Every line with its number, the first ``skip`` left out; ``count`` = lines read.

    A line over ``max_bytes`` is read to its end without being held (memory stays
    flat) and given as a `LongLine`.  A read error or a truncated ``.gz`` part way
    through is reported as an `InputError` naming the line where reading stopped.
    """

    def __init__(self, stream: BinaryIO, skip: int = 0,
                 max_bytes: int = DEFAULT_MAX_LINE_BYTES, start: int = 0) -> None:
        self.stream, self.skip, self.count, self.max_bytes = stream, skip, start, max_bytes

    def __iter__(self) -> Iterator[Line]:
        try:
            while raw := self.stream.readline(self.max_bytes + 1):
                self.count += 1
                if len(raw) > self.max_bytes and raw[self.max_bytes:] != b"\n":
                    raw = self._long(raw)
                if self.count > self.skip:
                    yield self.count, raw if isinstance(raw, LongLine) else \
                        raw.rstrip(b"\n").removesuffix(b"\r")
        except (OSError, EOFError, zlib.error) as err:
            reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
            raise InputError([InputProblem(getattr(self.stream, "name", "input"),
                                           f"line {self.count + 1}",
                                           f"readable input ({reason})")]) from None

    def _long(self, head: bytes) -> LongLine:
        length, part = len(head), head
        while not part.endswith(b"\n"):
            part = self.stream.readline(1 << 20)
            if not part:
                break
            length += len(part)
        return LongLine(head[:200], length - part.endswith(b"\n"), self.max_bytes)


CHUNK_BYTES = 1 << 18
"""Input bytes after which a chunk ends early: a chunk of large snapshots is smaller, so a
worker's memory (one grounding per chunk) stays bounded (BENCHMARKS.md)."""


def chunks(lines: Iterable[Line], size: int, skipped: int = 0,
           max_bytes: int = CHUNK_BYTES) -> Iterator[list[Line]]:
    """Lists of at most ``size`` lines, ended early once they hold ``max_bytes`` of input.
    A resumed run's first chunk is cut where it would have been had the ``skipped``
    lines before been read too (rulings do not depend on the chunks; this only keeps
    a resumed run's work like an undisturbed one's)."""
    each = iter(lines)
    room = size - skipped % size
    chunk: list[Line] = []
    held = 0
    for line in each:
        chunk.append(line)
        held += len(line[1])
        if len(chunk) >= room or held >= max_bytes:
            yield chunk
            chunk, held, room = [], 0, size
    if chunk:
        yield chunk
