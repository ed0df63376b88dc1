"""DynamoDB exports to S3 (DYNAMODB_JSON), read from a local copy, as a stream of changes.

A full export is ``<prefix>/AWSDynamoDB/<ExportId>/`` with ``manifest-summary.json``,
``manifest-files.json`` (JSON lines: ``dataFileS3Key``, ``itemCount``) and ``data/*.json.gz``
(gzip JSON lines, ``{"Item": {...}}``). An incremental export keeps its manifests in its own
``<ExportId>/`` folder but its data files under ``AWSDynamoDB/data/``; each line holds
``Metadata.WriteTimestampMicros``, ``Keys`` and ``NewImage`` and/or ``OldImage``.

:func:`find_exports` finds every ``manifest-summary.json`` under a folder and orders them: the
full export first, then the incremental ones by their export window. :func:`iter_changes` yields
:class:`Change` records in that order (an incremental's records by write time): ``("put", item)``
or ``("delete", keys)``, each with the ``file:line`` it came from. Every line is read bounded and
checked as DynamoDB would check the item; each data file's line count must equal its manifest
``itemCount``, and before any line is read the manifests are checked against each other and the
files (the summary's ``itemCount``, data files missing from the list, each file's ``md5Checksum``).
Memory stays flat: an incremental's records are sorted in bounded runs spilled to
temporary files and merged.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import heapq
import json
import tempfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Iterator, NamedTuple

from blue_nb.errors import ItemError, SourceError
from blue_nb.items.values import item_from_wire, loads_wire, parse_item_line
from blue_nb.sources.files import text_lines

__all__ = ["Change", "DataFile", "Export", "find_exports", "iter_changes", "peek_keys", "window_notes"]

SUMMARY = "manifest-summary.json"
RUN_RECORDS = 20_000            # records of an incremental sorted in memory at a time
RUN_BYTES = 32 << 20            # ... or this much line text, whichever comes first
_LAYOUT_HINT = ("copy the export as S3 holds it: <prefix>/AWSDynamoDB/<ExportId>/manifest-summary.json, "
                "manifest-files.json and data/*.json.gz (incremental exports: AWSDynamoDB/data/)")


class Change(NamedTuple):
    """One change: ``op`` is ``put`` (``item`` is the whole item) or ``delete`` (``item`` holds the
    keys only); ``kind`` is ``item`` (full export), ``insert``, ``update`` or ``delete``."""

    op: str
    item: dict[str, Any]
    where: str
    kind: str
    timestamp: int = 0


@dataclass
class DataFile:
    """One data file of an export: where it is here, the items its manifest counts, its S3 key."""

    path: Path
    item_count: int
    s3_key: str
    md5: tuple[str, ...] | None = None      # the manifest's md5Checksum: (as written, hex); None when not given


@dataclass
class Export:
    """One export (one ``manifest-summary.json``) and its data files."""

    folder: Path
    summary: dict[str, Any]
    incremental: bool
    files: list[DataFile] = field(default_factory=list)

    @property
    def export_id(self) -> str:
        return self.folder.name

    @property
    def item_count(self) -> int:
        return sum(f.item_count for f in self.files)

    @property
    def table_name(self) -> str | None:
        arn = self.summary.get("tableArn")
        return arn.rsplit("/", 1)[-1] if isinstance(arn, str) and "/" in arn else None

    @property
    def window(self) -> tuple[datetime | None, datetime | None]:
        """(from, to) of an incremental export, or (export time, export time) of a full one."""
        s = self.summary
        if self.incremental:
            start, end = s.get("exportFromTime") or s.get("startTime"), s.get("exportToTime") or s.get("endTime")
            return _time(start), _time(end)
        t = _time(s.get("exportTime") or s.get("startTime"))
        return t, t

    def __str__(self) -> str:
        return f"{'incremental' if self.incremental else 'full'} export {self.export_id} ({self.item_count:,} items)"


def _time(value: Any) -> datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value).astimezone()
    if isinstance(value, str):
        try:
            t = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return t if t.tzinfo else t.astimezone()
        except ValueError:
            return None
    return None


# ---------------------------------------------------------------- manifests


def find_exports(source: str | Path) -> list[Export]:
    """Every export under ``source`` (one export folder, or a folder holding several): the full export
    first, then the incremental ones by export window. Two full exports are refused (which one?)."""
    root = Path(source)
    if not root.exists():
        raise SourceError("no such folder", where=str(root), hint="give the folder an S3 export was copied to")
    summaries = [root] if root.is_file() and root.name == SUMMARY else sorted(root.rglob(SUMMARY))
    if not summaries:
        raise SourceError(f"no {SUMMARY} under this folder: not a DynamoDB export", where=str(root), hint=_LAYOUT_HINT)
    exports = [_read_export(p) for p in summaries]
    full = [e for e in exports if not e.incremental]
    if len(full) > 1:
        raise SourceError(f"{len(full)} full exports here ({', '.join(e.export_id for e in full)}): which one?",
                          where=str(root),
                          hint="keep one full export and the incremental exports after it in the folder")
    inc = sorted((e for e in exports if e.incremental), key=_window_key)
    return full + inc


def _window_key(e: Export) -> tuple:
    start, end = e.window
    missing = datetime.max.replace(tzinfo=timezone.utc)
    return (start or missing, end or missing, e.export_id)


def window_notes(exports: list[Export]) -> list[str]:
    """What the user should know about the order: incrementals without a full export, gaps, overlaps."""
    notes = []
    if exports and exports[0].incremental:
        notes.append("no full export: the items are only those the incremental exports wrote")
    prev = None
    for e in exports:
        start, end = e.window
        if prev is not None and start is not None and prev != start:
            notes.append(f"{e.export_id} starts at {start.isoformat()}, not where the export before it ends "
                         f"({prev.isoformat()}): {'a gap' if start > prev else 'an overlap'} in the history")
        prev = end
    return notes


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            raw = f.read(1 << 20)
    except OSError as e:
        raise SourceError(f"cannot read the {what}: {e.strerror or e}", where=str(path), hint=_LAYOUT_HINT,
                          cause=e) from e
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SourceError(f"the {what} is not JSON: {e}", where=str(path), hint=_LAYOUT_HINT, cause=e) from e
    if not isinstance(data, dict):
        raise SourceError(f"the {what} is not a JSON object", where=str(path), hint=_LAYOUT_HINT)
    return data


def _read_export(summary_path: Path) -> Export:
    s = _read_json(summary_path, "export summary")
    fmt = s.get("outputFormat", "DYNAMODB_JSON")
    if fmt != "DYNAMODB_JSON":
        raise SourceError(f"export format {fmt!r} is not read (only DYNAMODB_JSON)", where=str(summary_path),
                          hint="export the table again with --export-format DYNAMODB_JSON")
    kind = s.get("exportType")
    incremental = kind == "INCREMENTAL_EXPORT" if kind else ("exportFromTime" in s or "outputView" in s)
    export = Export(summary_path.parent, s, incremental)
    export.files = list(_data_files(export, summary_path))
    _check_manifests(export, summary_path)
    return export


def _check_manifests(export: Export, summary_path: Path) -> None:
    """The export is whole before anything is read from it: the summary's ``itemCount`` is the sum of
    the file list's, every data file of a full export's ``data/`` folder is in the list, and each
    listed file's bytes have the list's ``md5Checksum``."""
    total = export.summary.get("itemCount")
    if isinstance(total, int) and not isinstance(total, bool) and total != export.item_count:
        raise SourceError(f"manifest-summary.json says itemCount {total:,}, but manifest-files.json lists "
                          f"{export.item_count:,} items in {len(export.files):,} files: the file list is incomplete "
                          "or was changed", where=str(summary_path),
                          hint="copy the export's manifests and data files from S3 again")
    listed = {f.path.resolve() for f in export.files}
    if not export.incremental and (export.folder / "data").is_dir():
        extra = sorted(p for p in (export.folder / "data").iterdir() if p.is_file() and p.resolve() not in listed)
        if extra:
            raise SourceError(f"{len(extra)} data file(s) of the export are not in manifest-files.json "
                              f"({', '.join(p.name for p in extra[:3])}): the file list is incomplete or was changed",
                              where=str(extra[0]), hint="copy the export's manifests and data files from S3 again")
    for f in export.files:
        if f.md5 is not None and _md5(f.path) not in f.md5:
            raise SourceError(f"{f.path.name} does not have the md5Checksum manifest-files.json gives it "
                              f"({f.md5[0]}): the file was changed or is damaged", where=str(f.path),
                              hint="copy the file from S3 again")


def _md5(path: Path) -> str:
    h = hashlib.md5(usedforsecurity=False)
    try:
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        raise SourceError(f"cannot read: {e.strerror or e}", where=str(path), hint=_LAYOUT_HINT, cause=e) from e
    return h.hexdigest()


def _md5_forms(value: Any, where: str) -> tuple[str, ...] | None:
    """A manifest's md5Checksum (base64 as S3 gives it, or hex) as hex: (as given, hex); None if absent."""
    if value is None:
        return None
    text = value.strip() if isinstance(value, str) else ""
    if len(text) == 32 and all(c in "0123456789abcdefABCDEF" for c in text):
        return text, text.lower()
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 16:
        raise SourceError(f"md5Checksum {value!r:.60} is not an MD5 (base64 or hex)", where=where, hint=_LAYOUT_HINT)
    return text, raw.hex()


