"""Bring real data in, into the user's stores: :func:`import_data` is what ``blue-nb import SOURCE
--from FMT --out DIR`` calls. The import itself (reading, inference, spec and row files, the load
and the checks) is :mod:`blue_nb.imports.workflow`; here the store files given are opened, once
every table has been read and written, and closed after the load.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from blue_nb.app.workflows import open_stores
from blue_nb.errors import SourceError
from blue_nb.imports.out_folder import out_folder
from blue_nb.imports.workflow import ImportResult, load_and_check, staged_import

__all__ = ["import_data"]


def import_data(source: str | Path, fmt: str, out_dir: str | Path, *, sqlite: str | Path | None = None,
                duckdb: str | Path | None = None, endpoint_url: str | None = None, aws: bool = False,
                profile: str | None = None, domain: str | None = None, key: Any = None, segments: int = 4,
                progress: bool = True, client: Any = None) -> list[ImportResult]:
    """Import ``source`` (``fmt``: s3-export, sqlite, dynamodb or workbench) into ``out_dir`` and the stores given.

    ``source`` is an export folder, a SQLite file, a table name or a NoSQL Workbench model file (a
    model blue_nb exported gives back its own spec; see :mod:`blue_nb.imports.workbench`).
    ``domain`` names the spec (for a SQLite file or a Workbench model of several tables: imports only
    that one); ``key`` = ``(pk, sk)`` (or ``"PK,SK"``) says which attributes are the table key when
    the source does not; ``endpoint_url`` / ``aws`` / ``profile``
    (or an open DynamoClient as ``client``) say where a live table is; ``segments`` is its Scan's
    parallelism. Returns one :class:`~blue_nb.imports.workflow.ImportResult` per table.

    All or nothing: the spec and rows are written aside and switched into ``out_dir`` with each
    table's load (:mod:`blue_nb.imports.out_folder`); one import per folder at a time; an import
    that fails or is interrupted leaves the folder and the stores as they were.
    """
    for option, path in (("--sqlite", sqlite), ("--duckdb", duckdb)):
        if path and fmt in ("sqlite", "workbench", "s3-export") and Path(path).resolve() == Path(source).resolve():
            raise SourceError(f"{option} names the file being imported: the load would write over its own input",
                              where=str(path), hint=f"give {option} another file")
    with out_folder(out_dir) as folder, \
            staged_import(source, fmt, folder, endpoint_url=endpoint_url, aws=aws, profile=profile, domain=domain,
                          key=key, segments=segments, progress=progress, client=client) as staged, \
            ExitStack() as stack:
        stores = open_stores(sqlite, duckdb)
        for s in stores:
            stack.callback(s.close)
        results = load_and_check(staged, stores, folder, progress=progress)
    for r in results[:1]:
        r.notes[:0] = folder.recovered            # an earlier import's switch, settled first
    return results
