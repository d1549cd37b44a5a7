"""The one translation (engine.Frame, with provenance) and the one judging Control."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from mtgcontrol import catalog
from mtgcontrol.engine.causes import minimal_causes
from mtgcontrol.engine.engine import Frame

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pyapi" / "mtgcontrol"


def _value(doc: object, path: str) -> object:
    """The value at ``$.a[0].b`` (KeyError / IndexError if it is not there)."""
    value = doc
    for part in re.findall(r"[^.\[\]]+", path.removeprefix("$")):
        value = value[int(part)] if isinstance(value, list) else value[part]  # type: ignore[index]
    return value


def test_every_fact_has_a_json_path_that_is_in_the_snapshot() -> None:
    for path in sorted((ROOT / "tests" / "scenarios").glob("*/*.yaml"))[::7]:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))["snapshot"]
        frame = Frame.of(doc, catalog.newest(), fast=False, provenance=True)
        facts = frame.facts.splitlines()
        assert len(frame.provenance) == len(facts), path
        for fact, where in zip(facts, frame.provenance, strict=True):
            assert where == "$" or _value(doc, where) is not None, (path.name, fact, where)
        # the fast path writes the same facts, without recording where they come from
        assert Frame.of(doc, catalog.newest(), fast=False).facts == frame.facts


def test_provenance_names_the_finest_field_a_fact_rests_on() -> None:
    doc = yaml.safe_load((ROOT / "tests/scenarios/players/001-control-player-basic.yaml")
                         .read_text(encoding="utf-8"))["snapshot"]
    frame = Frame.of(doc, catalog.newest(), fast=False, provenance=True)
    keys = ["".join(re.match(r"(\w+)\([^,)]*,?([^,)]*)", f).groups())  # type: ignore[union-attr]
            for f in frame.facts.splitlines()]
    where = dict(zip(keys, frame.provenance, strict=True))
    slaver = frame.names.ids[("o", "slaver")]
    assert where[f"left_battlefield{slaver}"] == "$.objects[0].left_battlefield"
    assert where[f"zone_since{slaver}"] == "$.objects[0].zone_since"
    assert where[f"obj{slaver}"] == "$.objects[0]"
    effect = frame.names.ids[("e", "e-slave")]
    assert where[f"effect{effect}"] == "$.effects[0].source"
    assert where[f"controls_player{effect}"] == "$.effects[0].player"


def test_causes_of_a_snapshot_with_a_control_player_effect() -> None:
    """The parts come from the frame's provenance: removing a required field of a
    control-player effect is never tried (that used to raise KeyError)."""
    doc = {"players": ["alice", "bob"], "now": 40,
           "objects": [{"id": "bear", "kind": "card", "zone": "battlefield",
                        "start": {"zone": "library", "player": "bob"}}],
           "effects": [{"id": "slave", "kind": "control-player", "player": "alice",
                        "controlled": "bob", "timestamp": 20}]}
    causes = minimal_causes(doc, catalog.newest())
    assert [c.violation.code for c in causes] == ["no-entry"]
    assert causes[0].paths == ["$.objects[0]"]


def test_one_judging_control() -> None:
    """clingo.Control is made in engine.py (judging), and by the generator and the
    search programs of research and solve.py's check of a proposal file alone (which
    judge no snapshot)."""
    found = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                   if "clingo.Control(" in p.read_text(encoding="utf-8"))
    assert found == ["engine/engine.py", "engine/solve.py", "research/gen.py",
                     "research/solver.py"]
