"""Adding a CR release, as docs/new-cr-release.md walks it, on a synthetic release:
the newest extract with one rule renumbered (113.8 -> 113.9) and one reworded
without a change of meaning (110.2a), effective 2027-02-05.  `rules diff` proposes
the catalog edits and writes the draft catalog; with it, the new release is a
supported version whose rulings are those of the newest one, citing the new number,
and `impact --exhaustive` between the two finds no difference in meaning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crtexts import CR_DIR

from mtgcontrol import catalog
from mtgcontrol.cli import main
from mtgcontrol.engine.api import adjudicate_many
from mtgcontrol.scenarios import read_yaml

NEWEST = CR_DIR / "cr-2026-08-07.txt"
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
OLD_110_2A = "that object enters the battlefield under that player’s control unless the effect " \
             "states otherwise."
NEW_110_2A = "that player controls the object as it enters the battlefield unless the effect " \
             "says otherwise."

pytestmark = pytest.mark.skipif(not NEWEST.is_file(), reason=f"no CR extract {NEWEST}")


def synthetic(tmp_path: Path) -> Path:
    text = NEWEST.read_text(encoding="utf-8")
    assert "\n113.8. " in text and "\n113.9" not in text and OLD_110_2A in text
    text = text.replace("August 7, 2026", "February 5, 2027").replace("\n113.8. ", "\n113.9. ")
    path = tmp_path / "cr-2027-02-05.txt"
    path.write_text(text.replace(OLD_110_2A, NEW_110_2A), encoding="utf-8")
    return path


def rulings(version: str) -> dict[str, str]:
    docs = []
    for path in sorted(SCENARIOS.rglob("*.yaml")):
        data = read_yaml(path.read_text(encoding="utf-8"))
        docs.append((data["snapshot"], path.name))
    return {name: json.dumps(r.to_dict(), sort_keys=True)
            for (_, name), r in zip(docs, adjudicate_many(docs, rules=version), strict=True)}


def test_adding_a_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    new = synthetic(tmp_path)
    draft = tmp_path / "catalog.toml"
    # 1. the diff proposes the edits and writes the draft catalog
    assert main(["rules", "diff", str(NEWEST), str(new), "--catalog-draft", str(draft)]) == 0
    report = capsys.readouterr().out
    assert "  113.8 -> 113.9" in report and "  110.2a -> 110.2a" in report
    edits = report[report.index("catalog edits for release 2027-02-05"):].splitlines()
    assert '  [[release]] date = "2027-02-05", text = "cr-2027-02-05.txt"' in edits
    assert any(line.startswith("  number  ability-controller:") and '"2027-02-05" = "113.9"'
               in line for line in edits)
    assert any(line.startswith("  review  put-onto-battlefield-under: 110.2a reworded")
               for line in edits)
    assert len(edits) == 4  # heading, release, number and review: nothing else
    # 2. the reworded rule keeps its meaning: the draft needs no further edit
    monkeypatch.setenv(catalog.CATALOG_ENV, str(draft))
    assert [v.name for v in catalog.versions()][-2:] == ["2026-08-07", "2027-02-05"]
    assert catalog.group("ability-controller").dated_numbers()[-1] == \
        ("2027-02-05", None, "113.9")
    assert catalog.lookup("2027-02-05", "113.9")[0].id == "ability-controller"
    assert catalog.lookup("2027-02-05", "113.8") is None
    # 3. `mtgcontrol rules --version` shows the new number
    assert main(["rules", "--version", "2027-02-05"]) == 0
    listing = capsys.readouterr().out
    assert "\n113.9 " in listing and "\n113.8 " not in listing
    # 4. impact over every small situation: no difference in meaning
    assert main(["impact", "--exhaustive", "--from", "2026-08-07", "--to", "2027-02-05",
                 "--objects", "1", "--effects", "1", "--format", "json"]) == 0
    impact = json.loads(capsys.readouterr().out)
    # (a search: no witness found is a proof within the bounds, nothing to judge)
    assert impact["mode"] == "exhaustive" and impact["bounds"]["objects"] == 1
    assert impact["changed_snapshots"] == 0
    assert impact["differences"] == []
    # 5. rulings are the same, citations use the new number
    before, after = rulings("2026-08-07"), rulings("2027-02-05")
    assert sum('"rule": "113.8"' in r for r in before.values()) >= 5
    assert not any('"rule": "113.8"' in r for r in after.values())
    for name, ruling in before.items():
        expected = ruling.replace('"rule": "113.8"', '"rule": "113.9"').replace(
            '"rules": "2026-08-07"', '"rules": "2027-02-05"')
        assert after[name] == expected, name


def test_diff_between_catalog_releases_needs_no_edit(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """The catalog's dated numbers agree with what `rules diff` finds between each two
    consecutive releases."""
    names = [r.text for r in catalog.releases()]
    for old, new in zip(names, names[1:], strict=False):
        assert main(["rules", "diff", str(CR_DIR / old), str(CR_DIR / new)]) == 0
        out = capsys.readouterr().out
        assert out.rstrip().endswith("none: the catalog already describes this release"), \
            out[out.index("catalog edits"):]
