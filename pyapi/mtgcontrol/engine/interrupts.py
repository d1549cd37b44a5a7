"""SIGINT and SIGTERM as an exception, held back while a line is being written, and
served within a fraction of a second in any phase, grounding included.

Inside ``interruptible()`` either signal raises `Interrupted` where the program is
(a blocking read or wait included), except inside ``guard.writing()``: there it is
remembered and raised when the block ends, so output always ends with a whole line.
Once a run is stopping, further signals (a repeated Ctrl-C) are ignored, so the
clean-up that keeps the output whole is never cut short.

clingo's grounding is one long call into C that returns to Python only when done, so
a signal handler would wait for it (tens of seconds on a large program).
``ground(ctl, parts)`` grounds in a helper thread (clingo lets go of Python's lock
while it works) and waits for it in short slices, so the handler runs at once; the
grounding is then abandoned, and ``exit_if_stopped`` ends the process without
waiting for it (the interpreter's own shutdown would stop that thread mid-way in C++,
which aborts the process; the same goes for clingo's solver threads).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

SIGNALS = (signal.SIGINT, signal.SIGTERM)
SLICE = 0.1
"""Seconds between two looks for a signal while a grounding runs in its thread."""

T = TypeVar("T")
_active = 0
"""How many ``interruptible()`` blocks the main thread is in."""
_abandoned: list[threading.Thread] = []
_stopped = False
"""A signal has stopped this process's run."""


class Interrupted(BaseException):
    """The run was stopped by a signal; ``exit_code`` is 128 + its number (130, 143).

    A `BaseException`, as `KeyboardInterrupt` is: code that turns whatever goes wrong
    with one input into that input's error record (``except Exception``) must not turn
    a stop into a record and carry on.

    clingo re-raises an exception from inside one of its callbacks (a parse, a
    logger) as ``type(err)(err)``: made from an `Interrupted`, it is the same stop."""

    signum: int

    def __init__(self, signum: int | Interrupted) -> None:
        number: int = signum.signum if isinstance(signum, Interrupted) else signum
        super().__init__(signal.Signals(number).name)
        self.signum = number

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


@dataclass
class Guard:
    busy: bool = False
    pending: int | None = None
    stopping: bool = False
    """A signal has been raised: the run is on its way out; later ones are ignored."""

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.stopping:
            return
        if self.busy:
            self.pending = signum
        else:
            self.stop()
            raise Interrupted(signum)

    def stop(self) -> None:
        global _stopped
        self.stopping = _stopped = True

    @contextmanager
    def writing(self) -> Iterator[None]:
        self.busy = True
        try:
            yield
        finally:
            self.busy = False
        if self.pending is not None and not self.stopping:
            self.stop()
            raise Interrupted(self.pending)


@contextmanager
def interruptible() -> Iterator[Guard]:
    """Turn SIGINT/SIGTERM into `Interrupted` for the block (main thread only).

    When the block ends by a signal, the signals stay ignored (the program is ending):
    a second Ctrl-C during the clean-up can neither leave a traceback nor cut it short.
    """
    global _active
    guard = Guard()
    if threading.current_thread() is not threading.main_thread():
        yield guard
        return
    previous = {s: signal.signal(s, guard.handle) for s in SIGNALS}
    _active += 1
    try:
        yield guard
    finally:
        _active -= 1
        for s, handler in previous.items():
            signal.signal(s, _ignore if guard.stopping else handler)


def _ignore(_signum: int, _frame: FrameType | None) -> None:
    """Signals after the first, while the program ends."""


def restore_default_signals() -> None:
    """Python's own SIGINT/SIGTERM handling again where a stopped run left them ignored
    (after a command run in-process)."""
    if threading.current_thread() is threading.main_thread():
        for signum, default in ((signal.SIGINT, signal.default_int_handler),
                                (signal.SIGTERM, signal.SIG_DFL)):
            if signal.getsignal(signum) is _ignore:
                signal.signal(signum, default)


def call_interruptibly(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a helper thread, waited for in slices so that a signal is
    served at once (see the module docstring); run directly outside ``interruptible``."""
    if not _active or threading.current_thread() is not threading.main_thread():
        return function(*args)
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as err:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = err

    thread = threading.Thread(target=target, name="mtgcontrol-ground", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(SLICE)
    except BaseException:
        _abandoned.append(thread)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def ground(ctl: Any, parts: Sequence[tuple[str, Sequence[Any]]]) -> None:
    """``ctl.ground(parts)``, served by a signal at once (``call_interruptibly``)."""
    call_interruptibly(ctl.ground, parts)


def exit_if_stopped(code: int) -> None:
    """End the process now with ``code`` if a signal stopped it: a grounding left
    running in its thread, or clingo's solver threads of a cancelled search, must not
    meet the interpreter's shutdown (that ends in a crash: "FATAL: exception not
    rethrown", a segmentation fault)."""
    if _stopped or any(t.is_alive() for t in _abandoned):
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