def _data_files(export: Export, summary_path: Path) -> Iterator[DataFile]:
    key = export.summary.get("manifestFilesS3Key")
    path = _local(export.folder, key) if isinstance(key, str) else None
    path = path or export.folder / "manifest-files.json"
    if not path.is_file():
        raise SourceError(f"the export's file list manifest-files.json is missing (looked for {path})",
                          where=str(summary_path), hint=_LAYOUT_HINT)
    with _open(path) as f:
        for n, line in text_lines(f, path):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError as e:
                raise SourceError(f"not a JSON line: {e}", where=f"{path}:{n}", hint=_LAYOUT_HINT, cause=e) from e
            count, s3_key = (entry.get("itemCount"), entry.get("dataFileS3Key")) if isinstance(entry, dict) else (0, 0)
            if not isinstance(s3_key, str) or not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise SourceError("each line needs dataFileS3Key (text) and itemCount (a whole number >= 0)",
                                  where=f"{path}:{n}", hint=_LAYOUT_HINT)
            local = _local(export.folder, s3_key)
            if local is None:
                raise SourceError(f"data file {s3_key!r} is not here (looked under {export.folder.parent})",
                                  where=f"{path}:{n}", hint=_LAYOUT_HINT)
            yield DataFile(local, count, s3_key, _md5_forms(entry.get("md5Checksum"), f"{path}:{n}"))


