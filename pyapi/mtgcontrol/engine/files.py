"""The files a command names: inputs read within a size limit, outputs that are none of
the command's inputs, written whole or not at all.

Every command reads a file it takes whole (a snapshot, a scenario, a proposal, an
invariant, a Forge game file or card script, standard input) through ``read_input``:
at most `MAX_FILE_BYTES` are read, so ``/dev/zero`` or a runaway file is one error
line, not a memory error.  Every page, report or output file is written through
``write_output``: into a new file beside the target, renamed over it once whole, so
a full disk or a signal leaves the earlier file as it was, never half a page.  Before
any work, ``check_outputs`` refuses an output that is one of the command's inputs (by
any name: a link, another path) or another of its outputs, a folder, or a file in a
folder that does not exist.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from .validate import InputError, InputProblem

MAX_FILE_BYTES = 16 * 2**20
"""Largest file read whole, in bytes (the same as batch's longest line): over it, the
file is refused with an error naming the limit."""

COMMAND_LINE = "mtgcontrol"
"""The "snapshot" of a problem with the command line rather than with a file."""


class TooLarge(ValueError):
    """A file over the size limit of what is read whole."""

    def __init__(self, name: str, limit: int) -> None:
        super().__init__(f"{name}: over {limit} bytes")
        self.name, self.limit = name, limit

    @property
    def expected(self) -> str:
        return f"a file of at most {self.limit} bytes, got more"


class WriteFailed(Exception):
    """An output could not be written to the end (``reason``: the system's words); the
    exit code is 3."""

    def __init__(self, name: str, err: OSError) -> None:
        self.name = name
        self.reason = err.strerror or str(err)
        super().__init__(f"cannot write {name} ({self.reason})")


def read_bounded(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file ('-': standard input), at most ``limit`` of them: `TooLarge`
    beyond (only ``limit`` + 1 bytes are ever read); `OSError` as the system says."""
    if str(path) == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        with open(path, "rb") as stream:
            data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(str(path), limit)
    return data


def read_input(path: str | Path, limit: int = MAX_FILE_BYTES, where: str = "$",
               what: str = "file") -> bytes:
    """``read_bounded``, its failures as `InputError` naming the file, ``where`` in it
    and what was expected (a readable ``what``)."""
    shown = "stdin" if str(path) == "-" else str(path)
    try:
        return read_bounded(path, limit)
    except TooLarge as err:
        raise InputError([InputProblem(shown, where, f"a {what} of at most {err.limit} "
                                                     "bytes, got more")]) from None
    except (OSError, ValueError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise InputError([InputProblem(shown, where, f"a readable {what} ({reason})")]
                         ) from None


def _identity(path: str | Path) -> tuple[int, int] | str:
    """The file a path names: its device and inode when it exists, else its full path."""
    try:
        info = os.stat(path)
        return info.st_dev, info.st_ino
    except OSError:
        return str(Path(path).resolve())


def _problem(flag: str, expected: str) -> InputProblem:
    return InputProblem(COMMAND_LINE, flag, expected)


def check_outputs(reads: Iterable[str | Path], writes: Iterable[tuple[str, str | None]]
                  ) -> None:
    """Refuse, before any work, outputs (``(flag, path)``; None or '-': standard output)
    that would overwrite an input (``reads``: files; a folder, each file under it), a
    folder, another output, or that cannot be created (no such folder).  `InputError`
    naming the option: exit 2, nothing written."""
    outputs = [(flag, str(path)) for flag, path in writes if path not in (None, "-")]
    if not outputs:
        return
    inputs: dict[tuple[int, int] | str, str] = {}
    for path in reads:
        if str(path) == "-":
            continue
        for name in _files(Path(path)):
            inputs.setdefault(_identity(name), str(name))
    found: list[InputProblem] = []
    seen: dict[tuple[int, int] | str, str] = {}
    for flag, path in outputs:
        target = Path(path)
        same = _identity(target)
        if same in inputs:
            found.append(_problem(flag, f"an output other than the input {inputs[same]} "
                                        "(it would be overwritten)"))
        elif same in seen:
            found.append(_problem(flag, f"an output other than {seen[same]}'s file"))
        elif target.is_dir():
            found.append(InputProblem(path, flag, "a writable file (Is a directory)"))
        elif not target.exists() and not target.resolve().parent.is_dir():
            found.append(InputProblem(path, flag, "a writable file (No such file or "
                                                  "directory: no folder to write it in)"))
        seen.setdefault(same, flag)
    if found:
        raise InputError(found)


def _files(path: Path) -> Iterable[Path]:
    """A file itself; a folder's files (not following links to folders)."""
    if not path.is_dir():
        yield path
        return
    for root, _dirs, names in os.walk(path):
        for name in names:
            yield Path(root) / name


def write_output(path: str | Path, text: str | bytes, flag: str = "-o") -> None:
    """``text`` (UTF-8) into ``path``, whole or not at all: written to a new file beside it
    and renamed over it (a link is followed: its target is replaced; a device or pipe is
    written directly).  A file that cannot be created is an `InputError` (exit 2); a
    write that fails part way (full disk, file size limit) is `WriteFailed` (exit 3),
    the earlier file left as it was."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    name = str(path)
    target = Path(path).resolve()
    try:
        info: os.stat_result | None = os.stat(target)
    except OSError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        _write_through(target, name, data, flag)
        return
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as err:
        raise InputError([InputProblem(name, flag, f"a writable file ({err.strerror})")]
                         ) from None
    try:
        try:
            if info is not None:
                os.chmod(fd, stat.S_IMODE(info.st_mode))
            write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError as err:
        with suppress(OSError):
            os.unlink(temporary)
        raise WriteFailed(name, err) from None
    except BaseException:  # a signal: the earlier file stays, no part file is left
        with suppress(OSError):
            os.unlink(temporary)
        raise


def _write_through(target: Path, name: str, data: bytes, flag: str) -> None:
    try:
        fd = os.open(target, os.O_WRONLY)
    except OSError as err:
        raise InputError([InputProblem(name, flag, f"a writable file ({err.strerror})")]
                         ) from None
    try:
        write_all(fd, data)
    except OSError as err:
        raise WriteFailed(name, err) from None
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
