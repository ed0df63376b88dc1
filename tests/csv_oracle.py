"""The item way of building a CSV file's staged rows: the oracle the column way (sources.csv_stage) is checked
against. Each row becomes an item by :class:`~blue_nb.items.ItemBuilder` (the rules every source follows),
then its rows by :meth:`~blue_nb.layout.TableLayout.rows` through :meth:`StagedRows.of_items`."""

from __future__ import annotations

from pathlib import Path

from blue_nb.items import ItemBuilder
from blue_nb.layout import TableLayout
from blue_nb.layout import StagedRows
from blue_nb.sources.files import iter_rows
from blue_nb.spec import Entity, Spec


def item_way_rows(spec: Spec, entity: Entity, path: Path, created: str) -> StagedRows:
    """The staged rows of every row of ``entity``'s CSV file ``path``, built item by item (or its error)."""
    located = [(entity.name, item, where) for where, item in ItemBuilder(spec).located(entity, iter_rows(path))]
    return StagedRows.of_items(TableLayout.of(spec), located, created)


def staged(parts: list, spec: Spec, created: str) -> StagedRows:
    """Everything a load gets from a source, as staged rows (tuples built the way the loader builds them)."""
    out, layout = StagedRows(), TableLayout.of(spec)
    for x in parts:
        out.extend(x if isinstance(x, StagedRows) else StagedRows.of_items(layout, [x], created))
    return out
