"""pytest plugin: collect scenario files as tests, one per CR version the
scenario names.

A scenario file is a ``*.yaml`` file in a folder named ``scenarios`` (at any
depth), or any ``*.yaml`` mapping with a scenario key (``intent``, ``snapshot``,
``expect``, ...).  A scenario file that is not valid YAML, breaks the scenario
schema (a misspelled key anywhere), or names an id the snapshot lacks is a
collection error, never skipped.

Opt-in: installing mtgcontrol changes no project's test collection.  Enable it
with ``pytest -p mtgcontrol.pytest_plugin``, or in the project's configuration
(``addopts = "-p mtgcontrol.pytest_plugin"`` under ``[tool.pytest.ini_options]``,
or ``pytest_plugins = ["mtgcontrol.pytest_plugin"]`` in a root ``conftest.py``).
``--mtgcontrol-change FILE.lp`` layers a proposal over the rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .scenarios import (
    ScenarioError,
    expectations,
    load_scenario,
    looks_like_scenario,
    mismatches,
    read_yaml_file,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--mtgcontrol-change", action="append", default=[], metavar="FILE.lp",
                     help="layer a proposal file over the rules when running scenario files")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".yaml":
        return None
    if "scenarios" in file_path.parent.parts:
        return ScenarioFile.from_parent(parent, path=file_path)
    try:
        data = read_yaml_file(file_path)
    except ScenarioError:
        return None  # not in a scenarios folder and not readable: not ours
    if looks_like_scenario(data):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            scenario = load_scenario(self.path)
        except ScenarioError as err:
            raise self.CollectError(str(err)) from None
        for version in scenario.versions:
            yield ScenarioItem.from_parent(self, name=str(version or "newest"),
                                           scenario=scenario, version=version)


class ScenarioFailure(Exception):
    pass


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Any, version: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.version = version

    def runtest(self) -> None:
        from .engine.api import InputError

        ruling = _ruling(self)
        if isinstance(ruling, InputError):
            raise ScenarioFailure(str(self.version), [f"bad snapshot: {p}"
                                                      for p in ruling.problems]) from None
        found = mismatches(ruling, expectations(self.scenario, ruling.rules))
        if found:
            raise ScenarioFailure(ruling.rules, found)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailure):
            version, found = excinfo.value.args
            lines = [f"{self.path.name} [{version}]: {self.scenario.intent}"]
            lines += [f"  {line}" for line in found]
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.path.name} [{self.version or 'newest'}]"


_RULINGS = pytest.StashKey[dict[tuple[Path, "str | None"], Any]]()


def _ruling(item: ScenarioItem) -> Any:
    """The item's ruling (or the InputError of its snapshot), judged in one grounding with
    every other scenario of its folder and CR version this session runs: a grounding's
    fixed cost dominates a small snapshot's, and a ruling is the same bytes alone or in a
    batch.  Should the batch's judging raise, each of them is judged alone."""
    from .engine.api import ErrorRecord, InputError, adjudicate, adjudicate_many
    from .engine.solve import load_changes

    changes = load_changes(item.config.getoption("--mtgcontrol-change"))
    cache = item.session.stash.setdefault(_RULINGS, {})
    key = (item.path, item.version)
    if key not in cache:
        peers = {(peer.path, peer.version): peer for peer in item.session.items
                 if isinstance(peer, ScenarioItem) and peer.version == item.version
                 and peer.path.parent == item.path.parent
                 and (peer.path, peer.version) not in cache}
        try:
            judged: list[Any] = list(adjudicate_many(
                [(peer.scenario.snapshot, "snapshot") for peer in peers.values()],
                item.version, changes))
        except Exception:  # noqa: BLE001 - then each scenario alone says what is wrong
            judged = [None] * len(peers)
        cache.update(zip(peers, judged, strict=True))
    found = cache.pop(key, None)
    if found is None:
        try:
            return adjudicate(item.scenario.snapshot, rules=item.version, changes=changes)
        except InputError as err:
            return err
    return InputError(found.problems) if isinstance(found, ErrorRecord) else found
