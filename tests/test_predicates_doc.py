"""docs/predicates.md against the code.

The document's tables are parsed (first column: `name/arity`, or `kind` / `code`
in backticks) and compared with what the code really reads and writes:

* input table  = `#defined` in encodings/base.lp, minus the three program inputs
  that are not snapshot facts (documented in the internal table), and = the
  predicates facts.py writes (the readings of `facts.READINGS`, arity counted),
  each row showing its `vocabulary.INPUTS` read text;
* output table = what encodings/show/ruling.lp (the ruling lens) shows (`#show name/arity.` and
  `#show name(Args) : ...`), each read by ruling.build_ruling;
* internal table: each predicate occurs with that arity in the encodings (in
  every .lp file its row names);
* via kinds = ruling.VIA, error codes = ruling.MESSAGES, and every literal
  kind / code in the encodings is documented.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

from mtgcontrol.engine import facts, ruling
from mtgcontrol.engine.vocabulary import INPUTS

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "predicates.md"
ENCODINGS = ROOT / "encodings"
RULING = ROOT / "pyapi" / "mtgcontrol" / "engine" / "ruling.py"

INPUT = "Input predicates"
OUTPUT = "Output predicates"
INTERNAL = "Internal predicates"
VIA = "Via kinds"
ERRORS = "Error codes"

# `#defined` in base.lp but not snapshot facts: number/3 comes from the rules
# catalog, off/1 and off_number/1 from proposal files.  The document lists
# them in the internal table.
PROGRAM_INPUTS = {"number/3", "off/1", "off_number/1", "slot_number/3", "slot_off/2",
                  "slot_off_number/2"}
# The core vocabulary a proposal is written against: the internal table keeps it.
CORE_INTERNAL = {
    "on/2", "off/1", "off_number/1", "number/3", "tp/2", "ctrl/4", "owner/3",
    "applies/5", "napplies/4", "win/4", "wc/4", "pres/3", "dflt/7", "owns/7",
    "fixed/7", "why/7", "error/5", "fate/5",
}
# Predicates whose 5th argument is a via kind.
VIA_CARRIERS = {"owns", "dflt", "fixed", "fixed_now", "why", "you", "may_activate"}

PRED_CELL = re.compile(r"`([a-z_]\w*)/(\d+)`")
WORD_CELL = re.compile(r"`([a-z_]\w*)`")


# --- docs/predicates.md ------------------------------------------------------

Row = dict[str, str]


def doc_tables() -> dict[str, list[Row]]:
    """The tables of the document by the title of the heading they stand under."""
    tables: dict[str, list[Row]] = defaultdict(list)
    heading = ""
    header: list[str] | None = None
    in_code = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            header = None
            continue
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not all(set(c) <= set("-: ") for c in cells):
            tables[heading].append(dict(zip(header, cells, strict=False)))
    return tables


def first_column(title: str, pattern: re.Pattern[str]) -> dict[str, Row]:
    """Rows of the table under ``title`` by their first cell (`name/arity`, `word`)."""
    rows = doc_tables().get(title)
    assert rows, f"docs/predicates.md has no table under a heading {title!r}"
    found: dict[str, Row] = {}
    for row in rows:
        first = next(iter(row.values()))
        m = pattern.fullmatch(first)
        assert m, f"docs/predicates.md {title!r}: first cell {first!r} is not {pattern.pattern}"
        key = "/".join(m.groups())
        assert key not in found, f"docs/predicates.md {title!r}: {key} is listed twice"
        found[key] = row
    return found


def documented(title: str) -> dict[str, Row]:
    return first_column(title, PRED_CELL)


# --- encodings ---------------------------------------------------------------

def strip_comments(text: str) -> str:
    """ASP text without `%...` and `%* ... *%` comments (strings kept)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = text.index('"', i + 1) + 1
            out.append(text[i:j])
            i = j
        elif text.startswith("%*", i):
            i = text.index("*%", i + 2) + 2
        elif c == "%":
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_args(text: str, start: int) -> tuple[list[str], int]:
    """Top-level arguments of the term whose "(" ends just before ``start``.

    A pool ``p(a;b)`` gives the arguments of its first element.
    """
    args: list[str] = []
    cur: list[str] = []
    depth, i, pooled = 1, start, False
    while True:
        c = text[i]
        if c == '"':
            j = text.index('"', i + 1) + 1
            cur.append(text[i:j])
            i = j
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1 and c == ";":
            pooled = True
        elif depth == 1 and c == "," and not pooled:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        if not pooled:
            cur.append(c)
        i += 1
    args.append("".join(cur).strip())
    return args, i + 1


