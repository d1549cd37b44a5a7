"""``mtgcontrol facts``: a snapshot's ASP facts as a file clingo can be run on by hand.

The facts are those the engine grounds (``engine.Frame`` with the plain clock, so
times are the snapshot's own), for snapshot number 1, followed by the rule
numbering of the chosen CR version (``number/3``) and, as comments, what each
integer id stands for.  docs/predicates.md ("Running clingo by hand") shows the
command line.
"""

from __future__ import annotations

from typing import Any

from .. import catalog
from ..engine.engine import Frame
from ..engine.solve import ENCODINGS, RULING_SHOW
from .text import escaped

SNAPSHOT = 1  # the snapshot number written as every snapshot atom's first argument
SPACES = {"p": "player", "o": "object", "e": "effect"}


def facts_program(doc: dict[str, Any], version: catalog.Version, name: str) -> str:
    """The fact file for one valid snapshot judged under ``version``."""
    frame = Frame.of(doc, version, fast=False)
    lines = [f"% {escaped(name)} under CR {version.name}: the facts of snapshot {SNAPSHOT} "
             "(docs/predicates.md)",
             "% run: python -m clingo "
             + " ".join(f"encodings/{e}.lp" for e in (*ENCODINGS, RULING_SHOW)) + " THIS_FILE"]
    for num, (space, ident) in enumerate(frame.names.names[1:], start=1):
        lines.append(f"% {num} = {SPACES[space]} {escaped(ident)}")  # never program text
    lines.append(frame.facts.replace("(#", f"({SNAPSHOT}"))
    lines.append(f"% the rule numbering of CR {version.name}")
    lines.append(catalog.numbering_facts(version))
    return "\n".join(lines) + "\n"
