"""``make bench`` at a tiny scale (scale 500: 646 items, ~1,000 modelled requests): the loop runs stage by stage,
the results file has its shape, and each naive baseline computes the product's answers (sizes equal,
rows equal, heat equal). Nothing here asserts a time: speed is what ``make bench`` prints."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from bench.baselines import expand_requests, naive_item_size, naive_sizes, naive_timeline
from bench import latency
from bench.latency import pattern_latencies
from bench.loop import LOOP, run_scale
from bench.measure import run_measured
from bench.report import format_latency, format_stages, save_results, targets
from bench.naive_load import same_sqlite_rows
from bench.sliders import SPEC
from bench.stages import catalog_sizes, heat_seconds, modelled_calls, paths, same_timeline, source_sizes
from blue_nb.sizing import item_sizes
from blue_nb.spec import load_spec
from blue_nb.stores import open_store

SCALE, REQUESTS = 500, 1000
ITEMS = 646              # the dialogue sample at scale 500, seed 1: whole dialogues, about the scale


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """One in-process run of the whole loop at 500 items (its files kept in a tmp folder)."""
    work = tmp_path_factory.mktemp("bench") / str(SCALE)
    out = run_scale(SCALE, work, requests=REQUESTS, isolate=False, echo=lambda *a, **k: None)
    ctx = {"spec": str(SPEC),
           "work": str(work), "data": str(work / "data"), "scale": SCALE, "requests": REQUESTS, "seed": 1}
    return out, ctx


def test_the_loop_runs_every_stage_with_its_baseline(bench):
    out, _ = bench
    assert [s["name"] for s in out["stages"]] == list(LOOP)
    with_baseline = {s["name"] for s in out["stages"] if s["baseline_seconds"] is not None}
    assert with_baseline == {"load_sqlite", "sizes", "heat"}
    for s in out["stages"]:
        assert s["seconds"] > 0
        assert (s["ratio"] is None) == (s["baseline_seconds"] is None)
        if s["name"] in with_baseline:
            assert s["same"] is True, s
    by = {s["name"]: s for s in out["stages"]}
    items = by["load_sqlite"]["details"]["items"]
    assert by["load_duckdb"]["details"]["items"] == by["sizes"]["details"]["items"] == items
    assert by["load_sqlite"]["baseline_details"]["items"] == items
    assert by["sizes"]["details"]["same_as_catalog"] is True
    heat = by["heat"]                        # like for like: the naive step against the product's step
    step = heat["baseline_details"]["product_timeline_seconds"]
    assert step < heat["seconds"] and heat["ratio"] == pytest.approx(heat["baseline_seconds"] / step, rel=0.1, abs=0.1)
    assert by["validate"]["details"]["items"] == items
    assert by["generate"]["details"]["rows"] == items            # one item per dialogue sample row
    assert out["total_seconds"] == pytest.approx(sum(s["seconds"] for s in out["stages"]), abs=0.01)
    assert "sizes" in format_stages(SCALE, out)


def test_sizes_equal_the_products(bench):
    _, ctx = bench
    spec = load_spec(ctx["spec"])
    with open_store("duckdb", paths(ctx)["duckdb"]) as store:
        items = list(store.iter_items(spec.table_name))
    naive = naive_sizes(items)
    assert len(naive) == len(items) == ITEMS
    assert naive == item_sizes(items) == catalog_sizes(ctx).tolist() == np.load(paths(ctx)["sizes"]).tolist()
    timed = source_sizes(ctx)[0]                # the loader's sizing, in file order: the same sizes
    assert len(timed) == ITEMS and sorted(timed.tolist()) == sorted(naive)


def test_the_naive_size_walks_boto3_wire_form_exactly():
    """AWS's own examples (23 and 137 bytes), and values of every type."""
    assert naive_item_size({"shirt-color": "R", "shirt-size": "M"}) == 23
    book = {"Id": Decimal(101), "Title": "Book 101 Title", "ISBN": "111-1111111111", "Authors": ["Author1"],
            "Price": Decimal(2), "Dimensions": "8.5 x 11.0 x 0.5", "PageCount": Decimal(500),
            "InPublication": True, "ProductCategory": "Book"}
    assert naive_item_size(book) == 137
    odd = {"b": b"\x00\x01\x02", "n": None, "m": {"k": Decimal("-1.5")}, "ss": {"a", "bc"}, "ns": {Decimal(1)},
           "bs": {b"xy"}, "e": "", "u": "日本"}
    assert naive_sizes([odd]) == item_sizes([odd])


def test_rows_equal_the_products_and_a_changed_row_is_seen(bench, tmp_path):
    _, ctx = bench
    spec = load_spec(ctx["spec"])
    p = paths(ctx)
    assert same_sqlite_rows(spec, p["sqlite"], p["naive"])
    changed = tmp_path / "changed.sqlite"
    changed.write_bytes(p["naive"].read_bytes())
    con = sqlite3.connect(changed)
    con.execute(f'UPDATE "{spec.table_name}" SET data = \'{{}}\' WHERE rowid = 1')
    con.commit()
    con.close()
    assert not same_sqlite_rows(spec, p["sqlite"], changed)


