"""The heat model's slow statements, kept as the oracle the product's path is checked against.

* The product draws the calls and adds up their units per second in numpy (:mod:`blue_nb.heat.seconds`,
  through :meth:`HeatModel.simulate` and :meth:`HeatModel.timeline`); :func:`sql_simulate` and
  :func:`sql_timeline` are the same steps in SQL on the model's scratch tables, as the product ran them
  before: the draw (numpy's generator, then each call's candidate found by an ASOF join on the cumulative
  weights) and the sum per (second, index, pk).
* The product counts the mean load per partition (and per pattern on each) in numpy (:mod:`blue_nb.heat.load`,
  through :meth:`HeatModel.partitions`, as the sliders' RateModel does); :func:`sql_partitions` is the SQL
  aggregation it ran before (a ``string_agg`` for the patterns list), and :func:`sql_by_pattern` its
  per-pattern table.
* The product counts the hottest items (:func:`blue_nb.heat.load.hot_items`, through :meth:`HeatModel.hot_items`,
  as the sliders' RateModel does) and the load per pattern (:meth:`HeatModel.pattern_costs`) in numpy;
  :func:`sql_hot_items` and :func:`sql_pattern_costs` are the SQL it ran before.
* The product draws each pattern's calls with the uniforms of a second sorted, counts the (second, candidate)
  cells without a sort, and adds up per (second, partition) densely over the partitions reached
  (:mod:`blue_nb.heat.seconds`); :func:`numpy_draw_calls` and :func:`numpy_per_second` are the plain numpy it
  ran before (a lookup per uniform in drawn order, ``np.unique`` of the cells), and :func:`sorted_pattern_lists`
  ranks each key's patterns by a stable sort instead of compares of whole rows.
* The product cuts a query's entries into pages with :func:`blue_nb.patterns.pages_of` (the page rule a
  store's run follows) and rounds units with :func:`blue_nb.sizing.capacity.unit_blocks`;
  :class:`SqlCostTables` does both in SQL, as the product did before: page 0 by one window over
  cumulative bytes, later pages by one more window query per page, ``greatest(1, ceil(bytes / 4096))``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from blue_nb.heat.costs import CostTables, read_factor
from blue_nb.heat.model import ACTION_PID, PARTITION_COLUMNS, TIMELINE_COLUMNS, HeatModel
from blue_nb.heat.rankings import LOAD_DECIMALS
from blue_nb.heat.seconds import FEW_CALLS, MANY_CANDIDATES, MAX_DRAWS
from blue_nb.layout import TableLayout
from blue_nb.sizing import PAGE_BYTES, PARTITION_RCU, PARTITION_WCU, READ_UNIT_BYTES, WRITE_UNIT_BYTES
from blue_nb.spec import AccessPattern
from blue_nb.stores.analytics import frame, ident
from blue_nb.stores.entries import entries_table

MAX_EXACT_PAGES = 200         # after this many pages the rest of a call was cut by cumulative bytes


def sql_simulate(model: HeatModel, seconds: int, seed: int) -> str:
    """Draw ``seconds`` of calls per pattern; returns the ``calls(second, pid, cid, k)`` table."""
    rng = np.random.default_rng(seed)
    direct: list[pd.DataFrame] = []
    draws: list[pd.DataFrame] = []
    for pid, rate in model.rates.items():
        counts = rng.poisson(rate, size=seconds)
        n = model.scratch.execute(f"SELECT count(*) FROM {model.allc} WHERE pid = {pid}")[0][0]
        if not n or not counts.sum():
            continue
        if counts.sum() <= FEW_CALLS or n > MANY_CANDIDATES:
            mult = max(1.0, counts.sum() / MAX_DRAWS)
            k = np.maximum(np.rint(counts / mult), 0).astype(np.int64)
            second = np.repeat(np.arange(seconds), k)
            draws.append(pd.DataFrame({"second": second, "pid": pid, "u": rng.random(len(second)),
                                       "mult": counts.sum() / max(k.sum(), 1)}))
        else:
            w = np.array([r[0] for r in model.scratch.execute(
                f"SELECT w FROM {model.allc} WHERE pid = {pid} ORDER BY cid")], dtype=float)
            per = np.stack([rng.multinomial(c, w / w.sum()) for c in counts])
            s, cid = np.nonzero(per)
            direct.append(pd.DataFrame({"second": s, "pid": pid, "cid": cid, "k": per[s, cid].astype(float)}))
    calls = model.scratch.create_as("simcalls", "SELECT 0::INT AS second, 0::INT AS pid, 0::BIGINT AS cid, "
                                                "0.0::DOUBLE AS k LIMIT 0")
    if draws:
        d = model.scratch.upload_frame("draws", pd.concat(draws, ignore_index=True),
                                       {"second": "INT", "pid": "INT", "u": "DOUBLE", "mult": "DOUBLE"})
        cum = model.scratch.create_as("cum", f"SELECT pid, cid, sum(w) OVER (PARTITION BY pid ORDER BY cid ROWS "
                                             f"UNBOUNDED PRECEDING) - w AS lo, sum(w) OVER (PARTITION BY pid) AS tw "
                                             f"FROM {model.allc}")
        model.scratch.execute(f"INSERT INTO {calls} SELECT d.second, d.pid, c.cid, sum(d.mult) FROM "
                              f"(SELECT d.*, d.u * t.tw AS x FROM {d} d JOIN (SELECT DISTINCT pid, tw FROM {cum}) t "
                              f"ON t.pid = d.pid) d ASOF JOIN {cum} c ON c.pid = d.pid AND d.x >= c.lo GROUP BY ALL")
    if direct:
        up = model.scratch.upload_frame("direct", pd.concat(direct, ignore_index=True),
                                        {"second": "INT", "pid": "INT", "cid": "BIGINT", "k": "DOUBLE"})
        model.scratch.execute(f"INSERT INTO {calls} SELECT second, pid, cid, k FROM {up}")
    return calls


def sql_calls(model: HeatModel, calls: str) -> pd.DataFrame:
    """A ``calls`` table as the product's frame: second, pid, cid, k, sorted by second, pid, cid."""
    df = frame(model.store, f"SELECT second, pid, cid, k FROM {calls} ORDER BY 1, 2, 3", ["second", "pid", "cid", "k"])
    return df.astype({"second": "int64", "pid": "int64", "cid": "int64", "k": "float64"})


