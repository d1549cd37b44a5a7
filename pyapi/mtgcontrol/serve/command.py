"""``mtgcontrol serve [--host 127.0.0.1] [--port 8000] [--workers N] [--change FILE.lp]...``:
the rules as a web service and the workbench page (docs/serve.md).

Exit codes: 2 when it cannot start (a port in use, a bad option or proposal file,
workers that die as they start); 130 or 143 once stopped by SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..engine.api import InputError
from ..engine.solve import load_changes
from ..engine.validate import InputProblem, shown


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
