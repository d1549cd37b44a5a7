"""The workbench of ``mtgcontrol serve`` (GET /) in real headless Chromium, against a
real server on a loopback port: load an example, edit it (the ruling changes; a
mistake shows its JSON path and expectation), open an explanation, compare two CR
versions; no script runs from hostile ids, names or notes.  Screenshots are kept in
tests/artifacts/ (see test_pages_browser.py for how Chromium is driven)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from serving import ROOT, Served, start
from test_pages_browser import browser, pytestmark, shoot  # noqa: F401

with contextlib.suppress(ImportError):  # the test extra installs it (else: skipped)
    from playwright.sync_api import Page, expect


# Each step waits for the server to judge (an explanation, two versions): generously,
# as the machine may be loaded.
PATIENCE_MS = 60_000


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    served = start(workers=2)
    yield served
    served.stop()


@pytest.fixture
def page(request: pytest.FixtureRequest, server: Served) -> Iterator[Page]:
    page = request.getfixturevalue("browser").new_page()  # test_pages_browser's Chromium
    page.set_viewport_size({"width": 1500, "height": 1000})
    page.set_default_timeout(PATIENCE_MS)
    expect.set_options(timeout=PATIENCE_MS)
    requests: list[str] = []
    dialogs: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"http://127.0.0.1:{server.port}/")
    yield page
    # Nothing from the network: the server's own address, and the framed pages.
    here = f"http://127.0.0.1:{server.port}/"
    assert all(url.startswith((here, "about:", "data:")) for url in requests), requests
    assert dialogs == []
    page.close()


def controller(page: Page, obj: str, frame: str = "ruling") -> Any:
    return page.frame_locator(f"#{frame}").locator(f"tr[data-object='{obj}'] td.controller")


def edit(page: Page, old: str, new: str) -> None:
    """Change the snapshot text as a person would: the editor gets an input event."""
    text = page.locator("#snapshot").input_value()
    assert old in text
    page.locator("#snapshot").fill(text.replace(old, new, 1))


def test_load_edit_explain_and_compare(page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    page.select_option("#example", "01-mind-control.json")
    expect(controller(page, "bear")).to_have_text("bob")
    expect(page.locator("#status")).to_contain_text("ruled in")
    shoot(page, "workbench-example", capsys)

    # An edit changes the ruling: the Aura now entered under alice, so alice keeps the bear.
    edit(page, '"under": "bob"', '"under": "alice"')
    expect(controller(page, "bear")).to_have_text("alice")

    # A mistake shows where and what was expected; clicking it selects the value.
    edit(page, '"under": "alice"},\n   "attached_to"', '"under": "carol"},\n   "attached_to"')
    problem = page.locator("#problems li")
    expect(problem).to_have_count(1)
    expect(problem.locator(".path")).to_have_text("$.objects[1].entered.under")
    expect(problem).to_contain_text('expected a player id listed in $.players, got "carol"')
    expect(page.locator("#snapshot")).to_have_class("invalid")
    problem.click()
    selected = page.evaluate("() => { const e = document.getElementById('snapshot'); "
                             "return e.value.slice(e.selectionStart, e.selectionEnd); }")
    assert selected == '"carol"'
    shoot(page, "workbench-problem", capsys)
    edit(page, '"under": "carol"', '"under": "bob"')
    expect(page.locator("#problems li")).to_have_count(0)
    expect(controller(page, "bear")).to_have_text("bob")

    # Why (and why not): a click on the bear's row opens its explanation.
    page.frame_locator("#ruling").locator("tr[data-object='bear'] td").first.click()
    explanation = page.frame_locator("#explanation")
    expect(explanation.locator("details.focus[data-object='bear']")).to_be_visible()
    expect(explanation.locator("details.focus li.reason[data-rule='109.5']")).to_be_visible()
    page.select_option("#why-not", "alice")
    page.click("#explain")
    expect(explanation.locator(".whynot")).to_contain_text("alice")
    expect(page.locator("#explanation-title")).to_have_text(
        "Why: controller of bear, and why not alice")
    shoot(page, "workbench-explanation", capsys)

    # Two versions side by side: the simultaneous Auras are a choice in 2017, not in 2026.
    page.select_option("#example", "06-simultaneous-auras-2017.json")
    expect(controller(page, "x")).to_have_text("none")
    page.select_option("#compare", "2026-08-07")
    table = page.locator("#difference-table")
    expect(table.locator("th.version-b")).to_have_text("CR 2026-08-07")
    row = table.locator("tr[data-object='x'][data-fact='controller']")
    expect(row.locator("td.differs")).to_have_count(2)
    assert row.locator("td").nth(2).inner_text() == "–"
    assert row.locator("td").nth(3).inner_text() in ("alice", "bob")
    for frame in ("ruling", "ruling-b"):
        cell = page.frame_locator(f"#{frame}").locator(
            "tr[data-object='x'].mtg-differs td.controller.mtg-differs")
        expect(cell).to_have_count(1)
    expect(controller(page, "x", "ruling-b")).to_have_text(row.locator("td").nth(3)
                                                           .inner_text())
    shoot(page, "workbench-compare", capsys)

    # The language of the pages.
    page.select_option("#lang", "fr")
    expect(page.frame_locator("#ruling").locator("table.objects th").nth(4)).to_have_text(
        "contrôleur")


HOSTILE = '<img src=x onerror="window.__xss=1">'
SCRIPT = '"><script>window.__xss=2</script>'


def hostile_snapshot() -> str:
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    text = json.dumps(doc, indent=1)
    text = text.replace('"bear"', json.dumps(HOSTILE)).replace('"alice"', json.dumps(SCRIPT))
    doc = json.loads(text)
    doc["id"] = "</textarea><script>window.__xss=3</script>"
    doc["note"] = "<script>window.__xss=4</script><b onmouseover=window.__xss=5>note</b>"
    doc["objects"][1]["note"] = "<svg onload=window.__xss=6>"
    return json.dumps(doc, indent=1)


def test_no_script_runs_from_hostile_ids_names_or_notes(
        page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    page.locator("#snapshot").fill(hostile_snapshot())
    row = page.frame_locator("#ruling").locator("tr[data-object]").first
    expect(row.locator("td").first).to_have_text(HOSTILE)  # shown as text
    expect(row.locator("td.owner")).to_have_text(SCRIPT)
    row.locator("td").first.click()  # its explanation, by a hostile id
    expect(page.locator("#explanation-title")).to_contain_text(HOSTILE)
    expect(page.frame_locator("#explanation").locator("details.focus")).to_be_visible()
    page.select_option("#why-not", SCRIPT)
    page.click("#explain")
    expect(page.frame_locator("#explanation").locator(".whynot")).to_contain_text(SCRIPT)
    page.select_option("#version", "2012-10-01")
    page.select_option("#compare", "2026-08-07")
    expect(page.locator("#difference-table tbody tr").first).to_be_visible()
    # A mistake whose message quotes a hostile value.
    page.locator("#snapshot").fill(hostile_snapshot().replace(
        '"under": "bob"', '"under": "<img src=y onerror=window.__xss=7>"', 1))
    expect(page.locator("#problems li")).to_have_count(1)
    expect(page.locator("#problems li")).to_contain_text("<img src=y onerror=window.__xss=7>")
    page.mouse.move(10, 10)
    page.wait_for_timeout(300)
    assert page.evaluate("""() => [window, ...Array.from(document.querySelectorAll('iframe'),
        f => f.contentWindow)].map(w => w.__xss === undefined)""") == [True] * 4
    shoot(page, "workbench-hostile", capsys)
