"""Give the grounder only the statements that can fire on a grounding's facts.

clingo pays for every rule it is given, fired or not (tens of µs each, growing
with the rule's body).  A rule whose positive body cannot be matched by atoms
that can hold derives nothing and rules nothing out: left out of the grounding,
it changes no answer set.  Which atoms can hold is over-approximated by an
abstract least fixpoint over the program with its negative literals, aggregates
and conditional literals dropped (they only ever make fewer atoms true), choices
and disjunctions deriving each of their atoms: each predicate that can hold
has, per argument position, the set of constants it can take there, or ``ANY``
(a number, a compound term, anything not read).  A statement is kept when its
positive body can be matched in that state: every atom's predicate can hold,
each constant argument is among its position's values, each variable's
positions (and its comparisons with constants) leave it a value.

``shape(text)`` is the abstraction of a fact text (its distinct atoms with
numbers masked); ``Slicer(parts).kept(shape)`` the statements to ground, in
their order; ``Slicing`` holds one engine's slicers (its rules read once, one
slicer per lens).  docs/engine.md ("Slicing") argues it sound;
tests/test_slicing.py checks it against the whole program.
"""

from __future__ import annotations

import heapq
import os
import re
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from clingo import SymbolType, ast

Signature = tuple[str, int]  # (name, arity); a classically negated atom's name is "-name"
# A position's values: ANY, or the constants (their text: ``card``, ``"108.3"``).
ANY = None
Values = frozenset[str] | None
# An argument: ANY, a constant's text, constants (a pool), or a variable (its
# number in the statement).
Arg = str | frozenset[str] | int | None
Atom = tuple[Signature, tuple[Arg, ...]]
# A comparison of a variable with constants: (variable, equal?, constants).
Test = tuple[int, bool, frozenset[str]]
Shape = frozenset[tuple[Signature, tuple[str | None, ...]]]
# A shape as the analysis reads it: each predicate with its positions' values.
Present = frozenset[tuple[Signature, tuple[Values, ...]]]


@dataclass(frozen=True)
class Compiled:
    """A statement as the analysis reads it: its positive body's plain atoms (all
    must match), its comparisons of a variable with constants, and the atoms its
    head may derive; its variables are numbered from 0 to ``variables`` - 1."""

    body: tuple[Atom, ...] = ()
    tests: tuple[Test, ...] = ()
    heads: tuple[Atom, ...] = ()
    variables: int = 0


class Unreadable(Exception):
    """A statement whose heads cannot be read: nothing is sliced then."""


