"""`mtgcontrol import forge`: the 30 shared Forge puzzles, small Forge-syntax fixtures for
what they lack, and bad inputs.  Expected counts are derived here from the files
themselves by a deliberately simple reading, never by calling the importer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mtgcontrol.cli import main
from mtgcontrol.engine.api import adjudicate_many
from mtgcontrol.engine.ruling import Ruling
from mtgcontrol.forge.cardscript import CardData
from mtgcontrol.forge.command import import_file

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "forge"
PUZZLES = sorted((SHARED / "puzzles").glob("*.pzl")) if SHARED.is_dir() else []
needs_shared = pytest.mark.skipif(not PUZZLES, reason="../shared/forge is absent")
ZONE_KEY = re.compile(r"(human|ai|p\d)(battlefield|hand|graveyard|library|exile)")


@pytest.fixture(scope="module")
def cards() -> CardData:
    return CardData(SHARED)


def state_lines(path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    state = text.split("[state]", 1)[1]
    pairs = []
    for line in state.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and not line.startswith("#"):
            pairs.append((key.strip().lower(), value.strip()))
    return pairs


def script_names() -> dict[str, str]:
    """Name: (lower-cased) -> the script's text, over every script of the shared folder."""
    names = {}
    for p in (SHARED / "cardsfolder").rglob("*.txt"):
        text = p.read_text(encoding="utf-8")
        faces = [ln[5:].strip().lower() for ln in text.splitlines() if ln.startswith("Name:")]
        if "AlternateMode:Split" in text:
            faces.append(" // ".join(faces))
        names.update(dict.fromkeys(faces, text))
    return names


def expected(path: Path, names: dict[str, str]) -> dict[str, int]:
    """Objects, claims and withheld claims, from the file's own text."""
    entries, battlefield = [], []
    for key, value in state_lines(path):
        m = ZONE_KEY.fullmatch(key)
        if m:
            items = [e.strip() for e in value.split(";") if e.strip()]
            entries += items
            if m.group(2) == "battlefield":
                battlefield += items
    risky = {i for i, e in enumerate(battlefield) if "Damage:" in e or "M1M1" in e}
    ids = {re.search(r"Id:(\d+)", e).group(1): i for i, e in enumerate(battlefield)
           if "Id:" in e}
    steps = [e.split("|")[0] + ":" + e.split("ExecuteScript:")[1].split("|")[0]
             for e in battlefield if "ExecuteScript:" in e]
    steps += [s.strip() for key, value in state_lines(path) if key.endswith("precast")
              for s in value.split(";") if s.strip()]
    def moves(step: str) -> bool:  # may the step's card change a controller or a zone?
        name = step.split("->")[0].split(":")[0].strip().lower()
        return any(w in names.get(name, "") for w in ("GainControl", "ExchangeControl",
                                                       "Origin$ Battlefield"))

    targets = [s.split("->")[1].strip() for s in steps if "->" in s and moves(s)]
    for target in targets:
        if targets.count(target) > 1 and target in ids:  # two setup steps: order unknown
            risky.add(ids[target])
    for step in steps:  # a -X toughness pump at load: state-based actions may move it
        name = step.split("->")[0].split(":")[0].strip().lower()
        if "->" in step and "NumDef$ -" in names.get(name, "") and step.split("->")[1] in ids:
            risky.add(ids[step.split("->")[1]])
    return {"objects": len(entries), "owner_claims": len(entries),
            "controller_claims": len(battlefield) - len(risky), "withheld": len(risky)}


