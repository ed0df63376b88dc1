"""Items and store summaries <-> pandas DataFrames, for notebooks.

Layer 3: pandas plus the pure layers. Frames are for looking at a bounded number of rows;
whole tables stream through the stores instead. The ones made for reading in a notebook are
:class:`~blue_nb.app.display.DisplayTable`: real values inside, compact cells on screen.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pandas as pd

from blue_nb.app.display import DisplayTable
from blue_nb.sizing import item_costs, item_sizes
from blue_nb.errors import BlueNbError
from blue_nb.items.values import item_from_wire, item_to_wire, to_wire

__all__ = ["entity_frame", "frame_to_items", "item_table", "items_to_frame", "largest_items_frame", "partitions_frame",
           "size_stats_frame", "spec_frame", "value_frame"]

_COSTS = ("_size", "_rcu", "_wcu")


def items_to_frame(items: Iterable[Mapping[str, Any]], *, sizes: bool = True) -> pd.DataFrame:
    """Items (Python values) -> one row per item, one column per attribute, plus size and costs."""
    items = items if isinstance(items, list) else list(items)
    rows = [dict(item) for item in items]
    if sizes:  # one batch: the batch path sizes them a column at a time
        for row, size in zip(rows, item_sizes(items)):
            c = item_costs(size)
            row.update({"_size": c["size"], "_rcu": c["rcu_strong"], "_wcu": c["wcu"]})
    df = pd.DataFrame(rows)
    cost = [c for c in _COSTS if c in df.columns]
    return df[[c for c in df.columns if c not in cost] + cost]


def item_table(items: Iterable[Mapping[str, Any]], key_names: Iterable[str] = ()) -> DisplayTable:
    """Items for reading: the key columns first (``key_names`` in order, those present), then the
    size and unit costs, then the other attributes; maps, lists and binary shown on one short line."""
    df = items_to_frame(items)
    keys = [k for k in key_names if k in df.columns]
    cost = [c for c in _COSTS if c in df.columns]
    rest = [c for c in df.columns if c not in keys and c not in cost]
    return DisplayTable(df[keys + cost + rest], left=keys)


def frame_to_items(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The inverse of :func:`items_to_frame`: missing cells are absent attributes; sizes are dropped."""
    out = []
    for rec in frame.to_dict("records"):
        item = {k: v for k, v in rec.items() if not k.startswith("_") and not _is_missing(v)}
        out.append(item_from_wire(item_to_wire(item)))      # validates every value
    return out


def _is_missing(v: Any) -> bool:
    try:
        return v is None or (not isinstance(v, (list, dict, set, frozenset, bytes, str)) and bool(pd.isna(v)))
    except (TypeError, ValueError):
        return False


def entity_frame(counts: Mapping[str, tuple[int, int, int, int]]) -> DisplayTable:
    """entity -> (items, bytes, p50, max) as a frame with the mean size.

    ``p50_bytes`` is the size of a real item, the middle one in size order (the lower middle
    one for an even count), as everywhere in blue_nb."""
    df = pd.DataFrame([{"entity": e, "items": n, "bytes": b, "p50_bytes": p50, "max_bytes": mx}
                       for e, (n, b, p50, mx) in counts.items()])
    if not df.empty:
        df["mean_bytes"] = (df["bytes"] / df["items"]).round(1)
    return DisplayTable(df, left=["entity"])


def size_stats_frame(stats: Mapping[str, Mapping[str, int]]) -> DisplayTable:
    """The heat report's ``size_stats`` (entity -> count, p50, p95, max, bytes) as a table, largest entity first.

    p50 and p95 are sizes of real items (nearest rank): the item at 50 % and 95 % in size order."""
    rows = [{"entity": e, "items": s["count"], "p50_bytes": s["p50"], "p95_bytes": s["p95"], "max_bytes": s["max"],
             "bytes": s["bytes"]} for e, s in sorted(stats.items(), key=lambda kv: -kv[1]["bytes"])]
    return DisplayTable(pd.DataFrame(rows, columns=["entity", "items", "p50_bytes", "p95_bytes", "max_bytes", "bytes"]),
                 left=["entity"])


def largest_items_frame(rows: Iterable[tuple[str, str, str, int]]) -> DisplayTable:
    recs = []
    for pk, sk, entity, size in rows:
        c = item_costs(size)
        recs.append({"pk": pk, "sk": sk, "entity": entity, "size": size, "rcu_strong": c["rcu_strong"],
                     "rcu_eventual": c["rcu_eventual"], "wcu": c["wcu"]})
    return DisplayTable(pd.DataFrame(recs, columns=["pk", "sk", "entity", "size", "rcu_strong", "rcu_eventual", "wcu"]),
                 left=["pk", "sk", "entity"])


def partitions_frame(rows: Iterable[tuple[str, int, int]]) -> DisplayTable:
    return DisplayTable(pd.DataFrame([{"pk": pk, "items": n, "bytes": b} for pk, n, b in rows],
                              columns=["pk", "items", "bytes"]), left=["pk"])


def spec_frame(spec) -> DisplayTable:
    """One row per entity: its writer (ADR 0018's one writer per partition), source, key templates, then the
    attributes, the long column, last: a narrow notebook cuts the end of the table, never its keys."""
    t = spec.table
    rows = []
    for e in spec.entities.values():
        rows.append({"entity": e.name, "writer": e.writer, "source": e.source or e.name,
                     t.partition_key: e.key.get(t.partition_key),
                     **({t.sort_key: e.key.get(t.sort_key)} if t.sort_key else {}),
                     "index keys": ", ".join(f"{k}={v}" for k, v in e.key.items()
                                             if k not in (t.partition_key, t.sort_key)),
                     "attributes": ", ".join(f"{k}:{v}" for k, v in e.attributes.items())})
    df = pd.DataFrame(rows)
    return DisplayTable(df, left=list(df.columns))


def value_frame(values: Mapping[str, Any] | pd.Series) -> DisplayTable:
    """What values really are, one row per attribute (a map's members on rows of their own, ``details.pages``):
    the value as a table shows it, its DynamoDB type and the Python type the frame holds (``Decimal`` for a
    number, ``bytes`` for binary) - the real values of an item row, shown without a Python repr."""
    rows: list[dict[str, Any]] = []

    def add(path: str, v: Any) -> None:
        if isinstance(v, Mapping) and v:
            for k, x in v.items():
                add(f"{path}.{k}", x)
            return
        try:
            kind = next(iter(to_wire(v)))
        except BlueNbError:
            kind = ""
        rows.append({"attribute": path, "value": v, "DynamoDB type": kind, "Python type": type(v).__name__})

    for name, v in values.items():
        add(str(name), v)
    return DisplayTable(pd.DataFrame(rows, columns=["attribute", "value", "DynamoDB type", "Python type"]),
                        left=["attribute", "value"])
