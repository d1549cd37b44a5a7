"""The engine: a snapshot's JSON read and checked, translated to facts (``Frame``),
judged with the encodings (``Engine``) and read back into a ruling."""

from .engine import Engine, Frame, Phases

__all__ = ["Engine", "Frame", "Phases"]
