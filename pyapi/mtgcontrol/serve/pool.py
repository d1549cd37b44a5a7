"""The service's judging processes, driven from the server's event loop.

Workers are ``mtgcontrol batch``'s (batch/workers.py): forked from a fork server that
imported the package and parsed the program once, each a process with its own pipe
that keeps its engine warm from one request to the next.  A request's snapshot is a
task; tasks wait in one queue, and a worker that falls idle takes the oldest task with
every other waiting task that shares its options, up to `MAX_TASKS` or
`batch.lines.CHUNK_BYTES` of input, as one job (one grounding: a grounding's fixed
cost is paid once for all the requests that arrived together).  The answers do not
depend on how tasks are grouped (a ruling depends on its snapshot alone).

Limits are batch's: a job whose worker has used more than ``timeout`` seconds of CPU
time (or ten times that in wall-clock time) is killed and its tasks judged again one
by one, each with the whole limit, so that only the slow snapshot fails (422); a
worker that dies has its job judged again whole, then task by task, and a task whose
worker dies twice fails; a worker whose memory has peaked over ``memory_limit`` is
replaced between jobs.  The server keeps serving throughout.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..batch.lines import CHUNK_BYTES
from ..batch.workers import (
    POLL,
    START_FAILURES,
    WALL_FACTOR,
    Limits,
    Worker,
    context,
    death_reason,
    how_it_ended,
    retries,
    start_worker,
    time_limit_reason,
)
from .tasks import JUDGED, Options, Reply, Task, WorkerSettings, failed, run_job

MAX_TASKS = 100
"""Tasks per job at most (batch's default --batch-size)."""
RECYCLE_AFTER = 5000
"""Tasks a worker answers before it is replaced, whatever its memory (clingo keeps every
symbol it ever made)."""
STARTUP_SECONDS = 120.0
LINGER = 0.002
"""Seconds a job waits for companions before it goes (unless enough tasks wait)."""


class WorkersFailed(RuntimeError):
    """Worker processes cannot be started."""


@dataclass(eq=False)
class Ask:
    """A task waiting for its reply."""

    task: Task
    reply: asyncio.Future[Reply]


@dataclass(eq=False)
class Job:
    options: Options
    asks: list[Ask]
    attempt: int = 0
    alone: bool = False
    """Judged again after a failure: never grouped with other tasks."""


@dataclass(eq=False)
class JudgePool(Limits):
    """``count`` worker processes answering tasks; see the module docstring."""

    count: int
    settings: WorkerSettings
    queue: deque[Job] = field(default_factory=deque)
    running: dict[int, Job] = field(default_factory=dict)
    """The job of each busy worker, by process id."""
    stopping: str | None = None
    """Why new tasks are refused (the server is stopping, workers cannot start)."""
    answered: int = 0
    jobs: int = 0
    """Jobs sent to workers (``answered / jobs``: the mean size of a grounding)."""
    _ticker: asyncio.TimerHandle | None = None
    _linger: asyncio.TimerHandle | None = None

    async def start(self) -> None:
        """Start the workers and wait until each is ready."""
        self._ctx = context()
        self._loop = asyncio.get_running_loop()
        for _ in range(self.count):
            self._spawn()
        deadline = time.monotonic() + STARTUP_SECONDS
        while not all(w.ready for w in self.workers) or len(self.workers) < self.count:
            if self.stopping is not None or time.monotonic() > deadline:
                raise WorkersFailed(self.stopping or "worker processes did not start in time")
            await asyncio.sleep(0.01)
        self._tick()

    def waiting(self) -> int:
        return sum(len(job.asks) for job in self.queue)

    def submit(self, options: Options, *tasks: Task) -> list[asyncio.Future[Reply]]:
        """The future replies to ``tasks`` (queued together: they may share a job)."""
        replies: list[asyncio.Future[Reply]] = []
        for task in tasks:
            reply: asyncio.Future[Reply] = self._loop.create_future()
            if self.stopping is not None:
                reply.set_result(failed(task, self.stopping, 503))
            else:
                self.queue.append(Job(options, [Ask(task, reply)]))
            replies.append(reply)
        self._dispatch()
        return replies

    def stop(self, reason: str) -> None:
        """Refuse new tasks; fail the waiting and running ones (503), stop the workers."""
        self.stopping = reason
        jobs = [*self.queue, *self.running.values()]
        self.queue.clear()
        self.running.clear()
        for job in jobs:
            for ask in job.asks:
                _answer(ask, failed(ask.task, reason, 503))
        for worker in list(self.workers):
            self._remove(worker, kill=True)
        if self._ticker is not None:
            self._ticker.cancel()

    # --- workers ----------------------------------------------------------------
    def _spawn(self) -> None:
        worker = start_worker(self._ctx, run_job, self.settings, self.ceiling)
        self.workers.append(worker)
        self._loop.add_reader(worker.conn.fileno(), self._readable, worker)
        # uvloop makes a watched pipe non-blocking; a message is sent and read whole.
        os.set_blocking(worker.conn.fileno(), True)

    def _remove(self, worker: Worker, kill: bool) -> None:
        """Take ``worker`` out; it ends (or is killed) and is reaped in a thread."""
        self._loop.remove_reader(worker.conn.fileno())
        self.workers.remove(worker)
        if not kill:
            try:
                worker.conn.send(None)
            except OSError:
                kill = True
        if kill:
            worker.process.kill()
        self._loop.run_in_executor(None, _reap, worker)

    def _readable(self, worker: Worker) -> None:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._died(worker)
        else:
            if message == "ready":
                worker.ready = True
                self._start_failures = 0
            else:
                self._done(worker, *message)
        self._dispatch()

    def _done(self, worker: Worker, replies: list[Reply], peak: int) -> None:
        job = self.running.pop(worker.process.pid)
        for ask, reply in zip(job.asks, replies, strict=True):
            _answer(ask, reply)
        self.answered += len(job.asks)
        worker.jobs_done += len(job.asks)
        if worker.jobs_done >= RECYCLE_AFTER or (
                self.memory_limit is not None and peak > self.memory_limit):
            self._remove(worker, kill=False)
            self._spawn()

    def _died(self, worker: Worker) -> None:
        worker.process.join(1)  # its own exit code, before we make sure it is gone
        how = how_it_ended(worker.process)
        job = self.running.pop(worker.process.pid, None)
        self._remove(worker, kill=True)
        if not worker.ready:
            self._start_failures += 1
            if self._start_failures >= START_FAILURES:
                self.stop(f"a worker process to judge it, but they die as they start ({how})")
                return
        self._spawn()
        if job is None:
            self.warn(f"mtgcontrol serve: a worker process died ({how}); replaced")
            return
        self.warn(f"mtgcontrol serve: a worker process died ({how}); its "
                  f"{len(job.asks)} task(s) are judged again")
        self._again(job, timed_out=False, reason=death_reason(how, self.ceiling))

    def _tick(self) -> None:
        """Every POLL seconds: kill the jobs over the time limit."""
        now = time.monotonic()
        for worker in [w for w in self.workers if w.process.pid in self.running]:
            if worker.used(now) >= self.timeout or \
                    now - worker.started >= self.timeout * WALL_FACTOR:
                job = self.running.pop(worker.process.pid)
                self._remove(worker, kill=True)
                self._spawn()
                self._again(job, timed_out=True, reason=time_limit_reason(self.timeout))
        self._dispatch()
        self._ticker = self._loop.call_later(POLL, self._tick)

    def _again(self, job: Job, timed_out: bool, reason: str) -> None:
        """A failed job's tasks judged again (batch.workers.retries), or its one task
        failed (422)."""
        again = retries(job.asks, job.attempt, timed_out)
        self.queue.extendleft(Job(job.options, asks, attempt, alone=True)
                              for asks, attempt in reversed(again))
        if not again:
            ask = job.asks[0]
            _answer(ask, failed(ask.task, reason))

    # --- jobs -------------------------------------------------------------------
    def _dispatch(self) -> None:
        """Give the waiting tasks to the idle workers: soon, not at once, unless enough
        wait (requests come in bursts, and each job pays a grounding's fixed cost)."""
        idle = self._idle()
        if not idle or not self.queue or self._linger is not None:
            return
        if self.waiting() >= MAX_TASKS * len(idle):
            self._flush()
        else:
            self._linger = self._loop.call_later(LINGER, self._flush)

    def _idle(self) -> list[Worker]:
        return [w for w in self.workers if w.ready and w.process.pid not in self.running]

    def _flush(self) -> None:
        """The waiting tasks shared evenly among the idle workers (the workers judge in
        parallel: a share each is faster than all on one)."""
        self._linger = None
        idle = self._idle()
        share = -(-self.waiting() // max(len(idle), 1))
        for worker in idle:
            job = self._next(max(share, 1))
            if job is None:
                return
            self.running[worker.process.pid] = job
            self.jobs += 1
            worker.started = time.monotonic()
            worker.cpu_started = worker.cpu() or 0.0
            try:
                worker.conn.send((job.options, [ask.task for ask in job.asks]))
            except OSError:
                self._died(worker)
                return
        if self.queue and self._idle():
            self._dispatch()

    def _next(self, most: int = MAX_TASKS) -> Job | None:
        """The oldest waiting job, with the waiting tasks it can be judged with (at most
        ``most`` tasks)."""
        while self.queue:
            job = self.queue.popleft()
            job.asks = [a for a in job.asks if not a.reply.done()]  # gone: the client left
            if job.asks:
                break
        else:
            return None
        if job.alone or job.asks[0].task.kind not in JUDGED:
            return job
        size = len(job.asks[0].task.raw)
        rest: deque[Job] = deque()
        while self.queue and len(job.asks) < min(most, MAX_TASKS) and size < CHUNK_BYTES:
            other = self.queue.popleft()
            if other.alone or other.options != job.options or \
                    other.asks[0].task.kind not in JUDGED:
                rest.append(other)
                continue
            job.asks += [a for a in other.asks if not a.reply.done()]
            size += sum(len(a.task.raw) for a in other.asks)
        rest.extend(self.queue)
        self.queue = rest
        return job


def _answer(ask: Ask, reply: Reply) -> None:
    if not ask.reply.done():
        ask.reply.set_result(reply)


def _reap(worker: Worker) -> None:
    worker.process.join(5)
    if worker.process.is_alive():
        worker.process.kill()
        worker.process.join()
    worker.conn.close()


def pool_state(pool: JudgePool) -> dict[str, Any]:
    """What ``/health`` says of the pool."""
    return {"workers": len(pool.workers), "busy": len(pool.running),
            "waiting": pool.waiting(), "answered": pool.answered, "jobs": pool.jobs}
