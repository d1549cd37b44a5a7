"""The HTML pages in real headless Chromium: what a person sees.

Debian's ``chromium`` is driven by Playwright (``executable_path``; no browser
download).  ``python3 tasks.py test`` installs chromium when it is missing and
it can (root with apt-get); these tests skip, saying why, only where it cannot.
Screenshots are kept in tests/artifacts/ (gitignored); each test prints its path.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_engine import ROOT

from mtgcontrol.cli import main

ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Without these flags Chromium stalls on connection attempts (there is no network).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed and could not be "
                       "installed here (python3 tasks.py test installs it as root with apt-get)"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed "
                       "(pip install '.[test]')"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=FLAGS, headless=True,
            viewport={"width": 1200, "height": 900})
        yield context
        context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    yield page
    # Self-contained: nothing but the page itself was loaded.
    assert all(url.startswith(("file:", "data:", "about:")) for url in requests), requests
    page.close()


def snapshot_file(tmp_path: Path, family: str, name: str) -> str:
    data = yaml.safe_load((ROOT / "tests" / "scenarios" / family / name).read_text())
    path = tmp_path / (name.rsplit(".", 1)[0] + ".json")
    path.write_text(json.dumps(data["snapshot"]))
    return str(path)


def shoot(page: Page, name: str, capsys: pytest.CaptureFixture[str]) -> Path:
    """Keep a full-page screenshot as a test artifact and say where it is."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    with capsys.disabled():
        print(f"\nscreenshot: {path}")
    return path


def inside(point: dict[str, float], box: dict[str, float], slack: float = 6) -> bool:
    return (box["x"] - slack <= point["x"] <= box["x"] + box["width"] + slack
            and box["y"] - slack <= point["y"] <= box["y"] + box["height"] + slack)


def arrow_ends(page: Page, effect: str, target: str) -> tuple[dict[str, float], dict[str, float]]:
    """The on-screen end of an effect's arrow and its target box."""
    arrow = page.locator(f"svg.effects-graph g.arrow[data-effect='{effect}']"
                         f"[data-target='{target}'] path")
    end = arrow.evaluate("""p => { const l = p.getTotalLength(); const q = p.getPointAtLength(l);
        const m = p.getScreenCTM(); return {x: q.x * m.a + m.e, y: q.y * m.d + m.f}; }""")
    box = page.locator(f"svg.effects-graph g.box[data-object='{target}'] rect").bounding_box()
    assert box is not None
    return end, box


