"""Keys compared as DynamoDB compares them: numbers by value, the whole number range, DynamoDB's refusals of
key conditions, and an order for what DynamoDB leaves open (the cases of issue 26, each on both stores)."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

import pytest

from blue_nb.app.compare import first_difference
from blue_nb.app.workflows import load_data, run_pattern
from blue_nb.errors import QueryError, SourceError, SpecError, StoreError
from blue_nb.layout import spec_record_name
from blue_nb.patterns import plan
from blue_nb.spec import loads_spec
from blue_nb.stores import load_items, loaded_key_format, open_store
from tests.test_cli import blue_nb

NUMBER_KEYS = """
spec_version: 1
domain: num
table:
  partition_key: p
  sort_key: s
  partition_key_type: N
  sort_key_type: N
  indexes:
    gsi1: {type: global, partition_key: gp, sort_key: gs, partition_key_type: N, sort_key_type: N}
    nosort: {type: global, partition_key: gp, partition_key_type: N}
    lsi1: {type: local, sort_key: ls, sort_key_type: N}
entities:
  Row:
    source: rows
    key: {p: "{a}", s: "{b}", gp: "{c}", gs: "{d}", ls: "{e}"}
access_patterns:
  - {name: part, operation: query, entities: [Row], key_condition: {pk: "{a}"}}
  - {name: one, operation: get_item, entities: [Row], key_condition: {pk: "{a}", sk: "{b}"}}
  - {name: by_g, operation: query, index: gsi1, entities: [Row], key_condition: {pk: "{c}"}}
  - {name: by_g_desc, operation: query, index: gsi1, entities: [Row], key_condition: {pk: "{c}"}, scan_forward: false}
  - {name: by_g_eq, operation: query, index: gsi1, entities: [Row], key_condition: {pk: "{c}", sk: "{d}"}}
  - {name: nosort, operation: query, index: nosort, entities: [Row], key_condition: {pk: "{c}"}}
  - {name: nosort_desc, operation: query, index: nosort, entities: [Row], key_condition: {pk: "{c}"},
     scan_forward: false}
  - {name: by_l, operation: query, index: lsi1, entities: [Row], key_condition: {pk: "{a}", sk_gte: "{e}"}}
  - {name: between, operation: query, entities: [Row], key_condition: {pk: "{a}", sk_between: ["{lo}", "{hi}"]}}
  - {name: all, operation: scan, entities: [Row]}
