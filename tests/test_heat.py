"""Partition heat (blue_nb.heat): workload weights, per-call costs against Store.run, per-partition
units with index write amplification, access logs, throttle findings, and ``blue-nb heat``."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from blue_nb.patterns import index_entry, plan
from blue_nb.errors import SourceError, StoreError
from blue_nb.heat import call_costs, candidates, partition_heat, heat_findings, parse_distribution, parse_timestamp
from blue_nb.sizes import limits as size_limits
from blue_nb.sizing import item_size, write_units
from blue_nb.spec import load_spec, loads_spec, with_pattern
from blue_nb.stores import open_store
from blue_nb.app.workflows import load_data, validate

ROOT = Path(__file__).resolve().parent.parent
SPECS, SAMPLE = ROOT / "data" / "specs", ROOT / "data" / "sample"
BLUE_NB = ROOT / ".venv" / "bin" / "blue-nb"


def loaded(spec, data_dir):
    store = open_store("duckdb")
    load_data(spec, data_dir, stores=[store], progress=False)
    return store


@pytest.fixture(scope="module")
def dialogue():
    spec = load_spec(SPECS / "dialogue.yaml")
    store = loaded(spec, SAMPLE / "dialogue")
    yield spec, store
    store.close()


@pytest.fixture(scope="module")
def dialogue_report(dialogue):
    return partition_heat(dialogue[0], dialogue[1])


# -- "done when": one key takes 90% of 10,000 strong reads/s of 8 KB items ------------------------
PRODUCTS = """
spec_version: 1
domain: shop
table: {{partition_key: pk, sort_key: sk, billing_mode: {billing}{capacity}}}
entities:
  Product:
    source: products
    key: {{pk: "PRODUCT#{{product_id}}", sk: "META"}}
    attributes: {{body: S}}
    writer: shop
access_patterns:
  - name: get_product
    operation: get_item
    entities: [Product]
    key_condition: {{pk: "PRODUCT#{{product_id}}", sk: "META"}}
    consistent_read: true
    hot: true
    rate_per_second: 10000
    key_distribution: {dist}
