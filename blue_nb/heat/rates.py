"""The heat model for other rates and skews: :class:`RateModel`, re-evaluated in milliseconds.

:class:`RateModel` is built once from a computed :class:`~blue_nb.heat.model.HeatModel`: its
candidates with their weight inputs (data count, rank and size of the request key's group), the
units one call of each puts on every partition (``effects``) and on every item (``hits``),
fetched once into numpy arrays. :meth:`RateModel.evaluate` then takes new ``rates`` (calls/s per
pattern) and ``skews`` (the Zipf exponent s per pattern) and recomputes with ``bincount``, never
a Python loop over candidates:

* the weights of :mod:`.workload`: uniform ``1/G/k``, sample ``n/total``, zipf
  ``rank^-s / Σ rank^-s × n/gn``. A skew ``s > 0`` makes a pattern ``zipf:s`` whatever its spec
  distribution; ``s = 0`` makes it ``uniform``;
* ``partitions`` (the :class:`~blue_nb.heat.result.HeatReport` contract), counted by the functions of
  :mod:`.load` that :func:`~blue_nb.heat.partition_heat` counts with, so the same rates and
  distributions give the report's numbers and pattern lists;
* the seconds: ``seconds`` seconds of calls drawn with ``seed`` by the per-second model of
  :mod:`.seconds`, the one :func:`~blue_nb.heat.partition_heat` draws with, so the same rates and
  distributions give the report's seconds (peaks, throttled seconds, table capacity). The
  ``timeline`` holds the report's rows of the keys that matter: every key that can be flagged (at
  half a limit on average, or over one in a second) and, per index, the hottest key (by RCU and by
  WCU) of each of ``rows`` contiguous key ranges (``key_ranges``: the first key of each) - what
  :func:`blue_nb.plots.key_heatmap` colours a range by;
* the findings that depend on the rates, from :mod:`.throttle`'s own functions: HOT-PARTITION,
  HOT-INDEX-PARTITION, MONOTONIC-WRITES and TABLE-CAPACITY; the size findings (PARTITION-SIZE,
  ITEM-SIZE-NEAR-LIMIT) of the base run are kept, since no rate changes them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Collection, Mapping

import numpy as np
import pandas as pd

from blue_nb.errors import QueryError
from blue_nb.heat.model import PARTITION_COLUMNS, TIMELINE_COLUMNS, HeatModel
from blue_nb.heat.load import Ranked, hot_items, load_by_pattern, ranked, size_order, warm_keys
from blue_nb.printing import fields_html, number
from blue_nb.heat.result import hottest_text
from blue_nb.spec import MAX_RATE
from blue_nb.heat.seconds import CallUnits, DrawMemo, draw_parts
from blue_nb.heat.throttle import (FEW_KEYS, FEW_KEYS_FRACTION, monotonic_findings, monotonic_patterns, peaks_of,
                                   table_capacity_of, throttle_findings, transaction_findings)
from blue_nb.heat.workload import parse_distribution
from blue_nb.rules import RULES, Finding, Findings
from blue_nb.rules.heat_rules import TRANSACTION_ITEM_RATE
from blue_nb.sizing import PARTITION_RCU, PARTITION_WCU
from blue_nb.spec import Spec

__all__ = ["RateModel", "RateResult", "STATIC_RULES"]

STATIC_RULES = ("PARTITION-SIZE", "ITEM-SIZE-NEAR-LIMIT")   # findings no rate changes
_SHIFT = 40                                                  # (pid << 40) | cid identifies a candidate


@dataclass
class RateResult:
    """One evaluation: the settings (``rates``, ``distributions`` per pattern), the frames of the
    HeatReport contracts (``partitions``, ``timeline`` and ``drivers`` of the keys that can be flagged,
    ``hot_items`` as the report's), the ``findings``, ``table`` (billing mode, totals), and
    ``key_ranges``: a heat map given them draws a row per range, which stays put while the rates move."""

    rates: dict[str, float]
    distributions: dict[str, str]
    seconds: int
    partitions: pd.DataFrame
    timeline: pd.DataFrame
    findings: Findings
    hot_items: pd.DataFrame
    drivers: pd.DataFrame
    table: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    key_ranges: dict[str, list[str]] = field(default_factory=dict)   # index -> first key of each range of keys

    def __repr__(self) -> str:
        hottest = hottest_text(self.partitions)
        return (f"RateResult({len(self.partitions):,} partitions, hottest {hottest}; {self.findings.summary()}; "
                f"{self.elapsed_ms:,.1f} ms)")

    def _repr_html_(self) -> str:
        rates = {name: f"{number(rate, significant=3)} calls/s ({self.distributions.get(name, '')})"
                 for name, rate in self.rates.items()}
        return fields_html({"partition keys": len(self.partitions), "hottest": hottest_text(self.partitions),
                            "findings": self.findings.summary(), **rates}, "Heat at these rates")


def _key(pid, cid) -> np.ndarray:
    return (np.asarray(pid, dtype=np.int64) << _SHIFT) | np.asarray(cid, dtype=np.int64)


def _sorted_by(codes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(order that sorts ``codes``, offsets of each code 0..n-1 in that order)."""
    order = np.argsort(codes, kind="stable")
    return order, np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n))])


