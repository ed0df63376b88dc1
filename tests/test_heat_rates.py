"""The fast path of the heat model for other rates and skews (blue_nb.heat.rates) against the full model,
and the HeatExplorer widget driven without a browser. No timings here: speed is in ``make bench``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.sliders import bench_heat_sliders
from blue_nb.errors import BlueNbError, QueryError
from blue_nb.heat import RateModel, partition_heat, parse_distribution, rate_model
from blue_nb.spec import load_spec, loads_spec, with_pattern
from blue_nb.printing import number
from blue_nb.stores import open_store
from blue_nb.widgets import HeatExplorer
from blue_nb.app.workflows import load_data

ROOT = Path(__file__).resolve().parent.parent
SPEC, SAMPLE = ROOT / "data" / "specs" / "dialogue.yaml", ROOT / "data" / "sample" / "dialogue"
HOT = "list_perspectives"          # reads every perspective of a dialogue: nvidia-dec (1,500 items) is its top key


@pytest.fixture(scope="module")
def dialogue():
    spec = load_spec(SPEC)
    store = open_store("duckdb")
    load_data(spec, SAMPLE, stores=[store], progress=False)
    yield spec, store
    store.close()


@pytest.fixture(scope="module")
def report(dialogue):
    return partition_heat(*dialogue, rate_model=True)


@pytest.fixture(scope="module")
def model(report) -> RateModel:
    return report.rate_model


def by_key(partitions: pd.DataFrame) -> pd.DataFrame:
    return partitions.set_index(["index", "pk"]).sort_index()


def assert_same_load(fast: pd.DataFrame, full: pd.DataFrame) -> None:
    """Every key of the full model, with the same items, bytes, units (1e-6 relative) and patterns."""
    a, b = by_key(full), by_key(fast)
    assert list(a.index) == list(b.index)
    assert (a["items"] == b["items"]).all() and (a["bytes"] == b["bytes"]).all()
    for col in ("rcu_per_s", "wcu_per_s", "consumed_throughput_units"):
        assert b[col].to_numpy() == pytest.approx(a[col].to_numpy(), rel=1e-6, abs=1e-12), col
    # the same patterns on each key (their order differs only between loads equal to the last bits)
    assert [set(s.split(", ")) - {""} for s in b["patterns"].astype(str)] == \
        [set(s.split(", ")) - {""} for s in a["patterns"]]


def contribution(model: RateModel, pattern: str, rate: float) -> pd.DataFrame:
    """Units per key of one pattern at ``rate``: the load with it minus the load without it."""
    on, off = by_key(model.evaluate({pattern: rate}).partitions), by_key(model.evaluate({pattern: 0.0}).partitions)
    return on[["rcu_per_s", "wcu_per_s"]] - off[["rcu_per_s", "wcu_per_s"]]


# -- the fast path is the model --------------------------------------------------------------
def test_the_spec_rates_and_skews_give_the_full_models_partitions(report, model):
    fast = model.evaluate()
    assert list(fast.partitions.columns) == list(report.partitions.columns)
    assert_same_load(fast.partitions, report.partitions)
    assert fast.partitions["consumed_throughput_units"].is_monotonic_decreasing     # hottest first, like the report
    assert fast.rates == {p.name: p.rate_per_second for p in model.spec.access_patterns if p.rate_per_second}
    assert fast.distributions["list_round"] == "zipf:1.2" and fast.distributions["dialogues_by_status"] == "sample"
    assert [(f.rule, f.severity, f.where) for f in fast.findings] == \
        [(f.rule, f.severity, f.where) for f in report.findings]


def test_rate_model_alone_equals_the_reports_model(dialogue, model):
    alone = rate_model(*dialogue)
    assert alone.patterns == model.patterns and alone.indexes == model.indexes
    pd.testing.assert_frame_equal(alone.evaluate({HOT: 200}).partitions, model.evaluate({HOT: 200}).partitions)


@pytest.mark.parametrize("pattern", ["list_perspectives", "post_perspective", "dialogues_by_status"])
def test_doubling_a_rate_doubles_its_contribution_exactly(model, pattern):
    rate = model.base_rates[pattern]
    once, twice = contribution(model, pattern, rate), contribution(model, pattern, 2 * rate)
    assert (once.abs().to_numpy().sum()) > 0
    assert twice.to_numpy() == pytest.approx(2 * once.to_numpy(), rel=1e-9, abs=1e-9)
    others = by_key(model.evaluate({pattern: 2 * rate}).partitions)
    base = by_key(model.evaluate().partitions)
    assert (others["rcu_per_s"] - base["rcu_per_s"]).to_numpy() == pytest.approx(once["rcu_per_s"].to_numpy(), abs=1e-9)


@pytest.mark.parametrize("pattern, skew, distribution", [
    ("list_round", 0.0, "uniform"),                 # s = 0 is uniform (not zipf:0, which splits a key by counts)
    ("post_perspective", 0.0, "uniform"),
    ("dialogues_by_status", 1.0, "zipf:1.0"),       # a sample pattern switched to zipf
    ("set_dialogue_status", 0.8, "zipf:0.8"),       # a uniform one too
    ("list_perspectives", 2.5, "zipf:2.5"),
])
def test_a_skew_equals_the_full_model_with_that_distribution(dialogue, model, pattern, skew, distribution):
    spec, store = dialogue
    full = partition_heat(with_pattern(spec, pattern, key_distribution=distribution), store, sizes=False)
    fast = model.evaluate(skews={pattern: skew})
    assert parse_distribution(fast.distributions[pattern]) == parse_distribution(distribution)
    assert_same_load(fast.partitions, full.partitions)


def test_an_evaluation_does_not_depend_on_the_ones_before_it(dialogue):
    """A slider change recounts only its own pattern; what was kept of the others gives the same answer as a
    model that never moved, whatever the order of the changes (timeline and findings included)."""
    moved, still = rate_model(*dialogue), rate_model(*dialogue)
    for rates, skews in [({HOT: 900}, {}), ({HOT: 900}, {"list_round": 2.0}), ({"get_dialogue": 5000}, {}),
                         ({HOT: 0.0}, {"list_round": 0.0})]:
        moved.evaluate(rates, skews)
    settings = ({HOT: 300, "get_dialogue": 5000}, {"list_round": 2.0})
    a, b = moved.evaluate(*settings), still.evaluate(*settings)
    assert moved._ucache and {key[0] for key in moved._ucache} == {"rcu", "wcu"}
    pd.testing.assert_frame_equal(a.partitions, b.partitions, check_exact=True)
    pd.testing.assert_frame_equal(a.timeline, b.timeline, check_exact=True)
    assert a.findings.summary() == b.findings.summary() and a.table == b.table


def test_scans_are_priced_like_the_full_model(dialogue):
    spec, store = dialogue
    spec = with_pattern(spec, "export_all", operation="scan", entities=["Dialogue"], rate_per_second=2)
    spec = with_pattern(spec, "scan_status", operation="scan", entities=["Dialogue"], index="gsi1", limit=10,
                        rate_per_second=5)
    model = partition_heat(spec, store, rate_model=True, sizes=False).rate_model
    full = partition_heat(with_pattern(spec, "export_all", rate_per_second=20), store, sizes=False)
    assert_same_load(model.evaluate({"export_all": 20}).partitions, full.partitions)


def test_key_ranges_are_the_models_ranges_and_hold_every_key_drawn(model):
    """Per index, the first key of each of ``rows`` contiguous ranges of the keys with traffic (key order, as
    the keys split evenly); every key of the timeline lies in one; a rate that leaves the keys with traffic as
    they are leaves the ranges as they are."""
    result = model.evaluate()
    parts = result.partitions
    assert set(result.key_ranges) == {"table", "gsi1"}
    for index, starts in result.key_ranges.items():
        busy = sorted(parts.loc[(parts["index"] == index) & (parts["consumed_throughput_units"] > 0), "pk"])
        n = min(len(busy), model.rows)
        assert starts == [busy[-(-r * len(busy) // n)] for r in range(n)] and len(starts) == n > 1
        drawn = result.timeline.loc[result.timeline["index"] == index, "pk"].unique()
        assert (np.searchsorted(np.array(starts, dtype=object), np.array(drawn, dtype=object), "right") > 0).all()
    assert model.evaluate({HOT: 300}).key_ranges == result.key_ranges
    quiet = model.evaluate({p: 0.0 for p in model.patterns})
    assert quiet.key_ranges == {} and quiet.timeline.empty


def test_skew_zero_spreads_the_calls_evenly_over_the_keys(model):
    on = by_key(model.evaluate(skews={"list_experts": 0.0}).partitions)["rcu_per_s"]
    off = by_key(model.evaluate({"list_experts": 0.0}).partitions)["rcu_per_s"]
    per_key = (on - off)[(on - off) > 1e-12]
    rate = model.base_rates["list_experts"]
    assert per_key.sum() == pytest.approx(rate * 0.5)                     # one 0.5 RCU page per call
    assert per_key.to_numpy() == pytest.approx(rate * 0.5 / len(per_key))    # every dialogue the same


def test_a_hotter_list_perspectives_makes_nvidia_dec_a_hot_partition(dialogue, model):
    per_call = contribution(model, HOT, 1.0).loc[("table", "nvidia-dec"), "rcu_per_s"]    # RCU/s per call/s
    rest = by_key(model.evaluate({HOT: 0.0}).partitions).loc[("table", "nvidia-dec"), "rcu_per_s"]
    rate = (3_000 * 1.2 - rest) / per_call                                                   # 120% of 3,000 RCU/s
    fast = model.evaluate({HOT: rate})
    top = fast.partitions.iloc[0]
    assert (top["index"], top["pk"]) == ("table", "nvidia-dec")
    assert top["rcu_per_s"] == pytest.approx(3_600, rel=1e-9)
    hot = fast.findings.by_rule("HOT-PARTITION")
    assert len(hot) == 1 and "'nvidia-dec'" in hot[0].message and hot[0].where == "access_patterns[2] (list_perspectives)"
    assert "3,600 RCU/s" in hot[0].message and "list_perspectives" in hot[0].message
    assert not model.evaluate().findings.by_rule("HOT-PARTITION")
    # the full model with that rate flags the same key, by the same rule, at the same severity
    spec, store = dialogue
    full = partition_heat(with_pattern(spec, HOT, rate_per_second=rate), store, sizes=False)
    assert [(f.rule, f.severity, f.where) for f in full.findings] == [(f.rule, f.severity, f.where) for f in fast.findings]
    assert full.findings.by_rule("HOT-PARTITION")[0].evidence[0].split(":")[0] == "nvidia-dec"
    # the timeline: the hot key every second, around its mean
    tl = fast.timeline[(fast.timeline["index"] == "table") & (fast.timeline["pk"] == "nvidia-dec")]
    assert len(tl) == fast.seconds and tl["rcu"].mean() == pytest.approx(3_600, rel=0.15)
    assert list(fast.timeline.columns) == ["second", "index", "pk", "rcu", "wcu"]


PRODUCTS = """
spec_version: 1
domain: shop
table: {partition_key: pk, sort_key: sk, billing_mode: PAY_PER_REQUEST}
entities:
  Product:
    source: products
    key: {pk: "PRODUCT#{product_id}", sk: "META"}
    attributes: {body: S}
    writer: shop
