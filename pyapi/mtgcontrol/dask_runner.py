"""Batch on a Dask distributed cluster (``mtgcontrol batch --dask ADDRESS|local``).

The client (the machine running ``mtgcontrol batch``) reads the input and writes the
output; each partition (``--batch-size`` lines) travels to a worker as bytes, is judged
there by the same `batch.judge_lines` as locally, and comes back as output lines, so
the output is byte for byte that of a local run.  At most a few partitions per worker
are in flight, so the client's memory stays flat.  Dask itself re-runs a partition
whose worker dies.  Workers need ``mtgcontrol`` installed (the same version); the
input and output files need not be visible to them.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .api import InputError
from .lines import Line
from .validate import InputProblem
from .workers import Result, WorkersFailed

IN_FLIGHT_PER_WORKER = 4


def _judge(lines: list[Line], settings: Any) -> list[Result]:
    from .batch import judge_lines

    return judge_lines(lines, settings)


@dataclass
class DaskRunner:
    """Judge chunks on the cluster at ``address`` ('local': a LocalCluster of ``workers``)."""

    address: str
    settings: Any
    workers: int = 1

    def run(self, chunks: Iterable[list[Line]]) -> Iterator[list[Result]]:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError([InputProblem("mtgcontrol", "--dask", "Dask installed "
                                           "(pip install 'mtgcontrol[dask]')")]) from None
        cluster = None
        try:
            if self.address == "local":
                cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None)
                client = Client(cluster)
            else:
                client = Client(self.address)  # distributed.comm.timeouts.connect
        except (OSError, TimeoutError, ValueError) as err:
            if cluster is not None:
                cluster.close()
            raise WorkersFailed(f"no Dask cluster at {self.address} ({err})") from None
        try:
            settings = client.scatter(self.settings, broadcast=True)
            window = IN_FLIGHT_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))
            pending: deque[Any] = deque()
            run = uuid.uuid4().hex
            for number, chunk in enumerate(chunks):
                pending.append(client.submit(_judge, chunk, settings, pure=False,
                                             key=f"mtgcontrol-judge-{run}-{number}"))
                if len(pending) >= window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
