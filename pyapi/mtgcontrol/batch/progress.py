"""What long-running commands tell a person: a progress bar, a summary, exit codes.

The bar (tqdm: whole lines counted, rate, ETA when the total is known) goes to standard
error and only when that is a terminal; pipes and logs get the one-line summary alone.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

OK, SOME_ERRORS, USAGE, WRITE_FAILED = 0, 1, 2, 3
EXIT_CODES = ("exit codes: 0 every snapshot judged; 1 some lines became error records; "
              "2 usage error, unreadable input, an output that cannot be opened or is "
              "being written by another run, or --resume on another input's output "
              "(nothing written); 3 the output could not be written to the end (disk full, "
              "file size limit, I/O error), its lines so far left whole for --resume; 130 "
              "or 143 stopped by SIGINT (Ctrl-C) or SIGTERM, with the lines so far "
              "written whole")

T = TypeVar("T")


class Bar:
    """A progress bar on a terminal's standard error; does nothing elsewhere."""

    def __init__(self, total: int | None, unit: str = "line", initial: int = 0,
                 enabled: bool | None = None) -> None:
        show = sys.stderr.isatty() if enabled is None else enabled
        self._bar: Any = None
        if show:
            from tqdm import tqdm

            self._bar = tqdm(total=total, initial=initial, unit=unit, unit_scale=False,
                             file=sys.stderr, dynamic_ncols=True, smoothing=0.1, leave=False)

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def counted(items: Iterable[T], total: int | None = None, unit: str = "line") -> Iterator[T]:
    """``items`` unchanged, with a progress bar while they are consumed."""
    with Bar(total, unit) as bar:
        for item in items:
            yield item
            bar.update()


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.1f} lines/s" if seconds > 0 else "-"


def summary(lines: int, judged: int, errors: int, seconds: float, kept: int = 0) -> str:
    """One line: how much was judged, how many error records, how long, how fast."""
    done = lines - kept
    resumed = f" ({kept} kept from the earlier run)" if kept else ""
    return (f"{lines} line(s){resumed}: {judged} judged, {errors} error record(s); "
            f"{done} in {seconds:.1f} s ({rate(done, seconds)})")
