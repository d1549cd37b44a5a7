"""An explanation as an indented text tree (``mtgcontrol explain``)."""

from __future__ import annotations

import json
from typing import Any

from .explain import Candidate, Derivation, Explained, Leaf, WhyNot, by_rule
from .lang import Lang
from .text import escaped


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def leaf_text(leaf: Leaf, lang: Lang) -> str:
    if not leaf.present:
        return f"{leaf.path} ({lang.label('default_value')} {_value(leaf.value)})"
    return f"{leaf.path} = {_value(leaf.value)}"


def heading(deriv: Derivation, lang: Lang) -> str:
    value = deriv.value if deriv.value is not None else lang.label("none")
    if deriv.fact == "fate" and deriv.value is not None:
        value = lang.term("fate", deriv.value)
    if deriv.at is not None:
        key = "fact_would" if deriv.would else "fact_at"
        return lang.label(key, object=deriv.object, at=deriv.at, value=value)
    return lang.about("fact_is", deriv.fact, object=deriv.object, value=value)


def tree_lines(deriv: Derivation, lang: Lang, indent: str = "") -> list[str]:
    lines = [indent + heading(deriv, lang) + (" " + lang.label("repeated")
                                               if deriv.repeated else "")]
    if deriv.repeated:
        return lines
    if not deriv.because:
        lines.append(indent + "  " + lang.label("no_reason"))
    for rule, reasons in by_rule(deriv.because):
        # One rule cited for several reasons: its number and paraphrase once.
        grouped = len(reasons) > 1
        pad = indent + ("        " if grouped else "      ")
        if grouped:
            lines.append(f"{indent}  [{rule}] {reasons[0].paraphrase}".rstrip())
        for reason in reasons:
            if grouped:
                lines.append(f"{indent}      - {reason.text}")
            else:
                lines.append(f"{indent}  [{rule}] {reason.text}")
                if reason.paraphrase:
                    lines.append(f"{pad}{reason.paraphrase}")
            for leaf in reason.facts:
                lines.append(f"{pad}{lang.label('rests_on')} {leaf_text(leaf, lang)}")
            for used in reason.uses:
                lines.append(f"{pad}{lang.label('uses')}")
                lines.extend(tree_lines(used, lang, pad + "  "))
    if deriv.candidates:
        lines.append(indent + "  " + lang.label("candidates", object=deriv.object))
        lines.extend(candidate_lines(deriv.candidates, lang, indent + "    "))
    return lines


def candidate_lines(cands: list[Candidate], lang: Lang, indent: str) -> list[str]:
    lines = []
    for c in cands:
        gives = (lang.label("gives", player=c.player) if c.player
                 else lang.label("gives_unknown"))
        outcome = lang.label(c.outcome)
        line = lang.label("candidate", effect=c.effect, gives=gives, outcome=outcome)
        lines.append(indent + line)
        for loss in c.losses:
            lines.append(f"{indent}  - {loss.text}")
            for leaf in loss.facts:
                lines.append(f"{indent}      {lang.label('rests_on')} {leaf_text(leaf, lang)}")
    return lines


def explanation_text(exp: Explained, object_id: str, fact: str,
                     why_not: WhyNot | None = None) -> str:
    lang = exp.lang
    deriv = exp.derivation(object_id, fact)
    title = lang.title("page_title", exp.ruling.id, rules=exp.ruling.rules)
    lines = [title, *tree_lines(deriv, lang)]
    if why_not is not None:
        lines.append(lang.label("why_not", player=why_not.player))
        lines.append("  " + why_not.text)
        lines.extend(candidate_lines(why_not.candidates, lang, "    "))
    return "\n".join(escaped(line) for line in lines)  # an id may hold a newline
