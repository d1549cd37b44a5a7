"""Where research's searches run: worker processes of this machine, or a Dask cluster.

A search is cut into tasks (research/proofs.py: one cell and cube of one invariant's
space; research/differences.py: a whole impact search).  A task grounds its program
once per worker (``SearchProgram.key``: a worker keeps its last groundings, so the
next cube of the same program costs no grounding and keeps what the solver learnt)
and runs under a CPU budget.  The parent only hands out tasks and reads results, so
it answers Ctrl-C and SIGTERM at once in any phase: a grounding or a solve runs in a
child, which is killed.

* `Processes`: ``count`` processes forked from a server that has imported the package
  (as batch's workers are); a task goes to an idle worker that holds its program if
  one does; the CPU a running task has used is read from /proc, and a task is
  cancelled through its worker's pipe (the worker looks every 0.1 s).
* `DaskCluster`: ``verify --dask local|ADDRESS``: the same tasks on a Dask cluster;
  each Dask worker process keeps its groundings in the same way.  A task on Dask
  stops by its own CPU budget (a running Dask task cannot be cancelled).
* `InProcess`: the tasks run in this process, one after the other (``workers=0``;
  for the API and tests that want no child process).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Protocol

from ..batch.workers import PRELOAD, TICKS, WorkersFailed
from .solver import Budget, Search, SearchProgram

KEEP = 4
"""Groundings a worker keeps (the least recently used goes first)."""
POLL = 0.1
"""Seconds between two looks at the workers (results, CPU, signals)."""
OVERRUN = 1.0
"""CPU seconds past its budget after which a task's worker is killed: a solve stops
within 0.1 s of its budget by itself; what runs on is a grounding, which ignores it."""


class Task(Protocol):
    """What a worker runs: ``run(groundings, budget)`` -> a picklable result."""

    number: int
    budget: float | None

    @property
    def program(self) -> SearchProgram: ...

    def run(self, groundings: Groundings, budget: Budget) -> Any: ...

    def stopped(self, cpu: float) -> Any:
        """The result of this task stopped by its budget before it searched anything
        (its worker was killed while grounding: a grounding cannot be interrupted)."""


class Groundings:
    """A worker's groundings, by program key (at most ``KEEP``)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Search] = OrderedDict()
        self.cpu = 0.0
        """CPU seconds of the groundings made (the last task's grounding, if any)."""

    def get(self, program: SearchProgram) -> Search:
        search = self._kept.get(program.key)
        if search is None:
            start = time.process_time()
            search = program.ground()
            self.cpu = time.process_time() - start
            self._kept[program.key] = search
            while len(self._kept) > KEEP:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(program.key)
        return search

    def holds(self, key: str) -> bool:
        return key in self._kept


@dataclass
class Failure:
    """A task whose worker died or raised: the message, for the run's error."""

    message: str