ATOM = re.compile(r'(?<![\w#"@.])([a-z_]\w*)\s*\(')


def atoms(text: str) -> list[tuple[str, list[str]]]:
    """Every ``name(args)`` in comment-free ASP text (atoms and function terms),
    except the output terms in ``#show name(...)`` heads."""
    found = []
    for m in ATOM.finditer(text):
        args, _ = split_args(text, m.end())
        if text[: m.start()].rstrip().endswith("#show"):
            continue
        found.append((m.group(1), args))
    return found


def encoding_files() -> dict[str, str]:
    files = {p.name: strip_comments(p.read_text(encoding="utf-8"))
             for p in sorted(ENCODINGS.glob("*.lp"))}
    assert files, f"no encodings found in {ENCODINGS}"
    return files


def occurrences() -> dict[str, set[str]]:
    """`name/arity` -> the .lp files it occurs in."""
    where: dict[str, set[str]] = defaultdict(set)
    for name, text in encoding_files().items():
        for pred, args in atoms(text):
            where[f"{pred}/{len(args)}"].add(name)
    return where


def defined() -> set[str]:
    text = strip_comments((ENCODINGS / "base.lp").read_text(encoding="utf-8"))
    found = {f"{n}/{a}" for n, a in re.findall(r"#defined\s+([a-z_]\w*)\s*/\s*(\d+)\s*\.", text)}
    assert found, "no #defined declarations found in encodings/base.lp"
    return found


def shown() -> set[str]:
    """`name/arity` of every output of the ruling lens (the arity of the shown term)."""
    text = strip_comments((ENCODINGS / "show" / "ruling.lp").read_text(encoding="utf-8"))
    found = {f"{n}/{a}" for n, a in re.findall(r"#show\s+([a-z_]\w*)\s*/\s*(\d+)\s*\.", text)}
    for m in re.finditer(r"#show\s+([a-z_]\w*)\s*\(", text):
        args, _ = split_args(text, m.end())
        found.add(f"{m.group(1)}/{len(args)}")
    assert found, "no #show statements found in encodings/show/ruling.lp"
    return found


# --- facts.py --------------------------------------------------------------------

def emitted() -> dict[str, int]:
    """`name/arity` -> how many readings of facts.READINGS (the tree snapshot_facts
    walks) write it: S, the head (the id of the record holding the field, if any),
    then one per argument."""
    found: dict[str, int] = defaultdict(int)

    def walk(fields: tuple[facts.Field, ...], outer: int, inner: int) -> None:
        for f in fields:
            if f.each:
                walk(f.each, inner, 1 if f.record else inner)
            else:
                found[f"{f.pred}/{1 + (outer if not f.path else inner) + len(f.args)}"] += 1
    walk(facts.READINGS, 0, 0)
    assert found, "facts.READINGS is empty"
    return found


