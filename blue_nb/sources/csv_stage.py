"""A CSV file of an entity's rows straight to the rows a load stages (:class:`~blue_nb.layout.StagedRows`),
a chunk of records at a time and a column at a time: no row dict, no item dict, no item walk per row.

What :class:`~blue_nb.items.ItemBuilder` then :meth:`~blue_nb.layout.TableLayout.rows` make of the same rows,
byte for byte (the tests hold the item way as the oracle): keys rendered from their templates (format specs
applied cell by cell; S, N or B as the table says; an index key with an empty value left out: a sparse
index), S attributes as they are, N attributes as canonical number text, the other types converted cell by
cell by :func:`~blue_nb.items.coerce_attribute` (an empty cell: no attribute), the item's JSON in the same
attribute order, its size by the same rules. A chunk with a row the rules refuse (an empty table key value,
a number that does not parse, a cell that is not of its type or format) is refused with that row's error,
worded by :meth:`~blue_nb.items.ItemBuilder.build` as for any source.

It covers every file with rows whose header holds every declared attribute (a template's placeholder the
header lacks: no such key, or, for a table key, that row's error). The two others go the item way, for its
error: a declared attribute the header lacks (:meth:`~blue_nb.items.ItemBuilder.located` names it after the
first row), and a file without rows (an error unless the entity allows it, then no rows).

The file is read by pyarrow's CSV reader (:func:`arrow_batches`: bytes to Arrow columns in C++, each value's
UTF-8 length read off the column's offsets) when a first pass proves that it reads the file exactly as the
csv module does: strict quoting, no NUL, no lone carriage return, one field per column on every row, no
blank line, valid UTF-8. Any other file is read by :func:`~blue_nb.sources.files.csv_records`, which names
what is wrong where; both give the same chunks (:class:`Batch`) to the same column code.
"""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import chain, repeat
from pathlib import Path
from typing import Any, Iterator, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from blue_nb.errors import BlueNbError, SourceError
from blue_nb.items import MISSING, ItemBuilder, coerce_attribute
from blue_nb.items.item_json import quoted
from blue_nb.items.values import dumps_wire, number_text, to_wire, validate_number
from blue_nb.layout import TableLayout, stored_key
from blue_nb.layout import StagedRows
from blue_nb.sizing import number_size, value_size
from blue_nb.sizing.columnar import item_size_column, text_buffers
from blue_nb.sources.files import Rows, csv_records
from blue_nb.spec import Entity, Spec

__all__ = ["CHUNK_ROWS", "Batch", "arrow_batches", "column_batches", "csv_staged_rows"]

CHUNK_ROWS = 5_000
_ARROW_BLOCK = 1 << 20       # bytes pyarrow parses at a time (a record longer than this: the csv module reads it)
_SCAN_BLOCK = 8 << 20        # bytes the first pass checks at a time
_QUOTE, _COMMA, _LF, _CR = 34, 44, 10, 13
_NUMBERS = 100_000            # distinct number texts remembered per entity
_CANONICAL = re.compile(r"0|-?(?:[1-9][0-9]*|0(?=\.))(?:\.[0-9]*[1-9])?")   # a number text number_text gives back


def csv_staged_rows(spec: Spec, entity: Entity, path: Path, created: str,
                    chunk: int = CHUNK_ROWS) -> Iterator[StagedRows | tuple]:
    """The staged rows of every row of ``entity``'s CSV file ``path``; ``(entity, item, where)`` tuples for an
    entity the column way does not cover (see the module docstring), for the loader to build as it always does."""
    got = column_batches(spec, entity, path, chunk)
    if isinstance(got, tuple):
        plan, batches = got
        prefix = f"{path}:"
        for batch in batches:
            yield from plan.rows(batch, prefix, created)
        return
    for where, item in ItemBuilder(spec).located(entity, got):    # the item way says what is wrong, or builds them
        yield entity.name, item, where


def column_batches(spec: Spec, entity: Entity, path: Path,
                   chunk: int = CHUNK_ROWS) -> "tuple[_Plan, Iterator[Batch]] | Rows":
    """How the column way reads ``entity``'s CSV file: its plan and its chunks of rows (:class:`Batch`, read by
    pyarrow where :func:`arrow_batches` can, else by the csv module), or, where the column way does not
    apply, the file's rows for the item way."""
    records = csv_records(path)
    header = next(records, (0, []))[1]
    first = next(records, None)                        # no rows: the item way says whether that is an error
    plan = _Plan.of(spec, entity, header) if first is not None else None
    if plan is None:
        rows = ((f"{path}:{line}", dict(zip(header, row))) for line, row in chain([first] if first else [], records))
        return Rows(path, rows)
    fast = arrow_batches(path, header, chunk) if first[0] == 2 else None
    if fast is not None:
        records.close()
        return plan, fast
    return plan, _record_batches(chain([first], records), chunk)


