"""Relational source rows from files: CSV, Parquet and JSON Lines, streamed row by row.

Every row comes with where it came from (``file:line``, or ``file:row N`` for Parquet) so an
error can point at it. Nothing here holds a whole file in memory: lines and CSV records are read
with a bound (:data:`MAX_ROW_BYTES`), Parquet metadata is checked before pyarrow parses it, and
every way a file can be unreadable (not UTF-8, NUL bytes, malformed quoting, a truncated Parquet
file, a directory, no permission) is a :class:`SourceError` at ``file:line`` with a hint.
"""

from __future__ import annotations

import codecs
import csv
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

from blue_nb.errors import ItemError, SourceError
from blue_nb.items.build import MAX_NESTING, loads_json

__all__ = ["SOURCE_SUFFIXES", "MAX_ROW_BYTES", "text_lines", "MAX_PARQUET_FOOTER_BYTES", "Rows", "csv_records",
           "find_source", "iter_rows", "count_rows"]

SOURCE_SUFFIXES = (".csv", ".parquet", ".jsonl", ".ndjson", ".json")
# One line of a text source, and one CSV record (quoted cells may span lines), is at most 16 MiB:
# a DynamoDB item is at most 400 KB, so a row 40 times that is a broken or hostile file, not data,
# and reading it whole would hold it all in memory. The csv module's own per-field limit is set to
# the same bound (it is process-wide; the default 128 KiB would refuse legitimate large cells).
MAX_ROW_BYTES = 16 << 20
csv.field_size_limit(MAX_ROW_BYTES)
# Parquet metadata (the footer: schema, row groups, statistics) is a few KB to a few MB even for
# wide, large files; a footer that claims more is corrupt or crafted to make pyarrow allocate.
MAX_PARQUET_FOOTER_BYTES = 64 << 20
_BLOCK_BYTES = 1 << 20               # text sources are read a block at a time, then split into lines
_CSV_HINT = 'quote fields that hold commas, quotes or line breaks ("a, b"), doubling quotes inside them ("say ""hi""")'
_UTF8_HINT = "save the file as UTF-8 (in a spreadsheet: CSV UTF-8; with iconv: iconv -f LATIN1 -t UTF-8)"


def find_source(data_dir: str | Path, source: str) -> Path:
    """The file holding ``source`` rows in ``data_dir``: ``<source>.csv|.parquet|.jsonl|.ndjson|.json``."""
    d = Path(data_dir)
    if not d.is_dir():
        raise SourceError(f"data directory {str(d)!r} does not exist", where=str(d),
                          hint="pass --data with a folder holding one file per entity source")
    named = [d / f"{source}{s}" for s in SOURCE_SUFFIXES if (d / f"{source}{s}").exists()]
    dirs = [p for p in named if not p.is_file()]
    if dirs:
        raise SourceError(f"{dirs[0].name} is a directory, not a file of {source!r} rows", where=str(dirs[0]),
                          hint=f"put the rows of {source!r} in one file {dirs[0].name}")
    if not named:
        others = sorted(p.name for p in d.glob(f"{_glob_escape(source)}.*") if p.is_file())
        also = (f"; found {', '.join(others)}, not a type blue_nb reads (rename it, e.g. to {source}.csv, or convert "
                "it)") if others else ""
        raise SourceError(f"no file for source {source!r} in {d}{also}", where=str(d),
                          hint=f"expected one of: {', '.join(source + s for s in SOURCE_SUFFIXES)}")
    if len(named) > 1:
        raise SourceError(f"source {source!r} has several files: {', '.join(p.name for p in named)}", where=str(d),
                          hint="keep one file per source")
    return named[0]


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


class Rows:
    """The (where, row) pairs of one source file, read once; ``path`` names the file so that a
    message about the file as a whole (it holds no rows) can point at it. ``every_column`` is True
    when each row holds every column of the file (a CSV header), so a column missing from the
    first row is missing from the file."""

    def __init__(self, path: Path, rows: Iterator[tuple[str, dict[str, Any]]]):
        self.path = path
        self.every_column = path.suffix == ".csv"
        self._rows = rows

    def __iter__(self) -> "Rows":
        return self

    def __next__(self) -> tuple[str, dict[str, Any]]:
        return next(self._rows)


