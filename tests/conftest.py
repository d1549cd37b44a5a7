"""The suite runs on every core with pytest-xdist (``python3 tasks.py test``: ``-n auto
--dist loadgroup``).  Tests that must share one worker are grouped here."""

from __future__ import annotations

import pytest

# The planted bugs (tests/mutants/*.yaml) carry snapshots and keys a scenario file has, but
# they are not scenarios: tests/test_mutants.py reads them.
collect_ignore = ["mutants"]

# Dask: one local cluster at a time, so two clusters never compete for the workers' cores.
# (test_readme.py runs apart, after the parallel run: tasks.py.)
# A service's tests share the module's one server: they stay on one worker.
GROUPS = {"test_dask.py": "dask", "test_serve.py": "serve", "test_serve_browser.py": "workbench"}


# The longest work first: xdist hands tests out in collection order, so a long module
# collected last runs alone at the end while the other cores sit idle.  Measured on 2 cores
# (pytest --durations): the searches, the slicing lens and the Dask group are minutes each.
FIRST = ("test_search.py", "test_dask.py", "test_slicing.py", "test_serve_browser.py",
         "test_serve.py", "test_space.py", "test_differential.py", "test_time_invariance.py")


@pytest.hookimpl(tryfirst=True)  # before xdist's hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = GROUPS.get(item.path.name)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    first = {name: rank for rank, name in enumerate(FIRST)}
    items.sort(key=lambda item: first.get(item.path.name, len(FIRST)))  # stable
