"""Self-contained HTML pages (jinja2, inline CSS and SVG, no network at view time)
and the commands that write them: ``adjudicate``/``explain``/``check``
``--format html``, ``batch --html``, ``impact``/``verify --format html``.

Pages only show what the rulings and explanations hold; layout (where a box
or an arrow goes) is the only thing computed here.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from .. import catalog
from ..engine.api import InputError
from ..engine.facts import ACTIVE, first_player, snapshot_now
from ..engine.files import write_output
from ..engine.validate import InputProblem, shown
from .explain import FACTS, Explained, by_rule, explain, known_object, to_document
from .explain_text import explanation_text
from .lang import Lang, UnknownLanguage, language
from .text import cited_rules, escaped

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2")


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("mtgcontrol.present", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["tojson_compact"] = lambda v: json.dumps(v, ensure_ascii=False,
                                                         separators=(", ", ": "))
    return env


def render(template: str, lang: Lang, **context: Any) -> str:
    return environment().get_template(template).render(lang=lang, L=lang.label, by_rule=by_rule,
                                                        **context)


# --- Layout of one snapshot ----------------------------------------------------

@dataclass
class Box:
    id: str
    x: int
    y: int
    w: int
    h: int
    label: str
    color: str

    @property
    def cx(self) -> int:
        return self.x + self.w // 2

    @property
    def cy(self) -> int:
        return self.y + self.h // 2


@dataclass
class Arrow:
    effect: str
    source: str
    target: str
    path: str
    label: str
    lx: int
    ly: int
    applies: bool
    color: str


def player_colors(doc: dict[str, Any]) -> dict[str, str]:
    ids = [p if isinstance(p, str) else p["id"] for p in doc.get("players", [])]
    return {p: PALETTE[i % len(PALETTE)] for i, p in enumerate(ids)}


def effects_graph(exp: Explained) -> dict[str, Any]:
    """Boxes for the objects control effects involve, arrows source -> object."""
    doc = exp.doc
    colors = player_colors(doc)
    effects = {e["id"]: e for e in doc.get("effects", []) if e["kind"] != "control-player"}
    links: list[tuple[str, str, str, bool, str | None]] = []  # effect, source, target, won, to
    for obj, cands in exp.candidates.items():
        for c in cands:
            src = effects.get(c.effect, {}).get("source")
            if src is not None and src != obj:
                links.append((c.effect, src, obj, c.won, c.player))
    involved: list[str] = []
    for _, src, target, _, _ in links:
        for o in (src, target):
            if o not in involved:
                involved.append(o)
    order = [o["id"] for o in doc.get("objects", []) if o["id"] in involved]
    rows = _layers(order, [(src, target) for _, src, target, _, _ in links])
    w, h, gx, gy, pad, side = 150, 44, 60, 110, 24, 110
    widest = max((len(r) for r in rows), default=0)
    width = max(2 * side + widest * w + (widest - 1) * gx, 320)
    boxes: dict[str, Box] = {}
    for level, row in enumerate(rows):
        x0 = (width - (len(row) * w + (len(row) - 1) * gx)) // 2
        for i, oid in enumerate(row):
            controller = exp.ruling.objects[oid].controller if oid in exp.ruling.objects else None
            boxes[oid] = Box(oid, x0 + i * (w + gx), pad + level * (h + gy), w, h, oid,
                             colors.get(controller or "", "#777"))
    # Spread the ends of the arrows that leave or reach the same box.
    outs: dict[str, list[int]] = {}
    ins: dict[str, list[int]] = {}
    for n, (_, src, target, _, _) in enumerate(links):
        outs.setdefault(src, []).append(n)
        ins.setdefault(target, []).append(n)

    def spread(box: Box, items: list[int], n: int) -> int:
        k = len(items)
        return box.x + box.w * (items.index(n) + 1) // (k + 1)

    arrows = []
    placed: list[tuple[float, float, float, float]] = []
    for n, (effect, src, target, won, player) in enumerate(links):
        a, b = boxes[src], boxes[target]
        x1, x2 = spread(a, outs[src], n), spread(b, ins[target], n)
        if b.y > a.y + a.h + gy:  # skips a row: bowed around the boxes between
            y1, y2 = a.y + a.h, b.y
            between = [x for x in boxes.values() if a.y < x.y < b.y]
            left = min(x.x for x in between)
            right = max(x.x + x.w for x in between)
            mx = left - 2 * (side - 20) if (x1 + x2) / 2 < (left + right) / 2 \
                else right + 2 * (side - 20)
            my = (y1 + y2) // 2
        elif b.y > a.y:  # downwards: bottom of the source to the top of the object
            y1, y2 = a.y + a.h, b.y
            mx, my = (x1 + x2) // 2, (y1 + y2) // 2
        elif b.y < a.y:  # upwards: bowed out to the right
            y1, y2 = a.y, b.y + b.h
            mx, my = max(x1, x2) + 60, (y1 + y2) // 2
        else:  # the same row: one way below the boxes, the other above
            below = x1 < x2
            y1 = y2 = a.y + a.h if below else a.y
            mx, my = (x1 + x2) // 2, y1 + (50 if below else -50)
        path = f"M{x1},{y1} Q{mx},{my} {x2},{y2}"
        label = f"{effect} → {player}" if player else effect
        lx, ly = _label_spot((x1, y1), (mx, my), (x2, y2), label, placed, boxes.values())
        arrows.append(Arrow(effect, src, target, path, label, lx, ly, won,
                            colors.get(player or "", "#777")))
    height = pad * 2 + len(rows) * h + (len(rows) - 1) * gy + (60 if len(rows) == 1 else 8)
    return {"boxes": list(boxes.values()), "arrows": arrows, "width": width,
            "height": height if rows else 0}


def _label_spot(p0: tuple[int, int], c: tuple[int, int], p2: tuple[int, int], label: str,
                placed: list[tuple[float, float, float, float]], boxes: Iterable[Box]
                ) -> tuple[int, int]:
    """A point on the arrow's curve where its label overlaps no other label or box."""
    half_w, half_h = 3.5 * len(label) + 4, 9
    taken = [*placed, *((b.x, b.y, b.x + b.w, b.y + b.h) for b in boxes)]
    spots = []
    for t in (0.5, 0.35, 0.65, 0.25, 0.75, 0.5):
        x = (1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * c[0] + t ** 2 * p2[0]
        y = (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * c[1] + t ** 2 * p2[1]
        spots.append((x, y))
        rect = (x - half_w, y - half_h, x + half_w, y + half_h)
        if not any(rect[0] < r[2] and r[0] < rect[2] and rect[1] < r[3] and r[1] < rect[3]
                   for r in taken):
            break
    x, y = spots[-1]
    placed.append((x - half_w, y - half_h, x + half_w, y + half_h))
    return round(x), round(y)


def _layers(order: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    """Rows of boxes: every source above the objects it gives (a cycle shares a row)."""
    level = dict.fromkeys(order, 0)
    for _ in range(len(order)):
        for src, target in edges:
            if level[target] <= level[src]:
                level[target] = min(level[src] + 1, len(order) - 1)
    used = sorted(set(level.values()))
    return [[o for o in order if level[o] == lv] for lv in used]


def timelines(exp: Explained) -> dict[str, Any]:
    """For each object with a history: segments of control between time points."""
    colors = player_colors(exp.doc)
    now = max((t for o in exp.ruling.objects.values() for t in o.history), default=0)
    start = min((t for o in exp.ruling.objects.values() for t in o.history), default=0)
    span = max(now - start, 1)
    left, width = 110, 560
    rows = []
    for oid, obj in exp.ruling.objects.items():
        if not obj.history:
            continue
        points: list[tuple[int, str | None]] = []
        for t, p in sorted(obj.history.items()):  # one segment per stretch of one player
            if not points or points[-1][1] != p:
                points.append((t, p))
        segments = []
        for i, (t, p) in enumerate(points):
            end = points[i + 1][0] if i + 1 < len(points) else now
            x1 = left + (t - start) * width // span
            x2 = left + (end - start) * width // span
            segments.append({"x": x1, "w": max(x2 - x1, 4), "player": p, "from": t,
                             "to": end, "color": colors.get(p or "", "#ddd")})
        rows.append({"object": oid, "segments": segments})
    ticks: list[dict[str, int]] = []
    for t in sorted({t for o in exp.ruling.objects.values() for t in o.history}):
        x = left + (t - start) * width // span
        if not ticks or x - ticks[-1]["x"] >= 18:  # labels that would overlap are left out
            ticks.append({"t": t, "x": x})
    return {"rows": rows, "left": left, "width": width, "height": 34 + 26 * len(rows),
            "ticks": ticks}


def snapshot_view(exp: Explained) -> dict[str, Any]:
    """Everything one snapshot section of a page shows."""
    doc = exp.doc
    ruling = exp.ruling
    colors = player_colors(doc)
    active = doc.get(ACTIVE) or first_player(doc)
    players = []
    for seat, p in enumerate(doc.get("players", [])):
        pid = p if isinstance(p, str) else p["id"]
        players.append({"id": pid, "seat": seat, "active": pid == active,
                        "left_at": None if isinstance(p, str) else p.get("left_at"),
                        "color": colors[pid],
                        "controlled_by": ruling.controlled_players.get(pid)})
    zones: dict[str, list[str]] = {}
    fates: dict[str, list[str]] = {}  # objects that left the game, under their fate
    rows = []
    for obj in doc.get("objects", []):
        oid = obj["id"]
        if oid in ruling.left_game:
            fates.setdefault(ruling.left_game[oid], []).append(oid)
        else:
            zones.setdefault(obj["zone"], []).append(oid)
        r = ruling.objects[oid]
        rows.append({"id": oid, "kind": obj["kind"], "zone": obj["zone"], "owner": r.owner,
                     "controller": r.controller, "you": r.you,
                     "default_controller": r.default_controller,
                     "fate": ruling.left_game.get(oid),
                     "rules": cited_rules(r),
                     "color": colors.get(r.controller or "", "#999")})
    derivations = []
    for oid in ruling.objects:
        for fact in FACTS:
            if fact == "may_activate" or exp.nodes.get(("f", oid, fact)) is None:
                continue
            derivations.append((oid, fact, exp.derivation(oid, fact)))
    for aid in ruling.abilities:
        if exp.nodes.get(("f", aid, "may_activate")) is not None:
            derivations.append((aid, "may_activate", exp.derivation(aid, "may_activate")))
    return {"id": ruling.id, "rules": ruling.rules, "now": snapshot_now(doc),
            "players": players, "zones": zones, "fates": fates, "objects": rows,
            "effects": list(doc.get("effects", [])),
            "graph": effects_graph(exp), "timeline": timelines(exp),
            "derivations": derivations, "ruling": ruling, "abilities": ruling.abilities}


def ruling_page(explained: Sequence[Explained], lang: Lang) -> str:
    """The page of one or more rulings (``adjudicate --format html``)."""
    views = [snapshot_view(e) for e in explained]
    first = explained[0].ruling
    title = lang.title("page_title", first.id, rules=first.rules)
    return render("ruling.html.j2", lang, title=title, views=views, focus=None)


def explain_page(exp: Explained, object_id: str, fact: str, why_not: str | None) -> str:
    lang = exp.lang
    fact = fact.replace("-", "_")
    view = snapshot_view(exp)
    title = lang.title("page_title_explain", exp.ruling.id, fact=lang.term("fact", fact),
                       object=object_id, rules=exp.ruling.rules)
    focus = {"derivation": exp.derivation(object_id, fact),
             "why_not": exp.why_not(object_id, fact, why_not) if why_not else None}
    return render("ruling.html.j2", lang, title=title, views=[view], focus=focus)


def notebook_html(ruling: Any, lang: str = "en") -> str:
    """The ruling's page for Jupyter, in an iframe so that its style stays its own.

    The derivations are judged again from the ruling's snapshot (under the same
    version); a ruling that a proposal changed is shown as its table only.
    """
    import html

    from .text import ruling_table

    if isinstance(ruling, Explained):
        return notebook_page(ruling)
    doc = getattr(ruling, "_snapshot", None)
    exp = explain(doc, ruling.rules, (), lang) if doc is not None else None
    if exp is None or exp.ruling.to_dict() != ruling.to_dict():
        return "<pre>" + html.escape(ruling_table(ruling)) + "</pre>"
    return notebook_page(exp)


def notebook_page(exp: Explained) -> str:
    """The ruling page of an explained snapshot, framed for a notebook's output cell."""
    import html

    page = ruling_page([exp], exp.lang)
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" title="mtgcontrol ruling" '
            'style="width: 100%; height: 640px; border: 1px solid #ddd"></iframe>')


# --- Summary pages ----------------------------------------------------------------

def bars(counts: Iterable[tuple[str, int]], color: str = "#1f77b4") -> dict[str, Any]:
    """A horizontal bar chart of (label, count), largest first."""
    items = sorted(counts, key=lambda kv: (-kv[1], catalog.rule_order(kv[0])))
    top = max((n for _, n in items), default=1) or 1
    return {"items": [{"label": k, "count": n, "w": max(2, 400 * n // top), "y": 24 * i}
                      for i, (k, n) in enumerate(items)],
            "height": 24 * len(items) + 4, "color": color}


@dataclass
class Listed:
    """A snapshot a summary page lists (for a violation or a choice): where it is, and
    its text when known (a batch line; a file is linked instead)."""

    where: str  # "in.jsonl:12" or the file's name
    anchor: str
    href: str | None = None  # the snapshot's file, relative to the page
    text: str | None = None


def rule_label(lang: Lang, version: str, number: str) -> str:
    """A rule number with its paraphrase in ``version`` (in the page's language)."""
    entry = catalog.resolve(version).entry(number)
    para = lang.paraphrase(catalog.resolve(version), entry.group) if entry else ""
    return f"{number} {para}".strip()


def rulings_summary(records: Iterable[tuple[Listed, dict[str, Any]]], lang: Lang, title: str,
                    source: str | None = None, seconds: float | None = None) -> str:
    """Batch or check: the input, CR versions, counts, time; citations by rule (with
    paraphrases); violations by code; each violation and choice with its snapshot."""
    judged = with_violations = with_choices = 0
    errors: list[dict[str, Any]] = []
    cites: Counter[tuple[str, str]] = Counter()
    codes: Counter[str] = Counter()
    versions: Counter[str] = Counter()
    violations: list[dict[str, Any]] = []
    choices: list[dict[str, Any]] = []
    listed: dict[str, Listed] = {}
    for where, rec in records:
        if "error" in rec:
            errors.append(rec)
            continue
        judged += 1
        versions[rec["rules"]] += 1
        cites.update({(rec["rules"], b["rule"]) for obj in rec.get("objects", {}).values()
                      for b in obj.get("because", ())})
        with_violations += bool(rec.get("violations"))
        with_choices += bool(rec.get("choices"))
        for v in rec.get("violations", ()):
            codes[f"{v['rule']} {v['code']}"] += 1
            if len(violations) < 500:
                violations.append({"at": where, "snapshot": rec.get("id"), **v})
                listed[where.anchor] = where
        for c in rec.get("choices", ()):
            if len(choices) < 500:
                choices.append({"at": where, "snapshot": rec.get("id"), **c})
                listed[where.anchor] = where
    several = len(versions) > 1
    labels = {(v, n): n + (f" (CR {v})" if several else "") for v, n in cites}
    rules: list[dict[str, Any]] = sorted(
        ({"number": n, "version": v, "paraphrase": rule_label(lang, v, n)[len(n):].strip(),
          "count": k} for (v, n), k in cites.items()),
        key=lambda r: (catalog.rule_order(r["number"]), r["version"]))
    stats: list[tuple[str, Any]] = [(lang.label("input"), source)] if source else []
    stats += [(lang.label("versions"), ", ".join(sorted(versions)) or "–"),
              (lang.label("judged"), judged), (lang.label("errors"), len(errors)),
              (lang.label("with_violations"), with_violations),
              (lang.label("choices_listed"), with_choices)]
    if seconds is not None:
        stats.append((lang.label("time"), lang.label("seconds", s=f"{seconds:.1f}")))
    return render("summary.html.j2", lang, title=title, kind="rulings", stats=stats,
                  cites=bars((labels[k], n) for k, n in cites.items()),
                  codes=bars(codes.items(), "#d62728"), violations=violations,
                  choices=choices, listed=list(listed.values()), errors=errors[:200],
                  rules=rules, several=several,
                  research=None, research_kind=None)


def research_summary(kind: str, data: dict[str, Any], lang: Lang) -> str:
    """Impact or verify, from their JSON report (the only coupling to research.py)."""
    verdicts: list[dict[str, Any]] = []
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    if kind == "impact":
        title = lang.label("summary_impact", **{"from": data["from"], "to": data["to"]})
        groups = [(lang.label("by_rule_change", title=lang.label(name)),
                   by_rule_change(data.get(key, []), data.get(f"{key}_by_cause", [])))
                  for name, key in (("differences_meaning", "differences"),
                                    ("differences_citation", "citation_only"))]
        chart = bars((d["label"], d["count"]) for d in data.get("differences", []))
        stats = [(lang.label("snapshots"), data.get("snapshots", 0)),
                 (lang.label("changed_snapshots"), data.get("changed_snapshots", 0))]
        if data.get("complete") is False:
            stats.append((lang.label("undecided"), data["exhausted_upto"]))
    else:
        # verify's report (research/commands.py): one verdict per version x invariant.
        title = lang.label("summary_verify", rules=", ".join(
            dict.fromkeys(v["rules"] for v in data.get("verdicts", []))))
        verdicts = [verdict_row(v, lang) for v in data.get("verdicts", [])]
        failed = [v for v in data.get("verdicts", []) if v["holds"] is False]
        chart = bars(Counter(f["what"] for v in failed
                             for f in v.get("failures") or ()).items())
        undecided = any(v["holds"] is None for v in data.get("verdicts", []))
        stats = [(lang.label("result"), lang.label("counterexamples") if failed
                  else lang.label("undecided") if undecided else lang.label("proved"))]
    if data.get("bounds"):
        stats.append((lang.label("bounds"), ", ".join(f"{k} {v}" for k, v in
                                                      data["bounds"].items())))
    seconds = data.get("cpu_seconds", data.get("seconds"))  # CPU where a search says it
    if seconds is not None:
        stats.append((lang.label("time"), lang.label("seconds", s=f"{seconds:.1f}")))
    return render("summary.html.j2", lang, title=title, kind="research", research_kind=kind,
                  stats=stats, cites=chart, codes=None, violations=[],
                  errors=data.get("errors", [])[:200], groups=groups, verdicts=verdicts)


def by_rule_change(kinds: list[dict[str, Any]], causes: list[dict[str, Any]]
                   ) -> list[dict[str, Any]]:
    """Kinds of difference grouped under the rule change responsible for each, as the
    text report groups them: its witness's cause, else the cause of most of its facts;
    the changes with the most snapshots first."""
    def key(cause: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return tuple(cause["from_rules"]), tuple(cause["to_rules"])

    snapshots = {key(c): (c["label"], c["snapshots"]) for c in causes}
    found: dict[tuple[tuple[str, ...], tuple[str, ...]], list[dict[str, Any]]] = {}
    for kind in kinds:
        if kind.get("witness"):
            main = tuple(map(tuple, kind["witness"]["cause"]))
        else:
            main = key(max(kind["causes"], key=lambda c: (c["count"], key(c))))
        found.setdefault(main, []).append(kind)  # type: ignore[arg-type]
    ordered = sorted(found.items(), key=lambda kv: (-snapshots.get(kv[0], ("", 0))[1], kv[0]))
    return [{"label": snapshots.get(cause, (" -> ".join(map(", ".join, cause)), 0))[0],
             "snapshots": snapshots.get(cause, ("", 0))[1], "kinds": group}
            for cause, group in ordered]


def verdict_row(v: dict[str, Any], lang: Lang) -> dict[str, Any]:
    """One row of the verify page: what the invariant says, and how far it was decided
    (size: objects + effects of a snapshot)."""
    bounds = v.get("bounds") or {}
    if v["holds"]:
        verdict, upto = lang.label("holds"), bounds.get("objects", 0) + bounds.get("effects", 0)
    elif v["holds"] is False:
        verdict, upto = lang.label("fails", size=v["size"]), v["size"] - 1
    else:
        verdict = lang.label("undecided_beyond", size=v["proved_upto"])
        upto = v["proved_upto"]
    failures = ", ".join(f"{f['what']} {f['object']}" for f in v.get("failures") or ())
    return {"rules": v["rules"], "invariant": v["invariant"], "summary": v.get("summary", ""),
            "holds": v["holds"], "verdict": verdict, "upto": upto,
            "seconds": lang.label("seconds", s=f"{v.get('cpu_seconds', 0):.1f}"),
            "failures": failures, "counterexample": v.get("counterexample")}


# --- Commands ---------------------------------------------------------------------

def _lang(args: argparse.Namespace) -> Lang:
    try:
        return language(args.lang)
    except UnknownLanguage as err:
        raise InputError([InputProblem("command line", "--lang", str(err))]) from None


def _need_output(args: argparse.Namespace) -> None:
    if args.output is None:
        raise InputError([InputProblem("command line", "-o", "an output file for "
                                       "--format html (-o FILE)")])


def _write(args: argparse.Namespace, text: str) -> int:
    _need_output(args)
    write_said(args.output, text)
    return 0


def write_said(path: str, text: str, flag: str = "-o") -> None:
    """A page (or report) written whole (``engine.files.write_output``), then said."""
    write_output(path, text, flag)
    print(f"wrote {escaped(path)}", file=sys.stderr)


def cmd_adjudicate_html(args: argparse.Namespace, items: Sequence[tuple[Any, str]],
                        changes: tuple[str, ...]) -> int:
    lang = _lang(args)
    _need_output(args)
    explained = [explain_named(doc, name, args.rules, changes, lang.code) for doc, name in items]
    return _write(args, ruling_page(explained, lang))


def explain_named(doc: Any, name: str, rules: str | None, changes: tuple[str, ...],
                  lang: str) -> Explained:
    """``explain`` with the file's name in error messages."""
    from ..engine.validate import problems

    found = problems(doc, name)
    if found:
        raise InputError(found)
    return explain(doc, rules, changes, lang)


def cmd_explain(args: argparse.Namespace, item: tuple[Any, str],
                changes: tuple[str, ...]) -> int:
    lang = _lang(args)
    if args.format == "html":
        _need_output(args)
    text = explanation(item, args.object, args.fact, args.why_not, args.format, args.rules,
                       changes, lang.code)
    if args.format == "html":
        return _write(args, text)
    if args.output:
        write_output(args.output, text + "\n")
    else:
        print(text)
    return 0


def explanation(item: tuple[Any, str], object_id: str, fact: str, why_not: str | None,
                form: str, rules: str | None, changes: tuple[str, ...], lang: str) -> str:
    """``explain``'s output for one fact of one object: ``form`` text, json (without the
    last line end) or html.  An unknown object or player is an `InputError`."""
    exp = explain_named(item[0], item[1], rules, changes, lang)
    known_object(exp, object_id, fact, item[1])
    if why_not is not None and why_not not in {
            p if isinstance(p, str) else p["id"] for p in exp.doc["players"]}:
        raise InputError([InputProblem(item[1], "--why-not", "a player id listed in "
                                       f"$.players, got {shown(why_not)}")])
    if form == "html":
        return explain_page(exp, object_id, fact, why_not)
    if form == "json":
        return json.dumps(to_document(exp, object_id, fact, why_not), indent=2,
                          ensure_ascii=False)
    return explanation_text(exp, object_id, fact,
                            exp.why_not(object_id, fact, why_not) if why_not else None)


def cmd_check_html(args: argparse.Namespace, records: Sequence[dict[str, Any]],
                   seconds: float) -> int:
    """``check --format html``: ``records`` are the files' rulings (or error records),
    as JSON data."""
    lang = _lang(args)
    page_dir = Path(args.output).resolve().parent
    where = [Listed(name, f"file-{i}", _href(name, page_dir))
             for i, name in enumerate(args.files, 1)]
    bad = sum(len(r["violations"]) if "error" not in r else 1 for r in records)
    _write(args, rulings_summary(zip(where, records, strict=True), lang,
                                 lang.label("summary_check"),
                                 ", ".join(args.files), seconds))
    return 1 if bad else 0


def _href(name: str, page_dir: Path) -> str | None:
    """A link from the page to an input file (none for standard input)."""
    import os
    from urllib.parse import quote

    if name == "-":
        return None
    return quote(os.path.relpath(Path(name).resolve(), page_dir).replace(os.sep, "/"))


def check_page_options(args: argparse.Namespace) -> None:
    """``batch --html`` reads the rulings back from ``-o``: both are needed, and --lang."""
    _lang(args)
    if args.output is None:
        raise InputError([InputProblem("command line", "--html", "an output file -o "
                                       "OUT.jsonl to read the rulings back from")])


def batch_summary_file(jsonl: str, html: str, lang_code: str, source: str = "",
                       seconds: float | None = None) -> None:
    """The summary page of a batch output file (``batch IN -o OUT.jsonl --html PAGE``):
    output line N answers input line N, whose text the page shows for each violation
    or choice it lists."""
    lang = language(lang_code)
    href = _href(source, Path(html).resolve().parent) if source else None
    with contextlib.ExitStack() as stack:
        from ..batch.output import whole_lines

        stream = (line.decode("utf-8") for line in whole_lines(jsonl))  # .gz too
        inputs: Iterable[bytes | None] = iter(())
        if source and source != "-":
            from ..batch.lines import open_input

            inputs = stack.enter_context(open_input(source))
        records = (
            (Listed(f"{source or 'line'}:{n}", f"line-{n}", href,
                    raw.decode("utf-8", "replace").rstrip("\r\n")
                    if isinstance(raw, bytes) else None), json.loads(line))
            for n, (line, raw) in enumerate(itertools.zip_longest(stream, inputs), 1)
            if line is not None and line.strip())
        text = rulings_summary(records, lang, lang.label("summary_batch"), source or None,
                               seconds)
    write_said(html, text, "--html")


def cmd_research_html(kind: str, run: Callable[[argparse.Namespace, tuple[str, ...]], int],
                      args: argparse.Namespace, changes: tuple[str, ...]) -> int:
    """Run impact or verify for its JSON report and render that report as a page."""
    lang = _lang(args)
    _need_output(args)
    args.format = "json"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = run(args, changes)
    _write(args, research_summary(kind, json.loads(buffer.getvalue()), lang))
    return code
