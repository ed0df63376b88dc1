"""Read-pattern latency on the loaded stores: every read pattern of the spec, ``calls`` calls per store
with parameters drawn by the pattern's key distribution (the heat model's candidates and weights,
:func:`blue_nb.heat.candidates`), each call ``plan`` + ``run_plan`` of one page (one DynamoDB call).

Per pattern and store: p50 and p99 in ms, the most items a call returned, and the calls that read a
full 1 MB page (a page cut by the size limit, not by the pattern's Limit) with their median and slowest time.

Before a store's calls the garbage of what came before (the stores, the parameters, the last pattern's calls) is
collected: left alone, Python's first full collection of it (57 ms at 1M) lands in whichever call is running."""

from __future__ import annotations

import gc
import time
from typing import Any

import numpy as np

from blue_nb.heat import candidates
from blue_nb.patterns import plan
from blue_nb.spec import Spec
from blue_nb.stores import Store

__all__ = ["draw_parameters", "pattern_latencies"]


def draw_parameters(duck: Store, spec: Spec, pattern: str, calls: int, seed: int) -> list[dict[str, Any]]:
    """``calls`` parameter sets of ``pattern`` drawn by its key distribution from the data's candidates
    (a pattern without parameters: empty sets)."""
    p = spec.pattern(pattern)
    if not p.parameters:
        return [{} for _ in range(calls)]
    cands = candidates(duck, spec, p)
    if cands.empty:
        return []
    w = cands["w"].to_numpy(float)
    rows = np.random.default_rng(seed).choice(len(cands), size=calls, p=w / w.sum())
    values = cands[list(p.parameters)].astype(str).to_numpy()
    return [dict(zip(p.parameters, values[r])) for r in rows]


def _full_page(result) -> bool:
    """The first page was cut by the 1 MB limit (it has more, and not because of the pattern's Limit)."""
    page = result.pages[0] if result.pages else None
    limit = result.request.limit
    return page is not None and page.has_more and (limit is None or page.count < limit)


def _one(store: Store, spec: Spec, name: str, params: list[dict]) -> dict:
    times, items, full = [], 0, []
    for ps in params:
        t = time.perf_counter()
        result = store.run_plan(plan(spec, name, ps), max_pages=1)
        ms = (time.perf_counter() - t) * 1000
        times.append(ms)
        items = max(items, result.count)
        if _full_page(result):
            full.append(ms)
        del result              # freed here, not when the next call's result replaces it, inside its time
    return {"calls": len(times), "p50_ms": round(float(np.percentile(times, 50)), 2),
            "p99_ms": round(float(np.percentile(times, 99)), 2), "max_items": items,
            "full_pages": len(full), "full_page_p50_ms": round(float(np.percentile(full, 50)), 2) if full else None,
            "full_page_max_ms": round(max(full), 2) if full else None}


def pattern_latencies(spec: Spec, stores: list[Store], duck: Store, *, calls: int = 1000,
                      seed: int = 7) -> dict[str, dict[str, dict]]:
    """pattern -> store kind -> numbers (module docstring); ``duck`` (a DuckDB store with the items)
    gives the candidates. The same parameters go to every store."""
    out: dict[str, dict[str, dict]] = {}
    for p in [p for p in spec.access_patterns if p.is_read]:
        params = draw_parameters(duck, spec, p.name, calls, seed)
        if not params:
            continue
        for store in stores:
            store.run_plan(plan(spec, p.name, params[0]), max_pages=1)          # warm: the first call opens caches
            gc.collect()            # the setup's garbage now, not in a full collection inside a timed call
            out.setdefault(p.name, {})[store.kind] = _one(store, spec, p.name, params)
    return out