def _serve(conn: Connection, environ: dict[str, str]) -> None:
    """A worker's life: run the tasks that come until told to stop or the parent goes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent's to handle
    if os.environ != environ:
        os.environ.clear()
        os.environ.update(environ)
    # A parent stopped by a signal closes its end at any moment, even before this
    # worker is ready: the worker then ends quietly (no traceback on the terminal).
    with suppress(OSError, EOFError):
        _work(conn)


def _work(conn: Connection) -> None:
    groundings = Groundings()
    conn.send("ready")
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        if task == "cancel":  # for a task that has ended meanwhile
            continue
        told = _Told(conn)
        try:
            result: Any = task.run(groundings, Budget(task.budget, told.stop))
        except Exception as err:  # noqa: BLE001 - reported to the parent as the task's
            result = Failure(f"{type(err).__name__}: {err}")
        conn.send((task.number, result))
        if told.said == [None]:  # told to end while the task ran
            return


@dataclass
class _Told:
    """What the parent said to a worker while its task ran: "cancel" (or None: end)."""

    conn: Connection
    said: list[Any] = field(default_factory=list)

    def stop(self) -> bool:
        while not self.said and self.conn.poll():
            self.said.append(self.conn.recv())
        return bool(self.said)


# ---------------------------------------------------------------------------------
# Runners


class Runner(Protocol):
    workers: int

    def dispatch(self, candidates: Sequence[Task]) -> list[Task]:
        """Start some of ``candidates`` (in their order, where workers are free)."""

    def wait(self, timeout: float) -> list[tuple[Task, Any]]:
        """Tasks that ended within ``timeout`` seconds, with their results."""

    def spent(self, task: Task) -> float:
        """CPU seconds a running task has used so far (0 where unknown)."""

    def cancel(self, task: Task) -> None: ...

    def close(self) -> None: ...


class InProcess:
    """Tasks run in this process, one at a time, when ``wait`` is called."""

    workers = 1

    def __init__(self) -> None:
        self._groundings = Groundings()
        self._queue: list[Task] = []

    def dispatch(self, candidates: Sequence[Task]) -> list[Task]:
        if self._queue or not candidates:
            return []
        self._queue.append(candidates[0])
        return [candidates[0]]

    def wait(self, timeout: float) -> list[tuple[Task, Any]]:
        if not self._queue:
            return []
        task = self._queue.pop()
        return [(task, task.run(self._groundings, Budget(task.budget)))]

    def spent(self, task: Task) -> float:
        return 0.0

    def cancel(self, task: Task) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class _Worker:
    process: Any
    conn: Connection
    ready: bool = False
    task: Task | None = None
    cpu_start: float = 0.0
    keys: list[str] = field(default_factory=list)

    def cpu(self) -> float:
        """CPU seconds of this worker process so far (Linux /proc; 0 where unknown)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1]
            utime, stime = fields.split()[11:13]
        except (OSError, IndexError, ValueError):
            return 0.0
        return (int(utime) + int(stime)) / TICKS

    def holds(self, key: str) -> bool:
        return key in self.keys[-KEEP:]


class Processes:
    """``count`` worker processes of this machine (see the module docstring)."""

    def __init__(self, count: int) -> None:
        self.workers = count
        if "forkserver" in multiprocessing.get_all_start_methods():
            context: Any = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([*PRELOAD, "mtgcontrol.research.proofs"])
        else:
            context = multiprocessing.get_context("spawn")
        self._ctx = context
        self._pool: list[_Worker] = []
        self._started = 0
        try:
            for _ in range(count):
                self._spawn()
        except BaseException:  # a signal while starting: no worker is left behind
            self.close()
            raise

    def _spawn(self) -> None:
        ours, theirs = self._ctx.Pipe()
        process = self._ctx.Process(target=_serve, args=(theirs, dict(os.environ)),
                                    daemon=True, name="mtgcontrol-search")
        process.start()
        theirs.close()
        self._started += 1
        if self._started > 3 * self.workers + 3:
            raise WorkersFailed("search worker processes keep dying as they start")
        self._pool.append(_Worker(process, ours))

    def dispatch(self, candidates: Sequence[Task]) -> list[Task]:
        started: list[Task] = []
        idle = [w for w in self._pool if w.ready and w.task is None]
        todo = list(candidates)
        while idle and todo:
            # The first task, to a worker that holds its program if one does; an idle
            # worker that holds the program of a later task keeps waiting for it.
            task = todo.pop(0)
            worker = next((w for w in idle if w.holds(task.program.key)), None)
            if worker is None:
                worker = next((w for w in idle
                               if not any(w.holds(t.program.key) for t in todo)), idle[0])
            idle.remove(worker)
            worker.task = task
            worker.cpu_start = worker.cpu()
            worker.keys.append(task.program.key)
            worker.conn.send(task)
            started.append(task)
        return started

    def wait(self, timeout: float) -> list[tuple[Task, Any]]:
        done: list[tuple[Task, Any]] = []
        ready = wait([w.conn for w in self._pool], timeout=timeout)
        for worker in [w for w in self._pool if w.conn in ready]:
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                task = worker.task
                code = self._bury(worker)
                if task is not None:
                    done.append((task, Failure(f"a search worker process died ({code})")))
                continue
            if message == "ready":
                worker.ready = True
                continue
            task, worker.task = worker.task, None
            if task is not None and message[0] == task.number:
                done.append((task, message[1]))
        for worker in list(self._pool):
            task = worker.task
            if task is not None and task.budget is not None and \
                    (spent := worker.cpu() - worker.cpu_start) > task.budget + OVERRUN:
                worker.process.kill()
                self._started -= 1  # killed on purpose: not a worker that dies as it starts
                self._bury(worker)
                done.append((task, task.stopped(spent)))
        return done

    def _bury(self, worker: _Worker) -> str:
        worker.process.join(1)
        code = worker.process.exitcode
        self._pool.remove(worker)
        worker.conn.close()
        self._spawn()
        return f"killed by {signal.Signals(-code).name}" if isinstance(code, int) and code < 0 \
            else f"exit code {code}"

    def spent(self, task: Task) -> float:
        for worker in self._pool:
            if worker.task is task:
                return max(0.0, worker.cpu() - worker.cpu_start)
        return 0.0

    def cancel(self, task: Task) -> None:
        for worker in self._pool:
            if worker.task is task:
                with suppress(OSError):
                    worker.conn.send("cancel")

    def close(self) -> None:
        """Stop every worker now (a running grounding or solve is killed, not waited for)."""
        for worker in self._pool:
            if worker.task is not None:
                worker.process.kill()
            else:
                try:
                    worker.conn.send(None)
                except OSError:
                    worker.process.kill()
        for worker in self._pool:
            worker.process.join(2)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._pool.clear()


