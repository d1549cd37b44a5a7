"""mtgcontrol: Magic: The Gathering ownership and control rules in ASP (clingo)."""

from .api import ErrorRecord, InputError, adjudicate, adjudicate_many, load_snapshot
from .ruling import Because, Choice, ObjectRuling, Ruling, Violation

__all__ = ["Because", "Choice", "ErrorRecord", "InputError", "ObjectRuling", "Ruling",
           "Violation", "adjudicate", "adjudicate_many", "load_snapshot"]