class _Reader:
    """Reads one statement's atoms, numbering its variables."""

    def __init__(self, constants: frozenset[str]) -> None:
        self.constants = constants
        self.numbers: dict[str, int] = {}

    def constant(self, term: ast.AST) -> str | None:
        """A term's text when it is a constant (a name no #const defines, or a string)."""
        if term.ast_type == ast.ASTType.SymbolicTerm:
            symbol = term.symbol
            if symbol.type == SymbolType.String or (
                    symbol.type == SymbolType.Function and not symbol.arguments
                    and symbol.positive and symbol.name not in self.constants):
                return str(symbol)
        elif term.ast_type == ast.ASTType.Function and not term.arguments \
                and not term.external and term.name not in self.constants:
            return str(term.name)
        return None

    def term(self, term: ast.AST) -> Arg:
        if term.ast_type == ast.ASTType.Variable:
            if term.name == "_":
                return ANY
            return self.numbers.setdefault(term.name, len(self.numbers))
        if term.ast_type == ast.ASTType.Pool:
            pooled = [self.constant(t) for t in term.arguments]
            return frozenset(p for p in pooled if p is not None) \
                if all(p is not None for p in pooled) else ANY
        return self.constant(term)  # None: a number, an operation, a compound term

    def atoms(self, atom: ast.AST) -> list[Atom] | None:
        """A symbolic atom's predicate and arguments (a pool of atoms: each one);
        None when it is no plain atom."""
        if atom.ast_type != ast.ASTType.SymbolicAtom:
            return None
        term = atom.symbol
        terms = list(term.arguments) if term.ast_type == ast.ASTType.Pool else [term]
        found: list[Atom] = []
        for term in terms:
            negated = ""
            if term.ast_type == ast.ASTType.UnaryOperation and \
                    term.operator_type == ast.UnaryOperator.Minus:
                term, negated = term.argument, "-"
            if term.ast_type == ast.ASTType.SymbolicTerm and \
                    term.symbol.type == SymbolType.Function:  # 'a.', '-a.'
                symbol = term.symbol
                found.append(((("-" if symbol.negative else negated) + symbol.name,
                               len(symbol.arguments)), (ANY,) * len(symbol.arguments)))
            elif term.ast_type == ast.ASTType.Function and not term.external:
                found.append(((negated + term.name, len(term.arguments)),
                              tuple(self.term(t) for t in term.arguments)))
            else:
                return None
        return found

    def heads(self, head: ast.AST) -> list[Atom]:
        """The atoms a rule's head may derive: a plain literal's, every element's of
        a disjunction, a choice or a head aggregate."""
        kind = head.ast_type
        if kind == ast.ASTType.Literal:
            if head.sign != ast.Sign.NoSign or head.atom.ast_type in (
                    ast.ASTType.BooleanConstant, ast.ASTType.Comparison):
                return []  # a constraint, or 'not a :- ...': derives nothing
            found = self.atoms(head.atom)
            if found is None:
                raise Unreadable(str(head))
            return found
        if kind in (ast.ASTType.Disjunction, ast.ASTType.Aggregate,
                    ast.ASTType.HeadAggregate):
            found = []
            for element in head.elements:
                literal = element.condition.literal if kind == ast.ASTType.HeadAggregate \
                    else element.literal
                # An element's variables may be bound by its condition: any value.
                found.extend((sig, tuple(ANY if type(a) is int else a for a in args))
                             for sig, args in self.heads(literal))
            return found
        raise Unreadable(str(head))

    def test(self, comparison: ast.AST) -> Test | None:
        """``X = c``, ``X = (c;d)``, ``X != c`` (either way round): what it asks of X."""
        if len(comparison.guards) != 1:
            return None
        op = comparison.guards[0].comparison
        if op not in (ast.ComparisonOperator.Equal, ast.ComparisonOperator.NotEqual):
            return None
        left, right = comparison.term, comparison.guards[0].term
        if left.ast_type != ast.ASTType.Variable:
            left, right = right, left
        variable, value = self.term(left), self.term(right)
        if type(variable) is not int:
            return None
        if isinstance(value, str):
            value = frozenset((value,))
        if not isinstance(value, frozenset) or (
                op == ast.ComparisonOperator.NotEqual and len(value) != 1):
            return None
        return variable, op == ast.ComparisonOperator.Equal, value

    def body(self, body: Sequence[ast.AST]) -> tuple[list[Atom], list[Test]]:
        """The positive body's plain atoms and comparisons of a variable with
        constants.  Negated literals, aggregates, conditional literals, pools of
        atoms and other comparisons are left out: a rule may fire whatever they say."""
        atoms: list[Atom] = []
        tests: list[Test] = []
        for literal in body:
            if literal.ast_type != ast.ASTType.Literal or literal.sign != ast.Sign.NoSign:
                continue
            if literal.atom.ast_type == ast.ASTType.Comparison:
                test = self.test(literal.atom)
                if test is not None:
                    tests.append(test)
                continue
            found = self.atoms(literal.atom)
            if found is not None and len(found) == 1:
                atoms.extend(found)
        return atoms, tests


def defined_constants(statements: Sequence[ast.AST]) -> frozenset[str]:
    """The names the statements' ``#const`` directives define."""
    return frozenset(s.name for s in statements if s.ast_type == ast.ASTType.Definition)


# Cached by the statement itself (clingo's ASTs compare and hash by structure, not
# location): an engine with a proposal, or a mutated encoding, shares all but a few of
# its statements with the rules, and reading them again costs ~0.3 s per engine.
@lru_cache(maxsize=1 << 13)
def compile_statement(statement: ast.AST, constants: frozenset[str]) -> Compiled:
    """A statement as the analysis reads it (raises ``Unreadable``); ``constants``:
    names some ``#const`` defines (never read as constants)."""
    kind = statement.ast_type
    read = _Reader(constants)
    if kind == ast.ASTType.Rule:
        body, tests = read.body(statement.body)
        # A head variable bound by no positive body atom nor '=' may take any value.
        bound = {a for _, args in body for a in args if type(a) is int}
        bound.update(v for v, equal, _ in tests if equal)
        heads = [(sig, tuple(ANY if type(a) is int and a not in bound else a for a in args))
                 for sig, args in read.heads(statement.head)]
        return Compiled(tuple(body), tuple(tests), tuple(heads), len(read.numbers))
    if kind == ast.ASTType.External:
        atoms = read.atoms(statement.atom)
        if atoms is None:
            raise Unreadable(str(statement))
        return Compiled(heads=tuple((sig, (ANY,) * sig[1]) for sig, _ in atoms))
    if kind in (ast.ASTType.Script, ast.ASTType.TheoryDefinition):
        raise Unreadable(str(statement))  # a script or a theory may add atoms
    return Compiled()