class Batch:
    """A chunk of rows of a CSV file: the line each starts on, and the file's columns (a column per header
    name) as Arrow arrays or as Python lists; each column's values and UTF-8 byte lengths made on demand."""

    def __init__(self, lines: list[int], arrays: list | None = None, cols: list | None = None):
        self.lines, self.arrays = lines, arrays
        self._cols: dict[int, list] = dict(enumerate(cols)) if cols is not None else {}
        self._lengths: dict[int, np.ndarray] = {}
        self._values: dict[int, list] = {}
        self._formatted: dict[_Column, list[str]] = {}

    def __len__(self) -> int:
        return len(self.lines)

    def col(self, i: int) -> list:
        got = self._cols.get(i)
        if got is None:
            got = self._cols[i] = self.arrays[i].to_pylist()
        return got

    def lengths(self, i: int) -> np.ndarray:
        """The UTF-8 byte length of each value of column ``i``."""
        got = self._lengths.get(i)
        if got is None:
            if self.arrays is not None:
                got = pc.binary_length(self.arrays[i]).to_numpy(zero_copy_only=False).astype(np.int64)
            else:
                col = self._cols[i]
                enc = col if "".join(col).isascii() else map(str.encode, col)
                got = np.fromiter(map(len, enc), np.int64, len(col))
            self._lengths[i] = got
        return got

    def key_texts(self, part: "_Column") -> list[str]:
        """The text a key template's placeholder ``part`` writes for each row: the cell itself, or the cell
        through the placeholder's format spec (:meth:`~blue_nb.spec.templates.Placeholder.format`; "" for an
        empty cell, which a table key refuses and an index key leaves out)."""
        if not part.fmt:
            return self.col(part.i)
        got = self._formatted.get(part)
        if got is None:
            fmt = part.fmt.format
            got = self._formatted[part] = [fmt(c) if c else "" for c in self.col(part.i)]
        return got

    def key_lengths(self, part: "_Column") -> np.ndarray:
        """The UTF-8 byte length of each of :meth:`key_texts`."""
        if not part.fmt:
            return self.lengths(part.i)
        texts = self.key_texts(part)
        return np.fromiter(map(len, texts if "".join(texts).isascii() else map(str.encode, texts)), np.int64,
                           len(texts))

    def values(self, i: int, dtype: str) -> list:
        """Column ``i``'s cells as values of DynamoDB type ``dtype`` (:func:`~blue_nb.items.coerce_attribute`:
        ``MISSING`` for an empty cell); an :class:`~blue_nb.errors.ItemError` for a cell that is not one."""
        got = self._values.get(i)
        if got is None:
            got = self._values[i] = [coerce_attribute(c, dtype) for c in self.col(i)]
        return got

    def array(self, i: int) -> Any:
        """Column ``i`` as an Arrow string array."""
        if self.arrays is not None:
            return self.arrays[i]
        return pa.array(self._cols[i], pa.string())

    def records(self) -> list[tuple[int, tuple]]:
        """(line, fields) of each row, for the item way."""
        n = len(self.arrays) if self.arrays is not None else len(self._cols)
        return list(zip(self.lines, zip(*(self.col(i) for i in range(n)))))


def _record_batches(records, chunk: int) -> Iterator[Batch]:
    """The csv module's records (line, fields) in chunks of ``chunk``, each a Batch of Python lists."""
    part: list = []
    for record in records:
        part.append(record)
        if len(part) == chunk:
            yield _of_records(part)
            part = []
    if part:
        yield _of_records(part)


def _of_records(part: list) -> Batch:
    return Batch([line for line, _ in part], cols=[list(c) for c in zip(*(row for _, row in part))])


def arrow_batches(path: Path, header: list[str], chunk: int = CHUNK_ROWS) -> Iterator[Batch] | None:
    """The rows after the one-line header of the CSV file ``path``, read by pyarrow a block at a time and cut
    into chunks of ``chunk`` rows, each row with its line; None unless a first pass shows that pyarrow reads
    the file exactly as the csv module does (see the module docstring)."""
    names = [f"c{i}" for i in range(len(header))]        # the header was checked: pyarrow needs names only
    options = dict(read_options=pcsv.ReadOptions(block_size=_ARROW_BLOCK, column_names=names, skip_rows=1),
                   parse_options=pcsv.ParseOptions(newlines_in_values=True),
                   convert_options=pcsv.ConvertOptions(column_types=dict.fromkeys(names, pa.string()),
                                                       strings_can_be_null=False, quoted_strings_can_be_null=False))
    records = _strict_records(path)
    if records is None:
        return None
    try:
        seen = 1 + sum(rb.num_rows for rb in pcsv.open_csv(path, **options))   # the header, then the rows
    except (pa.ArrowException, OSError):
        return None
    if seen != records:                                   # a blank line, or a row the csv module reads otherwise
        return None
    return _arrow_chunks(path, pcsv.open_csv(path, **options), chunk)