"""
SPEC = loads_spec(NUMBER_KEYS)


@pytest.fixture(params=["sqlite", "duckdb"])
def store(request):
    with open_store(request.param) as s:
        yield s


def load_csv(store, tmp_path, text: str, spec=SPEC):
    (tmp_path / "rows.csv").write_text(text, encoding="utf-8")
    return load_data(spec, tmp_path, stores=[store], progress=False)


def keys(result, *attrs) -> list[tuple]:
    return [tuple(str(i.get(a)) for a in attrs) for i in result.items]


def test_number_keys_match_by_value_on_the_table_and_every_index(store, tmp_path):
    load_csv(store, tmp_path, "a,b,c,d,e\n1.50,10,2.0,7,3\n1.50,2.0,2,7.00,30E-1\n")
    assert keys(run_pattern(SPEC, "part", {"a": "1.5"}, store=store), "p", "s") == [("1.5", "2"), ("1.5", "10")]
    found = run_pattern(SPEC, "one", {"a": "15E-1", "b": "2"}, store=store)
    assert found.items == [{"p": Decimal("1.5"), "s": Decimal("2"), "gp": Decimal("2"), "gs": Decimal("7"),
                            "ls": Decimal("3")}]                # canonical: as DynamoDB returns it
    assert len(run_pattern(SPEC, "by_g_eq", {"c": "2.000", "d": "7"}, store=store).items) == 2
    assert keys(run_pattern(SPEC, "by_l", {"a": "1.5", "e": "3.0"}, store=store), "s") == [("2",), ("10",)]  # a tie
    assert store.get_item("blue_num", "1.5", "2") is not None   # the stored key is the canonical text


def test_three_spellings_of_one_number_are_one_key_and_the_load_names_the_rows(store, tmp_path):
    with pytest.raises(SourceError) as e:
        load_csv(store, tmp_path, "a,b,c,d,e\n1,1.5,1,1,1\n1,1.50,1,1,1\n1,1.500,1,1,1\n")
    assert "rows.csv:2 and" in str(e.value) and "rows.csv:3" in str(e.value) and "(pk '1', sk '1.5')" in str(e.value)
    with pytest.raises(SourceError, match="same item key"):        # the item way (not a CSV file) alike
        load_items([store], SPEC, [("Row", {"p": Decimal(1), "s": Decimal(s)}, f"row {s}") for s in ("1.5", "15E-1")],
                   progress=False)


def test_descending_reads_are_the_reverse_of_ascending_where_index_keys_tie(store, tmp_path):
    load_csv(store, tmp_path, "a,b,c,d,e\n" + "".join(f"{a},{b},5,7,1\n" for a in (2, 10, 1.5) for b in (3, 20)))
    for up, down in (("by_g", "by_g_desc"), ("nosort", "nosort_desc")):
        asc = keys(run_pattern(SPEC, up, {"c": "5"}, store=store), "p", "s")
        desc = keys(run_pattern(SPEC, down, {"c": "5"}, store=store), "p", "s")
        assert asc == [("1.5", "3"), ("1.5", "20"), ("2", "3"), ("2", "20"), ("10", "3"), ("10", "20")]
        assert desc == asc[::-1]
    scan = keys(run_pattern(SPEC, "all", store=store), "p", "s")  # a scan: by the table key, numbers by value
    assert scan == [("1.5", "3"), ("1.5", "20"), ("2", "3"), ("2", "20"), ("10", "3"), ("10", "20")]


def test_the_whole_number_range_loads_queries_and_prints(store, tmp_path):
    big, tiny, neg = "1" + "0" * 100, "0." + "0" * 129 + "1", "-9.99E+125"
    load_csv(store, tmp_path, f"a,b,c,d,e\n1,{big},1,1,1\n1,{tiny},1,1,1\n1,{neg},1,1,1\n1,0,1,1,1\n")
    got = run_pattern(SPEC, "part", {"a": "1"}, store=store)
    assert [i["s"] for i in got.items] == [Decimal(neg), 0, Decimal(tiny), Decimal(big)]
    assert got.to_json()["items"][3]["s"] == {"N": big}           # written out in full, as DynamoDB does
    assert run_pattern(SPEC, "one", {"a": "1", "b": "1E+100"}, store=store).count == 1
    between = run_pattern(SPEC, "between", {"a": "1", "lo": "-1E+125", "hi": "1E-130"}, store=store)
    assert [i["s"] for i in between.items] == [0, Decimal(tiny)]


@pytest.mark.parametrize("condition, words", [
    ('{pk: "{a}", sk_begins_with: "1"}', "operator or function: begins_with, operand type: N"),
    ('{pk: "1", sk_between: ["10", "9"]}', "lower bound operand: AttributeValue: {N:10}, upper bound operand: "
                                           "AttributeValue: {N:9}"),
])
def test_a_key_condition_dynamodb_refuses_is_refused_when_the_spec_is_read(condition, words):
    text = NUMBER_KEYS.replace('{pk: "{a}", sk_between: ["{lo}", "{hi}"]}', condition)
    with pytest.raises(SpecError) as e:
        loads_spec(text)
    assert "access_patterns[8] (between).key_condition.sk_" in str(e.value) and words in str(e.value)
    assert "DynamoDB refuses this key condition" in str(e.value)


@pytest.mark.parametrize("params, words", [
    ({"a": "1", "lo": "5", "hi": "2.0"}, "The BETWEEN operator requires upper bound to be greater than or equal to "
                                         "lower bound; lower bound operand: AttributeValue: {N:5}, upper bound "
                                         "operand: AttributeValue: {N:2}"),
])
def test_a_request_dynamodb_refuses_is_refused_when_bound(params, words):
    with pytest.raises(QueryError) as e:
        plan(SPEC, "between", params)
    assert words in e.value.msg and e.value.where == "access_patterns.between.key_condition"
    assert plan(SPEC, "between", {"a": "1", "lo": "2", "hi": "2.00"}).request.sk_values == (2, 2)   # equal: taken


def test_oversized_and_empty_string_keys_are_refused_with_dynamodb_words():
    spec = loads_spec(NUMBER_KEYS.replace("partition_key_type: N\n  sort_key_type: N", "partition_key_type: S\n"
                                          "  sort_key_type: S"))
    with pytest.raises(QueryError, match="Size of hashkey has exceeded the maximum size limit of2048 bytes"):
        plan(spec, "part", {"a": "x" * 2049})
    with pytest.raises(QueryError, match="Aggregated size of all range keys has exceeded the size limit of 1024"):
        plan(spec, "one", {"a": "x", "b": "é" * 513})
    assert plan(spec, "part", {"a": "x" * 2048}).request.pk_value == "x" * 2048


def test_the_cli_refuses_without_a_traceback(tmp_path):
    spec = tmp_path / "num.yaml"
    spec.write_text(NUMBER_KEYS.replace('sk_between: ["{lo}", "{hi}"]', 'sk_begins_with: "{lo}"'), encoding="utf-8")
    r = blue_nb("validate", spec)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "operand type: N" in r.stderr


def test_a_cli_load_of_a_hundred_digit_number_and_its_query(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rows.csv").write_text("a,b,c,d,e\n1,1" + "0" * 100 + ",1,1,1\n", encoding="utf-8")
    spec = tmp_path / "num.yaml"
    spec.write_text(NUMBER_KEYS, encoding="utf-8")
    db = tmp_path / "n.sqlite"
    r = blue_nb("load", spec, "--data", tmp_path / "data", "--sqlite", db, "--no-progress")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    r = blue_nb("query", spec, "one", "--param", "a=1.0", "--param", "b=1E+100", "--sqlite", db, "--format", "json")
    assert r.returncode == 0, r.stderr
    assert '{"N": "1' + "0" * 100 + '"}' in r.stdout


def test_a_store_loaded_before_keys_were_canonical_is_refused_with_load_again(tmp_path):
    db = tmp_path / "old.sqlite"
    with open_store("sqlite", db) as s:
        load_csv(s, tmp_path, "a,b,c,d,e\n1.5,2,1,1,1\n")
        assert loaded_key_format(s, "blue_num") == 2
    con = sqlite3.connect(db)                                  # what an earlier blue-nb left: no key_format
    con.execute(f'ALTER TABLE "{spec_record_name("blue_num")}" DROP COLUMN key_format')
    con.commit()
    con.close()
    with pytest.raises(StoreError) as e:
        run_pattern(SPEC, "part", {"a": "1.5"}, backend="sqlite", path=db)
    assert "earlier blue-nb" in e.value.msg and "load it again: blue-nb load" in e.value.hint
    with open_store("sqlite", db) as s:
        with pytest.raises(StoreError, match="--mode replace"):   # an upsert would mix the two spellings
            load_data(SPEC, tmp_path, stores=[s], mode="upsert", progress=False)
        load_data(SPEC, tmp_path, stores=[s], progress=False)   # a replace load makes it current
        assert loaded_key_format(s, "blue_num") == 2


def test_a_store_with_string_keys_only_is_read_as_it_is(tmp_path, dialogue_spec, dialogue_data):
    db = tmp_path / "old.sqlite"
    with open_store("sqlite", db) as s:
        load_data(dialogue_spec, dialogue_data, stores=[s], progress=False)
        s.execute(f'ALTER TABLE "{spec_record_name(dialogue_spec.table_name)}" DROP COLUMN key_format')
        assert loaded_key_format(s, dialogue_spec.table_name) == 1
    r = run_pattern(dialogue_spec, "dialogues_by_status", {"status": "open"}, backend="sqlite", path=db)
    assert r.count > 0


def test_the_compare_treats_tied_items_as_a_set_and_says_so(store, tmp_path):
    load_csv(store, tmp_path, "a,b,c,d,e\n1,1,5,7,1\n2,1,5,7,1\n3,1,5,8,1\n")
    local = run_pattern(SPEC, "by_g", {"c": "5"}, store=store)
    swapped = run_pattern(SPEC, "by_g", {"c": "5"}, store=store)
    swapped.items[0], swapped.items[1] = swapped.items[1], swapped.items[0]
    assert first_difference(local, swapped, names=("sqlite", "dynamodb")) == (
        None, "2 items with equal index keys compared as a set, in 1 group(s) (DynamoDB leaves their order open)")
    other = run_pattern(SPEC, "by_g", {"c": "5"}, store=store)
    other.items[1], other.items[2] = other.items[2], other.items[1]   # across index keys: a real difference
    assert first_difference(local, other, names=("sqlite", "dynamodb"))[0].startswith("item 2:")


def test_the_heat_model_orders_number_keys_by_value_over_the_whole_range():
    import duckdb

    from blue_nb.heat.costs import number_order
    from blue_nb.items.values import number_text

    values = [Decimal(x) for x in ("0", "1", "-1", "1.5", "-1.5", "-1.55", "10", "9.99", "0.001", "-0.001", "1E+125",
                                   "-9.99E+125", "1E-130", "-1E-130", "9" * 38, "9" * 37 + "8", "0.0125", "-125")]
    con = duckdb.connect()
    con.execute("CREATE TABLE t (x TEXT)")
    con.executemany("INSERT INTO t VALUES (?)", [[number_text(v)] for v in values])
    ordered = [Decimal(x) for (x,) in con.execute(f"SELECT x FROM t ORDER BY {number_order('x')}").fetchall()]
    assert ordered == sorted(values)                     # a DOUBLE would tie the two 38-digit numbers
    (n,) = con.execute(f"SELECT count(*) FROM t, (SELECT ? AS q) WHERE {number_order('x')} >= {number_order('q')}",
                       ["9" * 38]).fetchone()
    assert n == 2                                        # 1E+125 and 99...99


@pytest.mark.parametrize("written", ["1E+125", "1" + "0" * 125, "10E124", "1." + "0" * 300 + "E125"])
def test_a_number_read_off_the_wire_in_any_form_is_one_value_and_goes_back_in_full(written):
    from blue_nb.items.values import from_wire, item_from_wire, to_wire
    from blue_nb.sizing import item_size

    value = from_wire({"N": written})                    # boto3 writes 1E+125; DynamoDB returns it in full
    assert value == Decimal("1E+125") and to_wire(value) == {"N": "1" + "0" * 125}
    assert item_size(item_from_wire({"n": {"N": written}})) == 1 + 2
