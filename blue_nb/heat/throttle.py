"""Throttle prediction: which keys go over DynamoDB's per-partition limits, when, why, and
whether adaptive capacity could help (partition and item sizes against their limits:
:mod:`blue_nb.sizes.limits`).

Limits (dynamodb-rules.md section 4): a partition serves at most 3,000 RCU/s and 1,000 WCU/s,
and one item never more, whatever the table's capacity. An item collection (one partition key
value) gets more only when adaptive capacity splits it by sort-key range, which it cannot do
when the table has an LSI, or usefully when the writes follow an ever-growing sort key. Burst
capacity (up to 300 s of unused capacity) only lets a provisioned table run over its own
provisioned rate for a while: it is modelled for the table as a whole, never as a way past the
per-partition limits.

The rules are defined in :mod:`blue_nb.rules.heat_rules` (``source="heat"``: in
:data:`blue_nb.rules.RULES`, with no check of ``check_spec``); this module emits their findings.
"""

from __future__ import annotations

import re
from collections import namedtuple
from typing import Mapping

import numpy as np
import pandas as pd

from blue_nb.printing import number
from blue_nb.rules import RULES, Finding
from blue_nb.rules.heat_rules import EVIDENCE, TRANSACTION_ITEM_RATE, WARN_FRACTION
from blue_nb.sizing import PARTITION_RCU, PARTITION_WCU
from blue_nb.spec import Placeholder, Spec, pattern_path

__all__ = ["BURST_SECONDS", "ERROR_OVERLOAD", "FEW_KEYS", "MONOTONIC_FRACTION",
           "throttle_findings", "monotonic_findings", "transaction_findings", "per_key_peaks", "peaks_of", "table_capacity",
           "table_capacity_of", "is_time_like"]

BURST_SECONDS = 300
FEW_KEYS = 10                  # an index with at most this many partition key values cannot spread its load
FEW_KEYS_FRACTION = 0.5        # ... so it is flagged from 50% of a limit
MONOTONIC_FRACTION = 0.5       # "heavy" writes: >= 50% of 1,000 WCU/s on one partition
ERROR_OVERLOAD = 2.0           # a key over twice a limit on average is an error even if a split could help

_TIME_WORDS = re.compile(r"(^|_)(ts|time|timestamp|date|datetime|epoch|created|updated|modified|at|when)$", re.I)


def is_time_like(name: str) -> bool:
    """A placeholder that holds a time (``ts``, ``created_at``, ``event_time``...): keys that end in it only grow."""
    return bool(_TIME_WORDS.search(name))


def _pattern_where(spec: Spec, name: str) -> str:
    for i, p in enumerate(spec.access_patterns):
        if p.name == name:
            return pattern_path(i, name)
    return "access_patterns"


def per_key_peaks(timeline: pd.DataFrame) -> pd.DataFrame:
    """Per (index, pk): peak RCU and WCU in one second and the seconds over a limit."""
    if timeline.empty:
        return pd.DataFrame(columns=["index", "pk", "peak_rcu", "peak_wcu", "throttled_seconds"])
    t = timeline.assign(over=(timeline["rcu"] > PARTITION_RCU) | (timeline["wcu"] > PARTITION_WCU))
    return t.groupby(["index", "pk"], as_index=False).agg(peak_rcu=("rcu", "max"), peak_wcu=("wcu", "max"),
                                                          throttled_seconds=("over", "sum"))


def peaks_of(timeline: pd.DataFrame, rows: np.ndarray, keys: np.ndarray, index_names: np.ndarray,
             pks: np.ndarray) -> pd.DataFrame:
    """:func:`per_key_peaks` of the ``keys`` (partition numbers) when each timeline row's partition is known
    (``rows``; ``index_names`` and ``pks`` by partition number): arrays, no groupby on the key strings."""
    sel = np.isin(rows, keys)
    r, w = timeline["rcu"].to_numpy()[sel], timeline["wcu"].to_numpy()[sel]
    found, at = np.unique(rows[sel], return_inverse=True)
    peak_r, peak_w = np.zeros(len(found)), np.zeros(len(found))
    np.maximum.at(peak_r, at, r)
    np.maximum.at(peak_w, at, w)
    over = np.bincount(at, (r > PARTITION_RCU) | (w > PARTITION_WCU), len(found)).astype(np.int64)
    return pd.DataFrame({"index": index_names[found], "pk": pks[found], "peak_rcu": peak_r, "peak_wcu": peak_w,
                         "throttled_seconds": over})


