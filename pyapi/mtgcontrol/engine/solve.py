"""The program text (encodings, version numbering, proposals) and its atoms.

One clingo ``Control`` judges a whole batch: every fact carries the snapshot's
batch number.  The program is stratified (see encodings/layer2.lp), so the
grounder decides it and the solver only reads off the single model.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import clingo

from ..catalog import Version, numbering_facts
from .files import read_input
from .interrupts import ground
from .validate import InputError, InputProblem

ENCODINGS = ("base", "ownership", "permanents", "spells", "abilities", "variants",
             "layer2", "durations", "order", "moments", "points", "leaving", "players", "checks",
             "ruling", "show")

# The ruling lens's #show file: the rule files show nothing (engine.Lens).
RULING_SHOW = "show/ruling"

Atom = tuple[str, tuple[Any, ...]]  # arguments: ints and strings


@cache
def encoding_text() -> str:
    """All encoding files, in order."""
    root = resources.files("mtgcontrol.encodings")
    return "\n".join((root / f"{name}.lp").read_text(encoding="utf-8") for name in ENCODINGS)


DIGITS = frozenset("-0123456789")


def parse_atom(text: str) -> Atom:
    """Split a flat shown atom, e.g. ``owner(1,4,2)``, into name and arguments.

    Every shown atom is flat: integers, constants and rule-number strings
    (which contain no commas or parentheses).
    """
    name, _, rest = text.partition("(")
    return name, tuple(int(arg) if arg[0] in DIGITS else arg.strip('"')
                       for arg in rest[:-1].split(","))


class _Values(dict[str, object]):
    """Argument text -> value (``parse_atom``'s rule), each distinct text converted once."""

    def __missing__(self, text: str) -> object:
        value = self[text] = int(text) if text[0] in DIGITS else text.strip('"')
        return value


def atoms_by_snapshot(texts: Iterable[str]) -> dict[int, list[Atom]]:
    """A model's shown atoms (their texts, ``shown_texts``) grouped by their first
    argument (the snapshot number), which is dropped: ``owner(1,4,2)`` ->
    ``{1: [("owner", (4, 2))]}``; each atom read as ``parse_atom`` reads it,
    converting each distinct argument text once.

    (Rendering the whole model as one tuple symbol would be faster, but clingo keeps
    every symbol ever built: a new tuple per grounding would grow memory forever.)
    """
    by_snapshot: dict[int, list[Atom]] = defaultdict(list)
    value = _Values().__getitem__
    for text in texts:
        name, _, rest = text.partition("(")
        args = rest[:-1].split(",")
        by_snapshot[value(args[0])].append((name, tuple(map(value, args[1:]))))  # type: ignore[index]
    return by_snapshot


def shown_texts(model: clingo.Model) -> list[str]:
    """The text of each shown atom of ``model``, as ``str(symbol)`` gives it.

    Through clingo's C API (``clingo_model_symbols``, ``clingo_symbol_to_string``)
    with one reused buffer: ``str()`` of a ``Symbol`` allocates two cffi objects per
    call, half its cost (BENCHMARKS.md: 2.9 -> 1.5 us per atom).  Falls back to
    ``str()`` where clingo's cffi handle is not where this clingo minor keeps it;
    tests/test_engine.py checks that both give the same texts.
    """
    if _C is None:
        return [str(symbol) for symbol in model.symbols(shown=True)]
    lib, ffi = _C
    size = ffi.new("size_t*")
    rep = model._rep  # noqa: SLF001 - the model's C handle
    shown = lib.clingo_show_type_shown
    if not lib.clingo_model_symbols_size(rep, shown, size):
        return [str(symbol) for symbol in model.symbols(shown=True)]
    count = size[0]
    symbols = ffi.new("clingo_symbol_t[]", count)
    if not lib.clingo_model_symbols(rep, shown, symbols, count):
        return [str(symbol) for symbol in model.symbols(shown=True)]
    capacity = 256
    buffer = ffi.new("char[]", capacity)
    to_size, to_string, unpack = lib.clingo_symbol_to_string_size, lib.clingo_symbol_to_string, \
        ffi.unpack
    texts = []
    for i in range(count):
        symbol = symbols[i]
        if not to_size(symbol, size):
            raise RuntimeError("clingo could not render a shown atom")
        length = size[0]
        if length > capacity:
            capacity = length
            buffer = ffi.new("char[]", capacity)
        if not to_string(symbol, buffer, length):
            raise RuntimeError("clingo could not render a shown atom")
        texts.append(unpack(buffer, length - 1).decode())
    return texts


def _c_api() -> tuple[Any, Any] | None:
    try:
        from clingo._internal import _ffi, _lib  # the cffi handle of clingo 5.8
    except ImportError:
        return None
    return _lib, _ffi


_C = _c_api()


@dataclass(frozen=True)
class Program:
    """The encodings with a set of versions and proposal files layered over them."""

    versions: tuple[Version, ...]
    changes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for number, text in enumerate(self.changes, 1):
            check_change(text, f"change {number}")

    def text(self) -> str:
        parts = [encoding_text()]
        parts.extend(numbering_facts(v) for v in self.versions)
        parts.extend(self.changes)
        return "\n".join(parts)


class NoRuling(RuntimeError):
    """The program had no answer set (only possible with a proposal's constraint)."""


def load_changes(paths: Iterable[str | Path]) -> tuple[str, ...]:
    """Read proposal files (``--change FILE.lp``), each checked (``check_change``); an
    unreadable or invalid one is an `InputError` naming the file, line and clingo's
    message."""
    texts = []
    for path in paths:
        data = read_input(path, where="--change", what="proposal file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputError([InputProblem(str(path), "--change", (
                f"a proposal file in UTF-8, got byte {err.start} that is not"))]) from None
        check_change(text, str(path))
        texts.append(text)
    return tuple(texts)


