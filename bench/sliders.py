"""The interactive answers at ~100k partition keys: the heat sliders' redraw and the pattern explorer's
answer, on a wide sample (many small dialogues: the dialogue sample generator makes ~90 items per
dialogue, so 100k partitions would take ~9M rows; this one takes ~170k items).

:func:`bench_heat_sliders` drags the :class:`~blue_nb.widgets.HeatExplorer` sliders (each change:
:meth:`RateModel.evaluate <blue_nb.heat.RateModel.evaluate>`, the heat map's cells for the browser, the top keys, the
findings) against the naive way (``partition_heat`` anew for one change); :func:`bench_explorer`
changes the :class:`~blue_nb.widgets.PatternExplorer`'s parameters (plan + run_plan + the answer shown)."""

from __future__ import annotations

import gc
import io
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from blue_nb.app.session import DesignSession
from blue_nb.app.workflows import load_data
from blue_nb.heat import partition_heat, top_keys
from blue_nb.plots import key_heatmap, top_keys_chart
from blue_nb.plots.base import DPI
from blue_nb.spec import load_spec, with_pattern
from blue_nb.stores import open_store
from blue_nb.widgets import HeatExplorer, PatternExplorer

__all__ = ["ROOT", "bench_explorer", "bench_heat_sliders", "write_wide_sample"]

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "data/specs/dialogue.yaml"


