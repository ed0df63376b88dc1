"""Recorded traffic instead of the model: read an access log and price its calls.

A log is CSV, Parquet or JSONL with one request per row (spec-format.md, "Access logs"):
``timestamp`` (epoch seconds, fractions allowed, or ISO 8601; naive times are UTC),
``pattern`` (an access pattern of the spec), and either ``params`` (a JSON object of the
pattern's parameters) or ``pk`` (the partition key value hit; ``index`` names the GSI when the
request went to one). Every bad row is reported, with ``file:line`` (a Parquet row number), in
one :class:`~blue_nb.errors.SourceError`.

Pricing: a ``params`` row is bound exactly (:func:`blue_nb.patterns.bind`) and priced like a model
candidate on the real items; a ``pk`` row costs what the pattern's calls on that partition cost
on average (the model's candidates under that key, by weight), or the minimum charge when the
data has none. Calls are bucketed per second from the first timestamp.
"""

from __future__ import annotations

import csv
import json
import math
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Iterator

import pandas as pd

from blue_nb.patterns import bind
from blue_nb.errors import BlueNbError, SourceError
from blue_nb.heat.costs import read_factor
from blue_nb.heat.model import HeatModel
from blue_nb.heat.workload import Candidates, build_candidates
from blue_nb.sizing import write_units
from blue_nb.spec import Spec
from blue_nb.layout import stored_key

__all__ = ["LOG_COLUMNS", "read_access_log", "price_log", "parse_timestamp"]

LOG_COLUMNS = ["line", "time", "second", "pattern", "params", "pk", "index"]
MAX_REPORTED = 5
PARAMS_PID, MODEL_PID, PK_PID = 1000, 2000, 3000


def parse_timestamp(value: Any) -> float:
    """Epoch seconds (a number or numeric text, fractions allowed) or ISO 8601 text -> epoch seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value):
            return float(value)
        raise ValueError(f"timestamp {value!r} is not a finite number")
    if isinstance(value, (datetime, pd.Timestamp)):
        dt = value
    else:
        text = str(value if value is not None else "").strip()
        if not text:
            raise ValueError("timestamp is empty")
        try:
            return float(Decimal(text))
        except InvalidOperation:
            pass
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"timestamp {text!r} is neither epoch seconds nor ISO 8601") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def _records(path: Path) -> Iterator[tuple[int, dict]]:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            start = 2
            for rec in reader:
                yield start, rec
                start = reader.line_num + 1
    elif suffix in (".jsonl", ".ndjson", ".json"):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    yield n, {"__error__": f"not JSON: {e.msg}"}
                    continue
                yield n, rec if isinstance(rec, dict) else {"__error__": "a row must be a JSON object"}
    elif suffix in (".parquet", ".pq"):
        df = pd.read_parquet(path)
        for n, rec in enumerate(df.to_dict("records"), 1):
            yield n, rec
    else:
        raise SourceError(f"unknown access log format {path.suffix!r}", where=str(path),
                          hint="give a .csv, .parquet or .jsonl file")


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and not v.strip())


def _row(spec: Spec, rec: dict) -> tuple[float, str, dict | None, str | None, str | None]:
    if "__error__" in rec:
        raise ValueError(rec["__error__"])
    t = parse_timestamp(rec.get("timestamp"))
    name = rec.get("pattern")
    if _blank(name):
        raise ValueError("no pattern")
    p = spec.pattern(str(name).strip())
    params, pk, index = rec.get("params"), rec.get("pk"), rec.get("index")
    if not _blank(params):
        if isinstance(params, str):
            try:
                params = json.loads(params)
            except json.JSONDecodeError as e:
                raise ValueError(f"params is not JSON: {e.msg}") from None
        if not isinstance(params, dict):
            raise ValueError("params must be a JSON object of the pattern's parameters")
        return t, p.name, {k: v if isinstance(v, str) else json.dumps(v) if isinstance(v, (dict, list)) else str(v)
                           for k, v in params.items()}, None, None
    if _blank(pk):
        raise ValueError("neither params nor pk")
    index = None if _blank(index) else str(index).strip()
    if (index or "table") != p.index:
        raise ValueError(f"index {index or 'table'!r} is not the index of pattern {p.name!r} ({p.index})")
    return t, p.name, None, str(pk), index


def read_access_log(path: str | Path, spec: Spec) -> pd.DataFrame:
    """The log's requests: ``line, time, second, pattern, params, pk, index`` (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise SourceError(f"access log {str(path)!r} does not exist", where=str(path), hint="check the --log path")
    rows, bad = [], []
    for line, rec in _records(path):
        try:
            rows.append((line, *_row(spec, rec)))
        except (ValueError, BlueNbError) as e:
            bad.append((line, getattr(e, "msg", None) or str(e)))
    if bad:
        first, msg = bad[0]
        more = "".join(f"\n  {path}:{n}: {m}" for n, m in bad[1:MAX_REPORTED])
        extra = f"\n  ... and {len(bad) - MAX_REPORTED} more" if len(bad) > MAX_REPORTED else ""
        raise SourceError(f"bad access log row: {msg}{more}{extra}", where=f"{path}:{first}",
                          hint="each row needs timestamp (epoch seconds or ISO 8601), pattern (a pattern of the "
                               "spec) and params (a JSON object) or pk")
    if not rows:
        raise SourceError("the access log has no requests", where=str(path))
    df = pd.DataFrame(rows, columns=["line", "time", "pattern", "params", "pk", "index"])
    df["second"] = (df["time"] - df["time"].min()).astype(float).apply(math.floor).astype("int64")
    return df[LOG_COLUMNS]


