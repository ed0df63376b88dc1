"""The entry points: :func:`partition_heat` (the whole report), :func:`heat_findings` (for validate) and
:func:`rate_model` (the model alone, for other rates and skews)."""

from __future__ import annotations

import time
from pathlib import Path

from blue_nb.heat.logs import price_log, read_access_log
from blue_nb.heat.model import HeatModel
from blue_nb.heat.result import HeatReport, skew
from blue_nb.heat.rates import RateModel
from blue_nb.heat.throttle import monotonic_findings, table_capacity, throttle_findings, transaction_findings
from blue_nb.rules import RULES, Finding, Findings
from blue_nb.sizes import ATTR_SAMPLE, entity_size_stats, size_findings, size_frames
from blue_nb.spec import Spec
from blue_nb.stores import Store
from blue_nb.stores.analytics import Scratch

__all__ = ["DEFAULT_SECONDS", "DEFAULT_SEED", "heat_findings", "partition_heat", "rate_model"]

DEFAULT_SECONDS = 60
DEFAULT_SEED = 18


def _findings(spec: Spec, model: HeatModel, partitions, timeline, hot, drivers, seconds: int,
              scratch: Scratch) -> tuple[list[Finding], dict]:
    found = throttle_findings(spec, partitions, timeline, hot, drivers, seconds)
    found += monotonic_findings(spec, model.pattern_peaks())
    found += transaction_findings(spec, model.transaction_items())
    found += size_findings(scratch, spec)
    table, capacity = table_capacity(spec, timeline, seconds)
    return found + capacity, table


def _analyse(spec: Spec, store: Store, scratch: Scratch, log, seconds: int, seed: int, timings: dict):
    t0 = time.perf_counter()
    model = HeatModel(scratch, spec)
    if log is None:
        model.add_model_patterns()
        calls = None
    else:
        frame_ = log if not isinstance(log, (str, Path)) else read_access_log(log, spec)
        calls, seconds = price_log(model, frame_, where=str(log) if isinstance(log, (str, Path)) else "log")
    timings["model"] = time.perf_counter() - t0
    partitions = model.partitions()
    if calls is None:
        calls = model.simulate(seconds, seed)
    timeline = model.timeline(calls)
    hot = model.hot_items()
    drivers = model.drivers()
    timings["partitions"] = time.perf_counter() - t0 - timings["model"]
    found, table = _findings(spec, model, partitions, timeline, hot, drivers, seconds, scratch)
    table["unmodelled_patterns"] = _unmodelled(spec, model)
    return model, partitions, timeline, hot, drivers, seconds, found, table


def _unmodelled(spec: Spec, model: HeatModel) -> list[str]:
    """Patterns with traffic that put no load anywhere: no items of their entities carry their parameters."""
    out = []
    for c in model.candidates.values():
        if c.table is None and c.pattern.operation != "scan":
            why = (f"no {', '.join(c.skipped_entities)} item carries {', '.join(c.params)}" if c.skipped_entities
                   else "no items of " + ", ".join(c.pattern.entities))
            out.append(f"{c.pattern.name}: {why}")
    return out


def partition_heat(spec: Spec, store: Store, *, log=None, seconds: int = DEFAULT_SECONDS, seed: int = DEFAULT_SEED,
         sizes: bool = True, attr_sample: int = ATTR_SAMPLE, rate_model: bool = False) -> HeatReport:
    """Partition heat and item sizes of ``spec``'s items in a DuckDB ``store``.

    Without ``log`` the workload is the spec's model (each pattern's ``rate_per_second`` spread
    over the candidates its ``key_distribution`` draws from the data), simulated for ``seconds``
    seconds with numpy's RNG seeded by ``seed``; with ``log`` (a path, or a frame from
    :func:`~blue_nb.heat.logs.read_access_log`) the recorded calls replace the model. With
    ``rate_model=True`` (model only) the report keeps a :class:`~blue_nb.heat.rates.RateModel` of the
    model in ``report.rate_model``, for re-evaluating other rates and skews in milliseconds.
    """
    scratch = store.analytics()
    timings: dict[str, float] = {}
    try:
        model, partitions, timeline, hot, drivers, seconds, found, table = _analyse(
            spec, store, scratch, log, seconds, seed, timings)
        fast = (RateModel.from_model(model, partitions, seconds=seconds, seed=seed, findings=found)
                if rate_model and log is None else None)
        t = time.perf_counter()
        frames = size_frames(scratch, spec, sample=attr_sample, seed=seed) if sizes else {}
        size_stats = entity_size_stats(scratch, spec)
        timings["sizes"] = time.perf_counter() - t
        n_items = int(partitions.loc[partitions["index"] == "table", "items"].sum())
        findings = Findings(found, spec=spec.source_path or spec.domain, items_checked=n_items,
                            rule_order=list(RULES))
        return HeatReport(source="model" if log is None else ("log" if not isinstance(log, (str, Path)) else str(log)),
                          seconds=seconds, partitions=partitions, timeline=timeline, findings=findings,
                          skew=skew(partitions), hot_items=hot, drivers=drivers, patterns=model.pattern_costs(),
                          table=table, size_stats=size_stats, timings=timings, rate_model=fast,
                          priced=model.priced() if log is None else None, **frames)
    finally:
        scratch.close()


def heat_findings(spec: Spec, store: Store, *, seconds: int = DEFAULT_SECONDS,
                  seed: int = DEFAULT_SEED) -> list[Finding]:
    """The heat model's findings only (HOT-PARTITION, HOT-INDEX-PARTITION, PARTITION-SIZE,
    MONOTONIC-WRITES, ITEM-SIZE-NEAR-LIMIT, TABLE-CAPACITY): what ``validate`` adds with data."""
    scratch = store.analytics()
    try:
        return _analyse(spec, store, scratch, None, seconds, seed, {})[6]
    finally:
        scratch.close()


def rate_model(spec: Spec, store: Store, *, seconds: int = DEFAULT_SECONDS, seed: int = DEFAULT_SEED) -> RateModel:
    """The spec's workload model as a :class:`~blue_nb.heat.rates.RateModel` (without the rest of the report):
    ``rate_model(spec, store).evaluate(rates={"list_perspectives": 300})``."""
    scratch = store.analytics()
    try:
        model = HeatModel(scratch, spec)
        model.add_model_patterns()
        return RateModel.from_model(model, model.partitions(), seconds=seconds, seed=seed,
                                     findings=size_findings(scratch, spec))
    finally:
        scratch.close()