def write_wide_sample(folder: str | Path, dialogues: int = 100_000) -> None:
    """The dialogue sources for ``dialogues`` partition keys: one Dialogue and Expert and 1-2 Perspectives
    per dialogue, a Tension and its event for half of them, and five big dialogues (1,500 down to 150
    perspectives); the same rows every time (seeded)."""
    rng = np.random.default_rng(1)
    ids = np.array([f"d{i:06d}" for i in range(dialogues)], dtype=object)
    ids[0] = "nvidia-dec"
    n = 1 + rng.poisson(0.6, dialogues)
    n[:5] = [1500, 600, 300, 200, 150][: min(5, dialogues)]
    d, t = np.repeat(np.arange(dialogues), n), np.flatnonzero(rng.random(dialogues) < 0.5)
    seq = np.arange(len(d)) - np.repeat(np.cumsum(n) - n, n)
    created = pd.Timestamp("2026-01-01") + pd.to_timedelta(rng.integers(0, 180 * 86400, dialogues), unit="s")
    files = {"dialogues": {"dialogue_id": ids, "title": "t", "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "status": rng.choice(["open", "closed", "archived"], dialogues, p=[0.2, 0.3, 0.5])},
             "experts": {"dialogue_id": ids, "expert": "ada", "role": "lead", "tier": "a", "score": 1.5},
             "perspectives": {"dialogue_id": ids[d], "round": seq % 4, "expert": "ada", "seq": seq, "label": "x",
                              "content": "some words " * 20, "status": "draft"},
             "tensions": {"dialogue_id": ids[t], "tension_id": "T01", "description": "d", "status": "open"},
             "tension_events": {"dialogue_id": ids[t], "tension_id": "T01", "ts": 1_779_033_953 + t,
                                "event_type": "raised", "actor": "ada", "reason": "r"}}
    for name, columns in files.items():
        pd.DataFrame(columns).to_csv(Path(folder) / f"{name}.csv", index=False)


def _slider_plan(explorer: HeatExplorer) -> list:
    rates, skews = explorer.rate_sliders, explorer.skew_sliders
    return ([(rates["list_perspectives"], 60 * f) for f in (2, 3, 5, 8, 12)]
            + [(skews["list_round"], s) for s in (0.0, 0.6, 1.8, 2.5, 1.2)]
            + [(rates["get_dialogue"], 120 * f) for f in (10, 100, 1000, 1)]
            + [(rates["post_perspective"], 25 * f) for f in (10, 100, 400)]
            + [(skews["dialogues_by_status"], s) for s in (1.0, 2.0, 0.0)])


def bench_heat_sliders(dialogues: int = 100_000) -> dict:
    """The heat explorer's redraw per slider change at ~``dialogues`` partition keys (20 changes of rates
    and skews), against the naive way: ``partition_heat(spec, store)`` recomputed from scratch for one
    change, and both figures drawn anew."""
    spec = load_spec(SPEC)
    store = open_store("duckdb")
    with tempfile.TemporaryDirectory() as tmp:
        write_wide_sample(tmp, dialogues)
        t0 = time.perf_counter()
        items = load_data(spec, tmp, stores=[store], progress=False)[0].items_written
        t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = partition_heat(spec, store, rate_model=True)
    t_model = time.perf_counter() - t0
    explorer = HeatExplorer(report)
    redraw, parts = [], {"evaluate_ms": [], "heatmap_ms": [], "top_keys_ms": []}
    gc.collect()                                    # the load's and the model's garbage, before the timing
    for slider, value in _slider_plan(explorer):    # what dragging a slider does: its observer redraws
        t0 = time.perf_counter()
        slider.value = value
        redraw.append((time.perf_counter() - t0) * 1000)
        for k in parts:
            parts[k].append(explorer.timings[k])
    t0 = time.perf_counter()                     # naive pictures: both figures drawn anew by matplotlib
    for fig in (key_heatmap(explorer.timeline), top_keys_chart(top_keys(explorer.partitions, explorer.top))):
        fig.savefig(io.BytesIO(), format="png", dpi=DPI)
    t_figures = time.perf_counter() - t0
    t0 = time.perf_counter()
    partition_heat(with_pattern(spec, "list_perspectives", rate_per_second=300), store)
    t_naive = time.perf_counter() - t0
    store.close()
    out = {**report.rate_model.counts, "items": items, "load_s": round(t_load, 1),
           "heat_with_rate_model_s": round(t_model, 1),
           "changes": len(redraw), "redraw_median_ms": round(statistics.median(redraw), 1),
           "redraw_p99_ms": round(float(np.percentile(redraw, 99)), 1), "redraw_max_ms": round(max(redraw), 1)}
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


def bench_explorer(dialogues: int = 100_000, changes: int = 5) -> dict:
    """The pattern explorer's answer per parameter change at ~``dialogues`` partition keys, per read
    pattern and backend: ``answer_ms`` is what the explorer measures itself (plan + run_plan),
    ``shown_ms`` the whole change including the answer's HTML; each the worst of ``changes`` changes."""
    with tempfile.TemporaryDirectory() as tmp:
        write_wide_sample(tmp, dialogues)
        t0 = time.perf_counter()
        session = DesignSession(SPEC, tmp, progress=False)
        t_load = time.perf_counter() - t0
    explorer = PatternExplorer(session)
    out: dict = {"items": session.stores["sqlite"].count(session.spec.table_name), "load_s": round(t_load, 1),
                 "patterns": {}}
    try:
        gc.collect()                                # the load's garbage, before the timing
        for p in [p for p in session.spec.access_patterns if p.is_read]:
            explorer.pattern.value = p.name
            values = session.parameter_values(p.name, limit=changes)
            for backend in session.stores:
                explorer.backend.value = backend
                answer, shown = [], []
                for i in range(changes):
                    t0 = time.perf_counter()
                    explorer.set_params(**{k: v[i % len(v)] for k, v in values.items() if v})
                    shown.append((time.perf_counter() - t0) * 1000)
                    answer.append(explorer.elapsed_ms)
                out["patterns"][f"{p.name}@{backend}"] = {"answer_ms": round(max(answer), 1),
                                                          "shown_ms": round(max(shown), 1),
                                                          "items": explorer.result.count if explorer.result else 0}
    finally:
        session.close()
    out["answer_max_ms"] = max(v["answer_ms"] for v in out["patterns"].values())
    out["shown_max_ms"] = max(v["shown_ms"] for v in out["patterns"].values())
    return out