def monotonic_patterns(spec: Spec) -> dict[tuple[str, str], str]:
    """(pattern, index) -> the time-like placeholder that ends the sort key its writes add there."""
    out = {}
    for p in spec.access_patterns:
        if p.operation not in ("put_item", "update_item"):
            continue
        for e in (spec.entities[n] for n in p.entities if n in spec.entities):
            for index in ["table", *spec.table.indexes]:
                if index == "table" and p.operation != "put_item":
                    continue                           # an update keeps its table key
                _, sk_attr = spec.key_attributes(index)
                t = e.templates.get(sk_attr or "")
                last = t.parts[-1] if t is not None and t.parts else None
                if isinstance(last, Placeholder) and is_time_like(last.name):
                    out[(p.name, index)] = last.name
    return out


class _ByKey:
    """(index, pk) -> the positions of its rows in ``df``, in their order: found in one pass over the
    (few) rows of the flagged keys' drivers."""

    def __init__(self, df: pd.DataFrame):
        self.df = df
        self.at: dict[tuple[str, str], list[int]] = {}
        for pos, key in enumerate(zip(df["index"].tolist(), df["pk"].tolist())):
            self.at.setdefault(key, []).append(pos)
        self._columns: dict[str, np.ndarray] = {}
        self._patterns = df["pattern"].tolist() if "pattern" in df else []

    def drivers(self, key: tuple[str, str]) -> list[tuple[str, float, float]]:
        """(pattern, rcu_per_s, wcu_per_s) of the key's rows, in their order."""
        rows = self.at.get(key, [])
        r, w = (self._column(c) for c in ("rcu_per_s", "wcu_per_s"))
        return [(self._patterns[i], float(r[i]), float(w[i])) for i in rows]

    def _column(self, column: str) -> np.ndarray:
        values = self._columns.get(column)
        if values is None:
            values = self._columns[column] = self.df[column].to_numpy(float)
        return values

    def total(self, key: tuple[str, str], column: str, where=None) -> float:
        """The sum of ``column`` over the key's rows (those whose pattern ``where`` accepts), as pandas sums."""
        rows = self.at.get(key)
        if rows is None:
            return 0.0
        if where is not None:
            rows = [r for r in rows if where(self._patterns[r])]
        return float(self._column(column)[rows].sum())


_Key = namedtuple("_Key", "pk items rcu_per_s wcu_per_s peak_rcu peak_wcu throttled_seconds mean_util peak_util")


def _split_case(spec: Spec, index: str, row: _Key, hot_first: dict, drivers_by: _ByKey,
                mono: dict) -> tuple[str, str]:
    """(case, sentence): why the key can or cannot get more than one partition's throughput. ``hot_first``:
    (index, pk) -> the key's hottest item; ``drivers_by``: (index, pk) -> its rows of the drivers."""
    pk = row.pk
    item = hot_first.get((index, pk))
    if item is not None:
        if item.rcu_per_s > PARTITION_RCU or item.wcu_per_s > PARTITION_WCU:
            return "item", (f"one item, {item.item!r}, alone takes {number(item.rcu_per_s, None)} RCU/s and "
                            f"{number(item.wcu_per_s, None)} WCU/s: a single item never gets more than "
                            f"{PARTITION_RCU:,} RCU/s or {PARTITION_WCU:,} WCU/s, so no split can help")
    floor = drivers_by.total((index, pk), "floor_rcu_per_s")
    if floor > PARTITION_RCU:
        return "calls", (f"its read calls alone cost {number(floor, None)} RCU/s at the minimum charge per call, "
                         "which every partition a call touches pays, so no split by sort-key range can bring it under "
                         f"{PARTITION_RCU:,}")
    if index == "table" and any(i.type == "local" for i in spec.table.indexes.values()):
        return "lsi", "the table has an LSI, so adaptive capacity cannot split this item collection"
    writes_bound = row.wcu_per_s / PARTITION_WCU >= row.rcu_per_s / PARTITION_RCU
    mono_w = drivers_by.total((index, pk), "wcu_per_s", lambda name: (name, index) in mono)
    if writes_bound and mono_w >= 0.5 * row.wcu_per_s > 0:
        return "monotonic", ("its writes follow an ever-growing sort key, so a split by sort-key range would leave "
                             "every new write on the last range")
    return "split", ("adaptive capacity can split this collection by sort-key range, but only after sustained "
                     "throttling, and never below its hottest item")


