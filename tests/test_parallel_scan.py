"""Parallel scan: Segment / TotalSegments as a scan pattern's parameters. blue_nb splits the hash space of the
partition key into equal ranges (DynamoDB's hash is not published, nor is moto's the same): what every split
keeps, and what is tested on the stores and the endpoint, is that the segments together are the whole scan and
no item is read by two."""

from __future__ import annotations

from collections import Counter

import pytest

from blue_nb.app.compare import canonical
from blue_nb.errors import QueryError, SpecError
from blue_nb.patterns import plan, segment_of
from blue_nb.spec import spec_from_dict
from blue_nb.stores import load_items, open_store

from .endpoints import own_client

N = 60


def spec_dict(total: int = 4, **extra) -> dict:
    scan = {"name": "scan_all", "operation": "scan", "entities": ["Row"], "total_segments": total, "limit": 7, **extra}
    return {"spec_version": 1, "domain": "par", "table": {
        "partition_key": "pk", "sort_key": "sk",
        "indexes": {"by_g": {"type": "global", "partition_key": "g", "projection": "all"}}},
        "entities": {"Row": {"source": "rows", "key": {"pk": "P#{p}", "sk": "S#{s}", "g": "G#{gv}"},
                             "attributes": {"n": "N"}}},
        "access_patterns": [scan, {"name": "scan_g", "operation": "scan", "entities": ["Row"], "index": "by_g",
                                   "total_segments": 3}]}


ITEMS = [("Row", {"pk": f"P#{i % 20}", "sk": f"S#{i}", "g": f"G#{i % 7}", "n": i}, f"row {i}") for i in range(N)]


@pytest.fixture(scope="module")
def spec():
    return spec_from_dict(spec_dict())


@pytest.fixture(scope="module")
def stores(spec):
    with open_store("sqlite") as s, open_store("duckdb") as d:
        load_items([s, d], spec, ITEMS, progress=False)
        yield [s, d]


@pytest.fixture(scope="module")
def endpoint(dynamo_endpoint, spec):
    return own_client(dynamo_endpoint, spec, ITEMS)


def segments(engine, spec, name: str, total: int) -> list[list[str]]:
    return [[canonical(i) for i in engine.run_plan(plan(spec, name, {"segment": str(k)}), follow=True).items]
            for k in range(total)]


@pytest.mark.parametrize("name, total", [("scan_all", 4), ("scan_g", 3)])
def test_the_segments_are_the_whole_scan_and_never_overlap_on_every_engine(stores, endpoint, spec, name, total):
    whole = sorted(canonical(i) for _, i, _ in ITEMS)
    for engine in [*stores, endpoint]:
        parts = segments(engine, spec, name, total)
        every = [x for part in parts for x in part]
        assert sorted(every) == whole and len(set(every)) == len(every), engine
        assert sum(1 for part in parts if part) > 1               # the split spreads the items
    local = [segments(s, spec, name, total) for s in stores]
    assert local[0] == local[1]                                    # SQLite and DuckDB: the same split, the same order


def test_blue_nbs_split_keeps_a_partition_key_in_one_segment_and_pages_each_on_its_own(stores, spec):
    counts = Counter(segment_of(f"P#{i}", 4) for i in range(20))
    assert sum(counts.values()) == 20 and len(counts) == 4         # 20 keys over 4 ranges of the hash space
    r = stores[0].run_plan(plan(spec, "scan_all", {"segment": "1"}), follow=True)
    mine = [i for _, i, _ in ITEMS if segment_of(i["pk"], 4) == 1]
    assert sorted(map(canonical, r.items)) == sorted(map(canonical, mine))
    assert [p.count for p in r.pages][:-1] == [7] * (len(mine) // 7)    # Limit 7 per page within the segment
    _, kw = plan(spec, "scan_all", {"segment": "1"}).boto3
    assert (kw["Segment"], kw["TotalSegments"], kw["Limit"]) == (1, 4, 7)


def test_a_segment_out_of_range_and_segments_on_a_query_are_refused(spec):
    with pytest.raises(QueryError, match="Segment: 4 is out of bounds for TotalSegments: 4") as e:
        plan(spec, "scan_all", {"segment": "4"})
    assert e.value.where == "access_patterns.scan_all.total_segments"
    with pytest.raises(QueryError, match="needs segment"):
        plan(spec, "scan_all", {})
    d = spec_dict()
    d["access_patterns"].append({"name": "q", "operation": "query", "entities": ["Row"], "total_segments": 2,
                                 "key_condition": {"pk": "P#{p}"}})
    with pytest.raises(SpecError) as e:
        spec_from_dict(d)
    assert any(p.where.endswith("access_patterns[2] (q).total_segments") for p in e.value.problems)


def test_applys_compare_checks_the_union_of_the_segments(stores, endpoint, spec):
    from blue_nb.app.roundtrip import compare_patterns

    checks = {c.pattern: c for c in compare_patterns(spec, stores, endpoint, emulator="moto")}
    assert checks["scan_all"].ok and checks["scan_g"].ok, [c.difference for c in checks.values()]
    assert checks["scan_all"].counts == {"sqlite": N, "duckdb": N, "dynamodb": N}
    assert checks["scan_all"].case == "all 4 segments"


def test_the_heat_model_prices_a_call_of_a_parallel_scan_as_one_segment(stores, spec):
    from dataclasses import replace

    from blue_nb.heat import call_costs

    whole = replace(spec.pattern("scan_all"), total_segments=None, limit=None)
    seg = replace(spec.pattern("scan_all"), limit=None)
    one, every = call_costs(stores[1], spec, seg), call_costs(stores[1], spec, whole)
    assert int(one["items"].iloc[0]) == N // 4 and int(every["items"].iloc[0]) == N
    assert float(one["rcu"].iloc[0]) <= float(every["rcu"].iloc[0])
