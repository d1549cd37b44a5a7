"""The changes in meaning of the ownership/control rules that snapshot/1 can
express (docs/cr-versions.md §4), as data: which window of consecutive versions
has each, and the rule number that marks it in an impact report.

``impact --exhaustive`` must find each of them in its window, filed under its own
rule (the kind's cause names that rule); the benchmark and tests/test_search.py
check that.  ``template`` names the generator.lp template whose snapshots show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Change:
    id: str            # docs/cr-versions.md §4
    window: tuple[str, str]
    what: str
    side: str          # "from" or "to": the side whose rules name it
    number: str        # the rule number (or superseded group id) on that side
    template: str
    related: tuple[str, ...] = ()  # other numbers a kind of this change may be filed under
    details: int = 0   # history details (phasing, turns, ...) its witnesses need

    def numbers(self) -> set[str]:
        return {self.number, *self.related}

    def matches(self, kind: dict[str, Any]) -> bool:
        """A kind of difference in meaning filed under this change (its witness's cause
        names the rule on its side)."""
        cause = kind.get("witness", {}).get("cause", [[], []])
        return self.number in (cause[0] if self.side == "from" else cause[1])


W1 = ("2012-10-01", "2017-04-28")
W2 = ("2017-04-28", "2020-11-20")
W3 = ("2020-11-20", "2024-11-08")

CHANGES = (
    Change("A1", W1, "conspiracies are owned and controlled by their owner (109.4e, 905.5)",
           "to", "905.5", "conspiracy", ("109.4e", "313.6")),
    Change("A2", W1, "delayed trigger created through an action a static ability allowed "
           "(603.7g)", "to", "603.7g", "ability (delayed, via action)",
           ("603.7a", "603.7a@2012-10-01")),
    Change("A3", W1, "a permanent turned face up gets a new timestamp (613.7f; 613.6e in 2017)",
           "to", "613.6e", "fu_card + its static effect + another control effect"),
    Change("A5", W1, "nothing enters the battlefield or the stack under a departed player "
           "(800.4b; 2012: only tokens)", "to", "800.4b", "bf_card / st_card entering late",
           ("800.4b@2012-10-01",)),
    Change("A6", W1, "abilities of a phenomenon whose owner left stay on the stack (901.10b)",
           "to", "901.10b", "plane (phenomenon) + triggered ability, owner leaves",
           ("901.10", "901.10@2012-10-01")),
    Change("B1", W2, "a token is owned by the player who created it (111.2; 110.5a before)",
           "to", "111.2", "bf_token", ("110.5a",)),
    Change("B2", W2, "a stolen permanent spell's default controller (110.2b)", "to", "110.2b",
           "bf_card stolen as a spell + its resolution effect"),
    Change("B3", W2, "exile when the last control effect ends: default controller instead of "
           "the player it entered under (800.4c)", "from", "800.4c@2017-04-28",
           "stolen spell + steal back ending after the thief left (size 4)", ("800.4c", "110.2b")),
    Change("B4", W2, "simultaneous timestamps in APNAP order, no longer the active player's "
           "choice (613.7k; 613.6j before)", "from", "613.6j",
           "aura + resolution effect with the Aura's timestamp", ("613.7k",)),
    Change("B5", W2, "mana abilities have a controller (109.4a)", "to", "109.4a",
           "ability (mana)"),
    Change("B9", W2, "a phased-out token no longer ceases to exist (110.5f; 111.7 from "
           "2020 keeps only tokens outside the battlefield)", "from", "110.5f",
           "bf_token + phasing detail", ("111.7",), details=1),
    Change("C2", W3, "a may-cast copy of a card is owned by the player who created it (112.2a)",
           "to", "112.2a", "ex_copy / st_copy (may_cast)"),
    Change("C4", W3, "a chaos ability is controlled by the planar controller (311.7)", "to",
           "311.7", "plane + ability (chaos)"),
)


def expected(v1: str, v2: str) -> list[Change]:
    return [c for c in CHANGES if c.window == (v1, v2)]


def found(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """For each change, the kind of difference in meaning (JSON report) filed under it
    with the smallest witness."""
    out: dict[str, dict[str, Any]] = {}
    for change in expected(report["from"], report["to"]):
        matching = [k for k in report["differences"] if change.matches(k)]
        if matching:
            out[change.id] = min(matching, key=lambda k: (k["witness"]["size"], k["label"]))
    return out


def unexplained(report: dict[str, Any]) -> list[str]:
    """Kinds of difference in meaning filed under no rule of the window's changes."""
    allowed = set().union(*(c.numbers() for c in expected(report["from"], report["to"])))
    out = []
    for kind in report["differences"]:
        cause = kind.get("witness", {}).get("cause", [[], []])
        if not allowed & set(cause[0] + cause[1]):
            out.append(f"{kind['label']} (cause {cause})")
    return out
