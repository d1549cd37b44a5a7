"""Impact reports: kinds of difference, causes, witnesses; text output of impact,
of the enumerating verify and of verify's verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine.facts import Names
from ..present.text import escaped
from .proofs import Verdict, bounds_text
from .views import Difference, Kind, show_value

# ---------------------------------------------------------------------------------
# Reports


Cause = tuple[tuple[str, ...], tuple[str, ...]]


def cause_label(cause: Cause, v1: str, v2: str) -> str:
    left = ", ".join(cause[0]) or "no one-sided rule cited"
    right = ", ".join(cause[1]) or "no one-sided rule cited"
    return f"{left} ({v1}) -> {right} ({v2})"


@dataclass
class Tally:
    """How many distinct snapshots; they arrive one after the other, so a set is not needed."""

    count: int = 0
    last: Any = None

    def add(self, snapshot: Any) -> None:
        if snapshot != self.last:
            self.count += 1
            self.last = snapshot

    def __len__(self) -> int:
        return self.count


@dataclass
class KindReport:
    kind: Kind
    category: str
    count: int = 0                 # facts (object, fact) that differ this way
    snapshots: Tally = field(default_factory=Tally)
    causes: dict[Cause, int] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    witness: dict[str, Any] | None = None


@dataclass
class ImpactReport:
    from_version: str
    to_version: str
    proposal: bool
    mode: str
    judged: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    kinds: dict[tuple[Kind, str], KindReport] = field(default_factory=dict)
    causes: dict[tuple[str, Cause], Tally] = field(default_factory=dict)
    renumbered: dict[tuple[str, tuple[str, ...], tuple[str, ...]], int] = field(
        default_factory=dict)
    changed_snapshots: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    # CPU seconds of an exhaustive search (its worker's and this process's); seconds
    # is the wall-clock time beside it.
    cpu_seconds: float | None = None
    bounds: dict[str, int] = field(default_factory=dict)
    per_size: list[dict[str, float]] = field(default_factory=list)
    # Set when a time limit stopped an exhaustive search: every kind with a
    # witness of up to this many objects + effects was found, larger ones maybe not.
    exhausted_upto: int | None = None
    # How an exhaustive search looked: "cone" (snapshots that are one rooted cone,
    # differences about the root), "snapshot" (connected snapshots) or "" (enumeration).
    searched: str = ""

    def to_side(self) -> str:
        return self.to_version + (" + proposal" if self.proposal else "")

    def record(self, diffs: list[Difference], renumbered: Iterable[Any], snapshot: Any,
               names: Names, item: dict[str, Any] | None = None) -> None:
        """Count one snapshot's differences; ``item`` (corpus mode) names the snapshot."""
        for diff in diffs:
            entry = self.kinds.get((diff.kind, diff.category))
            if entry is None:
                entry = self.kinds[(diff.kind, diff.category)] = KindReport(
                    diff.kind, diff.category)
            entry.count += 1
            entry.snapshots.add(snapshot)
            entry.causes[diff.cause] = entry.causes.get(diff.cause, 0) + 1
            self.causes.setdefault((diff.category, diff.cause), Tally()).add(snapshot)
            if item is not None:
                entry.items.append({**item, "object": diff.subject(names),
                                    "from": show_value(diff.key, diff.before, names),
                                    "to": show_value(diff.key, diff.after, names)})
            if diff.category == "meaning":
                self.changed_snapshots.add(snapshot)
        for key in renumbered:
            self.renumbered[key] = self.renumbered.get(key, 0) + 1

    def ordered(self, category: str) -> list[KindReport]:
        return sorted((r for r in self.kinds.values() if r.category == category),
                      key=lambda r: (r.kind.fact, r.kind.from_rules, r.kind.to_rules))

    def main_cause(self, r: KindReport) -> Cause:
        if r.witness is not None:
            return tuple(tuple(x) for x in r.witness["cause"])  # type: ignore[return-value]
        return max(r.causes.items(), key=lambda kv: (kv[1], kv[0]))[0]

    def verdict_line(self) -> str:
        """The last line of an exhaustive report: exhausted, or undecided beyond size N."""
        where = "cones" if self.searched == "cone" else "snapshots"
        kinds = f"{len(self.kinds)} kind(s) of difference"
        if self.exhausted_upto is not None:
            return (f"undecided beyond size {self.exhausted_upto}: {kinds} found; every kind "
                    f"with a witness among the {where} of up to {self.exhausted_upto} "
                    "objects + effects is above, larger ones may be missing (time limit)")
        b = self.bounds
        details = (f", {b['details']} detail(s), size {b['size']}" if "details" in b else "")
        return (f"exhausted: {kinds}, every kind with a witness among the {where} within "
                f"the bounds ({b['players']} players, {b['objects']} objects, "
                f"{b['effects']} effects{details})")

    def to_dict(self) -> dict[str, Any]:
        v1, v2 = self.from_version, self.to_side()
        out: dict[str, Any] = {
            "from": self.from_version, "to": self.to_version, "proposal": self.proposal,
            "mode": self.mode, "snapshots": self.judged,
            "changed_snapshots": len(self.changed_snapshots), "seconds": round(self.seconds, 2)}
        if self.cpu_seconds is not None:
            out["cpu_seconds"] = round(self.cpu_seconds, 2)
        if self.bounds:
            out["bounds"] = self.bounds
            out["per_size"] = self.per_size
            out["complete"] = self.exhausted_upto is None
            out["verdict"] = self.verdict_line()
            if self.searched:
                out["searched"] = self.searched
            if self.exhausted_upto is not None:
                out["exhausted_upto"] = self.exhausted_upto
        if self.mode == "corpus" or self.errors:
            out["errors"] = self.errors
        for category, title in (("meaning", "differences"), ("citation", "citation_only")):
            out[title] = [self._kind_dict(r) for r in self.ordered(category)]
            out[f"{title}_by_cause"] = [
                {"from_rules": list(cause[0]), "to_rules": list(cause[1]),
                 "label": cause_label(cause, v1, v2), "snapshots": len(snaps)}
                for (cat, cause), snaps in sorted(self.causes.items(),
                                                  key=lambda kv: -len(kv[1]))
                if cat == category]
        out["renumbered"] = [
            {"fact": fact, "from_rules": list(a), "to_rules": list(b), "count": n}
            for (fact, a, b), n in sorted(self.renumbered.items())]
        return out

    def _kind_dict(self, r: KindReport) -> dict[str, Any]:
        v1, v2 = self.from_version, self.to_side()
        d: dict[str, Any] = {
            "fact": r.kind.fact, "from_rules": list(r.kind.from_rules),
            "to_rules": list(r.kind.to_rules), "label": r.kind.label(v1, v2),
            "count": r.count, "snapshots": len(r.snapshots),
            "causes": [{"from_rules": list(c[0]), "to_rules": list(c[1]),
                        "label": cause_label(c, v1, v2), "count": n}
                       for c, n in sorted(r.causes.items(), key=lambda kv: -kv[1])]}
        if self.mode == "corpus":
            d["items"] = r.items
        if r.witness is not None:
            d["witness"] = r.witness
        return d