def _breaks(arrays) -> np.ndarray:
    """The line breaks inside each row's values, found in the columns' bytes."""
    out = np.zeros(len(arrays[0]) if arrays else 0, np.int64)
    for a in arrays:
        offsets, data = text_buffers(a)
        at = np.flatnonzero(data[offsets[0]:offsets[-1]] == _LF) + offsets[0]
        if at.size:
            out += np.searchsorted(at, offsets[1:]) - np.searchsorted(at, offsets[:-1])
    return out


def _arrow_chunks(path: Path, reader, chunk: int) -> Iterator[Batch]:
    line = 2
    try:
        for rb in reader:
            for start in range(0, rb.num_rows, chunk):
                part = rb.slice(start, chunk)
                span = 1 + _breaks(part.columns)               # lines each row takes
                firsts = line + np.concatenate(([0], np.cumsum(span)[:-1]))
                line += int(span.sum())
                yield Batch(firsts.tolist(), arrays=part.columns)
    except (pa.ArrowException, OSError, ValueError) as e:  # the first pass read it whole: it changed since
        raise SourceError(f"the file changed or could not be read while it was loaded: {e}", where=f"{path}:{line}",
                          hint="load again once nothing else writes the file", cause=e) from e


def _strict_records(path: Path) -> int | None:
    """The number of records (lines but those inside quoted values) of a file whose bytes hold no NUL, no
    carriage return but before a line feed, and only strict quoting (a quote opens a field, closes it before a
    comma, a line end or the file's end, or is doubled inside it); None for any other file."""
    ends, parity, prev, carry = 0, 0, _LF, b""
    with path.open("rb") as f:
        while True:
            block = f.read(_SCAN_BLOCK)
            data = carry + block
            end = len(data) - 1 if block else len(data)      # the last byte waits for the byte after it
            if end <= 0:
                if block:
                    carry = data
                    continue
                break
            buf = np.frombuffer(data, np.uint8)
            head = buf[:end]
            cr = np.flatnonzero(head == _CR)
            if (head == 0).any() or cr.size and (cr[-1] + 1 == len(buf) or (buf[cr + 1] != _LF).any()):
                return None
            q = np.flatnonzero(head == _QUOTE)
            if q.size:
                before = np.where(q > 0, buf[np.maximum(q - 1, 0)], prev)
                after = buf[np.minimum(q + 1, len(buf) - 1)]
                opens = (np.arange(q.size) + parity) % 2 == 0
                ok_open = (before == _COMMA) | (before == _LF) | (before == _QUOTE)
                ok_close = (q + 1 == len(buf)) | (after == _COMMA) | (after == _LF) | (after == _CR) | (after == _QUOTE)
                if not np.where(opens, ok_open, ok_close).all():
                    return None
            lf = np.flatnonzero(head == _LF)
            ends += int(np.count_nonzero((np.searchsorted(q, lf) + parity) % 2 == 0))   # outside quotes
            parity = (parity + q.size) % 2
            prev, carry = int(head[-1]), data[end:]
    if parity:
        return None                                       # a quote left open
    return ends + (prev != _LF)


