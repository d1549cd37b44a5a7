"""Input errors in snapshots: each kind is reported with the snapshot's name, the exact JSON
path and plain wording (mtgcontrol.engine.validate)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mtgcontrol.engine.validate import InputProblem, problems, snapshot_name

# The example of the snapshot format contract (snapshot-format.md, "Example"), verbatim.
SPEC_EXAMPLE_JSON = """
{"players": ["alice", "bob"], "active_player": "bob", "now": 20,
 "objects": [
  {"id": "bear", "kind": "card", "zone": "battlefield", "types": ["creature"],
   "start": {"zone": "library", "player": "alice"}, "entered": {"at": 3, "under": "alice"}},
  {"id": "magic", "kind": "card", "zone": "battlefield", "types": ["enchantment", "aura"],
   "start": {"zone": "library", "player": "bob"}, "entered": {"at": 10, "under": "bob"},
   "attached_to": "bear"}],
 "effects": [
  {"id": "e1", "kind": "control", "origin": "static", "source": "magic",
   "attached": true, "timestamp": 10}]}
"""


def example() -> dict[str, Any]:
    return json.loads(SPEC_EXAMPLE_JSON)


def named(doc: dict[str, Any], name: str = "s1") -> dict[str, Any]:
    doc["id"] = name
    return doc


def only_problem(doc: object, fallback: str = "file.json") -> InputProblem:
    found = problems(doc, fallback)
    assert len(found) == 1, [str(p) for p in found]
    return found[0]


def assert_problem(
    doc: object, snapshot: str, path: str, *wording: str, fallback: str = "file.json"
) -> InputProblem:
    problem = only_problem(doc, fallback)
    assert problem.snapshot == snapshot
    assert problem.path == path
    for part in wording:
        assert part in problem.expected, problem.expected
    assert str(problem) == f"{problem.snapshot}: {path}: expected {problem.expected}"
    return problem


# --- valid input ----------------------------------------------------------------------------


def test_spec_example_is_valid() -> None:
    assert problems(example(), "example") == []


def test_rich_valid_snapshot_is_valid() -> None:
    doc = {
        "format": "snapshot/1",
        "id": "rich",
        "rules": "2026-08-07",
        "note": "every part of the format once",
        "players": ["alice", "bob", {"id": "carol", "left_at": 30}],
        "active_player": "bob",
        "now": 5,  # earlier than timestamps below: allowed
        "turns": [{"player": "alice", "from": 0}, {"player": "bob", "from": 12}],
        "options": {"planechase": "single-planar-deck"},
        "objects": [
            {
                "id": "bear",
                "kind": "card",
                "zone": "battlefield",
                "types": ["creature"],
                "tapped": True,
                "tapped_since": 13,
                "face_down": False,
                "zone_since": 3,
                "abilities": [{"id": "bear-pump", "kind": "activated", "granted_by": "magic"}],
                "start": {"zone": "library", "player": "alice"},
                "entered": {
                    "at": 3,
                    "under": "alice",
                    "spell_put_on_stack_by": "alice",
                    "spell_control_effect": "e2",
                },
            },
            {
                "id": "magic",
                "kind": "card",
                "zone": "battlefield",
                "note": "aura",
                "start": {"zone": "sideboard", "player": "bob"},
                "attached_to": "bear",
                "attached_at": 11,
                "turned_face_up_at": 11,
                "entered": {"at": 10, "under": "bob"},
            },
            {"id": "wish", "kind": "card", "zone": "outside", "legal_owner": "bob"},
            {"id": "ring", "kind": "card", "zone": "hand", "brought_in_by": "carol"},
            {
                "id": "old",
                "kind": "card",
                "zone": "graveyard",
                "left_battlefield": {"at": 9, "attached_to": "bear"},
            },
            {
                "id": "tok",
                "kind": "token",
                "zone": "battlefield",
                "created": {"at": 4, "by": "bob"},
            },
            {
                "id": "cp",
                "kind": "copy",
                "zone": "stack",
                "copy_of": "ring",
                "created": {"at": 14, "by": "bob", "may_cast": True},
                "put_on_stack": {"at": 14, "by": "bob"},
            },
            {"id": "emb", "kind": "emblem", "zone": "command", "created": {"at": 2, "by": "alice"}},
            {
                "id": "act",
                "kind": "ability",
                "zone": "stack",
                "source": "bear",
                "ability": "activated",
                "activated": {"at": 15, "by": "alice"},
            },
            {
                "id": "dt",
                "kind": "ability",
                "zone": "stack",
                "source": "old",
                "ability": "delayed-triggered",
                "waiting": True,
                "triggered": {"at": 16, "source_zone": "battlefield"},
                "created_by": {"object": "cp", "at": 14},
            },
            {
                "id": "dt2",
                "kind": "ability",
                "zone": "gone",
                "source": "magic",
                "ability": "delayed-triggered",
                "created_by_static_of": {"object": "magic", "at": 12, "via": "replacement"},
            },
        ],
        "effects": [
            {
                "id": "e1",
                "kind": "control",
                "origin": "static",
                "source": "magic",
                "attached": True,
                "timestamp": 10,
                "duration": "while-attached",
            },
            {
                "id": "e2",
                "kind": "control",
                "origin": "resolution",
                "source": "act",
                "player": "bob",
                "objects": ["bear", "tok"],
                "timestamp": 15,
                "duration": "end-of-turn",
                "ended_at": 20,
                "note": "Act of Treason",
            },
            {
                "id": "e3",
                "kind": "exchange",
                "origin": "resolution",
                "source": "act",
                "objects": ["bear", "tok"],
                "timestamp": 17,
            },
            {
                "id": "e4",
                "kind": "control-player",
                "source": "emb",
                "player": "alice",
                "controlled": "bob",
                "timestamp": 18,
            },
        ],
        "claims": [
            {"object": "bear", "controller": "bob"},
            {"object": "act", "controller": None, "owner": None},
            {"object": "tok", "owner": "bob"},
        ],
    }
    assert problems(doc, "rich.json") == []


# --- one test per kind of input error -------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "found"),
    [
        (None, "got null"),
        ([], "got a list of 0 items"),
        (3, "got the number 3"),
        ("{}", 'got the string "{}"'),
    ],
)
def test_not_an_object(doc: object, found: str) -> None:
    assert_problem(doc, "stdin", "$", "a snapshot (a JSON object)", found, fallback="stdin")


def test_missing_players() -> None:
    doc = named(example(), "no-players")
    del doc["players"]
    assert_problem(doc, "no-players", "$.players", 'required field "players"', "missing")


def test_empty_players() -> None:
    doc = named(example())
    doc["players"] = []
    assert_problem(doc, "s1", "$.players", "at least one", "got 0 items")


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("3", 'got the string "3"'),
        (3.0, "got the number 3.0"),
        (True, "got true"),
        (-1, "got the number -1"),
        (None, "got null"),
    ],
)
def test_timestamp_of_wrong_type(value: object, found: str) -> None:
    doc = example()
    doc["objects"][0]["entered"]["at"] = value
    assert_problem(
        doc,
        "line 17",
        "$.objects[0].entered.at",
        "a timestamp",
        "integer",
        found,
        fallback="line 17",
    )


def test_unknown_kind() -> None:
    doc = named(example())
    doc["objects"][1]["kind"] = "enchantment"
    assert_problem(
        doc,
        "s1",
        "$.objects[1].kind",
        '"card", "token", "copy", "emblem", "ability"',
        'got "enchantment"',
    )


def test_unknown_effect_kind() -> None:
    doc = named(example())
    doc["effects"][0]["kind"] = "gain-control"
    assert_problem(
        doc,
        "s1",
        "$.effects[0].kind",
        '"control", "exchange", "control-player"',
        'got "gain-control"',
    )


def test_unknown_zone() -> None:
    doc = named(example())
    doc["objects"][0]["zone"] = "sideboard"
    assert_problem(doc, "s1", "$.objects[0].zone", "a zone", '"outside"', 'got "sideboard"')


def test_unknown_player_in_entered_under() -> None:
    doc = named(example())
    doc["objects"][1]["entered"]["under"] = "carol"
    assert_problem(
        doc, "s1", "$.objects[1].entered.under", 'a player id listed in $.players, got "carol"'
    )


def test_unknown_player_in_effect_and_turns() -> None:
    doc = named(example())
    doc["turns"] = [{"player": "dave", "from": 0}]
    found = problems(doc, "f")
    assert [(p.path, p.expected) for p in found] == [
        ("$.turns[0].player", 'a player id listed in $.players, got "dave"')
    ]


def test_unknown_object_in_attached_to() -> None:
    doc = named(example())
    doc["objects"][1]["attached_to"] = "beat"
    assert_problem(
        doc, "s1", "$.objects[1].attached_to", 'an object id listed in $.objects, got "beat"'
    )


def test_object_attached_to_itself() -> None:
    doc = named(example())
    doc["objects"][1]["attached_to"] = "magic"
    assert_problem(
        doc, "s1", "$.objects[1].attached_to", "cannot be attached to itself", 'got "magic"'
    )


def test_duplicate_object_id() -> None:
    doc = named(example())
    doc["objects"].append({"id": "bear", "kind": "token", "zone": "hand"})
    assert_problem(
        doc,
        "s1",
        "$.objects[2].id",
        'a unique object id, got "bear" again',
        "first at $.objects[0].id",
    )


def test_duplicate_player_id() -> None:
    doc = named(example())
    doc["players"].append({"id": "alice", "left_at": 12})
    assert_problem(
        doc,
        "s1",
        "$.players[2].id",
        'a unique player id, got "alice" again',
        "first at $.players[0]",
    )


def test_ability_id_colliding_with_object_id() -> None:
    doc = named(example())
    doc["objects"][0]["abilities"] = [{"id": "magic", "kind": "activated"}]
    assert_problem(
        doc, "s1", "$.objects[0].abilities[0].id", "different from every object id", "$.objects[1]"
    )


def test_static_effect_with_player() -> None:
    doc = named(example())
    doc["effects"][0]["player"] = "bob"
    assert_problem(
        doc, "s1", "$.effects[0].player", 'no "player" field on a static effect', 'got "bob"'
    )


def test_resolution_effect_with_attached() -> None:
    doc = named(example())
    doc["effects"][0]["origin"] = "resolution"
    assert_problem(doc, "s1", "$.effects[0].attached", 'no "attached" field on a "resolution"')


def test_control_effect_without_origin() -> None:
    doc = named(example())
    del doc["effects"][0]["origin"]
    assert_problem(
        doc,
        "s1",
        "$.effects[0].origin",
        'field "origin"',
        'required for a "control" effect',
        "missing",
    )


def test_control_effect_with_objects_and_attached() -> None:
    doc = named(example())
    doc["effects"][0]["objects"] = ["bear"]
    assert_problem(
        doc,
        "s1",
        "$.effects[0]",
        'exactly one of the fields "objects" or "attached"',
        'got "objects" and "attached"',
    )


def test_exchange_with_one_object() -> None:
    doc = named(example())
    doc["effects"].append(
        {"id": "swap", "kind": "exchange", "source": "magic", "objects": ["bear"], "timestamp": 12}
    )
    assert_problem(doc, "s1", "$.effects[1].objects", "exactly 2", "got 1 item")


def test_control_player_without_controlled() -> None:
    doc = named(example())
    doc["effects"].append(
        {
            "id": "slaver",
            "kind": "control-player",
            "source": "magic",
            "player": "alice",
            "timestamp": 12,
        }
    )
    assert_problem(
        doc, "s1", "$.effects[1].controlled", 'field "controlled"', '"control-player" effect'
    )


def test_ability_object_without_source() -> None:
    doc = named(example())
    doc["objects"].append(
        {
            "id": "trig",
            "kind": "ability",
            "zone": "stack",
            "ability": "triggered",
            "triggered": {"at": 11, "source_zone": "hand"},
        }
    )
    assert_problem(doc, "s1", "$.objects[2].source", 'field "source"', 'object of kind "ability"')


def test_spell_control_effect_unknown() -> None:
    doc = named(example())
    doc["objects"][0]["entered"]["spell_control_effect"] = "e9"
    assert_problem(
        doc,
        "s1",
        "$.objects[0].entered.spell_control_effect",
        'an effect id listed in $.effects, got "e9"',
    )


def test_claim_about_unknown_object() -> None:
    doc = named(example())
    doc["claims"] = [{"object": "bear", "controller": "bob"}, {"object": "dragon", "owner": None}]
    assert_problem(
        doc, "s1", "$.claims[1].object", 'an object id listed in $.objects, got "dragon"'
    )


def test_claim_without_controller_or_owner() -> None:
    doc = named(example())
    doc["claims"] = [{"object": "bear"}]
    assert_problem(doc, "s1", "$.claims[0]", '"controller" or "owner"', "found neither")


def test_unknown_field_typo_in_object() -> None:
    doc = named(example())
    doc["objects"][0]["enterd"] = doc["objects"][0].pop("entered")
    assert_problem(
        doc, "s1", "$.objects[0].enterd", 'unknown field "enterd"', 'did you mean "entered"?'
    )


def test_turns_out_of_order() -> None:
    doc = named(example())
    doc["turns"] = [
        {"player": "alice", "from": 0},
        {"player": "bob", "from": 8},
        {"player": "alice", "from": 8},
    ]
    assert_problem(doc, "s1", "$.turns[2].from", "later than the previous turn's start", "got 8")



@pytest.mark.parametrize(("phasing", "path", "expected"), [
    ([{"out_at": 5, "in_at": 5}], "$.objects[0].phasing[0].in_at", "later than 5"),
    ([{"out_at": 5, "in_at": 7}, {"out_at": 6}], "$.objects[0].phasing[1].out_at",
     "later than 7"),
    ([{"out_at": 5}, {"out_at": 9}], "$.objects[0].phasing[0]", "only the last entry"),
    ([{"in_at": 5}], "$.objects[0].phasing[0].out_at", "required"),
])
def test_phasing_out_of_order(phasing: list[dict[str, int]], path: str, expected: str) -> None:
    doc = named(example())
    doc["objects"][0]["phasing"] = phasing
    assert_problem(doc, "s1", path, expected)

def test_wrong_format_version() -> None:
    doc = named(example())
    doc["format"] = "snapshot/2"
    assert_problem(doc, "s1", "$.format", '"snapshot/1"', 'got "snapshot/2"')


def test_now_earlier_than_history_is_allowed() -> None:
    doc = example()
    doc["now"] = 0
    assert problems(doc, "f") == []


# --- hostile ids ----------------------------------------------------------------------------

HOSTILE = {
    "alice": 'al"ice',
    "bob": "bob). owner(x,y) :- true. %",
    "bear": "bear\nline two\r\t\u202e\u2028",
    "magic": "магия ✨ 魔法 \U0001f409",
    "e1": "x" * 10240,
}


def hostile_example() -> dict[str, Any]:
    text = SPEC_EXAMPLE_JSON
    for plain, nasty in HOSTILE.items():
        text = text.replace(f'"{plain}"', json.dumps(nasty))
    doc = json.loads(text)
    doc["id"] = 'snap "7"\n:- %'
    return doc


def test_hostile_ids_are_valid() -> None:
    doc = hostile_example()
    assert doc["objects"][1]["attached_to"] == HOSTILE["bear"]
    assert doc["effects"][0]["id"] == HOSTILE["e1"]
    assert problems(doc, "f") == []


def test_hostile_ids_in_an_invalid_snapshot() -> None:
    doc = hostile_example()
    doc["objects"][1]["entered"]["under"] = "y" * 10000 + "\n"
    doc["objects"][0]["attached_to"] = "\u202e" + HOSTILE["e1"]
    found = problems(doc, "f")
    assert [p.path for p in found] == ["$.objects[0].attached_to", "$.objects[1].entered.under"]
    for p in found:
        assert p.snapshot == 'snap "7"\n:- %'
        text = str(p)
        assert "\n" not in text and "\u202e" not in text
        assert len(text) < 300
        assert text.startswith('"snap \\"7\\"\\n:- %": ')
    assert found[0].expected.startswith('an object id listed in $.objects, got "\\u202exxx')
    assert "… (10241 characters)" in found[0].expected
    assert "… (10001 characters)" in found[1].expected


def test_hostile_unknown_field_name() -> None:
    doc = named(example())
    doc["objects"][0]['we"ird\nkey'] = 1
    assert_problem(doc, "s1", '$.objects[0]["we\\"ird\\nkey"]', 'unknown field "we\\"ird\\nkey"')


# --- robustness and helpers -----------------------------------------------------------------

JUNK: list[object] = [
    None,
    True,
    0,
    -5,
    2.5,
    float("nan"),
    "",
    "x" * 5000,
    [],
    {},
    [[{}]],
    {"players": None},
    (1, 2),
    {1: 2},
    object(),
]


@pytest.mark.parametrize("junk", JUNK, ids=lambda j: type(j).__name__)
def test_never_raises(junk: object) -> None:
    assert problems(junk, "junk")
    base = example()
    for mutate in (
        lambda d: d.__setitem__("objects", junk),
        lambda d: d["objects"].append(junk),
        lambda d: d["objects"][0].__setitem__("entered", junk),
        lambda d: d["objects"][0]["start"].__setitem__("player", junk),
        lambda d: d["effects"][0].__setitem__(junk if isinstance(junk, str) else "x", junk),
        lambda d: d.__setitem__("claims", [junk]),
    ):
        doc = copy.deepcopy(base)
        mutate(doc)
        for p in problems(doc, "junk"):
            assert len(str(p)) < 700


def test_problems_are_sorted_by_path() -> None:
    doc = named(example())
    for i in range(12):
        doc["objects"].append({"id": f"o{i}", "kind": "card", "zone": "hand"})
    doc["objects"][11]["zone"] = "nowhere"
    doc["objects"][2]["zone"] = "nowhere"
    doc["active_player"] = 7
    assert [p.path for p in problems(doc, "f")] == [
        "$.active_player",
        "$.objects[2].zone",
        "$.objects[11].zone",
    ]


def test_snapshot_name() -> None:
    assert snapshot_name({"id": "s9"}, "f.json") == "s9"
    assert snapshot_name({"id": ""}, "f.json") == "f.json"
    assert snapshot_name({"id": 3}, "f.json") == "f.json"
    assert snapshot_name(None, "stdin") == "stdin"


def test_compiled_schema_never_accepts_what_the_schema_rejects() -> None:
    """The fast path (compiled schema) must agree with jsonschema on every
    document it accepts: random mutations of valid snapshots."""
    import random
    from collections.abc import Iterator

    from mtgcontrol.engine.validate import _quick_valid, _schema_problems

    rng = random.Random(7)
    values = [None, 0, -1, 1.5, 3.0, "x", "", True, [], {}, "carol", "battlefield",
              {"at": 1}, [1], "2026-13-45", 10**12, "static", {"zone": "library"}]

    def paths(doc: object, path: tuple = ()) -> Iterator[tuple]:
        yield path
        items = doc.items() if isinstance(doc, dict) else enumerate(doc) \
            if isinstance(doc, list) else ()
        for key, value in items:
            yield from paths(value, (*path, key))

    for _ in range(1500):
        doc = example()
        *parents, last = rng.choice(list(paths(doc))[1:])
        parent: Any = doc
        for key in parents:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.3:
            del parent[last]
        else:
            parent[last] = rng.choice(values)
        if _quick_valid(doc):
            assert not list(_schema_problems(doc)), doc


@pytest.mark.parametrize("value", [2**31, 2**63, 2**64 + 5, -(2**64), 10**4000, 10**5000],
                         ids=["2^31", "2^63", "2^64+5", "-2^64", "4001 digits", "5001 digits"])
def test_integers_beyond_any_bound_are_refused_with_their_path(value: int) -> None:
    # jsonschema-rs passed integers beyond 64 bits, and jsonschema's own message cannot
    # print one of more than 4300 digits: the ruling's JSON writer crashed on it later.
    doc = named(example())
    doc["effects"][0]["timestamp"] = value
    problem = assert_problem(doc, "s1", "$.effects[0].timestamp", "from 0 to 1000000000")
    shown = f"number {value}" if value.bit_length() < 100 else "…"
    assert problem.expected.endswith(("got a very large integer", shown))
