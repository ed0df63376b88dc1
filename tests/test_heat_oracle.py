"""The heat model stated once: the product's numpy path against the SQL oracle (tests/heat_oracle.py), and
the report against the sliders' model for the same state."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blue_nb.app.workflows import load_data
from blue_nb.heat import partition_heat
from blue_nb.heat.costs import CostTables
from blue_nb.heat.logs import price_log, read_access_log
from blue_nb.heat.model import HeatModel
from blue_nb.heat.seconds import FEW_CALLS, MANY_CANDIDATES
from blue_nb.heat.workload import build_candidates
from blue_nb.spec import load_spec, with_pattern
from blue_nb.stores import load_items, open_store
from blue_nb.stores.analytics import frame
from tests.heat_oracle import (SqlCostTables, sql_by_pattern, sql_calls, sql_hot_items, sql_partitions,
                               sql_pattern_costs, sql_simulate, sql_timeline, upload_calls)
from tests.test_paging import SPEC as PAGES_SPEC, all_items

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = {"dialogue": "dialogue", "dialogue_v2": "dialogue", "document": "document"}     # spec -> sample
HOT = "list_perspectives"


@pytest.fixture(scope="module")
def stores():
    opened = {}
    for sample in set(SAMPLES.values()):
        spec = load_spec(ROOT / "data" / "specs" / f"{sample}.yaml")
        store = open_store("duckdb")
        load_data(spec, ROOT / "data" / "sample" / sample, stores=[store], progress=False)
        opened[sample] = store
    yield opened
    for store in opened.values():
        store.close()


def priced(spec, store):
    scratch = store.analytics()
    model = HeatModel(scratch, spec)
    model.add_model_patterns()
    return scratch, model


def assert_same_timeline(product: pd.DataFrame, oracle: pd.DataFrame) -> None:
    """The same rows in the same order (second, index, pk), and the same units to the last bits of a sum."""
    keys = ["second", "index", "pk"]
    assert product[keys].astype(str).values.tolist() == oracle[keys].astype(str).values.tolist()
    for col in ("rcu", "wcu"):
        assert product[col].to_numpy() == pytest.approx(oracle[col].to_numpy(), rel=1e-12, abs=1e-12), col


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_draw_and_the_sum_per_second_equal_the_sql_oracle(stores, name):
    spec = load_spec(ROOT / "data" / "specs" / f"{name}.yaml")
    scratch, model = priced(spec, stores[SAMPLES[name]])
    try:
        calls = model.simulate(60, 18)
        oracle = sql_simulate(model, 60, 18)
        expected = sql_calls(model, oracle)
        got = calls.sort_values(["second", "pid", "cid"], ignore_index=True)
        assert got[["second", "pid", "cid"]].equals(expected[["second", "pid", "cid"]]) and len(got) > 0
        assert got["k"].to_numpy() == pytest.approx(expected["k"].to_numpy(), rel=1e-12)
        assert_same_timeline(model.timeline(calls), sql_timeline(model, oracle))
    finally:
        scratch.close()


def test_many_calls_over_few_candidates_are_drawn_per_second_like_the_oracle(stores):
    """Above FEW_CALLS calls over at most MANY_CANDIDATES candidates a second's calls are one multinomial draw."""
    spec = with_pattern(load_spec(ROOT / "data" / "specs" / "dialogue.yaml"), HOT, rate_per_second=20_000)
    scratch, model = priced(spec, stores["dialogue"])
    try:
        pid = next(p for p, n in model.names.items() if n == HOT)
        assert model.rates[pid] * 20 > FEW_CALLS and model.candidates[pid].count <= MANY_CANDIDATES
        calls = model.simulate(20, 5)
        expected = sql_calls(model, sql_simulate(model, 20, 5))
        got = calls.sort_values(["second", "pid", "cid"], ignore_index=True)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert_same_timeline(model.timeline(calls), sql_timeline(model, upload_calls(model, calls)))
    finally:
        scratch.close()


def test_a_logs_calls_sum_per_second_like_the_oracle(stores, tmp_path):
    spec = load_spec(ROOT / "data" / "specs" / "dialogue.yaml")
    rows = [{"timestamp": 1_700_000_000 + s + k / 10, "pattern": HOT, "pk": pk}
            for s, pk in ((0, "nvidia-dec"), (2, "café-strategy"), (2, "nvidia-dec")) for k in range(5)]
    rows += [{"timestamp": 1_700_000_001, "pattern": "get_dialogue",
              "params": json.dumps({"dialogue_id": "nvidia-dec"})}]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    scratch = stores["dialogue"].analytics()
    try:
        model = HeatModel(scratch, spec)
        calls, seconds = price_log(model, read_access_log(path, spec))
        assert seconds == 3
        assert_same_timeline(model.timeline(calls), sql_timeline(model, upload_calls(model, calls)))
    finally:
        scratch.close()


