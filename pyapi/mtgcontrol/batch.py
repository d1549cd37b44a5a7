"""Batch mode: JSON Lines in, one ruling (or error record) per line out, in order.

Lines are judged in chunks (one grounding each).  With ``workers > 1`` chunks
go to worker processes that are recycled now and then, so a long run keeps a
flat memory profile; results are written in input order either way.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import IO

from .api import ErrorRecord, InputError, adjudicate_many, parse_json

Chunk = tuple[list[tuple[int, str]], str | None, tuple[str, ...], int]


def judge_lines(chunk: Chunk) -> list[tuple[bool, str]]:
    """Judge numbered JSON lines: (is an error record, output line) each, in order."""
    lines, rules, changes, batch_size = chunk
    items: list[tuple[object, str]] = []
    out: list[ErrorRecord | None] = []
    for number, text in lines:
        try:
            items.append((parse_json(text, f"line {number}"), f"line {number}"))
            out.append(None)
        except InputError as err:
            out.append(ErrorRecord(f"line {number}", err.problems))
    judged = adjudicate_many(items, rules, changes, batch_size)
    results = [record if record is not None else next(judged) for record in out]
    return [(isinstance(r, ErrorRecord), r.to_json()) for r in results]


def _chunks(stream: IO[str], size: int, rules: str | None, changes: tuple[str, ...],
            batch_size: int) -> Iterator[Chunk]:
    numbered = ((n, line) for n, line in enumerate(stream, 1) if line.strip())
    while chunk := list(islice(numbered, size)):
        yield chunk, rules, changes, batch_size


def run_batch(source: str, target: str | None, rules: str | None, changes: Sequence[str],
              workers: int = 1, batch_size: int = 500) -> int:
    """Judge ``source`` (a path or '-') into ``target`` (a path, or standard output)."""
    stream = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
    out = sys.stdout if target is None else open(target, "w", encoding="utf-8")  # noqa: SIM115
    judged = errors = 0
    try:
        chunks = _chunks(stream, batch_size, rules, tuple(changes), batch_size)
        if workers > 1:
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(workers, maxtasksperchild=20) as pool:
                results: Iterator[list[tuple[bool, str]]] = pool.imap(judge_lines, chunks)
                judged, errors = _write(results, out)
        else:
            judged, errors = _write(map(judge_lines, chunks), out)
    finally:
        if stream is not sys.stdin:
            stream.close()
        if out is not sys.stdout:
            out.close()
    print(f"{judged} snapshot(s) judged, {errors} error record(s)", file=sys.stderr)
    return 0


def _write(results: Iterator[list[tuple[bool, str]]], out: IO[str]) -> tuple[int, int]:
    judged = errors = 0
    for lines in results:
        for is_error, line in lines:
            out.write(line + "\n")
            errors += is_error
            judged += not is_error
    return judged, errors