class _Plan:
    """How one entity's CSV columns become its staged rows (None from :meth:`of` when they cannot here)."""

    @classmethod
    def of(cls, spec: Spec, entity: Entity, header: list[str]) -> "_Plan | None":
        t, col = spec.table, {name: i for i, name in enumerate(header)}
        attrs = entity.attributes
        key_types = {t.partition_key: t.partition_key_type, **({t.sort_key: t.sort_key_type} if t.sort_key else {})}
        for idx in t.indexes.values():
            for attr, typ in ((idx.partition_key, idx.partition_key_type), (idx.sort_key, idx.sort_key_type)):
                if attr:
                    key_types.setdefault(attr, typ)
        if any(a not in col for a in attrs):           # the item way says which (ItemBuilder.located)
            return None
        templates = []
        for attr, tpl in entity.templates.items():     # parts None: a placeholder the file has not, so no key
            parts = None if any(not isinstance(p, str) and p.name not in col for p in tpl.parts) else [
                p if isinstance(p, str) else _Column(col[p.name], p.fmt and p) for p in tpl.parts]
            templates.append((attr, parts, key_types.get(attr, "S")))
        return cls(spec, entity, header, templates, [(a, d, col[a]) for a, d in attrs.items()])

    def __init__(self, spec: Spec, entity: Entity, header: list[str], templates: list, attrs: list):
        self.spec, self.entity, self.header, self.templates, self.attrs = spec, entity, header, templates, attrs
        self.key_types = {attr: typ for attr, _, typ in templates}
        self.layout = layout = TableLayout.of(spec)
        self.table_keys = {layout.pk, layout.sk} - {None}
        self.index_keys = {a for pair in layout.indexes.values() for a in pair if a}
        self.numbers: dict[str, str] = {}   # cell text -> its canonical number text: a column repeats values

    def rows(self, batch: Batch, prefix: str, created: str) -> Iterator[StagedRows]:
        try:
            staged = self._columns(batch, prefix, created)
        except (BlueNbError, _Other) as fault:
            raise self._refusal(batch, prefix, fault) from None
        yield staged

    def _refusal(self, batch: Batch, prefix: str, fault: Exception) -> Exception:
        """The error of a chunk the column way refuses: that of its first row the item rules refuse, worded by
        :meth:`~blue_nb.items.ItemBuilder.build` (the rules' one statement: the same error a row gives
        wherever it comes from); the column way's own ``fault`` if no row is refused (never seen)."""
        build = ItemBuilder(self.spec).build
        for line, row in batch.records():
            try:
                build(self.entity, dict(zip(self.header, row)), f"{prefix}{line}")
            except BlueNbError as e:
                return e
        return fault

    def sizes(self, batch: Batch) -> np.ndarray:
        """The size of each row's item (:func:`~blue_nb.sizing.item_size`, to the byte), a column at a time: a key
        is its name, its template's text and its values' UTF-8 lengths; the S and N attributes are sized by
        :func:`~blue_nb.sizing.columnar.item_size_column` (an empty N cell: no attribute), the others value by
        value."""
        total = np.zeros(len(batch), np.int64)
        for attr, parts, typ in self.templates:
            if parts is None:
                if attr in self.table_keys:
                    raise _Other                   # a table key the file has no column for: _refusal says which
                continue
            if typ == "N":                                 # a number key: the size of the number it renders
                name = _utf8(attr)
                total += np.fromiter((0 if k is None else name + number_size(k)
                                      for k in self._keys(batch, attr, parts, typ)), np.int64, len(batch))
                continue
            cols = [p for p in parts if not isinstance(p, str)]
            text = _utf8(attr) + sum(_utf8(p) for p in parts if isinstance(p, str))
            size = sum(map(batch.key_lengths, cols), np.int64(text))
            present = np.logical_and.reduce([batch.lengths(p.i) > 0 for p in cols]) if cols else None
            if present is not None and not present.all():
                if attr in self.table_keys:
                    raise _Other                   # a table key without a value: _refusal names the row
                size = np.where(present, size, 0)  # a sparse index key: no attribute where a value is empty
            total += size
        columns = {}
        for attr, dtype, i in self.attrs:
            if dtype not in ("S", "N"):                    # B BOOL NULL L M SS NS BS: value by value
                name = _utf8(attr)
                total += np.fromiter((0 if v is MISSING else name + value_size(v) for v in batch.values(i, dtype)),
                                     np.int64, len(batch))
                continue
            present = batch.lengths(i) > 0
            columns[attr] = (batch.array(i) if dtype == "S" or present.all() else
                             pc.if_else(pa.array(present), batch.array(i), pa.scalar(None, pa.string())))
        if columns:
            total += item_size_column(pa.table(columns), {attr: self.entity.attributes[attr] for attr in columns})
        return total

    def _columns(self, batch: Batch, prefix: str, created: str) -> StagedRows:
        n = len(batch)
        total = self.sizes(batch).tolist()         # first: it refuses a table key without a value
        values: dict[str, list | tuple] = {}       # attribute -> its value per row (None: not in the item)
        frags: list[list[str]] = []              # each attribute's JSON member per row, all but the first after a comma
        for attr, parts, typ in self.templates:
            keys = self._keys(batch, attr, parts, typ)
            values[attr] = keys if typ == "S" else [None if k is None else stored_key(k) for k in keys]
            frags.append(_strings(attr, keys, "," if frags else "") if typ == "S" else
                         [_key_member(attr, k, "," if frags else "") for k in keys])
        for attr, dtype, i in self.attrs:
            cells = batch.col(i)
            values[attr] = cells if dtype == "S" else None if attr not in self.index_keys else [
                None if v is MISSING else stored_key(v) for v in batch.values(i, dtype)]
            if dtype == "S":
                frags.append(_strings(attr, cells, "," if frags else ""))
            elif dtype == "N":
                head = f"{',' if frags else ''}{quoted(attr)}:{{\"N\":\""
                frags.append(["" if not c else f"{head}{self._number(c)}\"}}" for c in cells])
            else:
                head = f"{',' if frags else ''}{quoted(attr)}:"
                frags.append(["" if v is MISSING else head + _wire_text(v, dtype, attr) for v in batch.values(i, dtype)])
        if "" in frags[0]:                         # an item without the first attribute: drop the comma the next has
            data = ["{" + "".join(f).lstrip(",") + "}" for f in zip(*frags)]
        else:
            data = list(map(("{{" + "{}" * len(frags) + "}}").format, *frags))
        pk, sk = values[self.layout.pk], values[self.layout.sk] if self.layout.sk else [""] * n
        typ = self.key_types.get("created_at") or self.entity.attributes.get("created_at", "S")
        made = values.get("created_at") if typ == "S" else None
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
                          entities=[name] * n, wheres=[f"{prefix}{line}" for line in batch.lines])

    def _keys(self, batch: Batch, attr: str, parts: list | None, typ: str) -> list:
        """The key ``attr`` of each row, rendered from its template ``parts``, None where a value is empty (a sparse
        index key; a table key is refused), as :meth:`~blue_nb.items.ItemBuilder.build` makes it of type ``typ``:
        a str (S), an exact Decimal (N) or bytes (B)."""
        n = len(batch)
        if parts is None:
            if attr in self.table_keys:
                raise _Other
            return [None] * n
        cells = [batch.col(p.i) for p in parts if not isinstance(p, str)]
        rendered = (list(map("".join, zip(*(repeat(p, n) if isinstance(p, str) else batch.key_texts(p) for p in parts))))
                    if cells else ["".join(parts)] * n)
        if any((batch.lengths(p.i) == 0).any() for p in parts if not isinstance(p, str)):
            rendered = [None if "" in vs else r for r, vs in zip(rendered, zip(*cells))]
        if "" in rendered or (attr in self.table_keys and None in rendered):   # an empty key: the rules refuse it
            raise _Other
        if typ == "N":
            return [None if r is None else validate_number(r) for r in rendered]
        return rendered if typ == "S" else [None if r is None else r.encode("utf-8") for r in rendered]

    def _number(self, text: str) -> str:
        """The canonical text of the number in a cell (:func:`~blue_nb.items.values.number_text`); a text
        already canonical (plain, no sign on zero, no trailing zero after the point, under 38 digits) is its
        own. Remembered per distinct text, at most _NUMBERS of them."""
        got = self.numbers.get(text)
        if got is None:
            if len(self.numbers) >= _NUMBERS:
                self.numbers.clear()
            got = self.numbers[text] = (text if len(text) < 38 and _CANONICAL.fullmatch(text)
                                        else number_text(validate_number(text)))
        return got


