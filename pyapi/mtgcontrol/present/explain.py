"""Explanations: why an object has its owner, controller, "you", fate or activator.

The derivation comes from the encodings: ``encodings/explain.lp`` (loaded only
here) turns what the rule families derived into reason nodes (``xwhy``), the
snapshot fields each rests on (``xleaf``), the derivations each uses (``xsub``)
and the control effects that lost, with why (``xlost``).  This module only
reads those atoms, turns batch-local integers back into ids and snapshot
fields into JSON paths, and words them in the chosen language (lang.py).
The JSON form is versioned: ``docs/explain.md`` documents ``explanation/1``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

import clingo

from .. import catalog
from ..engine.api import InputError, engine_for, load_snapshot, version_for
from ..engine.engine import Frame, Lens
from ..engine.facts import ACTIVE, Names, first_player
from ..engine.ruling import VIA, Ruling, build_ruling, notebook_html
from ..engine.solve import parse_atom
from ..engine.validate import problems, snapshot_name
from ..engine.vocabulary import leaf_fields
from .lang import Lang, language

FORMAT = "explanation/1"
FACTS = ("owner", "controller", "you", "default_controller", "fate", "may_activate")
# An input predicate (vocabulary.INPUTS) -> the field it is read from, in its record
# or the root: what an explain.lp leaf names.
LEAF_FIELDS = leaf_fields()


@dataclass
class Leaf:
    """A snapshot fact: its JSON path and value (``present`` false: a default)."""

    path: str
    value: Any
    present: bool = True

    def to_dict(self) -> dict[str, Any]:
        out = {"path": self.path, "value": self.value}
        if not self.present:
            out["default"] = True
        return out


@dataclass
class Reason:
    """One cited rule: its number, paraphrase, what it says here, what it rests on."""

    rule: str
    group: str
    kind: str
    text: str
    paraphrase: str
    facts: list[Leaf] = field(default_factory=list)
    uses: list[Derivation] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "group": self.group, "kind": self.kind, "text": self.text,
                "paraphrase": self.paraphrase, "facts": [f.to_dict() for f in self.facts],
                "uses": [d.to_dict() for d in self.uses]}


@dataclass
class Loss:
    code: str
    text: str
    facts: list[Leaf] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "text": self.text, "facts": [f.to_dict() for f in self.facts]}


@dataclass
class Candidate:
    """A control effect on the object: whom it would give control, and the outcome."""

    effect: str
    player: str | None
    won: bool
    losses: list[Loss] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """decides, tied (an open choice between it and another) or lost."""
        if self.won:
            return "decides"
        return "tied" if any(x.code == "tie" for x in self.losses) else "lost"

    def to_dict(self) -> dict[str, Any]:
        return {"effect": self.effect, "player": self.player, "outcome": self.outcome,
                "why": [x.to_dict() for x in self.losses]}


@dataclass
class Derivation:
    """Why ``object``'s ``fact`` is ``value`` (now, or at the earlier moment ``at``)."""

    object: str
    fact: str
    value: str | None
    at: int | None = None
    because: list[Reason] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    repeated: bool = False  # shown in full elsewhere in the same tree
    would: bool = False  # at ``at``, who would have controlled it had that player not left

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"object": self.object, "fact": self.fact.replace("_", "-"),
                               "value": self.value}
        if self.at is not None:
            out["at"] = self.at
        if self.would:
            out["would"] = True
        if self.repeated:
            out["repeated"] = True
            return out
        out["because"] = [r.to_dict() for r in self.because]
        if self.candidates:
            out["candidates"] = [c.to_dict() for c in self.candidates]
        return out

    def rules(self) -> list[str]:
        return sorted({r.rule for r in self.because})


@dataclass
class WhyNot:
    player: str
    is_value: bool
    text: str
    candidates: list[Candidate] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "holds": self.is_value, "text": self.text,
                "candidates": [c.to_dict() for c in self.candidates]}


