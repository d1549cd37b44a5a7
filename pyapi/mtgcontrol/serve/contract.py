"""What the service says about itself: its OpenAPI document (with the JSON Schemas the
package ships for snapshots and explanations) and the rules catalog as data."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from .. import catalog
from ..coverage import encodings_of
from ..present.lang import codes, language

FACTS = ("owner", "controller", "you", "default-controller", "fate", "may-activate")


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mtgcontrol")
    except PackageNotFoundError:
        return "unknown"


def schema(name: str) -> dict[str, Any]:
    """A JSON Schema of the package (``snapshot``, ``explanation``)."""
    root = resources.files("mtgcontrol.schema")
    data: dict[str, Any] = json.loads((root / f"{name}.schema.json").read_text("utf-8"))
    return data


@cache
def rules_document(version: str, lang: str) -> dict[str, Any]:
    """``GET /rules``: every catalog rule of a version (number, stable group id, encoding
    group, paraphrase in ``lang``, encoding files) and the rules in scope that snapshot/1
    cannot express, as ``mtgcontrol rules`` lists them (without the scenario counts)."""
    v = catalog.resolve(version)
    words = language(lang)

    def entry(rule: catalog.CatalogRule) -> dict[str, Any]:
        return {"number": rule.number, "group": rule.variant, "encoding_group": rule.group,
                "paraphrase": words.paraphrase(v, rule.group) or rule.paraphrase,
                "in_extract": rule.in_extract}

    order = sorted(v.rules, key=lambda r: catalog.rule_order(r.number))
    return {"version": v.name, "lang": lang,
            "versions": [x.name for x in catalog.versions()],
            "rules": [{**entry(r), "encodings": encodings_of(r.group)} for r in order],
            "unencoded": [{**entry(r), "reason": r.reason}
                          for r in sorted(v.unencoded, key=lambda r: catalog.rule_order(r.number))]}


# --- OpenAPI -----------------------------------------------------------------------

def _param(name: str, description: str, values: Any = None, required: bool = False
           ) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "string"}
    if values is not None:
        spec["enum"] = list(values)
    out: dict[str, Any] = {"name": name, "in": "query", "required": required,
                           "description": description, "schema": spec}
    return out


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/ErrorRecord"}}}}


def openapi(limits: dict[str, Any], proposals: list[str], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the service (``GET /openapi.json``)."""
    versions = [v.name for v in catalog.versions()]
    rules = _param("rules", "CR version to apply (a supported version, or any later date: "
                            f"the version in force that day): {', '.join(versions)}; "
                            "default: the snapshot's own `rules`, else the newest")
    changes = _param("changes", "names of proposal files the server was started with "
                                f"(`serve --change FILE.lp`), comma-separated: "
                                f"{', '.join(proposals) or 'none here'}")
    lang = _param("lang", "language of pages and explanations", codes())
    snapshot_body = {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Snapshot"}}}}
    bad = {"400": _error("bad input: the error record names the JSON path (or query "
                         "parameter) and what was expected, as the command line does"),
           "413": _error(f"a body over {limits['max_body_bytes']} bytes"),
           "422": _error(f"the snapshot could not be judged within the limits "
                         f"({limits['timeout']:g} s of CPU time; memory)"),
           "503": _error("the server is stopping, or too many requests are waiting")}

    def post(summary: str, params: list[dict[str, Any]], ok: dict[str, Any],
             body: dict[str, Any] = snapshot_body) -> dict[str, Any]:
        return {"post": {"summary": summary, "parameters": params, "requestBody": body,
                         "responses": {"200": ok, **bad}}}

    ruling_ok = {"description": "the ruling, exactly as `mtgcontrol adjudicate FILE` "
                                "writes it (format=html: `adjudicate --format html`'s page)",
                 "content": {"application/json": {"schema": {
                     "$ref": "#/components/schemas/Ruling"}},
                     "text/html": {"schema": {"type": "string"}}}}
    paths = {
        "/health": {"get": {"summary": "the service is up; its workers and versions",
                            "responses": {"200": {"description": "ok", "content": {
                                "application/json": {"schema": {"type": "object"}}}}}}},
        "/openapi.json": {"get": {"summary": "this document", "responses": {
            "200": {"description": "OpenAPI 3.1"}}}},
        "/rules": {"get": {"summary": "the rules catalog of a CR version",
                           "parameters": [_param("version", "default: the newest"), lang],
                           "responses": {"200": {"description": "the catalog", "content": {
                               "application/json": {"schema": {
                                   "$ref": "#/components/schemas/Catalog"}}}},
                                         "400": _error("an unknown version or language")}}},
        "/adjudicate": post("judge one snapshot", [
            rules, changes, _param("format", "json (default) or html", ("json", "html")),
            lang], ruling_ok),
        "/explain": post("why an object has its owner, controller, ...", [
            _param("object", "an object or ability id of the snapshot", required=True),
            _param("fact", "default: controller", FACTS),
            _param("why_not", "also say why this player does not hold the fact"),
            _param("format", "json (default: `explain --format json`), text or html",
                   ("json", "text", "html")), lang, rules, changes],
            {"description": "the explanation (`mtgcontrol explain`)", "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Explanation"}},
                "text/plain": {"schema": {"type": "string"}},
                "text/html": {"schema": {"type": "string"}}}}),
        "/check": post("violations, including claims that contradict the rules", [
            rules, changes, _param("causes", "true: a minimal cause (JSON paths) for each "
                                             "violation, as `check --causes`",
                                   ("true", "false"))],
            {"description": "the snapshot's violations", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Check"}}}}),
        "/batch": post("judge a JSON Lines body, streamed back in order", [rules, changes],
                       {"description": "one line per input line, as `mtgcontrol batch` "
                                       "writes it: a ruling or an error record",
                        "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
                       {"required": True, "description": "one snapshot per line; at most "
                        f"{limits['max_batch_bytes']} bytes, each line at most "
                        f"{limits['max_line_bytes']} bytes",
                        "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}),
    }
    problem = {"type": "object", "required": ["path", "expected"], "properties": {
        "path": {"type": "string"}, "expected": {"type": "string"}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "mtgcontrol", "version": version,
                 "description": "Magic: The Gathering ownership and control rulings "
                                "(docs/serve.md). Limits: " + json.dumps(limits)},
        "paths": paths,
        "components": {"schemas": {
            "Snapshot": schema("snapshot"),
            "Explanation": schema("explanation"),
            "Ruling": {"type": "object", "description": "docs/format.md, section 8",
                       "required": ["id", "rules", "objects", "violations"],
                       "properties": {"id": {"type": ["string", "null"]},
                                      "rules": {"type": "string"},
                                      "objects": {"type": "object"},
                                      "abilities": {"type": "object"},
                                      "planar_controller": {"type": ["string", "null"]},
                                      "controlled_players": {"type": "object"},
                                      "left_game": {"type": "object"},
                                      "choices": {"type": "array"},
                                      "violations": {"type": "array"}}},
            "Check": {"type": "object", "required": ["id", "rules", "violations"],
                      "properties": {"id": {"type": ["string", "null"]},
                                     "rules": {"type": "string"},
                                     "violations": {"type": "array"}}},
            "ErrorRecord": {"type": "object", "required": ["id", "error"], "properties": {
                "line": {"type": "integer"}, "id": {"type": ["string", "null"]},
                "error": {"type": "array", "items": problem}}},
            "Catalog": {"type": "object", "required": ["version", "lang", "rules"]},
        }},
    }
