"""The stages of the design loop and their naive baselines, one per child process.

``python -m bench.stages NAME CONTEXT.json`` runs stage ``NAME`` and writes what it measured
to ``<work>/NAME.json`` (the parent, :mod:`.measure`, adds the child's peak RSS). The context holds
``spec``, ``data`` (the sample rows), ``work`` (the store files and the answers the baselines are
checked against), ``scale``, ``requests`` and ``seed``. Each stage times its own work with
``perf_counter`` (``seconds``); setup that the stage does not measure (opening a store, reading the
items to size) is reported beside it. The product stages use the product's public entry points:

=================  ===================================================================================
generate           :func:`blue_nb.samples.generate_sample` (dialogue rows)
generate_spec      :func:`blue_nb.samples.sample_spec` on ``bench/orders.yaml`` (rows drawn from a spec's generate: section)
load_sqlite        :func:`blue_nb.app.workflows.load_data` into a SQLite file
load_duckdb        :func:`blue_nb.app.workflows.load_data` into a DuckDB file
sizes              the loader's own sizing (``csv_stage``'s plan ``sizes``) over every row of the sample, chunk by chunk
heat               :func:`blue_nb.heat.partition_heat` on the DuckDB file, ~``requests`` modelled calls
validate           :func:`blue_nb.app.workflows.validate` on the DuckDB file just loaded (``--duckdb``)
report             :func:`blue_nb.app.exports.export_spec` ``report-html`` on the DuckDB file just loaded
latency            p50 / p99 of every read pattern on both store files (:mod:`.latency`)
interactive        explorer answers and slider redraws at ~100k partition keys (:mod:`.sliders`)
=================  ===================================================================================
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import time
from array import array
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from blue_nb.app.exports import export_spec
from blue_nb.app.workflows import load_data, validate
from bench.baselines import expand_requests, naive_sizes, naive_timeline
from bench.latency import pattern_latencies
from bench.naive_load import naive_sqlite_load, same_sqlite_rows
from bench.sliders import bench_explorer, bench_heat_sliders
from blue_nb.heat import DEFAULT_SEED, partition_heat
from blue_nb.heat.model import HeatModel
from blue_nb.layout import catalog_name, quote_ident
from blue_nb.samples import generate_sample, sample_spec
from blue_nb.sources import find_source
from blue_nb.sources.csv_stage import column_batches
from blue_nb.spec import Spec, load_spec
from blue_nb.stores import open_store
from blue_nb.stores.analytics import frame

__all__ = ["BASELINES", "STAGES", "heat_seconds", "run_stage"]

STAGES: dict[str, Callable[[dict], dict]] = {}
#: product stage -> its naive baseline stage
BASELINES = {"load_sqlite": "load_sqlite_naive", "sizes": "sizes_naive", "heat": "heat_naive"}


def _stage(name: str):
    def register(fn):
        STAGES[name] = fn
        return fn
    return register


def paths(ctx: dict) -> dict[str, Path]:
    """The files of one run, all under ``ctx["work"]``."""
    w = Path(ctx["work"])
    return {"sqlite": w / "blue.sqlite", "duckdb": w / "blue.duckdb", "naive": w / "naive.sqlite",
            "sizes": w / "sizes.npy", "timeline": w / "timeline.parquet", "report": w / "dialogue.review.html"}


def heat_seconds(spec: Spec, requests: int) -> int:
    """Seconds of the model's simulation that make about ``requests`` calls at the spec's rates."""
    rate = sum(p.rate_per_second or 0 for p in spec.access_patterns)
    return max(1, math.ceil(requests / rate)) if rate else 1


def _fresh(*files: Path) -> None:
    """Remove a store file and its side files, so that a load starts from nothing."""
    for f in files:
        for side in (f, f.with_name(f.name + ".wal"), f.with_name(f.name + ".lock"),
                     f.with_name(f.name + "-wal"), f.with_name(f.name + "-shm")):
            side.unlink(missing_ok=True)


@_stage("generate")
def generate(ctx: dict) -> dict:
    t = time.perf_counter()
    counts = generate_sample("dialogue", scale=ctx["scale"], seed=ctx["seed"], out_dir=ctx["data"])
    return {"seconds": time.perf_counter() - t, "rows": sum(counts.values())}


ORDERS_SPEC = Path(__file__).with_name("orders.yaml")


@_stage("generate_spec")
def generate_spec(ctx: dict) -> dict:
    """Rows for any spec at ``scale`` items, streamed; the files are removed after (only the speed counts)."""
    out = Path(ctx["work"]) / "generated"
    t = time.perf_counter()
    counts = sample_spec(ORDERS_SPEC, scale=ctx["scale"], seed=ctx["seed"], out_dir=out)
    seconds = time.perf_counter() - t
    rows = sum(counts.values())
    shutil.rmtree(out, ignore_errors=True)
    return {"seconds": seconds, "rows": rows, "items_per_second": round(rows / seconds)}


def _load(ctx: dict, backend: str) -> dict:
    path = paths(ctx)[backend]
    _fresh(path)
    t = time.perf_counter()
    res = load_data(ctx["spec"], ctx["data"], **{backend: path}, progress=False)[0]
    return {"seconds": time.perf_counter() - t, "items": res.items_written}


@_stage("load_sqlite")
def load_sqlite(ctx: dict) -> dict:
    return _load(ctx, "sqlite")


@_stage("load_duckdb")
def load_duckdb(ctx: dict) -> dict:
    return _load(ctx, "duckdb")


@_stage("load_sqlite_naive")
def load_sqlite_naive(ctx: dict) -> dict:
    p = paths(ctx)
    _fresh(p["naive"])
    t = time.perf_counter()
    n = naive_sqlite_load(load_spec(ctx["spec"]), ctx["data"], p["naive"])
    seconds = time.perf_counter() - t
    return {"seconds": seconds, "items": n, "same": same_sqlite_rows(load_spec(ctx["spec"]), p["sqlite"], p["naive"])}


def _sized(ctx: dict, size: Callable[[list], list[int]]) -> tuple[np.ndarray, float, float]:
    """Every item of the DuckDB file, read chunk by chunk and sized by ``size``: (sizes in key order, seconds
    sizing, seconds reading). The sizes are kept in a numpy array (8 bytes each), not a list of Python ints,
    so the stage's own bookkeeping stays small at 5M items."""
    spec = load_spec(ctx["spec"])
    store = open_store("duckdb", paths(ctx)["duckdb"])
    out = array("q")
    sizing = 0.0
    t_all = time.perf_counter()
    try:
        chunk: list = []
        for item in store.iter_items(spec.table_name, batch=store.chunk_size):
            chunk.append(item)
            if len(chunk) == store.chunk_size:
                t = time.perf_counter()
                out.extend(size(chunk))
                sizing += time.perf_counter() - t
                chunk = []
        t = time.perf_counter()
        out.extend(size(chunk) if chunk else [])
        sizing += time.perf_counter() - t
    finally:
        store.close()
    return np.frombuffer(out, dtype=np.int64), sizing, time.perf_counter() - t_all - sizing


