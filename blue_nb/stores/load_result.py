"""What a load did, per store, told truthfully: items before, written and after, what the load
replaced, how long it took; as one line of text (CLI), a compact repr and an HTML table (notebooks).

``replaced`` counts the items that were in the table before and are not there any more as they
were: in ``replace`` mode every one of them (the table is emptied, then filled from the data), in
``upsert`` mode those whose key the load wrote again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from html import escape

from blue_nb.spec.display import html_table

__all__ = ["LoadResult", "LoadResults"]

_NAMES = {"sqlite": "SQLite", "duckdb": "DuckDB"}


@dataclass(repr=False)
class LoadResult:
    """What one load did to one store's table: items before, written and after, replaced, per entity."""

    table: str
    items_written: int = 0
    per_entity: dict[str, int] = field(default_factory=dict)
    items_before: int = 0
    items_after: int = 0
    replaced: int = 0           # items of the table before that the load replaced (see the module docstring)
    load_id: str = ""           # the load's id in the stores' journal (blue_nb_loads)
    notes: list[str] = field(default_factory=list)   # for the user: a folder created, a recovery done
    mode: str = "replace"
    store: str = ""             # the store's kind (sqlite, duckdb)
    path: str = ""              # its file, or :memory:
    seconds: float = 0.0        # the whole load (one pass over the data for every store)

    @property
    def entities_text(self) -> str:
        return ", ".join(f"{n} {c:,}" for n, c in self.per_entity.items())

    def what_happened(self) -> str:
        """The load's effect on the table in words: replaced, upserted or loaded into an empty table."""
        if self.mode == "upsert":
            new = self.items_written - self.replaced
            return (f"upsert: {self.replaced:,} written over an item with the same key, {new:,} new, "
                    f"{self.items_after - self.items_written:,} other items kept")
        if self.items_before:
            return f"replace: the {self.items_before:,} items that were in the table were replaced"
        return "replace: the table was empty"

    def __str__(self) -> str:
        return (f"{self.table}: {self.items_written:,} items written ({self.entities_text}); "
                f"{self.items_after:,} in the table; {self.what_happened()}")

    def __repr__(self) -> str:
        where = f"{self.store} {_where(self.path)}".strip()
        return f"LoadResult({where}: {self}; {self.seconds:.1f} s)"


def _where(path: str) -> str:
    return "in memory" if path in ("", ":memory:") else os.path.normpath(path)


class LoadResults(list):
    """The results of one load, one per store (a list), shown as one table in a notebook."""

    def __repr__(self) -> str:
        return "\n".join(repr(r) for r in self) or "LoadResults([])"

    def _repr_html_(self) -> str:
        if not self:
            return "<p>nothing loaded</p>"
        first = self[0]
        head = (f"<p><b>Loaded {escape(first.table)}</b> in {first.seconds:.1f} s: {first.items_written:,} items "
                f"({escape(first.entities_text)}) into {len(self)} store{'s' if len(self) > 1 else ''}</p>")
        rows = [[_NAMES.get(r.store, r.store), _where(r.path), f"{r.items_before:,}", f"{r.items_written:,}",
                 f"{r.items_after:,}", f"{r.replaced:,}", r.what_happened()] for r in self]
        table = html_table(["store", "file", "items before", "written", "items after", "replaced", "what happened"],
                           rows, right=(2, 3, 4, 5))
        notes = "".join(f"<li>{escape(_NAMES.get(r.store, r.store))}: {escape(n)}</li>" for r in self for n in r.notes)
        return head + table + (f"<ul>{notes}</ul>" if notes else "")