class _Column(NamedTuple):
    """A placeholder of a key template in the file: its column ``i``, and its
    :class:`~blue_nb.spec.templates.Placeholder` when it has a format spec (else "")."""

    i: int
    fmt: Any


class _Other(Exception):
    """A chunk with a table key without a value: :meth:`_Plan._refusal` names the row."""


def _strings(attr: str, cells, lead: str) -> list[str]:
    """Each value's JSON member ``lead"attr":{"S":"value"}`` ("" where the value is None)."""
    head = f"{lead}{quoted(attr)}:{{\"S\":"
    return ["" if c is None else f"{head}{quoted(c)}}}" for c in cells]


def _key_member(attr: str, key: Any, lead: str) -> str:
    """The JSON member ``lead"attr":{"N":"12"}`` of a number or binary key ("" where the key is None)."""
    if key is None:
        return ""
    text = f'{{"N":"{number_text(key)}"}}' if isinstance(key, Decimal) else _wire_text(key, "B", attr)
    return f"{lead}{quoted(attr)}:{text}"


def _wire_text(value: Any, dtype: str, attr: str) -> str:
    """The DynamoDB JSON text of a B / BOOL / NULL / L / M / SS / NS / BS value, as
    :func:`~blue_nb.items.item_json.dumps_item` writes it."""
    if dtype == "BOOL":
        return '{"BOOL":true}' if value else '{"BOOL":false}'
    if dtype == "NULL":
        return '{"NULL":true}'
    return dumps_wire(to_wire(value, attr))


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))
