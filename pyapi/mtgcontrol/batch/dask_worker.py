"""What a Dask worker judging snapshots loads as it starts: ``dask worker ADDRESS
--preload mtgcontrol.batch.dask_worker`` on a cluster of one's own (a local cluster's
workers load it too).

* A warm engine: the package imported, both schema validators compiled and the default
  engine's program parsed (``preload``), once per worker process, before its first
  partition.
* A quieter event loop: a worker runs each partition in a thread while its event loop
  wakes every 20 ms (the tick), 100 ms (the memory monitor) and 500 ms (the system
  monitor); each wake-up takes Python's lock from the judging thread, which cost a
  quarter more CPU per snapshot (BENCHMARKS.md).  Those three are slowed to 1, 1 and
  5 seconds; heartbeats and everything the scheduler needs keep their pace.
"""

from __future__ import annotations

from typing import Any

QUIET_MS = {"tick": 1000, "memory_monitor": 1000, "monitor": 5000}
"""Milliseconds between two runs of each of these periodic callbacks of a worker."""


def dask_setup(worker: Any) -> None:
    """Dask's preload hook: runs in each worker process as it starts."""
    from . import preload  # noqa: F401 - the warm engine

    for name, ms in QUIET_MS.items():
        callback = worker.periodic_callbacks.get(name)
        if callback is not None and callback.callback_time < ms:
            callback.callback_time = ms
