"""Project tasks with nothing but Python 3.11+: ``python3 tasks.py demo|test``.

demo: create .venv, install mtgcontrol, adjudicate every bundled example.
lint: create .venv, install mtgcontrol with its dev extra, run ruff and mypy.
test: create .venv, install mtgcontrol with its test extra, run the whole suite
      (installing Debian's chromium for the browser tests first when missing, as root).
test --quick: the same set-up, then only the fast tests a contributor runs before
      each commit (QUICK below: the unit tests and every scenario file; no batch
      workers, Dask, searches, fuzzing or browser).
Both run on every core (pytest-xdist: -n auto).
"""

from __future__ import annotations

import glob
import os
import shutil
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
    # editable: the suite and the linters see the working tree, not an installed copy
    run(str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--editable", f".{extra}")


def demo() -> None:
    setup("")
    run(str(BIN / "mtgcontrol"), "adjudicate", "--format", "text",
        *sorted(glob.glob(str(ROOT / "examples" / "*.json"))))


def ensure_chromium() -> None:
    """The browser tests need Debian's chromium: install it when missing and we can."""
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        return
    if sys.platform != "linux" or not shutil.which("apt-get") or os.geteuid() != 0:
        print("chromium is missing and cannot be installed here (needs root and apt-get): "
              "the browser tests will be skipped", flush=True)
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        print("+", " ".join(cmd), flush=True)
        if subprocess.call(cmd, env=env, stdout=subprocess.DEVNULL):
            print("could not install chromium: the browser tests will be skipped", flush=True)
            return


# The quick subset: the unit tests, the CLI and README examples, and every scenario file
# of every rule family; none of the slow families.  The explanation tree of every
# scenario (4 minutes of CPU) is left to the whole run.
QUICK = ("tests/scenarios", "tests/test_engine.py", "tests/test_input_errors.py",
         "tests/test_catalog.py", "tests/test_lang.py", "tests/test_vocabulary.py",
         "tests/test_predicates_doc.py", "tests/test_explain.py", "tests/test_pages.py",
         "tests/test_rulediff.py", "tests/test_cli_habits.py", "tests/test_readme.py")
QUICK_LEAVES_OUT = ("tests/test_explain.py::test_tree_cites_exactly_the_ruling",)
# Every core; a group of tests that must share a worker (tests/conftest.py) stays on one.
PARALLEL = ("-n", "auto", "--dist", "loadgroup")
# Run apart, in one process, after the parallel run: each README command may read what an
# earlier one wrote, and under xdist the later ones did not find those files.
SERIAL = "tests/test_readme.py"


def test(quick: bool = False) -> None:
    if not quick:
        ensure_chromium()
    setup("[test]")
    selection = (*(p for p in QUICK if p != SERIAL),
                 *(f"--deselect={d}" for d in QUICK_LEAVES_OUT)) if quick else ()
    pytest = (str(BIN / "python"), "-m", "pytest", "-p", "no:cacheprovider")
    run(*pytest, *PARALLEL, *selection, f"--ignore={SERIAL}")
    run(*pytest, SERIAL)


def lint() -> None:
    """ruff (with its complexity limit) and mypy, as configured in pyproject.toml."""
    setup("[dev]")
    run(str(BIN / "ruff"), "check", "pyapi", "tests", "benchmarks")
    run(str(BIN / "mypy"))


if __name__ == "__main__":
    tasks = {"demo": demo, "test": test, "lint": lint}
    args = sys.argv[1:]
    if args == ["test", "--quick"]:
        test(quick=True)
    elif len(args) == 1 and args[0] in tasks:
        tasks[args[0]]()
    else:
        raise SystemExit("usage: python3 tasks.py demo | lint | test [--quick]")
