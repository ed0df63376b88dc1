"""``make bench``: speed numbers, each against a naive baseline measured in the same run.

- sizing: :func:`blue_nb.sizing.item_sizes` over dialogue items vs a naive per-item recursive
  walk written the obvious way (Decimal arithmetic for numbers, isinstance chains);
- loading: rows -> items -> SQLite + DuckDB in one pass vs a naive loader that inserts item by
  item into SQLite with one statement each;
- patterns: the hot read patterns on the loaded stores (latency per call);
- explorer: the widget's answer time per parameter change, against a naive full-table scan;
- sizing_columnar: :func:`blue_nb.sizing.columnar.item_size_column` over 1M items in Arrow columns
  against the naive walk (the 20x requirement).

Run ``python -m blue_nb.bench [--items N]``. Nothing here is a test; numbers are printed.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sqlite3
import statistics
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd

from blue_nb.app.session import DesignSession
from blue_nb.app.workflows import load_data, parameter_values, spec_items
from blue_nb.heat import partition_heat, top_keys
from blue_nb.items.values import item_to_wire
from blue_nb.patterns import bind, plan, sk_matches
from blue_nb.plots import key_heatmap, top_keys_chart
from blue_nb.sizing import item_sizes
from blue_nb.sizing.columnar import item_size_column, items_to_table
from blue_nb.sources import generate_sample
from blue_nb.spec import load_spec, with_pattern
from blue_nb.stores import open_store
from blue_nb.widgets import HeatExplorer, PatternExplorer

ROOT = Path(__file__).resolve().parents[2]


def _same(fast, naive, what: str) -> None:
    """A benchmark compares like with like: the fast path and its baseline must agree."""
    if fast != naive:
        raise RuntimeError(what)


def naive_size(value) -> int:
    """The obvious recursive walk: the baseline."""
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, Decimal):
        sign, digits, exp = value.normalize().as_tuple()
        if not any(digits):
            return 1
        high, low = len(digits) - 1 + exp, exp            # powers of ten of the first and last digit
        return min(1 + (high // 2 - low // 2 + 1) + sign, 21)
    if isinstance(value, list):
        return 3 + sum(1 + naive_size(v) for v in value)
    if isinstance(value, dict):
        return 3 + sum(len(k.encode("utf-8")) + 1 + naive_size(v) for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return sum(naive_size(v) for v in value)
    raise TypeError(type(value))


def naive_item_size(item) -> int:
    return sum(len(k.encode("utf-8")) + naive_size(v) for k, v in item.items())


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_sizing(items: list[dict]) -> dict:
    fast = item_sizes(items)
    naive = [naive_item_size(i) for i in items]
    _same(fast, naive, "batch sizing and the naive walk disagree")
    t_fast = best(lambda: item_sizes(items))
    t_naive = best(lambda: [naive_item_size(i) for i in items])
    return {"items": len(items), "naive_s": round(t_naive, 3), "batch_s": round(t_fast, 3),
            "batch_items_per_s": round(len(items) / t_fast), "speedup": round(t_naive / t_fast, 1)}


def _dialogue_like_items(n: int) -> list[dict]:
    """n dialogue-like items: pk, sk, three texts of 20-300 bytes (some non-ASCII), one number."""

    rng = random.Random(1)
    words = ("hello there how are you today I am fine thanks the weather is nice lets meet "
             "at noon for lunch sure see you soon ok").split()
    ascii_text = " ".join(rng.choice(words) for _ in range(4_000))
    uni_text = " ".join(rng.choice(words + ["café", "naïve", "日本語", "Grüße", "—", "😀", "ünïcødé"])
                        for _ in range(4_000))
    items = []
    for k in range(n):
        texts = []
        for _ in range(3):
            base = uni_text if rng.random() < 0.1 else ascii_text
            start = rng.randrange(len(base) - 300)
            texts.append(base[start : start + rng.randrange(20, 300)])
        ts = 1_706_900_000 + rng.randrange(10_000_000)
        item = {"pk": f"CONV#{k // 50:08d}", "sk": f"MSG#{ts}#{k % 50:03d}",
                "text": texts[0], "reply": texts[1], "summary": texts[2],
                "at": Decimal(ts) if k % 2 else Decimal(rng.randrange(1_000_000)).scaleb(-3)}
        if k % 7 == 0:
            del item["summary"]                    # absent attributes are null cells
        items.append(item)
    return items


def bench_columnar(n: int) -> dict:
    """Vectorized sizing of an Arrow table (:func:`blue_nb.sizing.columnar.item_size_column`) vs the naive walk."""

    items = _dialogue_like_items(n)
    types = {"pk": "S", "sk": "S", "text": "S", "reply": "S", "summary": "S", "at": "N"}
    table = items_to_table(items, types)             # not timed: the data arrives as columns
    naive = [naive_item_size(i) for i in items]
    _same(item_size_column(table, types).tolist(), naive, "columnar sizing and the naive walk disagree")
    t_col = best(lambda: item_size_column(table, types))
    t_naive = best(lambda: [naive_item_size(i) for i in items])
    return {"items": n, "naive_s": round(t_naive, 3), "columnar_s": round(t_col, 4),
            "columnar_items_per_s": round(n / t_col), "speedup": round(t_naive / t_col, 1)}


def bench_load(spec, data: Path, naive_items: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        res = load_data(spec, data, sqlite=f"{tmp}/b.sqlite", duckdb=f"{tmp}/b.duckdb", progress=False)[0]
        t_load = time.perf_counter() - t
        con = sqlite3.connect(f"{tmp}/naive.sqlite")
        con.execute("CREATE TABLE t (pk TEXT, sk TEXT, data JSON, created_at TEXT, PRIMARY KEY (pk, sk))")
        t = time.perf_counter()
        for n, (_, item) in enumerate(spec_items(spec, data)):
            if n >= naive_items:
                break
            con.execute("INSERT OR REPLACE INTO t VALUES (?, ?, ?, ?)",
                        (item["pk"], item["sk"], json.dumps(item_to_wire(item)), "now"))
            con.commit()
        t_naive = time.perf_counter() - t
    per_item, naive_per_item = t_load / res.items_written, t_naive / naive_items
    return {"items": res.items_written, "load_both_stores_s": round(t_load, 2),
            "items_per_s": round(1 / per_item), "naive_sqlite_items_per_s": round(1 / naive_per_item),
            "speedup": round(naive_per_item / per_item, 1)}


def bench_patterns(spec, data: Path) -> dict:
    out = {}
    stores = [open_store("sqlite"), open_store("duckdb")]
    load_data(spec, data, stores=stores, progress=False)
    for p in [p for p in spec.access_patterns if p.is_read and p.hot]:
        values = parameter_values(stores[0], spec, p.name, limit=20)
        params = {k: v[0] for k, v in values.items() if v}
        for s in stores:
            times = []
            for _ in range(5):
                t = time.perf_counter()
                s.run_plan(plan(spec, p.name, params), max_pages=1)
                times.append((time.perf_counter() - t) * 1000)
            out[f"{p.name}@{s.kind}_ms"] = round(statistics.median(times), 1)
    return out


def bench_explorer(spec, data: Path) -> dict:
    """The explorer's answer time per parameter change (what a person waits for), against a naive
    answer that scans every item of the table in Python and filters by the key condition."""

    session = DesignSession(spec, data)
    explorer = PatternExplorer(session)
    out: dict = {"items": session.stores["sqlite"].count(spec.table_name)}
    for name in ("get_dialogue", "list_round", "tension_history", "dialogues_by_status"):
        explorer.pattern.value = name
        values = session.parameter_values(name, limit=5)
        times = []
        for i in range(5):
            t = time.perf_counter()
            explorer.set_params(**{k: v[i % len(v)] for k, v in values.items() if v})
            times.append((time.perf_counter() - t) * 1000)
        out[f"{name}_ms"] = round(statistics.median(times), 1)
    req = bind(spec, "list_round", {k: v[0] for k, v in session.parameter_values("list_round").items()})
    t = time.perf_counter()
    naive = [i for i in session.stores["sqlite"].iter_items(spec.table_name)
             if i["pk"] == req.pk_value and sk_matches(req, i["sk"])]
    out["naive_full_scan_list_round_ms"] = round((time.perf_counter() - t) * 1000, 1)
    out["speedup_list_round"] = round(out["naive_full_scan_list_round_ms"] / out["list_round_ms"], 1)
    out["naive_items_found"] = len(naive)
    session.close()
    return out


def bench_heat_sliders(dialogues: int = 100_000) -> dict:
    """The heat explorer's redraw per slider change at ~``dialogues`` partition keys (20 changes of rates
    and skews through HeatExplorer: the rate model's evaluation, the heat map PNG, the top-keys table, the
    findings), against the naive way: ``partition_heat(spec, store)`` recomputed from scratch for one change. The data: the
    dialogue spec with one Dialogue and Expert and 1-2 Perspectives per dialogue, a Tension and its event
    for half of them, and five big dialogues (1,500 down to 150 perspectives); the spec's own patterns."""


    spec, rng = load_spec(ROOT / "data/specs/dialogue.yaml"), np.random.default_rng(1)
    ids = np.array([f"d{i:06d}" for i in range(dialogues)], dtype=object)
    ids[0] = "nvidia-dec"
    n = 1 + rng.poisson(0.6, dialogues)
    n[:5] = [1500, 600, 300, 200, 150]
    d, t = np.repeat(np.arange(dialogues), n), np.flatnonzero(rng.random(dialogues) < 0.5)
    seq = np.arange(len(d)) - np.repeat(np.cumsum(n) - n, n)
    created = pd.Timestamp("2026-01-01") + pd.to_timedelta(rng.integers(0, 180 * 86400, dialogues), unit="s")
    store = open_store("duckdb")
    with tempfile.TemporaryDirectory() as tmp:
        files = {"dialogues": {"dialogue_id": ids, "title": "t", "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                               "status": rng.choice(["open", "closed", "archived"], dialogues, p=[0.2, 0.3, 0.5])},
                 "experts": {"dialogue_id": ids, "expert": "ada", "role": "lead", "tier": "a", "score": 1.5},
                 "perspectives": {"dialogue_id": ids[d], "round": seq % 4, "expert": "ada", "seq": seq, "label": "x",
                                  "content": "some words " * 20, "status": "draft"},
                 "tensions": {"dialogue_id": ids[t], "tension_id": "T01", "description": "d", "status": "open"},
                 "tension_events": {"dialogue_id": ids[t], "tension_id": "T01", "ts": 1_779_033_953 + t,
                                    "event_type": "raised", "actor": "ada", "reason": "r"}}
        for name, columns in files.items():
            pd.DataFrame(columns).to_csv(Path(tmp) / f"{name}.csv", index=False)
        t0 = time.perf_counter()
        items = load_data(spec, tmp, stores=[store], progress=False)[0].items_written
        t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = partition_heat(spec, store, rate_model=True)
    t_model = time.perf_counter() - t0
    explorer = HeatExplorer(report)
    rates, skews = explorer.rate_sliders, explorer.skew_sliders
    plan = ([(rates["list_perspectives"], 60 * f) for f in (2, 3, 5, 8, 12)]
            + [(skews["list_round"], s) for s in (0.0, 0.6, 1.8, 2.5, 1.2)]
            + [(rates["get_dialogue"], 120 * f) for f in (10, 100, 1000, 1)]
            + [(rates["add_perspective"], 25 * f) for f in (10, 100, 400)]
            + [(skews["dialogues_by_status"], s) for s in (1.0, 2.0, 0.0)])
    redraw, parts = [], {"evaluate_ms": [], "heatmap_ms": [], "top_keys_ms": []}
    for slider, value in plan:                   # what dragging a slider does: its observer redraws
        t0 = time.perf_counter()
        slider.value = value
        redraw.append((time.perf_counter() - t0) * 1000)
        for k in parts:
            parts[k].append(explorer.timings[k])
    t0 = time.perf_counter()                     # naive pictures: both figures drawn anew, as before LiveHeatmap
    for fig in (key_heatmap(explorer.timeline), top_keys_chart(top_keys(explorer.partitions, explorer.top))):
        fig.savefig(io.BytesIO(), format="png", dpi=explorer.dpi)
    t_figures = time.perf_counter() - t0
    t0 = time.perf_counter()
    partition_heat(with_pattern(spec, "list_perspectives", rate_per_second=300), store)
    t_naive = time.perf_counter() - t0
    store.close()
    out = {**report.rate_model.counts, "items": items, "load_s": round(t_load, 1),
           "heat_with_rate_model_s": round(t_model, 1),
           "changes": len(redraw), "redraw_median_ms": round(statistics.median(redraw), 1),
           "redraw_max_ms": round(max(redraw), 1)}
    for k, v in parts.items():
        out[k.replace("_ms", "_median_ms")] = round(statistics.median(v), 1)
        out[k.replace("_ms", "_max_ms")] = round(max(v), 1)
    out["naive_heat_one_change_s"] = round(t_naive, 1)
    out["naive_new_figures_ms"] = round(t_figures * 1000, 1)
    out["speedup_pictures"] = round(t_figures * 1000 / (out["heatmap_median_ms"] + out["top_keys_median_ms"]), 1)
    out["speedup_redraw"] = round(t_naive * 1000 / out["redraw_median_ms"], 1)
    out["speedup_evaluate"] = round(t_naive * 1000 / out["evaluate_median_ms"], 1)
    out["last_findings"] = explorer.findings.summary()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=100_000, help="dialogue items to generate")
    args = ap.parse_args(argv)
    spec = load_spec(ROOT / "data/specs/dialogue.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "dialogue"
        generate_sample("dialogue", scale=args.items, seed=1, out_dir=data)
        items = [i for _, i in spec_items(spec, data)]
        report = {"sizing": bench_sizing(items)}
        report["sizing_columnar"] = bench_columnar(max(args.items, 1_000_000))
        del items
        report["load"] = bench_load(spec, data, naive_items=min(2_000, args.items))
        report["patterns"] = bench_patterns(spec, data)
        report["explorer"] = bench_explorer(spec, data)
    report["heat_sliders"] = bench_heat_sliders()
    for section, numbers in report.items():
        print(f"[{section}]")
        for k, v in numbers.items():
            print(f"  {k:<40} {v}")


if __name__ == "__main__":
    main()
