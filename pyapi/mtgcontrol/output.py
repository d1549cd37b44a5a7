"""Writing batch output: whole lines, to a file (plain or ``.gz``) or standard output.

With ``resume``, an existing output file is kept up to its last whole line and
written on from there.  A ``.gz`` file is written with a fixed header (no name, no
time), so the same lines always give the same bytes; resuming one rewrites it
(through a temporary file beside it, swapped in when done) so that the finished
file equals that of an undisturbed run.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, BinaryIO

from .api import InputError
from .validate import InputProblem


@dataclass
class Output:
    """An output being written; ``lines`` counts the lines it holds (kept ones too)."""

    name: str
    stream: IO[str]
    lines: int = 0
    errors: int = 0
    """Error records among the lines kept from an earlier run (``--resume``)."""
    kept: int = 0
    """Lines kept from an earlier run."""
    _swap: tuple[str, str] | None = field(default=None, repr=False)

    def write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.lines += 1

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        """Flush and close (a file; standard output is flushed); again is a no-op."""
        if self.stream is sys.stdout:
            self.stream.flush()
            return
        if self.stream.closed:
            return
        self.stream.close()
        if self._swap is not None:
            os.replace(*self._swap)


def open_output(target: str | None, resume: bool = False) -> Output:
    """Open ``target`` (None or '-' for standard output); failures are `InputError`."""
    if target in (None, "-"):
        return Output("standard output", sys.stdout)
    gz = target.endswith(".gz")
    try:
        if resume and os.path.exists(target):
            return _resumed(target, gz)
        return Output(target, _text(_open_binary(target, gz, "wb")))
    except OSError as err:
        raise InputError([InputProblem(target, "-o", f"a writable file ({err.strerror})")]
                         ) from None


def _open_binary(path: str, gz: bool, mode: str) -> BinaryIO:
    raw = open(path, mode)  # noqa: SIM115
    if not gz:
        return raw
    # filename="" and mtime=0: a header that does not depend on where or when.
    return _OwningGzip(raw)


class _OwningGzip(gzip.GzipFile):
    def __init__(self, raw: BinaryIO) -> None:
        super().__init__(filename="", mode="wb", fileobj=raw, mtime=0)
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def _text(stream: BinaryIO) -> IO[str]:
    # backslashreplace: a lone surrogate that got this far still gives valid JSON (\udc80).
    return io.TextIOWrapper(stream, encoding="utf-8", errors="backslashreplace",  # type: ignore[arg-type]
                            newline="\n", write_through=False)


def _resumed(target: str, gz: bool) -> Output:
    if not gz:
        kept = errors = good_bytes = 0
        for line in _whole_lines(target, gz):
            kept += 1
            errors += _is_error(target, kept, line)
            good_bytes += len(line) + 1
        with open(target, "r+b") as stream:
            stream.truncate(good_bytes)
        return Output(target, _text(open(target, "ab")), lines=kept, errors=errors,  # noqa: SIM115
                      kept=kept)
    temporary = target + ".resuming"
    out = Output(target, _text(_open_binary(temporary, True, "wb")), _swap=(temporary, target))
    try:
        for line in _whole_lines(target, gz):
            out.kept += 1
            out.errors += _is_error(target, out.kept, line)
            out.stream.write(line.decode("utf-8", errors="replace") + "\n")
    except BaseException:
        out.stream.close()
        os.unlink(temporary)
        raise
    out.lines = out.kept
    return out


def _whole_lines(target: str, gz: bool) -> Iterator[bytes]:
    """The whole lines of an earlier output, without line ends; a cut-off last one dropped."""
    with (gzip.open(target, "rb") if gz else open(target, "rb")) as stream:
        try:
            for raw in stream:
                if raw.endswith(b"\n"):
                    yield raw[:-1]
        except (EOFError, gzip.BadGzipFile, zlib.error):
            return  # a .gz cut short: keep what could be read


def _is_error(target: str, number: int, line: bytes) -> bool:
    """Whether a kept line is an error record; other text is no output of ours."""
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        raise InputError([InputProblem(target, f"line {number}", "a line written by "
                                       "`mtgcontrol batch` (to --resume), got other text")])
    return "error" in record
