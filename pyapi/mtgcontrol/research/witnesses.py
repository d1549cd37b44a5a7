"""Witnesses: the smallest snapshot found for each kind of difference (impact) or
failure (verify by enumeration) -- one record, built here -- and their rulings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import catalog
from ..engine.engine import RULING, Frame
from ..engine.facts import Names
from ..engine.ruling import EngineFault
from ..engine.validate import problems
from .views import Difference, research_engine, show_value


@dataclass(frozen=True)
class Witness:
    """A kind's witness: its size (objects + effects), the object(s) it is about, the
    snapshot, and for a difference the values on both sides and the cause."""

    size: int
    object: str
    snapshot: dict[str, Any]
    difference: tuple[Any, Any, list[list[str]]] | None = None  # from, to, cause

    def to_dict(self) -> dict[str, Any]:
        """The witness record of the reports (its rulings are added by `attach_rulings`)."""
        out: dict[str, Any] = {"size": self.size, "object": self.object,
                               "snapshot": self.snapshot}
        if self.difference is not None:
            out["from"], out["to"], out["cause"] = self.difference
        return out


def of_difference(size: int, diff: Difference, names: Names, doc: dict[str, Any]
                  ) -> dict[str, Any]:
    """A kind of difference's witness record: the snapshot, the object, the values on
    both sides, the cause."""
    return Witness(size, diff.subject(names), doc,
                   (show_value(diff.key, diff.before, names),
                    show_value(diff.key, diff.after, names),
                    [list(diff.cause[0]), list(diff.cause[1])])).to_dict()


def of_failure(size: int, subject: str, doc: dict[str, Any]) -> dict[str, Any]:
    """A failure's (verify by enumeration) witness record."""
    return Witness(size, subject, doc).to_dict()


def ruling_part(ruling: Any, object_id: str) -> dict[str, Any]:
    """What a ruling says about one object, with its `because`, fate, choices, violations."""
    data = ruling.to_dict()
    out: dict[str, Any] = {}
    obj = data["objects"].get(object_id)
    if obj is not None:
        out = {k: obj[k] for k in ("owner", "controller", "default_controller")}
        out["because"] = [f"{b['rule']} {b['fact']}: {b['via']}" for b in obj["because"]
                          if b["fact"] != "you"]
    if object_id in data["left_game"]:
        out["left_game"] = data["left_game"][object_id]
    choices = [c for c in data["choices"] if c["object"] == object_id]
    if choices:
        out["choices"] = choices
    if data["violations"]:
        out["violations"] = [f"{v['rule']} {v['code']}: {v['message']}"
                             for v in data["violations"]]
    return out


def explain(report: Any, v1: catalog.Version, v2: catalog.Version,
            changes: Sequence[str],
            frames: dict[Any, tuple[Frame | None, Frame | None]] | None = None
            ) -> None:
    """The witnesses' rulings under both sides: the ruling lens over the frames their
    views were judged from (``frames``, by kind), or over frames made here."""
    frames = frames or {}
    kinds = [(key, e.witness) for key, e in report.kinds.items() if e.witness is not None]
    witnesses = [w for _, w in kinds]
    attach_rulings(witnesses, v1.name, (), "ruling_from",
                    [frames.get(key, (None, None))[0] for key, _ in kinds])
    attach_rulings(witnesses, v2.name, changes, "ruling_to",
                    [frames.get(key, (None, None))[1] for key, _ in kinds])


def attach_rulings(witnesses: list[dict[str, Any]], version: str, changes: Sequence[str],
                   slot: str, frames: Sequence[Frame | None] = ()) -> None:
    """Each witness's ruling (the ruling lens) over its frame, where it has one."""
    engine = research_engine(tuple(changes))
    todo: list[tuple[dict[str, Any], Frame]] = []
    for i, w in enumerate(witnesses):
        if w["snapshot"].get("id") != "witness":
            w["snapshot"] = {"id": "witness", **w["snapshot"]}
        found = problems(w["snapshot"], "witness")
        if found:  # a generator bug: say so in the report
            w[slot] = {"violations": [f"invalid snapshot: {p}" for p in found]}
            continue
        frame = frames[i] if i < len(frames) else None
        todo.append((w, frame or engine.frame(w["snapshot"], catalog.resolve(version),
                                              raw=True)))
    rulings = engine.judge_each([f for _, f in todo], RULING) if todo else []
    for (w, _), ruling in zip(todo, rulings, strict=True):
        if isinstance(ruling, EngineFault):  # an engine bug the search found: say so
            w[slot] = {"violations": [f"engine fault: {ruling}"]}
            continue
        w[slot] = ruling_part(ruling, w["object"].split(",")[0])