_CASES = {"item": "one item over the limit: no split helps", "calls": "too many calls: no split helps", "lsi": "LSI: the collection cannot split",
          "monotonic": "growing sort key: a split does not help", "split": "adaptive capacity can split it"}
_HINTS = {
    "calls": "cut the calls to this key: cache the result, page less often, or spread the key (shard suffix) so "
             "the calls go to several keys",
    "item": "spread the hot item: cache it (DAX or an application cache) for reads, read it eventually consistent "
            "(half the units), or write-shard it (copies under KEY#0..KEY#9 read and merged by the caller)",
    "lsi": "drop the LSI (a GSI has no item-collection limit and lets the collection split), or shard the key",
    "monotonic": "add a shard suffix to the partition key (KEY#{n % 10}) or lead the sort key with something that "
                 "spreads (a hash bucket) so writes land on several ranges",
    "split": "spread the key (shard suffix, or a finer partition key) before relying on adaptive capacity",
}


def throttle_findings(spec: Spec, partitions: pd.DataFrame, timeline: pd.DataFrame, hot: pd.DataFrame,
                      drivers: pd.DataFrame, seconds: int, peaks: pd.DataFrame | None = None) -> list[Finding]:
    """HOT-PARTITION (table keys) and HOT-INDEX-PARTITION (GSI keys), one finding per index and severity.
    ``peaks``: :func:`per_key_peaks` of the timeline when the caller has it already.

    The keys that can be flagged (at half a limit on average, or throttled in a second) are picked from
    the columns first; only they are walked in Python (a slider redraws this many times a second)."""
    peaks = per_key_peaks(timeline) if peaks is None else peaks
    peak_of = dict(zip(zip(peaks["index"].tolist(), peaks["pk"].tolist()),
                       zip(*(peaks[c].tolist() for c in ("peak_rcu", "peak_wcu", "throttled_seconds")))))
    codes, names = pd.factorize(partitions["index"].to_numpy(object))       # indexes in order of appearance
    pks, items = partitions["pk"].to_numpy(object), partitions["items"].to_numpy()
    rcu, wcu = partitions["rcu_per_s"].to_numpy(float), partitions["wcu_per_s"].to_numpy(float)
    mean_util = np.maximum(rcu / PARTITION_RCU, wcu / PARTITION_WCU)
    throttled = [key for key, (_, _, n) in peak_of.items() if n > 0]
    least = min(WARN_FRACTION, FEW_KEYS_FRACTION)              # the lowest load any index is flagged at
    maybe = mean_util >= least
    if throttled:
        maybe |= np.isin(pks, [pk for _, pk in throttled])
    cand: dict[int, list[_Key]] = {}
    for pos in np.flatnonzero(maybe).tolist():
        index, pk = names[codes[pos]], pks[pos]
        pr, pw, n = peak_of.get((index, pk), (0.0, 0.0, 0))
        if mean_util[pos] >= least or n > 0:                    # (a throttled pk of another index: not)
            cand.setdefault(codes[pos], []).append(
                _Key(pk, items[pos], rcu[pos], wcu[pos], pr, pw, n, mean_util[pos],
                     max(pr / PARTITION_RCU, pw / PARTITION_WCU)))
    if not cand:
        return []
    mono = monotonic_patterns(spec)
    wanted = {(names[c], k.pk) for c, keys in cand.items() for k in keys}
    first, hot_pks = {}, hot["pk"].to_numpy(object)
    near = np.flatnonzero(np.isin(hot_pks, list({pk for _, pk in wanted})))       # hot is hottest first
    for pos, key in zip(near.tolist(), zip(hot["index"].to_numpy(object)[near].tolist(), hot_pks[near].tolist())):
        if key in wanted and key not in first:
            first[key] = pos
    hot_first = dict(zip(first, hot.iloc[list(first.values())].itertuples(index=False)))
    drivers_by = _ByKey(drivers)
    counts = np.bincount(codes, minlength=len(names))
    out = []
    for c in sorted(cand):                            # the indexes in order of first appearance
        index = names[c]
        few = index != "table" and counts[c] <= FEW_KEYS
        warn = FEW_KEYS_FRACTION if few else WARN_FRACTION
        flagged = sorted((k for k in cand[c] if k.mean_util >= warn or k.throttled_seconds > 0),
                         key=lambda k: (-k.mean_util, -k.peak_util))
        if not flagged:
            continue
        rows = [(r, *_split_case(spec, index, r, hot_first, drivers_by, mono)) for r in flagged]
        # the severity rises with the overload: over a limit is an error when no split helps, and past
        # ERROR_OVERLOAD times a limit whatever adaptive capacity might do (a split takes sustained throttling)
        errors = [x for x in rows if x[0].mean_util > ERROR_OVERLOAD or (x[0].mean_util > 1 and x[1] != "split")]
        warnings = [x for x in rows if x not in errors]
        group = (int(counts[c]), int(items[codes == c].sum()) if few else 0)
        for sev, chosen in (("error", errors), ("warning", warnings)):
            if chosen:
                out.append(_hot_finding(spec, index, sev, chosen, group, drivers_by, seconds, few))
    return out


