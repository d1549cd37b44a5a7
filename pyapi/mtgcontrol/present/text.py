"""A readable table of a ruling (``--format text``)."""

from __future__ import annotations

from .. import catalog
from ..engine.ruling import ObjectRuling, Ruling


def escaped(value: str | None) -> str:
    """A table cell: "-" for none; an id with control, format or other invisible
    characters (a terminal escape, a right-to-left override) shown escaped."""
    if value is None:
        return "-"
    if value.isprintable():
        return value
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in value)


def cited_rules(obj: ObjectRuling) -> list[str]:
    """The "rules" column of the text table and of the ruling page alike: the rules its
    owner and controller rest on, in the CR's order."""
    return sorted({b.rule for b in obj.because if b.fact in ("owner", "controller")},
                  key=catalog.rule_order)


def ruling_table(ruling: Ruling) -> str:
    rows = [("object", "owner", "controller", "you", "rules")]
    for oid, obj in ruling.objects.items():
        rules = cited_rules(obj)
        rows.append((escaped(oid), escaped(obj.owner), escaped(obj.controller), escaped(obj.you),
                     " ".join(rules)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"ruling {escaped(ruling.id)} under CR {ruling.rules}"]
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for aid, ab in ruling.abilities.items():
        who = escaped(ab.get("may_activate"))
        lines.append(f"ability {escaped(aid)}: may be activated by {who}")
    if ruling.planar_controller:
        lines.append(f"planar controller: {escaped(ruling.planar_controller)}")
    for q, p in ruling.controlled_players.items():
        lines.append(f"{escaped(q)}'s decisions are made by {escaped(p)}")
    for oid, fate in ruling.left_game.items():
        lines.append(f"{escaped(oid)}: {escaped(fate)}")
    for c in ruling.choices:
        lines.append(f"choice ({c.rule}): {escaped(c.chooser)} decides the {c.fact} of "
                     f"{escaped(c.object)}: " + " or ".join(escaped(str(o)) for o in c.outcomes))
    for v in ruling.violations:
        lines.append(f"violation {v.rule} {v.code}: {escaped(v.message)}")
    return "\n".join(lines)