def source_sizes(ctx: dict) -> tuple[np.ndarray, float, float]:
    """Every row of the sample sized as the loader sizes it: each entity's CSV file read by the loader's reader
    (:func:`~blue_nb.sources.csv_stage.column_batches`), each chunk sized by its plan's ``sizes`` from the
    columns' UTF-8 lengths. (sizes in file order, seconds sizing, seconds reading)."""
    spec = load_spec(ctx["spec"])
    out, sizing, reading = [], 0.0, 0.0
    for entity in spec.entities.values():
        path = find_source(ctx["data"], entity.source)
        t = time.perf_counter()
        got = column_batches(spec, entity, path)
        if not isinstance(got, tuple):
            raise RuntimeError(f"{entity.name}: the loader does not read {path.name} a column at a time")
        plan, batches = got
        for batch in batches:
            u = time.perf_counter()
            reading += u - t
            out.append(plan.sizes(batch))
            t = time.perf_counter()
            sizing += t - u
        reading += time.perf_counter() - t
    return (np.concatenate(out) if out else np.zeros(0, np.int64)), sizing, reading


def catalog_sizes(ctx: dict) -> np.ndarray:
    """The sizes the load recorded in the DuckDB catalog, in key order."""
    spec = load_spec(ctx["spec"])
    store = open_store("duckdb", paths(ctx)["duckdb"])
    try:
        sizes = array("q")
        for (size,) in store.rows(f"SELECT size FROM {quote_ident(catalog_name(spec.table_name))} ORDER BY pk, sk",
                                  [], 100_000):
            sizes.append(size)
    finally:
        store.close()
    return np.frombuffer(sizes, dtype=np.int64)


@_stage("sizes")
def sizes(ctx: dict) -> dict:
    got, seconds, reading = source_sizes(ctx)
    recorded = catalog_sizes(ctx)               # what the load recorded, in key order: the naive way's answer
    np.save(paths(ctx)["sizes"], recorded)
    return {"seconds": seconds, "read_seconds": reading, "items": len(got), "bytes": int(got.sum()),
            "same_as_catalog": bool(np.array_equal(np.sort(got), np.sort(recorded)))}


@_stage("sizes_naive")
def sizes_naive(ctx: dict) -> dict:
    got, seconds, reading = _sized(ctx, naive_sizes)
    return {"seconds": seconds, "read_seconds": reading, "items": len(got),
            "same": bool(np.array_equal(got, np.load(paths(ctx)["sizes"])))}


