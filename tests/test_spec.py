"""Spec files: load, validate (every problem, with file:line and spec path), write back, JSON Schema."""

import copy
import json

import jsonschema
import pytest
import yaml

from blue_nb.errors import SpecError
from blue_nb.spec import (dump_spec, dumps_spec, json_schema, load_spec, loads_spec, named_pattern_path, pattern_path,
                           schema_path, spec_from_dict)

EXAMPLES = ["dialogue", "document"]


@pytest.fixture
def raw(root):
    return yaml.safe_load((root / "data/specs/dialogue.yaml").read_text())


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_specs_load(root, name):
    spec = load_spec(root / f"data/specs/{name}.yaml")
    assert spec.domain == name and spec.table_name == f"blue_{name}"
    assert spec.table.partition_key == "pk" and spec.table.sort_key == "sk"


def test_dialogue_keys_are_the_adrs(dialogue_spec):
    keys = {n: (e.key["pk"], e.key["sk"]) for n, e in dialogue_spec.entities.items()}
    assert keys == {
        "Dialogue": ("{dialogue_id}", "META"),
        "Expert": ("{dialogue_id}", "EXPERT#{expert}"),
        "Perspective": ("{dialogue_id}", "PERSP#{round}#{expert}#{seq}"),
        "Tension": ("{dialogue_id}", "TENSION#{tension_id}"),
        "TensionEvent": ("{dialogue_id}", "TEVENT#{tension_id}#{ts}"),
    }
    attrs = {n: sorted(e.attributes) for n, e in dialogue_spec.entities.items()}
    assert attrs["Dialogue"] == ["created_at", "status", "title"]
    assert attrs["Expert"] == ["role", "score", "tier"]
    assert attrs["Perspective"] == ["content", "label", "status"]
    assert attrs["TensionEvent"] == ["actor", "event_type", "reason"]


def test_document_keys_are_the_adrs(document_spec):
    keys = {n: (e.key["pk"], e.key["sk"]) for n, e in document_spec.entities.items()}
    assert keys == {"Realm": ("{realm_id}", "META"), "Document": ("{realm_id}", "DOC#{doc_type}#{doc_number}"),
                    "Link": ("{realm_id}", "LINK#{from_doc}#{to_doc}")}


@pytest.mark.parametrize("name, min_patterns", [("dialogue", 6), ("document", 5)])
def test_example_access_patterns(root, name, min_patterns):
    spec = load_spec(root / f"data/specs/{name}.yaml")
    ops = [p.operation for p in spec.access_patterns]
    assert len(ops) >= min_patterns
    assert {"put_item"} & set(ops) and {"query", "get_item"} <= set(ops)    # reads and writes
    assert any(p.index == "gsi1" for p in spec.access_patterns)             # the GSI serves a pattern
    # every pattern has a rate, or is called only as an action of a transaction or batch that has one
    actions = {a.pattern for p in spec.access_patterns if p.rate_per_second for a in p.actions}
    assert all(p.rate_per_second > 0 or p.name in actions for p in spec.access_patterns)
    assert any(p.hot for p in spec.access_patterns) and not all(p.hot for p in spec.access_patterns)
    assert all(e.writer for e in spec.entities.values())


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_write_back_round_trip(root, tmp_path, name, fmt):
    spec = load_spec(root / f"data/specs/{name}.yaml")
    path = dump_spec(spec, tmp_path / f"{name}.{fmt}")
    again = load_spec(path)
    assert again == spec
    assert dumps_spec(again, fmt) == path.read_text()                       # stable output
    if fmt == "json":
        assert json.loads(path.read_text())["spec_version"] == 1


def test_unknown_fields_rejected_by_name_with_line(root):
    text = (root / "data/specs/dialogue.yaml").read_text()
    bad = text.replace("sort_key: sk", "sortkey: sk", 1).replace("writer: tension-tracker", "writter: x")
    with pytest.raises(SpecError) as e:
        loads_spec(bad, source="d.yaml")
    wheres = [p.where for p in e.value.problems]
    line = text.splitlines().index("  sort_key: sk") + 1
    assert f"d.yaml:{line} table.sortkey" in wheres
    assert any(w.endswith("entities.TensionEvent.writter") for w in wheres)
    assert "did you mean 'sort_key'?" in str(e.value)
    assert len(e.value.problems) == 2                                       # the missing sort_key is not required