# ---------------------------------------------------------------------------------
# Text output


def _compact(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(", ", ": "), ensure_ascii=False)


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if value is True:
        return "yes"
    if isinstance(value, list):
        return " and ".join(value)
    if isinstance(value, dict) and "chooser" in value:
        return f"{'/'.join(value['chooser'])} chooses: {' or '.join(value['outcomes'])}"
    if isinstance(value, dict):  # a history of control: from each time on
        return ", ".join(f"{who or 'gone'} from {at}" for at, who in value.items())
    return str(value)


def _ruling_lines(label: str, part: dict[str, Any], indent: str = "      ") -> list[str]:
    lines = [f"{indent}{label}: owner {_show(part.get('owner'))}, controller "
             f"{_show(part.get('controller'))}, default controller "
             f"{_show(part.get('default_controller'))}"
             + (f", {part['left_game']}" if "left_game" in part else "")]
    lines.extend(f"{indent}  because {b}" for b in part.get("because", ()))
    lines.extend(f"{indent}  choice: {c['chooser']} decides the {c['fact']}: "
                 f"{' or '.join(c['outcomes'])} ({c['rule']})" for c in part.get("choices", ()))
    lines.extend(f"{indent}  violation {v}" for v in part.get("violations", ()))
    return lines


def impact_text(report: ImpactReport, limit: int = 10) -> str:
    v1, v2 = report.from_version, report.to_side()
    took = f"{report.seconds:.1f} s" if report.cpu_seconds is None else \
        f"{report.cpu_seconds:.1f} s CPU ({report.seconds:.1f} s wall)"
    out = [f"impact {v1} -> {v2} ({report.mode}): {report.judged} snapshot(s) judged in "
           f"{took}, {len(report.changed_snapshots)} with a difference in meaning"]
    if report.bounds:
        b = report.bounds
        out.append(f"bounds: up to {b['players']} player(s), {b['objects']} object(s), "
                   f"{b['effects']} effect(s); smallest witness per kind of difference")
        if report.exhausted_upto is not None:
            out.append(f"INCOMPLETE: stopped by the time limit while searching size "
                       f"{report.exhausted_upto + 1}: every kind with a witness of up to "
                       f"{report.exhausted_upto} objects + effects is below, larger ones "
                       "may be missing")
    if report.mode == "corpus":
        out.append(f"{len(report.errors)} line(s) could not be judged")
        for err in report.errors[:limit]:
            first = err["error"][0] if err["error"] else {"path": "$", "expected": "?"}
            name = f" ({err['id']})" if err.get("id") else ""
            out.append(f"  line {err['line']}{name}: {first['path']}: expected "
                       f"{first['expected']}")
        if len(report.errors) > limit:
            out.append(f"  ... and {len(report.errors) - limit} more")
    for category, title in (("meaning", "Differences in meaning"),
                            ("citation", "Same facts, another rule cited")):
        kinds = report.ordered(category)
        by_cause: dict[Cause, list[KindReport]] = {}
        for r in kinds:
            by_cause.setdefault(report.main_cause(r), []).append(r)
        out.append("")
        out.append(f"{title}: {len(kinds)} kind(s), by the rule change responsible "
                   "(one-sided rules cited for the object)")
        for cause, group in sorted(by_cause.items(), key=lambda kv: (
                -len(report.causes.get((category, kv[0]), Tally())), kv[0])):
            snaps = len(report.causes.get((category, cause), Tally()))
            out.append(f"== {cause_label(cause, v1, v2)}: {snaps} snapshot(s)")
            for r in group:
                out.extend(_kind_lines(report, r, limit))
    renumbered = report.renumbered
    out.append("")
    out.append(f"Renumbered only (same facts, same rules, other numbers): "
               f"{sum(renumbered.values())} citation(s)")
    pairs: set[tuple[str, str]] = set()
    for (_fact, before, after) in renumbered:
        pairs |= {(x, y) for x, y in zip(before, after, strict=False) if x != y}
    if pairs:
        out.append("  " + ", ".join(f"{a} -> {b}" for (a, b) in sorted(pairs)))
    if report.bounds:
        out.append("")
        out.append(report.verdict_line())
    return "\n".join(escaped(line) for line in out)  # a corpus id may hold a newline


