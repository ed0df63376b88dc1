"""SQL of access patterns, as data: a :class:`Statement` (text and parameters) for a KeyRequest.

Pure functions; the same SQL runs on SQLite and DuckDB (both compare TEXT by UTF-8 bytes, as
DynamoDB compares S keys), but for how each returns ``data`` as bytes (:func:`data_bytes`). Values
are always parameters; identifiers come from the :class:`~blue_nb.layout.TableLayout` and
are validated and quoted. Key values are compared as the stores keep them
(:func:`~blue_nb.layout.stored_key`: a number in DynamoDB's canonical text, so by value). A read whose
order keys are all strings (:attr:`~blue_nb.patterns.bind.KeyRequest.order_keys`) is filtered and ordered
here; for any other the SQL selects the partition (or the table) and
:func:`~blue_nb.patterns.paging.key_order` filters and orders exactly (numbers numerically, binary by bytes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from blue_nb.patterns.bind import COMPARISONS, KeyRequest, prefix_successor
from blue_nb.layout import TableLayout, quote_ident, stored_key

__all__ = ["Statement", "data_bytes", "get_sql", "read_sql"]

# ``data`` as the UTF-8 bytes of its JSON text, which is what the stores fetch: orjson reads bytes as they
# are, while a str costs the driver a decode and orjson an encode back (a full 1 MB page of 3,000 items
# with non-ASCII text came 3-5 ms sooner on either store). DuckDB encodes: its CAST of text to BLOB reads
# backslash escapes and refuses non-ASCII characters.
_DATA_BYTES = {"sqlite": "CAST({} AS BLOB)", "duckdb": "encode({})"}


def data_bytes(backend: str, column: str = "data") -> str:
    """The SQL expression of ``column`` (a JSON text column) as its UTF-8 bytes on a store of kind ``backend``."""
    try:
        return _DATA_BYTES[backend].format(column)
    except KeyError:
        raise ValueError(f"no SQL for a {backend!r} store; stores are {', '.join(_DATA_BYTES)}") from None


@dataclass(frozen=True)
class Statement:
    """One SQL statement and the values of its ``?`` placeholders."""

    text: str
    params: tuple = ()

    def __iter__(self):                  # sql, params = statement
        return iter((self.text, list(self.params)))

    def show(self) -> str:
        """The statement as a reader sees it: the SQL, then its parameters."""
        return f"{self.text}\n-- parameters: {json.dumps(list(self.params), ensure_ascii=False)}"


def _sk_condition(col: str, req: KeyRequest) -> tuple[str, list]:
    if req.sk_op is None or req.sk_type != "S":
        return "", []
    vals = [stored_key(v) for v in req.sk_values]
    if req.sk_op == "begins_with":
        upper = prefix_successor(vals[0])
        if upper is None:
            return f" AND {col} >= ?", vals
        return f" AND {col} >= ? AND {col} < ?", [vals[0], upper]
    if req.sk_op == "between":
        return f" AND {col} BETWEEN ? AND ?", vals
    return f" AND {col} {COMPARISONS[req.sk_op].symbol} ?", vals


def _join(layout: TableLayout, backend: str) -> str:
    t, c = quote_ident(layout.table), quote_ident(layout.catalog)
    data = data_bytes(backend, "t.data")
    return f"SELECT {data} AS data, c.size FROM {t} t JOIN {c} c ON c.pk = t.pk AND c.sk = t.sk"


def get_sql(layout: TableLayout, req: KeyRequest, backend: str) -> Statement:
    """One row ``(data, size)`` by its full table key: GetItem, and the current item a write replaces."""
    sk = stored_key(req.sk_values[0]) if req.sk_values else ""
    return Statement(f"{_join(layout, backend)} WHERE t.pk = ? AND t.sk = ?", (stored_key(req.pk_value), sk))


def read_sql(layout: TableLayout, req: KeyRequest, backend: str) -> Statement:
    """The statement a request runs on a store of kind ``backend``: for a query or scan (table or index)
    the matching rows ``(data, size)`` in key order, ``data`` as bytes (:func:`data_bytes`); for GetItem
    and every write, the one row at the request's key."""
    if req.operation not in ("query", "scan"):
        return get_sql(layout, req, backend)
    desc = "" if req.forward else " DESC"
    if req.index == "table":
        pk_col, sk_col, ties = "t.pk", "t.sk", ""
    else:
        pk_col = "c." + quote_ident(layout.index_pk(req.index))
        sk_col = "c." + quote_ident(layout.index_sk(req.index)) if req.sk_attr else None
        ties = f", c.pk{desc}, c.sk{desc}"
    join = _join(layout, backend)
    if req.operation == "scan":
        where = "" if req.index == "table" else f" WHERE {pk_col} IS NOT NULL"
        order = "c.pk, c.sk" if req.index == "table" else f"{pk_col}, {sk_col + ', ' if sk_col else ''}c.pk, c.sk"
        return Statement(f"{join}{where} ORDER BY {order}")
    params: list = [stored_key(req.pk_value)]
    cond, extra = _sk_condition(sk_col, req) if sk_col else ("", [])
    if not req.ordered_in_sql:                   # key_order filters and orders the partition's rows
        order = " ORDER BY c.pk, c.sk"
    elif sk_col:
        order = f" ORDER BY {sk_col}{desc}{ties}"
    else:                                        # an index without a sort key: its items all tie
        order = f" ORDER BY c.pk{desc}, c.sk{desc}"
    return Statement(f"{join} WHERE {pk_col} = ?{cond}{order}", tuple(params + extra))
