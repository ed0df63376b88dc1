"""What a change to the items would save: drop or move attributes out of an entity's items,
or give attributes shorter names, and compare sizes and capacity units before and after.

Layer 3: reads items from a store, sizes them with :mod:`blue_nb.sizing`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import math

import pandas as pd

from blue_nb.errors import SpecError
from blue_nb.printing import Fields
from blue_nb.sizing import MAX_ITEM_BYTES, STORAGE_OVERHEAD, item_sizes, read_units, write_units
from blue_nb.spec import Spec
from blue_nb.stores import Store
from blue_nb.app.display import DisplayTable
from blue_nb.app.workflows import as_spec

__all__ = ["MEASURES", "nearest_rank", "short_names", "size_whatif"]


def short_names(names: Sequence[str], keep: Sequence[str] = ()) -> dict[str, str]:
    """Short, unique names for attributes (``content`` -> ``c``, ``created_at`` -> ``ca``); ``keep`` stays.
    A dict (old name -> new name) a notebook shows as a table."""
    out: dict[str, str] = Fields()
    taken = set(keep)
    for name in names:
        if name in keep:
            continue
        parts = [p for p in name.replace("-", "_").split("_") if p]
        candidates = ["".join(p[0] for p in parts), name[:2], name[:3]]
        short = next((c for c in candidates if c and c not in taken), None)
        n = 2
        while short is None or short in taken:
            short, n = f"{name[0]}{n}", n + 1
        taken.add(short)
        out[name] = short
    return out


#: the rows of a what-if table: measure -> what it means (the table's ``meaning`` column). The
#: percentiles are sizes of real items (:func:`nearest_rank`), the lower middle one for an even count.
MEASURES = {
    "items": "items compared",
    "bytes": "all their bytes",
    "p50_bytes": "median: the middle item by size",
    "p95_bytes": "the item at 95 % by size",
    "max_bytes": "largest item",
    "items_over_400KB": "items too big to store (over 409,600 B)",
    "rcu_per_read": "read units per strong read, mean",
    "wcu_per_write": "write units per write, mean",
    "storage_bytes": "billed storage: bytes + 100 per item",
}


def nearest_rank(sorted_sizes: Sequence[int], q: float) -> int:
    """The size of the item at fraction ``q`` in size order (nearest rank: a real item's size, never
    an average of two). The same definition as the stores' medians and the heat report's p50/p95
    (DuckDB's ``quantile_disc``), so one set of items shows one median everywhere."""
    return sorted_sizes[max(math.ceil(q * len(sorted_sizes)), 1) - 1]


def _stats(sizes: list[int]) -> dict:
    s = sorted(sizes)
    n = len(s)
    return {
        "items": n, "bytes": sum(s), "p50_bytes": nearest_rank(s, 0.5), "p95_bytes": nearest_rank(s, 0.95),
        "max_bytes": s[-1], "items_over_400KB": sum(1 for x in s if x > MAX_ITEM_BYTES),
        "rcu_per_read": round(sum(read_units(x) for x in s) / n, 2),
        "wcu_per_write": round(sum(write_units(x) for x in s) / n, 2),
        "storage_bytes": sum(s) + STORAGE_OVERHEAD * n,
    }


def size_whatif(store: Store, spec: Spec | str | Path, entity: str, *, drop: Sequence[str] = (),
                rename: Mapping[str, str] | None = None, limit: int = 100_000) -> DisplayTable:
    """Sizes and per-request capacity of ``entity``'s items now and after the change.

    One row per measure (:data:`MEASURES`: ``bytes``, ``p50_bytes``, ``items_over_400KB``, ...),
    columns ``now``, the changed scenario (``without content``, ``4 shorter names``), ``change``
    (after minus now, signed: ``-1`` items over 400 KB is one item fewer) and ``meaning``.

    ``drop`` removes attributes (for example a large ``content`` moved to S3 or to chunk items);
    ``rename`` maps attribute names to shorter ones (names count in every item's size). At most
    ``limit`` items (in key order) are compared.
    """
    spec = as_spec(spec)
    if entity not in spec.entities:
        raise SpecError(f"no entity named {entity!r}", where="entities", hint="known: " + ", ".join(spec.entities))
    rename = dict(rename or {})
    keys = set(spec.entities[entity].key)
    bad = [a for a in (*drop, *rename) if a in keys]
    if bad:
        raise SpecError(f"{', '.join(bad)} are key attributes of {entity}", where=f"entities.{entity}.key",
                        hint="key attributes cannot be dropped or renamed here; change the key template instead")
    items = list(store.iter_items(spec.table_name, entity, limit=limit))
    if not items:
        raise SpecError(f"the store holds no {entity} items", where=f"entities.{entity}",
                        hint="load the data first (load_data / blue-nb load)")
    changed = [{rename.get(k, k): v for k, v in i.items() if k not in drop} for i in items]
    label = " + ".join(filter(None, [f"without {', '.join(drop)}" if drop else "",
                                     f"{len(rename)} shorter names" if rename else ""])) or "unchanged"
    before, after = _stats(item_sizes(items)), _stats(item_sizes(changed))
    rows = [{"measure": m, "now": before[m], label: after[m],
             "change": round(after[m] - before[m], 2) if isinstance(before[m], float) else after[m] - before[m],
             "meaning": MEASURES[m]} for m in MEASURES]
    frame = pd.DataFrame(rows, dtype=object).set_index("measure")
    return DisplayTable(frame, left=["meaning"], signed=["change"], caption=f"{entity}: now and {label}")