def contradicted(docs: list[dict]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for doc, ruling in zip(docs, adjudicate_many([(d, d["id"]) for d in docs]), strict=True):
        assert isinstance(ruling, Ruling), ruling
        out[doc["id"]] = {o for v in ruling.violations if v.code == "claim-contradicts"
                          for o in v.objects}
        assert all(v.code == "claim-contradicts" for v in ruling.violations), ruling.violations
    return out


@needs_shared
def test_shared_puzzles_import_or_are_refused_with_a_reason(cards: CardData) -> None:
    names = script_names()
    docs = []
    results = {p.name: import_file(p, cards) for p in PUZZLES}
    assert len(results) == 30
    for path in PUZZLES:
        doc, rec = results[path.name]
        text = path.read_text(encoding="utf-8")
        listed = {e.split("|")[0].strip().lower() for k, v in state_lines(path)
                  if ZONE_KEY.fullmatch(k)
                  for e in v.split(";") if e.strip() and not e.strip().startswith("t:")}
        unknown = {n for n in listed if n and n not in names}
        if "MergedCards:" in text:
            assert rec.status == "refused" and rec.reason.startswith("merged-or-melded")
            continue
        if unknown:
            assert rec.status == "refused" and rec.reason.startswith("card-unknown"), unknown
            continue
        if rec.status == "refused":
            assert rec.reason and ":" in rec.reason, rec
            assert doc is None
            continue
        counts = {k: rec.counts[k] for k in ("objects", "owner_claims", "controller_claims",
                                             "withheld")}
        want = expected(path, names)
        # a step that picks cards to move into or out of a graveyard or exile at load
        # leaves out every card it may have moved: none of them on the battlefield
        picked = [oid for oid, code in rec.left_out if code == "setup-choice-unknown"]
        assert all(".battlefield." not in oid and oid.startswith("p") for oid in picked)
        want.update(objects=want["objects"] - len(picked),
                    owner_claims=want["owner_claims"] - len(picked))
        assert counts == want, path.name
        assert len(doc["claims"]) == counts["owner_claims"] + counts["controller_claims"]
        docs.append((doc, rec))
    refused = [n for n, (d, r) in results.items() if r.status == "refused"]
    assert len(refused) <= 6, refused
    found = contradicted([d for d, _ in docs])
    for doc, rec in docs:  # check reports exactly the placements the importer superseded
        assert found[doc["id"]] == {o for o, _ in rec.superseded}, doc["id"]
    assert sum(len(r.superseded) for _, r in docs) >= 4


@needs_shared
def test_without_card_data_only_owner_claims(tmp_path: Path) -> None:
    for path in PUZZLES:
        doc, rec = import_file(path, None)
        if "MergedCards:" in path.read_text():
            assert rec.status == "refused"
            continue
        assert doc is not None, rec.reason
        battlefield = sum(len([e for e in v.split(";") if e.strip()])
                          for k, v in state_lines(path)
                          if ZONE_KEY.fullmatch(k) and k.endswith("battlefield"))
        assert rec.counts["controller_claims"] == 0
        assert [w[2] for w in rec.withheld] == ["needs-card-data"] * battlefield
        assert all("controller" not in c for c in doc["claims"])
        has_steps = any("ExecuteScript:" in v or (k.endswith("precast") and v)
                        for k, v in state_lines(path))
        assert (rec.status == "partial") == has_steps, path.name


@needs_shared
def test_cli_report_output_and_page(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out, report, page = tmp_path / "o.jsonl", tmp_path / "r.json", tmp_path / "p.html"
    code = main(["import", "forge", str(SHARED / "puzzles"), "--forge-res", str(SHARED),
                 "-o", str(out), "--report", str(report), "--html", str(page)])
    assert code == 1  # some files refused or partial
    records = json.loads(report.read_text())
    lines = out.read_text().splitlines()
    assert len(records) == 30
    assert len(lines) == sum(r["status"] != "refused" for r in records)
    assert "30 file(s):" in capsys.readouterr().err
    html = page.read_text()
    for r in records:
        for oid, _ in r["superseded"]:  # every disagreement links to its object's row
            assert f'href="#state-{r["file"]}--{oid}"' in html
            assert f'id="state-{r["file"]}--{oid}"' in html


# --- fixtures in Forge's syntax for what the shared files lack ---------------------------

SCRIPTS = {
    "bear": "Name:Test Bear\nTypes:Creature Bear\nPT:2/2\n",
    "aura": "Name:Test Leash\nTypes:Enchantment Aura\nK:Enchant creature\n"
            "A:SP$ Attach | Cost$ 2 U U | ValidTgts$ Creature\n"
            "S:Mode$ Continuous | Affected$ Creature.EnchantedBy | GainControl$ You | "
            "Description$ You control enchanted creature.\n",
    "thief": "Name:Test Thief\nTypes:Creature Rogue\n"
             "SVar:TrigSteal:DB$ GainControl | ValidTgts$ Creature | LoseControl$ EOT\n"
             "SVar:TrigKeep:DB$ GainControl | ValidTgts$ Creature | LoseControl$ Untap,LeavesPlay\n"
             "SVar:TrigSwap:DB$ ExchangeControl | Defined$ Self | ValidTgts$ Creature\n"
             "SVar:TrigThat:DB$ GainControl | Defined$ TriggeredTarget | NewController$ You\n"
             "A:AB$ ExchangeControl | Cost$ 5 | Defined$ Self | ValidTgts$ Creature\n",
    "spell": "Name:Test Bolt\nTypes:Instant\nA:SP$ DealDamage | ValidTgts$ Any | NumDmg$ 3\n",
    "walker": "Name:Test Walker\nTypes:Legendary Planeswalker Test\n"
              "A:AB$ Pump | Cost$ AddCounter<1/LOYALTY> | NumAtt$ -2 | NumDef$ -1 | "
              "ValidTgts$ Creature\n"
              "A:AB$ GainControl | Cost$ SubCounter<3/LOYALTY> | ValidTgts$ Creature\n",
    "weaver": "Name:Test Weaver\nTypes:Enchantment\n"
              "A:AB$ Pump | Cost$ 1 | NumAtt$ +1 | ValidTgts$ Creature\n"
              "A:AB$ Token | Cost$ 2 | TokenScript$ c_3_3_a_golem\n",
    "treason": "Name:Test Treason\nTypes:Sorcery\n"
               "A:SP$ GainControl | ValidTgts$ Creature | LoseControl$ EOT | SubAbility$ DBU\n"
               "SVar:DBU:DB$ Untap | Defined$ Targeted\n",
    # Brain Maggot's shape: target opponent reveals, you choose a card to exile from it
    "maggot": "Name:Test Maggot\nTypes:Enchantment Creature Insect\n"
              "SVar:TrigReveal:DB$ RevealHand | Defined$ Targeted | ValidTgts$ Opponent | "
              "SubAbility$ ExileCard\n"
              "SVar:ExileCard:DB$ ChangeZone | Origin$ Hand | Destination$ Exile | "
              "DefinedPlayer$ Targeted | Chooser$ You | ChangeType$ Card.nonLand | ChangeNum$ 1 "
              "| Duration$ UntilHostLeavesPlay | SubAbility$ DBEffect\n"
              "SVar:DBEffect:DB$ Effect | RememberObjects$ Remembered | Duration$ Permanent\n"
              "SVar:TrigBanish:DB$ ChangeZone | Origin$ Graveyard | Destination$ Exile | "
              "ValidTgts$ Card\n"
              "SVar:TrigReturn:DB$ ChangeZone | Origin$ Exile | Destination$ Hand | "
              "ValidTgts$ Card\n"
              "SVar:TrigMill:DB$ Mill | NumCards$ 2 | Defined$ You\n"
              "SVar:TrigPurge:DB$ ChangeZoneAll | ChangeType$ Card.OppOwn | Origin$ Graveyard | "
              "Destination$ Exile\n"
              "SVar:TrigDraw:DB$ Draw | NumCards$ 1 | Defined$ You\n"
              "SVar:TrigEffect:DB$ Effect | StaticAbilities$ STPump\n"
              "SVar:STPump:Mode$ Continuous | Affected$ Creature.YouCtrl | AddPower$ 1\n",
    # an adventurer: the spell of its second face, cast by that face's name
    "giant": "Name:Test Giant\nTypes:Creature Giant\nAlternateMode:Adventure\n"
             "A:SP$ PermanentCreature\nALTERNATE\nName:Test Stomp\nTypes:Instant Adventure\n"
             "A:SP$ DealDamage | ValidTgts$ Any | NumDmg$ 2\n",
}
TOKEN = "Name:Test Golem Token\nTypes:Artifact Creature Golem\nPT:3/3\n"


@pytest.fixture()
def res(tmp_path: Path) -> CardData:
    root = tmp_path / "res"
    for name, text in SCRIPTS.items():
        (root / "cardsfolder" / name[0]).mkdir(parents=True, exist_ok=True)
        (root / "cardsfolder" / name[0] / f"{name}.txt").write_text(text)
    (root / "tokenscripts").mkdir()
    (root / "tokenscripts" / "c_3_3_a_golem.txt").write_text(TOKEN)
    return CardData(root)


def run(tmp_path: Path, text: str | bytes, res: CardData | None, name: str = "f.pzl"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return import_file(path, res)


PUZZLE = "[metadata]\nName:fixture\n[state]\nactiveplayer=human\n"


def test_dump_with_p_keys_owner_and_three_players(tmp_path: Path, res: CardData) -> None:
    dump = ("turn=4\nactiveplayer=p2\np0life=20\np1life=20\np2life=20\n"
            "p0battlefield=Test Bear|Set:M19|Art:1|Owner:P1;Test Bear|Set:M19|Art:1\n"
            "p1hand=Test Bolt|Set:M19|Art:1\np2library=Test Bear|Set:M19|Art:1\n")
    doc, rec = run(tmp_path, dump, res, "state.txt")
    assert rec.kind == "dump" and rec.status == "imported"
    assert doc["players"] == ["p0", "p1", "p2"] and doc["active_player"] == "p2"
    assert {"stack-not-recorded", "effects-not-recorded"} <= set(rec.notes)
    assert "control-cause-not-recorded:p0.battlefield.1" in rec.notes
    assert {"object": "p0.battlefield.1", "owner": "p1"} in doc["claims"]
    assert {"object": "p0.battlefield.1", "controller": "p0"} in doc["claims"]
    assert rec.counts["owner_ne_controller"] == 1
    assert contradicted([doc]) == {"state.txt": set()}


def test_static_control_aura_supersedes_the_placement(tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + "humanbattlefield=Test Leash|AttachedTo:7\naibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    assert doc["effects"] == [{"id": "e1", "kind": "control", "origin": "static",
                               "source": "p0.battlefield.1", "attached": True, "timestamp": 1,
                               "note": "static of Test Leash"}]
    assert rec.superseded == [["id7", "e1"]]
    assert contradicted([doc]) == {"f.pzl": {"id7"}}


def test_attached_to_on_a_non_attachment_is_ignored_as_forge_does(tmp_path: Path,
                                                                  res: CardData) -> None:
    text = PUZZLE + "humanbattlefield=Test Bear|AttachedTo:7\naibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    assert "attached_to" not in doc["objects"][0]
    assert "attachment-ignored-by-forge:p0.battlefield.1" in rec.notes


def test_a_dump_contradicting_its_own_static_is_a_real_disagreement(
        tmp_path: Path, res: CardData) -> None:
    dump = "turn=2\nactiveplayer=p0\np0battlefield=Test Leash|Set:X|AttachedTo:7\n" \
           "p1battlefield=Test Bear|Set:X|Id:7\n"
    doc, rec = run(tmp_path, dump, res, "state.txt")
    assert rec.kind == "dump" and rec.superseded == [] and len(doc["effects"]) == 1
    assert contradicted([doc]) == {"state.txt": {"id7"}}
    stolen = "turn=2\nactiveplayer=p0\np1life=20\np0battlefield=Test Leash|Set:X|AttachedTo:7;" \
             "Test Bear|Set:X|Id:7|Owner:P1\n"
    doc, rec = run(tmp_path, stolen, res, "state.txt")
    assert contradicted([doc]) == {"state.txt": set()}


def test_face_down_aura_has_no_static(tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + ("humanbattlefield=Test Leash|FaceDown|AttachedTo:7\n"
                     "aibattlefield=Test Bear|Id:7\n")
    doc, rec = run(tmp_path, text, res)
    assert doc["effects"] == [] and doc["objects"][0]["face_down"] is True
    assert "types" not in doc["objects"][0]
    assert contradicted([doc]) == {"f.pzl": set()}


def test_execute_script_gain_control_and_two_effects(tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + "humanbattlefield=Test Thief|ExecuteScript:TrigSteal->7\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    assert doc["effects"][0]["duration"] == "end-of-turn"
    assert doc["effects"][0]["player"] == "p0" and rec.superseded == [["id7", "e1"]]
    assert contradicted([doc]) == {"f.pzl": {"id7"}}
    text = PUZZLE + ("humanbattlefield=Test Thief|ExecuteScript:TrigSteal->7;"
                     "Test Leash|AttachedTo:7\naibattlefield=Test Bear|Id:7\n")
    doc, rec = run(tmp_path, text, res)
    assert len(doc["effects"]) == 2 and ["id7", "controller", "order-unknown"] in rec.withheld
    assert rec.superseded == [] and "order-sensitive:id7" in rec.notes
    assert contradicted([doc]) == {"f.pzl": set()}


def test_precast_spell_makes_a_phantom_source(tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + "humanprecast=Test Treason->7\naibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    phantom = doc["objects"][-1]
    assert phantom["id"] == "p0.precast.1" and phantom["zone"] == "gone"
    assert phantom["put_on_stack"] == {"at": 2, "by": "p0"}
    assert doc["effects"][0]["source"] == "p0.precast.1" and rec.superseded == [["id7", "e1"]]
    assert "ignored-no-control:Untap" in rec.notes
    assert all(c["object"] != "p0.precast.1" for c in doc["claims"])
    assert contradicted([doc]) == {"f.pzl": {"id7"}}
    text = PUZZLE + "humanhand=Test Thief|ExecuteScript:TrigSteal->7\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)  # EOT: not bound to where its source is
    assert contradicted([doc])["f.pzl"] == {o for o, _ in rec.superseded} == {"id7"}
    text = PUZZLE + "humanprecast=Test Thief:TrigSwap->7\naibattlefield=Test Bear|Id:7\n"
    assert run(tmp_path, text, res)[1].reason.startswith("exchange-targets-unresolved")


def test_ability_by_index_only_when_every_candidate_is_harmless(tmp_path: Path,
                                                                 res: CardData) -> None:
    text = PUZZLE + "humanprecast=Test Walker:1->7\naibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    assert doc is None and rec.reason.startswith("sa-index-unsupported")
    text = PUZZLE + "humanprecast=Test Weaver:1->7\naibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    assert rec.status == "partial" and doc["effects"] == []
    assert rec.left_out == [["p0precast:Test Weaver:1->7", "setup-creates-objects"]]
    assert "ability-index-all-candidates-harmless:p0precast:Test Weaver:1->7" in rec.notes
    assert {"object": "id7", "controller": "p1"} in doc["claims"]


def test_exchange_and_unsupported_duration(tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + "humanbattlefield=Test Thief|Id:1|ExecuteScript:TrigSwap->7\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)  # Forge drops an SVar's Defined$ for a ->target
    assert rec.reason.startswith("exchange-targets-unresolved")
    text = PUZZLE + "humanbattlefield=Test Thief|Id:1\nhumanprecast=1:TrigSwap\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    assert run(tmp_path, text, res)[1].reason.startswith("setup-targets-unresolved")
    text = PUZZLE + "humanbattlefield=Test Thief|ExecuteScript:TrigThat->7\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    assert run(tmp_path, text, res)[1].superseded == [["id7", "e1"]]
    text = PUZZLE + "humanbattlefield=Test Thief|Id:1\n" \
                    "humanprecast=1:CustomScript:DB$ ExchangeControl | Defined$ Self->7\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    assert doc["effects"][0]["kind"] == "exchange"
    assert doc["effects"][0]["objects"] == ["id1", "id7"]
    assert sorted(rec.superseded) == [["id1", "e1"], ["id7", "e1"]]
    assert contradicted([doc]) == {"f.pzl": {"id1", "id7"}}
    text = PUZZLE + "humanbattlefield=Test Thief|ExecuteScript:TrigKeep->7\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)
    assert doc is None and rec.reason.startswith("duration-unsupported:Untap,LeavesPlay")


def test_enchanting_player_phased_out_tokens_putonstack(tmp_path: Path,
                                                         res: CardData) -> None:
    text = PUZZLE + ("humanbattlefield=Test Leash|EnchantingPlayer:AI;Test Bear|Id:3|PhasedOut;"
                     "Test Leash|AttachedTo:3;T:c_3_3_a_golem;"
                     "t:Soldier,P:1,T:1,Cost:no cost,Types:Creature-Soldier,Image:w\n"
                     "aiputonstack=Test Bolt\n")
    doc, rec = run(tmp_path, text, res)
    assert rec.status == "partial"
    assert sorted(rec.left_out) == [["id3", "phased-out"], ["p0.battlefield.3", "phased-out"]]
    assert "attached-to-player:p0.battlefield.1" in rec.notes
    objs = {o["id"]: o for o in doc["objects"]}
    assert objs["p0.battlefield.4"]["kind"] == "token"
    assert objs["p0.battlefield.4"]["types"] == ["artifact", "creature", "golem"]
    assert objs["p0.battlefield.5"]["created"] == {"at": 3, "by": "p0"}
    assert objs["p1.putonstack.1"]["zone"] == "stack"
    assert {"object": "p1.putonstack.1", "controller": "p1"} in doc["claims"]
    assert contradicted([doc]) == {"f.pzl": set()}


def test_dialects_agree(tmp_path: Path, res: CardData) -> None:
    old = PUZZLE + "humanbattlefield=Test Bear\naihand=Test Bolt\n"
    new = PUZZLE.replace("human", "p0") + "p0battlefield=Test Bear\np1hand=Test Bolt\n"
    a, _ = run(tmp_path, old, res, "a.pzl")
    b, rec = run(tmp_path, new, res, "b.pzl")
    assert a["objects"] == b["objects"] and a["claims"] == b["claims"]
    assert "dialect-newest" in rec.notes


BAD = [
    ("unknown key", PUZZLE + "humanbattlefield=Test Bear\nhumanfoo=1\nwhatever=2\n",
     "imported", "unknown-key:humanfoo"),
    ("unknown card", PUZZLE + "humanbattlefield=Test Bearr\n", "refused", "card-unknown"),
    ("player out of range", PUZZLE + "humanbattlefield=Test Bear|Owner:P5\n", "refused",
     "player-index-out-of-range"),
    ("player name", PUZZLE + "humanbattlefield=Test Bear|Owner:Bob\n", "refused",
     "player-name-unknown"),
    ("two-digit key", PUZZLE + "p10battlefield=Test Bear\n", "refused",
     "player-key-ambiguous"),
    ("missing AttachedTo target", PUZZLE + "humanbattlefield=Test Leash|AttachedTo:9\n",
     "refused", "id-unknown"),
    ("owner in hand", PUZZLE + "humanhand=Test Bear|Owner:AI\n", "refused",
     "owner-outside-battlefield"),
    ("CRLF", (PUZZLE + "humanbattlefield=Test Bear\n").replace("\n", "\r\n"), "imported",
     "crlf-line-ends"),
    ("BOM", "\ufeff" + PUZZLE + "humanbattlefield=Test Bear\n", "imported",
     "byte-order-mark"),
    ("empty file", "", "refused", "empty-file"),
    ("only metadata", "[metadata]\nName:x\n[state]\n", "refused", "empty-file"),
    ("not UTF-8", b"humanbattlefield=Test \xff\n", "refused", "not-utf8"),
]


@pytest.mark.parametrize(("case", "text", "status", "code"), BAD, ids=[b[0] for b in BAD])
def test_bad_inputs_give_a_reason(tmp_path: Path, res: CardData, case: str, text: str,
                                  status: str, code: str) -> None:
    doc, rec = run(tmp_path, text, res)
    assert rec.status == status, rec
    if status == "refused":
        assert doc is None and rec.reason.startswith(code), rec.reason
    else:
        assert code in rec.notes


def test_crlf_and_bom_read_like_lf(tmp_path: Path, res: CardData) -> None:
    plain = PUZZLE + "humanbattlefield=Test Bear|Tapped\n"
    a, _ = run(tmp_path, plain, res)
    b, _ = run(tmp_path, ("\ufeff" + plain).replace("\n", "\r\n"), res)
    assert a == b


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    good = tmp_path / "good.pzl"
    good.write_text(PUZZLE + "humanbattlefield=Bear\n")
    assert main(["import", "forge", str(good), "-o", str(tmp_path / "o.jsonl")]) == 0
    empty = tmp_path / "empty.pzl"
    empty.write_text("")
    report = tmp_path / "r.json"
    assert main(["import", "forge", str(good), str(empty), "-o", str(tmp_path / "o.jsonl"),
                 "--report", str(report)]) == 1
    assert [r["status"] for r in json.loads(report.read_text())] == ["imported", "refused"]
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 1
    assert main(["import", "forge", str(good), "--forge-res", str(tmp_path / "nope")]) == 2
    assert main(["import", "forge", str(tmp_path / "missing.pzl"), "-o", "-"]) == 1
    err = capsys.readouterr().err
    assert "missing.pzl: refused: unreadable" in err and "Traceback" not in err


def test_cardsfolder_zip_reads_like_the_folder(tmp_path: Path, res: CardData) -> None:
    import zipfile

    root = tmp_path / "zipped"
    root.mkdir()
    with zipfile.ZipFile(root / "cardsfolder.zip", "w") as z:
        for path in sorted((res.res / "cardsfolder").rglob("*.txt")):
            z.write(path, str(path.relative_to(res.res / "cardsfolder")))
    text = PUZZLE + "humanbattlefield=Test Leash|AttachedTo:7\naibattlefield=Test Bear|Id:7\n"
    assert run(tmp_path, text, CardData(root)) == run(tmp_path, text, res)
    with pytest.raises(FileNotFoundError):
        CardData(tmp_path / "nothing")


# --- graveyard and exile are public zones (400.2; Forge's ZoneType holds no hidden
# information there): a setup step moving cards into or out of them is imported ----------

def test_a_card_picked_from_a_hand_into_exile_is_left_out_not_ignored(
        tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + ("humanbattlefield=Test Maggot|ExecuteScript:TrigReveal->AI\n"
                     "humanhand=Test Bolt\naihand=Test Bear;Test Bolt\n")
    doc, rec = run(tmp_path, text, res)
    assert rec.status == "partial"  # which card the chooser exiled, the file does not say
    assert rec.left_out == [["p1.hand.1", "setup-choice-unknown"],
                            ["p1.hand.2", "setup-choice-unknown"]]
    assert {o["id"] for o in doc["objects"]} == {"p0.battlefield.1", "p0.hand.1"}
    assert {c["object"] for c in doc["claims"]} == {"p0.battlefield.1", "p0.hand.1"}
    assert contradicted([doc]) == {"f.pzl": set()}


def test_a_listed_card_moved_into_exile_is_moved(tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + ("humanbattlefield=Test Maggot|ExecuteScript:TrigBanish->7\n"
                     "aigraveyard=Test Bear|Id:7;Test Bolt\n")
    doc, rec = run(tmp_path, text, res)
    assert rec.status == "imported" and "setup-move:id7:graveyard>exile" in rec.notes
    objs = {o["id"]: o for o in doc["objects"]}
    assert objs["id7"]["zone"] == "exile" and objs["p1.graveyard.2"]["zone"] == "graveyard"
    text = PUZZLE + "humanbattlefield=Test Maggot|ExecuteScript:TrigBanish->7\n" \
                    "aihand=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)  # not in the zone the ability moves from
    assert doc is None and rec.reason.startswith("setup-targets-unresolved")


def test_moves_whose_order_or_object_is_unknown(tmp_path: Path, res: CardData) -> None:
    # two ExecuteScripts (run in an unspecified order) move one card twice
    text = PUZZLE + ("humanbattlefield=Test Maggot|ExecuteScript:TrigBanish->7;"
                     "Test Maggot|ExecuteScript:TrigReturn->7\naigraveyard=Test Bear|Id:7\n")
    doc, rec = run(tmp_path, text, res)
    assert rec.left_out == [["id7", "order-unknown"]] and rec.status == "partial"
    # a card returned from the battlefield to a hand at load, then a pick from that hand
    text = PUZZLE + ("humanbattlefield=Test Thief|Id:1\naibattlefield=Test Bear|Id:7\n"
                     "humanprecast=1:CustomScript:DB$ ChangeZone | Origin$ Battlefield | "
                     "Destination$ Hand | ValidTgts$ Creature->7;"
                     "1:CustomScript:DB$ ChangeZone | Origin$ Hand | Destination$ Exile | "
                     "ChangeType$ Card | Hidden$ True\n")
    doc, rec = run(tmp_path, text, res)
    assert doc is None and rec.reason.startswith("setup-choice-unresolved")


def test_a_mill_leaves_out_its_players_library_a_draw_is_hidden(tmp_path: Path,
                                                                 res: CardData) -> None:
    text = PUZZLE + ("aibattlefield=Test Maggot|ExecuteScript:TrigMill\n"
                     "humanlibrary=Test Bear\nailibrary=Test Bear;Test Bolt;Test Bear\n")
    doc, rec = run(tmp_path, text, res)
    assert rec.status == "partial"
    assert [o for o, _ in rec.left_out] == ["p1.library.1", "p1.library.2", "p1.library.3"]
    purge = PUZZLE + ("aibattlefield=Test Maggot|ExecuteScript:TrigPurge\n"
                      "humangraveyard=Test Bear\naigraveyard=Test Bolt\n")
    doc, rec = run(tmp_path, purge, res)  # every player's graveyard: Card.OppOwn is not read
    assert [o for o, _ in rec.left_out] == ["p0.graveyard.1", "p1.graveyard.1"]
    text = text.replace("TrigMill", "TrigDraw")
    doc, rec = run(tmp_path, text, res)  # library to hand: hidden zones only
    assert rec.status == "imported" and "ignored-zone-move:Draw" in rec.notes
    assert len(doc["objects"]) == 5


@needs_shared
def test_shared_gonti_exiles_from_a_library_so_the_file_is_partial(cards: CardData) -> None:
    doc, rec = import_file(SHARED / "puzzles" / "PS_XLN0a.pzl", cards)
    # Gonti, Lord of Luxury (TrigDig->AI) exiles one of the AI's top four cards face down
    assert rec.status == "partial"
    assert rec.left_out == [["p1.library.1", "setup-choice-unknown"]]
    assert "forge-effect-card:id7 ExecuteScript:TrigDig" in rec.notes


# --- a spell put on the stack by name has its card's types ----------------------------

def test_a_spell_put_on_the_stack_by_name_has_its_types(tmp_path: Path, res: CardData) -> None:
    text = PUZZLE + "aiputonstack=Test Bolt;Test Stomp;Test Giant\n"
    doc, rec = run(tmp_path, text, res)
    types = {o["id"]: o["types"] for o in doc["objects"]}
    assert types == {"p1.putonstack.1": ["instant"], "p1.putonstack.2": ["instant", "adventure"],
                     "p1.putonstack.3": ["creature", "giant"]}
    assert run(tmp_path, PUZZLE + "aiputonstack=Test Bolts\n", res)[1].reason.startswith(
        "card-unknown")


# --- one rule for Forge's Effect cards, listed or made at load -------------------------

def test_forge_effect_cards_listed_or_made_at_load_are_one_rule(tmp_path: Path,
                                                                 res: CardData) -> None:
    listed = PUZZLE + ("humanbattlefield=Test Bear\n"
                       "humancommand=t:Effect,P:0,T:0,Cost:no cost,Types:Effect,Image:x\n")
    made = PUZZLE + "humanbattlefield=Test Bear;Test Maggot|ExecuteScript:TrigEffect\n"
    a, ra = run(tmp_path, listed, res, "a.pzl")
    b, rb = run(tmp_path, made, res, "b.pzl")
    assert ra.status == rb.status == "imported" and ra.left_out == rb.left_out == []
    assert "forge-effect-card:p0.command.1" in ra.notes
    assert "forge-effect-card:p0.battlefield.2 ExecuteScript:TrigEffect" in rb.notes
    assert [o["id"] for o in a["objects"]] == ["p0.battlefield.1"]
    assert a["effects"] == b["effects"] == []
    emblem = PUZZLE + "humancommand=t:Emblem,P:0,T:0,Cost:no cost,Types:Emblem,Image:x\n"
    assert run(tmp_path, emblem, res)[1].left_out == [["p0.command.1",
                                                     "command-zone-object-unsupported"]]


# --- the page counts partial files apart -----------------------------------------------

def test_page_counts_imported_partial_and_refused_apart(tmp_path: Path, res: CardData,
                                                        capsys: pytest.CaptureFixture) -> None:
    files = {"a.pzl": PUZZLE + "humanbattlefield=Test Bear\n",
             "b.pzl": PUZZLE + "humanbattlefield=Test Bear|PhasedOut\n",
             "c.pzl": PUZZLE + "humanbattlefield=Test Bearr\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    page = tmp_path / "p.html"
    code = main(["import", "forge", *(str(tmp_path / n) for n in files), "--forge-res",
                 str(res.res), "-o", str(tmp_path / "o.jsonl"), "--html", str(page)])
    assert code == 1
    assert "3 file(s): 1 imported, 1 partial, 1 refused" in capsys.readouterr().err
    stats = dict(re.findall(r"<tr><td>([a-z ]+)</td><td>(\d+)</td></tr>", page.read_text()))
    assert {k: stats[k] for k in ("files", "imported", "partial", "refused")} == {
        "files": "3", "imported": "1", "partial": "1", "refused": "1"}


# --- an owner other than the holder: the entry is marked as assumed ---------------------

def test_an_entry_under_a_holder_who_is_not_the_owner_is_marked_assumed(
        tmp_path: Path, res: CardData, capsys: pytest.CaptureFixture) -> None:
    dump = ("turn=4\nactiveplayer=p0\np0life=20\np1life=20\n"
            "p0battlefield=Test Bear|Set:X|Owner:P1;Test Bear|Set:X\n")
    doc, rec = run(tmp_path, dump, res, "state.txt")
    entered = [o["entered"] for o in doc["objects"]]
    assert entered == [{"at": 1, "under": "p0", "assumed": True}, {"at": 2, "under": "p0"}]
    ruling = next(iter(adjudicate_many([(doc, "state.txt")])))
    assert isinstance(ruling, Ruling)
    vias = {b.via for b in ruling.objects["p0.battlefield.1"].because if b.fact == "controller"}
    assert vias == {"assumed to have entered the battlefield at 1 under p0: the snapshot "
                    "records only that it is there under p0, not how it came"}
    snap = tmp_path / "s.json"
    snap.write_text(json.dumps(doc))
    assert main(["explain", str(snap), "p0.battlefield.1"]) == 0
    out = capsys.readouterr().out
    assert "[110.2] assumed to have entered the battlefield at 1 under p0" in out
    assert "entered the battlefield at 1 under p0\n" not in out
    puzzle = PUZZLE + "humanbattlefield=Test Bear|Owner:AI\n"
    doc, rec = run(tmp_path, puzzle, res)
    assert doc["objects"][0]["entered"]["assumed"] is True
    assert "control-cause-not-recorded:p0.battlefield.1" in rec.notes


# --- a face-down card has no script to run (CardUtil.getFaceDownCharacteristic) --------

def test_a_face_down_cards_setup_script_is_not_run(tmp_path: Path, res: CardData) -> None:
    for modifier in ("FaceDown", "FaceDown:Manifested"):
        text = PUZZLE + (f"humanbattlefield=Test Thief|{modifier}|ExecuteScript:TrigSteal->7\n"
                         "aibattlefield=Test Bear|Id:7\n")
        doc, rec = run(tmp_path, text, res)
        assert rec.status == "imported" and doc["effects"] == [] and rec.superseded == []
        assert "face-down-no-script:p0.battlefield.1 ExecuteScript:TrigSteal" in rec.notes
        assert {"object": "id7", "controller": "p1"} in doc["claims"]
    text = PUZZLE + ("humanbattlefield=Test Thief|Id:3|FaceDown\nhumanprecast=3:TrigSteal->7\n"
                     "aibattlefield=Test Bear|Id:7\n")
    doc, rec = run(tmp_path, text, res)
    assert doc["effects"] == [] and "face-down-no-script:p0precast:3:TrigSteal->7" in rec.notes
    # a CustomScript is the file's own text: Forge runs it from the face-down card
    text = PUZZLE + ("humanbattlefield=Test Thief|Id:3|FaceDown\nhumanprecast=3:CustomScript:"
                     "DB$ GainControl | ValidTgts$ Creature->7\naibattlefield=Test Bear|Id:7\n")
    doc, rec = run(tmp_path, text, res)
    assert rec.superseded == [["id7", "e1"]] and contradicted([doc]) == {"f.pzl": {"id7"}}
    text = PUZZLE + "humanexile=Test Thief|Foretold|ExecuteScript:TrigSteal->7\n" \
                    "aibattlefield=Test Bear|Id:7\n"
    doc, rec = run(tmp_path, text, res)  # a foretold card is face down in exile too
    assert doc["objects"][0]["face_down"] is True and doc["effects"] == []
