"""What a change to the items would save: drop or move attributes out of an entity's items,
or give attributes shorter names, and compare sizes and capacity units before and after.

Layer 3: reads items from a store, sizes them with :mod:`blue_nb.sizing`.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from blue_nb.errors import SpecError
from blue_nb.sizing import MAX_ITEM_BYTES, STORAGE_OVERHEAD, item_sizes, read_units, write_units
from blue_nb.spec import Spec
from blue_nb.stores import Store
from blue_nb.app.workflows import as_spec

__all__ = ["short_names", "size_whatif"]


def short_names(names: Sequence[str], keep: Sequence[str] = ()) -> dict[str, str]:
    """Short, unique names for attributes (``content`` -> ``c``, ``created_at`` -> ``ca``); ``keep`` stays."""
    out: dict[str, str] = {}
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


def _stats(label: str, sizes: list[int]) -> dict:
    s = pd.Series(sizes, dtype="int64")
    return {
        "scenario": label, "items": len(sizes), "bytes": int(s.sum()), "p50": int(s.median()),
        "p95": int(s.quantile(0.95)), "max": int(s.max()),
        "over_400KB": int((s > MAX_ITEM_BYTES).sum()),
        "rcu_per_read": float(s.map(read_units).mean()),
        "wcu_per_write": float(s.map(write_units).mean()),
        "storage_bytes": int(s.sum() + STORAGE_OVERHEAD * len(sizes)),
    }


def size_whatif(store: Store, spec: Spec | str | Path, entity: str, *, drop: Sequence[str] = (),
                rename: Mapping[str, str] | None = None, limit: int = 100_000) -> pd.DataFrame:
    """Sizes and per-request capacity of ``entity``'s items now and after the change, with the saving.

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
    items = list(islice(store.iter_items(spec.table_name, entity), limit))
    if not items:
        raise SpecError(f"the store holds no {entity} items", where=f"entities.{entity}",
                        hint="load the data first (load_data / blue-nb load)")
    changed = [{rename.get(k, k): v for k, v in i.items() if k not in drop} for i in items]
    label = " + ".join(filter(None, [f"without {', '.join(drop)}" if drop else "",
                                     f"{len(rename)} shorter names" if rename else ""])) or "unchanged"
    before, after = _stats("now", item_sizes(items)), _stats(label, item_sizes(changed))
    saving = {k: (before[k] - after[k] if isinstance(before[k], (int, float)) else "saving") for k in before}
    saving["scenario"], saving["items"] = "saving", before["items"]
    frame = pd.DataFrame([before, after, saving]).set_index("scenario")
    return frame.round({"rcu_per_read": 2, "wcu_per_write": 2})
