"""Reports written to a folder: ``blue-nb heat``'s summary, CSVs and figures.

It combines :mod:`blue_nb.app.workflows` (loading), :mod:`blue_nb.heat` (the model) and
:mod:`blue_nb.plots` (the figures).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from blue_nb import plots
from blue_nb.app.files import files_aside
from blue_nb.app.workflows import as_spec, data_store, load_checked, with_heat_findings
from blue_nb.heat import DEFAULT_SECONDS, DEFAULT_SEED, HeatReport, partition_heat
from blue_nb.plots.base import DPI
from blue_nb.spec import Spec

__all__ = ["heat_report", "write_heat_report", "heat_figures"]


def heat_figures(report: HeatReport) -> dict[str, Callable[[], Any]]:
    """Figure name -> a function drawing it, from :mod:`blue_nb.plots`."""
    figs: dict[str, Callable[[], Any]] = {}
    indexes = list(dict.fromkeys(report.partitions["index"]))
    for index in indexes:
        for metric in ("rcu", "wcu"):
            if len(report.timeline[(report.timeline["index"] == index) & (report.timeline[metric] > 0)]):
                figs[f"heat_{index}_{metric}"] = (lambda i=index, m=metric:
                                                  plots.key_heatmap(report.timeline, index=i, metric=m))
    figs["top_keys"] = lambda: plots.top_keys_chart(report.top_keys(20))
    figs["partition_sizes"] = lambda: plots.partition_sizes(report.partitions)
    figs["item_sizes"] = lambda: plots.item_size_distribution(report.sizes)
    figs["capacity_waste"] = lambda: plots.capacity_waste(report.waste)
    figs["attribute_sizes"] = lambda: plots.attribute_sizes(report.attrs)
    if len(report.entries):
        figs["index_entry_sizes"] = lambda: plots.index_entry_sizes(_with_table(report.sizes, report.entries))
    return figs


def _with_table(sizes: pd.DataFrame, entries: pd.DataFrame) -> pd.DataFrame:
    """The index entries and, as index "table", the table's items: the index a categorical, so millions of items
    take a byte each there, not a string (at 5M items a column of "table" and its copies took 300 MB)."""
    codes, names = pd.factorize(entries["index"].astype(str))
    index = pd.Categorical.from_codes(np.concatenate([np.zeros(len(sizes), np.int64), codes + 1]), ["table", *names])
    size = np.concatenate([sizes["size"].to_numpy(), entries["size"].to_numpy()])
    return pd.DataFrame({"index": index, "size": size})


def write_heat_report(report: HeatReport, out_dir: str | Path, *, figures: bool = True,
                      finish: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Write ``summary.json``, ``partitions.csv``, ``hot_items.csv``, ``patterns.csv`` and the PNGs
    to ``out_dir`` (all written aside and moved in at the end: a failure leaves the folder as it was);
    ``finish`` may add to the summary before it is written. Returns the summary with the list of
    ``files`` written."""
    files = []
    with files_aside(out_dir) as out:
        for name, df in (("partitions", report.partitions), ("hot_items", report.hot_items),
                         ("patterns", report.patterns)):
            df.to_csv(out / f"{name}.csv", index=False)
            files.append(f"{name}.csv")
        if figures:
            for name, draw in heat_figures(report).items():
                (out / f"{name}.png").write_bytes(draw().png(DPI))
                files.append(f"{name}.png")
        summary = report.summary()
        summary["files"] = ["summary.json", *files]
        if finish is not None:
            finish(summary)
        (out / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return summary


def heat_report(spec: Spec | str | Path, data_dir: str | Path | None, out_dir: str | Path, *,
                log: str | Path | None = None, seconds: int = DEFAULT_SECONDS, seed: int = DEFAULT_SEED,
                progress: bool = True, figures: bool = True, duckdb: str | Path | None = None) -> dict[str, Any]:
    """``blue-nb heat``: load the rows under ``data_dir`` into an in-memory DuckDB store (or, with
    ``duckdb`` instead, use the items a load put in that file), compute the heat (the spec's model, or
    the recorded ``log``) and write the report to ``out_dir``.

    ``counts`` in the summary are the heat model's findings (also in ``findings``); ``validate_counts``
    are what ``blue-nb validate SPEC --data DATA_DIR`` finds (spec, items and heat together): the items
    are checked as they are loaded, and the heat findings are this report's."""
    spec = as_spec(spec)
    t0 = time.perf_counter()
    with data_store(spec, data_dir, duckdb) as store:
        checked, failed = load_checked(spec, data_dir, store, progress=progress)   # items built once: loaded, checked
        if failed:
            raise failed
        loaded = time.perf_counter()
        report = partition_heat(spec, store, log=log, seconds=seconds, seed=seed)
        computed = time.perf_counter()
    def finish(summary: dict[str, Any]) -> None:
        summary["validate_counts"] = with_heat_findings(checked, list(report.findings)).counts
        summary["timings"] = {"load_and_checks_s": round(loaded - t0, 3), "heat_s": round(computed - loaded, 3),
                              "write_s": round(time.perf_counter() - computed, 3)}

    return write_heat_report(report, out_dir, figures=figures, finish=finish)