def upload_calls(model: HeatModel, calls: pd.DataFrame) -> str:
    """The product's calls frame as a table, for :func:`sql_timeline`."""
    return model.scratch.upload_frame("oraclecalls", calls[["second", "pid", "cid", "k"]],
                                      {"second": "INT", "pid": "INT", "cid": "BIGINT", "k": "DOUBLE"})


def sql_timeline(model: HeatModel, calls: str) -> pd.DataFrame:
    """Units per (second, index, pk) of a ``calls`` table (the ``timeline`` contract)."""
    sql = (f"SELECT k.second, e.idx, e.pk, sum(k.k * e.rcu), sum(k.k * e.wcu) FROM {calls} k "
           f"JOIN {model.costs.effects} e ON e.pid = k.pid AND e.cid = k.cid GROUP BY ALL ORDER BY 1, 2, 3")
    df = frame(model.store, sql, TIMELINE_COLUMNS)
    df["second"] = df["second"].astype("int64")
    return df


class SqlCostTables(CostTables):
    """:class:`~blue_nb.heat.costs.CostTables` as the product priced calls before, all in SQL (the oracle): a
    query's pages cut by window queries, and every read and write unit rounded in SQL."""

    def _query(self, pid: int, p: AccessPattern, cand: str) -> None:
        ent = entries_table(self.scratch, self.spec, p.index)
        order = self._order(p)
        m = self.scratch.create_as(
            f"m{pid}", f"SELECT *, CASE WHEN cum - b < {PAGE_BYTES} THEN 0 END AS page FROM ("
                       f"SELECT q.cid, e.pk AS ipk, e.sk AS isk, e.epk, e.esk, e.esize AS b, "
                       f"row_number() OVER w AS rn, sum(e.esize) OVER (w ROWS UNBOUNDED PRECEDING) AS cum "
                       f"FROM {cand} q JOIN {ent} e ON e.epk = q.qpk AND {self._sk_condition(p)} "
                       f"WINDOW w AS (PARTITION BY q.cid ORDER BY {order}))")
        if p.limit:                                    # one page per call: its first `limit` entries, cut at 1 MB
            self.scratch.execute(f"DELETE FROM {m} WHERE rn > ? OR page IS NULL", [int(p.limit)])
        else:
            self._later_pages(pid, m)
        f = read_factor(self.spec, p)
        pages = self.scratch.create_as(f"pg{pid}", f"SELECT cid, page, sum(b) AS pb, count(*) AS k, "
                                                   f"greatest(1, ceil(sum(b) / {READ_UNIT_BYTES}.0)) * ? AS rcu "
                                                   f"FROM {m} GROUP BY cid, page", [f])
        # without a limit every page is read: a last page that reached 1 MB carried a LastEvaluatedKey,
        # so one more, empty page follows at the minimum (a limit pattern reads its one page only)
        empty = "0" if p.limit else f"(max(g.pb) FILTER (WHERE g.page = g.last) >= {PAGE_BYTES})::INT"
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} SELECT {pid}, q.cid, coalesce(sum(g.rcu), ?) + ? * coalesce({empty}, 0), 0, "
           f"coalesce(sum(g.k), 0), coalesce(sum(g.pb), 0), greatest(count(g.page), 1) + coalesce({empty}, 0) "
           f"FROM {cand} q LEFT JOIN (SELECT *, max(page) OVER (PARTITION BY cid) AS last FROM {pages}) g "
           "ON g.cid = q.cid GROUP BY q.cid", [f, f])
        ex(f"INSERT INTO {self.effects} SELECT {pid}, c.cid, ?, q.qpk, c.rcu, 0, ? FROM {self.calls} c "
           f"JOIN {cand} q ON q.cid = c.cid WHERE c.pid = {pid}", [p.index, f])
        item = "m.isk" if p.index == "table" else "m.esk || ' | ' || m.ipk || ' / ' || m.isk"
        ex(f"INSERT INTO {self.hits} SELECT {pid}, m.cid, ?, m.epk, {item}, "
           f"g.rcu * m.b / greatest(g.pb, 1), 0 FROM {m} m JOIN {pages} g ON g.cid = m.cid AND g.page = m.page",
           [p.index])

    def _later_pages(self, pid: int, m: str) -> None:
        """Page 0 is every row read while the bytes before it are under 1 MB (exact); the rows after
        it, of the few candidates that read more than 1 MB, are cut into pages 1, 2, ... greedily by
        the same rule: a page takes rows while the bytes it read before each are under 1 MB (so it
        ends with the row that reaches 1 MB, and always holds at least one row)."""
        ex = self.scratch.execute
        if not ex(f"SELECT count(*) FROM {m} WHERE page IS NULL")[0][0]:
            return
        rest = self.scratch.create_as(f"rest{pid}", f"SELECT cid, rn, b, NULL::INT AS page FROM {m} WHERE page IS NULL")
        for k in range(1, MAX_EXACT_PAGES):
            ex(f"""UPDATE {rest} SET page = {k} FROM (
                     SELECT cid, rn, sum(b) OVER (PARTITION BY cid ORDER BY rn) - b AS before
                     FROM {rest} WHERE page IS NULL) x
                   WHERE {rest}.cid = x.cid AND {rest}.rn = x.rn AND x.before < {PAGE_BYTES}""")
            if not ex(f"SELECT count(*) FROM {rest} WHERE page IS NULL")[0][0]:
                break
        else:
            ex(f"""UPDATE {rest} SET page = {MAX_EXACT_PAGES} + x.extra FROM (
                     SELECT cid, rn, (sum(b) OVER (PARTITION BY cid ORDER BY rn) - b) // {PAGE_BYTES} AS extra
                     FROM {rest} WHERE page IS NULL) x WHERE {rest}.cid = x.cid AND {rest}.rn = x.rn""")
        ex(f"UPDATE {m} SET page = r.page FROM {rest} r WHERE {m}.cid = r.cid AND {m}.rn = r.rn")

    def _get(self, pid: int, p: AccessPattern, cand: str) -> None:
        f = read_factor(self.spec, p)
        units = f"greatest(1, ceil(coalesce(i.size, 0) / {READ_UNIT_BYTES}.0)) * ?"
        m = self.scratch.create_as(f"get{pid}", f"SELECT q.cid, q.qpk, coalesce(q.qsk1, '') AS qsk, {units} AS rcu, "
                                                f"i.size FROM {cand} q LEFT JOIN {self.cat} i "
                                                "ON i.pk = q.qpk AND i.sk = coalesce(q.qsk1, '')", [f])
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} SELECT {pid}, cid, rcu, 0, (size IS NOT NULL)::BIGINT, coalesce(size, 0), 1 "
           f"FROM {m}")
        ex(f"INSERT INTO {self.effects} SELECT {pid}, cid, 'table', qpk, rcu, 0, ? FROM {m}", [f])
        ex(f"INSERT INTO {self.hits} SELECT {pid}, cid, 'table', qpk, qsk, rcu, 0 FROM {m}")

    def _scan(self, pid: int, p: AccessPattern) -> None:
        ent = entries_table(self.scratch, self.spec, p.index)
        f = read_factor(self.spec, p)
        total, n = self.scratch.execute(f"SELECT coalesce(sum(esize), 0), count(*) FROM {ent} e")[0]
        total, n = int(total), int(n)
        per_page = max(1, -(-PAGE_BYTES * n // max(total, 1)))  # mean-size entries up to the one reaching 1 MB
        if p.limit:                                        # one page: `limit` entries, or fewer at 1 MB
            k, pages, empty = min(n, int(p.limit), per_page), 1, 0
        else:                                              # every page; when the last one is full (it
            k, pages = n, n // per_page + 1                # carried a LastEvaluatedKey) one more, empty
            empty = int(n > 0 and n % per_page == 0)       # page follows at the minimum
        read = total * k // max(n, 1)
        rcu = (max(1, -(-read // READ_UNIT_BYTES)) + empty) * f
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} VALUES ({pid}, 0, ?, 0, ?, ?, ?)", [rcu, k, read, pages])
        ex(f"INSERT INTO {self.effects} SELECT {pid}, 0, ?, epk, ? * sum(esize) / ?, 0, ? FROM {ent} e GROUP BY epk",
           [p.index, rcu, max(total, 1), f])

    # -- writes ----------------------------------------------------------------------------
    def _write(self, pid: int, p: AccessPattern, cand: str) -> None:
        entity = p.entities[0] if p.entities else None
        median = self.scratch.execute(f"SELECT quantile_disc(size, 0.5) FROM {self.cat} WHERE entity = ?",
                                    (entity,))[0][0] if entity else None
        base = 0 if p.operation == "delete_item" else int(median or 0)
        units = f"greatest(1, ceil(coalesce(i.size, ?) / {WRITE_UNIT_BYTES}.0))"
        joins, cols, lsi, gsi = [], [], [], []
        for k, (name, idx) in enumerate(self.spec.table.indexes.items()):
            ent = entries_table(self.scratch, self.spec, name)
            a = f"e{k}"
            joins.append(f" LEFT JOIN {ent} {a} ON {a}.pk = i.pk AND {a}.sk = i.sk")
            mult = self._index_writes(p, name)
            cols.append(f"{a}.epk AS epk{k}, {a}.esk AS esk{k}, "
                        f"CASE WHEN {a}.epk IS NULL THEN 0 ELSE {mult} * greatest(1, ceil({a}.esize / "
                        f"{WRITE_UNIT_BYTES}.0)) END AS w{k}")
            (lsi if idx.type == "local" else gsi).append((k, name))
        extra = (", " + ", ".join(cols)) if cols else ""
        w = self.scratch.create_as(f"w{pid}", f"SELECT q.cid, q.qpk, coalesce(q.qsk1, '') AS qsk, {units} AS tw, "
                                              f"i.size{extra} FROM {cand} q LEFT JOIN {self.cat} i ON i.pk = q.qpk "
                                              f"AND i.sk = coalesce(q.qsk1, ''){''.join(joins)}", [base])
        table_w = " + ".join(["tw", *(f"w{k}" for k, _ in lsi)])
        all_w = " + ".join(["tw", *(f"w{k}" for k, _ in lsi + gsi)])
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} SELECT {pid}, cid, 0, {all_w}, 1, coalesce(size, 0), 1 FROM {w}")
        ex(f"INSERT INTO {self.effects} SELECT {pid}, cid, 'table', qpk, 0, {table_w}, 0 FROM {w}")
        ex(f"INSERT INTO {self.hits} SELECT {pid}, cid, 'table', qpk, qsk, 0, {table_w} FROM {w}")
        for k, name in gsi:
            ex(f"INSERT INTO {self.effects} SELECT {pid}, cid, ?, epk{k}, 0, w{k}, 0 FROM {w} "
               f"WHERE epk{k} IS NOT NULL", [name])
            ex(f"INSERT INTO {self.hits} SELECT {pid}, cid, ?, epk{k}, coalesce(esk{k}, '') || ' | ' || "
               f"qpk || ' / ' || qsk, 0, w{k} FROM {w} WHERE epk{k} IS NOT NULL", [name])


def sql_load(model: HeatModel, table: str) -> str:
    """Units/s per (index, pk, pattern) of an effects table: Σ rate × weight × units, in SQL."""
    pats = model._pats()
    return (f"SELECT e.idx, e.pk, p.name, sum(p.rate * c.w * e.rcu) AS rcu, sum(p.rate * c.w * e.wcu) AS wcu, "
            f"sum(p.rate * c.w * e.floor) AS floor FROM {table} e JOIN {model.allc} c ON c.pid = e.pid AND "
            f"c.cid = e.cid JOIN {pats} p ON p.pid = e.pid GROUP BY ALL")


def sql_by_pattern(model: HeatModel) -> pd.DataFrame:
    """The per-(index, pk, pattern) load as SQL counts it, sorted."""
    return frame(model.store, f"SELECT * FROM ({sql_load(model, model.costs.effects)}) ORDER BY 1, 2, 3",
                 ["idx", "pk", "name", "rcu", "wcu", "floor"])


def sql_partitions(model: HeatModel) -> pd.DataFrame:
    """One row per partition key of the table and of each index, hottest first, all in SQL."""
    cat = ident(TableLayout.of(model.spec).catalog)
    sizes = [f"SELECT 'table' AS idx, pk, count(*) AS items, sum(size) AS bytes FROM {cat} GROUP BY pk"]
    gsis = [name for name, idx in model.spec.table.indexes.items() if idx.type == "global"]
    for name in gsis:
        ent = entries_table(model.scratch, model.spec, name)
        sizes.append(f"SELECT ?, epk, count(*), sum(esize) FROM {ent} e GROUP BY epk")
    by_pattern = model.scratch.create_as("sqlbypat", sql_load(model, model.costs.effects))
    sql = f"""
        WITH s AS ({' UNION ALL '.join(sizes)}),
             l AS (SELECT idx, pk, sum(rcu) AS rcu, sum(wcu) AS wcu,
                          string_agg(name, ', ' ORDER BY round(3 * wcu + rcu, {LOAD_DECIMALS}) DESC, name) AS patterns
                   FROM {by_pattern} WHERE rcu > 0 OR wcu > 0 GROUP BY idx, pk)
        SELECT coalesce(s.idx, l.idx), coalesce(s.pk, l.pk), coalesce(s.items, 0), coalesce(s.bytes, 0),
               coalesce(l.rcu, 0), coalesce(l.wcu, 0), coalesce(3 * l.wcu + l.rcu, 0), coalesce(l.patterns, '')
        FROM s FULL OUTER JOIN l ON l.idx = s.idx AND l.pk = s.pk
        ORDER BY 7 DESC, 4 DESC, 1, 2"""
    df = frame(model.store, sql, PARTITION_COLUMNS, gsis)
    for col in ("items", "bytes"):
        df[col] = df[col].astype("int64")
    return df


def _item_load_sql(model: HeatModel, hits: str) -> str:
    """Units/s per (index, pk, item, pattern) of the ``hits`` rows: rate × weight × units per call."""
    pats = model._pats()
    return (f"SELECT e.idx, e.pk, e.item, p.name, sum(p.rate * c.w * e.rcu) AS rcu, "
            f"sum(p.rate * c.w * e.wcu) AS wcu FROM {hits} e JOIN {model.allc} c ON c.pid = e.pid AND "
            f"c.cid = e.cid JOIN {pats} p ON p.pid = e.pid GROUP BY ALL")


def sql_hot_items(model: HeatModel, n: int = 100, partitions: int = 200) -> pd.DataFrame:
    """The hottest items of the ``partitions`` hottest keys (by the ``bypat`` table of ``model.partitions()``) and
    of every key over half a limit: the top ``n``, plus the hottest item of every key over half a limit."""
    bypat = ident(model.scratch.name("bypat"))
    warm = model.scratch.create_as("sqlwarm", f"""
        SELECT idx, pk, prcu, pwcu FROM (
            SELECT idx, pk, sum(rcu) AS prcu, sum(wcu) AS pwcu,
                   row_number() OVER (ORDER BY sum(3 * wcu + rcu) DESC, idx, pk) AS g
            FROM {bypat} GROUP BY idx, pk)
        WHERE g <= {int(partitions)} OR prcu >= {PARTITION_RCU / 2} OR pwcu >= {PARTITION_WCU / 2}""")
    hits = model.scratch.create_as("sqlwarmhits", f"SELECT h.* FROM {model.costs.hits} h JOIN {warm} w "
                                                  "ON w.idx = h.idx AND w.pk = h.pk")
    items = model.scratch.create_as("sqlitems", f"SELECT idx, pk, item, sum(rcu) AS rcu, sum(wcu) AS wcu FROM "
                                                f"({_item_load_sql(model, hits)}) GROUP BY ALL")
    sql = f"""
        WITH r AS (SELECT i.*, w.prcu, w.pwcu,
                          row_number() OVER (PARTITION BY i.idx, i.pk ORDER BY 3 * wcu + rcu DESC, item) AS k,
                          row_number() OVER (ORDER BY 3 * wcu + rcu DESC, i.idx, i.pk, item) AS g
                   FROM {items} i JOIN {warm} w ON w.idx = i.idx AND w.pk = i.pk)
        SELECT idx, pk, item, rcu, wcu FROM r
        WHERE g <= {int(n)} OR (k = 1 AND (prcu >= {PARTITION_RCU / 2} OR pwcu >= {PARTITION_WCU / 2}))
        ORDER BY 3 * wcu + rcu DESC, idx, pk, item"""
    return frame(model.store, sql, ["index", "pk", "item", "rcu_per_s", "wcu_per_s"])


def sql_pattern_costs(model: HeatModel) -> pd.DataFrame:
    """Per pattern: candidates, calls/s and the weighted mean per-call cost, in SQL. A transaction's or a batch's
    candidates and calls are its first action's (its action pids: ACTION_PID + 128 x its place + the action's);
    its units are all its actions'."""
    pats = model._pats()
    own = ("(CASE WHEN p.pid >= {a} AND (p.pid - {a}) % 128 > 0 THEN 0 ELSE 1 END)"
           .format(a=ACTION_PID))
    place = f"(CASE WHEN p.pid >= {ACTION_PID} THEN (p.pid - {ACTION_PID}) // 128 ELSE p.pid % 1000 END)"
    calls = f"sum({own} * p.rate * c.w)"
    sql = (f"SELECT p.name, sum({own}), {calls}, sum(p.rate * c.w * k.rcu) / {calls}, "
           f"sum(p.rate * c.w * k.wcu) / {calls}, sum(p.rate * c.w * k.items) / {calls}, "
           f"sum(p.rate * c.w * k.bytes) / {calls}, "
           f"max(k.pages), sum(p.rate * c.w * k.rcu), sum(p.rate * c.w * k.wcu) "
           f"FROM {model.costs.calls} k JOIN {model.allc} c ON c.pid = k.pid AND c.cid = k.cid "
           f"JOIN {pats} p ON p.pid = k.pid GROUP BY p.name HAVING sum({own}) > 0 ORDER BY min({place}), p.name")
    return frame(model.store, sql, ["pattern", "candidates", "calls_per_s", "rcu_per_call", "wcu_per_call",
                                    "items_per_call", "bytes_per_call", "max_pages", "rcu_per_s", "wcu_per_s"])


def numpy_draw_calls(rates, weights, seconds: int, seed: int):
    """(second, pattern, pos, k) of :func:`blue_nb.heat.seconds.draw_calls`, drawn as it drew them before."""
    rng = np.random.default_rng(seed)
    parts = []
    for j, (rate, w) in enumerate(zip(rates, weights)):
        w = np.asarray(w, dtype=float)
        counts = rng.poisson(rate, size=seconds)
        if not len(w) or not counts.sum():
            continue
        if counts.sum() <= FEW_CALLS or len(w) > MANY_CANDIDATES:
            total = counts.sum()
            mult = max(1.0, total / MAX_DRAWS)
            k = np.maximum(np.rint(counts / mult), 0).astype(np.int64)
            second = np.repeat(np.arange(seconds), k)
            u = rng.random(len(second))
            cum = np.cumsum(w)
            pos = np.searchsorted(cum - w, u * cum[-1], side="right") - 1
            cell, at = np.unique(second * len(w) + pos, return_inverse=True)
            s, pos, k = cell // len(w), cell % len(w), np.bincount(at, np.full(len(pos), total / max(k.sum(), 1)))
        else:
            per = np.stack([rng.multinomial(c, w / w.sum()) for c in counts])
            s, pos = np.nonzero(per)
            k = per[s, pos].astype(float)
        parts.append((s, np.full(len(k), j), pos, k))
    if not parts:
        return tuple(np.zeros(0) for _ in range(4))
    return tuple(np.concatenate(x) for x in zip(*parts))


def numpy_per_second(units, second, key, k):
    """(second, part, rcu, wcu) of :meth:`blue_nb.heat.seconds.CallUnits.per_second`, summed through
    ``np.unique`` over every (second, partition) cell as before."""
    key = np.asarray(key, dtype=np.int64)
    at = np.minimum(np.searchsorted(units.keys, key), max(len(units.keys) - 1, 0))
    known = units.keys[at] == key
    at, second, k = at[known], np.asarray(second, dtype=np.int64)[known], np.asarray(k, dtype=float)[known]
    n = units.start[at + 1] - units.start[at]
    rows = np.repeat(units.start[at] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
    cells = np.repeat(second, n) * units.partitions + units.part[rows]
    kk = np.repeat(k, n)
    cell, inv = np.unique(cells, return_inverse=True)
    return (cell // units.partitions, cell % units.partitions, np.bincount(inv, kk * units.rcu[rows], len(cell)),
            np.bincount(inv, kk * units.wcu[rows], len(cell)))


def sorted_pattern_lists(units: np.ndarray, names: list[str]):
    """:func:`blue_nb.heat.rankings.pattern_lists` by a stable sort of each key's column (as before)."""
    k = len(names)
    ahead = np.zeros(units.shape, np.int8)
    np.put_along_axis(ahead, np.argsort(-np.round(units.astype(float), LOAD_DECIMALS), axis=0, kind="stable"),
                      np.arange(k, dtype=np.int8)[:, None], axis=0)
    none = 15 if k < 15 else k
    np.putmask(ahead, units <= 0, none)
    return [", ".join(names[c] for c in sorted((c for c in range(k) if col[c] != none), key=col.__getitem__))
            for col in ahead.T.tolist()]
