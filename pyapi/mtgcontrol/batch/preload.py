"""What the batch workers' fork server loads once for every worker (workers.PRELOAD).

Importing this module imports the package and fills its caches: both schema
validators and the default engine with its program parsed, so that a worker forked
from the server judges its first line without that start-up.  Nothing here is
needed: should loading fail (a broken ``MTGCONTROL_CATALOG``, say), each worker
loads what it needs itself and reports the problem as it would have anyway.
"""

from __future__ import annotations

from . import run  # noqa: F401 - what every worker runs

try:
    from ..engine import api, validate

    validate._compiled()
    validate._validator()
    api.engine_for((), api.fast_default()).parsed_program()
except Exception:  # noqa: BLE001, S110 - only a head start; the workers will say what is wrong
    pass