def _kind_lines(report: ImpactReport, r: KindReport, limit: int) -> list[str]:
    v1, v2 = report.from_version, report.to_side()
    out = [f"  * {r.kind.label(v1, v2)}  [{r.count} fact(s) in {len(r.snapshots)} snapshot(s)]"]
    for item in r.items[:limit]:
        name = f"line {item['line']}" + (f" ({item['snapshot']})" if item["snapshot"] else "")
        out.append(f"      {name} {item['object']}: {_show(item['from'])} -> "
                   f"{_show(item['to'])}")
    if len(r.items) > limit:
        out.append(f"      ... and {len(r.items) - limit} more (--format json lists all)")
    w = r.witness
    if w:
        out.append(f"      witness (size {w['size']}), {w['object']}: {_show(w['from'])} -> "
                   f"{_show(w['to'])}")
        out.append(f"      snapshot: {_compact(w['snapshot'])}")
        out.extend(_ruling_lines(v1, w["ruling_from"]))
        out.extend(_ruling_lines(v2, w["ruling_to"]))
    return out


@dataclass
class VerifyReport:
    version: str
    proposal: bool
    bounds: dict[str, int]
    judged: int = 0
    seconds: float = 0.0
    failures: dict[tuple[str, tuple[str, ...]], KindReport] = field(default_factory=dict)
    choices: dict[tuple[str, tuple[str, ...]], KindReport] = field(default_factory=dict)
    violations: dict[tuple[str, tuple[str, ...]], KindReport] = field(default_factory=dict)
    per_size: list[dict[str, float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def section(table: dict[tuple[str, tuple[str, ...]], KindReport]) -> list[dict[str, Any]]:
            return [{"what": what, "rules": list(rules), "snapshots": r.count,
                     "witness": r.witness} for (what, rules), r in sorted(table.items())]

        return {"rules": self.version, "proposal": self.proposal, "bounds": self.bounds,
                "snapshots": self.judged, "seconds": round(self.seconds, 2),
                "per_size": self.per_size, "ok": self.ok(),
                "controller_failures": section(self.failures),
                "choices": section(self.choices), "violations": section(self.violations)}

    def counterexamples(self) -> list[tuple[str, tuple[str, ...]]]:
        """Failures the rules do not explain by a violation of the snapshot itself."""
        return [key for key in self.failures if "with violation" not in key[0]]

    def ok(self) -> bool:
        return not self.counterexamples()



def verify_text(report: VerifyReport) -> str:
    b = report.bounds
    out = [f"verify {report.version}{' + proposal' if report.proposal else ''}: "
           f"{report.judged} snapshot(s) with up to {b['players']} player(s), {b['objects']} "
           f"object(s), {b['effects']} effect(s), judged in {report.seconds:.1f} s"]
    for title, table in (("Permanents or spells without exactly one controller (a "
                          "violation naming the object means the rules reject the snapshot)",
                          report.failures),
                         ("Choices left to players", report.choices),
                         ("Violations", report.violations)):
        out.append("")
        out.append(f"{title}: {len(table)} kind(s)")
        for (what, rules), entry in sorted(table.items()):
            w = entry.witness
            assert w is not None
            out.append(f"* {what} ({', '.join(rules) or 'no rule cited'})  "
                       f"[{entry.count} snapshot(s)]")
            out.append(f"    witness (size {w['size']}), object {w['object']}")
            out.append(f"    snapshot: {_compact(w['snapshot'])}")
            out.extend(_ruling_lines(report.version, w["ruling"]))
    out.append("")
    if report.ok():
        out.append("OK: every permanent and spell has exactly one controller"
                   + (" (except in snapshots the rules reject with a violation)"
                      if report.failures else ""))
    else:
        out.append(f"FAILED: {len(report.counterexamples())} kind(s) of permanent or spell "
                   "with no controller or more than one, and no violation to explain it")
    return "\n".join(out)




# ---------------------------------------------------------------------------------
# verify by search: verdicts


CHECKS = {"locality": "the locality lemma refuted for",
          "orderings": "the orderings lemma refuted for"}


def summary_line(verdicts: Sequence[Verdict]) -> str:
    """The last line: holds, fails (a counterexample) or undecided beyond size N, and
    what the whole run cost (CPU of every worker)."""
    failed = [v for v in verdicts if v.word() == "fails"]
    undecided = [v for v in verdicts if v.word() == "undecided"]
    held = len(verdicts) - len(failed) - len(undecided)
    counts = f"{held} of {len(verdicts)} hold"
    if undecided:
        counts += f", {len(undecided)} undecided (time limit)"
    cost = f"; {sum(v.seconds for v in verdicts):.1f} s CPU"
    if failed:
        names = ", ".join(f"{v.invariant.name} {v.version}" for v in failed)
        what = CHECKS.get(failed[0].mode, "counterexample to")
        return f"fails: {what} {names} ({counts}{cost})"
    if undecided:
        return (f"undecided beyond size {min(v.proved for v in undecided)} "
                f"({counts}{cost})")
    return f"holds: {counts} within the bounds{cost}"


def verdicts_text(verdicts: Sequence[Verdict], table: bool = False) -> str:
    """Readable verdicts: one line each (or a version x invariant table), then every
    counterexample as a snapshot document that `mtgcontrol adjudicate` reads."""
    out: list[str] = []
    if table and verdicts:
        names = list(dict.fromkeys(v.invariant.name for v in verdicts))
        versions = list(dict.fromkeys(v.version for v in verdicts))
        cell = {(v.version, v.invariant.name): v for v in verdicts}
        width = max(len(n) for n in names) + 2
        out.append(f"bounds: {bounds_text(verdicts[0].bounds)}; invariants marked "
                   "'locality: cone' are searched by cones (every cone within these bounds); "
                   "seconds of CPU")
        out.append("invariant".ljust(width) + "".join(f"{v:<24}" for v in versions))
        for n in names:
            row = n.ljust(width)
            for version in versions:
                v = cell.get((version, n))
                text = "" if v is None else (
                    f"holds {v.seconds:.1f} s" if v.holds else
                    f"undecided > {v.proved} {v.seconds:.1f} s" if v.word() == "undecided"
                    else f"fails, size {v.size} {v.seconds:.1f} s")
                row += f"{text:<24}"
            out.append(row)
        out.append("")
    else:
        out.extend(v.text() for v in verdicts)
    for v in verdicts:
        if v.counterexample is not None:
            out.append("")
            what = {"locality": "a snapshot refuting the locality of",
                    "orderings": "a snapshot refuting the orderings lemma for"}.get(
                        v.mode, "counterexample to")
            out.append(f"{what} {v.invariant.name} under {v.version} "
                       f"(size {v.size}: fewest objects + effects, then players, then leavers): "
                       + ", ".join(f"{f['what']} {f['object']}" for f in v.failures or ()))
            out.append(json.dumps(v.counterexample, ensure_ascii=False))
    out.append("")
    out.append(summary_line(verdicts))
    return "\n".join(out)
