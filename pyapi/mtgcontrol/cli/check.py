"""``mtgcontrol check``: the violations of snapshot files and corpora, one line each,
each snapshot judged in a worker process within the limits (as batch judges)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from .. import catalog
from ..engine.api import InputError
from ..engine.validate import InputProblem
from ..present.text import escaped
from .commands import catalog_check, changes_of, items_of


def cmd_check(args: argparse.Namespace) -> int:
    corpora = [f for f in args.files if f.endswith((".jsonl", ".jsonl.gz"))]
    singles = [f for f in args.files if f not in corpora]
    if args.format == "html" and corpora:
        print("mtgcontrol: --format html: expected snapshot files, not .jsonl corpora",
              file=sys.stderr)
        return 2
    if args.rules is not None:
        catalog_check(args.rules)
    started = time.monotonic()
    settings = _check_settings(args)
    bad = 0
    if singles:
        items = items_of(singles)
        found = [p for doc, name in items for p in _snapshot_problems(doc, name, args.rules)]
        if found:
            raise InputError(found)
        records = _judged(args, settings, [json.dumps(doc).encode() for doc, _ in items])
        if args.format == "html":
            from ..present.pages import cmd_check_html

            return cmd_check_html(args, records, time.monotonic() - started)
        for (doc, name), record in zip(items, records, strict=True):
            bad += _print_check(escaped(record.get("id") or name), record,
                                doc if args.causes else None, args)
        if not bad and not corpora:
            print(f"{len(records)} snapshot(s): no violations")
    for corpus in corpora:
        bad += _check_corpus(corpus, args, settings)
    return 1 if bad else 0


def _check_settings(args: argparse.Namespace) -> Any:
    from ..batch.judge import Settings

    return Settings(args.rules, changes_of(args), max_objects=args.max_objects,
                    max_effects=args.max_effects, max_memory=args.max_memory)


def _snapshot_problems(doc: Any, name: str, rules: str | None) -> list[InputProblem]:
    """A snapshot file's problems, and an unknown version it names."""
    from ..engine.api import version_for
    from ..engine.validate import problems

    found = problems(doc, name)
    if not found:
        try:
            version_for(doc, rules, name)
        except InputError as err:
            found = err.problems
    return found


def _judged(args: argparse.Namespace, settings: Any, texts: list[bytes]) -> list[Any]:
    """Snapshots (JSON texts) judged in a worker process within check's limits: a ruling
    or an error record each, as JSON data."""
    from contextlib import closing

    from ..batch.lines import chunks
    from ..batch.run import pool

    lines = list(enumerate(texts, 1))
    with closing(pool(settings, 1, args.timeout).run(chunks(lines, 100))) as results:
        return [json.loads(text) for chunk in results for _, text in chunk]


def _print_check(where: str, record: dict[str, Any], doc: Any,
                 args: argparse.Namespace) -> int:
    """A snapshot's violations (or its error record), one line each; their count.
    ``doc``: the snapshot, when a minimal cause is wanted for each violation."""
    if "error" in record:
        for p in record["error"]:
            print(escaped(f"{where}: {p['path']}: expected {p['expected']}"))
        return 1
    causes = _causes(args, doc, record) if doc is not None and record["violations"] else {}
    for v in record["violations"]:
        print(f"{where}: {v['rule']} {v['code']}: {escaped(v['message'])}")
        if doc is not None:
            print(f"  minimal cause: {', '.join(causes.get(_vkey(v), ['?']))}")
    return len(record["violations"])


def _check_corpus(source: str, args: argparse.Namespace, settings: Any) -> int:
    """Violations and error records of a JSON Lines corpus, one line each; their count.
    Its lines are judged as batch judges them, within the same limits."""
    from contextlib import closing

    from ..batch.lines import Line, chunks, count_lines, numbered, open_input
    from ..batch.progress import Bar, summary
    from ..batch.run import pool

    started = time.monotonic()
    stream = open_input(source)
    judged = errors = violations = 0
    numbers: deque[list[int]] = deque()  # of the chunks handed to the workers, in order

    def numbered_chunks() -> Iterator[list[Line]]:
        for chunk in chunks(numbered(stream, max_bytes=args.max_line_bytes),
                            settings.batch_size):
            numbers.append([number for number, _ in chunk])
            yield chunk

    try:
        with Bar(count_lines(source) if sys.stderr.isatty() else None) as bar, \
                closing(pool(settings, 1, args.timeout).run(numbered_chunks())) as results:
            for chunk in results:
                for number, (is_error, text) in zip(numbers.popleft(), chunk, strict=True):
                    record = json.loads(text)
                    where = f"{source}:{number}" + (f" {escaped(record['id'])}"
                                                    if record.get("id") else "")
                    count = _print_check(where, record, None, args)
                    errors += is_error
                    judged += not is_error
                    violations += 0 if is_error else count
                bar.update(len(chunk))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    print(f"{source}: {violations} violation(s); "
          + summary(judged + errors, judged, errors, time.monotonic() - started),
          file=sys.stderr)
    return violations + errors


def _vkey(v: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    return (v["rule"], v["code"], tuple(v["objects"]))


def _causes(args: argparse.Namespace, doc: dict[str, Any],
            record: dict[str, Any]) -> dict[object, list[str]]:
    from ..engine.causes import minimal_causes

    version = catalog.resolve(record["rules"])
    return {(c.violation.rule, c.violation.code, tuple(c.violation.objects)): c.paths
            for c in minimal_causes(doc, version, changes_of(args))}
