"""Crash-safe, streaming writers for relational source rows: one file per source.

A flat source goes to ``<dir>/<source>.csv`` (header row, UTF-8, ``\\n`` line ends); a source
whose rows hold lists, maps, sets or bytes goes to ``<dir>/<source>.jsonl`` (one JSON object per
line, ``ensure_ascii=False``, sets as sorted lists, bytes as base64 strings).

Every file is written to a hidden temp file in the same directory and renamed into place only
when the whole run succeeded (:class:`SourceFiles` as a context manager), so an interrupted run
(an exception, Ctrl-C) never leaves a half-written source file behind.
"""

from __future__ import annotations

import base64
import csv
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from blue_nb.errors import SourceError

__all__ = ["FORMATS", "SourceFiles", "jsonl_default", "needs_jsonl", "row_ticks"]

FORMATS = ("csv", "jsonl")
_NESTED = (list, tuple, dict, set, frozenset, bytes, bytearray, memoryview)
_PLAIN = frozenset((str, int, float, bool, type(None)))  # fast path: cells that need no check


def needs_jsonl(value: Any) -> bool:
    """True when ``value`` cannot live in a CSV cell (a list, map, set or bytes)."""
    return isinstance(value, _NESTED)


def _sorted_members(values: Iterable[Any]) -> list[Any]:
    items = list(values)
    try:
        return sorted(items)
    except TypeError:  # a mixed set: order by type name, then by text, still deterministic
        return sorted(items, key=lambda v: (type(v).__name__, repr(v)))


def jsonl_default(value: Any) -> Any:
    """``json.dumps(default=...)`` hook: sets -> sorted lists, bytes -> base64 strings."""
    if isinstance(value, (set, frozenset)):
        members = _sorted_members(bytes(v) if isinstance(v, (bytearray, memoryview)) else v for v in value)
        return [base64.b64encode(v).decode("ascii") if isinstance(v, bytes) else v for v in members]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"{type(value).__name__} value {value!r} is not JSON serializable")


class _Sink:
    """One source file being written to a temp path."""

    def __init__(self, directory: Path, source: str, fmt: str, columns: Sequence[str]):
        if fmt not in FORMATS:
            raise SourceError(f"unknown source format {fmt!r} for source {source!r}",
                              where=source, hint=f"use one of: {', '.join(FORMATS)}")
        self.source = source
        self.fmt = fmt
        self.columns = tuple(columns)
        self.path = directory / f"{source}.{fmt}"
        self.tmp = directory / f".{source}.{fmt}.tmp-{os.getpid()}"
        self.count = 0
        self._fh = open(self.tmp, "w", encoding="utf-8", newline="", buffering=1 << 20)
        if fmt == "csv":
            self._csv = csv.writer(self._fh, lineterminator="\n")
            self._csv.writerow(self.columns)

    def write(self, row: Sequence[Any] | Mapping[str, Any]) -> None:
        if type(row) is not tuple or len(row) != len(self.columns):
            row = self._as_tuple(row)
        if self.fmt == "csv":
            if not _PLAIN.issuperset(map(type, row)):
                self._check_cells(row)
            self._csv.writerow(row)  # the csv module writes None as an empty cell
        else:
            try:
                line = json.dumps(dict(zip(self.columns, row)), ensure_ascii=False,
                                  allow_nan=False, default=jsonl_default)
            except (TypeError, ValueError) as e:
                raise SourceError(f"row {self.count + 1} of source {self.source!r} is not JSON data: {e}",
                                  where=f"{self.path.name}:{self.count + 1}",
                                  hint="use str, int, float, bool, None, list, dict, set or bytes values",
                                  cause=e) from e
            self._fh.write(line)
            self._fh.write("\n")
        self.count += 1

    def _as_tuple(self, row: Sequence[Any] | Mapping[str, Any]) -> tuple:
        if isinstance(row, Mapping):
            return tuple(row.get(c) for c in self.columns)
        values = tuple(row)
        if len(values) != len(self.columns):
            raise SourceError(
                f"row {self.count + 1} of source {self.source!r} has {len(values)} values, "
                f"expected {len(self.columns)}",
                where=f"{self.path.name}:{self.count + 2}", hint=f"columns: {', '.join(self.columns)}")
        return values

    def _check_cells(self, row: tuple) -> None:
        for col, val in zip(self.columns, row):
            if isinstance(val, _NESTED):
                raise SourceError(
                    f"column {col!r} of source {self.source!r} holds a {type(val).__name__}, "
                    "which a CSV cell cannot hold",
                    where=f"{self.path.name}:{self.count + 2}", hint="write this source as jsonl")

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def commit(self) -> None:
        self.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.close()
        try:
            self.tmp.unlink()
        except FileNotFoundError:
            pass


@contextmanager
def row_ticks(total: int, desc: str, progress: bool) -> Iterator[Callable[[int], Any]]:
    """A progress bar of ``total`` rows while the block runs (none without ``progress``): the callable that
    counts ``n`` rows written."""
    from tqdm.auto import tqdm  # deferred: tqdm.auto loads asyncio, ~0.1 s of every command's start
    bar = tqdm(total=total, desc=desc, unit="row") if progress else None
    try:
        yield bar.update if bar is not None else (lambda n: None)
    finally:
        if bar is not None:
            bar.close()


class SourceFiles:
    """The files of one generation run; commit all on success, remove all temps on failure.

    ``specs`` maps a source name to ``(format, columns)``::

        with SourceFiles(out, {"links": ("csv", ("realm_id", "from_doc"))}) as files:
            files.write("links", ("letemcook", "0051"))
        files.counts  # {"links": 1}
    """

    def __init__(self, out_dir: str | Path, specs: Mapping[str, tuple[str, Sequence[str]]]):
        self.directory = Path(out_dir)
        self.specs = dict(specs)
        self._sinks: dict[str, _Sink] = {}

    def __enter__(self) -> "SourceFiles":
        if self.directory.exists() and not self.directory.is_dir():
            raise SourceError(f"output path {str(self.directory)!r} exists and is not a directory",
                              where=str(self.directory), hint="give a directory path for --out")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            for source, (fmt, columns) in self.specs.items():
                self._sinks[source] = _Sink(self.directory, source, fmt, columns)
        except OSError as e:
            self._abort()
            raise SourceError(f"cannot write sample files in {str(self.directory)!r}: {e}",
                              where=str(self.directory), hint="check the path and its permissions",
                              cause=e) from e
        except BaseException:
            self._abort()
            raise
        return self

    def write(self, source: str, row: Sequence[Any] | Mapping[str, Any]) -> None:
        self._sinks[source].write(row)

    def writer(self, source: str):
        """The bound ``write`` of one source, for tight loops."""
        return self._sinks[source].write

    @property
    def counts(self) -> dict[str, int]:
        return {name: sink.count for name, sink in self._sinks.items()}

    @property
    def paths(self) -> dict[str, Path]:
        return {name: sink.path for name, sink in self._sinks.items()}

    def _abort(self) -> None:
        for sink in self._sinks.values():
            sink.abort()

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self._abort()
            return
        try:
            for sink in self._sinks.values():
                sink.close()
            for sink in self._sinks.values():
                sink.commit()
        except OSError as e:
            self._abort()
            raise SourceError(f"cannot finish sample files in {str(self.directory)!r}: {e}",
                              where=str(self.directory), hint="check free disk space and permissions",
                              cause=e) from e
