"""Writing batch output: whole lines, to a file (plain or ``.gz``) or standard output.

An output file is locked (``flock``) while a run writes it, so a second run on the same
file refuses at once, naming the process that holds it.  With ``resume``, an existing
output file is kept up to its last whole line and written on from there.

A ``.gz`` file is a series of gzip members, each holding the whole lines that first
reach `MEMBER_BYTES` of text (the last member: the rest), each compressed alone with
a fixed header (no name, no time).  Where members end depends on the lines alone, so
the same lines always give the same bytes: whatever the chunks, workers or flushes,
and after a resume (which rewrites the file through a temporary one beside it, swapped
in when done).  Between flushes the lines not yet in a finished member are kept as a
complete last member, rewritten in place at each flush: the file on disk is always a
valid ``.gz`` of whole lines.

A write that fails (a full disk, a file size limit, an I/O error) raises
`WriteFailed`; ``abort()`` then leaves the file holding only whole lines
(``complete`` of them), ready for ``--resume``.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import stat
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from ..engine.api import InputError
from ..engine.files import WriteFailed, write_all
from ..engine.validate import InputProblem

MEMBER_BYTES = 1 << 18
"""Text bytes (at least) per gzip member of a ``.gz`` output."""
GZIP_LEVEL = 6


def _regular(fd: int) -> bool:
    """A regular file (it can be cut and rewritten); else a device, pipe or terminal."""
    return stat.S_ISREG(os.fstat(fd).st_mode)


class _FileSink:
    """A plain file written from byte ``start``; ``good`` = bytes known written whole."""

    def __init__(self, fd: int, start: int) -> None:
        self.fd, self.good, self.buffer = fd, start, bytearray()
        self.regular = _regular(fd)
        if self.regular:
            os.ftruncate(fd, start)
            os.lseek(fd, start, os.SEEK_SET)

    def write(self, data: bytes) -> None:
        self.buffer += data

    def flush(self) -> None:
        write_all(self.fd, bytes(self.buffer))
        self.good += len(self.buffer)
        self.buffer.clear()

    def abort(self) -> None:
        """Drop what was not written whole (a cut-off last line)."""
        self.buffer.clear()
        if self.regular:
            os.ftruncate(self.fd, self.good)


class _GzipSink:
    """Deterministic gzip members (module docstring); ``done`` = bytes of finished ones."""

    def __init__(self, fd: int) -> None:
        self.fd, self.done, self.pending = fd, 0, bytearray()
        self.pending_lines = self.done_lines = 0
        self.flushed, self.flushed_lines = b"", 0
        """The unfinished member's text as last flushed (what abort puts back)."""
        self.regular = _regular(fd)
        """Else (a pipe, a device) members are written only once finished, or at the end."""
        if self.regular:
            os.ftruncate(fd, 0)

    def write(self, data: bytes) -> None:
        self.pending += data
        self.pending_lines += 1
        if len(self.pending) >= MEMBER_BYTES:
            self._put(finished=True)

    def flush(self) -> None:
        if self.pending and self.regular:
            self._put(finished=False)
            self.flushed, self.flushed_lines = bytes(self.pending), self.pending_lines

    def finish(self) -> None:
        """The last member, at the end of the output."""
        if self.pending and not self.regular:
            self._put(finished=True)

    def _put(self, finished: bool) -> None:
        member = gzip.compress(bytes(self.pending), compresslevel=GZIP_LEVEL, mtime=0)
        if self.regular:
            os.lseek(self.fd, self.done, os.SEEK_SET)
        write_all(self.fd, member)
        if self.regular:
            os.ftruncate(self.fd, self.done + len(member))
        if finished:
            self.done += len(member)
            self.done_lines += self.pending_lines
            self.pending.clear()
            self.pending_lines = 0
            self.flushed, self.flushed_lines = b"", 0

    def abort(self) -> int:
        """Back to the finished members and the last flushed member (it was written
        once, it fits again, unless something else took the room); the lines kept."""
        if not self.regular:
            return self.done_lines
        os.ftruncate(self.fd, self.done)
        self.pending = bytearray(self.flushed)
        self.pending_lines = self.flushed_lines
        if self.pending:
            try:
                self._put(finished=False)
            except OSError:
                os.ftruncate(self.fd, self.done)
                return self.done_lines
        return self.done_lines + self.flushed_lines


