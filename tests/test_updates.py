"""UpdateExpression: the item after SET / REMOVE / ADD / DELETE, DynamoDB's refusals, and what the update costs
(the larger of the item before and after; an index whose key changes is written twice)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from blue_nb.errors import QueryError, SpecError
from blue_nb.patterns import plan
from blue_nb.patterns.updates import UpdateRefused, apply_update
from blue_nb.sizing import item_size, write_units
from blue_nb.spec import spec_from_dict
from blue_nb.spec.expressions import parse_update
from blue_nb.stores import load_items, open_store

OLD = {"pk": "P#1", "sk": "S#1", "n": Decimal(2), "l": ["a"], "m": {"k": "v"}, "s": {"x", "y"}, "gone": "z",
       "g": "G#old"}


def upd(text: str, values: dict, old=OLD) -> dict:
    return apply_update(old, {"pk": "P#1", "sk": "S#1"}, parse_update(text), values)


def test_each_clause_as_dynamodb_applies_it():
    new = upd("SET n = n + :one, l = list_append(l, :more), m.k = :v, c = if_not_exists(c, :zero) - :one "
              "REMOVE gone, l[0] ADD s :add, t :one DELETE s :del",
              {"one": Decimal(1), "more": ["b"], "v": "w", "zero": Decimal(0), "add": {"q"}, "del": {"x"}})
    # values come from the item before the update: l is ["a", "b"], then REMOVE l[0] leaves ["b"]
    assert new == {"pk": "P#1", "sk": "S#1", "n": Decimal(3), "l": ["b"], "m": {"k": "w"}, "s": {"y", "q"},
                   "c": Decimal(-1), "t": Decimal(1), "g": "G#old"}
    assert OLD["n"] == 2 and OLD["l"] == ["a"]                       # the item met is not changed
    assert "s" not in upd("DELETE s :all", {"all": {"x", "y"}})      # an emptied set is removed
    assert upd("SET l[9] = :v", {"v": "end"})["l"] == ["a", "end"]   # past the end of a list: appended


@pytest.mark.parametrize("text, values, words", [
    ("SET n = m + :one", {"one": Decimal(1)}, "An operand in the update expression has an incorrect data type"),
    ("SET n = nope + :one", {"one": Decimal(1)}, "refers to an attribute that does not exist"),
    ("SET nope.k = :v", {"v": "x"}, "The document path provided in the update expression is invalid"),
    ("ADD m :one", {"one": Decimal(1)}, "incorrect data type"),
])
def test_what_dynamodb_refuses_on_the_item(text, values, words):
    with pytest.raises(UpdateRefused, match=words):
        upd(text, values)


def spec_dict(update: dict) -> dict:
    return {"spec_version": 1, "domain": "up", "table": {
        "partition_key": "pk", "sort_key": "sk",
        "indexes": {"byg": {"type": "global", "partition_key": "g", "projection": "keys_only"}}},
        "entities": {"Row": {"source": "rows", "key": {"pk": "P#{p}", "sk": "S#{s}", "g": "G#{gv}"},
                             "attributes": {"n": "N", "body": "S"}}},
        "access_patterns": [{"name": "u", "operation": "update_item", "entities": ["Row"],
                             "key_condition": {"pk": "P#{p}", "sk": "S#{s}"}, "update": update}]}


@pytest.fixture(scope="module", params=["sqlite", "duckdb"])
def store(request):
    with open_store(request.param) as s:
        load_items([s], spec_from_dict(spec_dict({"expression": "REMOVE x"})),
                   [("Row", {"pk": "P#1", "sk": "S#1", "g": "G#a", "n": Decimal(1), "body": "b" * 3000}, "row 1")],
                   progress=False)
        yield s


def test_an_update_pays_the_larger_item_and_a_moved_index_key_twice(store):
    grow = spec_from_dict(spec_dict({"expression": "SET body = :b", "values": {"b": "{text}"}}))
    r = store.run_plan(plan(grow, "u", {"p": "1", "s": "1", "text": "c" * 5000}))
    assert r.new_size > r.old_size and r.table_wcu == write_units(r.new_size)
    shrink = store.run_plan(plan(grow, "u", {"p": "1", "s": "1", "text": "c"}))
    assert shrink.table_wcu == write_units(shrink.old_size) == 3                # the item before: 3,021 bytes
    assert r.index_wcu == {"byg": 0}                                             # its key did not change
    move = spec_from_dict(spec_dict({"expression": "SET g = :g", "values": {"g": "G#{to}"}}))
    moved = store.run_plan(plan(move, "u", {"p": "1", "s": "1", "to": "b"}))
    entry = {"pk": "P#1", "sk": "S#1", "g": "G#a"}
    assert moved.index_wcu == {"byg": 2 * write_units(item_size(entry))}        # a delete and a put on the index
    _, kw = plan(move, "u", {"p": "1", "s": "1", "to": "b"}).boto3
    assert kw["UpdateExpression"] == "SET #u0 = :u_g" and kw["ExpressionAttributeValues"] == {":u_g": {"S": "G#b"}}


def test_an_update_past_400_kb_is_refused_in_dynamodbs_words(store):
    grow = spec_from_dict(spec_dict({"expression": "SET body = :b", "values": {"b": "{text}"}}))
    with pytest.raises(QueryError, match="Item size to update has exceeded the maximum allowed size"):
        store.run_plan(plan(grow, "u", {"p": "1", "s": "1", "text": "x" * 410_000}))


@pytest.mark.parametrize("update, path, words", [
    ({"expression": "SET pk = :v", "values": {"v": "x"}}, "update.expression",
     "Cannot update attribute pk. This attribute is part of the key"),
    ({"expression": "SET a = :v SET b = :v", "values": {"v": "x"}}, "update.expression",
     "The SET section can only be used once"),
    ({"expression": "SET a = :v", "values": {"v": "x", "w": "y"}}, "update.values.w", "unused in expressions"),
])
def test_a_wrong_update_names_its_spec_path(update, path, words):
    with pytest.raises(SpecError) as e:
        spec_from_dict(spec_dict(update))
    assert f"access_patterns[0] (u).{path}" in str(e.value) and words in str(e.value)


def test_arithmetic_is_exact_and_a_sum_past_38_digits_is_refused():
    nines = Decimal("9" * 38)
    assert upd("SET n = n + :one", {"one": Decimal(1)}, {**OLD, "n": nines})["n"] == Decimal("1E+38")
    assert upd("ADD n :tiny", {"tiny": Decimal("1E-20")}, {**OLD, "n": Decimal("1E+10")})["n"] == \
        Decimal("10000000000.00000000000000000001")                 # 32 digits: Python's 28-digit context rounds it
    with pytest.raises(UpdateRefused, match="39 significant digits"):
        upd("SET n = n + :two", {"two": Decimal(2)}, {**OLD, "n": nines})


INDEXED = {"spec_version": 1, "domain": "idx", "table": {
    "partition_key": "pk", "sort_key": "sk",
    "indexes": {"bys": {"type": "global", "partition_key": "spk", "projection": ["title"]}}},
    "entities": {"Row": {"source": "rows", "key": {"pk": "P#{p}", "sk": "S#{s}", "spk": "ST#{status}"},
                         "attributes": {"status": "S", "title": "S", "n": "N"}}},
    "access_patterns": [
        {"name": name, "operation": "update_item", "entities": ["Row"], "rate_per_second": 1,
         "key_condition": {"pk": "P#{p}", "sk": "S#{s}"}, "update": {"expression": text, "values": values}}
        for name, text, values in (("bump", "ADD n :one", {"one": 1}), ("retitle", "SET title = :t", {"t": "new"}),
                                   ("close", "SET status = :c", {"c": "closed"}),
                                   ("rekey", "SET spk = :k", {"k": "ST#closed"}))]}


@pytest.mark.parametrize("pattern, index_writes", [("bump", 0), ("retitle", 1), ("close", 0), ("rekey", 2)])
def test_the_heat_model_prices_an_updates_index_writes_as_the_dry_run(pattern, index_writes):
    """An update that touches neither the index key nor what the index projects leaves its entry as it was (no
    index write; status is in the key's template, but the key attribute spk is what the index reads, and the
    expression leaves it); one that changes a projected attribute rewrites it (1); one that sets its key moves
    it (a delete and a put: 2)."""
    from blue_nb.heat import call_costs

    spec = spec_from_dict(INDEXED)
    item = {"pk": "P#1", "sk": "S#1", "spk": "ST#open", "status": "open", "title": "t", "n": Decimal(1)}
    with open_store("duckdb") as s:
        load_items([s], spec, [("Row", item, "row 1")], progress=False)
        dry = s.run_plan(plan(spec, pattern, {"p": "1", "s": "1"}))
        heat = call_costs(s, spec, pattern)
    entry = {"pk": "P#1", "sk": "S#1", "spk": "ST#open", "title": "t"}
    assert dry.index_wcu == {"bys": index_writes * write_units(item_size(entry))}
    assert heat["wcu"].tolist() == [dry.table_wcu + index_writes]