def _local(folder: Path, s3_key: str) -> Path | None:
    """The local copy of an S3 key of this export: the key's part from ``AWSDynamoDB/`` on, under the
    folder holding the export folder; else the file's name in ``data/`` beside or above the export."""
    tail = s3_key.split("AWSDynamoDB/", 1)[1] if "AWSDynamoDB/" in s3_key else ""
    name = s3_key.rsplit("/", 1)[-1]
    tries = [folder.parent / tail] if tail else []
    if tail.startswith(folder.name + "/"):
        tries.append(folder / tail[len(folder.name) + 1:])
    tries += [folder / "data" / name, folder.parent / "data" / name, folder / name]
    return next((p for p in tries if p.is_file()), None)


class _open:
    """A data or manifest file opened for bounded line reading (gzip when it ends in .gz)."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> IO[bytes]:
        try:
            self.f = gzip.open(self.path, "rb") if self.path.suffix == ".gz" else self.path.open("rb")
        except OSError as e:
            raise SourceError(f"cannot read: {e.strerror or e}", where=str(self.path), hint=_LAYOUT_HINT,
                              cause=e) from e
        return self.f

    def __exit__(self, *exc) -> None:
        self.f.close()


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a data file; a corrupt gzip stream is an error at the line it breaks."""
    n = 0
    with _open(path) as f:
        try:
            for n, text in text_lines(f, path):
                yield n, text
        except (OSError, EOFError, zlib.error) as e:       # gzip.BadGzipFile is an OSError
            raise SourceError(f"corrupt gzip data: {e}", where=f"{path}:{n + 1}",
                              hint="the file is cut short or damaged: copy it from S3 again", cause=e) from e


# ---------------------------------------------------------------- records


def iter_changes(source: str | Path | list[Export], *, progress: bool = True) -> Iterator[Change]:
    """Every change of the exports under ``source`` (or of the given exports), in the order to apply them."""
    exports = source if isinstance(source, list) else find_exports(source)
    total = sum(e.item_count for e in exports)
    from tqdm.auto import tqdm  # deferred: tqdm.auto loads asyncio, ~0.1 s of every command's start
    bar = tqdm(total=total, desc="read export", unit="item", unit_scale=True, mininterval=0.5) if progress else None
    try:
        for export in exports:
            records = _incremental(export, bar) if export.incremental else _full(export, bar)
            yield from records
    finally:
        if bar is not None:
            bar.close()


def _counted(data: DataFile, bar) -> Iterator[tuple[str, str]]:
    """(where, line) of the non-blank lines of a data file, checked against its manifest itemCount."""
    seen = 0
    for n, line in _lines(data.path):
        if line.strip():
            seen += 1
            if bar is not None:
                bar.update(1)
            yield f"{data.path}:{n}", line
    if seen != data.item_count:
        raise SourceError(f"{data.path.name} holds {seen:,} items, but manifest-files.json says itemCount "
                          f"{data.item_count:,}", where=str(data.path),
                          hint="the export is incomplete or the file was changed: copy it from S3 again")


