"""Worker processes that judge chunks of lines; a dead or stuck one is replaced.

Each worker is a process with its own pipe, so the parent always knows which chunk a
worker holds.  Workers are forked from a server process that has imported the package
once and warmed its caches (``preload``; ``forkserver`` where the platform has it,
else they are spawned), so a new worker costs milliseconds, not an interpreter start,
the imports and the program parse.  clingo never frees a symbol, so a worker's memory
grows with every snapshot it judges: a worker whose peak memory is over
``memory_limit`` after a chunk is replaced by a fresh one (the output is the same
bytes: a ruling does not depend on what the process judged before).  When a
worker dies (killed by a signal, out of memory) its chunk is judged again, first whole,
then line by line; when a chunk takes longer than the time limit its worker is killed
and its lines are judged one by one, each with the full limit, so that only the line
that is really too slow becomes an error record.  The limit counts the worker's CPU
time (read from /proc; wall-clock time where that cannot be read, and ten times the
limit in wall-clock time in any case), so a loaded machine does not turn a slow
snapshot into an error record: the output does not depend on the load.  Results come
back in input order, each line exactly once.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerContext, SpawnContext
from pathlib import Path
from typing import Any

from .lines import Line

Result = tuple[bool, str]
"""One output line and whether it is an error record."""

Judge = Callable[[list[Line], Any], list[Result]]
"""What a worker runs: a chunk of lines and the settings -> one result per line."""

Failed = Callable[[Line, str], Result]
"""The error record for a line no worker could judge, with the reason."""

RECYCLE_AFTER = 100
"""Chunks a worker judges before it is replaced, whatever its memory."""
PRELOAD = ["mtgcontrol.batch.preload"]
"""What the fork server imports once for every worker it forks (the package, warmed)."""
START_FAILURES = 3
"""Workers in a row that die before they are ready: then give up."""
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
POLL = 0.5
"""Seconds between two looks at the CPU time of busy workers."""
WALL_FACTOR = 10
"""A job also times out after this many times the limit in wall-clock seconds (a worker
stuck without using the CPU)."""
REIMPORTED = 117
"""The exit code of a worker process whose import of the main script called run_batch."""
MAX_WORKERS = 4 * (os.cpu_count() or 1)
"""Worker processes at most: 4 per core.  More judge nothing faster, and each may hold
--max-memory: 300 of them would fork 300 processes and could exhaust the machine."""


def workers_problem(count: int) -> str | None:
    """What is wrong with ``count`` worker processes (None: nothing)."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_WORKERS:
        return f"an integer from 1 to {MAX_WORKERS} (4 per core)"
    return None


class WorkersFailed(RuntimeError):
    """Worker processes cannot be started."""


@dataclass
class Job:
    chunk: int
    lines: list[Line]
    attempt: int = 0


@dataclass
class Worker:
    process: Any
    conn: Connection
    ready: bool = False
    job: Job | None = None
    started: float = 0.0
    cpu_started: float = 0.0
    jobs_done: int = 0

    def cpu(self) -> float | None:
        """CPU seconds this worker process has used (Linux /proc), None where unknown."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1]
            utime, stime = fields.split()[11:13]
        except (OSError, IndexError, ValueError):
            return None
        return (int(utime) + int(stime)) / TICKS

    def used(self, now: float) -> float:
        """Time its job has taken: CPU seconds where they can be read (a loaded machine
        does not make a snapshot time out), else wall-clock seconds."""
        cpu = self.cpu()
        return now - self.started if cpu is None else cpu - self.cpu_started


def peak_bytes() -> int:
    """The most memory this process has held at once (its peak resident set)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, else KiB


def _serve(conn: Connection, judge: Judge, settings: Any, environ: dict[str, str],
           ceiling: int | None = None) -> None:
    """A worker's life: judge what comes until told to stop or the parent is gone;
    each chunk's results go back with the worker's peak memory so far.

    ``environ`` is the parent's environment now (a fork server's is the one it started
    with): settings such as ``MTGCONTROL_CATALOG`` are read from it.  ``ceiling``: bytes
    of data memory the process may hold (RLIMIT_DATA, enforced by the kernel while
    judging: an allocation over it fails, and the snapshot becomes an error record)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if ceiling is not None:
        limit = getattr(resource, "RLIMIT_DATA", resource.RLIMIT_AS)
        resource.setrlimit(limit, (ceiling, ceiling))
    if os.environ != environ:
        os.environ.clear()
        os.environ.update(environ)
    conn.send("ready")
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        results = judge(job, settings)
        conn.send((results, peak_bytes()))


def context() -> ForkServerContext | SpawnContext:
    """How workers start: forked from a fork server that preloaded the package (PRELOAD),
    else spawned."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(PRELOAD)
        return forkserver
    return multiprocessing.get_context("spawn")


