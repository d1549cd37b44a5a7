"""Judging many snapshots: input lines, worker processes, Dask, output, interrupts
of a run and its progress (``mtgcontrol batch``)."""
