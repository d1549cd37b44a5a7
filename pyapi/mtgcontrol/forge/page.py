"""The ``import forge --html`` page: every claim of Forge's that the rules contradict,
linked to the object's row in its game state, each state with its objects."""

from __future__ import annotations

from typing import Any

from ..engine.api import adjudicate_many
from ..engine.ruling import Ruling
from ..present.lang import language
from ..present.pages import render, write_said
from .model import Record


def anchor(file: str, oid: str | None = None) -> str:
    return "state-" + file + ("" if oid is None else "--" + oid)


def state_view(doc: dict[str, Any], rec: Record, ruling: Ruling) -> dict[str, Any]:
    claims: dict[str, dict[str, Any]] = {}
    for c in doc.get("claims", []):
        claims.setdefault(c["object"], {}).update(c)
    expected = {oid: why for oid, why in rec.superseded}
    withheld = {oid: code for oid, _, code in rec.withheld}
    rows, disagreements = [], []
    for obj in doc["objects"]:
        oid = obj["id"]
        r = ruling.objects[oid]
        claim = claims.get(oid, {})
        bad = [fact for fact in ("owner", "controller")
               if fact in claim and claim[fact] != getattr(r, fact)]
        row = {"id": oid, "anchor": anchor(rec.file, oid), "name": obj.get("note", ""),
               "zone": obj["zone"], "forge_owner": claim.get("owner"),
               "forge_controller": claim.get("controller", withheld.get(oid, "–")),
               "owner": r.owner, "controller": r.controller, "bad": bad,
               "expected": expected.get(oid)}
        rows.append(row)
        for fact in bad:
            disagreements.append({"file": rec.file, "object": oid, "anchor": row["anchor"],
                                  "name": row["name"], "fact": fact, "forge": claim[fact],
                                  "rules": getattr(r, fact), "expected": expected.get(oid),
                                  "because": sorted({b.rule for b in r.because
                                                     if b.fact == fact})})
    return {"file": rec.file, "anchor": anchor(rec.file), "note": doc.get("note", ""),
            "record": rec.to_dict(), "rows": rows, "disagreements": disagreements,
            "effects": doc.get("effects", [])}


def write_page(path: str, results: list[tuple[dict[str, Any] | None, Record]]) -> None:
    """Judge the imported snapshots and write the page of disagreements to ``path``."""
    accepted = [(doc, rec) for doc, rec in results if doc is not None]
    rulings = list(adjudicate_many([(doc, rec.file) for doc, rec in accepted]))
    states = []
    for (doc, rec), ruling in zip(accepted, rulings, strict=True):
        if isinstance(ruling, Ruling):
            states.append(state_view(doc, rec, ruling))
    lang = language("en")
    disagreements = [d for s in states for d in s["disagreements"]]
    text = render("forge.html.j2", lang, title="Forge against the rules", states=states,
                  disagreements=disagreements,
                  refused=[r for _, r in results if r.status == "refused"],
                  stats=[("files", len(results)),
                         *((status, sum(r.status == status for _, r in results))
                           for status in ("imported", "partial", "refused")),
                         ("disagreements", len(disagreements)),
                         ("of them superseded placements",
                          sum(1 for d in disagreements if d["expected"]))])
    write_said(path, text, "--html")
