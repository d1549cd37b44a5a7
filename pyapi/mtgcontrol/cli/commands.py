"""The commands that judge snapshot files or hand over to a subpackage: adjudicate,
facts, explain, batch, test, rules, impact, verify, import, serve (check: check.py)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import catalog
from ..engine.api import InputError, adjudicate_many, load_snapshot, parse_json
from ..engine.files import read_input, write_output
from ..engine.ruling import Ruling
from ..engine.solve import load_changes
from ..engine.validate import InputProblem
from ..present.text import ruling_table


def changes_of(args: argparse.Namespace) -> tuple[str, ...]:
    from ..engine.proposals import check_switchable

    try:
        changes = load_changes(args.change)
    except OSError as err:
        raise InputError([InputProblem(str(err.filename), "--change",
                                       f"a readable proposal file ({err.strerror})")]) from None
    check_switchable(changes, args.change)
    return changes


def items_of(files: Sequence[str]) -> list[tuple[Any, str]]:
    items = []
    for name in files:
        if name == "-":
            items.append((parse_json(read_input("-"), "stdin"), "stdin"))
        else:
            items.append(load_snapshot(Path(name)))
    return items


def _judge(args: argparse.Namespace, items: list[tuple[object, str]] | None = None
           ) -> list[Ruling]:
    if args.rules is not None:
        catalog_check(args.rules)
    items = items_of(args.files) if items is None else items
    results = list(adjudicate_many(items, args.rules, changes_of(args)))
    found = [p for r in results if not isinstance(r, Ruling) for p in r.problems]
    if found:
        raise InputError(found)
    return results  # type: ignore[return-value]


def catalog_check(rules: str) -> None:
    """Fail early, as a usage error, on a version no supported version answers."""
    catalog.resolve(rules)


def cmd_adjudicate(args: argparse.Namespace) -> int:
    if args.format == "html":
        from ..present.pages import cmd_adjudicate_html

        return cmd_adjudicate_html(args, items_of(args.files), changes_of(args))
    rulings = _judge(args)
    return _write(args.output, "".join(
        (ruling_table(r) if args.format == "text" else r.to_json(indent=2)) + "\n"
        for r in rulings))


def cmd_facts(args: argparse.Namespace) -> int:
    from ..engine.api import version_for
    from ..engine.validate import problems
    from ..present.facts_text import facts_program

    if args.rules is not None:
        catalog_check(args.rules)
    doc, name = items_of([args.file])[0]
    found = problems(doc, name)
    if found:
        raise InputError(found)
    text = facts_program(doc, version_for(doc, args.rules, name), name)
    return _write(args.output, text)


def _write(output: str | None, text: str) -> int:
    """``text`` to standard output, or to FILE (``engine.files.write_output``)."""
    if output is None or output == "-":
        sys.stdout.write(text)
        return 0
    write_output(output, text)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from ..present.pages import cmd_explain as run

    return run(args, items_of([args.file])[0], changes_of(args))



def cmd_batch(args: argparse.Namespace) -> int:
    from ..batch.judge import Settings
    from ..batch.run import Run, run_batch

    if args.rules is not None:
        catalog_check(args.rules)
    if args.html is not None:
        from ..present.pages import check_page_options

        check_page_options(args)
    settings = Settings(args.rules, changes_of(args), args.batch_size, args.max_objects,
                        args.max_effects, args.max_memory)
    started = time.monotonic()
    code = run_batch(Run(args.input, args.output, settings, args.workers, args.timeout,
                         args.resume, args.dask, args.argv, args.worker_memory,
                         args.max_line_bytes))
    if args.html is not None and code in (0, 1):
        from ..present.pages import batch_summary_file

        batch_summary_file(args.output, args.html, args.lang, args.input,
                           time.monotonic() - started)
    return code


def cmd_test(args: argparse.Namespace) -> int:
    from ..scenarios import run_paths

    if args.rules is not None:
        catalog_check(args.rules)
        if args.update:
            raise InputError([InputProblem("mtgcontrol", "--update", "each scenario judged "
                                           "under its own versions (drop --rules)")])
    return run_paths([Path(p) for p in args.paths], changes_of(args), args.pattern, args.rules,
                     args.update)


def cmd_rules(args: argparse.Namespace) -> int:
    if args.rules_command == "diff":
        from ..release import cmd_rules_diff

        return cmd_rules_diff(args)
    from ..coverage import print_catalog, print_group

    if args.group is not None:
        return print_group(args.group)
    if args.version is not None:
        catalog_check(args.version)
    return print_catalog(catalog.resolve(args.version))


def cmd_impact(args: argparse.Namespace) -> int:
    from ..research import cmd_impact as run

    catalog_check(args.from_version)
    catalog_check(args.to_version)
    if args.format == "html":
        from ..present.pages import cmd_research_html

        return cmd_research_html("impact", run, args, changes_of(args))
    return run(args, changes_of(args))


def cmd_verify(args: argparse.Namespace) -> int:
    from ..research import cmd_verify as run

    if args.rules is not None:
        catalog_check(args.rules)
    if args.format == "html" and args.check_answers:
        raise InputError([InputProblem("mtgcontrol", "--format", "text or json with "
                                       "--check-answers (its report has no page)")])
    if args.format == "html":
        from ..present.pages import cmd_research_html

        return cmd_research_html("verify", run, args, changes_of(args))
    return run(args, changes_of(args))


def cmd_import(args: argparse.Namespace) -> int:
    from ..forge.command import cmd_import as run

    return run(args)


def cmd_serve(args: argparse.Namespace) -> int:
    from ..serve.command import cmd_serve as run

    return run(args)


