"""Project tasks with nothing but Python 3.11+: ``python3 tasks.py demo|test``.

demo: create .venv, install mtgcontrol, adjudicate every bundled example.
test: create .venv, install mtgcontrol with its test extra, run the whole suite.
"""

from __future__ import annotations

import glob
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if sys.platform == "win32" else "bin")


def run(*cmd: str) -> None:
    print("+", " ".join(cmd), flush=True)
    code = subprocess.call(cmd, cwd=ROOT)
    if code:
        raise SystemExit(code)


def setup(extra: str) -> None:
    if not (BIN / "python").exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        f".{extra}")


def demo() -> None:
    setup("")
    run(str(BIN / "mtgcontrol"), "adjudicate", "--format", "text",
        *sorted(glob.glob(str(ROOT / "examples" / "*.json"))))


def test() -> None:
    setup("[test]")
    run(str(BIN / "python"), "-m", "pytest", "-p", "no:cacheprovider")


if __name__ == "__main__":
    tasks = {"demo": demo, "test": test}
    if len(sys.argv) != 2 or sys.argv[1] not in tasks:
        raise SystemExit("usage: python3 tasks.py demo|test")
    tasks[sys.argv[1]]()
