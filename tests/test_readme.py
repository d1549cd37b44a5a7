"""The README's examples are run: every `$ mtgcontrol ...` of a ```text block is run
and its output compared, and every ```json block is found in real output, so the
README cannot drift from what the commands do.

In an expected output, a line `...` stands for any number of lines, and `...` within
a line for any text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_engine import ROOT

from mtgcontrol import adjudicate

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```$", README, flags=re.MULTILINE | re.DOTALL)
COMMANDS = [chunk for kind, text in BLOCKS if kind == "text"
            for chunk in re.split(r"^(?=\$ )", text, flags=re.MULTILINE) if chunk.strip()]
JSONS = [text for kind, text in BLOCKS if kind == "json"]


def pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*".join(map(re.escape, line.split("..."))) + r"\n")
    return re.compile("".join(parts))


def test_the_readme_has_examples_to_run() -> None:
    assert len(COMMANDS) >= 4 and len(JSONS) >= 3


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the README's commands run, in order (a later one reads what an earlier one
    wrote): the repository's files are seen there, and ../shared beside them, but what
    a command writes lands in this scratch folder, not in the checkout."""
    top = tmp_path_factory.mktemp("readme")
    work = top / "repo"
    work.mkdir()
    for entry in ROOT.iterdir():
        (work / entry.name).symlink_to(entry)
    (top / "shared").symlink_to(ROOT.parent / "shared")
    return work


@pytest.mark.parametrize("chunk", COMMANDS, ids=[c.splitlines()[0][2:40] for c in COMMANDS])
def test_a_readme_command_prints_what_the_readme_shows(chunk: str, work: Path) -> None:
    command, *expected = chunk.rstrip("\n").split("\n")
    while command.endswith("\\") and expected:  # a command continued on the next line
        command = command[:-1] + expected.pop(0).lstrip()
    assert command.startswith("$ ") and "mtgcontrol " in command, command
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["bash", "-c", command[2:]], cwd=work, env=env, capture_output=True,
                          text=True, timeout=300)
    out = done.stdout + done.stderr
    assert pattern(expected).fullmatch(out), f"{command}\n--- README\n{chr(10).join(expected)}" \
                                             f"\n--- real\n{out}"


def _has(whole: Any, key: str, value: Any) -> bool:
    """Some mapping within ``whole`` has ``value`` at ``key``."""
    if isinstance(whole, dict):
        return whole.get(key) == value or any(_has(v, key, value) for v in whole.values())
    if isinstance(whole, list):
        return any(_has(v, key, value) for v in whole)
    return False


def _batch_records() -> list[Any]:
    """The error record the README describes: a line 3 that is not JSON."""
    lines = [(ROOT / "examples" / "01-mind-control.json").read_text().replace("\n", " "),
             (ROOT / "examples" / "02-token-for-an-opponent.json").read_text().replace("\n", " "),
             '{"players": [1] "objects": []}']
    done = subprocess.run([sys.executable, "-m", "mtgcontrol.cli", "batch", "-"], cwd=ROOT,
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=300)
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("text", JSONS, ids=[str(i) for i in range(len(JSONS))])
def test_a_readme_json_block_is_real_output(text: str, work: Path) -> None:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:  # a fragment: "key": value
        doc = json.loads("{" + text + "}")
    examples = [json.loads(p.read_text()) for p in sorted((ROOT / "examples").glob("*.json"))]
    if doc in examples:
        return
    ruling = json.loads(adjudicate(ROOT / "examples" / "01-mind-control.json").to_json())
    if all(_has(ruling, k, v) for k, v in doc.items()):
        return
    reports = [record for report in sorted(work.glob("*.json")) if not report.is_symlink()
               for record in _records(report)]  # written by the README's commands above
    assert doc in reports or doc in _batch_records(), text


def _records(path: Path) -> list[Any]:
    """The records of a JSON file a command wrote: a list, or one record."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, list) else [data]


def _built_section() -> str:
    return README.split("## How it is built", 1)[1].split("\n## ", 1)[0]


def test_how_it_is_built_names_every_module_of_the_package_and_nothing_else() -> None:
    """README "How it is built": each subpackage and each module named under
    `pyapi/mtgcontrol/` is there, and every module of the package is named."""
    package = ROOT / "pyapi" / "mtgcontrol"
    section = _built_section().split("- `pyapi/mtgcontrol/`", 1)[1].split("\n- `", 1)[0]
    named: set[str] = set()
    folder = ""
    for line in section.splitlines():
        head = re.match(r"\s+- `(\w+)/`", line)
        if head:
            folder = head.group(1)
        elif re.match(r"\s+- ", line):
            folder = ""
        for name in re.findall(r"`([\w/.]+)`", line):
            if name.endswith("/"):
                assert (package / folder / name).is_dir() or (package / name).is_dir(), name
                continue
            if "/" in name:  # a path from the repository's root
                assert (ROOT / name).exists(), name
            elif name.endswith(".py"):
                inside = package / folder / name
                named.add(str(inside.relative_to(package)) if inside.is_file() else name)
    modules = {str(p.relative_to(package)) for p in package.rglob("*.py")
               if p.name not in ("__init__.py", "__main__.py")}
    assert sorted(named - modules) == [], "named in the README, not in the package"
    assert sorted(modules - named) == [], "in the package, not named in the README"
