"""Fit a spec's ``generate:`` section to real or imported data: a synthetic twin's recipe.

``profile_data(spec, data_dir="rows/")`` (or ``duckdb="table.duckdb"``) reads every item once and
returns the ``generate:`` mapping that makes ``blue-nb sample`` draw data shaped like it: rows per
entity, children per parent item (their distribution, with the largest collection kept as the
first draw), attribute lengths and presence, number ranges, enum frequencies, key cardinalities
and the rate of timestamps. It holds no value of the data but the labels of low-cardinality
columns (enums), and not those either with ``labels=False``: then those columns become
cardinalities with a fitted skew.

Distributions are written as mixtures: each value seen with its count while there are at most 48,
else quarter-octave bins, each a uniform draw over the values seen in the bin, so long tails (a body near the 400 KB limit) keep their share.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

from blue_nb.app.costs import design_cost
from blue_nb.app.reports import heat_report
from blue_nb.app.workflows import as_spec, open_loaded, spec_items
from blue_nb.errors import SourceError
from blue_nb.patterns.bind import row_values
from blue_nb.rules.data_rules import NEAR_LIMIT_BYTES
from blue_nb.sizing import MAX_ITEM_BYTES
from blue_nb.samples import looks_like_time, plan_sample
from blue_nb.spec import Spec

__all__ = ["ColumnProfile", "MAX_LABELS", "TWIN_TOLERANCES", "profile_data", "twin_figures"]

MAX_LABELS = 30                       # at most this many distinct values make a column an enum
_TRACK = 100_000                      # distinct values tracked per column; beyond, "many"
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?\Z")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z", re.I)
_INT = re.compile(r"-?\d+\Z")
_SIZED = {"S": "length", "B": "length", "SS": "size", "NS": "size", "BS": "size", "L": "size", "M": "size"}


_EXACT = 48                           # up to this many distinct values, a distribution lists each one


def _bin(n: int) -> int:
    """Quarter-octave bins: 0, 1, 2, 3, 4, 5, 6, 7-8, ... (narrow enough that a uniform draw in a
    bin keeps a Zipf tail's mean)."""
    return 0 if n <= 0 else 1 + int(4 * math.log2(n))


class _Bins:
    """A histogram in quarter-octave bins that remembers each bin's smallest and largest value, and
    every value exactly while there are few."""

    def __init__(self) -> None:
        self.count: Counter = Counter()
        self.lo: dict[int, int] = {}
        self.hi: dict[int, int] = {}
        self.exact: Counter | None = Counter()
        self.near: list[int] = []          # values near or over the item limit: kept exactly, as first draws

    def add(self, n: int, times: int = 1) -> None:
        if n >= NEAR_LIMIT_BYTES:
            self.near.extend([n] * times)
        b = _bin(n)
        self.count[b] += times
        self.lo[b] = min(self.lo.get(b, n), n)
        self.hi[b] = max(self.hi.get(b, n), n)
        if self.exact is not None:
            self.exact[n] += times
            if len(self.exact) > _EXACT:
                self.exact = None

    def remove(self, n: int) -> None:
        """Take one ``n`` out (a value listed as a first draw instead)."""
        b = _bin(n)
        self.count[b] -= 1
        if not self.count[b]:
            del self.count[b]
        if self.exact is not None:
            self.exact[n] -= 1
            if not self.exact[n]:
                del self.exact[n]

    def distribution(self, first: list[int] | None = None) -> dict[str, Any]:
        """The mixture; ``first``: values drawn first, in order (already taken out with :meth:`remove`)."""
        if self.exact is not None:
            parts = {v: c for v, c in self.exact.items()}
        else:
            parts = {(self.lo[b], self.hi[b]): c for b, c in self.count.items()}
        out: dict[str, Any] = {"first": first} if first else {}
        if not parts:
            return {"fixed": first[-1], **out} if first else {"fixed": 0}
        if len(parts) == 1 and isinstance(next(iter(parts)), int):
            return {"fixed": next(iter(parts)), **out}
        mix = [{"weight": c, **({"fixed": k} if isinstance(k, int) else {"fixed": k[0]} if k[0] == k[1]
                                 else {"uniform": [k[0], k[1]]})}
               for k, c in sorted(parts.items(), key=lambda kv: kv[0] if isinstance(kv[0], int) else kv[0][0])]
        return {"mix": mix, **out}


@dataclass
class ColumnProfile:
    """What one column's values look like, gathered in one pass without keeping the data."""

    present: int = 0
    values: Counter = field(default_factory=Counter)   # up to _TRACK distinct
    many: bool = False
    ints: bool = True
    iso: bool = True
    uuid: bool = True
    widths: set = field(default_factory=set)
    sizes: _Bins = field(default_factory=_Bins)
    lo: Decimal | None = None
    hi: Decimal | None = None
    decimals: int = 0

    def add(self, value: Any, dtype: str) -> None:
        self.present += 1
        if dtype in ("S", "key"):
            text = str(value)
            self.ints = self.ints and bool(_INT.match(text))
            self.iso = self.iso and bool(_ISO.match(text))
            self.uuid = self.uuid and bool(_UUID.match(text))
            self.widths.add(len(text))
            self.sizes.add(len(text.encode("utf-8")))
            self._track(text)
        elif dtype == "N":
            d = Decimal(str(value))
            self.lo = d if self.lo is None or d < self.lo else self.lo
            self.hi = d if self.hi is None or d > self.hi else self.hi
            exp = d.as_tuple().exponent
            self.decimals = max(self.decimals, -exp if isinstance(exp, int) and exp < 0 else 0)
            self._track(str(value))
        elif dtype == "B":
            self.sizes.add(len(value))
        elif dtype in ("SS", "NS", "BS", "L", "M"):
            self.sizes.add(len(value))

    def _track(self, text: str) -> None:
        if self.many:
            return
        self.values[text] += 1
        if len(self.values) > _TRACK:
            self.many, self.values = True, Counter()

    @property
    def distinct(self) -> int | None:
        return None if self.many else len(self.values)


def _skew(counts: Counter) -> float:
    """The Zipf exponent that fits value frequencies by rank (least squares on logs); 0 if flat."""
    freq = sorted(counts.values(), reverse=True)
    if len(freq) < 2:
        return 0.0
    xs = [math.log(r) for r in range(1, len(freq) + 1)]
    ys = [math.log(f) for f in freq]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return round(max(0.0, -slope), 3)


def _epoch(text: str) -> int:
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return int((dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp())


def _iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _items(spec: Spec, data_dir: str | Path | None, duckdb: str | Path | None) -> Iterator[tuple[str, dict]]:
    if (data_dir is None) == (duckdb is None):
        raise SourceError("profile reads one data set: give --data DIR or --duckdb FILE", where="profile",
                          hint="--data: the rows a load reads; --duckdb: a store that blue-nb load filled")
    if data_dir is not None:
        yield from spec_items(spec, data_dir)
        return
    with open_loaded(spec, duckdb) as store:   # type: ignore[arg-type]
        for entity, item in store.iter_entity_items(spec.table_name):
            if entity is not None:
                yield entity, item


def profile_data(spec: Spec | str | Path, *, data_dir: str | Path | None = None, duckdb: str | Path | None = None,
                 labels: bool = True) -> dict[str, Any]:
    """The ``generate:`` section fitted to the data (see the module docstring)."""
    spec = as_spec(spec)
    plan, _ = plan_sample(spec, 1 << 62)
    rows: Counter = Counter()
    parents: dict[str, Counter] = defaultdict(Counter)            # entity -> parent key -> children
    cols: dict[str, dict[str, ColumnProfile]] = defaultdict(lambda: defaultdict(ColumnProfile))
    spans: dict[str, dict[tuple, list[int]]] = defaultdict(dict)  # entity.column -> parent -> [first, last, n]
    root_of = {n: _root(plan, n) for n in plan.entities}
    totals: dict[str, Counter] = defaultdict(Counter)             # root entity -> its key -> items under it
    keys_of: dict[str, dict[tuple, list[tuple]]] = defaultdict(lambda: defaultdict(list))  # parent items per root
    is_parent = {p.parent for p in plan.entities.values() if p.parent}
    for entity, item in _items(spec, data_dir, duckdb):
        p = plan.entities[entity]
        e = spec.entities[entity]
        rows[entity] += 1
        values = row_values(spec, entity, item)
        pkey = tuple(values.get(c) for c in p.inherited)
        root = plan.entities[root_of[entity]]
        rkey = tuple(values.get(c) for c in root.key_columns)
        totals[root.name][rkey] += 1
        if entity in is_parent:
            keys_of[entity][rkey].append(tuple(values.get(c) for c in p.key_columns))
        if p.parent:
            parents[entity][pkey] += 1
        for col in p.columns:
            if col in p.inherited:
                continue
            dtype = e.attributes.get(col, "key")
            value = item.get(col) if col in e.attributes else values.get(col)
            if value is None:
                continue
            prof = cols[entity][col]
            prof.add(value, dtype)
            if dtype in ("S", "key") and prof.iso and isinstance(value, str) and _ISO.match(value):
                ts = _epoch(value)
                span = spans[f"{entity}.{col}"].setdefault(pkey, [ts, ts, 0])
                span[0], span[1], span[2] = min(span[0], ts), max(span[1], ts), span[2] + 1
    # the largest item collection of each top-level entity is kept whole: its children per parent
    # item are the first draws, so the twin's first top-level item has the same shape
    largest = {r: max(c.items(), key=lambda kv: kv[1])[0] for r, c in totals.items() if len(c) > 1}
    out: dict[str, Any] = {}
    for name, p in plan.entities.items():
        g: dict[str, Any] = {}
        if p.parent is None:
            g["count"] = rows[name]
        else:
            bins = _Bins()
            for n in parents[name].values():
                bins.add(n)
            zero = rows[p.parent] - len(parents[name])
            if zero > 0:
                bins.add(0, zero)
            first = None
            big = largest.get(root_of[name])
            if big is not None:
                under = keys_of[p.parent][big] if p.parent in keys_of else []
                first = [parents[name].get(k, 0) for k in under]
                for n in first:
                    bins.remove(n)
            if bins.count or first:
                g["per_parent"] = bins.distribution(first)
        fields = {}
        for col, prof in cols[name].items():
            f = _field(spec, name, col, prof, rows[name], spans.get(f"{name}.{col}"), labels,
                       last_key=bool(p.own_key) and col == p.own_key[-1])
            if f:
                fields[col] = f
        if fields:
            g["fields"] = fields
        out[name] = g
    return {"entities": out}


def _root(plan, name: str) -> str:
    while plan.entities[name].parent:
        name = plan.entities[name].parent
    return name


def _field(spec: Spec, entity: str, col: str, prof: ColumnProfile, n_rows: int, spans, labels: bool,
           last_key: bool) -> dict[str, Any]:
    dtype = spec.entities[entity].attributes.get(col, "key")
    f: dict[str, Any] = {}
    if dtype != "key" and n_rows and prof.present < n_rows:
        f["present"] = round(prof.present / n_rows, 4)
    distinct = prof.distinct
    if dtype in ("S", "key"):
        if prof.ints and looks_like_time(col) and prof.widths == {10}:     # epoch seconds
            f["timestamp"] = {"format": "epoch", "per_day": 24}
        elif prof.iso and spans:
            firsts = [s[0] for s in spans.values()]
            rates = [s[2] / max((s[1] - s[0]) / 86_400, 1 / 24) for s in spans.values() if s[2] > 1]
            per_day = sorted(rates)[len(rates) // 2] if rates else 24
            f["timestamp"] = {"start": _iso(min(firsts)), "per_day": round(per_day, 3)}
        elif prof.uuid:
            f["uuid"] = True
        elif distinct is not None and distinct <= MAX_LABELS and (dtype == "S" or not last_key) and prof.present > distinct:
            if labels:
                f["enum"] = dict(prof.values.most_common())
            else:
                f["cardinality"] = distinct
                f["skew"] = _skew(prof.values)
        elif last_key and prof.ints:
            width = min(prof.widths) if len(prof.widths) == 1 or min(prof.widths) > 1 else 0
            f["seq"] = {"width": width} if width > 1 else {}
        elif dtype == "key" and not last_key:
            f["cardinality"] = distinct if distinct is not None else _TRACK
            if distinct is not None:
                f["skew"] = _skew(prof.values)
        elif dtype == "S" and prof.sizes.count:
            f["length"] = _lengths(prof.sizes)
    elif dtype == "N" and prof.lo is not None:
        f.update({"min": float(prof.lo) if prof.decimals else int(prof.lo),
                  "max": float(prof.hi) if prof.decimals else int(prof.hi)})   # type: ignore[arg-type]
        if prof.decimals:
            f["decimals"] = prof.decimals
    elif dtype in _SIZED and prof.sizes.count:
        f[_SIZED[dtype]] = _lengths(prof.sizes)
    return f


def _lengths(bins: _Bins) -> dict[str, Any]:
    """A length distribution that keeps the few values that make the size findings: those over the
    400 KB item limit are drawn first (so the twin has them for sure), those near it are components
    of their own (drawn as often as they were seen, wherever they fall)."""
    over = sorted((n for n in bins.near if n > MAX_ITEM_BYTES), reverse=True)
    near = Counter(n for n in bins.near if n <= MAX_ITEM_BYTES)
    for n in bins.near:
        bins.remove(n)
    dist = bins.distribution(over or None)
    if near:
        parts = dist.pop("mix", None) or [{"weight": _bins_total(bins) or 0, **{k: v for k, v in dist.items()
                                                                             if k not in ("first",)}}]
        dist = {"mix": [p for p in parts if p["weight"]] + [{"weight": c, "fixed": n} for n, c in sorted(near.items())],
                **({"first": over} if over else {})}
    return dist


def _bins_total(bins: _Bins) -> int:
    """How many values a histogram holds."""
    return sum(bins.count.values())


#: How close a synthetic twin's figures come to the original's, as the tests check them (relative).
TWIN_TOLERANCES = {"busiest_key_share": 0.25, "largest_collection": 0.10, "item_size_p50": 0.15,
                   "item_size_p95": 0.25, "monthly_usd": 0.25}


def twin_figures(spec: Spec | str | Path, data_dir: str | Path, out_dir: str | Path) -> dict[str, Any]:
    """The figures a twin must reproduce: the busiest key's share of its partition's limit, the
    largest item collection, the item-size p50 and p95 over all items (bytes, weighted by entity),
    the on-demand monthly dollars. ``out_dir`` receives the heat report they come from."""
    spec = as_spec(spec)
    summary = heat_report(spec, data_dir, out_dir, progress=False, figures=False)
    top = summary["top_keys"]
    share = max((max(k["rcu_per_s"] / 3000, k["wcu_per_s"] / 1000) for k in top), default=0.0)
    sizes = summary["item_sizes"]
    n = sum(s["count"] for s in sizes.values()) or 1
    p50 = sum(s["p50"] * s["count"] for s in sizes.values()) / n
    p95 = sum(s["p95"] * s["count"] for s in sizes.values()) / n
    bill = design_cost(spec, data_dir)
    return {"busiest_key_share": round(share, 4), "largest_collection": max((k["items"] for k in top), default=0),
            "item_size_p50": round(p50, 1), "item_size_p95": round(p95, 1),
            "monthly_usd": float(bill.totals["total_on_demand_usd"]), "items": n}
