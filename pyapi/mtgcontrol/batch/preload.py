"""What the batch workers' fork server loads once for every worker (workers.PRELOAD).

Importing this module imports the package and fills its caches: both schema
validators and the default engine with its program parsed and read for slicing (the
rules' statements and the ruling lens's), so that a worker forked from the server
judges its first line without that start-up.  A Dask worker judges each partition in
a child forked from its warm self (``dask_runner._judge``): what is not warmed here,
every partition pays again (the slicing analysis alone is ~0.4 s of CPU).  Nothing
here is needed: should loading fail (a broken ``MTGCONTROL_CATALOG``, say), each worker
loads what it needs itself and reports the problem as it would have anyway.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType

from . import run  # noqa: F401 - what every worker runs


def _quiet_lost_semaphore(kind: type[BaseException], error: BaseException,
                          trace: TracebackType | None, previous=sys.excepthook) -> None:  # noqa: ANN001
    """A child the fork server forks after its parent dropped the start's semaphore (a
    Dask nanny closed while it restarted a killed worker, as a run ends) cannot rebuild it
    and dies with ``FileNotFoundError`` in ``SemLock.__setstate__``; the fork server prints
    that with ``sys.excepthook`` onto the user's terminal.  Nothing was lost (the worker
    was not wanted any more), so exactly that one error is silenced; any other goes on."""
    last = trace
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if issubclass(kind, FileNotFoundError) and last is not None \
            and last.tb_frame.f_code.co_name == "__setstate__" \
            and Path(last.tb_frame.f_code.co_filename).parts[-2:] == \
            ("multiprocessing", "synchronize.py"):
        return
    previous(kind, error, trace)


sys.excepthook = _quiet_lost_semaphore

try:
    from ..engine import api, validate
    from ..engine.engine import RULING

    validate._compiled()
    validate._validator()
    # The program parsed and read for slicing, with the ruling lens's statements (the
    # atoms and violations lenses share its program): slicing for empty facts builds both.
    api.engine_for((), api.fast_default()).statements(RULING, "")
except Exception:  # noqa: BLE001, S110 - only a head start; the workers will say what is wrong
    pass
