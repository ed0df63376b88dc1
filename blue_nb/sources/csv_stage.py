"""A CSV file of an entity's rows straight to the rows a load stages (:class:`~blue_nb.patterns.staged.StagedRows`),
a chunk of records at a time and a column at a time: no row dict, no item dict, no item walk per row.

What :class:`~blue_nb.items.ItemBuilder` then :meth:`~blue_nb.patterns.TableLayout.rows` make of the same rows,
byte for byte: keys rendered from their templates (an index key with an empty value left out: a sparse
index), S attributes as they are, N attributes as canonical number text (an empty cell: no attribute),
the item's JSON in the same attribute order, its size by the same rules. It covers the common entity:
string keys, templates without a format spec, S and N attributes, every column in the file. Any other
entity, an empty file, and any chunk with something out of the ordinary (an empty table key value, a
number that does not parse) go the item way, which gives the same rows or the same located error.
"""

from __future__ import annotations

from itertools import chain, repeat
from pathlib import Path
from typing import Iterator

from blue_nb.errors import BlueNbError
from blue_nb.items import ItemBuilder
from blue_nb.items.item_json import quoted
from blue_nb.items.values import number_text, validate_number
from blue_nb.patterns import TableLayout
from blue_nb.patterns.staged import StagedRows
from blue_nb.sizing.numbers import number_size
from blue_nb.sources.files import Rows, csv_records
from blue_nb.spec import Entity, Spec

__all__ = ["CHUNK_ROWS", "csv_staged_rows"]

CHUNK_ROWS = 5_000


def csv_staged_rows(spec: Spec, entity: Entity, path: Path, created: str,
                    chunk: int = CHUNK_ROWS) -> Iterator[StagedRows | tuple]:
    """The staged rows of every row of ``entity``'s CSV file ``path``; ``(entity, item, where)`` tuples where
    the column way does not apply (see the module docstring), for the loader to build as it always does."""
    records = csv_records(path)
    header = next(records, (0, []))[1]
    first = next(records, None)                        # no rows: the item way says whether that is an error
    plan = _Plan.of(spec, entity, header) if first is not None else None
    if plan is None:                                   # the item way says what is wrong, or builds them
        rows = ((f"{path}:{line}", dict(zip(header, row))) for line, row in chain([first] if first else [], records))
        for where, item in ItemBuilder(spec).located(entity, Rows(path, rows)):
            yield entity.name, item, where
        return
    prefix, part = f"{path}:", []
    for record in chain([first], records):
        part.append(record)
        if len(part) == chunk:
            yield from plan.rows(part, prefix, created)
            part = []
    if part:
        yield from plan.rows(part, prefix, created)


