"""The SQLite store: ADR 0018's table in a SQLite file (or ``:memory:``); read-only, it is also the
reader of Blue's own SQLite files (:meth:`SQLiteStore.blue_tables`), for imports."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from blue_nb.errors import StoreError
from blue_nb.layout import quote_ident
from blue_nb.stores.base import KeyConflict, Store

__all__ = ["SQLiteStore"]

#: a writer's page cache (KiB) and the pages its write-ahead log grows to before they are copied into the file.
#: SQLite's 2 MB and 1,000 pages make a load write the key index's pages again at every chunk it commits: a
#: million items loaded in 45 s, 34 s with these (blue-nb load of 1M dialogue rows; peak 175 -> 330 MB; the
#: log grows to 256 MB on disk while a load runs)
CACHE_KB = 128 * 1024
CHECKPOINT_PAGES = 65_536
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,255}$")     # the table names the stores can quote
#: blue_nb's own side tables: catalogs, staging, the spec record, the checks' findings
_INTERNAL = ("__items", "__next", "__src", "__spec", "__checks")


class SQLiteStore(Store):
    """The items of ADR 0018's table in a SQLite file, or in memory."""

    kind = "sqlite"

    def __init__(self, path: str | Path = ":memory:", *, timeout: float = 30.0, read_only: bool = False):
        self.path = str(path) if str(path) == ":memory:" else str(Path(path).absolute())
        self.read_only = read_only
        try:
            if read_only:
                self.con = self._open_read_only(timeout)
            else:
                self.con = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=timeout)
                self.con.execute("PRAGMA journal_mode=WAL" if self.path != ":memory:" else "PRAGMA journal_mode=MEMORY")
                self.con.execute(f"PRAGMA cache_size=-{CACHE_KB}")
                self.con.execute(f"PRAGMA wal_autocheckpoint={CHECKPOINT_PAGES}")
        except sqlite3.Error as e:
            raise StoreError(f"cannot open SQLite database: {e}", where=self.path,
                             hint="check the path and that the folder exists", cause=e) from e

    def _open_read_only(self, timeout: float) -> sqlite3.Connection:
        """A connection that cannot write: the file must exist and be SQLite (checked by reading its schema)."""
        if self.path == ":memory:" or not Path(self.path).is_file():
            raise StoreError("no SQLite file to read", where=self.path,
                             hint="give the path of an existing .sqlite file")
        uri = Path(self.path).as_uri() + "?mode=ro"
        con = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=timeout)
        try:
            con.execute("SELECT count(*) FROM sqlite_master").fetchall()   # "file is not a database" shows here
        except sqlite3.Error:
            con.close()
            raise
        return con

    def blue_tables(self) -> dict[str, list[str]]:
        """Every ``blue_*`` table of the file (ADR 0018's tables, by name) -> its columns, in name order;
        blue_nb's own side tables (catalogs, load staging, the spec record, the load journal) are left out."""
        rows = self.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 5) = 'blue_' "
                            "ORDER BY name")
        names = [r[0] for r in rows if _NAME.match(r[0])]
        return {n: self.table_columns(n) for n in names
                if n != "blue_nb_loads" and not n.endswith(_INTERNAL) and "__next__" not in n}

    def execute(self, sql, params=()):
        try:
            return self.con.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise StoreError(f"SQLite: {e}", where=self.path, hint=f"while running: {sql.splitlines()[0][:80]}",
                             cause=e) from e

    def rows(self, sql, params, batch=500):
        try:
            cur = self.con.execute(sql, params)
            while chunk := cur.fetchmany(batch):
                yield from chunk
        except sqlite3.Error as e:
            raise StoreError(f"SQLite: {e}", where=self.path, cause=e) from e

    def insert_rows(self, table, columns, rows):
        self._insert(table, columns, rows, "INSERT OR REPLACE")

    def insert_new(self, table, columns, rows):
        self._insert(table, columns, rows, "INSERT")

    def _insert(self, table, columns, rows, verb):
        cols = ", ".join(quote_ident(c) for c in columns)
        marks = ", ".join("?" for _ in columns)
        try:
            self.con.executemany(f"{verb} INTO {quote_ident(table)} ({cols}) VALUES ({marks})", rows)
        except sqlite3.IntegrityError as e:
            if verb == "INSERT":                     # only a plain INSERT can meet a key that is already there
                raise KeyConflict(f"SQLite: a key already in {table!r}: {e}", where=self.path, cause=e) from e
            raise StoreError(f"SQLite insert into {table!r} failed: {e}", where=self.path, cause=e) from e
        except sqlite3.Error as e:
            raise StoreError(f"SQLite insert into {table!r} failed: {e}", where=self.path, cause=e) from e

    def table_columns(self, table):
        return [r[1] for r in self.execute(f"PRAGMA table_info({quote_ident(table)})")]

    def begin(self):
        self.execute("BEGIN IMMEDIATE")

    def commit(self):
        self.execute("COMMIT")

    def rollback(self):
        if self.con.in_transaction:
            self.con.execute("ROLLBACK")

    def close(self):
        self.con.close()