def start_worker(ctx: ForkServerContext | SpawnContext, judge: Callable[[Any, Any], Any],
                 settings: Any, ceiling: int | None) -> Worker:
    """A worker process running ``judge(job, settings)`` on each job it is sent (batch's:
    a `Judge`); not ready until it says so."""
    ours, theirs = ctx.Pipe()
    process = ctx.Process(target=_serve, args=(theirs, judge, settings, dict(os.environ),
                                               ceiling), daemon=True, name="mtgcontrol-worker")
    process.start()
    theirs.close()
    return Worker(process, ours)


def how_it_ended(process: Any) -> str:
    """A dead worker's end in words: the signal that killed it, or its exit code."""
    code = process.exitcode
    return (f"killed by {signal.Signals(-code).name}" if isinstance(code, int) and code < 0
            else f"exit code {code}")


def retries(lines: list[Any], attempt: int, timed_out: bool) -> list[tuple[list[Any], int]]:
    """After a job failed: the jobs to run again, as (lines, attempt); none when its one
    line has failed for good.  A dead worker's lines are judged again together once, then
    one by one (each line twice); a job over the time limit is judged again line by line,
    each with the full limit, so that only the line really too slow fails."""
    if len(lines) > 1:
        return [(lines, 1)] if attempt == 0 and not timed_out else \
            [([line], 0) for line in lines]
    return [(lines, 1)] if attempt == 0 and not timed_out else []


def time_limit_reason(timeout: float) -> str:
    return f"a snapshot judged within the time limit (--timeout {timeout:g} s of CPU time)"


def death_reason(how: str, ceiling: int | None) -> str:
    limit = "" if ceiling is None else (
        f"; it may have reached the worker memory limit of {ceiling >> 20} MB, --max-memory")
    return f"a snapshot the engine can judge; the worker judging it died twice ({how}{limit})"


@dataclass(kw_only=True)
class Limits:
    """The limits of a pool of worker processes (batch's `Pool`, serve's `JudgePool`),
    and what it keeps of its workers."""

    timeout: float
    """Seconds of CPU time a worker may spend on one job (more: it is killed)."""
    memory_limit: int | None = None
    """Bytes of peak memory after which a worker is replaced (None: never)."""
    ceiling: int | None = None
    """Bytes of data memory a worker may hold at any time (None: no limit)."""
    warn: Callable[[str], None] = field(default=lambda text: print(text, file=sys.stderr))
    workers: list[Worker] = field(default_factory=list)
    _start_failures: int = 0


