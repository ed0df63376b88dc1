"""A design's monthly bill: :class:`Bill` (built by :func:`blue_nb.pricing.monthly.monthly_bill`), its
lines (:class:`PatternLine`, :class:`IndexLine`, :class:`CapacityLine`), and :func:`compare_bills`, the
what-if of two bills in dollars and units (:func:`dollar_changes`: the dollars alone, for a reader).

Dollars are exact :class:`~decimal.Decimal` values everywhere in Python (``frame()``, ``totals``,
:func:`compare_bills`), so per-pattern parts add up to the totals to the last digit; ``summary()``
and ``to_json()`` give them as JSON numbers; the text prints them with :func:`blue_nb.printing.usd`
(to the cent, half up).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from typing import Any

import pandas as pd

from blue_nb.pricing.prices import PRECISION, Prices
from blue_nb.printing import number, usd

__all__ = ["DOLLAR_TOTALS", "Bill", "CapacityLine", "IndexLine", "PatternLine", "compare_bills", "dollar_changes"]

#: the totals a reader compares between two bills (:func:`dollar_changes`), after the patterns
DOLLAR_TOTALS = ("total on demand", "total provisioned", "storage")


def _json(v: Any) -> Any:
    if isinstance(v, Decimal):          # whole numbers stay ints in JSON (730 hours, 167 RCU)
        return int(v) if v == v.to_integral_value() and v.as_tuple().exponent >= 0 else float(v)
    if isinstance(v, dict):
        return {k: _json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json(x) for x in v]
    return v


@dataclass
class PatternLine:
    """One access pattern's line of the bill: its rate, mean units per call (weighted as the workload model
    draws keys), units/s and on-demand $/month. ``writes``: write units per call by index ("table" first:
    the table's own units; then each index the pattern's items are in)."""

    pattern: str
    operation: str
    index: str
    rate: Decimal
    rcu_per_call: Decimal
    wcu_per_call: Decimal
    writes: dict[str, Decimal]
    read_usd: Decimal
    write_usd: Decimal
    note: str = ""

    @property
    def rcu_per_s(self) -> Decimal:
        return self.rate * self.rcu_per_call

    @property
    def wcu_per_s(self) -> Decimal:
        return self.rate * self.wcu_per_call

    @property
    def on_demand_usd(self) -> Decimal:
        return self.read_usd + self.write_usd

    def row(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "operation": self.operation, "index": self.index, "rate": self.rate,
                "rcu_per_call": self.rcu_per_call, "wcu_per_call": self.wcu_per_call,
                **{f"wcu_per_call_{k}": v for k, v in self.writes.items()},
                "rcu_per_s": self.rcu_per_s, "wcu_per_s": self.wcu_per_s, "on_demand_read_usd": self.read_usd,
                "on_demand_write_usd": self.write_usd, "on_demand_usd": self.on_demand_usd, "note": self.note}


@dataclass
class IndexLine:
    """The table's or one index's line of the bill: its entries and billed storage (bytes + 100 per entry),
    and the units/s the patterns put on it (reads on it, and the writes of its entries) with their on-demand $."""

    index: str
    kind: str                  # table | global | local
    entries: int
    bytes: int
    storage_bytes: int
    storage_gb: Decimal
    storage_usd: Decimal
    rcu_per_s: Decimal
    wcu_per_s: Decimal
    on_demand_usd: Decimal

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class CapacityLine:
    """The bill's line for the provisioned capacity of the table (with its LSIs, which share it) or of one GSI:
    mean and peak units/s, the units to provision (ceil(peak / utilisation), at least 1) and their $/month."""

    name: str
    mean_rcu: Decimal
    mean_wcu: Decimal
    peak_rcu: Decimal
    peak_wcu: Decimal
    rcu: int
    wcu: int
    rcu_usd: Decimal
    wcu_usd: Decimal

    @property
    def usd(self) -> Decimal:
        return self.rcu_usd + self.wcu_usd

    def row(self) -> dict[str, Any]:
        return {**self.__dict__, "usd": self.usd}


@dataclass
class Bill:
    """A design's monthly bill: per pattern, per index, provisioned capacity, totals (see the module docstring)."""

    spec: str
    prices: Prices
    utilisation: Decimal
    peaks: str                           # where the provisioned peaks come from
    table_class: str
    billing_mode: str
    patterns: list[PatternLine]
    indexes: list[IndexLine]
    capacity: list[CapacityLine]
    free_storage_gb: Decimal = Decimal(0)    # GB of the free tier taken off (0 unless asked)
    notes: list[str] = field(default_factory=list)

    # -- totals ------------------------------------------------------------------------------
    @property
    def totals(self) -> dict[str, Any]:
        """Units and dollars of the whole design; the request dollars are the sums of the patterns'."""
        with localcontext() as ctx:
            ctx.prec = PRECISION                 # exact: no sum here is rounded
            return self._totals()

    def _totals(self) -> dict[str, Any]:
        p, h = self.prices, self.prices.hours_per_month
        rcu, wcu = sum((x.rcu_per_s for x in self.patterns), Decimal(0)), sum((x.wcu_per_s for x in self.patterns), Decimal(0))
        gb = sum((i.storage_gb for i in self.indexes), Decimal(0))
        billed = max(Decimal(0), gb - self.free_storage_gb)
        storage = billed * p.storage_price(self.table_class)
        od = sum((x.on_demand_usd for x in self.patterns), Decimal(0))
        prov = sum((c.usd for c in self.capacity), Decimal(0))
        return {
            "rcu_per_s": rcu, "wcu_per_s": wcu, "rru_per_month": rcu * 3600 * h, "wru_per_month": wcu * 3600 * h,
            "on_demand_read_usd": sum((x.read_usd for x in self.patterns), Decimal(0)),
            "on_demand_write_usd": sum((x.write_usd for x in self.patterns), Decimal(0)),
            "on_demand_usd": od,
            "provisioned_rcu": sum(c.rcu for c in self.capacity), "provisioned_wcu": sum(c.wcu for c in self.capacity),
            "provisioned_usd": prov,
            "storage_bytes": sum(i.storage_bytes for i in self.indexes), "storage_gb": gb,
            "free_storage_gb": min(gb, self.free_storage_gb), "storage_usd": storage,
            "total_on_demand_usd": od + storage, "total_provisioned_usd": prov + storage,
        }

    def provisioned_capacity(self) -> dict[str, tuple[int, int]]:
        """``{"table": (rcu, wcu), "<gsi>": (rcu, wcu)}``: the capacity to provision (e.g. in a template)."""
        return {c.name: (c.rcu, c.wcu) for c in self.capacity}

    def pattern(self, name: str) -> PatternLine:
        return next(p for p in self.patterns if p.pattern == name)

    # -- views -------------------------------------------------------------------------------
    def frame(self, kind: str = "patterns") -> pd.DataFrame:
        """``patterns`` (one row per access pattern), ``indexes`` (table and each index) or ``capacity``
        (table and each GSI, provisioned): units and dollars as Decimals."""
        rows = {"patterns": self.patterns, "indexes": self.indexes, "capacity": self.capacity}.get(kind)
        if rows is None:
            raise ValueError(f"kind is 'patterns', 'indexes' or 'capacity', not {kind!r}")
        return pd.DataFrame([r.row() for r in rows])

    def summary(self) -> dict[str, Any]:
        """Everything as JSON-ready values (numbers as floats)."""
        return _json({
            "spec": self.spec, "region": self.prices.region, "date": self.prices.date,
            "currency": self.prices.currency, "prices": self.prices.to_dict(), "utilisation": self.utilisation,
            "peaks": self.peaks, "table_class": self.table_class, "billing_mode": self.billing_mode,
            "patterns": [r.row() for r in self.patterns], "indexes": [r.row() for r in self.indexes],
            "capacity": [r.row() for r in self.capacity], "totals": self.totals, "notes": list(self.notes),
        })

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.summary(), ensure_ascii=False, indent=indent)

    def __str__(self) -> str:
        return "\n".join(_text(self)) + "\n"

    def __repr__(self) -> str:
        t = self.totals
        return (f"Bill({self.spec}: on demand {usd(t['total_on_demand_usd'])}/month, provisioned "
                f"{usd(t['total_provisioned_usd'])}/month, {self.prices.region} {self.prices.date})")