def price_log(model: HeatModel, log: pd.DataFrame, where: str = "log") -> tuple[pd.DataFrame, int]:
    """Register the log's calls in ``model`` (rates = calls per second over the log's span); returns
    the calls ``(second, pid, cid, k)`` for :meth:`HeatModel.timeline` and the number of seconds spanned."""
    spec = model.spec
    seconds = int(log["second"].max()) + 1
    calls: list[pd.DataFrame] = []
    for i, p in enumerate(spec.access_patterns):
        rows = log[log["pattern"] == p.name]
        with_params = rows[rows["params"].notna()]
        if len(with_params):
            calls.append(_params_calls(model, i, p, with_params, seconds, where))
        with_pk = rows[rows["params"].isna()]
        if len(with_pk):
            calls.append(_pk_calls(model, i, p, with_pk, seconds))
    model.seconds_observed = seconds
    up = pd.concat(calls, ignore_index=True).groupby(["second", "pid", "cid"], as_index=False)["k"].sum()
    return up.astype({"second": "int64", "pid": "int64", "cid": "int64", "k": "float64"}), seconds


def _params_calls(model: HeatModel, i: int, p, rows: pd.DataFrame, seconds: int, where: str) -> pd.DataFrame:
    if p.operation == "scan":
        model.price(PARAMS_PID + i, p.name, len(rows) / seconds, Candidates(p, None))
        return pd.DataFrame({"second": rows["second"].values, "pid": PARAMS_PID + i, "cid": 0, "k": 1.0})
    keys = rows["params"].apply(lambda d: json.dumps(d, sort_keys=True))
    distinct = {k: n for n, k in enumerate(dict.fromkeys(keys))}
    rendered, counts = [], keys.map(distinct).value_counts()
    for k, cid in distinct.items():
        try:
            req = bind(model.spec, p, json.loads(k))
        except BlueNbError as e:
            line = rows["line"][keys == k].iloc[0]
            raise SourceError(f"bad access log row: {e.msg}", where=f"{where}:{line}", hint=e.hint) from e
        sks = [stored_key(v) for v in req.sk_values] + [None, None]
        rendered.append((cid, stored_key(req.pk_value), sks[0], sks[1], float(counts.get(cid, 0)) / seconds))
    table = model.scratch.upload(f"logcand{i}", {"cid": "BIGINT", "qpk": "TEXT", "qsk1": "TEXT", "qsk2": "TEXT",
                                                 "w": "DOUBLE"}, rendered)
    model.price(PARAMS_PID + i, p.name, 1.0, Candidates(p, table, [], len(rendered)))
    return pd.DataFrame({"second": rows["second"].values, "pid": PARAMS_PID + i, "cid": keys.map(distinct).values,
                         "k": 1.0})