def assert_same_partitions(product: pd.DataFrame, oracle: pd.DataFrame) -> None:
    """The same keys in the same order, sizes and pattern lists exactly, loads to the last bits of a sum."""
    text = ["index", "pk", "items", "bytes", "patterns"]
    assert product[text].values.tolist() == oracle[text].values.tolist() and len(product) > 0
    for col in ("rcu_per_s", "wcu_per_s", "consumed_throughput_units"):
        assert product[col].to_numpy() == pytest.approx(oracle[col].to_numpy(), rel=1e-12, abs=1e-12), col


@pytest.mark.parametrize("name", sorted(SAMPLES))
@pytest.mark.parametrize("rates", [{}, {HOT: 1_200.0}])
def test_the_load_per_partition_equals_the_sql_oracle(stores, name, rates):
    spec = load_spec(ROOT / "data" / "specs" / f"{name}.yaml")
    for pattern, rate in rates.items():
        if pattern in {p.name for p in spec.access_patterns}:
            spec = with_pattern(spec, pattern, rate_per_second=rate)
    scratch, model = priced(spec, stores[SAMPLES[name]])
    try:
        assert_same_partitions(model.partitions(), sql_partitions(model))
        got = frame(model.store, f"SELECT idx, pk, name, rcu, wcu, floor FROM {model.scratch.name('bypat')} "
                                 "ORDER BY 1, 2, 3", ["idx", "pk", "name", "rcu", "wcu", "floor"])
        expected = sql_by_pattern(model)
        assert got[["idx", "pk", "name"]].values.tolist() == expected[["idx", "pk", "name"]].values.tolist()
        for col in ("rcu", "wcu", "floor"):
            assert got[col].to_numpy() == pytest.approx(expected[col].to_numpy(), rel=1e-12, abs=1e-12), col
    finally:
        scratch.close()


def assert_same_hot_items(product: pd.DataFrame, oracle: pd.DataFrame) -> None:
    """The same items in the same order (ties included), loads to the last bits of a sum."""
    keys = ["index", "pk", "item"]
    assert product[keys].astype(object).values.tolist() == oracle[keys].values.tolist() and len(product) > 0
    for col in ("rcu_per_s", "wcu_per_s"):
        assert product[col].to_numpy() == pytest.approx(oracle[col].to_numpy(), rel=1e-12, abs=1e-12), col


@pytest.mark.parametrize("name", sorted(SAMPLES))
@pytest.mark.parametrize("rates", [{}, {HOT: 1_200.0}, {HOT: 20_000.0}])
def test_the_hot_items_and_the_load_per_pattern_equal_the_sql_oracle(stores, name, rates):
    """hot_items (the top 100, and the hottest item of every key at half a limit: at 20,000 calls/s) and
    pattern_costs in numpy, as the SQL counted them; a pattern's units/s are its load summed over the keys."""
    spec = load_spec(ROOT / "data" / "specs" / f"{name}.yaml")
    rates = {p: r for p, r in rates.items() if p in {x.name for x in spec.access_patterns}}
    for pattern, rate in rates.items():
        spec = with_pattern(spec, pattern, rate_per_second=rate)
    scratch, model = priced(spec, stores[SAMPLES[name]])
    try:
        model.partitions()
        hot = model.hot_items()
        assert_same_hot_items(hot, sql_hot_items(model))
        assert len(hot) > 100 if rates.get(HOT, 0) > 10_000 else len(hot) == 100
        assert_same_hot_items(model.hot_items(n=7, partitions=3), sql_hot_items(model, n=7, partitions=3))
        got, expected = model.pattern_costs(), sql_pattern_costs(model)
        assert got.columns.tolist() == expected.columns.tolist() and got.dtypes.tolist() == expected.dtypes.tolist()
        assert got[["pattern", "candidates", "max_pages"]].values.tolist() == \
            expected[["pattern", "candidates", "max_pages"]].values.tolist()
        for col in got.columns[2:]:
            assert got[col].to_numpy() == pytest.approx(expected[col].to_numpy(), rel=1e-12, abs=1e-12), col
        per_key = sql_by_pattern(model).groupby("name")[["rcu", "wcu"]].sum().loc[got["pattern"]]
        assert got["rcu_per_s"].to_numpy() == pytest.approx(per_key["rcu"].to_numpy(), rel=1e-9)
        assert got["wcu_per_s"].to_numpy() == pytest.approx(per_key["wcu"].to_numpy(), rel=1e-9)
    finally:
        scratch.close()