# Directives a proposal may not hold: #include reads another file (when the program is
# parsed, whatever it names) and #script runs code where clingo has a scripting language.
FORBIDDEN = re.compile(r"#(include|script)\b")
LOCATION = re.compile(r"^<(?:string|block)>:(\d+):(\S+?):? (?:error|info|warning): ", re.MULTILINE)


def check_change(text: str, name: str) -> None:
    """A proposal's (or an invariant's) text, alone: no ``#include``/``#script``, ASCII
    outside comments, valid syntax, safe rules (it is parsed and grounded on its own,
    without the encodings, which costs next to nothing).  `InputError` naming the file
    (``name``), the line and clingo's message."""
    found = _change_problems(text)
    if found:
        raise InputError([InputProblem(name, f"line {line}", expected)
                          for line, expected in found])


@cache
def _change_problems(text: str) -> tuple[tuple[int, str], ...]:
    for number, line in enumerate(text.splitlines(), 1):
        directive = FORBIDDEN.search(line)
        if directive:
            return ((number, f"a program without #{directive.group(1)} (proposal and "
                             "invariant files are rules only: they may not read files or "
                             "run scripts)"),)
    odd = not_ascii(text)
    if odd is not None:
        at, char = odd
        return ((at, f"ASCII outside comments, got {char!r} (U+{ord(char):04X}); write "
                       "it in a comment"),)
    messages: list[str] = []
    ctl = clingo.Control(["--warn=none"], logger=lambda _code, msg: messages.append(msg))
    try:
        ctl.add("base", [], text)
        ground(ctl, [("base", [])])
    except RuntimeError as err:
        return _messages(messages or [str(err)])
    return ()


def not_ascii(text: str) -> tuple[int, str] | None:
    """The first character that is not ASCII outside a comment (``%`` to the end of the
    line, ``%* *%`` nested as clingo nests them), or a NUL anywhere, with its line; None
    when there is none.

    clingo quotes an unexpected character in its message byte by byte, and its Python
    binding dies decoding half a character ("PANIC: exception in nothrow scope"): a
    program must not reach it with one (strings included, to be safe)."""
    if "\0" in text:  # clingo would stop reading there (a C string)
        return text.count("\n", 0, text.index("\0")) + 1, "\0"
    depth = 0
    line = 1
    at = 0
    while at < len(text):
        char = text[at]
        if char == "\n":
            line += 1
        if text.startswith("%*", at):
            depth += 1
            at += 2
            continue
        if depth and text.startswith("*%", at):
            depth -= 1
            at += 2
            continue
        if not depth and char == "%":
            end = text.find("\n", at)
            at = len(text) if end < 0 else end
            continue
        if not depth and char == '"':  # a string: no comment in it, ASCII too
            at += 1
            while at < len(text) and text[at] not in '"\n':
                if not text[at].isascii():
                    return line, text[at]
                at += 2 if text[at] == "\\" else 1
            at += 1
            continue
        if not depth and not char.isascii():
            return line, char
        at += 1
    return None


def _messages(messages: list[str]) -> tuple[tuple[int, str], ...]:
    """clingo's error messages as (line, "valid ASP (clingo: COLUMNS: message)")."""
    found = []
    for message in messages:
        where = LOCATION.match(message)
        line = int(where.group(1)) if where else 0
        body = LOCATION.sub("", message).strip().replace("\n", " ")
        body = re.sub(r"<(?:string|block)>:\d+:\S+?: (?:note: )?", "", body)
        columns = f"column {where.group(2).split(':')[-1]}: " if where else ""
        found.append((line, f"valid ASP (clingo: {columns}{' '.join(body.split())})"))
    return tuple(found)