"""


def zipf_s_for_top_share(share: float, n: int) -> float:
    """The s of a Zipf law over n keys whose top key gets ``share`` of the calls."""
    lo, hi = 0.0, 50.0
    for _ in range(200):
        mid = (lo + hi) / 2
        top = 1 / sum(k ** -mid for k in range(1, n + 1))
        lo, hi = (mid, hi) if top < share else (lo, mid)
    return (lo + hi) / 2


@pytest.fixture(scope="module")
def products(tmp_path_factory):
    d = tmp_path_factory.mktemp("products")
    pd.DataFrame({"product_id": [f"p{i:02d}" for i in range(10)], "body": ["x" * 8000] * 10}).to_csv(
        d / "products.csv", index=False)
    return d


def product_spec(dist: str, billing: str = "PAY_PER_REQUEST", capacity: str = ""):
    return loads_spec(PRODUCTS.format(dist=dist, billing=billing, capacity=capacity))


def test_one_key_at_90_percent_of_10000_strong_reads_is_a_hot_partition(products):
    s = zipf_s_for_top_share(0.9, 10)
    spec = product_spec(f"zipf:{s:.12f}")
    with loaded(spec, products) as store:
        assert 4096 < store.execute('SELECT max(size) FROM "blue_shop__items"')[0][0] <= 8192   # 2 RCU strong
        report = partition_heat(spec, store)
    top = report.partitions.iloc[0]
    assert (top["index"], top["pk"]) == ("table", "PRODUCT#p00")
    assert top["rcu_per_s"] == pytest.approx(0.9 * 10_000 * 2, rel=1e-6)           # 18,000 RCU/s
    assert top["consumed_throughput_units"] == pytest.approx(18_000, rel=1e-6)
    assert report.partitions["rcu_per_s"].sum() == pytest.approx(20_000, rel=1e-9)
    hot = report.findings.by_rule("HOT-PARTITION")
    assert [(f.severity, f.where) for f in hot] == [("error", "access_patterns[0] (get_product)")]
    assert "'PRODUCT#p00'" in hot[0].message and "18,000 RCU/s" in hot[0].message
    assert "one item" in hot[0].message.lower() and "no split can help" in hot[0].message
    # every simulated second of the hot key is over 3,000 RCU
    tl = report.timeline[report.timeline["pk"] == "PRODUCT#p00"]
    assert len(tl) == 60 and (tl["rcu"] > 3000).all() and tl["rcu"].mean() == pytest.approx(18_000, rel=0.02)
    assert report.skew["table"]["top1pct_share"] == pytest.approx(0.9, rel=1e-6)
    assert report.top_keys(1).iloc[0]["pk"] == "PRODUCT#p00"


def test_the_same_data_read_uniformly_has_no_hot_partition(products):
    spec = product_spec("uniform")
    with loaded(spec, products) as store:
        report = partition_heat(spec, store)
    assert report.partitions["rcu_per_s"].tolist() == pytest.approx([2000.0] * 10)
    assert not report.findings.by_rule("HOT-PARTITION") and not report.findings
    assert report.skew["table"]["max_over_median"] == pytest.approx(1.0)


def test_burst_is_modelled_for_the_provisioned_table_only(products):
    spec = product_spec("uniform", "PROVISIONED", ", read_capacity: 10000, write_capacity: 100")
    with loaded(spec, products) as store:
        report = partition_heat(spec, store)
    f, = report.findings.by_rule("TABLE-CAPACITY")
    assert f.severity == "error" and f.where == "table.read_capacity"
    assert "runs out after about 300 s" in f.message                      # 300 s x 10,000 / (20,000 - 10,000)
    assert report.table["rcu"]["burst_lasts_s"] == pytest.approx(300, rel=0.05)
    assert not report.findings.by_rule("HOT-PARTITION")                  # 2,000 RCU/s per key: under 3,000


def test_validate_with_data_adds_the_heat_findings(products, tmp_path):
    s = zipf_s_for_top_share(0.9, 10)
    path = tmp_path / "shop.yaml"
    path.write_text(PRODUCTS.format(dist=f"zipf:{s:.12f}", billing="PAY_PER_REQUEST", capacity=""))
    f = validate(path, products)
    assert [x.where for x in f.by_rule("HOT-PARTITION")] == ["access_patterns[0] (get_product)"] and f.has_errors
    assert not validate(path).by_rule("HOT-PARTITION")                  # without data: no heat


# -- weights ---------------------------------------------------------------------------------------
ORDERS = """
spec_version: 1
domain: orders
table:
  partition_key: pk
  sort_key: sk
  indexes:
    gsi1: {type: global, partition_key: gsi1pk, sort_key: gsi1sk, projection: [status]}
entities:
  Order:
    source: orders
    key: {pk: "CUST#{customer}", sk: "ORDER#{order_id}", gsi1pk: "STATUS#{status}", gsi1sk: "{order_id}"}
    attributes: {status: S, note: S}
    writer: shop
access_patterns:
  - {name: list_orders, operation: query, entities: [Order], key_condition: {pk: "CUST#{customer}"},
     rate_per_second: 10, key_distribution: uniform}
  - {name: get_order, operation: get_item, entities: [Order],
     key_condition: {pk: "CUST#{customer}", sk: "ORDER#{order_id}"}, rate_per_second: 10, key_distribution: "zipf:2"}
  - {name: put_order, operation: put_item, entities: [Order],
     key_condition: {pk: "CUST#{customer}", sk: "ORDER#{order_id}"}, rate_per_second: 100, key_distribution: uniform}
  - {name: set_status, operation: update_item, entities: [Order],
     key_condition: {pk: "CUST#{customer}", sk: "ORDER#{order_id}"}, rate_per_second: 50, key_distribution: sample}
