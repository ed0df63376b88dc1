"""The analytics capability of a store, as an explicit interface: what the heat model and the size
statistics need beyond :class:`~blue_nb.stores.Store`'s ``execute``, and the SQL fragments their
statements are built from.

A store that has the capability opens a session with :meth:`Store.analytics()
<blue_nb.stores.base.Store.analytics>`: a :class:`Scratch` (temporary tables dropped together,
numpy columns, bulk uploads). The DuckDB store has it (:class:`blue_nb.stores.duckdb.DuckDBScratch`);
any other store raises a :class:`~blue_nb.errors.StoreError` that says to use a DuckDB store. The
session's SQL is DuckDB's: ``regexp_extract`` / ``regexp_full_match`` to cut parameters out of key
columns, window functions over millions of entries, ``ASOF JOIN`` to draw calls by cumulative
weight, ``quantile_disc`` for median sizes.

Values from the spec or the data never enter SQL text: they are ``?`` parameters, carried next to
the text by :class:`Sql` fragments until the statement runs; only validated identifiers and numbers
we generate are written into the text.

This module imports no driver (and pandas only when a :func:`frame` is asked for): the heat model
and the size statistics import it, never a store's driver module.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Protocol, Sequence

from blue_nb.layout import quote_ident
from blue_nb.stores.base import Store

__all__ = ["Scratch", "Sql", "frame", "ident", "param"]

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


def frame(store: Store, sql: str, columns: Sequence[str], params: Sequence = ()):
    """The rows of a query as a pandas DataFrame with the given column names."""
    import pandas as pd  # deferred: the interface loads no heavy library until a frame is asked for

    return pd.DataFrame(store.execute(sql, list(params)), columns=list(columns))


class Scratch(Protocol):
    """An analytics session on a store (from :meth:`Store.analytics() <blue_nb.stores.base.Store.analytics>`):
    temporary tables of one run, dropped together by :meth:`close`, and the queries run over them.

    ``store`` is the store it runs on (for :func:`frame` and the store's reads); ``cache`` keeps what a
    run computed once for its later steps (the entry tables of :mod:`blue_nb.stores.entries`, say).
    """

    store: Store
    cache: dict[str, Any]

    def execute(self, sql: str | Sql, params: Sequence = ()) -> list[tuple]:
        """Run one statement: trusted text with ``params``, or a :class:`Sql` fragment (its own
        parameters first, then ``params``); returns the rows."""
        ...

    def rows(self, sql: str, params: Sequence = (), batch: int = 2000) -> Iterator[tuple]:
        """Stream the rows of a query (for results too big to fetch at once)."""
        ...

    def column(self, sql: str, params: Sequence = ()) -> Any:
        """The first column of a query's rows as one numpy array: no Python object per row (a column of
        millions of item sizes takes 8 bytes a row, not a tuple and an int each)."""
        ...

    def name(self, base: str) -> str:
        """The (unquoted) name of this session's temporary table ``base``, dropped by :meth:`close`."""
        ...

    def create_as(self, base: str, select: str, params: Sequence = ()) -> str:
        """A temporary table ``base`` holding the rows of ``select`` (``params`` bind its ``?``), replacing
        one of the same name; returns the quoted name."""
        ...

    def upload(self, base: str, columns: dict[str, str], rows: Iterable[tuple]) -> str:
        """A temporary table with a row id primary key (``rid``) and ``columns`` (name -> SQL type), filled
        with ``rows`` through the store's bulk insert; returns the quoted name."""
        ...

    def upload_frame(self, base: str, df: Any, types: dict[str, str]) -> str:
        """:meth:`upload` of a pandas frame's ``types`` columns (NaN and None are NULL), handed over a column
        at a time."""
        ...

    def close(self) -> None:
        """Drop the session's temporary tables and forget its cache."""
        ...