def test_every_problem_is_collected(raw):
    raw["domain"] = "Bad-Domain"
    raw["table"]["billing_mode"] = "ON_DEMAND"
    raw["entities"]["Expert"]["attributes"]["score"] = "NUMBER"
    raw["access_patterns"][0]["operation"] = "get"
    raw["access_patterns"][1]["rate_per_second"] = -1
    with pytest.raises(SpecError) as e:
        spec_from_dict(raw, source="s.yaml")
    paths = sorted(p.where.split(" ", 1)[1] for p in e.value.problems)        # a pattern named as well as numbered
    assert paths == ["access_patterns[0] (get_dialogue).operation", "access_patterns[1] (list_experts).rate_per_second", "domain",
                     "entities.Expert.attributes.score", "table.billing_mode"]


@pytest.mark.parametrize("mutate, where, message", [
    # cross references and combinations the format forbids
    (lambda d: d["access_patterns"][0].update(entities=["Nope"]), "access_patterns[0].entities[0]", "unknown entity"),
    (lambda d: d["access_patterns"][6].update(index="gsi9"), "access_patterns[6].index", "unknown index"),
    (lambda d: d["access_patterns"][6].update(consistent_read=True), "access_patterns[6].consistent_read",
     "eventually consistent only"),
    (lambda d: d["access_patterns"][0]["key_condition"].pop("sk"), "access_patterns[0].key_condition",
     "needs the full key"),
    (lambda d: d["access_patterns"][1].pop("key_condition"), "access_patterns[1].key_condition", "needs a key_condition"),
    (lambda d: d["access_patterns"][1]["key_condition"].update(sk_gt="A"), "access_patterns[1].key_condition",
     "at most one sort-key condition"),
    (lambda d: d["access_patterns"][1].update(joins=[{"pattern": "nope"}]), "access_patterns[1].joins[0].pattern",
     "unknown access pattern"),
    (lambda d: d["access_patterns"][1].update(name="get_dialogue"), "access_patterns[1].name", "more than once"),
    (lambda d: d["entities"]["Expert"]["key"].pop("sk"), "entities.Expert.key", "no template for the table key 'sk'"),
    (lambda d: d["entities"]["Expert"]["key"].update(sk="EXPERT#{expert"), "entities.Expert.key.sk", "malformed"),
    (lambda d: d["entities"]["Expert"]["key"].update(other="{x}"), "entities.Expert.key.other", "not a key"),
    (lambda d: d["table"].update(billing_mode="PROVISIONED"), "table.read_capacity", "PROVISIONED billing"),
    (lambda d: d["table"]["indexes"]["gsi1"].pop("partition_key"), "table.indexes.gsi1.partition_key",
     "needs a partition_key"),
    (lambda d: d["table"]["indexes"].update(lsi1={"type": "local"}), "table.indexes.lsi1.sort_key", "needs a sort_key"),
    (lambda d: d.update(spec_version=2), "spec_version", "one of 1"),
    (lambda d: d["access_patterns"][0].update(key_distribution="zipf"), "access_patterns[0].key_distribution",
     "does not match"),
])
def test_semantic_problems(raw, mutate, where, message):
    mutate(raw)
    with pytest.raises(SpecError) as e:
        spec_from_dict(raw)
    named = named_pattern_path(where, [p["name"] for p in raw["access_patterns"]])   # access_patterns[1] (list_experts)
    assert named == where or named.startswith(where.split(".")[0] + " (")
    found = [p for p in e.value.problems if p.where.split(" ", 1)[-1] == named]
    assert found and message in found[0].message, [str(p) for p in e.value.problems]


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(SpecError, match="cannot read spec file"):
        load_spec(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("domain: x\ntable: [unclosed\n")
    with pytest.raises(SpecError) as e:
        load_spec(bad)
    assert e.value.where.startswith(f"{bad}:")
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    with pytest.raises(SpecError, match="expected a mapping"):
        load_spec(empty)


def test_shipped_schema_is_current():
    assert json.loads(schema_path().read_text()) == json_schema()


@pytest.mark.parametrize("name", EXAMPLES)
def test_schema_accepts_examples(root, name):
    schema = json.loads(schema_path().read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(yaml.safe_load((root / f"data/specs/{name}.yaml").read_text()), schema)


@pytest.mark.parametrize("mutate", [
    lambda d: d["table"].update(sortkey="sk"),                              # unknown field
    lambda d: d.pop("entities"),                                            # required field
    lambda d: d.update(domain="Dialogue"),                                  # pattern
    lambda d: d["entities"]["Expert"]["attributes"].update(score="INT"),    # enum
    lambda d: d["access_patterns"][0].update(limit=0),                      # minimum
    lambda d: d["access_patterns"][0]["key_condition"].update(sk_between=["a"]),  # list length
    lambda d: d["entities"]["Expert"].update(allow_empty="yes"),            # bool
])
def test_schema_and_validator_agree_on_bad_specs(raw, mutate):
    bad = copy.deepcopy(raw)
    mutate(bad)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, json_schema())
    with pytest.raises(SpecError):
        spec_from_dict(bad)


LIB_SPEC = "data/examples/library/library.yaml"


def _problems(text: str) -> str:
    with pytest.raises(SpecError) as e:
        loads_spec(text, source="s.yaml")
    return str(e.value)


def test_duplicate_keys_name_both_lines(root):
    text = (root / LIB_SPEC).read_text()
    lines = text.splitlines()
    first = lines.index("  Book:") + 1
    bad = text.replace("access_patterns:", "  Book:\n    key: {pk: X, sk: Y}\naccess_patterns:", 1)
    second = bad.splitlines().index("  Book:", first) + 1
    assert f"s.yaml:{second} entities.Book: duplicate key 'Book', first at line {first}" in _problems(bad)
    as_json = json.dumps(yaml.safe_load(text), indent=1).replace('"domain": "library",',
                                                                 '"domain": "library", "domain": "x",')
    assert "duplicate key 'domain', first at line 3" in _problems(as_json)


@pytest.mark.parametrize("text, fragment", [
    ("a: &a [x, x]\nb: [*a, *a]\n", "s.yaml:2:5: YAML alias *a is not allowed"),
    ("spec_version: 1\ndomain: " + "[" * 50_000 + "]" * 50_000, "s.yaml:2:40: nested more than 32 levels"),
    ("a: 1\nyes: 2\n", "s.yaml:2: key 'yes' is not a string"),
    ("a: 1\n? [x]\n: 2\n", "key 'a sequence' is not a string"),
    ("a: 2024-13-45\n", "s.yaml:1:4: not valid YAML/JSON: cannot read the value '2024-13-45'"),
    ("a: b\x00\n", "s.yaml:1:5: character '\\x00' (U+0000) is not allowed"),
    ("a:\n\tb: 1\n", "indent with spaces, not tabs"),
    ("a: 1\n---\nb: 2\n", "expected a single document in the stream but found another document"),
    ("", "the spec is empty"),
    ("[1, 2]", "s.yaml:1: expected a mapping, got [1, 2]"),
    ("x" * 1_000_001, "larger than 1,000,000 bytes"),
])
def test_hostile_spec_text_is_refused_with_its_place(text, fragment):
    assert fragment in _problems(text)


def test_spec_files_are_bounded_and_decoded_with_their_place(root, tmp_path):
    text = (root / LIB_SPEC).read_text()
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_spec(bom).domain == "library"                              # a UTF-8 BOM is fine
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"domain: x\ndescription: caf\xe9\n")
    with pytest.raises(SpecError) as e:
        load_spec(latin)
    assert e.value.where == f"{latin}:2:17" and "byte 0xe9" in e.value.msg
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * 50_000_000)
    with pytest.raises(SpecError, match="larger than 1,000,000 bytes"):
        load_spec(big)