@dataclass
class Pool(Limits):
    """``count`` workers running ``judge(lines, settings)``; see the module docstring."""

    count: int
    judge: Judge
    settings: Any
    failed: Failed

    def __post_init__(self) -> None:
        self._ctx = context()

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers]

    def _spawn(self) -> None:
        self.workers.append(start_worker(self._ctx, self.judge, self.settings, self.ceiling))

    def _retire(self, worker: Worker, kill: bool) -> None:
        self.workers.remove(worker)
        if kill:
            worker.process.kill()
        else:
            try:
                worker.conn.send(None)
            except OSError:
                worker.process.kill()
        worker.process.join(5)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.conn.close()

    def close(self) -> None:
        for worker in list(self.workers):
            self._retire(worker, kill=worker.job is not None)

    def run(self, chunks: Iterable[list[Line]]) -> Generator[list[Result], None, None]:
        """Results per chunk, in the order of ``chunks``."""
        source = iter(chunks)
        queue: deque[Job] = deque()
        partial: dict[int, dict[int, Result]] = {}  # chunk -> line number -> result
        sizes: dict[int, int] = {}
        numbers: dict[int, list[int]] = {}
        next_chunk = next_out = 0
        exhausted = False
        self._spawn()  # the others once it is ready (``_step``): one failed start costs one
        try:
            while True:
                while next_out in partial and len(partial[next_out]) == sizes[next_out]:
                    done = partial.pop(next_out)
                    yield [done[n] for n in numbers.pop(next_out)]
                    del sizes[next_out]
                    next_out += 1
                # Read ahead at most two chunks per worker: memory stays flat.
                while not exhausted and len(queue) < self.count and \
                        next_chunk - next_out < 2 * self.count:
                    lines = next(source, None)
                    if lines is None:
                        exhausted = True
                        break
                    queue.append(Job(next_chunk, lines))
                    sizes[next_chunk] = len(lines)
                    numbers[next_chunk] = [n for n, _ in lines]
                    partial[next_chunk] = {}
                    next_chunk += 1
                if exhausted and next_out == next_chunk:
                    return
                self._dispatch(queue)
                if all(w.ready and w.job is None for w in self.workers):
                    raise RuntimeError(f"internal error: chunk {next_out} is unfinished with "
                                       "nothing left to wait for")
                self._step(queue, partial)
        finally:
            self.close()

    def _dispatch(self, queue: deque[Job]) -> None:
        for worker in self.workers:
            if worker.ready and worker.job is None and queue:
                worker.job = queue.popleft()
                worker.started = time.monotonic()
                worker.cpu_started = worker.cpu() or 0.0
                worker.conn.send(worker.job.lines)

    def _step(self, queue: deque[Job], partial: dict[int, dict[int, Result]]) -> None:
        busy = [w for w in self.workers if w.job is not None]
        ready = wait([w.conn for w in self.workers], timeout=POLL if busy else None)
        for worker in [w for w in self.workers if w.conn in ready]:
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                self._died(worker, queue, partial)
                continue
            if message == "ready":
                worker.ready = True
                self._start_failures = 0
                while len(self.workers) < self.count:
                    self._spawn()
                continue
            job, worker.job = worker.job, None
            assert job is not None
            results, peak = message
            for (number, _), result in zip(job.lines, results, strict=True):
                partial[job.chunk][number] = result
            worker.jobs_done += 1
            if worker.jobs_done >= RECYCLE_AFTER or (
                    self.memory_limit is not None and peak > self.memory_limit):
                self._retire(worker, kill=False)
                self._spawn()
        now = time.monotonic()
        for worker in [w for w in self.workers if w.job is not None]:
            if worker.used(now) >= self.timeout or \
                    now - worker.started >= self.timeout * WALL_FACTOR:
                self._timed_out(worker, queue, partial)

    def _died(self, worker: Worker, queue: deque[Job], partial: dict[int, dict[int, Result]]
              ) -> None:
        job = worker.job
        worker.process.join(1)  # its own exit code, before we make sure it is gone
        how, code = how_it_ended(worker.process), worker.process.exitcode
        self._retire(worker, kill=True)
        if not worker.ready and code == REIMPORTED:
            raise WorkersFailed(
                "run_batch was called again by a worker process as it imported your script "
                "(worker processes import the main script): call it under `if __name__ == "
                "\"__main__\":` (README, Python API)")
        if not worker.ready:
            self._start_failures += 1
            if self._start_failures >= START_FAILURES:
                raise WorkersFailed(f"worker processes die as they start ({how})")
        self._spawn()
        if job is None:
            self.warn(f"mtgcontrol: a worker process died ({how}); replaced")
            return
        self.warn(f"mtgcontrol: a worker process died ({how}); its {len(job.lines)} line(s) "
                  f"from line {job.lines[0][0]} are judged again")
        self._again(job, queue, partial, timed_out=False, reason=death_reason(how, self.ceiling))

    def _again(self, job: Job, queue: deque[Job], partial: dict[int, dict[int, Result]],
               timed_out: bool, reason: str) -> None:
        """A failed job's lines judged again (``retries``), or its one line failed."""
        again = retries(job.lines, job.attempt, timed_out)
        queue.extendleft(Job(job.chunk, lines, attempt) for lines, attempt in reversed(again))
        if not again:
            line = job.lines[0]
            partial[job.chunk][line[0]] = self.failed(line, reason)

    def _timed_out(self, worker: Worker, queue: deque[Job],
                   partial: dict[int, dict[int, Result]]) -> None:
        job = worker.job
        assert job is not None
        self._retire(worker, kill=True)
        self._spawn()
        self._again(job, queue, partial, timed_out=True, reason=time_limit_reason(self.timeout))
