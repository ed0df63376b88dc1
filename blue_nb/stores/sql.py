"""SQL plans of access patterns, as data: ``(sql, params)`` for a :class:`~blue_nb.access.KeyRequest`.

Pure functions; the same SQL runs on SQLite and DuckDB (both compare TEXT by UTF-8 bytes, as
DynamoDB compares S keys). Values are always parameters; identifiers are validated and quoted.
For N and B sort keys the SQL selects the partition and :mod:`blue_nb.access` filters and
orders exactly (numbers numerically, binary by bytes).
"""

from __future__ import annotations

from blue_nb.access import KeyRequest, prefix_successor
from blue_nb.stores.base import TableLayout, key_text, quote_ident

__all__ = ["read_sql", "get_sql"]

_CMP = {"eq": "=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">="}


def _sk_condition(col: str, req: KeyRequest) -> tuple[str, list]:
    if req.sk_op is None or req.sk_type != "S":
        return "", []
    vals = [key_text(v) for v in req.sk_values]
    if req.sk_op == "begins_with":
        upper = prefix_successor(vals[0])
        if upper is None:
            return f" AND {col} >= ?", vals
        return f" AND {col} >= ? AND {col} < ?", [vals[0], upper]
    if req.sk_op == "between":
        return f" AND {col} BETWEEN ? AND ?", vals
    return f" AND {col} {_CMP[req.sk_op]} ?", vals


def get_sql(layout: TableLayout, req: KeyRequest) -> tuple[str, list]:
    """GetItem: one row by its full key."""
    t, c = quote_ident(layout.table), quote_ident(layout.catalog)
    sk = key_text(req.sk_values[0]) if req.sk_values else ""
    return (f"SELECT t.data, c.size FROM {t} t JOIN {c} c ON c.pk = t.pk AND c.sk = t.sk "
            "WHERE t.pk = ? AND t.sk = ?", [key_text(req.pk_value), sk])


def read_sql(layout: TableLayout, req: KeyRequest) -> tuple[str, list]:
    """Query or Scan, on the table or an index: the matching rows ``(data, size)`` in key order."""
    if req.operation == "get_item":
        return get_sql(layout, req)
    t, c = quote_ident(layout.table), quote_ident(layout.catalog)
    desc = "" if req.forward else " DESC"
    if req.index == "table":
        pk_col, sk_col, ties = "t.pk", "t.sk", ""
    else:
        pk_col = "c." + quote_ident(f"{req.index}__pk")
        sk_col = "c." + quote_ident(f"{req.index}__sk") if req.sk_attr else None
        ties = f", c.pk{desc}, c.sk{desc}"
    join = f"SELECT t.data, c.size FROM {t} t JOIN {c} c ON c.pk = t.pk AND c.sk = t.sk"
    if req.operation == "scan":
        where = "" if req.index == "table" else f" WHERE {pk_col} IS NOT NULL"
        order = "c.pk, c.sk" if req.index == "table" else f"{pk_col}, {sk_col + ', ' if sk_col else ''}c.pk, c.sk"
        return f"{join}{where} ORDER BY {order}", []
    params: list = [key_text(req.pk_value)]
    cond, extra = _sk_condition(sk_col, req) if sk_col else ("", [])
    sort_key = req.sk_type == "S" and sk_col
    order = f" ORDER BY {sk_col}{desc}{ties}" if sort_key else f" ORDER BY c.pk, c.sk"
    return f"{join} WHERE {pk_col} = ?{cond}{order}", params + extra