access_patterns:
  - name: get_product
    operation: get_item
    entities: [Product]
    key_condition: {pk: "PRODUCT#{product_id}", sk: "META"}
    consistent_read: true
    rate_per_second: 10000
    key_distribution: uniform
"""


def test_skewing_a_uniform_read_finds_the_one_hot_item(tmp_path):
    pd.DataFrame({"product_id": [f"p{i:02d}" for i in range(10)], "body": ["x" * 8000] * 10}).to_csv(
        tmp_path / "products.csv", index=False)
    spec = loads_spec(PRODUCTS)
    with open_store("duckdb") as store:
        load_data(spec, tmp_path, stores=[store], progress=False)
        model = rate_model(spec, store)
    assert not model.evaluate().findings                       # 2,000 RCU/s on each of 10 keys
    s = 3.3                                                    # the top key gets about 85% of the calls
    fast = model.evaluate(skews={"get_product": s})
    share = 1 / np.sum(np.arange(1, 11, dtype=float) ** -s)
    assert fast.partitions.iloc[0]["rcu_per_s"] == pytest.approx(share * 20_000, rel=1e-9)
    hot = fast.findings.by_rule("HOT-PARTITION")
    assert [f.severity for f in hot] == ["error"] and "'PRODUCT#p00'" in hot[0].message
    assert "one item" in hot[0].message.lower() and "no split can help" in hot[0].message
    assert fast.hot_items.iloc[0]["item"] == "META" and fast.hot_items.iloc[0]["pk"] == "PRODUCT#p00"


def test_bad_settings_are_named(model):
    with pytest.raises(QueryError, match="no modelled pattern nope"):
        model.evaluate({"nope": 1.0})
    with pytest.raises(QueryError, match="rate of list_round"):
        model.evaluate({"list_round": -1.0})
    with pytest.raises(QueryError, match="skew of list_round"):
        model.evaluate(skews={"list_round": float("nan")})


# -- the widget --------------------------------------------------------------------------------
@pytest.fixture
def explorer(report):
    return HeatExplorer(report)


def test_explorer_has_a_rate_and_a_skew_slider_per_pattern(explorer, model):
    assert list(explorer.rate_sliders) == list(explorer.skew_sliders) == model.patterns
    assert explorer.rate_sliders[HOT].value == 60 and explorer.skew_sliders[HOT].value == pytest.approx(1.2)
    assert explorer.index.options == ("table", "gsi1") and explorer.metric.options == ("rcu", "wcu", "ctu")
    assert_same_load(explorer.partitions, model.evaluate().partitions)
    assert explorer.last_ms > 0 and explorer.heatmap.rows > 0 and "<table>" in explorer.top_table.value
    assert "0 errors, 0 warnings" in explorer.findings_html.value


def test_moving_a_rate_slider_redraws_heat_and_findings(explorer):
    before_map, before_top = explorer.heatmap.grid, explorer.top_table.value
    explorer.rate_sliders[HOT].value = 300                     # what a person dragging the slider does
    assert explorer.result.rates[HOT] == 300
    assert "HOT-PARTITION" in explorer.findings_html.value and "nvidia-dec" in explorer.findings_html.value
    assert explorer.heatmap.grid != before_map and explorer.top_table.value != before_top
    first_row = explorer.top_table.value.split("<tr>")[2]     # the hottest key, its bar red and "(n×)" over 3,000
    assert "<code>nvidia-dec</code>" in first_row and "#d62728" in first_row and "×)" in first_row
    image = explorer.heatmap_figure.axes[0].images[0].get_array()
    assert image.max() > 3_000                                 # the hot key's cells are over the limit
    assert "over the 3,000/s partition limit" in explorer.heatmap_figure.axes[0].get_title()
    assert explorer.partitions.iloc[0]["pk"] == "nvidia-dec" and explorer.last_ms > 0
    assert set(explorer.timings) == {"evaluate_ms", "heatmap_ms", "top_keys_ms", "findings_ms"}
    # the browser's map gets the numbers of the static one: the same cells, and the hottest key owns its cells
    cells = np.frombuffer(explorer.heatmap.grid, np.float64).reshape(explorer.heatmap.rows, explorer.heatmap.cols)
    assert np.array_equal(cells, image)
    owners = np.frombuffer(explorer.heatmap.owners, np.int32).reshape(cells.shape)
    row, col = np.unravel_index(cells.argmax(), cells.shape)
    assert explorer.heatmap.names[owners[row, col]] == "nvidia-dec"
    assert explorer.heatmap.labels[0][1:] == ["nvidia-dec", "#d62728", f"◀ {number(cells.max(), 1, trim=True)}/s"]
    assert explorer.heatmap.scale_top == "limit 3,000" and explorer.heatmap.state.endswith("table/rcu")


def test_the_browsers_snap_of_a_rate_to_the_sliders_grid_is_not_a_move(report, model):
    """The browser snaps a rate slider's value to its grid (0.01 in the exponent) and sends it back: 300 comes
    back as 10^2.48 = 302.0 (3,756 RCU/s on nvidia-dec). The explorer keeps 300, so it shows what a
    RateResult at 300 says (3,732.6); a drag off that grid point is a move."""
    hot = HeatExplorer(report, rates={HOT: 300.0})
    at_300 = model.evaluate({HOT: 300.0})
    hot.rate_sliders[HOT].value = 10 ** 2.48                  # what the browser sends back as it draws the slider
    assert hot.rates[HOT] == hot.result.rates[HOT] == 300.0 and hot.rate_labels[HOT].value == "<b>300</b>"
    pd.testing.assert_frame_equal(hot.partitions, at_300.partitions, check_exact=True)
    assert f"{at_300.partitions.iloc[0]['rcu_per_s']:,.0f} RCU/s" in hot.status.value
    hot.rate_sliders[HOT].value = 10 ** 2.49                  # one step to the right: a move
    assert hot.result.rates[HOT] == pytest.approx(10 ** 2.49) and hot.rate_labels[HOT].value == "<b>309</b>"


def test_skew_slider_index_and_metric(explorer, model):
    explorer.skew_sliders["list_round"].value = 0.0
    assert explorer.result.distributions["list_round"] == "uniform" and "uniform" in \
        explorer.distribution_labels["list_round"].value
    assert_same_load(explorer.partitions, model.evaluate(skews={"list_round": 0.0}).partitions)
    table_map = explorer.heatmap.grid
    explorer.index.value = "gsi1"
    assert explorer.heatmap.grid != table_map and "gsi1" in explorer.heatmap_figure.get_suptitle()
    assert "gsi1" in explorer.heatmap.title and explorer.heatmap.state.endswith("gsi1/rcu")
    explorer.metric.value = "ctu"
    assert "consumed throughput" in explorer.heatmap_figure.axes[1].get_ylabel()


def test_set_rate_from_code_widens_the_slider_and_reset_goes_back(explorer, model):
    result = explorer.set_rate("get_dialogue", 1e6)
    assert explorer.rate_sliders["get_dialogue"].value == 1e6 and result.rates["get_dialogue"] == 1e6
    assert explorer.findings.by_rule("HOT-PARTITION")
    explorer.set_skew("dialogues_by_status", 2.0)
    assert explorer.result.distributions["dialogues_by_status"] == "zipf:2"
    explorer.reset()
    assert_same_load(explorer.partitions, model.evaluate().partitions)
    assert explorer.result.distributions == model.evaluate().distributions
    with pytest.raises(BlueNbError, match="no slider for nope"):
        explorer.set_rate("nope", 1)


def test_explorer_needs_the_model(dialogue):
    with pytest.raises(BlueNbError, match="rate_model=True"):
        HeatExplorer(partition_heat(*dialogue, sizes=False))


def test_the_slider_benchmark_runs_at_a_small_scale():
    """``make bench``'s slider part on 2,000 dialogues: the same data every time, every change redrawn
    (the numbers it prints are timings; here only what does not depend on the machine is checked)."""
    out = bench_heat_sliders(2_000)
    assert (out["partitions"], out["items"], out["changes"]) == (2_003, 11_870, 20)
    assert out["redraw_median_ms"] > 0 and out["naive_new_figures_ms"] > 0 and out["naive_heat_one_change_s"] > 0
    # a key past twice its limit: an error; 10,000 post_perspective transactions a second on a few META items:
    # TRANSACTION-HOT-ITEM
    assert out["last_findings"] == "1 error, 2 warnings, 0 notes"
