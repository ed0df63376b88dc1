"""What ``make bench`` prints and keeps: the stage tables, the targets of the issue and which hold,
and ``bench/results.json`` (``{scale: {"stages": [...], ...}, "targets": [...]}``)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.startup import FIRST_LINE_S, HELP_S
from blue_nb.printing import number

__all__ = ["format_latency", "format_stages", "format_targets", "save_results", "startup_targets", "targets"]

LOOP_SECONDS = 120
PEAK_MB = 1024
SIZES_RATIO = 20
P99_MS = {"sqlite": 5.0, "duckdb": 20.0}
SMALL_ITEMS = 100
FULL_PAGE_MS = 50.0
INTERACTIVE_MS = 150.0
ONE_MILLION = 1_000_000


def format_stages(scale: int, run: dict) -> str:
    """The stage table of one scale."""
    head = f"{'stage':<12} {'seconds':>9} {'peak MB':>8} {'baseline s':>11} {'ratio':>7}  same  what"
    lines = [f"== {scale:,} items ==", head, "-" * len(head)]
    for s in run["stages"]:
        same = {True: "yes", False: "NO", None: ""}[s.get("same")]
        lines.append(f"{s['name']:<12} {number(s['seconds']):>9} {number(s['peak_mb'], 0):>8} "
                     f"{number(s['baseline_seconds']):>11} {number(s['ratio'], 1):>7}  {same:<4}  {s.get('what', '')}")
    heat = next((s for s in run["stages"] if s["name"] == "heat" and s.get("baseline_details")), None)
    if heat:
        lines.append(f"{'':<12} heat's baseline is the per-second step alone (expand + groupby of "
                     f"{heat['baseline_details']['requests']:,} requests), so its ratio is against the product's own "
                     f"step on the same calls: {heat['baseline_details']['product_timeline_seconds']:.2f} s")
    lines.append(f"{'loop':<12} {number(run['total_seconds']):>9} {number(run['peak_mb'], 0):>8}   "
                 "(sum of the stages' seconds; the highest peak)")
    return "\n".join(lines)


def format_latency(run: dict) -> str:
    """The read-pattern latencies and the interactive answers of one scale (when measured)."""
    lines = []
    if run.get("latency"):
        head = (f"{'pattern':<22} {'store':<7} {'p50 ms':>8} {'p99 ms':>8} {'max items':>10} {'1 MB pages':>11} "
                f"{'page p50':>8} {'slowest':>8}")
        calls = max(n["calls"] for per in run["latency"].values() for n in per.values())
        lines += [f"read patterns ({calls:,} calls each, parameters by the key distribution, one page per call)", head,
                  "-" * len(head)]
        for name, per in run["latency"].items():
            for kind, n in per.items():
                lines.append(f"{name:<22} {kind:<7} {n['p50_ms']:>8.2f} {n['p99_ms']:>8.2f} {n['max_items']:>10,} "
                             f"{n['full_pages']:>11,} {number(n.get('full_page_p50_ms')):>8} "
                             f"{number(n['full_page_max_ms']):>8}")
    inter = run.get("interactive")
    if inter:
        e, s = inter["explorer"], inter["sliders"]
        lines += [f"explorer at {s['partitions']:,} partitions ({e['items']:,} items): worst answer "
                  f"{e['answer_max_ms']:.1f} ms (plan + run_plan), {e['shown_max_ms']:.1f} ms with the answer shown",
                  f"heat sliders at {s['partitions']:,} partitions: redraw median {s['redraw_median_ms']:.1f} ms, "
                  f"max {s['redraw_max_ms']:.1f} ms (evaluate median {s['evaluate_median_ms']:.1f} ms, heat map "
                  f"{s['heatmap_median_ms']:.1f} ms); naive heat for one change {s['naive_heat_one_change_s']:.1f} s"]
    return "\n".join(lines)


def _target(text: str, scale: int, holds: bool | None, measured: str) -> dict:
    return {"target": text, "scale": scale, "holds": holds, "measured": measured}


def _pick(results: dict[int, dict]) -> int:
    return ONE_MILLION if ONE_MILLION in results else max(results)


def _latency_targets(scale: int, lat: dict) -> list[dict]:
    out = []
    for kind, limit in P99_MS.items():
        small = [(n[kind]["p99_ms"], name) for name, n in lat.items() if kind in n and n[kind]["max_items"] <= SMALL_ITEMS]
        worst = max(small, default=(None, ""))
        out.append(_target(f"p99 under {limit:g} ms on {kind} for every pattern returning at most {SMALL_ITEMS} items",
                           scale, all(p < limit for p, _ in small) if small else None,
                           f"worst p99 {worst[0]:.2f} ms ({worst[1]})" if small else "no such pattern"))
    full = [(n["full_page_max_ms"], f"{name}@{kind}") for name, per in lat.items() for kind, n in per.items()
            if n["full_pages"]]
    worst = max(full, default=(None, ""))
    out.append(_target(f"a full 1 MB page under {FULL_PAGE_MS:g} ms", scale,
                       all(ms < FULL_PAGE_MS for ms, _ in full) if full else None,
                       f"slowest full page {worst[0]:.2f} ms ({worst[1]})" if full else "no call read a full page"))
    return out


def targets(results: dict[int, dict]) -> list[dict]:
    """The issue's targets, each with the scale it was measured at, whether it holds and the number."""
    if not results:
        return []
    out = []
    main = _pick(results)
    run = results[main]
    out.append(_target(f"the whole loop within {LOOP_SECONDS} s", main, run["total_seconds"] < LOOP_SECONDS,
                       f"{run['total_seconds']:.1f} s"))
    for scale in sorted(s for s in results if s >= ONE_MILLION) or [main]:
        r = results[scale]
        if r["peak_mb"] is not None:
            worst = max(r["stages"], key=lambda s: s["peak_mb"] or 0)
            out.append(_target(f"peak memory under {PEAK_MB} MB", scale, r["peak_mb"] < PEAK_MB,
                               f"{r['peak_mb']:,.0f} MB ({worst['name']})"))
    sizes = next(s for s in run["stages"] if s["name"] == "sizes")
    out.append(_target(f"item sizes at least {SIZES_RATIO}x the naive baseline, on the product's path", main,
                       sizes["ratio"] >= SIZES_RATIO, f"{sizes['ratio']:.1f}x"))
    for scale, r in sorted(results.items()):
        if r.get("latency"):
            out += _latency_targets(scale, r["latency"])
        if r.get("interactive"):
            e, s = r["interactive"]["explorer"], r["interactive"]["sliders"]
            out.append(_target(f"explorer answers under {INTERACTIVE_MS:g} ms at ~100k partitions", scale,
                               e["answer_max_ms"] < INTERACTIVE_MS,
                               f"worst {e['answer_max_ms']:.1f} ms at {s['partitions']:,} partitions"))
            out.append(_target(f"slider redraws under {INTERACTIVE_MS:g} ms at ~100k partitions", scale,
                               s["redraw_max_ms"] < INTERACTIVE_MS,
                               f"worst {s['redraw_max_ms']:.1f} ms, median {s['redraw_median_ms']:.1f} ms"))
    return out


