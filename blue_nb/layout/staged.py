"""The rows a load stages for a run of items: each item's table row ``(pk, sk, data, created_at)``, its
catalog row ``(pk, sk, entity, size, index keys...)``, its entity and where it came from.

A source that builds these rows itself (a CSV file read column by column,
:mod:`blue_nb.sources.csv_stage`) hands them to the loader as they are; items given one by one become
rows here (:meth:`StagedRows.of_items`), through the same :meth:`~blue_nb.layout.TableLayout.rows`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from blue_nb.layout.tables import TableLayout
from blue_nb.sizing import item_sizes

__all__ = ["StagedRows", "load_time"]


def load_time() -> str:
    """The ``created_at`` a load gives the items that carry none of their own: now, to the second (UTC)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class StagedRows:
    """Table rows, catalog rows, entities and source locations (``file:line``) of a run of items, in order."""

    main: list[tuple] = field(default_factory=list)
    cat: list[tuple] = field(default_factory=list)
    entities: list[str | None] = field(default_factory=list)
    wheres: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.main)

    def extend(self, other: "StagedRows") -> None:
        self.main += other.main
        self.cat += other.cat
        self.entities += other.entities
        self.wheres += other.wheres

    @classmethod
    def of_items(cls, layout: TableLayout, entries: list[tuple], created: str, first: int = 1) -> "StagedRows":
        """``(entity, item)`` or ``(entity, item, where)`` tuples -> their rows, the items sized together; an
        entry without a ``where`` is named by its position in the load (``first``: the position of the first)."""
        out = cls()
        sizes = item_sizes([x[1] for x in entries])
        for n, (x, size) in enumerate(zip(entries, sizes), first):
            entity, item = x[0], x[1]
            m, c = layout.rows(entity, item, size, created)
            out.main.append(m)
            out.cat.append(c)
            out.entities.append(entity)
            out.wheres.append(x[2] if len(x) > 2 and x[2] else f"item {n:,} of the load")
        return out
