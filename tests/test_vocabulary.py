"""vocabulary.py, the snapshot <-> ASP vocabulary, against everything that uses it:
the #defined lines of base.lp, the facts facts.py writes (over every scenario and a
generated corpus), the #show lines of the ruling lens (show/ruling.lp), the tables of
docs/predicates.md, the JSON Schema and the reference checks of validate.py."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from test_differential import corpus_module
from test_engine import all_snapshots
from test_predicates_doc import INPUT, OUTPUT, defined, documented, shown

from mtgcontrol.engine import facts, vocabulary
from mtgcontrol.engine.facts import Names, snapshot_facts
from mtgcontrol.engine.validate import problems

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "pyapi" / "mtgcontrol" / "schema" / "snapshot.schema.json"
FACT = re.compile(r"^([a-z_]\w*)\((.*)\)\.$")


def emitted_predicates() -> set[str]:
    make = corpus_module()
    rng = random.Random(3)
    docs = [doc for _, doc in all_snapshots()]
    docs += [make.realistic(rng, i) for i in range(300)]
    found: set[str] = set()
    for doc in docs:
        if problems(doc, "x"):
            continue
        for line in snapshot_facts(doc, 0, "v", Names()).splitlines():
            match = FACT.match(line)
            assert match, line
            found.add(f"{match[1]}/{len(match[2].split(','))}")
    return found


def test_defined_lines_of_base_lp_come_from_the_vocabulary() -> None:
    wanted = set(vocabulary.defined_lines().replace("#defined ", "").replace(".", "")
                 .splitlines())
    assert defined() == wanted


def test_facts_py_writes_exactly_the_vocabulary() -> None:
    declared = {f"{i.pred}/{i.arity}" for i in vocabulary.INPUTS.values()}
    assert emitted_predicates() == declared


def test_shown_predicates_are_the_vocabulary_outputs() -> None:
    assert shown() == {f"{p}/{a}" for p, a in vocabulary.SHOWN_ARITY.items()}


def test_docs_tables_list_the_vocabulary() -> None:
    assert set(documented(INPUT)) == {f"{i.pred}/{i.arity}" for i in vocabulary.INPUTS.values()}
    assert set(documented(OUTPUT)) == {f"{p}/{a}" for p, a in vocabulary.SHOWN_ARITY.items()}


def schema_properties() -> set[str]:
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(SCHEMA.read_text()))
    return names


def test_every_json_path_names_schema_fields() -> None:
    names = schema_properties()
    for item in vocabulary.INPUTS.values():
        if item.path.startswith("("):
            continue  # not a snapshot field (engine context)
        for field in re.findall(r"[.$]\.?([a-z_]+)", item.path.split(" (")[0]):
            assert field in names, f"{item.pred}: {field!r} of {item.path!r} is not in the schema"
    for path, _ in vocabulary.OBJECT_REFS:
        assert set(path) <= names, path


def test_every_reference_field_is_checked() -> None:
    doc = json.loads((ROOT / "examples" / "01-mind-control.json").read_text())
    for path, _kind in vocabulary.OBJECT_REFS:
        bad = json.loads(json.dumps(doc))
        target = bad["objects"][0]
        for key in path[:-1]:
            target = target.setdefault(key, {"at": 1, "via": "replacement"}
                                       if key == "created_by_static_of" else {"at": 1})
        target[path[-1]] = "nobody-knows"
        found = [(p.path, p.expected) for p in problems(bad, "x")]
        where = "$.objects[0]." + ".".join(path)
        assert any(at == where and "listed in" in text for at, text in found), (path, found)


def test_every_timestamp_of_the_schema_is_read_as_a_time() -> None:
    """facts.TIME_PATHS (the fields read as ``:t``) are the schema's timestamps: the
    ranked clock and the default ``now`` see every one of them."""
    schema = json.loads(SCHEMA.read_text())
    found: set[str] = set()

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            if node.get("$ref") == "#/$defs/timestamp":
                found.add(path)
            for key, value in node.items():
                if key == "properties":
                    for name, sub in value.items():
                        walk(sub, f"{path}.{name}")
                elif key == "items":
                    walk(value, f"{path}[]")
                elif key == "$defs":
                    for name, sub in value.items():
                        walk(sub, f"#{name}")
                else:
                    walk(value, path)
        elif isinstance(node, list):
            for sub in node:
                walk(sub, path)
    walk(schema, "$")
    # the $defs reached from the root: each list of records, and its entries' path
    lists = {"#object": "$.objects[]", "#effect": "$.effects[]", "#player_entry": "$.players[]",
             "#turn": "$.turns[]"}
    schema_times = {lists.get(p.split(".")[0], p.split(".")[0]) + p[len(p.split(".")[0]):]
                    for p in found}
    read_times = {"$." + ".".join(path) for path in facts.TIME_PATHS}
    assert schema_times == read_times


def test_object_references_are_the_inputs_reading_a_player_object_or_effect() -> None:
    """OBJECT_REFS is derived from INPUTS: each object field an input reads as a p, o or
    e (not its own id, not inside a list of the object) is checked by validate.py."""
    refs = dict(vocabulary.OBJECT_REFS)
    assert len(refs) == len(vocabulary.OBJECT_REFS)
    assert refs[("entered", "spell_control_effect")] == "e"
    assert refs[("created_by_static_of", "object")] == "o"
    assert refs[("start", "player")] == "p"
    for entry in vocabulary.INPUTS.values():
        for reading in entry.readings:
            if reading.path[0] != "objects[]" or "abilities[]" in reading.path:
                continue
            for arg in reading.args:
                path = tuple(reading.key_path(arg.key)[1:] if arg.key else reading.path[1:])
                if arg.kind in "poe" and arg.key not in ("id", "@") and \
                        not any(k.endswith("[]") for k in path):
                    assert refs.get(path) == arg.kind, (entry.pred, path)


def test_the_generator_speaks_the_input_table() -> None:
    """generator.lp's facts are g_P for an input P of INPUTS (the bridge's one rule each
    is derived from the table, research/space.py); search/bridge.lp, written by hand,
    defines of the inputs only those the table says are bridged by hand."""
    import clingo

    from mtgcontrol.research import space

    text = (ROOT / "encodings" / "generator.lp").read_text(encoding="utf-8")
    for name, arity in space.generator_heads(text):
        pred = name.removeprefix("g_")
        assert pred in vocabulary.INPUTS or name == "g_now", name
        if pred in vocabulary.INPUTS:
            assert arity == vocabulary.INPUTS[pred].arity - 1, name
    heads: set[str] = set()

    def visit(stm: clingo.ast.AST) -> None:
        if stm.ast_type == clingo.ast.ASTType.Rule and hasattr(stm.head, "atom"):
            symbol = getattr(stm.head.atom, "symbol", None)
            if symbol is not None and symbol.ast_type == clingo.ast.ASTType.Function:
                heads.add(symbol.name)

    clingo.ast.parse_string((ROOT / "encodings" / "search" / "bridge.lp")
                            .read_text(encoding="utf-8"), visit)
    assert heads & set(vocabulary.INPUTS) == set(space.BY_HAND)
    generated = {g.pred for g in space.generated()}
    assert generated | set(space.BY_HAND) | set(space.EXCLUDED) == set(vocabulary.INPUTS)
    assert not generated & set(space.BY_HAND) and not generated & set(space.EXCLUDED)