def _slices(offsets: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """The positions of every row of the partitions ``parts`` in arrays sorted by partition."""
    if not len(parts):
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.arange(offsets[p], offsets[p + 1]) for p in parts])


class RateModel:
    """The heat model of one spec as arrays; :meth:`evaluate` re-prices it for new rates and skews.

    ``patterns`` (the modelled patterns: those with a rate, in spec order), ``indexes`` ("table" and
    each GSI with keys), ``base_rates`` and ``base_distributions`` (the spec's), ``seconds`` and
    ``seed`` of the timeline, ``rows`` (key ranges drawn per index, as the heat map's ``max_rows``)."""

    def __init__(self, spec: Spec, frames: Mapping[str, pd.DataFrame], partitions: pd.DataFrame, *,
                 names: Mapping[int, str], rates: Mapping[int, float], seconds: int, seed: int,
                 findings: list[Finding] | tuple = (), rows: int = 200, transactional: Collection[int] = ()):
        self.spec, self.seconds, self.seed, self.rows = spec, int(seconds), int(seed), int(rows)
        pids = sorted(names)
        self._names = [names[p] for p in pids]       # per priced pid: a transaction or a batch has one per action
        modelled = set(self._names)
        self.patterns = [p.name for p in spec.access_patterns if p.name in modelled]
        self._colnames = sorted(modelled)             # a pattern's column in the per-key arrays: by name
        self.base_rates = {names[p]: float(rates[p]) for p in pids}
        self.base_distributions = {names[p]: parse_distribution(spec.pattern(names[p]).key_distribution)
                                   for p in pids}
        self.static_findings = [f for f in findings if f.rule in STATIC_RULES]
        self._candidates(frames["candidates"], pids)
        self._partitions(partitions, frames["effects"])
        self._effects(frames["effects"])
        self._hits(frames["hits"])
        self._transactions({k for k, pid in enumerate(pids) if pid in set(transactional)})
        self._wcache: dict[int, tuple[tuple[str, float], np.ndarray]] = {}

    @classmethod
    def from_model(cls, model: HeatModel, partitions: pd.DataFrame, *, seconds: int, seed: int,
                   findings: list[Finding] | tuple = (), rows: int = 200) -> "RateModel":
        """From a model whose patterns are priced (``add_model_patterns``) and its ``partitions()`` frame."""
        return cls(model.spec, model.rate_frames(), partitions, names=model.names, rates=model.rates,
                   seconds=seconds, seed=seed, findings=findings, rows=rows, transactional=model.costs.transactional)

    @property
    def counts(self) -> dict[str, int]:
        """The size of the arrays: patterns, candidates, effects (units per call and partition), hits, partitions."""
        return {"patterns": len(self.patterns), "candidates": len(self._ckey), "effects": len(self._ecand),
                "hits": len(self._hcand), "partitions": len(self._pk)}

    # -- building (once) ---------------------------------------------------------------------
    def _candidates(self, c: pd.DataFrame, pids: list[int]) -> None:
        kcode = {pid: k for k, pid in enumerate(pids)}
        c = c[c["pid"].isin(kcode)].sort_values(["pid", "cid"], kind="stable")
        self._ckey = _key(c["pid"], c["cid"])
        self._pat = c["pid"].map(kcode).to_numpy(np.int64)
        self._n, self._grank, self._gn, self._gk = (c[x].to_numpy(float) for x in ("n", "grank", "gn", "gk"))
        self._start = np.searchsorted(self._pat, np.arange(len(pids) + 1))
        k = np.arange(len(pids))
        self._ng = np.array([self._grank[a:b].max() if b > a else 0.0 for a, b in zip(self._start[k], self._start[k + 1])])
        self._tot = np.bincount(self._pat, self._n, minlength=len(pids))
        self._scan = np.array([self.spec.pattern(n).operation == "scan" for n in self._names], dtype=bool)
        self._col = np.array([self._colnames.index(n) for n in self._names], dtype=np.int64)   # pid -> its column

    def _partitions(self, parts: pd.DataFrame, effects: pd.DataFrame) -> None:
        base = parts[["index", "pk", "items", "bytes"]]
        keys = pd.MultiIndex.from_frame(base[["index", "pk"]])
        extra = effects[["idx", "pk"]].drop_duplicates()
        extra = extra[~pd.MultiIndex.from_frame(extra).isin(keys)]
        if len(extra):
            base = pd.concat([base, pd.DataFrame({"index": extra["idx"], "pk": extra["pk"], "items": 0, "bytes": 0})])
        order = ["table", *self.spec.table.indexes]
        names = sorted(set(base["index"]), key=lambda i: (order.index(i) if i in order else len(order), i))
        base = base.assign(_i=base["index"].map({n: i for i, n in enumerate(names)})).sort_values(["_i", "pk"])
        self.indexes = names
        self._idx = base["_i"].to_numpy(np.int64)
        self._istart = np.searchsorted(self._idx, np.arange(len(names) + 1))
        self._idx_name = base["index"].to_numpy(object)
        self._pk = base["pk"].to_numpy(object)
        self._items, self._bytes = base["items"].to_numpy(np.int64), base["bytes"].to_numpy(np.int64)
        self._keys = pd.MultiIndex.from_arrays([self._idx_name, self._pk])
        self._idx_arr, self._pk_arr = (pd.Series(x).array for x in (self._idx_name, self._pk))   # pandas' own strings
        alpha = np.argsort(np.argsort(np.array(names, dtype=object)))       # ORDER BY ..., idx, pk
        self._tiebreak = size_order(self._bytes, alpha[self._idx])
        self._key_rank = np.argsort(np.lexsort((np.arange(len(self._idx)), alpha[self._idx])))  # by index name, pk

    def _codes(self, f: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        cand = np.searchsorted(self._ckey, _key(f["pid"], f["cid"]))
        cand = np.minimum(cand, max(len(self._ckey) - 1, 0))
        known = (self._ckey[cand] == _key(f["pid"], f["cid"])) if len(self._ckey) else np.zeros(len(f), bool)
        part = self._keys.get_indexer(pd.MultiIndex.from_arrays([f["idx"].to_numpy(object), f["pk"].to_numpy(object)]))
        return cand, np.where(known & (part >= 0), part, -1)

    def _effects(self, e: pd.DataFrame) -> None:
        cand, part = self._codes(e)
        keep = part >= 0
        order, self._eoff = _sorted_by(part[keep], len(self._pk))
        self._ecand, self._epart = cand[keep][order], part[keep][order]
        self._ercu, self._ewcu, self._efloor = (e[x].to_numpy(float)[keep][order] for x in ("rcu", "wcu", "floor"))
        self._units = {}
        for unit, v in (("rcu", self._ercu), ("wcu", self._ewcu)):
            at = np.flatnonzero(v > 0)                                            # reads and writes apart: half the work
            pat = self._pat[self._ecand[at]]
            by_pattern = np.argsort(pat, kind="stable")          # a slider's change recounts its pattern's slice
            at, off = at[by_pattern], np.searchsorted(pat[by_pattern], np.arange(len(self._names) + 1))
            self._units[unit] = (self._ecand[at], self._epart[at], v[at], off)
        self._ucache: dict[tuple[str, int], tuple] = {}
        self._draws = DrawMemo()                                    # each pattern's last per-second draw
        self._per_call = CallUnits(self._ecand, self._epart, self._ercu, self._ewcu, len(self._pk))

    def _hits(self, h: pd.DataFrame) -> None:
        """The hits by partition, then item, each item's rows pattern by pattern (by name): what
        :func:`~blue_nb.heat.load.hot_items` sums, in the order it sums them."""
        cand, part = self._codes(h)
        keep = part >= 0
        cand, part = cand[keep], part[keep]
        codes, self._item_labels = pd.factorize(h["item"].to_numpy(object)[keep])
        order = np.lexsort((cand, self._col[self._pat[cand]], codes, part))
        self._hoff = np.concatenate([[0], np.cumsum(np.bincount(part, minlength=len(self._pk)))])
        self._hcand, self._hitem = cand[order], codes[order].astype(np.int64)
        self._item_rank = np.argsort(np.argsort(np.asarray(self._item_labels, dtype=object), kind="stable"))
        self._hrcu, self._hwcu = (h[x].to_numpy(float)[keep][order] for x in ("rcu", "wcu"))

    def _transactions(self, actions: set[int]) -> None:
        """The table hits of a transaction's actions (``actions``: their positions among the pids), grouped by
        (pattern, item) as :meth:`~blue_nb.heat.model.HeatModel.transaction_items` groups them."""
        part = np.repeat(np.arange(len(self._pk)), np.diff(self._hoff))
        at = np.flatnonzero(np.isin(self._pat[self._hcand], list(actions)) & (self._idx[part] == 0))
        keys = np.stack([self._col[self._pat[self._hcand[at]]], part[at], self._hitem[at]], axis=1)
        self._tx_keys, code = np.unique(keys, axis=0, return_inverse=True)
        self._tx_cand, self._tx_code = self._hcand[at], np.asarray(code, np.int64).ravel()

    def _transaction_items(self, calls: np.ndarray) -> pd.DataFrame:
        """pattern, item, calls_per_s of the items a transaction touches at least
        :data:`~blue_nb.rules.heat_rules.TRANSACTION_ITEM_RATE` times a second, most first (the report's rows that
        :func:`~blue_nb.heat.throttle.transaction_findings` counts)."""
        c = np.bincount(self._tx_code, calls[self._tx_cand], len(self._tx_keys))
        hot = np.flatnonzero(c >= TRANSACTION_ITEM_RATE)
        col, part, item = (self._tx_keys[hot, k] for k in range(3))
        out = pd.DataFrame({"pattern": [self._colnames[k] for k in col],
                            "item": [f"{self._pk[p]} / {self._item_labels[i]}" for p, i in zip(part, item)],
                            "calls_per_s": c[hot]}, columns=["pattern", "item", "calls_per_s"])
        return out.assign(_c=-out["calls_per_s"]).sort_values(["_c", "pattern", "item"], kind="stable") \
            .drop(columns="_c").reset_index(drop=True)

    # -- settings ----------------------------------------------------------------------------
    def distribution(self, name: str, skew: float | None = None) -> tuple[str, float]:
        """The distribution of a pattern under ``skew`` (None: its spec's)."""
        if skew is None:
            return self.base_distributions[name]
        s = float(skew)
        if not np.isfinite(s) or s < 0:
            raise QueryError(f"skew of {name} must be a number >= 0, got {skew!r}", where="rate model skews",
                             hint="s = 0 is uniform; s = 1.2 is zipf:1.2")
        return ("zipf", s) if s > 0 else ("uniform", 0.0)

    def _settings(self, rates: Mapping[str, float] | None, skews: Mapping[str, float | None] | None):
        rates, skews = dict(rates or {}), dict(skews or {})
        unknown = sorted((set(rates) | set(skews)) - set(self.patterns))
        if unknown:
            raise QueryError(f"no modelled pattern {', '.join(unknown)}", where="rate model",
                             hint=f"the patterns with a rate are {', '.join(self.patterns)}")
        r = np.array([float(rates.get(n, self.base_rates[n])) for n in self._names])
        bad = [n for n, x in zip(self._names, r) if not np.isfinite(x) or x < 0 or x > MAX_RATE]
        if bad:
            raise QueryError(f"rate of {bad[0]} must be a number of calls/s from 0 to {MAX_RATE:,}, got "
                             f"{rates.get(bad[0], self.base_rates[bad[0]])!r}", where="rate model rates",
                             hint="give calls per second")
        return r, [self.distribution(n, skews.get(n)) for n in self._names]

    def _weights(self, kinds: list[tuple[str, float]]) -> np.ndarray:
        blocks = []
        for k, kind in enumerate(kinds):
            hit = self._wcache.get(k)
            if hit is None or hit[0] != kind:
                hit = (kind, self._pattern_weights(k, *kind))
                self._wcache[k] = hit
            blocks.append(hit[1])
        return np.concatenate(blocks) if blocks else np.zeros(0)

    def _pattern_weights(self, k: int, kind: str, s: float) -> np.ndarray:
        """The weights of :func:`blue_nb.heat.workload.build_candidates`, for one pattern."""
        a, b = self._start[k], self._start[k + 1]
        if self._scan[k]:
            return np.ones(b - a)
        if kind == "uniform":
            return 1.0 / self._ng[k] / self._gk[a:b]
        if kind == "sample":
            return self._n[a:b] / self._tot[k]
        zsum = np.sum(np.arange(1, self._ng[k] + 1, dtype=float) ** -s)
        return self._grank[a:b] ** -s / zsum * self._n[a:b] / self._gn[a:b]

    # -- evaluation --------------------------------------------------------------------------
    def evaluate(self, rates: Mapping[str, float] | None = None,
                 skews: Mapping[str, float | None] | None = None) -> RateResult:
        """Partitions, timeline and findings for ``rates`` (calls/s) and ``skews`` (Zipf s) per pattern
        name: a skew s > 0 makes the pattern zipf:s, 0 uniform; a pattern left out (or a skew of None)
        keeps its spec's rate and distribution. ``partitions`` follows the HeatReport contract; its
        ``patterns`` column is categorical (a few distinct lists over many keys)."""
        t0 = time.perf_counter()
        r, kinds = self._settings(rates, skews)
        weights = self._weights(kinds)
        calls = np.repeat(r, np.diff(self._start)) * weights                  # candidates: by pattern
        n, k = len(self._pk), len(self._colnames)
        m = {}
        for unit in self._units:
            m[unit] = np.zeros((k, n))                                         # units/s per (pattern by name, key)
            for j in range(len(self._names)):                                  # a transaction's actions: one column
                m[unit][self._col[j]] += self._unit_rows(unit, j, (r[j], kinds[j]), calls)
        rk = ranked(m["rcu"], m["wcu"], self._colnames, self._tiebreak)
        rcu, wcu, ctu, order, codes, texts = rk.rcu, rk.wcu, rk.ctu, rk.order, rk.codes, rk.texts
        mean = {"rcu": rcu, "wcu": wcu}
        partitions = pd.DataFrame({"index": self._idx_arr.take(order), "pk": self._pk_arr.take(order),
                                   "items": self._items[order], "bytes": self._bytes[order], "rcu_per_s": rcu[order],
                                   "wcu_per_s": wcu[order], "consumed_throughput_units": ctu[order],
                                   "patterns": pd.Categorical.from_codes(codes[order], texts)}, columns=PARTITION_COLUMNS)
        ranges, picked = self._key_ranges(rcu, wcu)
        second, part, units = self._seconds(r, weights, kinds)
        over = (units["rcu"] > PARTITION_RCU) | (units["wcu"] > PARTITION_WCU)
        util = np.maximum(rcu / PARTITION_RCU, wcu / PARTITION_WCU)
        flag = np.union1d(np.flatnonzero(util >= FEW_KEYS_FRACTION), part[over]).astype(np.int64)
        shown = np.isin(part, np.union1d(flag, picked))
        timeline = pd.DataFrame({"second": second[shown].astype(np.int64), "index": self._idx_arr.take(part[shown]),
                                 "pk": self._pk_arr.take(part[shown]), "rcu": units["rcu"][shown],
                                 "wcu": units["wcu"][shown]}, columns=TIMELINE_COLUMNS)
        hot = self._hot_items(rk, calls)
        found, drivers = self._findings(timeline, part[shown], flag, util, mean, m, calls, hot,
                                        dict(zip(self._names, r.tolist())))
        table, capacity = self._table(second, part, units)
        found += capacity + self.static_findings
        findings = Findings(found, spec=self.spec.source_path or self.spec.domain,
                            items_checked=int(self._items[self._idx == 0].sum()), rule_order=list(RULES))
        return RateResult(rates=dict(zip(self._names, r.tolist())),
                            distributions={n: kind if kind != "zipf" else f"zipf:{s:g}"
                                           for n, (kind, s) in zip(self._names, kinds)},
                            seconds=self.seconds, partitions=partitions, timeline=timeline, findings=findings,
                            hot_items=hot, drivers=drivers, table=table, elapsed_ms=(time.perf_counter() - t0) * 1000,
                            key_ranges=ranges)

    def _unit_rows(self, unit: str, j: int, setting: tuple, calls: np.ndarray) -> np.ndarray:
        """Pattern ``j``'s units/s per partition, counted again only when its rate or distribution
        (``setting``) changed since the last evaluation: a slider changes one pattern."""
        hit = self._ucache.get((unit, j))
        if hit is None or hit[0] != setting:
            cand, part, v, off = self._units[unit]
            a, b, n = off[j], off[j + 1], len(self._pk)
            hit = (setting, load_by_pattern(np.zeros(b - a, np.int64), part[a:b], calls[cand[a:b]], v[a:b], 1, n)[0])
            self._ucache[(unit, j)] = hit
        return hit[1]

    def _key_ranges(self, rcu: np.ndarray, wcu: np.ndarray) -> tuple[dict[str, list[str]], np.ndarray]:
        """Per index, the first key of each of ``rows`` contiguous ranges of the keys with traffic (key order); and
        the hottest key by RCU and by WCU of each range (what :func:`blue_nb.plots.key_heatmap` colours it by)."""
        ranges, picked = {}, []
        for name, a, b in zip(self.indexes, self._istart[:-1], self._istart[1:]):
            pos = a + np.flatnonzero((rcu[a:b] > 0) | (wcu[a:b] > 0))
            if not len(pos):
                continue
            bins = np.arange(len(pos)) * min(len(pos), self.rows) // len(pos)
            starts = np.flatnonzero(np.r_[True, bins[1:] != bins[:-1]])
            ranges[name] = self._pk[pos[starts]].tolist()
            for v in (rcu[pos], wcu[pos]):
                top = np.maximum.reduceat(v, starts)[bins]
                picked.append(pos[(v == top) & (v > 0)])
        return ranges, np.concatenate(picked) if picked else np.zeros(0, np.int64)

    def _seconds(self, rates: np.ndarray, weights: np.ndarray, kinds: list) -> tuple[np.ndarray, np.ndarray, dict]:
        """``seconds`` of calls at ``rates`` over the candidates ``weights`` (:mod:`.seconds`, as the report draws
        them; a pattern whose rate and distribution ``kinds`` did not move is not drawn again): the second,
        partition and units (``rcu``, ``wcu``) of every (second, partition) reached."""
        bounds = zip(self._start[:-1], self._start[1:])
        parts = draw_parts(rates.tolist(), [weights[a:b] for a, b in bounds], self.seconds, self.seed,
                           settings=kinds, memo=self._draws)
        second, part, r, w = self._per_call.per_second_of(parts, self._start[:-1].tolist())
        return second, part, {"rcu": r, "wcu": w}

    def _table(self, second: np.ndarray, part: np.ndarray, units: dict) -> tuple[dict, list[Finding]]:
        """The table's capacity against its billing mode, from its units in each second (every key's)."""
        on_table = self._idx[part] == 0 if self.indexes[:1] == ["table"] else np.zeros(len(part), dtype=bool)
        tr, tw = (np.bincount(second[on_table], units[u][on_table], self.seconds) for u in ("rcu", "wcu"))
        return table_capacity_of(self.spec, tr, tw)

    # -- findings ----------------------------------------------------------------------------
    def _findings(self, timeline: pd.DataFrame, rows: np.ndarray, flag: np.ndarray, util: np.ndarray, mean: dict,
                  m: dict, calls: np.ndarray, hot: pd.DataFrame, rates: Mapping[str, float]
                  ) -> tuple[list[Finding], pd.DataFrame]:
        """The findings on the keys that can be flagged (``flag``: at half a limit, or over one in a second), from
        the timeline's rows of them (``rows``: each row's partition), the hottest items ``hot`` and their drivers."""
        rcu, wcu = mean["rcu"], mean["wcu"]
        drivers = self._drivers(flag, m, calls)
        found = []
        if len(flag):           # throttle.py's own rules, on the keys it can flag (and enough of each index to count)
            keep = [flag] + [np.arange(a, b) if b - a <= FEW_KEYS
                             else a + np.argpartition(-util[a:b], FEW_KEYS)[: FEW_KEYS + 1]     # any FEW_KEYS + 1 count
                             for a, b in zip(self._istart[:-1], self._istart[1:])]
            keep = np.unique(np.concatenate(keep))
            parts = pd.DataFrame({"index": self._idx_name[keep], "pk": self._pk[keep], "items": self._items[keep],
                                  "bytes": self._bytes[keep], "rcu_per_s": rcu[keep], "wcu_per_s": wcu[keep]})
            found = throttle_findings(self.spec, parts, timeline, hot, drivers, self.seconds,
                                      peaks=peaks_of(timeline, rows, flag, self._idx_name, self._pk))
        found += monotonic_findings(self.spec, self._pattern_peaks(m))
        found += transaction_findings(self.spec, self._transaction_items(calls), rates)
        return found, drivers

    def _hot_items(self, load: Ranked, calls: np.ndarray) -> pd.DataFrame:
        """index, pk, item, rcu_per_s, wcu_per_s of the hottest items, as the report's
        (:func:`~blue_nb.heat.load.hot_items` of the :func:`~blue_nb.heat.load.warm_keys`)."""
        warm = warm_keys(load, np.diff(self._eoff) > 0, self._key_rank)
        at = _slices(self._hoff, warm)
        hot = hot_items(np.repeat(warm, np.diff(self._hoff)[warm]), self._hitem[at], calls[self._hcand[at]],
                        self._hrcu[at], self._hwcu[at], load, self._key_rank, self._item_rank)
        return pd.DataFrame({"index": self._idx_name[hot.part], "pk": self._pk[hot.part],
                             "item": np.asarray(self._item_labels, dtype=object)[hot.item], "rcu_per_s": hot.rcu,
                             "wcu_per_s": hot.wcu})

    def _drivers(self, flag: np.ndarray, m: dict, calls: np.ndarray) -> pd.DataFrame:
        """index, pk, pattern, rcu_per_s, wcu_per_s, floor_rcu_per_s of the flagged keys (as HeatModel.drivers)."""
        k = len(self._colnames)
        at = _slices(self._eoff, flag)
        cell = np.repeat(np.arange(len(flag)), np.diff(self._eoff)[flag]) * k + self._col[self._pat[self._ecand[at]]]
        floor = np.bincount(cell, calls[self._ecand[at]] * self._efloor[at], len(flag) * k).reshape(len(flag), k)
        i, j = np.nonzero(np.bincount(cell, minlength=len(flag) * k).reshape(len(flag), k))
        r, w = m["rcu"][:, flag].T, m["wcu"][:, flag].T                    # (flagged key, pattern by name)
        o = np.lexsort((-(3 * w[i, j] + r[i, j]), -(3 * w + r).sum(axis=1)[i]))
        i, j = i[o], j[o]
        return pd.DataFrame({"index": self._idx_name[flag[i]], "pk": self._pk[flag[i]],
                             "pattern": np.array(self._colnames, dtype=object)[j], "rcu_per_s": r[i, j],
                             "wcu_per_s": w[i, j], "floor_rcu_per_s": floor[i, j]})

    def _pattern_peaks(self, m: dict) -> pd.DataFrame:
        """Per (pattern, index) with time-ordered writes: its hottest key by WCU (as HeatModel.pattern_peaks)."""
        out = []
        for name, index in monotonic_patterns(self.spec):
            if name not in self.patterns or index not in self.indexes:
                continue
            c, i = self._colnames.index(name), self.indexes.index(index)
            a, b = self._istart[i], self._istart[i + 1]
            jw, jr = a + int(np.argmax(m["wcu"][c, a:b])), a + int(np.argmax(m["rcu"][c, a:b]))
            out.append((name, index, self._pk[jw], m["wcu"][c, jw], self._pk[jr], m["rcu"][c, jr]))
        return pd.DataFrame(out, columns=["pattern", "index", "pk", "wcu_per_s", "rcu_pk", "rcu_per_s"])