def test_ruling_page_shows_controllers_arrows_and_derivations(
        tmp_path: Path, page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    src = snapshot_file(tmp_path, "layer2", "010-aura-steal-dependency-reorders.yaml")
    out = tmp_path / "ruling.html"
    assert main(["adjudicate", src, "--format", "html", "-o", str(out)]) == 0
    page.goto(out.as_uri())
    # The controller shown for each object.
    assert page.locator("tr[data-object=bear] td.controller").inner_text() == "carol"
    assert page.locator("tr[data-object=mc] td.controller").inner_text() == "carol"
    assert page.locator("tr[data-object=bear] td.owner").inner_text() == "alice"
    # Arrows: the Aura's effect and carol's steal apply (solid), alice's lost (dashed).
    arrows = page.locator("svg.effects-graph g.arrow")
    assert arrows.count() == 3
    assert page.locator("g.arrow.applies[data-effect=e-mc][data-source=mc]"
                        "[data-target=bear]").is_visible()
    assert page.locator("g.arrow.applies[data-effect=e-snatch][data-target=mc]").is_visible()
    lost = page.locator("g.arrow.lost[data-effect=e-retake] path")
    assert lost.get_attribute("stroke-dasharray")
    for effect, target in (("e-mc", "bear"), ("e-snatch", "mc"), ("e-retake", "bear")):
        end, box = arrow_ends(page, effect, target)
        assert inside(end, box), (effect, end, box)
    # A derivation is closed until clicked; opened, it shows rules, facts and losers.
    details = page.locator("details.derivation[data-object=bear][data-fact=controller]")
    tree = details.locator("> ul.reasons")
    assert not tree.is_visible()
    details.locator("> summary").click()
    assert tree.is_visible()
    rules = details.locator("> ul.reasons > li.reason").evaluate_all(
        "items => items.map(i => i.dataset.rule)")
    assert "613.8" in rules and "109.5" in rules
    assert details.get_by_text("$.effects[2]", exact=True).first.is_visible()
    loss = details.locator("li.loss[data-code=dependency]")
    assert loss.is_visible() and "e-snatch" in loss.inner_text()
    # The timeline shows bear's controllers in order.
    segments = page.locator("g.timeline-row[data-object=bear] g.segment").evaluate_all(
        "gs => gs.map(g => g.dataset.player)")
    assert segments == ["alice", "bob", "alice", "carol"]
    shoot(page, "ruling-dependency", capsys)


def test_explain_page_in_french_opens_the_derivation(
        tmp_path: Path, page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    src = str(ROOT / "examples" / "03-act-of-treason.json")
    out = tmp_path / "explain.html"
    assert main(["explain", src, "bears", "--why-not", "alice", "--lang", "fr",
                 "--format", "html", "-o", str(out)]) == 0
    page.goto(out.as_uri())
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.locator("table.objects th").nth(4).inner_text() == "contrôleur"
    focus = page.locator("details.focus")
    assert focus.get_attribute("open") is not None
    assert focus.locator("> ul.reasons").is_visible()
    assert "effet e-treason" in focus.inner_text()
    assert "Pourquoi pas alice" in page.locator(".whynot").inner_text()
    shoot(page, "explain-fr", capsys)


def test_four_player_page_in_italian(tmp_path: Path, page: Page,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    src = str(ROOT / "examples" / "04-four-player-leave.json")
    out = tmp_path / "four.html"
    assert main(["adjudicate", src, "--format", "html", "--lang", "it", "-o", str(out)]) == 0
    page.goto(out.as_uri())
    assert "ha lasciato la partita al momento 30" in page.locator(
        "tr[data-player=bob]").inner_text()
    assert page.locator("tr[data-object=angel] td").nth(7).inner_text() == "esiliato"
    details = page.locator("details.derivation[data-object=angel][data-fact=fate]")
    details.locator("> summary").click()
    assert "800.4a" in details.inner_text()
    shoot(page, "four-players-it", capsys)


def test_check_summary_chart(tmp_path: Path, page: Page,
                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "claims.json"
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    doc["claims"] = [{"object": "bear", "controller": "alice"}]
    bad.write_text(json.dumps(doc))
    out = tmp_path / "check.html"
    assert main(["check", str(bad), str(ROOT / "examples" / "03-act-of-treason.json"),
                 "--format", "html", "-o", str(out)]) == 1
    page.goto(out.as_uri())
    bars = page.locator("svg.chart.codes g.bar")
    assert bars.count() == 1 and "claim-contradicts" in bars.first.get_attribute("data-label")
    assert page.locator("svg.chart.cites g.bar").count() > 3
    assert "claim #0 about bear" in page.locator("table.violations").inner_text()
    shoot(page, "check-summary", capsys)


def test_notebook_output_shows_the_page(tmp_path: Path, page: Page,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """What Jupyter shows for a ruling: the page, in an iframe of the output cell."""
    from mtgcontrol import adjudicate

    ruling = adjudicate(str(ROOT / "examples" / "01-mind-control.json"))
    cell = tmp_path / "cell.html"
    cell.write_text(f"<!DOCTYPE html><html><body><div class='output'>{ruling._repr_html_()}"
                    "</div></body></html>", encoding="utf-8")
    page.goto(cell.as_uri())
    frame = page.frame_locator("iframe")
    assert frame.locator("tr[data-object=bear] td.controller").inner_text() == "bob"
    assert frame.locator("svg.effects-graph g.arrow.applies[data-effect=e1]").count() == 1
    shoot(page, "notebook-cell", capsys)


def test_zones_box_shows_objects_that_left_the_game_under_their_fate(
        tmp_path: Path, page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    src = snapshot_file(tmp_path, "leaving", "002-owner-leaves-objects-leave.yaml")
    out = tmp_path / "ruling.html"
    assert main(["adjudicate", src, "--format", "html", "-o", str(out)]) == 0
    page.goto(out.as_uri())
    battlefield = page.locator(".zones .zone[data-zone=battlefield]").inner_text()
    assert "a-stolen" in battlefield and "b-stolen" not in battlefield
    gone = page.locator(".zones .zone.fate[data-fate=leaves-game]")
    assert gone.is_visible() and gone.locator("b").inner_text() == "fate: leaves the game"
    for oid in ("b-stolen", "b-token", "b-hand", "b-lib"):
        assert oid in gone.inner_text()
    shoot(page, "zones-fates", capsys)


def test_batch_page_names_input_versions_rules_and_links_lines(
        tmp_path: Path, page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    doc["claims"] = [{"object": "bear", "controller": "alice"}]
    auras = json.loads((ROOT / "examples" / "06-simultaneous-auras-2017.json").read_text())
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(d) for d in (auras, doc)) + "\n{oops\n")
    out, html = tmp_path / "out.jsonl", tmp_path / "batch.html"
    assert main(["batch", str(src), "-o", str(out), "--html", str(html)]) == 1
    page.goto(html.as_uri())
    stats = page.locator("table.stats").inner_text()
    assert str(src) in stats and "2017-04-28, 2026-08-07" in stats and " s" in stats
    # rule numbers with their paraphrase, per version
    row = page.locator("table.rules tr", has_text="613.1b")
    assert "layer 2" in row.inner_text() and "2026-08-07" in row.inner_text()
    # a violation and a choice, each linked to its line, whose text the page shows
    link = page.locator("table.violations a")
    assert link.inner_text() == f"{src}:2"
    link.click()
    assert page.url.endswith("#line-2")
    assert page.locator("#line-2 pre").is_visible()
    assert '"claims"' in page.locator("#line-2 pre").inner_text()
    assert page.locator("table.choices a").inner_text() == f"{src}:1"
    assert page.locator("#line-1 a").get_attribute("href") == "in.jsonl"
    shoot(page, "batch-summary", capsys)


def test_verify_page_one_row_per_invariant_and_version(
        tmp_path: Path, page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "verify.html"
    assert main(["verify", "--players", "2", "--objects", "1", "--effects", "1", "--quiet",
                 "--all-versions", "--invariant",
                 str(ROOT / "encodings" / "invariants" / "one-owner.lp"),
                 "--format", "html", "-o", str(out)]) == 1
    page.goto(out.as_uri())
    headers = page.locator("table.verdicts th").all_inner_texts()
    assert headers == ["CR version", "invariant", "description", "verdict",
                       "proved up to size", "time"]
    rows = page.locator("table.verdicts tr.verdict")
    assert rows.count() == 5
    cells = rows.first.locator("td").all_inner_texts()
    assert cells[0] == "2012-10-01" and cells[1] == "one-owner"
    assert cells[2].startswith("Exactly one owner")
    assert cells[3].startswith("fails: counterexample of size 1: no_owner o1")
    assert cells[4] == "0" and cells[5].endswith(" s")
    cells = rows.last.locator("td").all_inner_texts()
    assert cells[0] == "2026-08-07" and cells[3] == "holds" and cells[4] == "2"
    shoot(page, "verify-summary", capsys)


def test_impact_page_groups_kinds_by_rule_change(
        tmp_path: Path, page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    from mtgcontrol.research.commands import cmd_impact  # noqa: F401 - the text's grouping

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(json.loads(p.read_text())) + "\n"
                              for p in sorted((ROOT / "examples").glob("*.json"))))
    out = tmp_path / "impact.html"
    assert main(["impact", "--from", "2017-04-28", "--to", "2026-08-07", str(corpus),
                 "--format", "html", "-o", str(out)]) == 0
    assert main(["impact", "--from", "2017-04-28", "--to", "2026-08-07", str(corpus)]) == 0
    text = capsys.readouterr().out
    page.goto(out.as_uri())
    heads = page.locator("h3.cause").all_inner_texts()
    changes = [line[3:].rsplit(":", 1)[0] for line in text.splitlines()
               if line.startswith("== ")]
    assert heads and [h.removeprefix("Rule change: ").rsplit(" · ", 1)[0]
                      for h in heads] == changes
    shoot(page, "impact-summary", capsys)
