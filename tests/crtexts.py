"""Where the tests find the CR text extracts: ``$MTGCONTROL_CR_DIR``, else the
``shared/cr`` folder beside the repository (as CI lays it out), else /work/shared/cr."""

from __future__ import annotations

import os
from pathlib import Path

_CANDIDATES = [Path(__file__).resolve().parents[1].parent / "shared" / "cr",
               Path("/work/shared/cr")]


def cr_dir() -> Path:
    if os.environ.get("MTGCONTROL_CR_DIR"):
        return Path(os.environ["MTGCONTROL_CR_DIR"])
    return next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])


CR_DIR = cr_dir()
