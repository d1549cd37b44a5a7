"""Batch on a Dask distributed cluster (``mtgcontrol batch --dask ADDRESS|local``).

The client (the machine running ``mtgcontrol batch``) reads the input and writes the
output; each partition (``--batch-size`` lines) travels to a worker as bytes, with the
settings beside it in the same task (nothing is scattered, so nothing is lost with the
workers that held it), is judged there by the same `batch.judge.judge_lines` as locally, and
comes back as output lines, so the output is byte for byte that of a local run.  At
most a few partitions per worker are in flight, so the client's memory stays flat.

Each worker keeps a warm engine for its life (``dask_worker``, preloaded as it starts) and
judges each partition in a fresh child forked from it (``_judge``), so that its memory
and its speed stay those of a fresh worker: clingo never frees a symbol.

Workers may die: Dask re-runs a partition whose worker died on another (a LocalCluster's
nannies start replacements); a partition that killed its workers too often (Dask's
``KilledWorker``) is judged again line by line, and a line that kills its worker again
becomes an error record, as with local workers.  Workers need ``mtgcontrol`` installed
(the same version); the input and output files need not be visible to them.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
import uuid
import warnings
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from ..engine.api import InputError
from ..engine.validate import InputProblem
from .lines import Line
from .workers import PRELOAD, Result, WorkersFailed

IN_FLIGHT_PER_WORKER = 4
RESUBMITS = 3
"""Times a partition the cluster lost (cancelled, not judged) is sent again."""
WAIT_FOR_WORKERS = 60.0
"""Seconds to wait for a first worker to join a remote scheduler."""
CLOSE_TIMEOUT = 30.0
"""Seconds a closing client or cluster may take before the run exits anyway."""
POLL = 5.0
"""Seconds between two looks at the cluster while a partition is awaited."""
REVIVALS = 3
"""Times a local cluster left with no worker is given new ones before the run gives up."""
WORKER_PRELOAD = "mtgcontrol.batch.dask_worker"
"""What each worker loads as it starts (a warm engine, a quieter event loop); on a
cluster of one's own: ``dask worker ADDRESS --preload mtgcontrol.batch.dask_worker``."""


def _judge(lines: list[Line], settings: Any) -> list[Result]:
    """One partition's output lines, judged in a child forked from this worker.

    The worker itself stays as its preload left it (the engine warm, its program
    parsed); each partition is judged by a fresh copy of it, as a local batch worker
    is fresh (workers.py): clingo never frees a symbol, and a process that has judged
    a few hundred snapshots judges each one 30-70 % slower and holds twice the
    memory (BENCHMARKS.md).  Forking a warm process costs a few milliseconds; the
    output lines come back through a pipe.  Should the child die (killed, out of
    memory), the partition is judged here instead: the same bytes.
    """
    from .judge import judge_lines

    if not hasattr(os, "fork"):
        return judge_lines(lines, settings)
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # a worker has threads
        pid = os.fork()
    if pid == 0:  # the child: judge, hand the lines over, leave without clean-up
        code = 1
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                pickle.dump(judge_lines(lines, settings), out, protocol=pickle.HIGHEST_PROTOCOL)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as got:
        data = got.read()
    _, status = os.waitpid(pid, 0)
    if status == 0 and data:
        results: list[Result] = pickle.loads(data)  # noqa: S301 - our own child's output
        return results
    return judge_lines(lines, settings)


def _one_line(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0][:200]}" if text \
        else type(error).__name__


