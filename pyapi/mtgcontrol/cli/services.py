"""The arguments of ``import forge`` and ``serve``."""

from __future__ import annotations

from typing import Any

from ..engine.validate import positive_int
from .options import positive_float, worker_count

# serve's defaults (docs/serve.md, Limits).
DEFAULTS: dict[str, Any] = {"timeout": 10.0, "max_batch_bytes": 1 << 30, "max_memory": 2048,
                            "worker_memory": 120, "max_waiting": 1000, "grace": 3.0}


def import_parser(sub: Any) -> None:
    from ..forge.command import DEFAULT_MAX_CARDS

    p = sub.add_parser("import", help="read another engine's game states as snapshots",
                       description="Turn game states of another engine into snapshot/1 "
                                   "lines whose `claims` are that engine's owners and "
                                   "controllers, for `check`/`batch`.  docs/forge.md.")
    engines = p.add_subparsers(dest="engine", required=True, metavar="ENGINE")
    f = engines.add_parser("forge", help="Forge puzzles (.pzl) and dev-mode state dumps",
                           description="Each Forge game state (puzzle .pzl or dev-mode dump) "
                                       "becomes one snapshot/1 line with Forge's owners and "
                                       "controllers as claims; a DIR gives its *.pzl, "
                                       "*.pzl.example and *.txt files (not recursive), sorted "
                                       "by name.  Exit 0 all imported, 1 a file refused or "
                                       "partly imported, 2 usage.")
    f.add_argument("files", nargs="+", metavar="FILE|DIR")
    f.add_argument("-o", "--output", metavar="OUT.jsonl|-", default="-",
                   help="the snapshots, one per line (default: standard output)")
    f.add_argument("--report", metavar="REPORT.json",
                   help="one record per file: status, reason, left_out, withheld, "
                        "superseded, notes, counts")
    f.add_argument("--forge-res", metavar="DIR",
                   help="Forge's res/ folder (cardsfolder/ or cardsfolder.zip, "
                        "tokenscripts/); without it, no controller claims are made")
    f.add_argument("--html", metavar="PAGE.html",
                   help="also judge the snapshots and write a page of the disagreements")
    f.add_argument("--max-cards", type=positive_int, default=DEFAULT_MAX_CARDS, metavar="N",
                   help=f"cards in one file at most (default {DEFAULT_MAX_CARDS}); a file "
                        "with more is refused (too-many-cards)")
    f.set_defaults(reads=(), writes=(("output", "-o"), ("report", "--report"),
                                     ("html", "--html")))


def serve_parser(sub: Any) -> None:
    from ..batch.judge import DEFAULT_MAX_EFFECTS, DEFAULT_MAX_OBJECTS
    from ..batch.lines import DEFAULT_MAX_LINE_BYTES
    from ..batch.workers import MAX_WORKERS

    p = sub.add_parser(
        "serve", help="the rules as a web service, with a workbench page",
        description="Serve rulings over HTTP: POST /adjudicate, /explain, /check, /batch "
                    "(the bytes the commands write), GET /rules, /health, /openapi.json, "
                    "and the workbench page at /.  Each worker process keeps its engine "
                    "warm; requests that arrive together are judged together.  Stop with "
                    "SIGTERM or Ctrl-C: requests in flight are finished (or answered 503 "
                    "after --grace seconds).  API and limits: docs/serve.md.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000,
                   help="port to listen on (default 8000; 0: any free port, printed)")
    p.add_argument("--workers", type=worker_count, default=1,
                   help=f"judging processes (default 1, at most {MAX_WORKERS}: 4 per core, "
                        "as batch)")
    p.add_argument("--change", metavar="[NAME=]FILE.lp", action="append", default=[],
                   help="a proposal file requests may name (?changes=NAME; NAME defaults to "
                        "the file's name without .lp); repeatable.  Requests never send "
                        "program text")
    p.add_argument("--timeout", type=positive_float, default=DEFAULTS["timeout"],
                   metavar="SECONDS", help="CPU time a request's snapshot may take (default "
                   f"{DEFAULTS['timeout']:g}): over it, a 422 error record")
    p.add_argument("--max-body-bytes", type=positive_int, default=DEFAULT_MAX_LINE_BYTES,
                   metavar="N", help="largest body of /adjudicate, /explain, /check (default "
                   f"{DEFAULT_MAX_LINE_BYTES}): over it, 413")
    p.add_argument("--max-batch-bytes", type=positive_int, default=DEFAULTS["max_batch_bytes"],
                   metavar="N", help=f"largest /batch body (default {DEFAULTS['max_batch_bytes']})")
    p.add_argument("--max-line-bytes", type=positive_int, default=DEFAULT_MAX_LINE_BYTES,
                   metavar="N", help=f"longest /batch line judged (default "
                   f"{DEFAULT_MAX_LINE_BYTES}); a longer one is an error record")
    p.add_argument("--max-objects", type=positive_int, default=DEFAULT_MAX_OBJECTS, metavar="N",
                   help=f"objects per snapshot at most (default {DEFAULT_MAX_OBJECTS})")
    p.add_argument("--max-effects", type=positive_int, default=DEFAULT_MAX_EFFECTS, metavar="N",
                   help=f"effects per snapshot at most (default {DEFAULT_MAX_EFFECTS})")
    p.add_argument("--max-memory", type=positive_int, default=DEFAULTS["max_memory"],
                   metavar="MB", help="data memory a worker may hold (default "
                   f"{DEFAULTS['max_memory']}): a snapshot needing more is a 422")
    p.add_argument("--worker-memory", type=positive_int, default=DEFAULTS["worker_memory"],
                   metavar="MB", help="replace a worker once its memory has peaked over MB "
                   f"(default {DEFAULTS['worker_memory']})")
    p.add_argument("--max-waiting", type=positive_int, default=DEFAULTS["max_waiting"],
                   metavar="N", help="requests waiting for a worker at most (default "
                   f"{DEFAULTS['max_waiting']}): more are answered 503")
    p.add_argument("--grace", type=positive_float, default=DEFAULTS["grace"], metavar="SECONDS",
                   help="after SIGTERM or SIGINT, seconds the requests in flight have to "
                        f"finish (default {DEFAULTS['grace']:g}); then they are answered 503 "
                        "and the server exits (within a second)")
    p.add_argument("--access-log", action="store_true", help="log every request")
