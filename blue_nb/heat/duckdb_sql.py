"""DuckDB-specific: the SQL helpers of the heat model, which runs on a DuckDB store only.

The heat SQL needs what only DuckDB (of the local stores) offers: ``regexp_extract`` /
``regexp_full_match`` to cut parameters out of key columns, window functions over millions of
entries for pages and weights, ``ASOF JOIN`` to draw calls by cumulative weight, and
``quantile_disc`` for median sizes. :func:`require_duckdb` turns any other store away before a
statement runs; every heat statement is built with this module's helpers: :class:`Sql` fragments,
:class:`Scratch` tables and :func:`frame`.

Everything runs through a :class:`~blue_nb.stores.Store`'s ``execute`` / ``insert_rows``: heat
never imports the ``duckdb`` driver itself.

Values from the spec or the data never enter SQL text: they are ``?`` parameters, carried next to
the text by :class:`Sql` fragments until the statement runs; only validated identifiers and
numbers we generate are written into the text.
"""

from __future__ import annotations

import itertools
import re
import string
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from blue_nb.errors import StoreError
from blue_nb.patterns import quote_ident
from blue_nb.stores import Store
from blue_nb.stores.duckdb import DuckDBStore

__all__ = ["Sql", "param", "ident", "Scratch", "frame", "require_duckdb"]

_counter = itertools.count()
_formatter = string.Formatter()


@dataclass(frozen=True)
class Sql:
    """A SQL fragment and the values of its ``?`` placeholders, in the order they appear in ``text``."""

    text: str
    params: tuple = ()

    def __post_init__(self):
        if (n := self.text.count("?")) != len(self.params):
            raise ValueError(f"{n} placeholder(s) but {len(self.params)} parameter(s) in {self.text!r}")

    @staticmethod
    def join(sep: str, parts: Iterable[Sql | str]) -> Sql:
        """The parts joined by ``sep``, their parameters concatenated in order (a ``str`` part is
        trusted SQL text: quoted identifiers, numbers we generate)."""
        parts = [p if isinstance(p, Sql) else Sql(p) for p in parts]
        return Sql(sep.join(p.text for p in parts), tuple(v for p in parts for v in p.params))

    @staticmethod
    def format(template: str, **parts: Sql | str) -> Sql:
        """``template`` with each ``{name}`` replaced by ``parts[name]``; a part used twice brings its
        parameters twice, so they line up with the placeholders of the result."""
        pieces: list[Sql | str] = []
        for text, name, spec, conv in _formatter.parse(template):
            pieces.append(text)
            if name is not None:
                if spec or conv:
                    raise ValueError(f"no format spec or conversion in SQL templates: {{{name}!{conv}:{spec}}}")
                pieces.append(parts[name])
        return Sql.join("", pieces)


def param(value: Any) -> Sql:
    """One bound value: ``?`` with ``value`` as its parameter."""
    return Sql("?", (value,))


def ident(name: str) -> str:
    """A double-quoted identifier for a table or catalog column (validated like table names)."""
    return quote_ident(name)


def require_duckdb(store: Store) -> None:
    """Raise :class:`~blue_nb.errors.StoreError` unless ``store`` is a :class:`DuckDBStore`."""
    if not isinstance(store, DuckDBStore):
        raise StoreError(f"the heat model runs on a DuckDB store, not {getattr(store, 'kind', store)!r}",
                         hint='open one with blue_nb.stores.open_store("duckdb") and load the data into it')


def frame(store: Store, sql: str, columns: Sequence[str], params: Sequence = ()) -> pd.DataFrame:
    """The rows of a query as a DataFrame with the given column names."""
    return pd.DataFrame(store.execute(sql, list(params)), columns=list(columns))


class Scratch:
    """Temporary tables of one heat run, dropped together by :meth:`close`."""

    def __init__(self, store: Store):
        self.store = store
        self.prefix = f"_heat{next(_counter)}_"
        self.tables: list[str] = []
        self.cache: dict[str, Any] = {}

    def execute(self, sql: str | Sql, params: Sequence = ()) -> list[tuple]:
        """Run one statement on the store: trusted text with ``params``, or a :class:`Sql` fragment
        (its own parameters first, then ``params``); returns the rows."""
        if isinstance(sql, Sql):
            sql, params = sql.text, [*sql.params, *params]
        return self.store.execute(sql, list(params))

    def rows(self, sql: str, params: Sequence = (), batch: int = 2000):
        """Stream the rows of a query (for results too big to fetch at once)."""
        return self.store.rows(sql, list(params), batch)

    def name(self, base: str) -> str:
        n = re.sub(r"[^A-Za-z0-9_]", "_", self.prefix + base)
        if n not in self.tables:
            self.tables.append(n)
        return n

    def create_as(self, base: str, select: str, params: Sequence = ()) -> str:
        """``CREATE TEMP TABLE <name> AS <select>`` (``params`` bind its ``?``); returns the quoted name."""
        n = self.name(base)
        self.execute(f"CREATE OR REPLACE TEMP TABLE {ident(n)} AS {select}", params)
        return ident(n)

    def upload(self, base: str, columns: dict[str, str], rows: Iterable[tuple]) -> str:
        """A temp table with a row id primary key (``rid``) and ``columns`` (name -> SQL type), filled
        with ``rows`` through the store's bulk insert; returns the quoted name."""
        n = self.name(base)
        cols = ", ".join(f"{ident(c)} {t}" for c, t in columns.items())
        self.execute(f"CREATE OR REPLACE TEMP TABLE {ident(n)} (rid BIGINT PRIMARY KEY, {cols})")
        batch: list[tuple] = []
        names = ["rid", *columns]
        for i, row in enumerate(rows):
            batch.append((i, *row))
            if len(batch) >= 200_000:
                self.store.insert_rows(n, names, batch)
                batch = []
        if batch:
            self.store.insert_rows(n, names, batch)
        return ident(n)

    def upload_frame(self, base: str, df: pd.DataFrame, types: dict[str, str]) -> str:
        """:meth:`upload` of a frame's ``types`` columns (NaN and None are NULL), handed over a column at a time."""
        n = self.name(base)
        cols = ", ".join(f"{ident(c)} {t}" for c, t in types.items())
        self.execute(f"CREATE OR REPLACE TEMP TABLE {ident(n)} (rid BIGINT PRIMARY KEY, {cols})")
        self.store.insert_columns(n, {"rid": np.arange(len(df), dtype=np.int64), **{c: df[c] for c in types}})
        return ident(n)

    def close(self) -> None:
        for n in reversed(self.tables):
            try:
                self.execute(f"DROP TABLE IF EXISTS {ident(n)}")
            except StoreError:
                pass
        self.tables.clear()
        self.cache.clear()