@dataclass
class Explained:
    """A ruling with every derivation the encodings gave for it."""

    doc: dict[str, Any]
    ruling: Ruling
    lang: Lang
    nodes: dict[Any, list[Reason]]
    candidates: dict[str, list[Candidate]]
    at_values: dict[tuple[str, int], tuple[str | None, bool]] = field(default_factory=dict)

    def derivation(self, object_id: str, fact: str, at: int | None = None,
                   _shown: set[Any] | None = None) -> Derivation:
        """The tree for one fact; a derivation already shown in it is marked repeated."""
        fact = fact.replace("-", "_")
        ctx = ("at", object_id, at) if at is not None else ("f", object_id, fact)
        deriv = Derivation(object_id, fact, self.value(object_id, fact, at), at)
        if at is not None:
            deriv.would = self.at_values.get((object_id, at), (None, False))[1]
        shown = set() if _shown is None else _shown
        if ctx in shown:
            deriv.repeated = True
            return deriv
        shown.add(ctx)
        for reason in self.nodes.get(ctx, []):
            uses = [self.derivation(d.object, d.fact, d.at, shown) for d in reason.uses]
            deriv.because.append(Reason(reason.rule, reason.group, reason.kind, reason.text,
                                        reason.paraphrase, reason.facts, uses))
        if fact == "controller" and at is None:
            deriv.candidates = self.candidates.get(object_id, [])
        return deriv

    def value(self, object_id: str, fact: str, at: int | None = None) -> str | None:
        r = self.ruling
        if at is not None:
            if (object_id, at) in self.at_values:
                return self.at_values[(object_id, at)][0]
            return r.controller(object_id, at=at) if object_id in r.objects else None
        if fact == "may_activate":
            return r.abilities.get(object_id, {}).get("may_activate")
        if fact == "fate":
            return r.left_game.get(object_id)
        if object_id in r.objects:
            return getattr(r.objects[object_id], fact)
        return r.abilities.get(object_id, {}).get(fact)

    def why_not(self, object_id: str, fact: str, player: str) -> WhyNot:
        """Why ``player`` does not hold ``fact``: the effects that would have given it."""
        fact = fact.replace("-", "_")
        lang = self.lang
        value = self.value(object_id, fact)
        if value == player:
            return WhyNot(player, True, lang.about("why_not_holds", fact, player=player,
                                                   object=object_id))
        mine = [c for c in self.candidates.get(object_id, []) if c.player == player]
        obj = self.ruling.objects.get(object_id)
        choices = [c for c in self.ruling.choices if c.object == object_id and c.fact == fact]
        if choices:  # an open choice: nobody holds the fact until the chooser decides
            parts = [lang.about("why_not_choice", fact, object=object_id, chooser=c.chooser,
                                rule=c.rule, outcomes=(" " + lang.label("and") + " ").join(
                                    c.outcomes)) for c in choices]
        elif value is not None:
            parts = [lang.about("why_not_value", fact, player=player, object=object_id,
                                value=value)]
        else:
            parts = [lang.about("why_not_nobody", fact, player=player, object=object_id)]
        if choices or fact != "controller" or obj is None:
            pass
        elif obj.default_controller == player and value is not None:
            parts.append(lang.label("why_not_default", player=player))
        elif not mine and obj.default_controller != player:
            parts.append(lang.label("why_not_no_effect", player=player))
        return WhyNot(player, False, " ".join(parts), mine)

    def objects(self) -> list[str]:
        return list(self.ruling.objects)

    def _repr_html_(self) -> str:
        """Jupyter shows the page of this ruling with every derivation, in its language."""
        return notebook_html(self)


def explain(snapshot: Any, rules: str | None = None, changes: tuple[str, ...] = (),
            lang: str = "en") -> Explained:
    """Judge one snapshot through the explain lens and gather its explanations."""
    doc, fallback = load_snapshot(snapshot)
    found = problems(doc, fallback)
    name = snapshot_name(doc, fallback)
    if found:
        raise InputError(found)
    version = version_for(doc, rules, name)
    engine = engine_for(tuple(changes), fast=False)
    return engine.judge([(doc, version)], replace(EXPLAIN, read=_reader(lang)))[0]


def _reader(lang: str) -> Any:
    def read(frame: Frame, symbols: list[clingo.Symbol]) -> Explained:
        """The ruling (from the ruling's atoms) and the derivation (explain.lp's)."""
        plain: list[Any] = []
        extra: list[clingo.Symbol] = []
        for sym in symbols:
            if sym.name.startswith("x"):
                extra.append(sym)
            else:
                name, args = parse_atom(str(sym))
                plain.append((name, args[1:]))
        ruling = build_ruling(frame.doc, frame.version.name, plain, frame.names)
        language_data = language(lang)
        reader = _Reader(frame.doc, frame.names, frame.version, language_data,
                         frame.item_paths())
        nodes, candidates, at_values = reader.read(extra)
        return Explained(frame.doc, ruling, language_data, nodes, candidates, at_values)
    return read


# The explain lens: explain.lp over the rules, its atoms shown with the ruling's;
# the snapshot's own times (the reader words them), every card type, and each
# fact's JSON path (a leaf's path is its item's: Frame.item_paths).
EXPLAIN = Lens("explain", show="explain", files=("explain.lp", "show/ruling.lp"), raw=True,
               provenance=True, symbols=True, read=_reader("en"))