def _hot_finding(spec: Spec, index: str, severity: str, rows: list, group: tuple[int, int], drivers_by: _ByKey,
                 seconds: int, few: bool) -> Finding:
    """One finding for the ``rows`` (key, case, sentence) of an index, the first the hottest; ``group``: the
    index's partition keys and their items."""
    r, case, why = rows[0]
    d = drivers_by.drivers((index, r.pk))
    top_pattern = d[0][0] if d else ""
    what = "table" if index == "table" else f"index {index}"
    over = ": over the limit" if r.mean_util > 1 else ": near the limit" if r.mean_util >= WARN_FRACTION else ""
    msg = (f"{what} partition key {r.pk!r} takes {number(r.rcu_per_s, None)} RCU/s and "
           f"{number(r.wcu_per_s, None)} WCU/s on average ({_load_text(r.rcu_per_s, r.wcu_per_s)}{over}), "
           f"peaking at {number(r.peak_rcu, None)} RCU / {number(r.peak_wcu, None)} WCU in one second; throttled in "
           f"{int(r.throttled_seconds)} of {seconds} seconds. Driven by {_drivers_text(d)}. {why[0].upper() + why[1:]}.")
    if len(rows) > 1:
        msg += f" {len(rows) - 1} more key(s) of this {what} too (see evidence)."
    if few:
        keys, entries = group
        msg += (f" The index has only {keys} partition key value(s); {r.pk!r} holds {r.items / max(entries, 1):.0%} "
                f"of its {entries:,} entries, so this load cannot spread over more keys.")
    evidence = [f"{x.pk}: {number(x.rcu_per_s, None)} RCU/s, {number(x.wcu_per_s, None)} WCU/s, "
                f"peak {number(x.peak_rcu, None)} RCU / {number(x.peak_wcu, None)} WCU, "
                f"{int(x.throttled_seconds)}/{seconds} s throttled, {x.items:,} items; "
                f"{_CASES[c]}"
                for x, c, _ in rows[:EVIDENCE]]
    if index == "table":
        rule, where = RULES["HOT-PARTITION"], _pattern_where(spec, top_pattern)
        hint = _HINTS[case]
    else:
        rule, where = RULES["HOT-INDEX-PARTITION"], f"table.indexes.{index}"
        hint = (_HINTS[case] + "; for a low-cardinality index key (a status), add a shard suffix "
                "(STATUS#open#{n % 10}) and query the shards in parallel, or make the index sparse; a throttled GSI "
                "also throttles the table's writes")
    return rule.finding(where, msg, hint=hint, evidence=evidence, severity=severity)


