"""``mtgcontrol serve [--host 127.0.0.1] [--port 8000] [--workers N] [--change FILE.lp]...``:
the rules as a web service and the workbench page (docs/serve.md).

Exit codes: 2 when it cannot start (a port in use, a bad option or proposal file,
workers that die as they start); 130 or 143 once stopped by SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..batch.judge import DEFAULT_MAX_EFFECTS, DEFAULT_MAX_OBJECTS
from ..batch.lines import DEFAULT_MAX_LINE_BYTES
from ..batch.workers import MAX_WORKERS
from ..engine.api import InputError
from ..engine.solve import load_changes
from ..engine.validate import InputProblem, shown

DEFAULTS: dict[str, Any] = {"timeout": 10.0, "max_batch_bytes": 1 << 30, "max_memory": 2048,
                            "worker_memory": 120, "max_waiting": 1000, "grace": 3.0}


def add_parser(sub: Any, positive_int: Any, positive_float: Any, worker_count: Any) -> None:
    """``serve``'s arguments (the command line's types for counts, seconds and workers)."""
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


def proposals(specs: list[str]) -> tuple[tuple[str, str], ...]:
    """``--change [NAME=]FILE.lp`` as (name, text), each read and checked as every
    command reads a proposal (``load_changes``: the size limit, no ``#include`` or
    ``#script``, parsed and grounded alone), so that a broken proposal stops the start,
    not every request naming it."""
    found: dict[str, str] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or "," in name:
            name, path = Path(spec).name.removesuffix(".lp"), spec
        if name in found:
            raise InputError([InputProblem("mtgcontrol", "--change", (
                f"proposals with distinct names (NAME=FILE.lp), got {shown(name)} twice"))])
        found[name] = load_changes([path])[0]
    return tuple(found.items())


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from .app import ServeConfig
        from .server import listening_socket, run
    except ImportError as err:
        print(f"mtgcontrol: serve needs the web stack ({err.name} is missing): "
              "pip install 'mtgcontrol[serve]'", file=sys.stderr)
        return 2
    config = ServeConfig(
        host=args.host, port=args.port, workers=args.workers, timeout=args.timeout,
        max_body_bytes=args.max_body_bytes, max_batch_bytes=args.max_batch_bytes,
        max_line_bytes=args.max_line_bytes, max_objects=args.max_objects,
        max_effects=args.max_effects, max_memory=args.max_memory,
        worker_memory=args.worker_memory, max_waiting=args.max_waiting, grace=args.grace,
        proposals=proposals(args.change), access_log=args.access_log)
    try:
        sock = listening_socket(args.host, args.port)
    except (OSError, OverflowError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        print(f"mtgcontrol: --host/--port: expected an address and port to listen on, "
              f"got {args.host}:{args.port} ({reason})", file=sys.stderr)
        return 2
    return run(config, sock)