# A fact text's lines with numbers masked ('obj(3,12,card,battlefield).' ->
# 'obj(0,00,card,battlefield).'), so that its distinct lines are few.  A line that is
# no 'head.' or 'head :- body.' with plain arguments is read by its identifiers.
_MASK = str.maketrans("123456789", "000000000")
_LINE = re.compile(r"(-?[a-z_][A-Za-z0-9_']*)(?:\(([^()\";]*)\))?\s*(?::-[^\".]*)?\.")
_CONSTANT = re.compile(r"[a-z_][A-Za-z0-9_']*")
_IDENTIFIER = re.compile(r"[a-z_][A-Za-z0-9_']*")
_DIRECTIVE = re.compile(r"#[a-z]")
# The shape of a fact text with a directive or an aggregate: nothing is sliced.
WHOLE: Shape = frozenset({(("#", -1), ())})


def _masked(name: str) -> str:
    """A predicate's name as a masked line shows it: digits masked, no sign."""
    return name.lstrip("-").translate(_MASK)


def _value(arg: str) -> str | None:
    arg = arg.strip()
    return arg if _CONSTANT.fullmatch(arg) else ANY


def shape(text: str) -> Shape:
    """The abstraction of a fact text: each distinct (predicate, arguments), a
    constant argument as it is and anything else (a number, a variable, an
    operation) as ANY.  A line it cannot read gives its identifiers as names of
    atoms of any arity and arguments (arity -1); a directive, ``WHOLE``."""
    found: set[tuple[Signature, tuple[str | None, ...]]] = set()
    again: set[str] = set()  # predicates with a constant that has digits: read unmasked
    for line in set(text.translate(_MASK).splitlines()):
        line = line.strip()
        if not line or (line.startswith("%") and "*%" not in line):
            continue
        if _DIRECTIVE.search(line):
            return WHOLE
        match = _LINE.fullmatch(line)
        if match is None:
            found.update(((name, -1), ()) for name in _IDENTIFIER.findall(line))
            continue
        name, args = match.groups()
        if "0" in name:  # a name with digits: any predicate it may be
            found.add(((name, -1), ()))
            continue
        values = () if args is None else tuple(_value(a) for a in args.split(","))
        if any(v is not None and "0" in v for v in values):
            again.add(name)
        else:
            found.add(((name, len(values)), values))
    for name in again:
        for args in set(re.findall(rf"(?m)^\s*{re.escape(name)}\(([^()\";]*)\)", text)):
            values = tuple(_value(a) for a in args.split(","))
            found.add(((name, len(values)), values))
    return frozenset(found)


def present(facts: Shape) -> Present:
    """What the analysis reads of a shape: the predicates present, each with the
    constants each of its positions takes (or ANY), the version's among them.  Two
    shapes with the same ``present`` give the same slice: the fixpoint merges a
    shape's atoms position by position before any statement reads them."""
    state: dict[Signature, list[Values]] = {}
    names: list[Signature] = []
    for sig, values in facts:
        if sig[1] < 0:
            names.append(sig)
        else:
            _merge(state, sig, values)
    return frozenset([*((sig, tuple(v)) for sig, v in state.items()),
                      *((sig, ()) for sig in names)])


def enabled() -> bool:
    """Whether engines slice (``MTGCONTROL_SLICE=0``: they ground every statement,
    the reference the slicing is tested against)."""
    return os.environ.get("MTGCONTROL_SLICE", "1") != "0"


@dataclass
class Part:
    """Statements read for slicing once: each one compiled (``compiled`` None: one
    is unreadable), kept whatever the facts (``always``) or a comment (never
    kept); and the #const names they define."""

    statements: Sequence[ast.AST]
    compiled: list[Compiled] | None
    always: list[bool]
    comment: list[bool]
    constants: frozenset[str]

    @classmethod
    def of(cls, statements: Sequence[ast.AST], keep: frozenset[str] = frozenset(),
           constants: frozenset[str] = frozenset()) -> Part:
        """``keep``: the text of the statements to keep whatever the facts."""
        defined = defined_constants(statements)
        try:
            compiled: list[Compiled] | None = [compile_statement(s, constants | defined)
                                               for s in statements]
        except Unreadable:
            compiled = None
        return cls(statements, compiled, [bool(keep) and str(s) in keep for s in statements],
                   [s.ast_type == ast.ASTType.Comment for s in statements], defined)