def _full(export: Export, bar) -> Iterator[Change]:
    for data in export.files:
        for where, line in _counted(data, bar):
            try:
                wire = parse_item_line(line, where)
                yield Change("put", item_from_wire(wire, where), where, "item")
            except ItemError as e:
                raise SourceError(e.msg, where=e.where or where, hint=e.hint or _LAYOUT_HINT, cause=e) from e


def _incremental(export: Export, bar) -> Iterator[Change]:
    """The records of one incremental export by write time (ties: file order), via sorted runs."""
    with tempfile.TemporaryDirectory(prefix="blue-nb-export-") as tmp:
        runs, run, size, order = [], [], 0, 0
        for data in export.files:
            for where, line in _counted(data, bar):
                ts = _check_record(line, where)
                run.append((ts, order, where, line))
                order += 1
                size += len(line)
                if len(run) >= RUN_RECORDS or size >= RUN_BYTES:
                    runs.append(_spill(run, Path(tmp) / f"run{len(runs)}.jsonl"))
                    run, size = [], 0
        run.sort()
        streams = [_read_run(p) for p in runs] + [iter(run)]
        for ts, _, where, line in heapq.merge(*streams):
            yield _change(line, where, ts)


def _spill(run: list[tuple], path: Path) -> Path:
    run.sort()
    with path.open("w", encoding="utf-8") as f:
        for rec in run:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def _read_run(path: Path) -> Iterator[tuple]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            yield tuple(json.loads(line))


def _record(line: str, where: str) -> dict[str, Any]:
    try:
        data = loads_wire(line, where, strict=True)
    except ItemError as e:
        raise SourceError(e.msg, where=where, hint=e.hint, cause=e) from e
    if not isinstance(data.get("Keys"), dict) or not data["Keys"]:
        raise SourceError("an incremental export record needs Keys (and NewImage and/or OldImage)", where=where,
                          hint="is this a full export's data file? Its summary says incremental")
    return data


def _check_record(line: str, where: str) -> int:
    """Check one incremental record fully (keys, images, time); its WriteTimestampMicros."""
    data = _record(line, where)
    try:
        keys = item_from_wire(data["Keys"], f"{where} Keys")
        for image in ("NewImage", "OldImage"):
            if image in data:
                item = item_from_wire(data[image], f"{where} {image}")
                if any(item.get(k) != v for k, v in keys.items()):
                    raise SourceError(f"{image} does not hold the record's Keys {_show(keys)}", where=where,
                                      hint="the record is damaged: copy the file from S3 again")
    except ItemError as e:
        raise SourceError(e.msg, where=e.where or where, hint=e.hint, cause=e) from e
    return _timestamp(data.get("Metadata"), where)


def _timestamp(meta: Any, where: str) -> int:
    """WriteTimestampMicros, written as a bare string (or number) or as {"N": "..."}."""
    ts = meta.get("WriteTimestampMicros") if isinstance(meta, dict) else None
    if isinstance(ts, dict) and len(ts) == 1 and "N" in ts:
        ts = ts["N"]
    if isinstance(ts, str) and ts.strip().isdigit():
        return int(ts)
    if isinstance(ts, int) and not isinstance(ts, bool) and ts >= 0:
        return ts
    raise SourceError(f"Metadata.WriteTimestampMicros is missing or not a whole number: {ts!r:.60}", where=where,
                      hint='each incremental record has "Metadata": {"WriteTimestampMicros": "<microseconds>"}')


def _change(line: str, where: str, ts: int) -> Change:
    data = _record(line, where)
    if "NewImage" in data:
        kind = "update" if "OldImage" in data else "insert"
        return Change("put", item_from_wire(data["NewImage"], where), where, kind, ts)
    return Change("delete", item_from_wire(data["Keys"], where), where, "delete", ts)


def _show(keys: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in keys.items())
    return text if len(text) <= 100 else text[:97] + "..."


def peek_keys(exports: list[Export]) -> tuple[str, ...] | None:
    """The key attribute names an incremental export's first record gives (``Keys``), in file order;
    None when there is no incremental record to look at."""
    for export in exports:
        if not export.incremental:
            continue
        for data in export.files:
            for where, line in ((f"{data.path}:{n}", t) for n, t in _lines(data.path) if t.strip()):
                return tuple(_record(line, where)["Keys"])
    return None
