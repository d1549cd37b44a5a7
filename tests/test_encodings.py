"""The encodings by concern, read with clingo's own parser.

* Each predicate is defined (is the head of a rule) in one file, so a reader
  finds every rule for it in one place.  The exceptions are the predicates
  every rule family adds its own cases to (CONTRIBUTED, each with its reason).
* Every predicate a comment names (``name/N``, or a bare ``snake_case`` name)
  is live: it occurs in some encoding, with that arity.  A renamed predicate
  leaves no stale name behind.
* A comment that says where a predicate comes from (``name/N of FILE.lp``)
  names the file that defines it.
* No encoding file is longer than MAX_LINES: one concern per file.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import clingo
from clingo import ast

ROOT = Path(__file__).resolve().parent.parent
ENCODINGS = ROOT / "encodings"
MAX_LINES = 700

# Predicates whose cases are stated by several rule families, each in its own
# file (one .lp per CR rule family): the reason, and the files allowed.
CONTRIBUTED: dict[str, tuple[str, set[str]]] = {
    "why/7": ("each rule family cites its own rules for a value",
              {"abilities.lp", "durations.lp", "layer2.lp", "leaving.lp", "ownership.lp",
               "players.lp", "ruling.lp", "variants.lp"}),
    "error/5": ("each rule family reports the states its rules cannot make sense of",
                {"abilities.lp", "checks.lp", "leaving.lp", "permanents.lp", "players.lp"}),
    "owns/7": ("each kind of object has its own owner rule (108.3, 111.2, 707.10, 901.6)",
               {"ownership.lp", "permanents.lp", "spells.lp", "variants.lp"}),
    "dflt/7": ("a permanent's and a spell's default controllers are different rules (110.2, 112.2)",
               {"permanents.lp", "spells.lp"}),
    "fixed/7": ("an ability's, a copy's and a planar card's fixed controllers are different rules",
                {"abilities.lp", "permanents.lp", "variants.lp"}),
    "born/3": ("where an object begins to exist depends on its kind",
               {"abilities.lp", "permanents.lp", "variants.lp"}),
    "ctrl/4": ("layer 2 gives a permanent's or spell's controller; 901.6 a face-up plane's",
               {"layer2.lp", "variants.lp"}),
    "you/7": ("108.4a (a card no one controls) and 109.5 (an object's or ability's you)",
              {"abilities.lp", "ownership.lp"}),
    "ifail_found/1": ("verify's goal by search mode: over whole snapshots or at a cone's root; "
                      "a search program loads one of the two",
                      {"search/invariant-goal.lp", "search/verify-cone.lp"}),
    "ifail_some/0": ("verify's goal by search mode (as ifail_found/1)",
                     {"search/invariant-goal.lp", "search/verify-cone.lp"}),
}
# Each invariant file is a program of its own (one invariant), not part of the others.
SEPARATE = "invariants"


def lp_files() -> list[Path]:
    return sorted(p for p in ENCODINGS.rglob("*.lp") if p.parent.name != SEPARATE)


def _signature(term: ast.AST) -> tuple[str, int] | None:
    if term.ast_type == ast.ASTType.Function and term.name:
        return term.name, len(term.arguments)
    if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        return term.symbol.name, len(term.symbol.arguments)
    return None


class _Reader:
    """Heads, every atom, and every function name of one file."""

    def __init__(self) -> None:
        self.heads: set[str] = set()
        self.atoms: set[str] = set()
        self.names: set[str] = set()

    def walk(self, node: object, head: bool) -> None:
        if isinstance(node, ast.AST):
            kind = node.ast_type
            if kind == ast.ASTType.SymbolicAtom:
                sig = _signature(node.symbol)
                if sig:
                    self.atoms.add(f"{sig[0]}/{sig[1]}")
                    if head:
                        self.heads.add(f"{sig[0]}/{sig[1]}")
            elif kind == ast.ASTType.ShowTerm:
                sig = _signature(node.term)
                if sig:
                    self.atoms.add(f"{sig[0]}/{sig[1]}")
            elif kind in (ast.ASTType.ShowSignature, ast.ASTType.Defined):
                self.atoms.add(f"{node.name}/{node.arity}")
            if kind == ast.ASTType.Function:
                self.names.add(node.name)
            if kind == ast.ASTType.SymbolicTerm and node.symbol.type == clingo.SymbolType.Function:
                self.names.add(node.symbol.name)
            if kind == ast.ASTType.ConditionalLiteral:
                # In a head, the condition of an element is read, not defined.
                self.walk(node.literal, head)
                self.walk(node.condition, False)
                return
            for key in node.child_keys:
                self.walk(getattr(node, key), head)
        elif not isinstance(node, str) and hasattr(node, "__iter__"):
            for child in node:
                self.walk(child, head)

    def statement(self, stm: ast.AST) -> None:
        if stm.ast_type == ast.ASTType.Rule:
            self.walk(stm.head, True)
            self.walk(stm.body, False)
        else:
            self.walk(stm, False)


@cache
def readers() -> dict[str, _Reader]:
    found = {}
    for path in lp_files():
        reader = _Reader()
        ast.parse_string(path.read_text(encoding="utf-8"), reader.statement)
        found[str(path.relative_to(ENCODINGS))] = reader
    assert found, f"no encodings in {ENCODINGS}"
    return found


def inputs() -> set[str]:
    text = (ENCODINGS / "base.lp").read_text(encoding="utf-8")
    return {f"{n}/{a}" for n, a in re.findall(r"#defined\s+([a-z_]\w*)\s*/\s*(\d+)\s*\.", text)}


def defining_files() -> dict[str, set[str]]:
    """`name/arity` -> the files with a rule whose head is it.  The search's
    bridge writes the inputs of a generated game: those heads are its facts,
    not definitions."""
    where: dict[str, set[str]] = defaultdict(set)
    facts = inputs()
    for name, reader in readers().items():
        for sig in reader.heads:
            if name == "search/bridge.lp" and sig in facts:
                continue
            where[sig].add(name)
    return where


def comments(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "%" in line:
            found.append((number, line[line.index("%"):]))
    return found


NAMED = re.compile(r"(?<![\w.$`/-])([a-z][a-z0-9]*(?:_[a-z0-9]+)*)/(\d+)\b")
BARE = re.compile(r"(?<![\w.$`/-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w(/.-])")
FROM_FILE = re.compile(r"\b([a-z][a-z0-9_]*/\d+) of ([a-z0-9_]+\.lp)\b")


def test_each_predicate_defined_in_one_file() -> None:
    spread = {sig: sorted(files) for sig, files in defining_files().items() if len(files) > 1}
    for sig, (reason, allowed) in CONTRIBUTED.items():
        assert reason, sig
        if sig in spread:
            extra = set(spread.pop(sig)) - allowed
            assert not extra, f"{sig} ({reason}) is also defined in {sorted(extra)}"
    assert not spread, ("defined in more than one file (define each in one, or give the "
                        f"reason in CONTRIBUTED): {spread}")


def test_contributed_allow_list_is_needed() -> None:
    where = defining_files()
    unneeded = [sig for sig in CONTRIBUTED if len(where.get(sig, ())) < 2]
    assert not unneeded, f"CONTRIBUTED lists predicates defined in one file: {unneeded}"


def test_predicates_named_in_comments_are_live() -> None:
    atoms: set[str] = set()
    names: set[str] = set()
    for reader in readers().values():
        atoms |= reader.atoms
        names |= reader.names
    stale = []
    for path in lp_files():
        rel = path.relative_to(ENCODINGS)
        for number, text in comments(path):
            stale += [f"{rel}:{number}: {m.group(1)}/{m.group(2)}" for m in NAMED.finditer(text)
                      if f"{m.group(1)}/{m.group(2)}" not in atoms]
            stale += [f"{rel}:{number}: {m.group(1)}" for m in BARE.finditer(text)
                      if m.group(1) not in names]
    assert not stale, "comments name predicates no encoding has:\n" + "\n".join(stale)


def test_comments_name_the_defining_file() -> None:
    where = defining_files()
    wrong = []
    for path in lp_files():
        rel = path.relative_to(ENCODINGS)
        for number, text in comments(path):
            for m in FROM_FILE.finditer(text):
                sig, named = m.groups()
                files = {Path(f).name for f in where.get(sig, ())}
                if files and named not in files:
                    wrong.append(f"{rel}:{number}: {sig} of {named} (defined in {sorted(files)})")
    assert not wrong, "comments send the reader to the wrong file:\n" + "\n".join(wrong)


def test_no_encoding_file_too_long() -> None:
    long = {str(p.relative_to(ENCODINGS)): n for p in lp_files()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"encoding files over {MAX_LINES} lines (split them by concern): {long}"


TABLE_ROW = re.compile(r"^%\s{2,}((?:[a-z][a-z0-9_]*/\d+\s+(?:\(above\)\s+)?)+)\s*"
                       r"((?:[a-z0-9_]+\.lp(?:,\s*)?)+):?(?:\s|$)")


def test_header_tables_name_the_defining_file() -> None:
    """A header row `pred/N ... FILE.lp[, FILE.lp] meaning` (explain.lp's
    "read here" table) names a file that defines each predicate."""
    where = defining_files()
    wrong = []
    for path in lp_files():
        rel = path.relative_to(ENCODINGS)
        for number, text in comments(path):
            m = TABLE_ROW.match(text)
            if not m:
                continue
            named = {f.strip() for f in m.group(2).split(",")}
            for sig in re.findall(r"[a-z][a-z0-9_]*/\d+", m.group(1)):
                files = {Path(f).name for f in where.get(sig, ())}
                if files and not files & named:
                    wrong.append(f"{rel}:{number}: {sig} is defined in {sorted(files)}, "
                                 f"not {sorted(named)}")
    assert not wrong, "header tables send the reader to the wrong file:\n" + "\n".join(wrong)


# A planted engine fault: a candidate no rule decides (neither applies/5 nor
# napplies/4), so the walks over its object never finish -- an object with no
# controller that no loop or missing record explains.
PLANTED_FAULT = "order_key(S,999,O,(0,0,0,0,0)) :- stay(S,O,_,_), obj(S,O,card,battlefield).\n"


def test_engine_fault_is_an_error_record_not_a_violation() -> None:
    import json

    from mtgcontrol.engine.api import ErrorRecord, adjudicate_many

    doc = json.loads((ROOT / "examples" / "03-act-of-treason.json").read_text(encoding="utf-8"))
    (plain,) = adjudicate_many([(doc, "planted")])
    assert not isinstance(plain, ErrorRecord) and not plain.violations
    (faulty,) = adjudicate_many([(doc, "planted")], changes=(PLANTED_FAULT,))
    assert isinstance(faulty, ErrorRecord), faulty
    (problem,) = faulty.problems
    assert "internal error undecided_object on 'bears'" in problem.expected
    assert "not a rules violation" in problem.expected


# Rules a reader looks up often: each has a banner line `% --- [rule] paraphrase`.
BANNER_RULES = ("109.5", "110.2", "611.2b", "613.7", "613.8", "800.4a")


def test_rules_found_by_their_banner() -> None:
    missing = []
    for rule in BANNER_RULES:
        banner = re.compile(rf"^% --- .*\[{re.escape(rule)}\]\s*\S")
        if not any(banner.match(text) for path in lp_files() for _, text in comments(path)):
            missing.append(rule)
    assert not missing, f"no banner `% --- [rule] ...` names {missing}"