@dataclass
class Slicer:
    """A program, made of parts, for slicing; ``kept(shape)`` cached per shape.

    A statement of ``Part.always`` is kept whatever the facts (a proposal file's:
    an error in one, e.g. an unsafe variable, must still stop the grounding);
    its heads count as the analysis finds them.  A comment is never kept.  A part
    with an unreadable statement turns slicing off.
    """

    parts: Sequence[Part]
    cache_size: int = 256
    _kept: OrderedDict[Present, list[ast.AST]] = field(init=False, default_factory=OrderedDict)
    _start: tuple[dict[Signature, list[Values]], list[bool]] | None = field(
        init=False, default=None)

    def __post_init__(self) -> None:
        defined = frozenset[str]().union(*(p.constants for p in self.parts))
        if defined:  # a #const of one part may stand for a constant of another
            self.parts = [replace(Part.of(p.statements, constants=defined), always=p.always)
                          for p in self.parts]
        self.statements = [s for p in self.parts for s in p.statements]
        self.always = [a for p in self.parts for a in p.always]
        self.comment = [c for p in self.parts for c in p.comment]
        self.whole = any(p.compiled is None for p in self.parts)
        self.compiled = [Compiled()] * len(self.statements) if self.whole else \
            [c for p in self.parts for c in p.compiled or ()]
        # The statements reading each predicate in their positive body.
        self.readers: dict[Signature, list[int]] = {}
        for i, c in enumerate(self.compiled):
            for sig in {sig for sig, _ in c.body}:
                self.readers.setdefault(sig, []).append(i)
        self.by_masked: dict[str, list[Signature]] = {}
        for sig in self.readers:
            self.by_masked.setdefault(_masked(sig[0]), []).append(sig)
        self.rank = _ranks(self.compiled)

    def kept(self, facts: Shape) -> list[ast.AST]:
        """The statements that can fire on facts of this shape, in their order;
        cached by what the analysis reads of the shape (``present``)."""
        if self.whole or facts == WHOLE:
            return [s for s, c in zip(self.statements, self.comment, strict=True) if not c]
        key = present(facts)
        hit = self._kept.get(key)
        if hit is not None:
            self._kept.move_to_end(key)
            return hit
        _, fired = self.possible(facts)
        kept = [s for s, f, a, c in zip(self.statements, fired, self.always, self.comment,
                                        strict=True) if (f or a) and not c]
        self._kept[key] = kept
        while len(self._kept) > self.cache_size:
            self._kept.popitem(last=False)
        return kept

    def possible(self, facts: Shape) -> tuple[dict[Signature, list[Values]], list[bool]]:
        """The abstract least fixpoint: each predicate that can hold with the values
        each position can take, and whether each statement can fire.  It goes on
        from the fixpoint without facts (computed once): the same least fixpoint,
        as every step is monotone."""
        if self._start is None:
            self._start = self._fixpoint({}, [False] * len(self.compiled),
                                         range(len(self.compiled)), frozenset())
        state, fired = self._start
        return self._fixpoint({sig: list(v) for sig, v in state.items()}, list(fired),
                              (), facts)

    def _fixpoint(self, state: dict[Signature, list[Values]], fired: list[bool],
                  first: Iterable[int], facts: Shape
                  ) -> tuple[dict[Signature, list[Values]], list[bool]]:
        """``state`` and ``fired`` grown to the least fixpoint with ``facts`` added:
        the statements of ``first`` and those reading what grows are evaluated,
        those deriving what others read first (fewer evaluations)."""
        compiled, readers, rank = self.compiled, self.readers, self.rank
        queued = [False] * len(compiled)
        todo: list[tuple[int, int]] = []
        for i in first:
            queued[i] = True
            todo.append((rank[i], i))
        heapq.heapify(todo)

        def add(sig: Signature, values: Sequence[str | frozenset[str] | None]) -> None:
            if _merge(state, sig, values):
                for i in readers.get(sig, ()):
                    if not queued[i]:
                        queued[i] = True
                        heapq.heappush(todo, (rank[i], i))

        for (name, arity), values in facts:
            if arity < 0:  # any predicate of that (masked) name, any arguments
                for sig in self.by_masked.get(_masked(name), ()):
                    add(sig, (ANY,) * sig[1])
            else:
                add((name, arity), values)
        while todo:
            i = heapq.heappop(todo)[1]
            queued[i] = False
            env = _match(compiled[i], state)
            if env is not None:
                fired[i] = True
                for sig, args in compiled[i].heads:
                    add(sig, [env[a] if type(a) is int else a for a in args])  # type: ignore[misc]
        return state, fired


