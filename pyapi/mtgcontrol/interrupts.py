"""SIGINT and SIGTERM as an exception, held back while a line is being written.

Inside ``interruptible()`` either signal raises `Interrupted` where the program is
(a blocking read or wait included), except inside ``guard.writing()``: there it is
remembered and raised when the block ends, so output always ends with a whole line.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(Exception):
    """The run was stopped by a signal; ``exit_code`` is 128 + its number (130, 143)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


@dataclass
class Guard:
    busy: bool = False
    pending: int | None = None

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.busy:
            self.pending = signum
        else:
            raise Interrupted(signum)

    @contextmanager
    def writing(self) -> Iterator[None]:
        self.busy = True
        try:
            yield
        finally:
            self.busy = False
        if self.pending is not None:
            raise Interrupted(self.pending)


@contextmanager
def interruptible() -> Iterator[Guard]:
    """Turn SIGINT/SIGTERM into `Interrupted` for the block (main thread only)."""
    guard = Guard()
    if threading.current_thread() is not threading.main_thread():
        yield guard
        return
    previous = {s: signal.signal(s, guard.handle) for s in SIGNALS}
    try:
        yield guard
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