def _load_text(rcu_per_s: float, wcu_per_s: float) -> str:
    """The load against the limit it is closest to, in plain words: ``40x the partition's 1,000 WCU/s``
    over it, ``85% of the partition's 3,000 RCU/s`` under it."""
    r, w = rcu_per_s / PARTITION_RCU, wcu_per_s / PARTITION_WCU
    util, limit = (w, f"{PARTITION_WCU:,} WCU/s") if w >= r else (r, f"{PARTITION_RCU:,} RCU/s")
    if util < 1:
        return f"{util:.0%} of the partition's {limit}"
    times = number(float(util), 0 if util >= 10 else 1)
    return f"{times}x the partition's {limit}"


def _drivers_text(d: list[tuple[str, float, float]]) -> str:
    """The (at most) three patterns that load the key most, by RCU + 3 x WCU (ties: in their order)."""
    if not d:
        return "no modelled pattern"
    top = sorted(d, key=lambda x: -(x[1] + 3 * x[2]))[:3]
    return ", ".join(f"{name} ({number(r, None)} RCU/s, {number(w, None)} WCU/s)" for name, r, w in top)


def monotonic_findings(spec: Spec, drivers_peak: pd.DataFrame) -> list[Finding]:
    """MONOTONIC-WRITES: a write pattern adding time-ordered sort keys at >= 50% of 1,000 WCU/s on one key.

    ``drivers_peak``: per (pattern, index) the hottest partition key and its WCU/s from that pattern."""
    out, first = [], {}
    for r in drivers_peak.itertuples(index=False):               # a row per (pattern, index): a few
        first.setdefault((r.pattern, r.index), r)
    for (name, index), placeholder in monotonic_patterns(spec).items():
        r = first.get((name, index))
        if r is None or r.wcu_per_s < MONOTONIC_FRACTION * PARTITION_WCU:
            continue
        p = spec.pattern(name)
        entity = p.entities[0]
        sk_attr = spec.key_attributes(index)[1]
        where = f"entities.{entity}.key.{sk_attr}"
        msg = (f"{name} writes {entity} items whose {sk_attr} ends in {{{placeholder}}}, which only grows, at "
               f"{number(r.wcu_per_s, None)} WCU/s on {'table' if index == 'table' else index} key {r.pk!r} "
               f"({r.wcu_per_s / PARTITION_WCU:.0%} of {PARTITION_WCU:,}): every new item lands at the end of the "
               "key's range, so adaptive capacity cannot split the writes over partitions")
        out.append(RULES["MONOTONIC-WRITES"].finding(
            where, msg, hint=_HINTS["monotonic"], evidence=[f"{r.pk}: {number(r.wcu_per_s, None)} WCU/s from {name}"]))
    return out


def transaction_findings(spec: Spec, items: pd.DataFrame, rates: Mapping[str, float] | None = None) -> list[Finding]:
    """TRANSACTION-HOT-ITEM: per transaction pattern, the items its calls reach at least
    :data:`~blue_nb.rules.heat_rules.TRANSACTION_ITEM_RATE` times a second (``items``:
    :meth:`~blue_nb.heat.model.HeatModel.transaction_items`); ``rates``: the calls/s per pattern when they are
    not the spec's (the sliders')."""
    out = []
    hot = items[items["calls_per_s"] >= TRANSACTION_ITEM_RATE]
    for name, rows in hot.groupby("pattern", sort=False):
        i = next(k for k, p in enumerate(spec.access_patterns) if p.name == name)
        top = rows.iloc[0]
        p = spec.access_patterns[i]
        rate = (rates or {}).get(name, p.rate_per_second)
        share = top.calls_per_s / rate if rate else 1.0
        out.append(RULES["TRANSACTION-HOT-ITEM"].finding(
            f"access_patterns[{i}].actions",
            f"{number(top.calls_per_s, trim=True)} of {name}'s {number(rate, trim=True)} transactions a second "
            f"({share:.0%}) touch item {top['item']!r} ({len(rows)} item(s) at >= {TRANSACTION_ITEM_RATE}/s): "
            "transactions on one item at once conflict, and DynamoDB cancels them (TransactionConflict)",
            hint="keep the shared item out of the transaction (update it on its own after the transaction, or "
                 "count with ADD in a separate call), or spread it over several items (a counter split into "
                 "shards: COUNTER#{n} with n drawn at random, summed when read)",
            evidence=[f"{r['item']}: {number(r.calls_per_s, trim=True)} transactions/s" for _, r in rows.head(EVIDENCE).iterrows()]))
    return out