@dataclass
class Output:
    """An output being written; ``lines`` counts the lines it holds (kept ones too)."""

    name: str
    stream: IO[str] | None = None
    """Standard output (text), when that is where lines go."""
    lines: int = 0
    errors: int = 0
    """Error records among the lines kept from an earlier run (``--resume``)."""
    kept: int = 0
    """Lines kept from an earlier run."""
    complete: int = 0
    """Lines known to be whole on disk (after a flush or an ``abort``)."""
    _sink: _FileSink | _GzipSink | None = field(default=None, repr=False)
    _lock: int | None = field(default=None, repr=False)
    _swap: tuple[str, str] | None = field(default=None, repr=False)
    _closed: bool = field(default=False, repr=False)

    @property
    def to_stdout(self) -> bool:
        return self.stream is not None

    def write(self, line: str) -> None:
        try:
            if self.stream is not None:
                self.stream.write(line + "\n")
            else:
                assert self._sink is not None
                # backslashreplace: a lone surrogate that got this far still gives valid
                # JSON (\udc80).
                self._sink.write(line.encode("utf-8", "backslashreplace") + b"\n")
        except OSError as err:
            raise WriteFailed(self.name, err) from None
        self.lines += 1

    def flush(self) -> None:
        try:
            if self.stream is not None:
                self.stream.flush()
            elif self._sink is not None:
                self._sink.flush()
        except OSError as err:
            raise WriteFailed(self.name, err) from None
        self.complete = self.lines

    def close(self) -> None:
        """Flush and close (a file; standard output is flushed); again is a no-op."""
        if self._closed:
            return
        self.flush()
        if isinstance(self._sink, _GzipSink):
            try:
                self._sink.finish()
            except OSError as err:
                raise WriteFailed(self.name, err) from None
            self.complete = self.lines
        self._release(swap=True)

    def abort(self) -> None:
        """After a failed write: keep whole lines only, close, never raise."""
        if self._closed:
            return
        swap = False
        try:
            if isinstance(self._sink, _GzipSink):
                self.complete = self._sink.done_lines
                self.complete = self._sink.abort()
            elif self._sink is not None:
                self._sink.abort()
            swap = self._swap is not None and self.complete >= self.kept
        except OSError:
            pass
        if self._swap is not None and not swap:
            self.complete = self.kept  # the earlier file stays as it was
        self._release(swap=swap)

    def _release(self, swap: bool) -> None:
        self._closed = True
        if self._sink is not None:
            os.close(self._sink.fd)
        if self._swap is not None:
            if swap:
                os.replace(*self._swap)
            else:
                os.unlink(self._swap[0])
        if self._lock is not None:
            os.close(self._lock)  # the lock goes with it


def open_output(target: str | None, resume: bool = False) -> Output:
    """Open ``target`` (None or '-' for standard output); failures are `InputError`."""
    if target in (None, "-"):
        return Output("standard output", sys.stdout)
    gz = target.endswith(".gz")
    lock: int | None = None
    try:
        lock = os.open(target, os.O_RDWR | os.O_CREAT, 0o666)
        _lock(lock, target)
        existed = os.fstat(lock).st_size > 0
        if resume and existed:
            out = _resumed(target, gz, lock)
        else:
            sink = _GzipSink(os.dup(lock)) if gz else _FileSink(os.dup(lock), 0)
            out = Output(target, _sink=sink, _lock=lock)
        return out
    except OSError as err:
        if lock is not None:
            os.close(lock)
        raise InputError([InputProblem(target, "-o", f"a writable file ({err.strerror})")]
                         ) from None
    except BaseException:
        if lock is not None:
            os.close(lock)
        raise


def _lock(fd: int, target: str) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        who = f"process {holder}" if holder else "another process"
        raise InputError([InputProblem(target, "-o", (
            f"an output no other run is writing, but {who} holds it (another "
            "`mtgcontrol batch`?); wait for it to end or write elsewhere"))]) from None


def _holder(fd: int) -> int | None:
    """The process holding a lock on the file (Linux /proc/locks), when it can be told."""
    inode = os.fstat(fd).st_ino
    try:
        with open("/proc/locks", encoding="ascii") as locks:
            for entry in locks:
                parts = entry.split()
                if len(parts) > 5 and parts[5].rsplit(":", 1)[-1] == str(inode):
                    return int(parts[4])
    except (OSError, ValueError):
        pass
    return None


def _resumed(target: str, gz: bool, lock: int) -> Output:
    kept = errors = good_bytes = 0
    if not gz:
        for line in whole_lines(target):
            kept += 1
            errors += _is_error(target, kept, line)
            good_bytes += len(line) + 1
        return Output(target, _sink=_FileSink(os.dup(lock), good_bytes), _lock=lock,
                      lines=kept, errors=errors, kept=kept, complete=kept)
    temporary = target + ".resuming"
    out = Output(target, _sink=_GzipSink(os.open(temporary, os.O_RDWR | os.O_CREAT, 0o666)),
                 _lock=lock, _swap=(temporary, target))
    try:
        for line in whole_lines(target):
            out.kept += 1
            out.errors += _is_error(target, out.kept, line)
            out.write(line.decode("utf-8", errors="replace"))
        out.flush()
    except BaseException:  # the earlier file stays as it was; the caller closes the lock
        assert out._sink is not None
        os.close(out._sink.fd)
        os.unlink(temporary)
        raise
    out.complete = out.kept
    return out


def whole_lines(target: str) -> Iterator[bytes]:
    """The whole lines of an earlier output, without line ends; a cut-off last one dropped."""
    gz = target.endswith(".gz")
    with (gzip.open(target, "rb") if gz else open(target, "rb")) as stream:
        try:
            for raw in stream:
                if raw.endswith(b"\n"):
                    yield raw[:-1]
        except (EOFError, gzip.BadGzipFile, zlib.error):
            return  # a .gz cut short: keep what could be read


RULING_KEYS = frozenset({"id", "rules", "objects", "violations"})
ERROR_KEYS = frozenset({"line", "id", "error"})


def _is_error(target: str, number: int, line: bytes) -> bool:
    """Whether a kept line is an error record; other text is no output of ours."""
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if isinstance(record, dict) and set(record) >= RULING_KEYS:
        return False
    if isinstance(record, dict) and set(record) == ERROR_KEYS:
        return True
    raise InputError([InputProblem(target, f"line {number}", "a line written by "
                                   "`mtgcontrol batch` (to --resume), got other text")])