# Dask: the tasks run in the Dask workers' processes, which keep their groundings here.
_DASK_GROUNDINGS: Groundings | None = None


def _run_on_dask(task: Task) -> Any:
    global _DASK_GROUNDINGS
    if _DASK_GROUNDINGS is None:
        _DASK_GROUNDINGS = Groundings()
    try:
        return task.run(_DASK_GROUNDINGS, Budget(task.budget))
    except Exception as err:  # noqa: BLE001 - the parent reports it
        return Failure(f"{type(err).__name__}: {err}")


class DaskCluster:
    """Tasks on a Dask cluster: ``address`` or ``local`` (a LocalCluster of ``count``
    single-threaded worker processes)."""

    def __init__(self, address: str, count: int) -> None:
        from ..batch.dask_runner import DaskRunner

        self._cluster, self._client = DaskRunner(address, None, count).start()
        self.workers = max(1, len(self._client.scheduler_info()["workers"]))
        self._futures: dict[int, tuple[Task, Any]] = {}  # by submission: each key unique
        self._submitted = 0
        self._run = uuid.uuid4().hex

    def dispatch(self, candidates: Sequence[Task]) -> list[Task]:
        room = 2 * self.workers - len(self._futures)
        started = list(candidates[:max(0, room)])
        for task in started:
            self._submitted += 1
            future = self._client.submit(_run_on_dask, task, pure=False,
                                         key=f"mtgcontrol-search-{self._run}-{self._submitted}")
            self._futures[self._submitted] = (task, future)
        return started

    def wait(self, timeout: float) -> list[tuple[Task, Any]]:
        from distributed import wait as dask_wait

        if not self._futures:
            return []
        futures = [f for _, f in self._futures.values()]
        try:
            dask_wait(futures, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        done: list[tuple[Task, Any]] = []
        for number, (task, future) in list(self._futures.items()):
            if future.done():
                del self._futures[number]
                try:
                    done.append((task, future.result()))
                except Exception as err:  # noqa: BLE001 - a lost worker, a cancelled task
                    done.append((task, Failure(f"the Dask cluster lost the task "
                                               f"({type(err).__name__}: {err})")))
        return done

    def spent(self, task: Task) -> float:
        return 0.0

    def cancel(self, task: Task) -> None:
        for entry in self._futures.values():
            if entry[0] is task:
                entry[1].cancel()

    def close(self) -> None:
        from ..batch.dask_runner import quiet_close

        quiet_close(self._client, self._cluster)


def run_one(work: Runner, task: Task) -> Any:
    """Run one task on ``work`` (once a worker is ready) and return its result."""
    started = False
    while True:
        if not started:
            started = bool(work.dispatch([task]))
        for ended, result in work.wait(POLL):
            if ended is task:
                return result


def runner(workers: int, dask: str | None = None) -> Runner:
    """The runner for ``workers`` processes (0: in this process), or a Dask cluster."""
    if dask is not None:
        return DaskCluster(dask, max(1, workers))
    if workers <= 0:
        return InProcess()
    return Processes(workers)
