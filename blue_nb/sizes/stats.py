"""Item and entry sizes as frames: what each entity's items weigh, what the 4 KB / 1 KB rounding
wastes, which attributes carry the bytes, and how big the index entries are.

All aggregation is SQL on the catalog; only the per-attribute split reads items, a bounded
reservoir sample per entity.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from blue_nb.items.values import loads_wire
from blue_nb.layout import TableLayout
from blue_nb.sizing import READ_UNIT_BYTES, WRITE_UNIT_BYTES, str_size, wire_value_size
from blue_nb.spec import Spec
from blue_nb.stores.analytics import Scratch, frame, ident
from blue_nb.stores.entries import entries_table

__all__ = ["ATTR_SAMPLE", "attribute_size_frame", "entity_size_stats", "item_size_frame", "size_frames"]

ATTR_SAMPLE = 10_000           # items per entity: shares are stable well before this


def size_frames(scratch: Scratch, spec: Spec, *, sample: int = ATTR_SAMPLE, seed: int = 18) -> dict[str, pd.DataFrame]:
    """``sizes``, ``waste``, ``attrs`` and ``entries`` (the plots' data contract)."""
    store, cat = scratch.store, ident(TableLayout.of(spec).catalog)
    sizes = item_size_frame(scratch, cat)
    waste = frame(store, f"SELECT coalesce(entity, '?'), count(*), sum(size), "
                         f"sum(greatest(1, ceil(size / {READ_UNIT_BYTES}.0)) * {READ_UNIT_BYTES}), "
                         f"sum(greatest(1, ceil(size / {WRITE_UNIT_BYTES}.0)) * {WRITE_UNIT_BYTES}) "
                         f"FROM {cat} GROUP BY 1 ORDER BY 3 DESC, 1",
                  ["entity", "items", "bytes_used", "bytes_paid_read", "bytes_paid_write"])
    for col in waste.columns[1:]:
        waste[col] = waste[col].astype("int64")
    parts = [f"SELECT ? AS idx, esize FROM {entries_table(scratch, spec, name)} e" for name in spec.table.indexes]
    entries = (frame(store, " UNION ALL ".join(parts), ["index", "size"], list(spec.table.indexes)) if parts
               else pd.DataFrame(columns=["index", "size"]))
    return {"sizes": sizes, "waste": waste, "attrs": attribute_size_frame(scratch, spec, sample=sample, seed=seed),
            "entries": entries}


def item_size_frame(scratch: Scratch, cat: str) -> pd.DataFrame:
    """Every item's size with its entity (a categorical column): fetched as one numpy column per entity, so
    5M items take ~45 MB here, not the ~1 GB of a row tuple and Python objects per item."""
    names = [r[0] for r in scratch.execute(f"SELECT DISTINCT coalesce(entity, '?') FROM {cat} ORDER BY 1")]
    parts = [scratch.column(f"SELECT size FROM {cat} WHERE coalesce(entity, '?') = ?", [n]).astype(np.int64)
             for n in names]
    codes = np.repeat(np.arange(len(names), dtype=np.int32), [len(p) for p in parts])
    return pd.DataFrame({"entity": pd.Categorical.from_codes(codes, categories=names),
                         "size": np.concatenate(parts) if parts else np.zeros(0, np.int64)})


def attribute_size_frame(scratch: Scratch, spec: Spec, *, sample: int = ATTR_SAMPLE, seed: int = 18) -> pd.DataFrame:
    """Per entity and attribute: bytes (name + value, summed over a reservoir sample of at most
    ``sample`` items and scaled to all the entity's items) and the share of the entity's bytes."""
    layout = TableLayout.of(spec)
    cat, main = ident(layout.catalog), ident(layout.table)
    rows = []
    for entity, n in scratch.execute(f"SELECT coalesce(entity, '?'), count(*) FROM {cat} GROUP BY 1 ORDER BY 1"):
        sql = (f"SELECT data FROM (SELECT t.data FROM {main} t JOIN {cat} c ON c.pk = t.pk AND c.sk = t.sk "
               f"WHERE coalesce(c.entity, '?') = ?) USING SAMPLE reservoir({int(sample)} ROWS) REPEATABLE ({int(seed)})")
        totals: dict[str, int] = defaultdict(int)
        seen = 0
        for (data,) in scratch.rows(sql, [entity], 2000):
            seen += 1
            for name, value in loads_wire(data).items():
                totals[name] += str_size(name) + wire_value_size(value)
        scale = n / max(seen, 1)
        whole = sum(totals.values()) or 1
        rows += [(entity, a, int(round(b * scale)), b / whole) for a, b in sorted(totals.items(), key=lambda x: -x[1])]
    return pd.DataFrame(rows, columns=["entity", "attribute", "bytes", "share"])


def entity_size_stats(scratch: Scratch, spec: Spec) -> dict[str, dict[str, int]]:
    """Per entity: count, p50, p95 and max item bytes (``summary.json``'s ``item_sizes``)."""
    cat = ident(TableLayout.of(spec).catalog)
    rows = scratch.execute(f"SELECT coalesce(entity, '?'), count(*), quantile_disc(size, 0.5), "
                                 f"quantile_disc(size, 0.95), max(size), sum(size) FROM {cat} GROUP BY 1 ORDER BY 1")
    return {e: {"count": int(n), "p50": int(p50), "p95": int(p95), "max": int(mx), "bytes": int(b)}
            for e, n, p50, p95, mx, b in rows}