"""


@pytest.fixture(scope="module")
def orders(tmp_path_factory):
    d = tmp_path_factory.mktemp("orders")
    rows = [("a", 1, "open"), ("a", 2, "open"), ("a", 3, "closed"), ("b", 4, "open"), ("b", 5, "closed"),
            ("c", 6, "open")]
    pd.DataFrame([{"customer": c, "order_id": f"o{i}", "status": s, "note": "n" * (1500 * i)} for c, i, s in rows]
                 ).to_csv(d / "orders.csv", index=False)
    spec = loads_spec(ORDERS)
    store = loaded(spec, d)
    yield spec, store
    store.close()


def test_parse_distribution():
    assert parse_distribution("zipf:1.2") == ("zipf", 1.2)
    assert parse_distribution("sample") == ("sample", 0.0) and parse_distribution("uniform") == ("uniform", 0.0)


@pytest.mark.parametrize("dist, expected", [
    ("uniform", [1 / 3, 1 / 3, 1 / 3]),
    ("sample", [3 / 6, 2 / 6, 1 / 6]),                                   # the data's own frequencies
    ("zipf:1", [1 / h for h in (11 / 6, 11 / 3, 11 / 2)]),                # ranks 1, 2, 3 by items: 1, 1/2, 1/3
    ("zipf:2", [1 / (49 / 36), 0.25 / (49 / 36), (1 / 9) / (49 / 36)]),
])
def test_partition_weights(orders, dist, expected):
    spec, store = orders
    p = spec.pattern("list_orders")
    p.key_distribution = dist
    try:
        c = candidates(store, spec, p)
    finally:
        p.key_distribution = "uniform"
    assert c["customer"].tolist() == ["a", "b", "c"] and c["n"].tolist() == [3, 2, 1]
    assert c["qpk"].tolist() == ["CUST#a", "CUST#b", "CUST#c"]
    assert c["w"].tolist() == pytest.approx(expected)


def test_zipf_draws_the_partition_then_the_tuple_within_it(orders):
    spec, store = orders
    c = candidates(store, spec, "get_order").set_index("order_id")
    z = 1 + 1 / 4 + 1 / 9
    assert c.loc["o1", "w"] == pytest.approx(1 / z / 3) and c.loc["o4", "w"] == pytest.approx(0.25 / z / 2)
    assert c.loc["o6", "w"] == pytest.approx(1 / 9 / z) and c["w"].sum() == pytest.approx(1)
    assert c.loc["o1", "qsk1"] == "ORDER#o1"


def test_writes_land_on_the_table_and_on_the_gsi_with_entry_write_units(orders):
    spec, store = orders
    report = partition_heat(spec, store, sizes=False)
    items = {(i["pk"], i["sk"]): i for i in store.iter_items(spec.table_name)}
    put = candidates(store, spec, "put_order")
    upd = candidates(store, spec, "set_status")
    expected_gsi: dict[str, float] = {}
    expected_table: dict[str, float] = {}
    for (cands, rate, mult) in ((put, 100, 1), (upd, 50, 2)):          # an update of status moves the entry: 2
        for r in cands.itertuples():
            item = items[(r.qpk, r.qsk1)]
            entry = index_entry(item, spec, "gsi1")
            expected_gsi[item["gsi1pk"]] = expected_gsi.get(item["gsi1pk"], 0) + rate * r.w * mult * write_units(
                item_size(entry))
            expected_table[r.qpk] = expected_table.get(r.qpk, 0) + rate * r.w * write_units(item_size(item))
    parts = report.partitions.set_index(["index", "pk"])
    for key, wcu in expected_gsi.items():
        assert parts.loc[("gsi1", key), "wcu_per_s"] == pytest.approx(wcu)
    for key, wcu in expected_table.items():
        assert parts.loc[("table", key), "wcu_per_s"] == pytest.approx(wcu)
    assert put["w"].tolist() == pytest.approx([1 / 9] * 3 + [1 / 6] * 2 + [1 / 3])
    assert parts.loc[("gsi1", "STATUS#open"), "items"] == 4
    # notes of 1.5 KB x order number: table writes cost more units than the projected entries
    assert write_units(item_size(items[("CUST#c", "ORDER#o6")])) == 9
    costs = call_costs(store, spec, "set_status").set_index("order_id")
    assert costs.loc["o6", "wcu"] == 9 + 2


# -- per-call cost: the SQL path agrees with Store.run --------------------------------------------
@pytest.mark.parametrize("pattern", ["get_dialogue", "list_experts", "list_perspectives", "list_round",
                                     "tension_history", "dialogues_by_status"])
def test_call_cost_matches_store_run(dialogue, pattern):
    spec, store = dialogue
    p = spec.pattern(pattern)
    costs = call_costs(store, spec, p)
    assert len(costs) > 2
    for r in costs.head(12).itertuples():
        result = store.run_plan(plan(spec, p, {n: getattr(r, n) for n in p.parameters}))
        assert (r.rcu, r.items, r.bytes, r.pages) == (result.rcu, result.scanned_count, result.bytes_read,
                                                      len(result.pages)), r


def test_multi_page_queries_match_store_run_too():
    spec = load_spec(SPECS / "document.yaml")
    with loaded(spec, SAMPLE / "document") as store:
        costs = call_costs(store, spec, "list_documents")
        assert costs["pages"].max() > 1                                 # some realms read more than 1 MB
        for r in costs.itertuples():
            result = store.run_plan(plan(spec, "list_documents", {"realm_id": r.realm_id}))
            assert (r.rcu, r.items, r.pages) == (result.rcu, result.scanned_count, len(result.pages))


def test_heat_needs_a_duckdb_store(dialogue):
    with open_store("sqlite") as s, pytest.raises(StoreError, match="DuckDB store"):
        partition_heat(dialogue[0], s)


# -- the example specs on their samples -----------------------------------------------------------
def test_dialogue_sample_numbers(dialogue_report):
    r = dialogue_report
    parts = r.partitions.set_index(["index", "pk"])
    # dialogues_by_status: 10 calls/s drawn by the data's status frequencies (23 of 37 open); each reads the
    # 23 open entries (limit 50) of 3,490 bytes projected: one page, 1 x 4 KB eventual = 0.5 RCU
    assert parts.loc[("gsi1", "STATUS#open"), "items"] == 23
    assert parts.loc[("gsi1", "STATUS#open"), "bytes"] == 3490
    assert parts.loc[("gsi1", "STATUS#open"), "rcu_per_s"] == pytest.approx(10 * 23 / 37 * 0.5)
    # set_dialogue_status: 1/s over 37 dialogues, 2 entry writes (the status key changes)
    assert parts.loc[("gsi1", "STATUS#open"), "wcu_per_s"] == pytest.approx(1 * 23 / 37 * 2)
    assert parts.loc[("gsi1", "STATUS#open"), "rcu_per_s"] / 3000 < 0.002       # far from the limit
    assert r.partitions.iloc[0]["pk"] == "nvidia-dec"                           # 1,900 items: the biggest
    assert 1800 < r.partitions.iloc[0]["rcu_per_s"] < 1900
    assert r.partitions["consumed_throughput_units"].is_monotonic_decreasing
    assert set(r.partitions.columns) >= {"index", "pk", "items", "bytes", "rcu_per_s", "wcu_per_s",
                                         "consumed_throughput_units", "patterns"}
    assert r.partitions.iloc[0]["patterns"].startswith("list_perspectives")
    assert list(r.timeline.columns) == ["second", "index", "pk", "rcu", "wcu"]
    assert r.timeline["second"].between(0, 59).all()


def test_dialogue_sample_has_no_heat_findings(dialogue_report):
    # the real numbers: STATUS#open takes 3.1 RCU/s (0.1% of 3,000): no HOT-INDEX-PARTITION;
    # record_tension_event puts 1.6 WCU/s on its hottest key (0.16% of 1,000): no MONOTONIC-WRITES
    assert list(dialogue_report.findings) == []
    peaks = dialogue_report.drivers.set_index(["index", "pk", "pattern"])
    assert peaks.loc[("table", "nvidia-dec", "record_tension_event"), "wcu_per_s"] == pytest.approx(1.577, abs=0.01)


def test_heavy_time_ordered_writes_are_monotonic(dialogue):
    spec, store = dialogue
    found = heat_findings(with_pattern(spec, "record_tension_event", rate_per_second=5000), store)
    mono, = [f for f in found if f.rule == "MONOTONIC-WRITES"]
    assert mono.where == "entities.TensionEvent.key.sk" and "{ts}" in mono.message and "'nvidia-dec'" in mono.message
    hot, = [f for f in found if f.rule == "HOT-PARTITION"]
    assert hot.severity == "error" and "ever-growing sort key" in hot.message and "'nvidia-dec'" in hot.message


def test_a_hot_dashboard_on_a_status_index_is_a_hot_index_partition(dialogue):
    spec, store = dialogue
    found = heat_findings(with_pattern(spec, "dialogues_by_status", rate_per_second=20_000), store)
    error, warning = [f for f in found if f.rule == "HOT-INDEX-PARTITION"]
    assert (error.severity, error.where) == ("error", "table.indexes.gsi1")
    assert "'STATUS#open'" in error.message and "only 3 partition key value(s)" in error.message
    assert "6,216 RCU/s" in error.message                                       # 20,000 x 23/37 x 0.5 RCU
    # 12,432 calls/s x 0.5 RCU minimum = 6,216 RCU/s on any partition a call touches (each call is one
    # minimum read: 23 entries of 3,490 bytes): no split helps
    assert "6,216 RCU/s at the minimum charge per call" in error.message
    # 'closed' (8 of 37) at 72% and 'archived' (6 of 37) at 54%: warnings, since 3 keys leave no room to spread
    assert warning.severity == "warning" and "'STATUS#closed'" in warning.message and "(72% of" in warning.message
    assert any(e.startswith("STATUS#archived: 1,622 RCU/s") for e in warning.evidence)
    assert not [f for f in found if f.rule == "HOT-PARTITION"]


def test_item_size_near_limit_and_partition_size(monkeypatch):
    spec = load_spec(SPECS / "document.yaml")
    with loaded(spec, SAMPLE / "document") as store:
        found = heat_findings(spec, store)
        near, = [f for f in found if f.rule == "ITEM-SIZE-NEAR-LIMIT"]
        assert near.where == "entities.Document" and "3 Document item(s)" in near.message
        assert not [f for f in found if f.rule == "PARTITION-SIZE"]
        monkeypatch.setattr(size_limits, "PARTITION_BYTES", 1_000_000)          # a 1 MB "partition" for the test
        size, = [f for f in heat_findings(spec, store) if f.rule == "PARTITION-SIZE"]
    assert size.severity == "warning" and "'letemcook'" in size.message      # no LSI: it spans partitions
    assert [f.rule for f in validate(SPECS / "document.yaml", SAMPLE / "document").by_rule("ITEM-SIZE-NEAR-LIMIT")] \
        == []                                                               # ITEM-SIZE already says it


# -- access logs -----------------------------------------------------------------------------------
def write_log(path: Path, rows: list[dict]) -> Path:
    if path.suffix == ".csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    elif path.suffix == ".parquet":
        pd.DataFrame(rows).astype({"timestamp": str}).to_parquet(path)      # numeric and ISO text in one column
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def spike_rows(by: str) -> list[dict]:
    rows = []
    for second, n in ((0, 3), (3, 200), (7, 3)):
        for k in range(n):
            t = 1_700_000_000 + second + k / (n + 1)
            if by == "params":
                rows.append({"timestamp": t, "pattern": "list_perspectives", "params": json.dumps(
                    {"dialogue_id": "nvidia-dec"})})
            else:
                rows.append({"timestamp": t, "pattern": "list_perspectives", "pk": "nvidia-dec"})
    rows.append({"timestamp": "2023-11-14T22:13:21.5Z", "pattern": "dialogues_by_status",
                 **({"params": json.dumps({"status": "open"})} if by == "params" else
                    {"pk": "STATUS#open", "index": "gsi1"})})
    return rows


@pytest.mark.parametrize("suffix, by", [(".csv", "params"), (".csv", "pk"), (".jsonl", "params"),
                                        (".jsonl", "pk"), (".parquet", "params")])
def test_access_log_buckets_per_second_and_shows_the_spike(dialogue, tmp_path, suffix, by):
    spec, store = dialogue
    log = write_log(tmp_path / f"log{suffix}", spike_rows(by))
    r = partition_heat(spec, store, log=log, sizes=False)
    tl = r.timeline[r.timeline["pk"] == "nvidia-dec"].set_index("second")["rcu"]
    per_call = store.run_plan(plan(spec, "list_perspectives", {"dialogue_id": "nvidia-dec"})).rcu          # 82.5
    assert tl.to_dict() == pytest.approx({0: 3 * per_call, 3: 200 * per_call, 7: 3 * per_call})
    assert r.seconds == 8
    parts = r.partitions.set_index(["index", "pk"])
    assert parts.loc[("table", "nvidia-dec"), "rcu_per_s"] == pytest.approx(206 * per_call / 8)
    gsi = r.timeline[r.timeline["index"] == "gsi1"]
    assert gsi[["second", "pk", "rcu"]].values.tolist() == [[1, "STATUS#open", 0.5]]   # 3,490 B: one eventual read
    assert r.source == str(log)


def test_log_rows_on_keys_without_items_cost_the_minimum(dialogue, tmp_path):
    spec, store = dialogue
    log = write_log(tmp_path / "new.jsonl", [
        {"timestamp": 10, "pattern": "list_perspectives", "pk": "new-dialogue"},
        {"timestamp": 10.5, "pattern": "add_perspective", "pk": "new-dialogue"},
        {"timestamp": 11, "pattern": "get_dialogue", "params": {"dialogue_id": "new-dialogue"}}])
    r = partition_heat(spec, store, log=log, sizes=False)
    tl = r.timeline.set_index(["second", "pk"])
    median = int(store.execute("SELECT quantile_disc(size, 0.5) FROM blue_dialogue__items "
                               "WHERE entity = 'Perspective'")[0][0])
    assert tl.loc[(0, "new-dialogue"), "rcu"] == 0.5 and tl.loc[(0, "new-dialogue"), "wcu"] == write_units(median)
    assert tl.loc[(1, "new-dialogue"), "rcu"] == 0.5                          # a missing item: the minimum
    assert r.partitions.set_index(["index", "pk"]).loc[("table", "new-dialogue"), "items"] == 0


def test_bad_log_rows_are_reported_with_file_and_line(dialogue, tmp_path):
    spec, _ = dialogue
    from blue_nb.heat import read_access_log

    csv = tmp_path / "bad.csv"
    csv.write_text('timestamp,pattern,params\n1700000000,get_dialogue,"{""dialogue_id"": ""x""}"\n'
                   'yesterday,get_dialogue,"{}"\n1700000001,no_such_pattern,"{}"\n')
    with pytest.raises(SourceError) as e:
        read_access_log(csv, spec)
    assert e.value.where == f"{csv}:3" and "yesterday" in e.value.msg and f"{csv}:4" in e.value.msg
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"timestamp": 1, "pattern": "get_dialogue", "pk": "x"}\n{not json\n')
    with pytest.raises(SourceError) as e:
        read_access_log(jsonl, spec)
    assert e.value.where == f"{jsonl}:2"
    missing = tmp_path / "m.jsonl"
    missing.write_text('{"timestamp": 1, "pattern": "list_round", "params": {"dialogue_id": "x"}}\n')
    with pytest.raises(SourceError) as e:
        partition_heat(spec, dialogue[1], log=missing)
    assert e.value.where == f"{missing}:1" and "round" in e.value.msg


def test_parse_timestamp():
    assert parse_timestamp("1700000000.25") == 1_700_000_000.25 and parse_timestamp(12) == 12.0
    assert parse_timestamp("2023-11-14T22:13:20Z") == 1_700_000_000
    assert parse_timestamp("2023-11-14T23:13:20+01:00") == 1_700_000_000
    assert parse_timestamp("2023-11-14T22:13:20") == 1_700_000_000           # naive: UTC
    with pytest.raises(ValueError):
        parse_timestamp("soon")


# -- the report and the command line ---------------------------------------------------------------
def test_report_frames_follow_the_plot_contract(dialogue_report):
    r = dialogue_report
    assert list(r.sizes.columns) == ["entity", "size"] and len(r.sizes) == 5261
    assert list(r.waste.columns) == ["entity", "items", "bytes_used", "bytes_paid_read", "bytes_paid_write"]
    w = r.waste.set_index("entity").loc["Perspective"]
    assert w["items"] == 3576 and w["bytes_used"] <= w["bytes_paid_write"] <= w["bytes_paid_read"]
    assert list(r.attrs.columns) == ["entity", "attribute", "bytes", "share"]
    assert r.attrs.groupby("entity")["share"].sum().tolist() == pytest.approx([1.0] * 5)
    assert r.attrs[r.attrs["entity"] == "Perspective"].iloc[0]["attribute"] == "content"
    assert list(r.entries.columns) == ["index", "size"] and len(r.entries) == 37
    assert r.entries["size"].sum() == 5781          # the projection keeps every attribute a Dialogue has
    assert r.size_stats["Perspective"]["count"] == 3576
    assert r.size_stats["Dialogue"]["max"] >= r.size_stats["Dialogue"]["p95"] >= r.size_stats["Dialogue"]["p50"]


def test_cli_heat_writes_the_summary(tmp_path):
    out = tmp_path / "heat"
    r = subprocess.run([str(BLUE_NB), "heat", "data/specs/dialogue.yaml", "--data", "data/sample/dialogue",
                        "--out", str(out), "--no-progress"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "nvidia-dec" in r.stdout
    s = json.loads((out / "summary.json").read_text())
    assert s["partitions"] == 40 and s["findings"] == []
    top = s["top_keys"]
    assert top[0]["pk"] == "nvidia-dec" and len(top) == 20
    for k in top:
        assert {"index", "pk", "rcu_per_s", "wcu_per_s", "consumed_throughput_units", "items", "bytes"} <= set(k)
        assert k["consumed_throughput_units"] == pytest.approx(3 * k["wcu_per_s"] + k["rcu_per_s"], abs=0.01)
    units = [k["consumed_throughput_units"] for k in top]
    assert units == sorted(units, reverse=True)
    assert set(s["item_sizes"]) == {"Dialogue", "Expert", "Perspective", "Tension", "TensionEvent"}
    for v in s["item_sizes"].values():
        assert {"count", "p50", "p95", "max"} <= set(v) and v["p50"] <= v["p95"] <= v["max"]
    assert (out / "partitions.csv").is_file()
    assert len(pd.read_csv(out / "partitions.csv")) == 40
    try:
        import blue_nb.plots  # noqa: F401
    except ImportError:
        return
    assert {"heat_table_rcu.png", "top_keys.png", "item_sizes.png"} <= {p.name for p in out.glob("*.png")}


def test_cli_heat_bad_log_exits_2(tmp_path):
    log = write_log(tmp_path / "bad.jsonl", [{"timestamp": "later", "pattern": "get_dialogue", "pk": "x"}])
    r = subprocess.run([str(BLUE_NB), "heat", "data/specs/dialogue.yaml", "--data", "data/sample/dialogue",
                        "--log", str(log), "--out", str(tmp_path / "o"), "--no-progress"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and f"{log}:1" in r.stderr and "Traceback" not in r.stderr


def test_time_like_names():
    from blue_nb.heat import is_time_like

    assert all(is_time_like(n) for n in ("ts", "created_at", "event_time", "timestamp", "date"))
    assert not any(is_time_like(n) for n in ("status", "seq", "expert", "tension_id", "attempts"))
    assert math.isclose(zipf_s_for_top_share(0.5, 2), 0.0, abs_tol=1e-9)
