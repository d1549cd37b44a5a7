"""The command line's parser: one function per command declares that command's
arguments and their defaults (research.py: impact and verify; services.py: import
and serve)."""

from __future__ import annotations

import argparse
from typing import Any

from ..engine.validate import positive_int
from .messages import Parser
from .options import (
    EPILOG,
    VersionAction,
    change_option,
    common,
    file_options,
    limits,
    page_options,
    rules_option,
    worker_count,
)

Commands = Any  # argparse's subparsers action (a private class)


def build_parser() -> argparse.ArgumentParser:
    from .research import impact_parser, verify_parser
    from .services import import_parser, serve_parser

    parser = Parser(
        prog="mtgcontrol", epilog=EPILOG,
        description="Judge who owns and who controls every object in Magic: The Gathering "
                    "game snapshots, by the Comprehensive Rules encoded in ASP.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (adjudicate_parser, facts_parser, explain_parser, batch_parser, check_parser,
                test_parser, rules_parser, impact_parser, verify_parser, import_parser,
                serve_parser):
        add(sub)
    return parser


def adjudicate_parser(sub: Commands) -> None:
    p = sub.add_parser("adjudicate", help="print the ruling for snapshot files",
                       description="Print the ruling (JSON, or a readable table) for each "
                                   "snapshot file; '-' reads one snapshot from standard input.")
    p.add_argument("files", nargs="+", metavar="FILE|-")
    p.add_argument("--format", choices=("json", "text", "html"), default="json",
                   help="json (default, the ruling of the spec), text (a table) or html "
                        "(a page with every derivation; needs -o)")
    common(p)
    page_options(p)
    file_options(p, ("files", "change"), [("output", "-o")])


def facts_parser(sub: Commands) -> None:
    p = sub.add_parser("facts", help="print a snapshot's ASP facts (to run clingo by hand)",
                       description="Print the facts the engine grounds for one snapshot, the "
                                   "rule numbering of its CR version, and what each integer "
                                   "id stands for: a file to run clingo on with the "
                                   "encodings (docs/predicates.md, 'Running clingo by "
                                   "hand').")
    p.add_argument("file", metavar="FILE|-")
    rules_option(p, "CR version, or any later date; default: the snapshot's own `rules`, "
                    "else the newest")
    p.add_argument("-o", "--output", metavar="FILE", help="default: standard output")
    file_options(p, ("file",), [("output", "-o")])


def explain_parser(sub: Commands) -> None:
    p = sub.add_parser("explain", help="why an object has its owner, controller, ...",
                       description="The derivation of one fact of one object as a tree: each "
                                   "rule applied (numbered as in the chosen CR version, with "
                                   "a paraphrase), the snapshot facts it rests on (JSON "
                                   "paths), the derivations it uses, and the control effects "
                                   "that lost and why.  JSON schema: docs/explain.md.")
    p.add_argument("file", metavar="FILE|-")
    p.add_argument("object", metavar="OBJECT", help="an object or ability id of the snapshot")
    p.add_argument("--fact", default="controller",
                   choices=("owner", "controller", "you", "default-controller", "fate",
                            "may-activate"), help="default: controller")
    p.add_argument("--why-not", metavar="PLAYER",
                   help="also say why PLAYER does not hold the fact")
    p.add_argument("--format", choices=("text", "json", "html"), default="text")
    common(p)
    page_options(p)
    file_options(p, ("file", "change"), [("output", "-o")])


def batch_parser(sub: Commands) -> None:
    from ..batch.judge import DEFAULT_WORKER_MEMORY
    from ..batch.progress import EXIT_CODES
    from ..batch.workers import MAX_WORKERS

    p = sub.add_parser(
        "batch", help="judge a JSON Lines file of snapshots, in order",
        epilog=EXIT_CODES[0].upper() + EXIT_CODES[1:] + ".",
        description="Judge one snapshot per line; write exactly one line per input line, in "
                    "the same order: the ruling, or an error record {\"line\", \"id\", "
                    "\"error\": [{\"path\", \"expected\"}]} for a blank, broken or invalid "
                    "line, one over the limits, or one that takes longer than --timeout.  "
                    "Every other line is still judged.  A worker process that dies is "
                    "replaced and its lines judged again.  IN and OUT may be '-' "
                    "(standard input/output) and may end in .gz.  Ctrl-C or SIGTERM stops "
                    "with whole lines written; --resume continues.  A progress bar is shown "
                    "when standard error is a terminal; a summary at the end.")
    p.add_argument("input", metavar="IN.jsonl|-")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", help="default: standard output")
    p.add_argument("--workers", type=worker_count, default=1,
                   help=f"worker processes (default 1, at most {MAX_WORKERS}: 4 per core); "
                        "with --dask local, Dask workers")
    p.add_argument("--batch-size", type=positive_int, default=100,
                   help="lines per chunk: what a worker judges at a time and the output "
                        "written together (default 100; the engine grounds up to 128 "
                        "snapshots at a time, whatever the chunk)")
    limits(p)
    p.add_argument("--worker-memory", type=positive_int, default=DEFAULT_WORKER_MEMORY,
                   metavar="MB", help=f"replace a worker process once its memory has "
                                      f"peaked over MB megabytes by the end of a chunk (default "
                                      f"{DEFAULT_WORKER_MEMORY}; clingo never frees memory)")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run: keep the whole lines of -o and judge "
                        "the rest (the finished file equals an undisturbed run's)")
    p.add_argument("--dask", metavar="ADDRESS|local",
                   help="judge on a Dask distributed cluster (scheduler address, e.g. "
                        "tcp://host:8786, or 'local' for a LocalCluster of --workers "
                        "processes); needs `pip install mtgcontrol[dask]`")
    common(p)
    p.add_argument("--html", metavar="PAGE.html",
                   help="also write a summary page of the results (needs -o)")
    p.add_argument("--lang", default="en", metavar="en|fr|it",
                   help="language of the summary page (default en)")
    file_options(p, ("input", "change"), [("output", "-o"), ("html", "--html")])


