"""Relational source rows from files: CSV, Parquet and JSON Lines, streamed row by row.

Every row comes with where it came from (``file:line``, or ``file:row N`` for Parquet) so an
error can point at it. Nothing here holds a whole file in memory.
"""

from __future__ import annotations

import csv
import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

from blue_nb.errors import SourceError

__all__ = ["SOURCE_SUFFIXES", "find_source", "iter_rows", "count_rows"]

SOURCE_SUFFIXES = (".csv", ".parquet", ".jsonl", ".ndjson", ".json")
csv.field_size_limit(sys.maxsize)


def find_source(data_dir: str | Path, source: str) -> Path:
    """The file holding ``source`` rows in ``data_dir``: ``<source>.csv|.parquet|.jsonl|.ndjson|.json``."""
    d = Path(data_dir)
    if not d.is_dir():
        raise SourceError(f"data directory {str(d)!r} does not exist", where=str(d),
                          hint="pass --data with a folder holding one file per entity source")
    found = [d / f"{source}{s}" for s in SOURCE_SUFFIXES if (d / f"{source}{s}").is_file()]
    if not found:
        raise SourceError(f"no file for source {source!r} in {d}", where=str(d),
                          hint=f"expected one of: {', '.join(source + s for s in SOURCE_SUFFIXES)}")
    if len(found) > 1:
        raise SourceError(f"source {source!r} has several files: {', '.join(p.name for p in found)}", where=str(d),
                          hint="keep one file per source")
    return found[0]


def iter_rows(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (where, row) for every row of a CSV, Parquet or JSON Lines file."""
    p = Path(path)
    if p.suffix == ".csv":
        yield from _csv_rows(p)
    elif p.suffix == ".parquet":
        yield from _parquet_rows(p)
    elif p.suffix in (".jsonl", ".ndjson", ".json"):
        yield from _jsonl_rows(p)
    else:
        raise SourceError(f"unsupported source file type {p.suffix!r}", where=str(p),
                          hint="use .csv, .parquet or .jsonl")


def _csv_rows(p: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        with p.open(newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header:
                return
            if len(set(header)) != len(header):
                raise SourceError(f"duplicate column names in the header: {header}", where=f"{p}:1")
            for row in reader:
                line = reader.line_num
                if not row:
                    continue
                if len(row) != len(header):
                    raise SourceError(f"row has {len(row)} fields, the header has {len(header)}", where=f"{p}:{line}",
                                      hint="quote fields that contain commas or line breaks")
                yield f"{p}:{line}", dict(zip(header, row))
    except UnicodeDecodeError as e:
        raise SourceError(f"file is not UTF-8: {e.reason} at byte {e.start}", where=str(p),
                          hint="save the file as UTF-8", cause=e) from e
    except csv.Error as e:
        raise SourceError(f"malformed CSV: {e}", where=str(p), cause=e) from e


def _jsonl_rows(p: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    with p.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line, parse_float=Decimal)
            except json.JSONDecodeError as e:
                raise SourceError(f"not valid JSON: {e.msg} (column {e.colno})", where=f"{p}:{n}",
                                  hint="each line holds one JSON object", cause=e) from e
            if not isinstance(row, dict):
                raise SourceError(f"expected a JSON object, got {type(row).__name__}", where=f"{p}:{n}")
            yield f"{p}:{n}", row


def _parquet_rows(p: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    import pyarrow.parquet as pq  # deferred: pyarrow loads only when a Parquet file is read

    try:
        pf = pq.ParquetFile(p)
    except Exception as e:  # pyarrow raises several types for unreadable files
        raise SourceError(f"cannot read Parquet file: {e}", where=str(p), cause=e) from e
    n = 0
    for batch in pf.iter_batches(batch_size=10_000):
        for row in batch.to_pylist():
            n += 1
            yield f"{p}:row {n}", row


def count_rows(path: str | Path) -> int:
    """Rows in a source file (for progress bars); cheap: no conversion of values."""
    p = Path(path)
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq  # deferred: pyarrow loads only when a Parquet file is read

        return pq.ParquetFile(p).metadata.num_rows
    if p.suffix == ".csv":  # quoted cells may hold line breaks: let the csv module count records
        with p.open(newline="", encoding="utf-8", errors="replace") as f:
            return max(sum(1 for _ in csv.reader(f)) - 1, 0)
    with p.open("rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
