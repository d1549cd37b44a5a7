"""The editorial normal form of rule texts (typography, gender-neutral pronouns) and
the small helpers over rule numbers and texts that matching and reporting share."""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from functools import cache

_QUOTES = str.maketrans({c: '"' for c in "“”„‟″«»"} | {c: "'" for c in "‘’‚‛′`"})
_DASHES = re.compile(r"\s*[‐‑‒–—―−-]+\s*")
_ELLIPSIS = re.compile(r"\.\s*\.\s*\.|…")
SPACES = re.compile(r"\s+")
_PRONOUNS = (
    (re.compile(r"\bhimself or herself\b"), "themselves"),
    (re.compile(r"\bHimself or herself\b"), "Themselves"),
    (re.compile(r"\bhim or her\b"), "them"),
    (re.compile(r"\bhis or her\b"), "their"),
    (re.compile(r"\bHis or her\b"), "Their"),
)
_HE_OR_SHE = re.compile(r"\b([Hh])e or she(?: (\w+(?:n't)?))?")
_PLURAL = {"is": "are", "has": "have", "does": "do", "was": "were", "isn't": "aren't",
           "doesn't": "don't", "hasn't": "haven't", "wasn't": "weren't", "goes": "go"}
CONTROL_WORD = re.compile(
    r"\b(?:control(?:s|led|ling|ler|lers)?|owner(?:s)?|own(?:s|ed)?)\b", re.IGNORECASE)


def fold(text: str) -> str:
    """Typography folded: quotes, dashes and hyphens (``once—the``, ``once -- the``,
    ``603.7d–f`` become ``once-the``, ``603.7d-f``), ellipses, whitespace."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _ELLIPSIS.sub(" . . . ", text)
    text = _DASHES.sub("-", text)
    return SPACES.sub(" ", text).strip()


def _plural(verb: str) -> str:
    low = verb.lower()
    if low in _PLURAL:
        return _PLURAL[low]
    if len(low) > 4 and low.endswith("ies"):
        return verb[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes")):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return verb[:-1]
    return verb


def _they(found: re.Match[str]) -> str:
    they = "They" if found.group(1) == "H" else "they"
    return f"{they} {_plural(found.group(2))}" if found.group(2) else they


@cache
def normalise(text: str) -> str:
    """`fold` plus the gender-neutral pronoun changes: the editorial normal form."""
    text = fold(text)
    for pattern, plain in _PRONOUNS:
        text = pattern.sub(plain, text)
    return _HE_OR_SHE.sub(_they, text)


def ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def family(number: str) -> str:
    return number.rstrip("abcdefghijklmnopqrstuvwxyz")


def parents(number: str) -> list[str]:
    """``720.5a`` -> ``["720.5", "720"]``; ``720.5`` -> ``["720"]``."""
    found = [number.partition(".")[0]]
    if family(number) != number:
        found.insert(0, family(number))
    return found
