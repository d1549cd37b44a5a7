"""A readable table of a ruling (``--format text``)."""

from __future__ import annotations

from .ruling import Ruling


def _cell(value: str | None) -> str:
    """A table cell: "-" for none, control characters shown escaped."""
    if value is None:
        return "-"
    return value.encode("unicode_escape").decode("ascii") if not value.isprintable() else value


def ruling_table(ruling: Ruling) -> str:
    rows = [("object", "owner", "controller", "you", "rules")]
    for oid, obj in ruling.objects.items():
        rules = sorted({b.rule for b in obj.because if b.fact in ("owner", "controller")})
        rows.append((_cell(oid), _cell(obj.owner), _cell(obj.controller), _cell(obj.you),
                     " ".join(rules)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"ruling {_cell(ruling.id)} under CR {ruling.rules}"]
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for aid, ab in ruling.abilities.items():
        lines.append(f"ability {aid}: may be activated by {_cell(ab.get('may_activate'))}")
    if ruling.planar_controller:
        lines.append(f"planar controller: {ruling.planar_controller}")
    for q, p in ruling.controlled_players.items():
        lines.append(f"{q}'s decisions are made by {p}")
    for oid, fate in ruling.left_game.items():
        lines.append(f"{oid}: {fate}")
    for c in ruling.choices:
        lines.append(f"choice ({c.rule}): {c.chooser} decides the {c.fact} of {c.object}: "
                     + " or ".join(c.outcomes))
    for v in ruling.violations:
        lines.append(f"violation {v.rule} {v.code}: {v.message}")
    return "\n".join(lines)