def _text(r: Bill) -> list[str]:
    p, t = r.prices, r.totals
    out = [f"{r.spec}: monthly cost at {p.region} prices of {p.date} ({p.currency}, {p.source}), "
           f"{p.hours_per_month} h/month",
           "", f"{'pattern (on demand)':<28} {'calls/s':>9} {'RCU/call':>9} {'WCU/call':>9} {'RCU/s':>10} "
               f"{'WCU/s':>10} {'$/month':>12}"]
    for x in r.patterns:
        out.append(f"  {x.pattern[:26]:<26} {number(x.rate):>9} {number(x.rcu_per_call):>9} "
                   f"{number(x.wcu_per_call):>9} {number(x.rcu_per_s):>10} {number(x.wcu_per_s):>10} "
                   f"{usd(x.on_demand_usd):>12}"
                   + (f"  ({x.note})" if x.note else ""))
        if len(x.writes) > 1:
            out.append("      writes per call: " + ", ".join(f"{k} {number(v)}" for k, v in x.writes.items()))
    out += ["", f"{'index':<14} {'entries':>10} {'storage GB':>12} {'storage $':>11} {'RCU/s':>10} {'WCU/s':>10} "
                f"{'requests $':>12}"]
    for i in r.indexes:
        out.append(f"  {i.index[:12]:<12} {i.entries:>10,} {i.storage_gb:>12.6f} {usd(i.storage_usd):>11} "
                   f"{number(i.rcu_per_s):>10} {number(i.wcu_per_s):>10} {usd(i.on_demand_usd):>12}")
    out += ["", f"provisioned at {r.utilisation:.0%} utilisation of the {r.peaks}"]
    for c in r.capacity:
        out.append(f"  {c.name[:12]:<12} {number(c.peak_rcu)} RCU/s, {number(c.peak_wcu)} WCU/s -> {c.rcu:,} RCU, "
                   f"{c.wcu:,} WCU: {usd(c.usd)}/month")
    free = f", free tier of {r.free_storage_gb} GB taken off" if r.free_storage_gb else ""
    out += ["", f"storage: {t['storage_gb']:.6f} GB (GB = 2^30 bytes, 100 B per item and index entry){free}: "
                f"{usd(t['storage_usd'])}/month ({r.table_class})",
            f"total on demand:   requests {usd(t['on_demand_usd'])} + storage {usd(t['storage_usd'])} = "
            f"{usd(t['total_on_demand_usd'])}/month",
            f"total provisioned: capacity {usd(t['provisioned_usd'])} + storage {usd(t['storage_usd'])} = "
            f"{usd(t['total_provisioned_usd'])}/month"]
    out += [f"note: {n}" for n in r.notes]
    return out


