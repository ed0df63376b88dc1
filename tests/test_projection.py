"""ProjectionExpression and Select: what a read returns, what it costs, and where it goes back to the table.

Pinned here on small hand-checked cases; against dynalite and the embedded endpoint in tests/test_differential.py.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from blue_nb.errors import SpecError
from blue_nb.patterns import plan
from blue_nb.sizing import item_size, query_read_units
from blue_nb.spec import spec_from_dict
from blue_nb.stores import load_items, open_store


def spec_dict(pattern: dict, lsi: str | list = "keys_only", gsi: str | list = "keys_only") -> dict:
    p = {"name": "r", "entities": ["Row"], **pattern}
    return {"spec_version": 1, "domain": "pj", "table": {
        "partition_key": "pk", "sort_key": "sk", "indexes": {
            "by_at": {"type": "local", "sort_key": "at", "projection": lsi},
            "by_kind": {"type": "global", "partition_key": "kind", "sort_key": "at", "projection": gsi}}},
        "entities": {"Row": {"source": "rows", "key": {"pk": "P#{p}", "sk": "S#{s}", "at": "{at}", "kind": "{kind}"},
                             "attributes": {"body": "S", "meta": "M", "tags": "L"}}},
        "access_patterns": [p]}


QUERY = {"operation": "query", "key_condition": {"pk": "P#{p}"}}
LSI_QUERY = {**QUERY, "index": "by_at"}


def rows() -> list[tuple]:
    return [("Row", {"pk": "P#1", "sk": f"S#{i}", "at": f"2026-0{i}", "kind": "k", "body": "x" * (3000 * i),
                     "meta": {"a": Decimal(i), "b": "y"}, "tags": ["t0", "t1", "t2"]}, f"row {i}") for i in range(1, 4)]


@pytest.fixture(scope="module", params=["sqlite", "duckdb"])
def store(request):
    with open_store(request.param) as s:
        load_items([s], spec_from_dict(spec_dict(QUERY)), rows(), progress=False)
        yield s


def run(store, pattern: dict, **kw):
    spec = spec_from_dict(spec_dict(pattern, **kw))
    return store.run_plan(plan(spec, "r", {"p": "1"} if "key_condition" in pattern else {}), follow=True)


def test_a_projection_returns_the_paths_and_costs_what_the_read_read(store):
    result = run(store, {**QUERY, "projection": ["meta.b", "tags[2]", "tags[0]", "missing"]})
    assert result.items[0] == {"meta": {"b": "y"}, "tags": ["t0", "t2"]}         # a list closes up, in its order
    whole = run(store, QUERY)
    assert result.rcu == whole.rcu and result.pages[0].bytes_read == whole.pages[0].bytes_read


def test_select_count_returns_no_item_and_the_same_count_and_units(store):
    result = run(store, {**QUERY, "select": "COUNT"})
    assert result.items == [] and result.count == 3 and result.scanned_count == 3
    assert result.rcu == run(store, QUERY).rcu


def test_a_local_index_fetches_what_it_does_not_project_and_pays_the_table(store):
    entries = run(store, LSI_QUERY)                                 # ALL_PROJECTED_ATTRIBUTES: keys only
    assert set(entries.items[0]) == {"pk", "sk", "at"}
    assert entries.consumed_capacity()["Table"] == {"CapacityUnits": 0}
    fetched = run(store, {**LSI_QUERY, "projection": ["body", "at"]})
    assert fetched.request.fetch and [len(i["body"]) for i in fetched.items] == [3000, 6000, 9000]
    index_units = query_read_units([item_size(e) for e in entries.items], "eventual")
    table_units = query_read_units([item_size(r) for _, r, _ in rows()], "eventual")
    assert fetched.consumed_capacity() == {
        "TableName": "blue_pj", "CapacityUnits": index_units + table_units, "Table": {"CapacityUnits": table_units},
        "LocalSecondaryIndexes": {"by_at": {"CapacityUnits": index_units}}}
    assert not run(store, {**LSI_QUERY, "projection": ["at", "sk"]}).request.fetch      # the index holds both


def test_a_global_index_cannot_fetch_all_attributes():
    with pytest.raises(SpecError, match="Select type ALL_ATTRIBUTES is not supported for global secondary index "
                                        "by_kind because its projection type is not ALL"):
        spec_from_dict(spec_dict({"operation": "query", "index": "by_kind", "key_condition": {"pk": "{kind}"},
                                  "select": "ALL_ATTRIBUTES"}))
    spec_from_dict(spec_dict({"operation": "query", "index": "by_kind", "key_condition": {"pk": "{kind}"},
                              "select": "ALL_ATTRIBUTES"}, gsi="all"))


@pytest.mark.parametrize("pattern, path, words", [
    ({**QUERY, "projection": ["a.b", "a"]}, "projection", "Two document paths overlap with each other"),
    ({**QUERY, "projection": ["a[0]", "a.b"]}, "projection", "Two document paths conflict with each other"),
    ({**QUERY, "projection": ["a..b"]}, "projection[0]", "Invalid ProjectionExpression: expected an attribute name"),
    ({**QUERY, "select": "SPECIFIC_ATTRIBUTES"}, "select", "SPECIFIC_ATTRIBUTES needs the attributes"),
    ({**QUERY, "select": "COUNT", "projection": ["a"]}, "projection", "a projection goes with select SPECIFIC"),
    ({**QUERY, "select": "ALL_PROJECTED_ATTRIBUTES"}, "select", "ALL_PROJECTED_ATTRIBUTES reads an index"),
    ({"operation": "put_item", "key_condition": {"pk": "P#{p}", "sk": "S#{s}"}, "projection": ["a"]}, "projection",
     "put_item returns no items"),
])
def test_a_wrong_select_or_projection_names_its_spec_path(pattern, path, words):
    with pytest.raises(SpecError) as e:
        spec_from_dict(spec_dict(pattern))
    assert f"access_patterns[0] (r).{path}" in str(e.value) and words in str(e.value)


def test_the_boto3_request_carries_select_and_the_projection():
    spec = spec_from_dict(spec_dict({**LSI_QUERY, "projection": ["meta.b", "tags[1]"]}))
    _, kw = plan(spec, "r", {"p": "1"}).boto3
    assert kw["ProjectionExpression"] == "#p0.#p1, #p2[1]"
    assert {k: v for k, v in kw["ExpressionAttributeNames"].items() if k.startswith("#p")} == {
        "#pk": "pk", "#p0": "meta", "#p1": "b", "#p2": "tags"}
    assert "Select" not in kw
    _, kw = plan(spec_from_dict(spec_dict({**QUERY, "select": "COUNT"})), "r", {"p": "1"}).boto3
    assert kw["Select"] == "COUNT"
    assert spec_from_dict(spec.to_dict()) == spec


def test_a_spec_with_every_request_feature_goes_to_workbench_and_back(tmp_path):
    import json

    from blue_nb.export import export

    from .test_workbench import imported

    d = spec_dict({**LSI_QUERY, "projection": ["body", "meta.b"],
                   "filter": {"expression": "size(tags) > :n", "values": {"n": {"N": "{n}"}}}})
    d["access_patterns"].append({"name": "w", "operation": "put_item", "entities": ["Row"],
                                 "key_condition": {"pk": "P#{p}", "sk": "S#{s}"},
                                 "condition": {"expression": "attribute_not_exists(sk)"},
                                 "return_values_on_condition_check_failure": "ALL_OLD"})
    d["access_patterns"].append({"name": "c", "operation": "scan", "entities": ["Row"], "select": "COUNT"})
    spec = spec_from_dict(d)
    (result,) = imported(tmp_path, json.loads(export(spec, "workbench")))
    assert result.spec == spec
    assert [p.to_dict() for p in result.spec.access_patterns] == [p.to_dict() for p in spec.access_patterns]