def _pk_calls(model: HeatModel, i: int, p, rows: pd.DataFrame, seconds: int) -> pd.DataFrame:
    """Calls that name only the partition: priced at the mean cost of the model's candidates under
    that key (by weight), or the minimum charge where the data has none."""
    scratch = model.scratch
    pks = {k: n for n, k in enumerate(dict.fromkeys(rows["pk"]))}
    counts = rows["pk"].map(pks).value_counts()
    lpk = scratch.upload(f"logpk{i}", {"pk": "TEXT", "w": "DOUBLE"},
                         ((k, float(counts.get(n, 0)) / seconds) for k, n in pks.items()))
    mid, pid = MODEL_PID + i, PK_PID + i
    cand = build_candidates(scratch, model.spec, p, tag=f"log{i}")
    model.costs.add(mid, cand)
    c = model.costs
    if cand.table is not None:
        avg = (f"FROM {lpk} l JOIN {cand.table} q ON q.qpk = l.pk JOIN (SELECT qpk, sum(w) AS gw FROM {cand.table} "
               "GROUP BY qpk) g ON g.qpk = q.qpk JOIN {t} e ON e.pid = " + str(mid) + " AND e.cid = q.cid")
        scratch.execute(f"INSERT INTO {c.effects} SELECT {pid}, l.rid, e.idx, e.pk, sum(q.w / g.gw * e.rcu), "
                      f"sum(q.w / g.gw * e.wcu), sum(q.w / g.gw * e.floor) {avg.format(t=c.effects)} GROUP BY ALL")
        scratch.execute(f"INSERT INTO {c.hits} SELECT {pid}, l.rid, e.idx, e.pk, e.item, sum(q.w / g.gw * e.rcu), "
                      f"sum(q.w / g.gw * e.wcu) {avg.format(t=c.hits)} GROUP BY ALL")
        scratch.execute(f"INSERT INTO {c.calls} SELECT {pid}, l.rid, sum(q.w / g.gw * e.rcu), sum(q.w / g.gw * e.wcu), "
                      f"sum(q.w / g.gw * e.items), sum(q.w / g.gw * e.bytes), max(e.pages) "
                      f"{avg.format(t=c.calls)} GROUP BY ALL")
    if p.is_read:
        units, idx, rcu, wcu = read_factor(model.spec, p), p.index, "u", "0"
    else:
        median = scratch.execute(f"SELECT quantile_disc(size, 0.5) FROM {c.cat} WHERE entity = ?",
                               (p.entities[0] if p.entities else None,))[0][0] or 0
        units, idx, rcu, wcu = write_units(int(median)), "table", "0", "u"
    scratch.execute(f"INSERT INTO {c.effects} SELECT {pid}, rid, ?, pk, {rcu}, {wcu}, {rcu} FROM "
                  f"(SELECT l.*, {units} AS u FROM {lpk} l) l WHERE rid NOT IN (SELECT cid FROM {c.calls} "
                  f"WHERE pid = {pid})", [idx])
    scratch.execute(f"INSERT INTO {c.calls} SELECT {pid}, rid, {rcu}, {wcu}, 0, 0, 1 FROM "
                  f"(SELECT l.*, {units} AS u FROM {lpk} l) l WHERE rid NOT IN (SELECT cid FROM {c.calls} "
                  f"WHERE pid = {pid})")
    model.names[pid], model.rates[pid] = p.name, 1.0
    scratch.execute(f"INSERT INTO {model.allc} SELECT {pid}, rid, pk, w FROM {lpk}")
    return pd.DataFrame({"second": rows["second"].values, "pid": pid, "cid": rows["pk"].map(pks).values, "k": 1.0})