def test_bad_format_spec_is_refused_when_the_spec_is_read(root):
    text = (root / LIB_SPEC).read_text().replace("{loan_id:05d}", "{loan_id:03q}", 1)
    line = text.splitlines().index('      sk: "LOAN#{isbn}#{loan_id:03q}"') + 1
    assert f"s.yaml:{line} entities.Loan.key.sk: invalid format spec '03q'" in _problems(text)


def test_non_finite_numbers_and_trailing_newlines_are_refused(raw):
    raw["access_patterns"][0]["rate_per_second"] = float("nan")
    raw["domain"] = "dialogue\n"
    with pytest.raises(SpecError) as e:
        spec_from_dict(raw)
    assert sorted(p.where for p in e.value.problems) == ["<spec> access_patterns[0] (get_dialogue).rate_per_second", "<spec> domain"]


def test_a_pattern_is_named_wherever_a_path_numbers_it():
    assert pattern_path(5, "list_round") == "access_patterns[5] (list_round)"
    names = ["get_dialogue", None, "list_round"]
    assert named_pattern_path("access_patterns[2].key_condition.sk", names) == "access_patterns[2] (list_round).key_condition.sk"
    assert named_pattern_path("access_patterns[1].name", names) == "access_patterns[1].name"        # no name to give
    assert named_pattern_path("access_patterns[9]", names) == "access_patterns[9]"                  # no such pattern
    assert named_pattern_path("entities.Expert.key.sk", names) == "entities.Expert.key.sk"
    named = "access_patterns[2] (list_round).filter"
    assert named_pattern_path(named, names) == named                                                  # named once