@_stage("heat")
def heat(ctx: dict) -> dict:
    spec = load_spec(ctx["spec"])
    seconds = heat_seconds(spec, ctx["requests"])
    store = open_store("duckdb", paths(ctx)["duckdb"])
    try:
        t = time.perf_counter()
        report = partition_heat(spec, store, seconds=seconds, seed=DEFAULT_SEED)
        took = time.perf_counter() - t
    finally:
        store.close()
    report.timeline.to_parquet(paths(ctx)["timeline"], index=False)
    return {"seconds": took, "simulated_seconds": seconds, "partitions": len(report.partitions),
            "timeline_rows": len(report.timeline), "findings": report.findings.summary(),
            "parts": {k: round(v, 3) for k, v in report.timings.items()}}


def modelled_calls(ctx: dict) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """The model's calls (second, pid, cid, k) and per-call units (pid, cid, idx, pk, rcu, wcu), drawn as
    :func:`~blue_nb.heat.partition_heat` draws them (same seconds, same seed), and the seconds the
    product's own per-second step (``HeatModel.timeline``, in DuckDB) takes on them: the like-for-like
    counterpart of the naive groupby."""
    spec = load_spec(ctx["spec"])
    store = open_store("duckdb", paths(ctx)["duckdb"])
    scratch = store.analytics()
    try:
        model = HeatModel(scratch, spec)
        model.add_model_patterns()
        calls_df = model.simulate(heat_seconds(spec, ctx["requests"]), DEFAULT_SEED)
        effects = frame(store, f"SELECT pid, cid, idx, pk, rcu, wcu FROM {model.costs.effects}",
                        ["pid", "cid", "idx", "pk", "rcu", "wcu"])
        t = time.perf_counter()
        model.timeline(calls_df)
        product_step = time.perf_counter() - t
    finally:
        scratch.close()
        store.close()
    return calls_df, effects, product_step


def same_timeline(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Two timelines hold the same units per (second, index, key), row order aside."""
    keys = ["second", "index", "pk"]
    a = a.sort_values(keys, ignore_index=True)
    b = b.sort_values(keys, ignore_index=True)
    return (len(a) == len(b) and a[keys].astype(str).equals(b[keys].astype(str))
            and bool(np.array_equal(a[["rcu", "wcu"]].to_numpy(float), b[["rcu", "wcu"]].to_numpy(float))))


@_stage("heat_naive")
def heat_naive(ctx: dict) -> dict:
    calls, effects, product_step = modelled_calls(ctx)
    t = time.perf_counter()
    requests = expand_requests(calls)
    timeline = naive_timeline(requests, effects)
    took = time.perf_counter() - t
    product = pd.read_parquet(paths(ctx)["timeline"])
    return {"seconds": took, "requests": len(requests), "same": same_timeline(timeline, product),
            "product_timeline_seconds": product_step}


@_stage("validate")
def validate_stage(ctx: dict) -> dict:
    t = time.perf_counter()
    findings = validate(ctx["spec"], duckdb=paths(ctx)["duckdb"])
    return {"seconds": time.perf_counter() - t, "findings": findings.summary(), "items": findings.items_checked}


@_stage("report")
def report(ctx: dict) -> dict:
    out = paths(ctx)["report"]
    t = time.perf_counter()
    res = export_spec(ctx["spec"], "report-html", duckdb=paths(ctx)["duckdb"], out=out)
    return {"seconds": time.perf_counter() - t, "bytes": out.stat().st_size, "findings": res.findings.summary()}


@_stage("latency")
def latency(ctx: dict) -> dict:
    """p50 / p99 of every read pattern on both loaded store files (see :mod:`.latency`)."""
    spec = load_spec(ctx["spec"])
    p = paths(ctx)
    sqlite, duck = open_store("sqlite", p["sqlite"]), open_store("duckdb", p["duckdb"])
    try:
        t = time.perf_counter()
        out = pattern_latencies(spec, [sqlite, duck], duck, calls=ctx.get("calls", 1000))
    finally:
        sqlite.close()
        duck.close()
    return {"seconds": time.perf_counter() - t, "patterns": out}


@_stage("interactive")
def interactive(ctx: dict) -> dict:
    """The explorer's answers and the heat sliders' redraws at ~``ctx["partitions"]`` partition keys."""
    t = time.perf_counter()
    n = ctx.get("partitions", 100_000)
    return {"explorer": bench_explorer(n), "sliders": bench_heat_sliders(n), "seconds": time.perf_counter() - t}


def run_stage(name: str, ctx: dict) -> dict[str, Any]:
    """Run one stage here (in this process) and return what it measured."""
    return STAGES[name](ctx)


def _main(argv: list[str]) -> None:
    name, ctx_file = argv
    ctx = json.loads(Path(ctx_file).read_text())
    out = run_stage(name, ctx)
    (Path(ctx["work"]) / f"{name}.json").write_text(json.dumps(out, default=str))


if __name__ == "__main__":
    _main(sys.argv[1:])
