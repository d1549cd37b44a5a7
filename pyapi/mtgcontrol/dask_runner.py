"""Batch on a Dask distributed cluster (``mtgcontrol batch --dask ADDRESS|local``).

The client (the machine running ``mtgcontrol batch``) reads the input and writes the
output; each partition (``--batch-size`` lines) travels to a worker as bytes together
with the settings (a few small fields, so nothing is scattered that a dying worker
could take with it), is judged there by the same `batch.judge_lines` as locally, and
comes back as output lines, so the output is byte for byte that of a local run.  At
most a few partitions per worker are in flight, so the client's memory stays flat.
A partition whose worker dies is re-run elsewhere (``RETRIES`` times; a LocalCluster's
nannies restart killed workers); a cluster that cannot start, or a partition that kills
every worker it meets, ends the run with exit 2 and one line.  ``--dask local`` starts
no dashboard and silences the library's logging.  Workers need ``mtgcontrol``
installed (the same version); the input and output files need not be visible to them.
"""

from __future__ import annotations

import logging
import uuid
import warnings
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .api import InputError
from .lines import Line
from .validate import InputProblem
from .workers import Result, WorkersFailed

IN_FLIGHT_PER_WORKER = 4
RETRIES = 5
"""Times a partition is re-run after its worker died before the run gives up."""


def _judge(lines: list[Line], settings: Any) -> list[Result]:
    from .batch import judge_lines

    return judge_lines(lines, settings)


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:200]}" if text else type(err).__name__


def _quiet() -> None:
    """No library warnings or log lines on the user's terminal."""
    for name in ("distributed", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore", module=r"(distributed|dask|tornado)(\.|$)")


@dataclass
class DaskRunner:
    """Judge chunks on the cluster at ``address`` ('local': a LocalCluster of ``workers``)."""

    address: str
    settings: Any
    workers: int = 1

    def _connect(self) -> tuple[Any, Any]:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError([InputProblem("mtgcontrol", "--dask", "Dask installed "
                                           "(pip install 'mtgcontrol[dask]')")]) from None
        _quiet()
        cluster = None
        try:
            if self.address == "local":
                cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=logging.CRITICAL)
                return cluster, Client(cluster)
            return None, Client(self.address)  # distributed.comm.timeouts.connect
        except Exception as err:  # noqa: BLE001 - any start-up failure is one line, exit 2
            if cluster is not None:
                cluster.close()
            where = "a local Dask cluster could not start" if self.address == "local" \
                else f"no Dask cluster at {self.address}"
            raise WorkersFailed(f"{where} ({_first_line(err)})") from None

    def run(self, chunks: Iterable[list[Line]]) -> Iterator[list[Result]]:
        cluster, client = self._connect()
        try:
            window = IN_FLIGHT_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))
            pending: deque[Any] = deque()
            run = uuid.uuid4().hex
            for number, chunk in enumerate(chunks):
                pending.append(client.submit(_judge, chunk, self.settings, pure=False,
                                             retries=RETRIES,
                                             key=f"mtgcontrol-judge-{run}-{number}"))
                if len(pending) >= window:
                    yield _result(pending.popleft())
            while pending:
                yield _result(pending.popleft())
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _result(future: Any) -> list[Result]:
    try:
        return future.result()
    except Exception as err:  # noqa: BLE001 - judge_lines never raises: the cluster failed
        raise WorkersFailed(f"the Dask cluster lost a partition ({_first_line(err)})") \
            from None
