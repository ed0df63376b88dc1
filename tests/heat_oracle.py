"""The heat model's slow statements, kept as the oracle the product's numpy path is checked against.

The product draws the calls and adds up their units per second in numpy (:mod:`blue_nb.heat.seconds`,
through :meth:`HeatModel.simulate` and :meth:`HeatModel.timeline`); these are the same steps in SQL on
the model's scratch tables, as the product ran them before: the draw (numpy's generator, then each
call's candidate found by an ASOF join on the cumulative weights) and the sum per (second, index, pk).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from blue_nb.heat.duckdb_sql import frame
from blue_nb.heat.model import TIMELINE_COLUMNS, HeatModel
from blue_nb.heat.seconds import FEW_CALLS, MANY_CANDIDATES, MAX_DRAWS


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