# -- what-if ------------------------------------------------------------------------------------
def _side(d: dict | None, key: str) -> Decimal:
    return d.get(key, Decimal(0)) if d else Decimal(0)


def _rows_of(report: Bill) -> dict[str, dict[str, dict]]:
    """kind -> name -> {rcu, wcu, usd (, rate)} of one bill, for :func:`compare_bills` and :func:`dollar_changes`."""
    t = report.totals
    return {
        "pattern": {x.pattern: {"rate": x.rate, "rcu": x.rcu_per_s, "wcu": x.wcu_per_s, "usd": x.on_demand_usd}
                    for x in report.patterns},
        "index": {i.index: {"rcu": i.rcu_per_s, "wcu": i.wcu_per_s, "usd": i.on_demand_usd + i.storage_usd}
                  for i in report.indexes},
        "capacity": {c.name: {"rcu": Decimal(c.rcu), "wcu": Decimal(c.wcu), "usd": c.usd} for c in report.capacity},
        "total": {
            "on demand requests": {"rcu": t["rcu_per_s"], "wcu": t["wcu_per_s"], "usd": t["on_demand_usd"]},
            "provisioned capacity": {"rcu": Decimal(t["provisioned_rcu"]), "wcu": Decimal(t["provisioned_wcu"]),
                                     "usd": t["provisioned_usd"]},
            "storage": {"usd": t["storage_usd"]},
            "total on demand": {"usd": t["total_on_demand_usd"]},
            "total provisioned": {"usd": t["total_provisioned_usd"]},
        },
    }


def compare_bills(old: Bill, new: Bill) -> pd.DataFrame:
    """Old vs new, in units and dollars: ``kind``, ``name``, then ``<col>_old``, ``<col>_new`` and
    ``<col>_diff`` (new - old) for ``rate`` (patterns only), ``rcu``, ``wcu`` and ``usd``, all Decimals; None
    where a row has no such number (the rate of an index, the units of storage and of the dollar totals).

    Rows: one per pattern ("pattern": calls/s, RCU/s, WCU/s, on-demand $), per index ("index": RCU/s,
    WCU/s, requests + storage $), per provisioned capacity ("capacity": RCU and WCU provisioned, $) and
    the totals ("total": on demand requests, provisioned capacity, storage, total on demand, total
    provisioned). A pattern or index in one bill only counts as zero in the other. The pattern rows
    add up exactly to the "on demand requests" total, diffs included."""
    with localcontext() as ctx:
        ctx.prec = PRECISION                     # exact differences
        return pd.DataFrame(_compare_rows(_rows_of(old), _rows_of(new)))


def dollar_changes(old: Bill, new: Bill) -> list[dict[str, Any]]:
    """What changed in dollars, for a reader: ``{"what", "old_usd", "new_usd"}`` per pattern (its on-demand
    $/month; None in the bill without the pattern), then :data:`DOLLAR_TOTALS`; exact Decimals."""
    a, b = _rows_of(old), _rows_of(new)
    names = dict.fromkeys([*a["pattern"], *b["pattern"]])
    rows = [{"what": name, "old_usd": a["pattern"].get(name, {}).get("usd"),
             "new_usd": b["pattern"].get(name, {}).get("usd")} for name in names]
    return rows + [{"what": name, "old_usd": a["total"][name]["usd"], "new_usd": b["total"][name]["usd"]}
                   for name in DOLLAR_TOTALS]


def _compare_rows(a: dict, b: dict) -> list[dict[str, Any]]:
    rows = []
    for kind in ("pattern", "index", "capacity", "total"):
        for name in dict.fromkeys([*a[kind], *b[kind]]):
            o, n = a[kind].get(name), b[kind].get(name)
            row: dict[str, Any] = {"kind": kind, "name": name}
            for c in ("rate", "rcu", "wcu", "usd"):
                if not any(c in side for side in (o, n) if side):     # a rate of an index, units of storage: none, not 0
                    row.update({f"{c}_old": None, f"{c}_new": None, f"{c}_diff": None})
                    continue
                x, y = _side(o, c), _side(n, c)
                row.update({f"{c}_old": x, f"{c}_new": y, f"{c}_diff": y - x})
            rows.append(row)
    return rows