def test_heat_equals_the_models_per_key_units(bench):
    _, ctx = bench
    calls, effects, _ = modelled_calls(ctx)
    requests = expand_requests(calls)
    assert len(requests) == int(calls["k"].sum()) > REQUESTS * 0.8          # one row per modelled request
    assert heat_seconds(load_spec(ctx["spec"]), REQUESTS) == 2              # 511 calls/s in the spec: 2 s make 1,000
    naive = naive_timeline(requests, effects)
    product = pd.read_parquet(paths(ctx)["timeline"])
    assert len(naive) == len(product) > 0
    assert same_timeline(naive, product)
    off = naive.copy()
    off.loc[0, "rcu"] += 0.5
    assert not same_timeline(off, product)


def test_the_results_file_and_its_targets(bench, tmp_path):
    out, _ = bench
    path = tmp_path / "bench" / "results.json"
    doc = save_results(path, {SCALE: out})
    assert json.loads(path.read_text()) == doc
    stage = doc[str(SCALE)]["stages"][0]
    assert {"name", "seconds", "peak_mb", "baseline_seconds", "ratio"} <= set(stage)
    assert stage["baseline_seconds"] is None and stage["ratio"] is None
    names = [t["target"] for t in doc["targets"]]
    assert names[0] == "the whole loop within 120 s" and any("item sizes" in n for n in names)
    assert all(t["scale"] == SCALE and t["holds"] in (True, False) for t in doc["targets"][:1])
    assert targets({}) == []


def test_latency_times_every_read_pattern_on_both_stores_after_collecting_the_setups_garbage(bench, monkeypatch):
    _, ctx = bench
    spec = load_spec(SPEC)
    stores = [open_store("sqlite", paths(ctx)["sqlite"]), open_store("duckdb", paths(ctx)["duckdb"])]
    events: list[str] = []
    monkeypatch.setattr(latency.gc, "collect", lambda *a: events.append("collect"))
    for store in stores:
        run = store.run_plan
        store.run_plan = lambda *a, _run=run, **k: (events.append("call"), _run(*a, **k))[1]
    try:
        out = pattern_latencies(spec, stores, stores[1], calls=12)
    finally:
        for store in stores:
            store.close()
    assert list(out) == [p.name for p in spec.access_patterns if p.is_read]
    for name, per in out.items():
        assert list(per) == ["sqlite", "duckdb"]
        for n in per.values():
            assert n["calls"] == 12 and 0 < n["p50_ms"] <= n["p99_ms"]
            assert (n["full_page_p50_ms"] is None) == (n["full_page_max_ms"] is None) == (n["full_pages"] == 0)
        assert per["sqlite"]["max_items"] == per["duckdb"]["max_items"] > 0, name      # the same answers
    # per pattern and store: a warm-up call, the collection, then the timed calls (no collection among them)
    assert events == ["call", "collect", *["call"] * 12] * (2 * len(out))
    text = format_latency({"latency": out})
    assert "page p50" in text and all(name in text for name in out)


def test_a_stage_in_a_child_process_reports_its_peak_memory(tmp_path):
    ctx = {"spec": "unused", "data": str(tmp_path / "data"), "work": str(tmp_path), "scale": 200, "seed": 1,
           "requests": REQUESTS}
    got = run_measured("generate", ctx, isolate=True)
    assert got["rows"] > 0 and got["peak_mb"] > 10 and got["wall_seconds"] >= got["seconds"] > 0
    assert (tmp_path / "data" / "dialogues.csv").is_file()


def test_the_startup_stage_times_each_commands_first_line_against_a_naive_import(tmp_path):
    """The start-up stage (one run each, so that the test is quick): each command's first line is its own (not a
    traceback), the naive baseline ran, and the targets and the table come out. No time is asserted."""
    from bench.startup import format_startup, startup_times
    from bench.report import startup_targets

    found = startup_times(1, tmp_path, only=["--help", "validate --data", "size"])
    cmds = found["commands"]
    assert list(cmds) == ["--help", "validate --data", "size"]
    assert cmds["--help"]["first_line"].startswith("Usage: blue-nb") and cmds["--help"]["exit_code"] == 0
    assert cmds["validate --data"]["first_line"].endswith("reading the rows in "
                                                          f"{Path(SPEC).parent.parent / 'sample' / 'dialogue'} ...")
    assert cmds["size"]["first_line"].split()[:2] == ["line", "bytes"] and cmds["size"]["exit_code"] == 0
    assert all(0 < c["first_line_s"] <= c["exit_s"] for c in cmds.values())
    assert set(found["baselines"]) == {"import pandas, duckdb, matplotlib", "python alone"}
    assert found["baselines"]["python alone"]["code"] == "pass"
    made = startup_targets(found)
    assert [t["target"] for t in made] == ["blue-nb --help under 0.3 s", "first line of every command under 1 s"]
    assert all(t["holds"] in (True, False) for t in made)
    doc = save_results(tmp_path / "results.json", {}, found)
    assert doc["startup"]["commands"] == cmds and doc["targets"] == made
    assert save_results(tmp_path / "results.json", {})["startup"]["commands"] == cmds          # kept when not measured
    assert "validate --data" in format_startup(found) and "python -c 'import pandas, duckdb, matplotlib'" in \
        format_startup(found)
