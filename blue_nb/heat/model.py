"""Per-partition and per-second units: the workload model (or a recorded log) priced on the items.

A :class:`HeatModel` holds, in scratch tables of a DuckDB store, every pattern's candidates with
their weights (``allc(pid, cid, qpk, w)``), the pattern rates (``pats``) and the per-call costs
(:class:`~blue_nb.heat.costs.CostTables`). Then:

* per partition (``index``, ``pk``), counted by :mod:`.load` (numpy, as the sliders'
  :class:`~blue_nb.heat.rates.RateModel` counts): ``rcu_per_s = Σ rate × weight × per-call RCU``
  over the candidates that hit it, likewise ``wcu_per_s`` (index writes land on the index
  partitions), Contributor Insights' ``consumed_throughput_units = 3 × WCU + RCU``; items and
  bytes from the catalog in SQL (index entry sizes for an index); the hottest items and the load per
  pattern counted by :mod:`.load` too;
* per second, by the per-second model of :mod:`.seconds` (numpy, the one the sliders'
  :class:`~blue_nb.heat.rates.RateModel` draws with): ``T`` seconds of calls drawn from each
  pattern's distribution (a Poisson number of calls per second, each call's candidate drawn by
  weight), or a log's real calls, summed per (second, index, pk): the spikes that averages hide.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from blue_nb.heat.costs import CostTables
from blue_nb.heat.load import (HOT_ITEMS, HOT_KEYS, Ranked, hot_items, load_by_pattern, load_per, ranked, size_order,
                               warm_keys)
from blue_nb.heat.seconds import CallUnits, draw_calls
from blue_nb.heat.workload import Candidates, build_candidates
from blue_nb.layout import TableLayout
from blue_nb.spec import AccessPattern, Spec
from blue_nb.stores.analytics import Scratch, frame, ident
from blue_nb.stores.entries import entries_table

__all__ = ["ACTION_PID", "CALL_COLUMNS", "HeatModel", "PARTITION_COLUMNS", "Priced", "TIMELINE_COLUMNS"]

#: the pids of a transaction's or a batch's actions: ACTION_PID + 128 x (the pattern's place) + (the action's)
ACTION_PID = 10_000

PARTITION_COLUMNS = ["index", "pk", "items", "bytes", "rcu_per_s", "wcu_per_s", "consumed_throughput_units",
                     "patterns"]
TIMELINE_COLUMNS = ["second", "index", "pk", "rcu", "wcu"]
CALL_COLUMNS = ["second", "pid", "cid", "k"]       # k calls of candidate cid of pattern pid in second


@dataclass(frozen=True)
class Priced:
    """A model's patterns as priced at their rates: the per-call costs (:meth:`HeatModel.pattern_costs`), the
    mean write units per call on each index (pid -> index -> units) and the patterns modelled (name -> pid)."""

    costs: pd.DataFrame
    index_writes: dict[int, dict[str, float]]
    modelled: dict[str, int]


class HeatModel:
    """The priced workload of one spec on one store (see the module docstring)."""

    def __init__(self, scratch: Scratch, spec: Spec):
        self.scratch, self.spec, self.store = scratch, spec, scratch.store
        self.costs = CostTables(scratch, spec)
        self.candidates: dict[int, Candidates] = {}
        self.rates: dict[int, float] = {}
        self.names: dict[int, str] = {}
        self.secondary: set[int] = set()    # a transaction's or batch's actions after its first: no call of their own
        self.allc = scratch.create_as("allc", "SELECT 0::INT AS pid, 0::BIGINT AS cid, ''::TEXT AS qpk, "
                                              "0.0::DOUBLE AS w LIMIT 0")
        self.pats = ""
        self.seconds_observed: int | None = None
        self._call_units: tuple[CallUnits, np.ndarray, np.ndarray] | None = None
        self._parts: str | None = None
        self._load: tuple[Ranked, np.ndarray, np.ndarray, np.ndarray] | None = None   # of partitions(), for hot_items
        self._costs: pd.DataFrame | None = None                                       # pattern_costs(), once

    # -- building ----------------------------------------------------------------------------
    def add_model_patterns(self, only_with_rate: bool = True) -> None:
        """Candidates, weights and costs of every pattern of the spec (with a rate, by default)."""
        for pid, p in enumerate(self.spec.access_patterns):
            if only_with_rate and not p.rate_per_second:
                continue
            if p.is_composite:
                self.price_actions(pid, p)
                continue
            self.price(pid, p.name, p.rate_per_second, build_candidates(self.scratch, self.spec, p, tag=str(pid)))

    def price_actions(self, pid: int, p: AccessPattern) -> None:
        """A transaction or a batch: each action priced as its own pattern (its candidates drawn by the enclosing
        pattern's key distribution) at the enclosing pattern's rate, under the enclosing pattern's name; its
        first action counts the calls (the others add their units to them)."""
        for j, a in enumerate(p.actions):
            apid = ACTION_PID + 128 * pid + j
            called = replace(self.spec.pattern(a.pattern), key_distribution=p.key_distribution,
                             rate_per_second=p.rate_per_second)
            if p.operation.startswith("transact_"):
                self.costs.transactional.add(apid)
            if a.check:
                self.costs.checks.add(apid)
            if j:
                self.secondary.add(apid)
            self.price(apid, p.name, p.rate_per_second, build_candidates(self.scratch, self.spec, called,
                                                                          tag=f"a{apid}"))

    def price(self, pid: int, name: str, rate: float, c: Candidates) -> None:
        """Register the candidates of one (pattern, pid) with its rate, and price them."""
        self.candidates[pid], self.rates[pid], self.names[pid] = c, float(rate), name
        self._call_units = self._parts = self._load = self._costs = None
        self.costs.add(pid, c)
        if c.pattern.operation == "scan":
            self.scratch.execute(f"INSERT INTO {self.allc} VALUES ({pid}, 0, NULL, 1.0)")
        elif c.table is not None:
            self.scratch.execute(f"INSERT INTO {self.allc} SELECT {pid}, cid, qpk, w FROM {c.table}")

    def _pats(self) -> str:
        rows = [(pid, self.names[pid], self.rates[pid]) for pid in self.rates]
        self.pats = self.scratch.upload("pats", {"pid": "INT", "name": "TEXT", "rate": "DOUBLE"}, rows)
        return self.pats

    # -- per partition -----------------------------------------------------------------------
    def _pattern_codes(self) -> tuple[list[str], np.ndarray]:
        """The modelled patterns' names, sorted, and per pid the position of its name among them."""
        names = sorted({self.names[pid] for pid in self.rates})
        lut = np.zeros(max(self.rates, default=0) + 1, dtype=np.int64)
        for pid in self.rates:
            lut[pid] = names.index(self.names[pid])
        return names, lut

    def _partition_table(self) -> str:
        """Every partition key of the table and of each GSI, with items and bytes (index entry sizes for an
        index), and every key the calls reach: ``parts(idx, pk, part, items, bytes)``, numbered by index, then
        pk (the store's order)."""
        if self._parts is None:
            cat = ident(TableLayout.of(self.spec).catalog)
            sizes = [f"SELECT 'table' AS idx, pk, count(*) AS items, sum(size) AS bytes FROM {cat} GROUP BY pk"]
            gsis = [name for name, idx in self.spec.table.indexes.items() if idx.type == "global"]
            for name in gsis:
                ent = entries_table(self.scratch, self.spec, name)
                sizes.append(f"SELECT ?, epk, count(*), sum(esize) FROM {ent} e GROUP BY epk")
            self._parts = self.scratch.create_as("parts", f"""
                WITH s AS ({' UNION ALL '.join(sizes)}),
                     l AS (SELECT DISTINCT idx, pk FROM {self.costs.effects})
                SELECT coalesce(s.idx, l.idx) AS idx, coalesce(s.pk, l.pk) AS pk,
                       CAST(row_number() OVER (ORDER BY coalesce(s.idx, l.idx), coalesce(s.pk, l.pk)) - 1 AS BIGINT)
                       AS part, CAST(coalesce(s.items, 0) AS BIGINT) AS items,
                       CAST(coalesce(s.bytes, 0) AS BIGINT) AS bytes
                FROM s FULL OUTER JOIN l ON l.idx = s.idx AND l.pk = s.pk""", gsis)
        return self._parts

    def _columns(self, sql: str, columns: list[str]) -> list[np.ndarray]:
        """The ``columns`` of a query's rows as numpy arrays (a temp table, then a column at a time)."""
        table = self.scratch.create_as("cols", sql)
        return [self.scratch.column(f"SELECT {c} FROM {table} ORDER BY rowid") for c in columns]

    def partitions(self) -> pd.DataFrame:
        """One row per partition key of the table and of each index (the ``partitions`` contract),
        hottest first by consumed throughput units, then by bytes: the load counted by :mod:`.load`, as the
        sliders' :class:`~blue_nb.heat.rates.RateModel` counts it. Keeps the load per (index, pk, pattern)
        (``bypat``) for :meth:`drivers` and :meth:`pattern_peaks`, and the load per key for :meth:`hot_items`."""
        parts = self._partition_table()
        idx, pk, items, nbytes = self._columns(f"SELECT idx, pk, items, bytes FROM {parts} ORDER BY part",
                                               ["idx", "pk", "items", "bytes"])
        idx, pk = idx.astype(object), pk.astype(object)
        names, lut = self._pattern_codes()
        pats = self._pats()
        pid, part, calls, rcu, wcu, floor = self._columns(
            f"SELECT e.pid, pp.part, p.rate * c.w AS calls, e.rcu, e.wcu, e.floor FROM {self.costs.effects} e "
            f"JOIN {self.allc} c ON c.pid = e.pid AND c.cid = e.cid JOIN {pats} p ON p.pid = e.pid "
            f"JOIN {parts} pp ON pp.idx = e.idx AND pp.pk = e.pk", ["pid", "part", "calls", "rcu", "wcu", "floor"])
        code, n, k = lut[pid.astype(np.int64)], len(idx), len(names)
        m = {u: load_by_pattern(code, part, calls, v, k, n) for u, v in (("rcu", rcu), ("wcu", wcu), ("floor", floor))}
        self._by_pattern(m, names, code * n + part, idx, pk)
        rk = ranked(m["rcu"], m["wcu"], names, size_order(nbytes, np.unique(idx, return_inverse=True)[1]))
        self._load = (rk, np.bincount(part.astype(np.int64), minlength=n) > 0, idx, pk)
        o = rk.order
        return pd.DataFrame({"index": idx[o], "pk": pk[o], "items": items[o].astype(np.int64),
                             "bytes": nbytes[o].astype(np.int64), "rcu_per_s": rk.rcu[o], "wcu_per_s": rk.wcu[o],
                             "consumed_throughput_units": rk.ctu[o],
                             "patterns": np.array(rk.texts, dtype=object)[rk.codes[o]]}, columns=PARTITION_COLUMNS)

    def _by_pattern(self, m: dict[str, np.ndarray], names: list[str], cells: np.ndarray, idx: np.ndarray,
                    pk: np.ndarray) -> None:
        """The ``bypat(idx, pk, name, rcu, wcu, floor)`` table: the load of each pattern on each key it reaches."""
        k, n = m["rcu"].shape
        reached = np.flatnonzero(np.bincount(cells, minlength=k * n))
        pattern, part = reached // max(n, 1), reached % max(n, 1)
        rows = pd.DataFrame({"idx": idx[part], "pk": pk[part], "name": np.array(names, dtype=object)[pattern],
                             **{u: m[u][pattern, part] for u in ("rcu", "wcu", "floor")}})
        self.scratch.upload_frame("bypat", rows, {"idx": "TEXT", "pk": "TEXT", "name": "TEXT", "rcu": "DOUBLE",
                                                  "wcu": "DOUBLE", "floor": "DOUBLE"})

    def drivers(self, min_units: float = 0.0, limit: int = 5000) -> pd.DataFrame:
        """Units per (index, pk, pattern) for the hottest partitions: which patterns drive a key, and
        ``floor_rcu_per_s``, the read units its calls cost even if the key were split (calls/s x the
        minimum charge per call on each partition touched)."""
        table = ident(self.scratch.name("bypat"))
        sql = (f"WITH t AS (SELECT idx, pk, sum(3 * wcu + rcu) AS u FROM {table} GROUP BY idx, pk "
               "HAVING u > ? ORDER BY u DESC LIMIT ?) "
               f"SELECT b.idx, b.pk, b.name, b.rcu, b.wcu, b.floor FROM {table} b JOIN t USING (idx, pk) "
               "ORDER BY t.u DESC, b.idx, b.pk, 3 * b.wcu + b.rcu DESC")
        return frame(self.store, sql, ["index", "pk", "pattern", "rcu_per_s", "wcu_per_s", "floor_rcu_per_s"],
                     [float(min_units), int(limit)])

    def pattern_peaks(self) -> pd.DataFrame:
        """Per (pattern, index): the partition key where the pattern puts the most WCU/s, and that WCU/s."""
        table = ident(self.scratch.name("bypat"))
        return frame(self.store, f"SELECT name, idx, arg_max(pk, wcu), max(wcu), arg_max(pk, rcu), max(rcu) "
                                 f"FROM {table} GROUP BY name, idx ORDER BY name, idx",
                     ["pattern", "index", "pk", "wcu_per_s", "rcu_pk", "rcu_per_s"])

    def transaction_items(self) -> pd.DataFrame:
        """Per item a transaction touches: ``pattern, item, calls_per_s`` - how many of that pattern's
        transactions a second reach it on average (over every action that names it), most first."""
        pids = sorted(self.costs.transactional)
        if not pids:
            return pd.DataFrame(columns=["pattern", "item", "calls_per_s"])
        pats = self._pats()
        return frame(self.store, f"SELECT p.name, h.pk || ' / ' || h.item AS item, sum(p.rate * c.w) AS calls "
                                 f"FROM {self.costs.hits} h JOIN {self.allc} c ON c.pid = h.pid AND c.cid = h.cid "
                                 f"JOIN {pats} p ON p.pid = h.pid WHERE h.idx = 'table' AND h.pid IN "
                                 f"({', '.join(str(int(p)) for p in pids)}) GROUP BY ALL ORDER BY calls DESC, 1, 2",
                     ["pattern", "item", "calls_per_s"])

    def hot_items(self, n: int = HOT_ITEMS, partitions: int = HOT_KEYS) -> pd.DataFrame:
        """The hottest single items (and index entries) of the ``partitions`` hottest keys and of every
        key over half a limit: ``index, pk, item, rcu_per_s, wcu_per_s``; the top ``n`` of them, plus
        the hottest item of every key over half a limit (what no split can go below): counted by
        :func:`~blue_nb.heat.load.hot_items`, as the sliders' :class:`~blue_nb.heat.rates.RateModel` counts them."""
        if self._load is None:
            self.partitions()
        load, reached, idx, pk = self._load
        key_rank = np.arange(len(idx))                                      # parts are numbered in key order
        warm = self.scratch.upload("warm", {"part": "BIGINT"},
                                   ((int(p),) for p in warm_keys(load, reached, key_rank, partitions)))
        pats = self._pats()
        pid, cid, part, item, calls, rcu, wcu = self._columns(
            f"SELECT h.pid, h.cid, pp.part, h.item, p.rate * c.w AS calls, h.rcu, h.wcu FROM {self.costs.hits} h "
            f"JOIN {self.allc} c ON c.pid = h.pid AND c.cid = h.cid JOIN {pats} p ON p.pid = h.pid "
            f"JOIN {self._partition_table()} pp ON pp.idx = h.idx AND pp.pk = h.pk JOIN {warm} w ON w.part = pp.part",
            ["pid", "cid", "part", "item", "calls", "rcu", "wcu"])
        pid = pid.astype(np.int64)
        labels, codes = np.unique(item.astype(object), return_inverse=True)
        o = np.lexsort((cid, pid, self._pattern_codes()[1][pid], codes, part))   # by item, then pattern (by name)
        hot = hot_items(part[o], codes[o], calls[o], rcu[o], wcu[o], load, key_rank, np.arange(len(labels)), n)
        return pd.DataFrame({"index": idx[hot.part], "pk": pk[hot.part], "item": labels[hot.item],
                             "rcu_per_s": hot.rcu, "wcu_per_s": hot.wcu})

    def pattern_costs(self) -> pd.DataFrame:
        """Per pattern: candidates, calls/s and the weighted mean per-call cost; its units/s are
        :func:`~blue_nb.heat.load.load_per` of the calls rows (a call's units: the sum of its ``effects``), the
        load :meth:`partitions` counts per pattern, summed over the partitions."""
        if self._costs is None:
            self._costs = self._pattern_costs()
        return self._costs.copy()

    def _pattern_costs(self) -> pd.DataFrame:
        pats = self._pats()
        pid, calls, rcu, wcu, items, nbytes, pages = self._columns(
            f"SELECT k.pid, p.rate * c.w AS calls, k.rcu, k.wcu, k.items, k.bytes, k.pages FROM {self.costs.calls} k "
            f"JOIN {self.allc} c ON c.pid = k.pid AND c.cid = k.cid JOIN {pats} p ON p.pid = k.pid",
            ["pid", "calls", "rcu", "wcu", "items", "bytes", "pages"])
        names, lut = self._pattern_codes()
        pid = pid.astype(np.int64)
        code, k = lut[pid], len(names)
        own = ~np.isin(pid, list(self.secondary))       # a transaction's or batch's calls: its first action's
        count, per_s = np.bincount(code, own, k).astype(np.int64), np.bincount(code, calls * own, k)
        rcu_s, wcu_s, items_s, bytes_s = (load_per(code, calls, u, k) for u in (rcu, wcu, items, nbytes))
        first, most = np.full(k, np.iinfo(np.int64).max), np.zeros(k, dtype=pages.dtype)
        np.minimum.at(first, code, np.where(pid >= ACTION_PID, (pid - ACTION_PID) // 128, pid % 1000))
        np.maximum.at(most, code, pages)
        o = [j for j in sorted(range(k), key=lambda j: (first[j], names[j])) if count[j]]
        with np.errstate(divide="ignore", invalid="ignore"):
            return pd.DataFrame({"pattern": [names[j] for j in o], "candidates": count[o], "calls_per_s": per_s[o],
                                 "rcu_per_call": rcu_s[o] / per_s[o], "wcu_per_call": wcu_s[o] / per_s[o],
                                 "items_per_call": items_s[o] / per_s[o], "bytes_per_call": bytes_s[o] / per_s[o],
                                 "max_pages": most[o],
                                 "rcu_per_s": rcu_s[o], "wcu_per_s": wcu_s[o]})

    def index_writes(self) -> dict[int, dict[str, float]]:
        """pid -> index -> mean write units per call on that index (GSIs from ``effects``; LSIs from the
        per-write table of :class:`~blue_nb.heat.costs.CostTables`, whose column ``w<k>`` is the k-th index)."""
        if not self.rates:
            return {}
        w = {int(pid): float(total)
             for pid, total in self.scratch.execute(f"SELECT pid, sum(w) FROM {self.allc} GROUP BY pid")}
        out: dict[int, dict[str, float]] = {}
        for pid, idx, units in self.scratch.execute(
                f"SELECT e.pid, e.idx, sum(c.w * e.wcu) FROM {self.costs.effects} e JOIN {self.allc} c "
                f"ON c.pid = e.pid AND c.cid = e.cid WHERE e.idx <> 'table' AND e.wcu > 0 GROUP BY ALL"):
            out.setdefault(int(pid), {})[idx] = float(units) / w[int(pid)]
        lsis = [(k, n) for k, (n, i) in enumerate(self.spec.table.indexes.items()) if i.type == "local"]
        for pid, c in self.candidates.items():
            if not lsis or c.table is None or c.pattern.operation not in ("put_item", "update_item", "delete_item"):
                continue
            table = ident(self.scratch.name(f"w{pid}"))
            sums = self.scratch.execute(f"SELECT {', '.join(f'sum(c.w * x.w{k})' for k, _ in lsis)} FROM {table} x "
                                        f"JOIN {self.allc} c ON c.pid = {int(pid)} AND c.cid = x.cid")[0]
            for (_, name), units in zip(lsis, sums):
                if units:
                    out.setdefault(int(pid), {})[name] = float(units) / w[int(pid)]
        return out

    def priced(self) -> "Priced":
        """What pricing the patterns found, for the monthly bill (:func:`~blue_nb.pricing.monthly_bill`)."""
        costs = self.pattern_costs() if self.rates else pd.DataFrame(columns=["pattern"])
        writes = self.index_writes()
        modelled = {self.names[pid]: pid for pid in sorted(self.rates, reverse=True) if pid not in self.secondary}
        for pid in self.secondary:                  # a transaction's or batch's index writes: all its actions'
            first = modelled[self.names[pid]]
            for index, units in writes.get(pid, {}).items():
                writes.setdefault(first, {})[index] = writes.get(first, {}).get(index, 0.0) + units
        return Priced(costs, writes, modelled)

    def rate_frames(self) -> dict[str, pd.DataFrame]:
        """The per-candidate inputs of :class:`blue_nb.heat.rates.RateModel` (fetched once, then numpy):

        * ``candidates``: pid, cid, n, grank, gn, gk - the data's count of the tuple, and the rank, count
          and number of tuples of its request key (a scan: one candidate of weight 1);
        * ``effects``: pid, cid, idx, pk, rcu, wcu, floor - the units one call puts on each partition;
        * ``hits``: pid, cid, idx, pk, item, rcu, wcu - the same per item."""
        sel = []
        for pid, c in self.candidates.items():
            if c.pattern.operation == "scan":
                sel.append(f"SELECT {pid}, 0::BIGINT, 1, 1, 1, 1")
            elif c.table is not None:
                sel.append(f"SELECT {pid}, cid, n, grank, gn, gk FROM {c.table}")
        cols = ["pid", "cid", "n", "grank", "gn", "gk"]
        cands = frame(self.store, " UNION ALL ".join(sel) + " ORDER BY 1, 2", cols) if sel else pd.DataFrame(columns=cols)
        effects = frame(self.store, f"SELECT pid, cid, idx, pk, rcu, wcu, floor FROM {self.costs.effects}",
                        ["pid", "cid", "idx", "pk", "rcu", "wcu", "floor"])
        hits = frame(self.store, f"SELECT pid, cid, idx, pk, item, rcu, wcu FROM {self.costs.hits}",
                     ["pid", "cid", "idx", "pk", "item", "rcu", "wcu"])
        return {"candidates": cands, "effects": effects, "hits": hits}

    # -- per second --------------------------------------------------------------------------
    def simulate(self, seconds: int = 60, seed: int = 18) -> pd.DataFrame:
        """Draw ``seconds`` of calls per pattern (:func:`~blue_nb.heat.seconds.draw_calls`): the calls
        ``(second, pid, cid, k)``, k calls of candidate ``cid`` in ``second`` (a pattern's cids are 0..n-1)."""
        pids = list(self.rates)
        counts = dict(self.scratch.execute(f"SELECT pid, count(*) FROM {self.allc} GROUP BY pid"))
        w = self.scratch.column(f"SELECT w FROM {self.allc} ORDER BY pid, cid").astype(float)
        start = dict(zip(sorted(counts), np.cumsum([0, *(counts[p] for p in sorted(counts))]).tolist()))
        weights = [w[start[pid]:start[pid] + counts[pid]] if pid in counts else w[:0] for pid in pids]
        drawn = draw_calls([self.rates[pid] for pid in pids], weights, seconds, seed)
        pid = np.array(pids, dtype=np.int64)[drawn.pattern] if pids else np.zeros(0, np.int64)
        return pd.DataFrame({"second": drawn.second.astype(np.int64), "pid": pid, "cid": drawn.pos.astype(np.int64),
                             "k": drawn.k}, columns=CALL_COLUMNS)

    def call_units(self) -> tuple[CallUnits, np.ndarray, np.ndarray]:
        """The ``effects`` as :class:`~blue_nb.heat.seconds.CallUnits` keyed by ``pid << 40 | cid``, with the
        partitions' index and pk (numbered in the store's order of index, then pk), fetched once, in columns."""
        if self._call_units is None:
            parts = self._partition_table()
            units = self.scratch.create_as("callunits", f"SELECT (CAST(e.pid AS BIGINT) << 40) | e.cid AS k, p.part, "
                                                        f"e.rcu, e.wcu FROM {self.costs.effects} e JOIN {parts} p "
                                                        "ON p.idx = e.idx AND p.pk = e.pk")
            col = self.scratch.column
            labels = [np.asarray(col(f"SELECT {c} FROM {parts} ORDER BY part"), dtype=object) for c in ("idx", "pk")]
            arrays = [col(f"SELECT {c} FROM {units} ORDER BY rowid") for c in ("k", "part", "rcu", "wcu")]
            self._call_units = (CallUnits(*arrays, len(labels[0])), *labels)
        return self._call_units

    def timeline(self, calls: pd.DataFrame) -> pd.DataFrame:
        """Units per (second, index, pk) of ``calls`` (second, pid, cid, k; the ``timeline`` contract): summed by
        :meth:`~blue_nb.heat.seconds.CallUnits.per_second`, ordered by second, index and pk."""
        units, idx, pk = self.call_units()
        second, part, rcu, wcu = units.per_second(calls["second"].to_numpy(np.int64),
                                                  _call_key(calls["pid"], calls["cid"]), calls["k"].to_numpy(float))
        return pd.DataFrame({"second": second.astype(np.int64), "index": idx[part], "pk": pk[part], "rcu": rcu,
                             "wcu": wcu}, columns=TIMELINE_COLUMNS)


def _call_key(pid, cid) -> np.ndarray:
    """A candidate of a pattern as one int64: ``pid << 40 | cid``."""
    return (np.asarray(pid, dtype=np.int64) << 40) | np.asarray(cid, dtype=np.int64)