def _merge(state: dict[Signature, list[Values]], sig: Signature,
           values: Sequence[str | frozenset[str] | None]) -> bool:
    """Add an atom's values (a constant, constants or ANY per position) to ``sig``'s
    in ``state``: whether they grew."""
    old = state.get(sig)
    if old is None:
        state[sig] = [frozenset((v,)) if isinstance(v, str) else v for v in values]
        return True
    changed = False
    for j, v in enumerate(values):
        cur = old[j]
        if cur is None:
            continue
        if v is None:
            old[j], changed = ANY, True
        elif isinstance(v, str):
            if v not in cur:
                old[j], changed = cur | {v}, True
        elif not v <= cur:
            old[j], changed = cur | v, True
    return changed


def _match(c: Compiled, state: dict[Signature, list[Values]]) -> list[Values] | None:
    """The values each variable (by number) can take when the statement's body
    matches in ``state`` (None: it cannot)."""
    env: list[Values] = [ANY] * c.variables
    for sig, args in c.body:
        values = state.get(sig)
        if values is None:
            return None
        for arg, v in zip(args, values, strict=True):
            if arg is None or v is None:
                continue
            if type(arg) is int:
                cur = env[arg]
                if cur is None:
                    env[arg] = v
                else:
                    both = cur & v
                    if not both:
                        return None
                    env[arg] = both
            elif type(arg) is str:
                if arg not in v:
                    return None
            elif not arg & v:  # type: ignore[operator]
                return None
    for var, equal, constants in c.tests:
        cur = env[var]
        if equal:
            cur = constants if cur is None else cur & constants
        elif cur is None:
            continue
        else:
            cur = cur - constants
        if not cur:
            return None
        env[var] = cur
    return env


def _ranks(compiled: Sequence[Compiled]) -> list[int]:
    """Each statement's place in an order where a predicate's statements come after
    those of the predicates their positive bodies read: the strongly connected
    components of that graph, numbered as Tarjan's algorithm closes them."""
    graph: dict[Signature, set[Signature]] = {}
    for c in compiled:
        reads = {sig for sig, _ in c.body}
        for sig, _ in c.heads:
            graph.setdefault(sig, set()).update(reads)
    component: dict[Signature, int] = {}
    index: dict[Signature, int] = {}
    low: dict[Signature, int] = {}
    stack: list[Signature] = []
    closed = 0
    for root in graph:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        work = [(root, iter(graph.get(root, ())))]
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(graph.get(nxt, ()))))
                    break
                if nxt not in component:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    while True:
                        member = stack.pop()
                        component[member] = closed
                        if member == node:
                            break
                    closed += 1
    return [max((component.get(sig, closed) for sig, _ in c.heads),
                default=max((component.get(sig, closed) for sig, _ in c.body), default=0))
            for c in compiled]


class Slicing:
    """One engine's slicers: its rules read once, and a slicer for each lens's
    program (its own statements read once; at most ``lenses`` kept: per-call
    lenses come and go)."""

    def __init__(self, rules: Sequence[ast.AST], keep: frozenset[str] = frozenset(),
                 lenses: int = 32) -> None:
        self.rules = Part.of(rules, keep)
        self.lenses = lenses
        self.slicers: dict[Hashable, Slicer] = {}

    def kept(self, key: Hashable, statements: Sequence[ast.AST], facts: str) -> list[ast.AST]:
        """The rules and a lens's ``statements`` (``key``: its program) that can
        fire on ``facts``, a grounding's fact text."""
        slicer = self.slicers.get(key)
        if slicer is None:
            if len(self.slicers) >= self.lenses:
                self.slicers.clear()
            slicer = self.slicers[key] = Slicer((self.rules, Part.of(statements)))
        return slicer.kept(shape(facts))