class _Plan:
    """How one entity's CSV columns become its staged rows (None from :meth:`of` when they cannot here)."""

    @classmethod
    def of(cls, spec: Spec, entity: Entity, header: list[str]) -> "_Plan | None":
        t, col = spec.table, {name: i for i, name in enumerate(header)}
        attrs, layout = entity.attributes, TableLayout.of(spec)
        key_types = {t.partition_key: t.partition_key_type, **({t.sort_key: t.sort_key_type} if t.sort_key else {})}
        for idx in t.indexes.values():
            for attr, typ in ((idx.partition_key, idx.partition_key_type), (idx.sort_key, idx.sort_key_type)):
                if attr:
                    key_types.setdefault(attr, typ)
        if (any(typ != "S" for typ in key_types.values()) or any(a in entity.templates for a in attrs)
                or any(d not in ("S", "N") or a not in col for a, d in attrs.items())
                or layout.pk not in entity.templates or (layout.sk and layout.sk not in entity.templates)
                or any(attrs.get(a) == "N" for pair in layout.indexes.values() for a in pair if a)):
            return None
        templates = []
        for attr, tpl in entity.templates.items():
            parts = tpl._plain_parts
            if parts is None or any(is_name and text not in col for text, is_name in parts):
                return None
            templates.append((attr, [col[text] if is_name else text for text, is_name in parts]))
        return cls(spec, entity, header, templates, [(a, d, col[a]) for a, d in attrs.items()])

    def __init__(self, spec: Spec, entity: Entity, header: list[str], templates: list, attrs: list):
        self.spec, self.entity, self.header, self.templates, self.attrs = spec, entity, header, templates, attrs
        self.layout = layout = TableLayout.of(spec)
        self.table_keys = {layout.pk, layout.sk} - {None}
        self.numbers: dict[str, tuple[str, int]] = {}   # cell text -> (its JSON, its size): a column repeats values

    def rows(self, records: list[tuple[int, list[str]]], prefix: str, created: str) -> Iterator[StagedRows | tuple]:
        try:
            staged = self._columns(records, prefix, created)
        except (BlueNbError, _Other):
            build = ItemBuilder(self.spec).build           # the item way: the same rows, or the error
            for line, row in records:
                where = f"{prefix}{line}"
                yield self.entity.name, build(self.entity, dict(zip(self.header, row)), where), where
            return
        yield staged

    def _columns(self, records: list, prefix: str, created: str) -> StagedRows:
        n = len(records)
        cols = list(zip(*(row for _, row in records)))
        values: dict[str, list | tuple] = {}       # attribute -> its value per row (None: not in the item)
        frags, sizes = [], []
        for attr, parts in self.templates:
            cells = [cols[p] for p in parts if not isinstance(p, str)]
            empty = any("" in c for c in cells)
            if empty and attr in self.table_keys:
                raise _Other                       # a table key without a value: the item way names the row
            rendered = (list(map("".join, zip(*(repeat(p, n) if isinstance(p, str) else cols[p] for p in parts))))
                        if cells else ["".join(parts)] * n)
            if empty:                              # a sparse index key: no attribute where a value is empty
                rendered = [None if "" in vs else r for r, vs in zip(rendered, zip(*cells))]
            values[attr] = rendered
            frags.append(_strings(attr, rendered))
            sizes.append(_string_sizes(attr, rendered))
        for attr, dtype, i in self.attrs:
            cells = cols[i]
            values[attr] = cells if dtype == "S" else None
            if dtype == "S":
                frags.append(_strings(attr, cells))
                sizes.append(_string_sizes(attr, cells))
            else:
                known = [self._number(c) if c else None for c in cells]
                head, name = f"{quoted(attr)}:{{\"N\":\"", len(attr.encode("utf-8"))
                frags.append(["" if k is None else f"{head}{k[0]}\"}}" for k in known])
                sizes.append([0 if k is None else name + k[1] for k in known])
        data = ["{" + ",".join(filter(None, f)) + "}" for f in zip(*frags)]
        total = list(map(sum, zip(*sizes)))
        pk, sk = values[self.layout.pk], values[self.layout.sk] if self.layout.sk else [""] * n
        made = values.get("created_at")
        made = [m if m is not None else created for m in made] if made is not None else repeat(created, n)
        index_cols, none = [], [None] * n
        for ipk, isk in self.layout.indexes.values():
            a = values.get(ipk) or none
            b = (values.get(isk) or none) if isk else None
            if b is None or (None not in a and None not in b):
                index_cols += [a, b or none]
            else:                                  # an index holds an item with both its keys, or not at all
                has = [x is not None and y is not None for x, y in zip(a, b)]
                index_cols += [[x if h else None for x, h in zip(a, has)], [y if h else None for y, h in zip(b, has)]]
        name = self.entity.name
        return StagedRows(main=list(zip(pk, sk, data, made)),
                          cat=list(zip(pk, sk, repeat(name, n), total, *index_cols)),
                          entities=[name] * n, wheres=[f"{prefix}{line}" for line, _ in records])

    def _number(self, text: str) -> tuple[str, int]:
        got = self.numbers.get(text)
        if got is None:
            d = validate_number(text)
            got = self.numbers[text] = (number_text(d), number_size(d))
        return got


class _Other(Exception):
    """A chunk the column way does not build: the item way builds it (or names what is wrong)."""


def _strings(attr: str, cells) -> list[str]:
    head = f"{quoted(attr)}:{{\"S\":"
    return ["" if c is None else f"{head}{quoted(c)}}}" for c in cells]


def _string_sizes(attr: str, cells) -> list[int]:
    name = len(attr.encode("utf-8"))
    return [0 if c is None else name + (len(c) if c.isascii() else len(c.encode("utf-8"))) for c in cells]