def iter_rows(path: str | Path) -> Rows:
    """Yield (where, row) for every row of a CSV, Parquet or JSON Lines file."""
    return Rows(Path(path), _rows(Path(path)))


def _rows(p: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    if p.suffix not in SOURCE_SUFFIXES:
        raise SourceError(f"unsupported source file type {p.suffix!r}", where=str(p),
                          hint="use .csv, .parquet or .jsonl (.ndjson, .json: one JSON object per line)")
    if _size(p) == 0:                    # a 0-byte file of any type holds no rows
        return
    if p.suffix == ".csv":
        yield from _csv_rows(p)
    elif p.suffix == ".parquet":
        yield from _parquet_rows(p)
    else:
        yield from _jsonl_rows(p)


def _size(p: Path) -> int:
    try:
        if p.is_dir():
            raise IsADirectoryError(21, "is a directory")
        return p.stat().st_size
    except OSError as e:
        raise SourceError(f"cannot read source file: {e.strerror or e}", where=str(p),
                          hint="check that the path names a readable file", cause=e) from e


@contextmanager
def _open(p: Path) -> Iterator[IO[bytes]]:
    try:
        f = p.open("rb")
    except OSError as e:
        raise SourceError(f"cannot read source file: {e.strerror or e}", where=str(p),
                          hint="check that the path names a readable file", cause=e) from e
    with f:
        yield f


def text_lines(f: IO[bytes], p: Path | str) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of a binary text stream named ``p`` in messages, each line
    bounded (:data:`MAX_ROW_BYTES`) and decoded strictly as UTF-8 (a leading BOM dropped). Read a block at
    a time and decoded a block of whole lines at once; a block with a fault is gone through line by line,
    which names the line (and the column) of the first."""
    n, rest = 0, b""
    while True:
        block = f.read(_BLOCK_BYTES)
        data = rest + block
        cut = data.rfind(b"\n") + 1 if block else len(data)     # at the end, the last line needs no line break
        if not data:
            return
        if not cut:                                               # one line, longer than the block so far
            if len(data) > MAX_ROW_BYTES:
                raise _too_long(p, n + 1)
            rest = data
            continue
        whole, rest = data[:cut], data[cut:]
        if n == 0 and whole.startswith(codecs.BOM_UTF8):          # Excel's "CSV UTF-8" starts with a BOM: not data
            whole = whole[len(codecs.BOM_UTF8):]
        lines = _block_lines(whole)
        if lines is None:                # not UTF-8, a NUL, or a line too long: line by line, to say where
            lines = (_line(p, i, raw) for i, raw in enumerate(_raw_lines(whole), n + 1))
        for text in lines:
            n += 1
            yield n, text
        if not block:
            return


def _block_lines(whole: bytes) -> list[str] | None:
    """The lines of a block of whole lines, decoded at once; None when the block needs the line-by-line way."""
    try:
        text = whole.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None
    lines = text.split("\n")
    if len(whole) > MAX_ROW_BYTES and max(map(len, lines)) * 4 >= MAX_ROW_BYTES:   # chars: up to 4 bytes each
        return None
    last = lines.pop()
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


def _raw_lines(whole: bytes) -> list[bytes]:
    parts = whole.split(b"\n")
    last = parts.pop()
    return [part + b"\n" for part in parts] + ([last] if last else [])


def _line(p: Path | str, n: int, raw: bytes) -> str:
    if len(raw) > MAX_ROW_BYTES:
        raise _too_long(p, n)
    return _decode(p, n, raw)


def _too_long(p: Path | str, n: int) -> SourceError:
    return SourceError(f"line longer than {MAX_ROW_BYTES:,} bytes; it was not read", where=f"{p}:{n}",
                       hint="one row or item per line; a line that large cannot be a DynamoDB item (400 KB at most)")


def _decode(p: Path, n: int, raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        col = len(raw[:e.start].decode("utf-8", "replace")) + 1
        utf16 = n == 1 and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        raise SourceError(f"not UTF-8: byte 0x{raw[e.start]:02x} at column {col} (byte {e.start + 1} of the line): "
                          f"{e.reason}", where=f"{p}:{n}",
                          hint=("the file is UTF-16 (it starts with a UTF-16 byte order mark); " if utf16 else "")
                          + _UTF8_HINT, cause=e) from e
    if "\x00" in text:
        raise SourceError(f"NUL byte at column {text.index(chr(0)) + 1}", where=f"{p}:{n}",
                          hint="a text source holds no NUL bytes: is it a binary or UTF-16 file? " + _UTF8_HINT)
    return text


def _csv_records(p: Path, f: IO[bytes]) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of every CSV record; a record is bounded like a line."""
    state = {"start": 1, "bytes": 0}

    def feed() -> Iterator[str]:
        for n, text in text_lines(f, p):
            state["bytes"] += len(text)
            if state["bytes"] > MAX_ROW_BYTES:
                raise SourceError(f"the record starting at line {state['start']} runs over {MAX_ROW_BYTES >> 20} MB "
                                  f"(to line {n}): a quote left open?", where=f"{p}:{state['start']}", hint=_CSV_HINT)
            yield text

    reader = csv.reader(feed(), strict=True)   # strict: a stray quote is an error, not a silently merged cell
    while True:
        try:
            record = next(reader, None)
        except csv.Error as e:
            raise SourceError(f"malformed CSV: {e}", where=f"{p}:{state['start']}", hint=_CSV_HINT, cause=e) from e
        if record is None:
            return
        yield state["start"], record
        state["start"], state["bytes"] = reader.line_num + 1, 0


def _csv_rows(p: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    records = csv_records(p)
    _, header = next(records, (0, None))
    for line, row in records if header else ():
        yield f"{p}:{line}", dict(zip(header, row))


def csv_records(p: Path) -> Iterator[tuple[int, list[str]]]:
    """(line, fields) of the header of a CSV file, then of each row (blank lines left out), each row checked to
    have a field per column: what :func:`iter_rows` makes its rows of. Nothing for a file without a header."""
    if _size(p) == 0:
        return
    with _open(p) as f:
        records = _csv_records(p, f)
        header, line = None, 0
        for line, header in records:
            if header:                  # blank lines before the header are not a header
                break
        if not header:
            return
        _check_header(p, line, header)
        yield line, header
        for line, row in records:
            if not row:
                continue
            if len(row) != len(header):
                more = (f"; first extra field: {row[len(header)][:40]!r}" if len(row) > len(header)
                        else f"; no value for {', '.join(header[len(row):][:5])}")
                raise SourceError(f"row has {len(row)} fields, the header has {len(header)}{more}", where=f"{p}:{line}",
                                  hint=_CSV_HINT + "; give every row one field per column")
            yield line, row


def _check_header(p: Path, line: int, header: list[str]) -> None:
    seen: dict[str, int] = {}
    for i, name in enumerate(header, 1):
        where = f"{p}:{line} column {i}"
        if not name.strip():
            raise SourceError(f"column {i} of the header has no name", where=where,
                              hint="name every column in the first line, or delete the unnamed column")
        if name != name.strip():
            raise SourceError(f"column name {name!r} has spaces around it, so it matches no attribute or placeholder",
                              where=where, hint=f"write it as {name.strip()!r}")
        if name in seen:
            raise SourceError(f"column name {name!r} appears twice in the header (columns {seen[name]} and {i})",
                              where=where, hint="give every column its own name")
        seen[name] = i


def _jsonl_rows(p: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    with _open(p) as f:
        for n, line in text_lines(f, p):
            if not line.strip():
                continue
            try:
                # a row is an item: its attributes may nest MAX_NESTING levels below it
                row = loads_json(line, f"{p}:{n}", ints=int, max_depth=MAX_NESTING + 1)
            except ItemError as e:
                raise SourceError(e.msg, where=e.where, hint=e.hint or "each line holds one JSON object",
                                  cause=e) from e
            if not isinstance(row, dict):
                kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(row), "a number")
                raise SourceError(f"expected a JSON object, got {kind}", where=f"{p}:{n}",
                                  hint='each line holds one JSON object, {"column": value, ...}; write the elements '
                                       "of an array one per line")
            yield f"{p}:{n}", row


def _open_parquet(p: Path):
    """A pyarrow ParquetFile, after checking the file's frame and metadata size; every failure located."""
    import pyarrow.parquet as pq  # deferred: pyarrow loads only when a Parquet file is read

    size = _size(p)
    with _open(p) as f:
        head = f.read(4)
        f.seek(max(size - 8, 0))
        tail = f.read(8)
    footer = int.from_bytes(tail[:4], "little") if len(tail) == 8 else 0
    hint = "the file is cut short or is not Parquet: write it again (e.g. pandas.DataFrame.to_parquet)"
    if size < 12 or head != b"PAR1" or tail[4:] != b"PAR1":
        raise SourceError(f"not a whole Parquet file ({size:,} bytes; no PAR1 marker at the "
                          f"{'start' if head != b'PAR1' else 'end'})", where=str(p), hint=hint)
    if footer > size - 12:
        raise SourceError(f"Parquet metadata claims {footer:,} bytes, more than the file holds", where=str(p), hint=hint)
    if footer > MAX_PARQUET_FOOTER_BYTES:
        raise SourceError(f"Parquet metadata of {footer:,} bytes (over {MAX_PARQUET_FOOTER_BYTES >> 20} MB) was not read",
                          where=str(p), hint="write the file with fewer columns or row groups, or without statistics")
    try:
        pf = pq.ParquetFile(p, thrift_string_size_limit=MAX_PARQUET_FOOTER_BYTES, thrift_container_size_limit=1 << 20)
        schema = pf.schema_arrow
    except Exception as e:  # pyarrow raises several types (ArrowInvalid, OSError, ...) for unreadable files
        raise SourceError(f"cannot read Parquet file: {e}", where=str(p), hint=hint, cause=e) from e
    for field in schema:
        if not _supported(field.type):
            raise SourceError(f"column {field.name!r} has type {field.type}, which has no DynamoDB type", where=f"{p} "
                              f"column {field.name}", hint="cast it to a string, number, boolean, binary, date, "
                              "timestamp, list or struct column (e.g. a map column to a struct or a JSON string)")
    return pf


def _supported(t) -> bool:
    import pyarrow.types as pt  # deferred: pyarrow loads only when a Parquet file is read

    if pt.is_list(t) or pt.is_large_list(t) or pt.is_fixed_size_list(t):
        return _supported(t.value_type)
    if pt.is_struct(t):
        return all(_supported(t.field(i).type) for i in range(t.num_fields))
    if pt.is_dictionary(t):
        return _supported(t.value_type)
    checks = (pt.is_null, pt.is_boolean, pt.is_integer, pt.is_floating, pt.is_decimal, pt.is_string,
              pt.is_large_string, pt.is_binary, pt.is_large_binary, pt.is_fixed_size_binary, pt.is_date,
              pt.is_timestamp, getattr(pt, "is_string_view", None), getattr(pt, "is_binary_view", None))
    return any(c(t) for c in checks if c)


def _parquet_rows(p: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    pf = _open_parquet(p)
    n = 0
    batches = pf.iter_batches(batch_size=10_000)
    while True:
        try:
            batch = next(batches, None)
            rows = batch.to_pylist() if batch is not None else None
        except Exception as e:  # pyarrow raises several types for corrupt pages
            raise SourceError(f"cannot read Parquet rows after row {n:,}: {e}", where=f"{p}:row {n + 1}",
                              hint="the file is corrupt or cut short: write it again", cause=e) from e
        if rows is None:
            return
        for row in rows:
            n += 1
            yield f"{p}:row {n}", row


def count_rows(path: str | Path) -> int:
    """Rows in a source file (for progress bars); cheap: no conversion of values. A file that
    cannot be read raises the same located SourceError that reading its rows would."""
    p = Path(path)
    if p.suffix not in SOURCE_SUFFIXES or _size(p) == 0:
        return 0
    if p.suffix == ".parquet":
        return _open_parquet(p).metadata.num_rows
    with _open(p) as f:
        if p.suffix == ".csv":          # quoted cells may hold line breaks: let the csv module count records
            return max(sum(1 for _, r in _csv_records(p, f) if r) - 1, 0)
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