def check_parser(sub: Commands) -> None:
    p = sub.add_parser("check", help="report violations and claims that contradict the rules",
                       description="Judge snapshot files and list their violations, including "
                                   "`claims` that contradict the rules.  A FILE ending in "
                                   ".jsonl or .jsonl.gz is a corpus, one snapshot per line: "
                                   "each violation and each bad line is listed as FILE:LINE, "
                                   "with a progress bar on a terminal and a summary.  Each "
                                   "snapshot is judged in a worker process within the limits "
                                   "below; one over them is listed as an error.  Exit 1 if "
                                   "any violation, bad line or snapshot over a limit, 2 on "
                                   "unreadable input.")
    p.add_argument("files", nargs="+", metavar="FILE|-")
    p.add_argument("--format", choices=("text", "html"), default="text",
                   help="text (default) or html (a summary page; needs -o)")
    p.add_argument("--causes", action="store_true",
                   help="for each violation, a minimal set of the snapshot's parts (JSON "
                        "paths) that still causes it")
    common(p)
    page_options(p)
    limits(p)
    file_options(p, ("files", "change"), [("output", "-o")])


def test_parser(sub: Commands) -> None:
    p = sub.add_parser("test", help="run scenario files (snapshot + expected ruling)",
                       description="Run every scenario file (*.yaml) under the given folders "
                                   "or files and show a diff for each failure, with a progress "
                                   "bar on a terminal.  Exit 1 if any fails.")
    p.add_argument("paths", nargs="+", metavar="DIR|FILE")
    change_option(p)
    p.add_argument("-k", dest="pattern", metavar="PATTERN",
                   help="only the scenario files whose path or intent contains PATTERN "
                        "(any case)")
    rules_option(p, "judge every scenario under this CR version instead of its own "
                    "`rules` (compared with the expectations for that version)")
    p.add_argument("--update", action="store_true",
                   help="after a deliberate rules change: rewrite the expectations that "
                        "no longer match (only what they state) and print each file's diff")
    file_options(p, ("paths", "change"))


def rules_parser(sub: Commands) -> None:
    p = sub.add_parser("rules", help="the rules catalog with its coverage; `rules diff`",
                       description="List, for a CR version, every rule number this project "
                                   "encodes, a paraphrase, the encoding file and the scenarios "
                                   "that cover it.  `mtgcontrol rules diff OLD.txt NEW.txt` "
                                   "compares two CR text files.")
    p.add_argument("--version", metavar="DATE", help="default: the newest")
    p.add_argument("--group", metavar="ID", help="one rule group (stable id, as listed): its "
                                                 "numbers by release and its meanings")
    rules_sub = p.add_subparsers(dest="rules_command", metavar="[diff]")
    d = rules_sub.add_parser("diff", help="ownership/control rules changed between two CR texts",
                             description="List the ownership and control rules whose text "
                                         "changed, appeared or disappeared between two CR "
                                         "files in the official plain-text format, matched "
                                         "across renumbering, with the encodings citing them.")
    d.add_argument("old", metavar="OLD.txt")
    d.add_argument("new", metavar="NEW.txt")
    d.add_argument("--format", choices=("text", "json"), default="text")
    d.add_argument("--catalog-draft", metavar="FILE.toml",
                   help="write the rules catalog with the new release and its renumberings "
                        "applied (docs/new-cr-release.md)")
    file_options(d, ("old", "new"), [("catalog_draft", "--catalog-draft")])

