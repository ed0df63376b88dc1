"""The entries of a loaded table and of each of its indexes, as an analytics query (a
:class:`~blue_nb.stores.analytics.Scratch`): what a read of the table or an index walks through, and
what each entry weighs. The heat model prices reads over them; the size statistics measure them.
"""

from __future__ import annotations

from blue_nb.items.values import loads_wire
from blue_nb.patterns import index_entry
from blue_nb.layout import TableLayout
from blue_nb.sizing import wire_item_sizes
from blue_nb.spec import Spec
from blue_nb.stores.analytics import Scratch, ident

__all__ = ["entries_table"]


def entries_table(scratch: Scratch, spec: Spec, index: str) -> str:
    """``(pk, sk, epk, esk, esize)`` of every entry of the table or of one index. Entry sizes are item
    sizes when the index projects ALL; otherwise they are computed in Python (exact, with
    :func:`blue_nb.patterns.index_entry`'s projection) for the items in the index."""
    key = f"ent_{index}"
    if key in scratch.cache:
        return scratch.cache[key]
    layout = TableLayout.of(spec)
    cat = ident(layout.catalog)
    if index == "table":
        sql = f"(SELECT pk, sk, pk AS epk, sk AS esk, size AS esize FROM {cat})"
    elif spec.table.indexes[index].projection == "all":
        ipk, isk = ident(layout.index_pk(index)), ident(layout.index_sk(index))
        sql = f"(SELECT pk, sk, {ipk} AS epk, {isk} AS esk, size AS esize FROM {cat} WHERE {ipk} IS NOT NULL)"
    else:
        sql = _projected_entries(scratch, spec, index)
    scratch.cache[key] = sql
    return sql


def _projected_entries(scratch: Scratch, spec: Spec, index: str) -> str:
    layout = TableLayout.of(spec)
    ipk, isk = ident(layout.index_pk(index)), ident(layout.index_sk(index))
    cat, main = ident(layout.catalog), ident(layout.table)
    sql = (f"SELECT c.pk, c.sk, c.{ipk}, c.{isk}, t.data FROM {cat} c JOIN {main} t ON t.pk = c.pk AND t.sk = c.sk "
           f"WHERE c.{ipk} IS NOT NULL")

    def rows():
        batch = []
        for row in scratch.rows(sql, [], 5000):
            batch.append(row)
            if len(batch) >= 5000:
                yield from _sized(spec, index, batch)
                batch = []
        yield from _sized(spec, index, batch)

    return scratch.upload(f"ent_{index}", {"pk": "TEXT", "sk": "TEXT", "epk": "TEXT", "esk": "TEXT",
                                           "esize": "BIGINT"}, rows())


def _sized(spec: Spec, index: str, batch: list) -> list[tuple]:
    wires = [loads_wire(r[4]) for r in batch]
    entries = [index_entry(w, spec, index) or {} for w in wires]        # projection works on wire items too
    return [(r[0], r[1], r[2], r[3], s) for r, s in zip(batch, wire_item_sizes(entries))]
