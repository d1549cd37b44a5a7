"""mtgcontrol: Magic: The Gathering ownership and control rules in ASP (clingo).

The package is layered (tests/test_architecture.py): ``catalog`` (the rule data),
``engine`` (snapshot -> facts -> rulings), ``batch`` (lines, workers, Dask),
``present`` (text, pages, languages, explanations), ``research``, ``forge``, and
the applications (``cli``, ``scenarios``, ...).  A lower layer never imports a
higher one; the one call that runs upwards, a ruling's page in Jupyter, is
registered here.
"""

from typing import Any

from .engine import ruling as _ruling
from .engine.api import ErrorRecord, InputError, adjudicate, adjudicate_many, load_snapshot
from .engine.ruling import Because, Choice, ObjectRuling, Ruling, Violation


def _notebook_view(shown: Any) -> str:
    from .present.pages import notebook_html  # jinja2 and the templates: on first use

    return notebook_html(shown)


_ruling.notebook_view = _notebook_view

__all__ = ["Because", "Choice", "ErrorRecord", "InputError", "ObjectRuling", "Ruling",
           "Violation", "adjudicate", "adjudicate_many", "load_snapshot"]
