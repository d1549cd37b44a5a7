"""The pytest plugin is opt-in: installing mtgcontrol registers no pytest11 entry
point, so another project's test collection is unchanged; ``-p
mtgcontrol.pytest_plugin`` (this suite's addopts) enables it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "ownership"


def test_no_pytest11_entry_point() -> None:
    assert not [e for e in entry_points(group="pytest11") if e.value.startswith("mtgcontrol")]


def collected(tmp_path: Path, *options: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-o", "addopts=", "--rootdir", str(tmp_path), *options, str(SCENARIO)],
        capture_output=True, text=True, cwd=tmp_path, check=False).stdout


def test_scenarios_are_collected_only_when_enabled(tmp_path: Path) -> None:
    assert ".yaml::" not in collected(tmp_path)
    enabled = collected(tmp_path, "-p", "mtgcontrol.pytest_plugin")
    assert ".yaml::" in enabled