def strings_in_function(path: Path, name: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return {c.value for c in ast.walk(node)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    pytest.fail(f"{path.name} has no function {name}")


def compare(what: str, doc: set[str], code_name: str, code: set[str]) -> None:
    """Fail naming every predicate missing from either side."""
    problems = []
    if code - doc:
        problems.append(f"missing from docs/predicates.md {what!r}: {sorted(code - doc)} "
                        f"(they are in {code_name})")
    if doc - code:
        problems.append(f"in docs/predicates.md {what!r} but not in {code_name}: "
                        f"{sorted(doc - code)}")
    assert not problems, "\n".join(problems)


# --- (a) inputs --------------------------------------------------------------

def test_input_table_matches_defined_in_base_lp() -> None:
    declared = defined()
    missing = PROGRAM_INPUTS - declared
    assert not missing, f"expected #defined in encodings/base.lp: {sorted(missing)}"
    compare(INPUT, set(documented(INPUT)),
            "the #defined declarations of encodings/base.lp (without the proposal "
            "inputs number/3, off/1, off_number/1 and their slot forms)", declared - PROGRAM_INPUTS)


def test_input_table_matches_what_facts_py_emits() -> None:
    compare(INPUT, set(documented(INPUT)), "the readings of facts.READINGS",
            set(emitted()))


def test_input_table_shows_how_each_input_is_read() -> None:
    wrong = []
    for pred, row in documented(INPUT).items():
        name = pred.split("/")[0]
        cell = row.get("Read as (`vocabulary.INPUTS`)", "").replace("\\|", "|")
        if name in INPUTS and cell != f"`{INPUTS[name].read}`":
            wrong.append(f"{pred}: doc says {cell}, vocabulary.INPUTS: {INPUTS[name].read}")
    assert not wrong, "docs/predicates.md 'Read as' is wrong for:\n" + "\n".join(wrong)


def test_program_inputs_are_in_the_internal_table() -> None:
    missing = PROGRAM_INPUTS - set(documented(INTERNAL))
    assert not missing, f"missing from docs/predicates.md {INTERNAL!r}: {sorted(missing)}"


def test_every_input_is_read_by_the_encodings() -> None:
    where = occurrences()
    unused = sorted(p for p in documented(INPUT) if not where.get(p))
    assert not unused, f"input predicates that no encodings/*.lp reads: {unused}"


# --- (b) outputs -------------------------------------------------------------

def test_output_table_matches_show_lp() -> None:
    compare(OUTPUT, set(documented(OUTPUT)), "the #show statements of encodings/show/ruling.lp",
            shown())


def test_every_output_is_read_by_build_ruling() -> None:
    # build_ruling reads each shown predicate through this table
    read = set(ruling._RulingReader.READ)
    unread = sorted(p for p in shown() if p.split("/")[0] not in read)
    assert not unread, f"shown by encodings/show/ruling.lp but never read by build_ruling: {unread}"
    rows = documented(OUTPUT)
    unnamed = sorted(p for p, row in rows.items() if "build_ruling" not in row.get("Read by", ""))
    assert not unnamed, f"docs/predicates.md {OUTPUT!r}: 'Read by' names no build_ruling: {unnamed}"


# --- (c) internal predicates ---------------------------------------------------

def test_internal_predicates_occur_in_the_encodings() -> None:
    where = occurrences()
    absent = []
    misplaced = []
    for pred, row in documented(INTERNAL).items():
        if not where.get(pred):
            absent.append(pred)
            continue
        for lp in re.findall(r"\b([a-z0-9_]+\.lp)\b", row.get("File", "")):
            if lp not in where[pred]:
                misplaced.append(f"{pred} not in {lp} (occurs in {sorted(where[pred])})")
    assert not absent, (f"docs/predicates.md {INTERNAL!r} lists predicates that occur in no "
                        f"encodings/*.lp with that arity: {absent}")
    assert not misplaced, f"docs/predicates.md {INTERNAL!r} 'File' is wrong:\n" + \
        "\n".join(misplaced)


def test_internal_table_keeps_the_core_vocabulary() -> None:
    missing = CORE_INTERNAL - set(documented(INTERNAL))
    assert not missing, f"missing from docs/predicates.md {INTERNAL!r}: {sorted(missing)}"


def test_tables_do_not_overlap() -> None:
    both = set(documented(INPUT)) & set(documented(INTERNAL))
    assert not both, f"listed both as input and as internal predicates: {sorted(both)}"


# --- via kinds and error codes -----------------------------------------------

def literal(term: str) -> str | None:
    return term if re.fullmatch(r"[a-z]\w*", term) else None


def written(names: set[str], arity: int, position: int) -> set[str]:
    """Constants at ``position`` of the ``names/arity`` atoms in the encodings."""
    found = {literal(args[position]) for text in encoding_files().values()
             for name, args in atoms(text) if name in names and len(args) == arity}
    return {c for c in found if c is not None}


def test_via_kinds_match_ruling_via() -> None:
    doc = set(first_column(VIA, WORD_CELL))
    compare(VIA, doc, "ruling.VIA", set(ruling.VIA))
    undocumented = written(VIA_CARRIERS, 7, 4) - doc
    assert not undocumented, (f"via kinds written in encodings/*.lp but missing from "
                              f"docs/predicates.md {VIA!r}: {sorted(undocumented)}")


def test_error_codes_match_ruling_messages() -> None:
    doc = set(first_column(ERRORS, WORD_CELL))
    compare(ERRORS, doc, "ruling.MESSAGES", set(ruling.MESSAGES))
    undocumented = written({"error"}, 5, 2) - doc
    assert not undocumented, (f"error codes written in encodings/*.lp but missing from "
                              f"docs/predicates.md {ERRORS!r}: {sorted(undocumented)}")


# --- the parsers themselves ----------------------------------------------------

def test_parsers_count_arity() -> None:
    text = strip_comments('p(S,(A,B),"x,y") :- q(S;T), #count{ X : r(X,f(1,2)) } > 0. % s(1)\n'
                          '#show t(S,A) : p(S,A,_).')
    found = {f"{n}/{len(a)}" for n, a in atoms(text)}
    assert found == {"p/3", "q/1", "r/2", "f/2"}
