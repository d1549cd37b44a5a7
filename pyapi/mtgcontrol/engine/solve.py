"""The program text (encodings, version numbering, proposals) and its atoms.

One clingo ``Control`` judges a whole batch: every fact carries the snapshot's
batch number.  The program is stratified (see encodings/layer2.lp), so the
grounder decides it and the solver only reads off the single model.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import clingo

from ..catalog import Version, numbering_facts

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

    def text(self) -> str:
        parts = [encoding_text()]
        parts.extend(numbering_facts(v) for v in self.versions)
        parts.extend(self.changes)
        return "\n".join(parts)


class NoRuling(RuntimeError):
    """The program had no answer set (only possible with a proposal's constraint)."""


def load_changes(paths: Iterable[str | Path]) -> tuple[str, ...]:
    """Read proposal files (``--change FILE.lp``)."""
    return tuple(Path(p).read_text(encoding="utf-8") for p in paths)
