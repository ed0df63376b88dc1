"""``make bench``: the whole design loop on the dialogue domain, stage by stage, at each scale.

``python -m bench [--scale N ...] [--requests N] [--no-latency] [--work DIR] [--out FILE]``;
the scales default to 100k and 1M items. Each stage runs in a child process of its own (its seconds
and peak RSS, :mod:`.measure`); ``load_sqlite``, ``sizes`` and ``heat`` are followed by their naive
baseline on the same data (:mod:`.baselines`, :mod:`.naive_load`), which must give the same answers, and
the ratio baseline / product. At the largest scale: the read-pattern latencies on both store files
and the interactive answers at ~100k partition keys (``--no-latency`` leaves them out). Then the
command line's start-up: each command's time to its first line against a naive import of pandas,
DuckDB and matplotlib (:mod:`.startup`; ``--no-startup`` leaves it out). The tables are printed and
merged into ``bench/results.json`` with the issue's targets."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from bench.measure import run_measured
from bench.report import format_latency, format_stages, format_targets, save_results
from bench.sliders import ROOT, SPEC
from bench.stages import BASELINES
from bench.startup import format_startup, startup_times

__all__ = ["DEFAULT_SCALES", "LOOP", "main", "run_scale"]

DEFAULT_SCALES = (100_000, 1_000_000)
LOOP = ("generate", "generate_spec", "load_sqlite", "load_duckdb", "sizes", "heat", "validate", "report")
_WHAT = {"generate": "sample rows (csv)", "generate_spec": "rows drawn from a spec's generate: section", "load_sqlite": "rows -> items -> SQLite file",
         "load_duckdb": "rows -> items -> DuckDB file", "sizes": "the loader's column sizing, every row",
         "heat": "partition_heat, {requests:,} modelled requests", "validate": "validate the loaded DuckDB file",
         "report": "review report (report-html) of the loaded DuckDB file"}
_OWN = {"seconds", "wall_seconds", "peak_mb"}


def _row(name: str, got: dict, base: dict | None, requests: int) -> dict:
    row = {"name": name, "seconds": round(got["seconds"], 3), "peak_mb": got["peak_mb"],
           "baseline_seconds": None, "ratio": None, "wall_seconds": round(got["wall_seconds"], 2),
           "what": _WHAT[name].format(requests=requests),
           "details": {k: v for k, v in got.items() if k not in _OWN}}
    if base is not None:
        # heat: the naive way does only the per-second step, so it is set against the product's own step on the
        # same calls (measured beside it), not against the whole model
        like = base.get("product_timeline_seconds") or got["seconds"]
        row.update(baseline_seconds=round(base["seconds"], 3), ratio=round(base["seconds"] / like, 1),
                   baseline_peak_mb=base["peak_mb"], same=bool(base["same"]),
                   baseline_details={k: v for k, v in base.items() if k not in _OWN})
    return row


def run_scale(scale: int, work: Path, *, requests: int = 1_000_000, latency: bool = False, calls: int = 1000,
              partitions: int = 100_000, isolate: bool = True, seed: int = 1, echo=print) -> dict:
    """Run the loop at ``scale`` items in ``work`` (created); the stage rows, totals and extras."""
    work.mkdir(parents=True, exist_ok=True)
    ctx = {"spec": str(SPEC), "data": str(work / "data"), "work": str(work), "scale": scale,
           "requests": requests, "seed": seed, "calls": calls, "partitions": partitions}
    rows = []
    for name in LOOP:
        got = run_measured(name, ctx, isolate=isolate)
        base = run_measured(BASELINES[name], ctx, isolate=isolate) if name in BASELINES else None
        rows.append(_row(name, got, base, requests))
        r = rows[-1]
        echo(f"  {scale:,} {name}: {r['seconds']:.2f} s, peak {r['peak_mb']} MB"
             + (f"; baseline {r['baseline_seconds']:.2f} s, ratio {r['ratio']}, same: {r['same']}" if base else ""),
             flush=True)
    peaks = [r["peak_mb"] for r in rows if r["peak_mb"] is not None]
    out = {"stages": rows, "total_seconds": round(sum(r["seconds"] for r in rows), 2),
           "peak_mb": max(peaks) if peaks else None, "requests": requests}
    if latency:
        out["latency"] = run_measured("latency", ctx, isolate=isolate)["patterns"]
        echo(f"  {scale:,} latency: done", flush=True)
        out["interactive"] = {k: v for k, v in run_measured("interactive", ctx, isolate=isolate).items()
                              if k in ("explorer", "sliders")}
        echo(f"  {scale:,} interactive: done", flush=True)
    return out


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, action="append", help="items (sample rows) to run at; repeat for several "
                    "(default: 100000 and 1000000)")
    ap.add_argument("--requests", type=int, default=1_000_000, help="modelled requests of the heat stage")
    ap.add_argument("--calls", type=int, default=1000, help="calls per read pattern and store (latency)")
    ap.add_argument("--partitions", type=int, default=100_000, help="partition keys of the interactive part")
    ap.add_argument("--no-latency", action="store_true", help="leave out the latencies and the interactive part")
    ap.add_argument("--work", type=Path, help="keep the data and store files here (default: a temporary folder)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results.json", help="the results file")
    ap.add_argument("--in-process", action="store_true", help="run the stages in this process (no peak RSS)")
    ap.add_argument("--no-startup", action="store_true", help="leave out the command line's start-up times")
    ap.add_argument("--startup-repeats", type=int, default=5, help="runs per command of the start-up stage (best kept)")
    return ap


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark; print the tables and the targets; write the results file. Returns the results."""
    args = _parser().parse_args(argv)
    scales = sorted(set(args.scale or DEFAULT_SCALES))
    results: dict[int, dict] = {}
    base = args.work or Path(tempfile.mkdtemp(prefix="blue-nb-bench-"))
    try:
        for scale in scales:
            work = base / str(scale)
            results[scale] = run_scale(scale, work, requests=args.requests, calls=args.calls,
                                       latency=not args.no_latency and scale == scales[-1],
                                       partitions=args.partitions, isolate=not args.in_process)
            if args.work is None:
                shutil.rmtree(work, ignore_errors=True)
        startup = None if args.no_startup else startup_times(args.startup_repeats, base / "startup")
    finally:
        if args.work is None:
            shutil.rmtree(base, ignore_errors=True)
    doc = save_results(args.out, results, startup)
    for scale, run in results.items():
        print("\n" + format_stages(scale, run))
        extra = format_latency(run)
        if extra:
            print(extra)
    if startup:
        print("\n" + format_startup(startup))
    print("\n" + format_targets(doc["targets"]))
    print(f"\nwritten: {args.out}")
    return doc
