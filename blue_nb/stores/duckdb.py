"""The DuckDB store: the same items in the same shape, in a DuckDB file (or in memory), and its analytics
sessions (:class:`DuckDBScratch`, the :class:`~blue_nb.stores.analytics.Scratch` the heat model and the size
statistics run on)."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import tempfile
import weakref
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from blue_nb.errors import StoreError
from blue_nb.layout import quote_ident
from blue_nb.stores.analytics import Scratch, Sql
from blue_nb.stores.base import KeyConflict, Store

__all__ = ["DuckDBScratch", "DuckDBStore"]


#: the memory DuckDB may hold (its buffer pool: table pages, hash tables, sorts); beyond it, it writes to a
#: temporary folder. Bounded so that a million items, in memory or in a file, keep the process under 1 GB.
#: ``BLUE_NB_DUCKDB_MEMORY`` (DuckDB's own notation: ``2GB``, ``512MB``) changes it.
MEMORY_LIMIT = "400MB"
MEMORY_ENV = "BLUE_NB_DUCKDB_MEMORY"
#: the write-ahead log a file grows to before DuckDB checkpoints it into the file. DuckDB's 16 MB default
#: checkpoints a load every ~50k items, compressing the table's last row group again each time: a million
#: items loaded in 40 s, 31 s with this (measured: blue-nb load of 1M dialogue rows, same peak memory). In a store
#: file's small row groups (ROW_GROUP_SIZE) a load's log stays under it: CHECKPOINT_ROWS paces those checkpoints
CHECKPOINT_THRESHOLD = "256MB"
_SIZE = re.compile(r"\s*\d+(\.\d+)?\s*([KMGT]i?B|B|bytes)\s*", re.IGNORECASE)


#: rows per row group of a store file (DuckDB's default is 122,880). A read of one partition scans every row group
#: whose key ranges may hold it, so smaller groups scan less: at 1M dialogue items (300 calls of each pattern, keys
#: drawn as the bench draws them), p50 / p99 ms of get_dialogue 5.6 / 9.3 -> 3.0 / 5.0, list_experts 7.7 / 11.0 ->
#: 3.5 / 5.6, dialogues_by_status 13.1 / 19.9 -> 13.7 / 16.3, tension_history 14.6 / 23.8 -> 10.3 / 15.3
ROW_GROUP_SIZE = 16_384
#: rows inserted between the checkpoints a store file takes after a commit. With row groups of 16,384 rows DuckDB
#: writes each full group straight into the file while a transaction runs, so its log stays small and never
#: reaches CHECKPOINT_THRESHOLD; without a checkpoint the key index (ART) of a staged table stays in memory: a
#: load of 5M dialogue items ran out of its 400 MB (the index held 273 MB at 1.6M items). A checkpoint every
#: 1.5M rows (500k items: their table, catalog and source rows) writes it out: the load completes in 106 s, the
#: index under 90 MB
CHECKPOINT_ROWS = 1_500_000
_FILE = "store"                 # a store file's name in its connection (attached, then the default)
SPILL_PREFIX = "blue-nb-duckdb-"


def _connect(path: str, read_only: bool, config: dict) -> duckdb.DuckDBPyConnection:
    """A connection to a store: an in-memory database, or the store file attached as a DuckDB file (never read
    as another kind) with :data:`ROW_GROUP_SIZE` (a file opened with ``duckdb.connect`` takes DuckDB's default,
    and no setting changes it)."""
    if path == ":memory:":
        return duckdb.connect(path, config=config)
    con = duckdb.connect(":memory:", config=config)
    try:
        options = f"TYPE DUCKDB, ROW_GROUP_SIZE {ROW_GROUP_SIZE}" + (", READ_ONLY" if read_only else "")
        quoted = path.replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS {_FILE} ({options})")
        con.execute(f"USE {_FILE}")
    except BaseException:
        con.close()
        raise
    return con


def _spill_folder() -> str:
    """A new temporary folder for an in-memory store to spill to, named by this process. A process that was
    killed (a kernel stopped by SIGKILL or SIGTERM) could not remove its folders: those of processes that are
    gone are removed here, so they do not pile up in the temporary folder."""
    base = Path(tempfile.gettempdir())
    for old in base.glob(f"{SPILL_PREFIX}*-*"):
        pid = old.name[len(SPILL_PREFIX):].partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-", dir=base)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:                 # another user's process, or a platform without signals: leave its folder
        return True
    return True


class DuckDBStore(Store):
    """The items of ADR 0018's table in a DuckDB file, or in memory."""

    kind = "duckdb"
    json_text = "json_extract_string"
    chunk_size = 20_000

    def __init__(self, path: str | Path = ":memory:", *, read_only: bool = False):
        self.path = str(path) if str(path) == ":memory:" else str(Path(path).absolute())
        self.read_only = read_only
        self._inserted = 0                             # rows inserted since the last checkpoint (CHECKPOINT_ROWS)
        limit = self.memory_limit = os.environ.get(MEMORY_ENV, MEMORY_LIMIT)
        if not _SIZE.fullmatch(limit):
            raise StoreError(f"{MEMORY_ENV}={limit!r} is not a memory size", where="environment",
                             hint=f"write it as DuckDB does, e.g. 512MB or 2GB, or unset it for {MEMORY_LIMIT}")
        self._spill = _spill_folder() if self.path == ":memory:" else None
        if self._spill:                                # removed on close, or when the store is forgotten
            weakref.finalize(self, shutil.rmtree, self._spill, True)
        # no extension is ever fetched or loaded behind the user's back (ATTACH of a SQLite file would fetch one)
        config = {"memory_limit": limit, "checkpoint_threshold": CHECKPOINT_THRESHOLD,
                  "autoinstall_known_extensions": False, "autoload_known_extensions": False}
        # in memory: spill to a folder of our own, not ./.tmp; a file: beside it, where DuckDB puts it for a file
        config["temp_directory"] = self._spill or f"{self.path}.tmp"
        try:
            self.con = _connect(self.path, read_only, config)
        except duckdb.Error as e:
            self._remove_spill()
            raise StoreError(f"cannot open DuckDB database: {e}", where=self.path,
                             hint="check the path, and that no other process holds the file open", cause=e) from e

    def execute(self, sql, params=()):
        return self._fetch(sql, params, lambda result: result.fetchall())

    def _fetch(self, sql, params, fetch):
        """Run one statement and ``fetch`` its result; driver errors become StoreError here, once."""
        try:
            return fetch(self.con.execute(sql, list(params)))
        except duckdb.InterruptException as e:
            raise KeyboardInterrupt from e           # Ctrl-C inside a statement is an interrupt, not an error
        except RuntimeError as e:                    # ... also when DuckDB was reading a Python (Arrow) object
            if _interrupted(e):
                raise KeyboardInterrupt from e
            raise
        except duckdb.Error as e:
            raise self._error(e, sql) from e

    def rows(self, sql, params, batch=500):
        try:
            cur = self._cursor()
            cur.execute(sql, list(params))
            while chunk := cur.fetchmany(batch):
                yield from chunk
        except duckdb.InterruptException as e:
            raise KeyboardInterrupt from e
        except RuntimeError as e:
            if _interrupted(e):
                raise KeyboardInterrupt from e
            raise
        except duckdb.Error as e:
            raise self._error(e, sql) from e

    def column_chunks(self, sql, params, batch=10_000):
        """Arrow batches, turned into Python lists a column at a time (not a tuple per row)."""
        try:
            for rb in self._cursor().sql(sql, params=list(params)).to_arrow_reader(batch):
                yield [c.to_pylist() for c in rb.columns]
        except duckdb.InterruptException as e:
            raise KeyboardInterrupt from e
        except RuntimeError as e:
            if _interrupted(e):
                raise KeyboardInterrupt from e
            raise
        except duckdb.Error as e:
            raise self._error(e, sql) from e

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """Another connection to this store's database (a cursor), reading the store file as this one does."""
        cur = self.con.cursor()
        if self.path != ":memory:":
            cur.execute(f"USE {_FILE}")
        return cur

    def _error(self, e: Exception, sql: str) -> StoreError:
        """A DuckDB error as the StoreError that says where and what to do."""
        hint = f"while running: {sql.splitlines()[0][:80]}"
        if isinstance(e, duckdb.OutOfMemoryException):
            hint = (f"DuckDB may hold {self.memory_limit} here ({MEMORY_ENV}); set it higher, e.g. {MEMORY_ENV}=2GB; "
                    + hint)
        return StoreError(f"DuckDB: {e}", where=self.path, hint=hint, cause=e)

    def analytics(self) -> DuckDBScratch:
        """A new analytics session on this store (see :class:`DuckDBScratch`); close it when done."""
        return DuckDBScratch(self)

    def insert_rows(self, table, columns, rows):
        self._insert(table, columns, rows, "INSERT OR REPLACE")

    def insert_new(self, table, columns, rows):
        self._insert(table, columns, rows, "INSERT")

    def _not_strings(self, table, attrs):
        """The base class's JSON test, run only on the rows where a regular expression over the stored text finds
        one of ``attrs`` followed by a type tag other than S (RE2 scans the text many times faster than the JSON
        functions parse it; a nested map holding the same name is let through to the exact test)."""
        exact = super()._not_strings_sql(attrs)
        tags = " OR ".join("regexp_matches(data, ?)" for _ in attrs)
        pats = ["".join(ch if ch.isalnum() else f"\\x{{{ord(ch):02x}}}" for ch in json.dumps(a))
                + r'\s*:\s*\{\s*"(?:[^S]|SS)' for a in attrs]
        rows = self.execute(f"SELECT pk, sk FROM (SELECT pk, sk, data FROM {quote_ident(table)} WHERE {tags}) "
                            f"WHERE {exact[0]}", [*pats, *exact[1]])
        return {(r[0], r[1]) for r in rows}

    def insert_columns(self, table, columns):
        """Arrow straight from the columns (numpy arrays without a copy; NaN is NULL, as pandas means it)."""
        arrow = pa.table({c: v if isinstance(v, (pa.Array, pa.ChunkedArray)) else pa.array(v, from_pandas=True)
                          for c, v in columns.items()})
        if arrow.num_rows:
            self._insert_arrow(table, list(columns), arrow, "INSERT")

    def _insert(self, table, columns, rows, verb):
        if not rows:
            return
        self._insert_arrow(table, columns, pa.table(dict(zip(columns, map(list, zip(*rows))))), verb)

    def _insert_arrow(self, table, columns, arrow, verb):
        self._inserted += arrow.num_rows
        cols = ", ".join(quote_ident(c) for c in columns)
        try:
            self.con.register("_blue_nb_chunk", arrow)
            self.con.execute(f"{verb} INTO {quote_ident(table)} ({cols}) SELECT {cols} FROM _blue_nb_chunk")
        except duckdb.InterruptException as e:
            raise KeyboardInterrupt from e
        except RuntimeError as e:
            if _interrupted(e):
                raise KeyboardInterrupt from e
            raise
        except duckdb.ConstraintException as e:
            raise KeyConflict(f"DuckDB: a key already in {table!r}: {e}", where=self.path, cause=e) from e
        except duckdb.Error as e:
            raise StoreError(f"DuckDB insert into {table!r} failed: {e}", where=self.path, cause=e) from e
        finally:
            try:
                self.con.unregister("_blue_nb_chunk")
            except duckdb.Error:
                pass            # a failed statement aborted the transaction; the caller rolls it back

    def table_columns(self, table):
        rows = self.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                            "ORDER BY ordinal_position", (table,))
        return [r[0] for r in rows]

    def begin(self):
        self.execute("BEGIN TRANSACTION")

    def commit(self):
        self.execute("COMMIT")
        if self._inserted >= CHECKPOINT_ROWS and self.path != ":memory:":
            try:
                self.execute("CHECKPOINT")
                self._inserted = 0
            except StoreError:
                pass                # another connection's transaction holds it off: tried again at the next commit

    def rollback(self):
        try:
            self.con.execute("ROLLBACK")
        except duckdb.Error:
            pass  # no transaction was open

    def close(self):
        try:
            self.con.close()
        finally:
            self._remove_spill()

    def twin(self) -> "DuckDBStore":
        """The same database through a connection of its own, for work in another thread (a DuckDB connection
        is used by one thread at a time; its cursors are connections to the same database). Closing the twin
        closes only that connection; :meth:`interrupt` stops the statement it runs."""
        twin = object.__new__(DuckDBStore)
        twin.path, twin.memory_limit, twin._spill, twin.read_only = self.path, self.memory_limit, None, self.read_only
        twin._inserted = 0
        twin.con = self._cursor()
        return twin

    def interrupt(self) -> None:
        """Stop the statement this store's connection is running (from another thread), if any."""
        self.con.interrupt()

    def _remove_spill(self):
        if self._spill:
            shutil.rmtree(self._spill, ignore_errors=True)