def startup_targets(startup: dict | None) -> list[dict]:
    """The start-up targets (``--help`` and the first line of every command given data), when measured."""
    if not startup or not startup.get("commands"):
        return []
    cmds = startup["commands"]
    out = []
    if "--help" in cmds:
        out.append(_target(f"blue-nb --help under {HELP_S:g} s", 0, cmds["--help"]["first_line_s"] < HELP_S,
                           f"{cmds['--help']['first_line_s']:.3f} s"))
    data = {n: c["first_line_s"] for n, c in cmds.items() if n != "--help"}
    if data:
        worst = max(data, key=data.get)
        out.append(_target(f"first line of every command under {FIRST_LINE_S:g} s", 0, data[worst] < FIRST_LINE_S,
                           f"slowest {data[worst]:.3f} s ({worst})"))
    return out


def format_targets(found: list[dict]) -> str:
    mark = {True: "HOLDS ", False: "MISSED", None: "n/a   "}
    where = lambda t: f"at {t['scale']:,} items" if t["scale"] else "start-up"     # noqa: E731
    return "\n".join(["targets"] + [f"  {mark[t['holds']]} {t['target']} ({where(t)}): {t['measured']}"
                                    for t in found])


def save_results(path: Path, results: dict[int, dict], startup: dict | None = None) -> dict:
    """Merge this run's scales into ``path`` (other scales measured before are kept, with their date), and its
    start-up times (``startup``: else the last ones kept), recompute the targets over all of them, write the file;
    returns what was written."""
    old: dict = {}
    if path.is_file():
        try:
            old = json.loads(path.read_text())
        except ValueError:
            old = {}
    merged = {int(k): v for k, v in old.items() if k not in ("targets", "startup")}
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    merged.update({k: {**v, "measured_at": now} for k, v in results.items()})
    doc: dict[str, Any] = {str(k): merged[k] for k in sorted(merged)}
    start = {**startup, "measured_at": now} if startup else old.get("startup")
    if start:
        doc["startup"] = start
    doc["targets"] = targets(merged) + startup_targets(start)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return doc
