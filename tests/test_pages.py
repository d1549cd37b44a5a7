"""HTML pages without a browser: written by every command that offers them,
the same bytes each time, nothing fetched at view time, in every language."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from test_engine import ROOT

from mtgcontrol import adjudicate
from mtgcontrol.cli import main

EXAMPLES = sorted(str(p) for p in (ROOT / "examples").glob("*.json"))


def external(page: str) -> list[str]:
    """References a browser would fetch: src/href attributes and CSS url()s."""
    found = re.findall(r'(?:src|href)\s*=\s*"([^"#][^"]*)"', page)
    found += re.findall(r"url\((?!#)([^)]*)\)", page)
    return found


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_adjudicate_page(tmp_path: Path, lang: str) -> None:
    out = tmp_path / "page.html"
    assert main(["adjudicate", *EXAMPLES, "--format", "html", "-o", str(out),
                 "--lang", lang]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and f'<html lang="{lang}">' in page
    assert page.count('<section class="snapshot"') == len(EXAMPLES)
    assert external(page) == []
    again = tmp_path / "again.html"
    assert main(["adjudicate", *EXAMPLES, "--format", "html", "-o", str(again),
                 "--lang", lang]) == 0
    assert again.read_bytes() == out.read_bytes()


def test_page_escapes_ids(tmp_path: Path) -> None:
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    text = json.dumps(doc).replace('"bear"', '"<b>bear</b>"')
    src = tmp_path / "s.json"
    src.write_text(text)
    out = tmp_path / "p.html"
    assert main(["adjudicate", str(src), "--format", "html", "-o", str(out)]) == 0
    page = out.read_text()
    assert "<b>bear</b>" not in page and "&lt;b&gt;bear&lt;/b&gt;" in page


def test_html_needs_an_output_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", EXAMPLES[0], "--format", "html"]) == 2
    assert "-o" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # -o without html would be silently ignored
        main(["check", EXAMPLES[0], "-o", "x.html"])
    assert stop.value.code == 2 and "--format html" in capsys.readouterr().err


def test_research_pages(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(json.loads(Path(p).read_text())) + "\n"
                              for p in EXAMPLES) + "{oops\n")
    out = tmp_path / "impact.html"
    assert main(["impact", "--from", "2017-04-28", "--to", "2026-08-07", str(corpus),
                 "--format", "html", "-o", str(out)]) == 1  # a line could not be judged
    page = out.read_text()
    assert "Impact: CR 2017-04-28 to CR 2026-08-07" in page and 'class="chart' in page
    assert "line 7" in page  # the bad line's error record
    out = tmp_path / "verify.html"
    assert main(["verify", "--players", "2", "--objects", "1", "--effects", "1",
                 "--format", "html", "-o", str(out), "--lang", "it"]) in (0, 1)
    assert "Verifica secondo le regole del 2026-08-07" in out.read_text()


def test_batch_summary(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(json.loads(Path(EXAMPLES[0]).read_text())) + "\n{bad\n")
    out, page = tmp_path / "out.jsonl", tmp_path / "summary.html"
    assert main(["batch", str(src), "-o", str(out), "--html", str(page), "--lang", "fr"]) == 1
    text = page.read_text()
    assert "Bilan du traitement par lots" in text and "ligne 2" in text
    assert len(out.read_text().splitlines()) == 2


def test_repr_html_in_notebooks() -> None:
    ruling = adjudicate(EXAMPLES[0])
    shown = ruling._repr_html_()
    assert shown.startswith("<iframe srcdoc=")
    page = html.unescape(shown.split('srcdoc="', 1)[1].split('" title=', 1)[0])
    assert '<tr data-object="bear">' in page and "613.1b" in page
    assert "_snapshot" not in ruling.to_json()
    from mtgcontrol.present.explain import explain

    french = html.unescape(explain(EXAMPLES[0], lang="fr")._repr_html_())
    assert '<html lang="fr">' in french and "contrôleur" in french


@pytest.mark.parametrize("example", EXAMPLES[:4])
def test_the_text_and_html_rules_columns_show_the_same_rules(
        example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", "--format", "text", example]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[1].split()
    assert header[-1] == "rules"
    ruling = adjudicate(json.loads(Path(example).read_text()))
    text = {}
    for line in lines[2:2 + len(ruling.objects)]:
        cells = line.split("  ")
        text[cells[0].strip()] = line.split()[len(header) - 1:]
    page = tmp_path / "page.html"
    assert main(["adjudicate", "--format", "html", "-o", str(page), example]) == 0
    rows = re.findall(r'<tr data-object="([^"]+)">(.*?)</tr>', page.read_text(), re.S)
    shown = {html.unescape(oid): re.findall(r"<td>(.*?)</td>", cells, re.S)[-1].split()
             for oid, cells in rows}
    assert shown == text and text