def table_capacity(spec: Spec, timeline: pd.DataFrame, seconds: int) -> tuple[dict, list[Finding]]:
    """The table's total units per second against its billing mode. For a provisioned table, a
    burst bucket (300 s of the provisioned rate, full at the start) absorbs seconds over the
    provisioned rate and refills with the unused capacity; only the table as a whole is modelled."""
    tl = timeline[timeline["index"] == "table"].groupby("second")[["rcu", "wcu"]].sum()
    tl = tl.reindex(range(seconds), fill_value=0.0)
    return table_capacity_of(spec, tl["rcu"].to_numpy(float), tl["wcu"].to_numpy(float))


def table_capacity_of(spec: Spec, rcu: np.ndarray, wcu: np.ndarray) -> tuple[dict, list[Finding]]:
    """:func:`table_capacity` of the table's units in each second (``rcu[s]``, ``wcu[s]``)."""
    t, seconds, tl = spec.table, len(rcu), {"rcu": rcu, "wcu": wcu}
    info = {"billing_mode": t.billing_mode, "mean_rcu_per_s": float(rcu.mean()) if seconds else 0.0,
            "mean_wcu_per_s": float(wcu.mean()) if seconds else 0.0,
            "peak_rcu": float(rcu.max()) if seconds else 0.0, "peak_wcu": float(wcu.max()) if seconds else 0.0}
    if t.billing_mode != "PROVISIONED":
        info["note"] = ("on demand: a new table serves 12,000 read and 4,000 write request units/s at first, then "
                        "2x its previous peak; the per-partition limits hold regardless")
        return info, []
    out = []
    for kind, cap in (("rcu", t.read_capacity), ("wcu", t.write_capacity)):
        if not cap:
            continue
        bucket, throttled, first = BURST_SECONDS * cap, 0, None
        for s, used in enumerate(tl[kind].tolist()):
            bucket = min(bucket + cap - used, BURST_SECONDS * cap)
            if bucket < 0:
                throttled, bucket, first = throttled + 1, 0.0, first if first is not None else s
        mean = info[f"mean_{kind}_per_s"]
        lasts = BURST_SECONDS * cap / (mean - cap) if mean > cap else None
        info[kind] = {"provisioned": cap, "throttled_seconds": throttled, "burst_lasts_s": lasts}
        if mean > cap or throttled:
            sev = "error"
        elif info[f"peak_{kind}"] > cap:
            sev = "warning"
        else:
            continue
        unit = kind.upper()
        msg = (f"the table uses {number(mean, None)} {unit}/s on average (peak {number(info[f'peak_{kind}'], None)}) "
               f"against {cap:,} provisioned: burst capacity ({BURST_SECONDS} s of unused capacity) "
               + (f"runs out after about {lasts:,.0f} s of this load" if lasts else "covers the peaks")
               + f"; {throttled} of {seconds} simulated seconds throttle. Burst never lifts the per-partition limits.")
        out.append(RULES["TABLE-CAPACITY"].finding(f"table.{'read' if kind == 'rcu' else 'write'}_capacity", msg,
                                                   severity=sev, hint="raise the provisioned capacity, use "
                                                   "auto scaling, or switch to PAY_PER_REQUEST"))
    return info, out