_sessions = itertools.count()           # numbers the sessions of this process: their table names never meet


class DuckDBScratch(Scratch):
    """The :class:`~blue_nb.stores.analytics.Scratch` of a DuckDB store: temporary tables (``CREATE OR REPLACE
    TEMP TABLE``, named by a prefix of their own), numpy columns (DuckDB's ``fetchnumpy``) and bulk uploads
    through the store's Arrow inserts."""

    def __init__(self, store: DuckDBStore):
        self.store = store
        self.prefix = f"_scratch{next(_sessions)}_"
        self.tables: list[str] = []
        self.cache: dict = {}

    def execute(self, sql, params=()):
        if isinstance(sql, Sql):
            sql, params = sql.text, [*sql.params, *params]
        return self.store.execute(sql, list(params))

    def rows(self, sql, params=(), batch=2000):
        return self.store.rows(sql, list(params), batch)

    def column(self, sql, params=()) -> np.ndarray:
        got = self.store._fetch(sql, params, lambda result: result.fetchnumpy())
        return np.asarray(next(iter(got.values())))

    def name(self, base):
        n = re.sub(r"[^A-Za-z0-9_]", "_", self.prefix + base)
        if n not in self.tables:
            self.tables.append(n)
        return n

    def create_as(self, base, select, params=()):
        n = self.name(base)
        self.execute(f"CREATE OR REPLACE TEMP TABLE {quote_ident(n)} AS {select}", params)
        return quote_ident(n)

    def upload(self, base, columns, rows):
        n = self.name(base)
        cols = ", ".join(f"{quote_ident(c)} {t}" for c, t in columns.items())
        self.execute(f"CREATE OR REPLACE TEMP TABLE {quote_ident(n)} (rid BIGINT PRIMARY KEY, {cols})")
        batch: list[tuple] = []
        names = ["rid", *columns]
        for i, row in enumerate(rows):
            batch.append((i, *row))
            if len(batch) >= 200_000:
                self.store.insert_rows(n, names, batch)
                batch = []
        if batch:
            self.store.insert_rows(n, names, batch)
        return quote_ident(n)

    def upload_frame(self, base, df, types):
        n = self.name(base)
        cols = ", ".join(f"{quote_ident(c)} {t}" for c, t in types.items())
        self.execute(f"CREATE OR REPLACE TEMP TABLE {quote_ident(n)} (rid BIGINT PRIMARY KEY, {cols})")
        self.store.insert_columns(n, {"rid": np.arange(len(df), dtype=np.int64), **{c: df[c] for c in types}})
        return quote_ident(n)

    def close(self):
        for n in reversed(self.tables):
            try:
                self.execute(f"DROP TABLE IF EXISTS {quote_ident(n)}")
            except StoreError:
                pass            # an aborted transaction or a closed store: temp tables go with their connection
        self.tables.clear()
        self.cache.clear()


def _interrupted(e: RuntimeError) -> bool:
    """Ctrl-C while DuckDB scans a Python object (a registered Arrow table) comes back as
    ``RuntimeError: Query interrupted``: an interrupt, not an error."""
    return "query interrupted" in str(e).lower()