@pytest.mark.parametrize("rates", [{}, {HOT: 300.0}, {HOT: 1_200.0, "post_perspective": 900.0}])
def test_the_report_and_the_sliders_model_say_the_same_for_the_same_rates(stores, rates):
    """The same rates: the same load per key, the same seconds drawn (timeline, peaks, table) and the same findings."""
    spec = load_spec(ROOT / "data" / "specs" / "dialogue.yaml")
    store = stores["dialogue"]
    model = partition_heat(spec, store, sizes=False, rate_model=True).rate_model
    for name, rate in rates.items():
        spec = with_pattern(spec, name, rate_per_second=rate)
    report, fast = partition_heat(spec, store, sizes=False), model.evaluate(rates)
    a, b = (p.set_index(["index", "pk"]).sort_index() for p in (report.partitions, fast.partitions))
    assert list(a.index) == list(b.index)
    for col in ("rcu_per_s", "wcu_per_s"):
        assert b[col].to_numpy() == pytest.approx(a[col].to_numpy(), rel=1e-12, abs=1e-12)
    key = ["second", "index", "pk"]               # the sliders' timeline: the report's rows of the keys that matter
    shown = fast.timeline.astype({"index": object, "pk": object})
    keys = pd.MultiIndex.from_frame(shown[["index", "pk"]])
    same_keys = report.timeline[pd.MultiIndex.from_frame(report.timeline[["index", "pk"]]).isin(keys)]
    assert_same_timeline(shown.sort_values(key, ignore_index=True), same_keys.sort_values(key, ignore_index=True))
    assert b["patterns"].astype(str).tolist() == a["patterns"].tolist()           # the same lists, in the same order
    assert_same_hot_items(fast.hot_items, report.hot_items)                     # the same items, in the same order
    assert {k: v for k, v in report.table.items() if k != "unmodelled_patterns"} == fast.table
    assert [f.to_dict() for f in fast.findings] == [f.to_dict() for f in report.findings]
    assert np.isclose(fast.partitions.iloc[0]["rcu_per_s"], report.partitions.iloc[0]["rcu_per_s"], rtol=1e-12)


# -- the page rule: heat cuts a query's entries with pages_of, as a store's run does --------------------------
def cost_tables(tables_class, store, spec, pattern):
    """calls, effects and hits of one pattern's candidates priced by ``tables_class``, sorted."""
    scratch = store.analytics()
    try:
        costs = tables_class(scratch, spec)
        costs.add(0, build_candidates(scratch, spec, spec.pattern(pattern)))
        return [frame(store, f"SELECT * FROM {t} ORDER BY ALL", [c[0] for c in store.execute(f"DESCRIBE {t}")])
                for t in (costs.calls, costs.effects, costs.hits)]
    finally:
        scratch.close()


def assert_same_costs(store, spec, pattern):
    for got, expected in zip(cost_tables(CostTables, store, spec, pattern),
                             cost_tables(SqlCostTables, store, spec, pattern)):
        pd.testing.assert_frame_equal(got, expected, check_exact=True)


@pytest.fixture(scope="module")
def pages_store():
    with open_store("duckdb") as store:
        load_items([store], PAGES_SPEC, all_items(), progress=False)
        yield store


@pytest.mark.parametrize("pattern", ["rows", "rows_strong", "rows3", "rows5_strong"])
def test_query_pages_cut_by_the_page_rule_equal_the_sql_oracle(pages_store, pattern):
    assert_same_costs(pages_store, PAGES_SPEC, pattern)


@pytest.mark.parametrize("pattern", ["everything", "first5"])
def test_scans_equal_the_sql_oracle(pages_store, pattern):
    assert_same_costs(pages_store, PAGES_SPEC, pattern)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_samples_call_costs_equal_the_sql_oracle(stores, name):
    """Every pattern of the samples (gets, queries, writes with their index writes): the same per-call units."""
    spec = load_spec(ROOT / "data" / "specs" / f"{name}.yaml")
    operations = {p.operation for p in spec.access_patterns}
    assert {"get_item", "query", "put_item"} <= operations
    for p in spec.access_patterns:
        assert_same_costs(stores[SAMPLES[name]], spec, p.name)
