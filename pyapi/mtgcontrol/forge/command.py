"""``mtgcontrol import forge FILE|DIR... [-o OUT.jsonl|-] [--report R.json]
[--forge-res DIR] [--html PAGE.html]``.

One snapshot line per accepted file, one report record per file (refused
files included); a summary on standard error.  Exit 0 when every file was
imported whole, 1 when some file was refused or partly imported, 2 on usage,
3 when an output could not be written to the end.

The reading is bounded: a game file of at most `MAX_FILE_BYTES` and ``--max-cards``
cards (else the file is refused), a res folder within cardscript's limits (else a
usage error); a file in a folder given here that links outside it is refused, and
every name printed is shown escaped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..engine.api import InputError
from ..engine.files import TooLarge, check_outputs, read_bounded, write_output
from ..engine.validate import InputProblem
from ..present.text import escaped
from .cardscript import CardData, ResError
from .gamestate import Refused, parse
from .model import Record
from .translate import translate

SUFFIXES = (".pzl", ".pzl.example", ".txt")
MAX_FILE_BYTES = 2**20
"""Bytes of one game file at most: a puzzle has a few KB, a dump of a long game tens."""
DEFAULT_MAX_CARDS = 2000
"""Cards (zone entries) of one game file at most: the objects a snapshot may have in
batch (--max-objects); a puzzle has tens."""


def files_of(names: list[str]) -> list[tuple[Path, str | None]]:
    """The files to read, each with the folder it was found in when it is a link out of
    that folder (such a file is refused, not read)."""
    out: list[tuple[Path, str | None]] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            root = path.resolve()
            out += [(p, None if p.resolve().is_relative_to(root) else name)
                    for p in sorted(path.iterdir(), key=lambda p: p.name)
                    if p.is_file() and p.name.endswith(SUFFIXES)]
        else:
            out.append((path, None))
    return out


def import_file(path: Path, cards: CardData | None, max_cards: int = DEFAULT_MAX_CARDS,
                folder: str | None = None) -> tuple[dict[str, Any] | None, Record]:
    """One file: its snapshot (None if refused) and its report record.  ``folder``: the
    folder it was found in, when it is a link out of that folder (then it is not read)."""
    def refused(reason: str) -> tuple[None, Record]:
        return None, Record(path.name, "unknown", "refused", reason)

    if folder is not None:
        return refused(f"link-outside-folder: a link to a file outside {folder}: not read")
    try:
        data = read_bounded(path, MAX_FILE_BYTES)
    except TooLarge:
        return refused(f"file-too-large: over {MAX_FILE_BYTES} bytes")
    except OSError as err:
        return refused(f"unreadable: {err.strerror}")
    try:
        game = parse(data, path.name)
    except Refused as err:
        return refused(f"{err.code}: {err.detail}")
    if len(game.entries) > max_cards:
        return None, Record(path.name, game.kind, "refused", (
            f"too-many-cards: {len(game.entries)} cards, at most {max_cards} (--max-cards)"))
    return translate(game, cards)


def summary(records: list[Record]) -> str:
    status = [r.status for r in records]
    owner = sum(r.counts.get("owner_claims", 0) for r in records)
    control = sum(r.counts.get("controller_claims", 0) for r in records)
    return (f"{len(records)} file(s): {status.count('imported')} imported, "
            f"{status.count('partial')} partial, {status.count('refused')} refused; "
            f"{owner + control} claims ({owner} owner, {control} controller); "
            f"{sum(len(r.superseded) for r in records)} superseded placements")


def cmd_import(args: argparse.Namespace) -> int:
    paths = files_of(args.files)
    if not paths:
        raise InputError([InputProblem("command line", "FILE|DIR", "at least one Forge "
                                       "file (*.pzl, *.pzl.example, *.txt)")])
    # Every file read (the game files, the card and token scripts) is held apart from
    # the outputs.
    res = [] if args.forge_res is None else [
        Path(args.forge_res) / name for name in ("cardsfolder", "cardsfolder.zip",
                                                 "tokenscripts")]
    check_outputs([*(p for p, _ in paths), *(p for p in res if p.exists())],
                  [(flag, getattr(args, dest)) for dest, flag in args.writes])
    cards = None
    if args.forge_res is not None:
        try:
            cards = CardData(Path(args.forge_res))
        except (OSError, ValueError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            what = "a Forge res folder" + ("" if isinstance(err, ResError) else " (")
            raise InputError([InputProblem("command line", "--forge-res", (
                f"{what} with {reason}" if isinstance(err, ResError) else
                f"{what}{reason})"))]) from None
        if cards.outside:
            print(escaped(f"mtgcontrol: --forge-res: {len(cards.outside)} card script(s) "
                          f"not read: links to files outside {args.forge_res} (first: "
                          f"{cards.outside[0]})"), file=sys.stderr)
    results = [import_file(p, cards, args.max_cards, outside) for p, outside in paths]
    lines = [json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
             for doc, _ in results if doc is not None]
    if args.output == "-":
        sys.stdout.writelines(lines)
        sys.stdout.flush()
    else:
        write_output(args.output, "".join(lines))
    if args.report:
        write_output(args.report, json.dumps([r.to_dict() for _, r in results], indent=1,
                                             ensure_ascii=False) + "\n", "--report")
    records = [r for _, r in results]
    for r in records:
        if r.status == "refused":
            print(escaped(f"{r.file}: refused: {r.reason}"), file=sys.stderr)
    print(summary(records), file=sys.stderr)
    if args.html:
        from .page import write_page

        write_page(args.html, results)
    return 0 if all(r.status == "imported" for r in records) else 1