@dataclass
class DaskRunner:
    """Judge chunks on the cluster at ``address`` ('local': a LocalCluster of ``workers``)."""

    address: str
    settings: Any
    workers: int = 1
    _client: Any = field(default=None, init=False, repr=False)
    _cluster: Any = field(default=None, init=False, repr=False)
    _revivals: int = field(default=REVIVALS, init=False, repr=False)
    _keys: str = field(default_factory=lambda: uuid.uuid4().hex, init=False, repr=False)
    _submitted: int = field(default=0, init=False, repr=False)

    def run(self, chunks: Iterable[list[Line]]) -> Iterator[list[Result]]:
        self._cluster, self._client = self.start()
        try:
            window = IN_FLIGHT_PER_WORKER * max(1, len(self._client.scheduler_info()["workers"]))
            pending: deque[tuple[list[Line], Any]] = deque()
            for chunk in chunks:
                pending.append((chunk, self._submit(chunk)))
                if len(pending) >= window:
                    yield self._result(*pending.popleft())
            while pending:
                yield self._result(*pending.popleft())
        finally:
            quiet_close(self._client, self._cluster)

    def start(self) -> tuple[Any, Any]:
        """(the local cluster or None, a client) for ``address``; `WorkersFailed` when
        there is no cluster to reach (research's searches start theirs here too)."""
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError([InputProblem("mtgcontrol", "--dask", "Dask installed "
                                           "(pip install 'mtgcontrol[dask]')")]) from None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Dask's start-up advice is not the user's business
            return self._connect(Client, LocalCluster)

    def _connect(self, client_type: Any, cluster_type: Any) -> tuple[Any, Any]:
        cluster = None
        try:
            if self.address == "local":
                where = "a local Dask cluster"
                _fast_local_workers()
                cluster = cluster_type(n_workers=self.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=logging.CRITICAL,
                                       preload=_worker_preload(),
                                       # no dashboard; its HTTP server (health checks)
                                       # on a free local port, not 8787 on every interface
                                       scheduler_kwargs={"dashboard": False,
                                                         "dashboard_address": "127.0.0.1:0"})
                return cluster, client_type(cluster)
            where = f"a Dask cluster at {self.address}"
            client = client_type(self.address)  # distributed.comm.timeouts.connect
            try:
                client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
            except BaseException:
                client.close()
                raise
            return None, client
        except Exception as err:  # noqa: BLE001 - whatever stops the start is one message
            quiet_close(None, cluster)
            message = (f"no Dask cluster at {self.address}" if self.address != "local"
                       else "could not start a local Dask cluster")
            if isinstance(err, TimeoutError) and "worker" in str(err).lower():
                message = f"{where} has no worker (waited {WAIT_FOR_WORKERS:.0f} s)"
            raise WorkersFailed(f"{message} ({_one_line(err)})") from None

    def _submit(self, lines: list[Line]) -> Any:
        self._submitted += 1
        return self._client.submit(_judge, lines, self.settings, pure=False,
                                   key=f"mtgcontrol-judge-{self._keys}-{self._submitted}")

    def _result(self, lines: list[Line], future: Any, resubmits: int = RESUBMITS
                ) -> list[Result]:
        from distributed import KilledWorker

        try:
            return self._wait(future)
        except KilledWorker as err:
            if len(lines) > 1:
                alone = [([line], self._submit([line])) for line in lines]
                return [r for line, f in alone for r in self._result(line, f, resubmits)]
            from .judge import failed_line

            return [failed_line(lines[0], "a snapshot the engine can judge; the Dask "
                                f"workers judging it kept dying ({_one_line(err)})")]
        except CancelledError as err:  # the cluster dropped it (e.g. lost its workers)
            if resubmits <= 0:
                raise WorkersFailed(f"the Dask cluster keeps losing the partition from line "
                                    f"{lines[0][0]} ({_one_line(err)})") from None
            return self._result(lines, self._submit(lines), resubmits - 1)

    def _wait(self, future: Any) -> list[Result]:
        """The future's result, looking at the cluster every POLL seconds: when it has had
        no worker for WAIT_FOR_WORKERS seconds (its workers died and none came back, e.g.
        their fork server was killed too), a local cluster gets new workers (REVIVALS
        times), a remote one ends the run (WorkersFailed) instead of waiting forever."""
        seen = time.monotonic()
        while True:
            try:
                return future.result(timeout=POLL)
            except TimeoutError:
                pass
            if self._client.nthreads():
                seen = time.monotonic()
            elif time.monotonic() - seen >= WAIT_FOR_WORKERS:
                if self._cluster is None or self._revivals <= 0:
                    raise WorkersFailed(
                        f"the Dask cluster has had no worker for {WAIT_FOR_WORKERS:.0f} s "
                        "(its workers died and none replaced them); the lines written so "
                        "far are whole") from None
                self._revivals -= 1
                self._cluster.scale(0)  # the nannies whose restart failed go, new ones come
                self._cluster.scale(self.workers)
                seen = time.monotonic()


def _worker_preload() -> list[str]:
    """The preload modules the Dask configuration names (``distributed.worker.preload``),
    and ours."""
    import dask

    configured = dask.config.get("distributed.worker.preload", default=[]) or []
    return [*([configured] if isinstance(configured, str) else configured), WORKER_PRELOAD]


def _fast_local_workers() -> None:
    """A LocalCluster's workers without Dask's statistical profiler (it samples every
    worker's stack every 10 ms: about a quarter more CPU per snapshot, BENCHMARKS.md),
    forked from a server that has imported Dask and this package and parsed the program
    once (as workers.Pool's are), not each spawned as a fresh interpreter doing it all;
    and the scheduler and nannies, which share this process, watching the machine
    (psutil) every 5 s and their event loops every second instead of every 0.5 s and
    20 ms (dask_worker.QUIET_MS does the same for the workers)."""
    import multiprocessing

    import dask
    from distributed.utils import get_mp_context

    dask.config.set({"distributed.worker.profile.enabled": False,
                     "distributed.admin.system-monitor.interval": "5s",
                     "distributed.admin.tick.interval": "1s"})
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    get_mp_context().set_forkserver_preload(["distributed", *PRELOAD])


def quiet_close(client: Any, cluster: Any) -> None:
    """Close without Dask's shutdown chatter (closed comms, cancelled heartbeats)."""
    for thing in (client, cluster):
        if thing is None:
            continue
        with suppress(Exception):  # the run's output is already whole
            # bounded: a nanny still restarting a killed worker must not hold the exit
            thing.close(timeout=CLOSE_TIMEOUT)
