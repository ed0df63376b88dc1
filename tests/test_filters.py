"""FilterExpression on a query or a scan: the spec field, its refusals, its evaluation, its pages and units.

The behaviour against an independent DynamoDB (dynalite) and the embedded endpoint is covered by
tests/test_differential.py; here each rule is pinned on a small, hand-checked case.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from blue_nb.errors import QueryError, SpecError
from blue_nb.export import export
from blue_nb.patterns import matches, plan
from blue_nb.spec import spec_from_dict
from blue_nb.spec.expressions import ConditionSyntaxError, condition_text, parse_condition
from blue_nb.stores import load_items, open_store

from .test_workbench import imported


def spec_dict(filter_: dict | None, operation: str = "query", limit: int | None = 3) -> dict:
    p = {"name": "open_tensions", "operation": operation, "entities": ["Tension"]}
    if operation == "query":
        p["key_condition"] = {"pk": "D#{d}"}
    if limit:
        p["limit"] = limit
    if filter_ is not None:
        p["filter"] = filter_
    return {"spec_version": 1, "domain": "f", "table": {"partition_key": "pk", "sort_key": "sk"},
            "entities": {"Tension": {"source": "t", "key": {"pk": "D#{d}", "sk": "T#{t}"},
                                     "attributes": {"status": "S", "tags": "SS", "score": "N"}}},
            "access_patterns": [p]}


OPEN = {"expression": "status = :s AND (size(tags) > :n OR attribute_not_exists(tags))",
        "values": {"s": "{status}", "n": {"N": "{min_tags}"}}}


def items() -> list[tuple]:
    return [("Tension", {"pk": "D#1", "sk": f"T#{i}", "status": "open" if i % 3 == 0 else "closed",
                         **({"tags": {"x", "y"}} if i % 2 else {"tags": {"x"}} if i % 4 else {}),
                         "score": Decimal(i)}, f"row {i}") for i in range(10)]


@pytest.fixture(scope="module", params=["sqlite", "duckdb"])
def store(request):
    with open_store(request.param) as s:
        load_items([s], spec_from_dict(spec_dict(OPEN)), items(), progress=False)
        yield s


def test_the_filters_values_are_parameters_and_the_request_names_every_attribute():
    spec = spec_from_dict(spec_dict(OPEN))
    p = spec.access_patterns[0]
    assert p.parameters == ["d", "status", "min_tags"]
    method, kw = plan(spec, p, {"d": "1", "status": "open", "min_tags": "1"}).boto3
    assert method == "query"
    assert kw["FilterExpression"] == "#f0 = :f_s AND (size(#f1) > :f_n OR attribute_not_exists(#f1))"
    assert kw["ExpressionAttributeNames"] == {"#pk": "pk", "#f0": "status", "#f1": "tags"}
    assert kw["ExpressionAttributeValues"][":f_s"] == {"S": "open"}
    assert kw["ExpressionAttributeValues"][":f_n"] == {"N": "1"}
    assert spec_from_dict(spec.to_dict()) == spec                       # the field round-trips


def test_limit_counts_the_items_evaluated_and_every_one_is_paid(store):
    spec = spec_from_dict(spec_dict(OPEN))
    result = store.run_plan(plan(spec, "open_tensions", {"d": "1", "status": "open", "min_tags": "1"}), follow=True)
    # open: T#0 (no tags -> passes), T#3 (2 tags), T#6 (1 tag: fails), T#9 (2 tags); in key order T#0..T#9
    assert [i["sk"] for i in result.items] == ["T#0", "T#3", "T#9"]
    assert [(p.count, p.items, p.has_more) for p in result.pages] == [(3, 1, True), (3, 1, True), (3, 0, True),
                                                                       (1, 1, False)]
    assert result.count == 3 and result.scanned_count == 10
    assert result.rcu == 2.0                                            # four pages at the 0.5 minimum each
    unfiltered = store.run_plan(plan(spec_from_dict(spec_dict(None)), "open_tensions", {"d": "1"}), follow=True)
    assert [p.rcu for p in unfiltered.pages] == [p.rcu for p in result.pages]
    assert [p.bytes_read for p in unfiltered.pages] == [p.bytes_read for p in result.pages]


def test_a_scan_filter_returns_what_passes_and_pays_for_the_table(store):
    f = {"expression": "score BETWEEN :lo AND :hi AND NOT contains(tags, :t)", "values": {"lo": 2, "hi": 7, "t": "y"}}
    spec = spec_from_dict(spec_dict(f, "scan", None))
    result = store.run_plan(plan(spec, "open_tensions", {}), follow=True)
    assert sorted(i["sk"] for i in result.items) == ["T#2", "T#4", "T#6"]
    assert (result.count, result.scanned_count, len(result.pages)) == (3, 10, 1)


@pytest.mark.parametrize("text, item, expected", [
    ("a <> :v", {}, True),                                  # a missing attribute is not equal to anything
    ("a = :v", {}, False),
    ("a < :v", {"a": "b"}, False),                          # "b" < "a" is false (UTF-8 order)
    ("a < :v", {"a": Decimal(1)}, False),                   # a number and a string do not compare
    ("a IN (:v, :w)", {"a": Decimal("2.0")}, True),         # numbers by value
    ("begins_with(a, :v)", {"a": "abc"}, True),
    ("contains(l, :v)", {"l": ["x", "a"]}, True),
    ("contains(a, :v)", {"a": "bab"}, True),
    ("size(a) = :w", {"a": "é"}, True),                     # a string's size is its UTF-8 bytes
    ("m.k[1] = :v", {"m": {"k": ["z", "a"]}}, True),
    ("m.k[5] <> :v", {"m": {"k": ["z", "a"]}}, True),
    ("attribute_type(m, :t)", {"m": {}}, True),
    ("NOT attribute_exists(a) OR a = :v", {"a": "a"}, True),
])
def test_conditions_evaluate_as_dynamodb_does(text, item, expected):
    assert matches(parse_condition(text), item, {"v": "a", "w": Decimal(2), "t": "M"}) is expected


def test_a_condition_prints_back_with_its_precedence():
    tree = parse_condition("a = :x and (b < :y or not c between :lo and :hi)")
    assert condition_text(tree) == "a = :x AND (b < :y OR NOT c BETWEEN :lo AND :hi)"
    assert parse_condition(condition_text(tree)) == tree


@pytest.mark.parametrize("text, where", [("a = ", 4), ("a = :v AND", 10), ("size(a)", 7), ("a == :v", 3),
                                         ("begins_with(:v, a)", 0)])
def test_a_condition_that_does_not_parse_says_where(text, where):
    with pytest.raises(ConditionSyntaxError) as e:
        parse_condition(text)
    assert e.value.at == where


@pytest.mark.parametrize("filter_, operation, path, words", [
    ({"expression": "status = :s"}, "query", "filter.values", "uses :s, which values does not declare"),
    ({"expression": "status = :s", "values": {"s": "a", "x": "b"}}, "query", "filter.values.x",
     "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}"),
    ({"expression": "sk = :s", "values": {"s": "a"}}, "query", "filter.expression",
     "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"),
    ({"expression": "status = = :s", "values": {"s": "a"}}, "query", "filter.expression",
     "Invalid FilterExpression: expected an attribute name, found '=' at character 10"),
    ({"expression": "status = :s", "values": {"s": {"N": "1", "S": "x"}}}, "query", "filter.values.s",
     "a typed value is one type and its value"),
])
def test_a_wrong_filter_is_refused_naming_its_spec_path(filter_, operation, path, words):
    with pytest.raises(SpecError) as e:
        spec_from_dict(spec_dict(filter_, operation))
    assert f"access_patterns[0] (open_tensions).{path}" in str(e.value) and words in str(e.value)


def test_a_filter_on_a_write_is_refused():
    d = spec_dict(None)
    d["access_patterns"][0].update(operation="delete_item", key_condition={"pk": "D#{d}", "sk": "T#{t}"},
                                   filter={"expression": "status = :s", "values": {"s": "a"}})
    del d["access_patterns"][0]["limit"]
    with pytest.raises(SpecError, match=r"access_patterns\[0\] \(open_tensions\).filter: a filter is a Query's or a Scan's"):
        spec_from_dict(d)


@pytest.mark.parametrize("filter_, params, words", [
    ({"expression": "score BETWEEN :lo AND :hi", "values": {"lo": {"N": "{lo}"}, "hi": {"N": "{hi}"}}},
     {"lo": "5", "hi": "1"}, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
                             "lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"),
    ({"expression": "begins_with(status, :p)", "values": {"p": {"N": "{p}"}}}, {"p": "1"},
     "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
    ({"expression": "attribute_type(status, :t)", "values": {"t": "{t}"}}, {"t": "STRING"},
     "Invalid attribute type name found; type: STRING"),
    ({"expression": "score > :n", "values": {"n": {"N": "{n}"}}}, {"n": "many"}, "many"),
])
def test_values_dynamodb_refuses_are_refused_when_bound(filter_, params, words):
    spec = spec_from_dict(spec_dict(filter_))
    with pytest.raises(QueryError) as e:
        plan(spec, "open_tensions", {"d": "1", **params})
    assert words in str(e.value)


def test_a_filtered_spec_goes_to_workbench_and_back(tmp_path):
    spec = spec_from_dict(spec_dict(OPEN))
    (result,) = imported(tmp_path, json.loads(export(spec, "workbench")))
    assert result.spec == spec and result.spec.access_patterns[0].filter.expression == OPEN["expression"]


def test_a_month_of_a_filtered_read_in_dollars_and_the_share_the_filter_drops(store):
    from decimal import Decimal as D

    from blue_nb.pricing import as_prices, read_waste

    spec = spec_from_dict(spec_dict(OPEN))
    result = store.run_plan(plan(spec, "open_tensions", {"d": "1", "status": "open", "min_tags": "1"}), follow=True)
    waste = read_waste(result, rate_per_second=10)
    p = as_prices(None)
    month = D(2) * 10 * 3600 * p.hours_per_month * p.on_demand_read_per_million / 1_000_000   # 2 RCU a call
    assert waste.usd_per_month == month and waste.dropped_usd_per_month == month * 7 / 10   # 7 of 10 items dropped
    assert (waste.count, waste.scanned_count, waste.kept_share) == (3, 10, 0.3)
    assert repr(waste).startswith("open_tensions: returns 3 of 10 items read (30%); 2 RCU per call, at 10/s")


def test_a_hot_filter_that_drops_most_of_what_it_reads_is_a_finding_with_its_dollars(store):
    from blue_nb.app.filter_waste import filter_findings

    d = spec_dict({"expression": "status = :s", "values": {"s": "{status}"}}, limit=None)
    d["access_patterns"][0].update(hot=True, rate_per_second=50)
    # the parameters come from the items: the most frequent status, "closed", keeps 6 of 10: no finding
    assert filter_findings(spec_from_dict(d), store) == []
    d["access_patterns"][0]["filter"]["values"]["s"] = "open"                    # a literal: 4 of 10 kept
    (found,) = filter_findings(spec_from_dict(d), store)
    assert found.rule == "FILTER-DISCARDS" and found.where == "access_patterns[0] (open_tensions).filter"
    assert "open_tensions returns 4 of the 10 items a call reads (40%; d=1)" in found.message
    assert "at 50 calls/s" in found.message and "buys items the filter drops" in found.message
    assert "put status into the key it queries" in found.hint
    d["access_patterns"][0]["hot"] = False
    assert filter_findings(spec_from_dict(d), store) == []


# -- a write's ConditionExpression ------------------------------------------------------------------------

def write_spec(condition: dict, operation: str = "put_item", **extra) -> dict:
    d = spec_dict(None, limit=None)
    d["access_patterns"][0].update(operation=operation, key_condition={"pk": "D#{d}", "sk": "T#{t}"},
                                   condition=condition, **extra)
    return d


@pytest.mark.parametrize("operation", ["put_item", "update_item", "delete_item"])
def test_a_failed_condition_writes_nothing_and_still_pays_the_item_it_met(store, operation):
    spec = spec_from_dict(write_spec({"expression": "attribute_not_exists(sk) OR status = :s",
                                      "values": {"s": "{expected}"}}, operation,
                                     return_values_on_condition_check_failure="ALL_OLD"))
    planned = plan(spec, "open_tensions", {"d": "1", "t": "3", "expected": "closed"})       # T#3 is open
    failed = store.run_plan(planned)
    old = next(i for _, i, _ in items() if i["sk"] == "T#3")
    from blue_nb.sizing import item_size, write_units
    assert failed.condition_passed is False and failed.item is None
    assert failed.table_wcu == write_units(item_size(old)) and failed.wcu == failed.table_wcu   # no index write
    assert failed.returned_old["sk"] == "T#3"                                                # ALL_OLD
    passed = store.run_plan(plan(spec, "open_tensions", {"d": "1", "t": "3", "expected": "open"}))
    assert passed.condition_passed is True
    new_key = store.run_plan(plan(spec, "open_tensions", {"d": "1", "t": "404", "expected": "closed"}))
    assert new_key.condition_passed is True                                  # no item: attribute_not_exists holds
    method, kw = planned.boto3_for({"status": "x"})
    import re

    m = re.fullmatch(r"attribute_not_exists\((#\w+)\) OR (#\w+) = :c_s", kw["ConditionExpression"])
    assert method == operation and m, kw["ConditionExpression"]
    assert (kw["ExpressionAttributeNames"][m[1]], kw["ExpressionAttributeNames"][m[2]]) == ("sk", "status")
    assert kw["ExpressionAttributeValues"][":c_s"] == {"S": "closed"}
    assert kw["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD"
    assert spec_from_dict(spec.to_dict()) == spec


def test_a_condition_on_a_read_is_refused_and_a_filter_on_a_write_too():
    d = spec_dict(None)
    d["access_patterns"][0]["condition"] = {"expression": "attribute_exists(a)"}
    with pytest.raises(SpecError, match=r"access_patterns\[0\] \(open_tensions\).condition: a ConditionExpression is a write's"):
        spec_from_dict(d)
    with pytest.raises(SpecError, match=r"access_patterns\[0\] \(open_tensions\).condition.values.x: Value provided in "
                                        r"ExpressionAttributeValues unused"):
        spec_from_dict(write_spec({"expression": "attribute_exists(a)", "values": {"x": "1"}}))


# -- ExclusiveStartKey: a read that goes on from a page's LastEvaluatedKey -----------------------------------

def test_a_read_goes_on_from_a_pages_last_evaluated_key(store):
    spec = spec_from_dict(spec_dict(OPEN))
    params = {"d": "1", "status": "open", "min_tags": "1"}
    every = store.run_plan(plan(spec, "open_tensions", params), follow=True)
    first = store.run_plan(plan(spec, "open_tensions", params))                  # Limit 3: one page
    assert first.pages[0].last_evaluated_key == {"pk": "D#1", "sk": "T#2"}
    second = plan(spec, "open_tensions", params, start=first.pages[0].last_evaluated_key)
    assert second.boto3[1]["ExclusiveStartKey"] == {"pk": {"S": "D#1"}, "sk": {"S": "T#2"}}
    rest = store.run_plan(second, follow=True)
    assert [(p.count, p.items) for p in rest.pages] == [(p.count, p.items) for p in every.pages[1:]]
    assert first.items + rest.items == every.items
    gone = store.run_plan(plan(spec, "open_tensions", params, start={"pk": "D#1", "sk": "T#25"}))  # not an item
    assert gone.pages[0].last_evaluated_key == {"pk": "D#1", "sk": "T#5"}    # T#3, T#4, T#5 come after T#25
    with pytest.raises(QueryError, match="The provided starting key is invalid: it lacks sk"):
        plan(spec, "open_tensions", params, start={"pk": "D#1"})