def _py(sym: clingo.Symbol) -> Any:
    if sym.type == clingo.SymbolType.Number:
        return sym.number
    if sym.type == clingo.SymbolType.String:
        return sym.string
    if sym.type == clingo.SymbolType.Function and not sym.arguments:
        return sym.name
    return tuple([sym.name, *(_py(a) for a in sym.arguments)])


@dataclass
class _Reader:
    """Reads explain.lp's atoms for one snapshot."""

    doc: dict[str, Any]
    names: Names
    version: catalog.Version
    lang: Lang
    paths: dict[tuple[str, str], str]  # where each id is (the frame's provenance)

    def name(self, num: Any) -> str:
        return self.names.name(num) if isinstance(num, int) and num else "-"

    def ctx(self, term: tuple[Any, ...]) -> tuple[Any, ...]:
        kind, obj, third = term
        return ("f", self.name(obj), third) if kind == "f" else ("at", self.name(obj), third)

    def leaf(self, ref: Any, fld: str) -> Leaf:
        if ref == "top":
            base, entry = "$", self.doc
        else:
            space, num = ref
            ident = self.name(num)
            base = self.paths.get((space, ident), f"$.{ident}")
            entry = _lookup(self.doc, base)
        if not fld:
            return Leaf(base, entry)
        fld = LEAF_FIELDS[fld]  # an input predicate (or one of its arguments): its field
        value: Any = entry
        for part in fld.split("."):
            if isinstance(value, dict) and part in value:
                value = value[part]
            else:
                if ref == "top" and fld == ACTIVE:  # absent: its default, the first player
                    return Leaf(f"$.{fld}", first_player(self.doc), present=False)
                return Leaf(f"{base}.{fld}", None, present=False)
        return Leaf(f"{base}.{fld}", value)

    def read(self, symbols: list[clingo.Symbol]) -> tuple[
            dict[Any, list[Reason]], dict[str, list[Candidate]],
            dict[tuple[str, int], tuple[str | None, bool]]]:
        numbers: dict[str, str] = {}
        at_values: dict[tuple[str, int], tuple[str | None, bool]] = {}
        whys: list[tuple[Any, ...]] = []
        leaves: dict[tuple[Any, ...], list[Leaf]] = defaultdict(list)
        subs: dict[tuple[Any, ...], list[Derivation]] = defaultdict(list)
        cands: dict[tuple[str, str], Candidate] = {}
        losses: dict[tuple[str, str], list[tuple[str, Any, Any]]] = defaultdict(list)
        lost_leaves: dict[tuple[str, str, str], list[Leaf]] = defaultdict(list)
        for sym in sorted(symbols):
            args = [_py(a) for a in sym.arguments[1:]]
            if sym.name == "xnum":
                numbers[args[0]] = args[1]
            elif sym.name == "xwhy":
                whys.append((self.ctx(args[0]), *args[1:]))
            elif sym.name == "xleaf":
                leaves[(self.ctx(args[0]), *args[1:5])].append(self.leaf(args[5], args[6]))
            elif sym.name == "xsub":
                kind, obj, third = args[5]
                target = (Derivation(self.name(obj), third, None) if kind == "f"
                          else Derivation(self.name(obj), "controller", None, third))
                subs[(self.ctx(args[0]), *args[1:5])].append(target)
            elif sym.name == "xcand":
                o, e, p = (self.name(a) for a in args)
                cands[(o, e)] = Candidate(e, p if args[2] else None, False)
            elif sym.name in ("xwon", "xwould"):
                pass
            elif sym.name == "xval":
                _, obj, t = args[0]
                at_values[(self.name(obj), t)] = (self.name(args[1]), False)
            elif sym.name == "xlost":
                losses[(self.name(args[0]), self.name(args[1]))].append(tuple(args[2:]))
            elif sym.name == "xlostleaf":
                key = (self.name(args[0]), self.name(args[1]), args[2])
                lost_leaves[key].append(self.leaf(args[3], args[4]))
        self._marks(symbols, cands, at_values)
        nodes: dict[Any, list[Reason]] = defaultdict(list)
        for ctx, group, kind, a, b in whys:
            why = (ctx, group, kind, a, b)
            nodes[ctx].append(Reason(
                numbers.get(group, group), group, kind, self.via(kind, a, b),
                self.lang.paraphrase(self.version, group), _unique(leaves[why]),
                subs[why]))
        for reasons in nodes.values():
            reasons.sort(key=lambda r: (catalog.rule_order(r.rule), r.kind, r.text))
        by_object: dict[str, list[Candidate]] = defaultdict(list)
        for (o, e), cand in sorted(cands.items()):
            for code, a, b in sorted(losses[(o, e)], key=str):
                cand.losses.append(Loss(code, self.loss(code, a, b),
                                        _unique(lost_leaves[(o, e, code)])))
            by_object[o].append(cand)
        return dict(nodes), dict(by_object), at_values

    def _marks(self, symbols: list[clingo.Symbol], cands: dict[tuple[str, str], Candidate],
               at_values: dict[tuple[str, int], tuple[str | None, bool]]) -> None:
        """The candidates that won (``xwon``), the moments of a player who left (``xwould``)."""
        for sym in symbols:
            if sym.name == "xwon":
                o, e = (self.name(_py(a)) for a in sym.arguments[1:])
                cands[(o, e)].won = True
            elif sym.name == "xwould":
                _, obj, t = _py(sym.arguments[1])
                moment = (self.name(obj), t)
                at_values[moment] = (at_values[moment][0], True)

    def render(self, kind: str, value: Any) -> str:
        if kind in "poe" and isinstance(value, int):
            return self.name(value) if value else self.lang.label("nobody")
        if kind in "zfd" and isinstance(value, str):
            return self.lang.term({"z": "zone_in", "f": "fate", "d": "duration"}[kind], value)
        return str(value)

    def via(self, kind: str, a: Any, b: Any) -> str:
        _, ka, kb = VIA.get(kind, ("", "n", "n"))
        return self.lang.via(kind, a=self.render(ka, a), b=self.render(kb, b))

    def loss(self, code: str, a: Any, b: Any) -> str:
        ka, kb = tuple(LOSS_ARGS.get(code, "nn"))
        return self.lang.loss(code, a=self.render(ka, a), b=self.render(kb, b))


# Argument kinds of each loss code (as in ruling.VIA: p player, o object, e effect,
# t time, d duration, f fate, n none).
LOSS_ARGS = {"later": "en", "dependency": "ee", "ended": "tn", "duration_over": "dn",
             "new_object": "tt", "source_gone": "on", "source_left_game": "ot",
             "source_exiled": "ot", "face_down": "on", "not_attached": "on",
             "player_left": "pt", "never_began": "tn", "not_begun": "tn", "object_gone": "ft",
             "loop_order": "en", "loop_tie": "en", "player_unknown": "ot",
             "source_undecided": "ot", "phased_out": "ot", "exchange_phased_out": "ot",
             "token_ceased": "tn", "loop_agreed": "pn"}


def _lookup(doc: Any, path: str) -> Any:
    """The value at a JSON path of the form ``$.a[0].b``."""
    value = doc
    for part in path.removeprefix("$").replace("[", ".").replace("]", "").split("."):
        if not part:
            continue
        if isinstance(value, list):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def _unique(leaves: list[Leaf]) -> list[Leaf]:
    seen: dict[str, Leaf] = {}
    for leaf in leaves:
        seen.setdefault(leaf.path, leaf)
    return sorted(seen.values(), key=lambda leaf: leaf.path)


def by_rule(reasons: list[Reason]) -> list[tuple[str, list[Reason]]]:
    """Reasons grouped by rule number, in the order given (they come sorted by rule)."""
    groups: list[tuple[str, list[Reason]]] = []
    for reason in reasons:
        if groups and groups[-1][0] == reason.rule:
            groups[-1][1].append(reason)
        else:
            groups.append((reason.rule, [reason]))
    return groups


def to_document(exp: Explained, object_id: str, fact: str, why_not: str | None = None
                ) -> dict[str, Any]:
    """The ``explanation/1`` JSON document for one fact of one object."""
    deriv = exp.derivation(object_id, fact)
    out: dict[str, Any] = {"format": FORMAT, "snapshot": exp.ruling.id, "rules": exp.ruling.rules,
                           "lang": exp.lang.code, **deriv.to_dict()}
    if why_not is not None:
        out["why_not"] = exp.why_not(object_id, fact, why_not).to_dict()
    return out


def known_object(exp: Explained, object_id: str, fact: str, name: str = "snapshot") -> None:
    """An unknown object id or a fact that does not apply to it is bad input (``name``:
    the snapshot's file, for the message, when it has no id)."""
    fact = fact.replace("-", "_")
    ruling = exp.ruling
    name = exp.ruling.id or name
    ids = list(ruling.objects) + list(ruling.abilities)
    if object_id not in ids:
        from ..engine.validate import InputProblem, shown

        raise InputError([InputProblem(name, "OBJECT", "an object or ability id of the "
                                       f"snapshot ({', '.join(ids)}), got {shown(object_id)}")])
    if fact == "may_activate" and object_id not in ruling.abilities:
        from ..engine.validate import InputProblem, shown

        raise InputError([InputProblem(name, "--fact", "may-activate only for an ability "
                                       f"listed in an object's `abilities`, "
                                       f"got {shown(object_id)}")])
