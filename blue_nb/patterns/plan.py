"""The plan of one access-pattern call: planned once, shown as it is, executed as it is.

:func:`plan` binds a pattern to its parameters and returns a :class:`Plan` that holds the bound
:class:`~blue_nb.patterns.bind.KeyRequest`, the SQL statement each local store runs (with its
parameters) and the boto3 request that does the same on DynamoDB. The stores execute
``plan.sql[store.kind]``; the explorer, the CLI and the notebooks show exactly that plan.

A write is a dry run: its SQL reads the item at the key (the item the write would replace), and
the result prices the write; its boto3 request is completed with the item that was priced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from blue_nb.errors import QueryError
from blue_nb.patterns.bind import KeyRequest, bind
from blue_nb.patterns.boto3_request import boto3_request
from blue_nb.layout import TableLayout
from blue_nb.patterns.sql import Statement, read_sql
from blue_nb.spec import AccessPattern, Spec

__all__ = ["BACKENDS", "Plan", "plan", "show_boto3"]

BACKENDS = ("sqlite", "duckdb")


def show_boto3(method: str, kwargs: Mapping[str, Any]) -> str:
    """A boto3 client call as a reader sees it, and as Python reads it: keyword arguments, small values
    on one line (``{"S": "x"}``), ``True`` not ``true``."""
    return f"client.{method}(\n" + ",\n".join(f"    {k}={_compact(v, 4)}" for k, v in kwargs.items()) + ",\n)"


def _flat(v: Any) -> str:
    """``v`` as a one-line Python literal (True, None; strings as JSON writes them, which Python reads)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_flat(k)}: {_flat(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_flat(x) for x in v) + "]"
    if isinstance(v, bool) or v is None:
        return repr(v)
    return json.dumps(v, ensure_ascii=False)


def _compact(v: Any, indent: int, width: int = 88) -> str:
    """A Python literal that keeps small values on one line (``{"S": "x"}``) and breaks large ones per key."""
    flat = _flat(v)
    if len(flat) + indent <= width or not isinstance(v, (dict, list)) or not v:
        return flat
    pad = " " * (indent + 4)
    if isinstance(v, dict):
        inner = [f"{pad}{_flat(k)}: {_compact(x, indent + 4, width)}" for k, x in v.items()]
        return "{\n" + ",\n".join(inner) + ",\n" + " " * indent + "}"
    inner = [f"{pad}{_compact(x, indent + 4, width)}" for x in v]
    return "[\n" + ",\n".join(inner) + ",\n" + " " * indent + "]"


@dataclass(frozen=True, eq=False)
class Plan:
    """One bound call of a pattern: the request, the SQL per store, the boto3 request."""

    spec: Spec
    request: KeyRequest
    layout: TableLayout
    sql: Mapping[str, Statement]                  # store kind -> the statement it runs
    boto3: tuple[str, dict[str, Any]]             # (client method, keyword arguments)
    pattern: AccessPattern = field(repr=False, default=None)

    @property
    def is_read(self) -> bool:
        return self.request.is_read

    def statement(self, backend: str) -> Statement:
        """The statement a store of kind ``backend`` runs for this plan."""
        try:
            return self.sql[backend]
        except KeyError:
            raise ValueError(f"no SQL planned for a {backend!r} store; stores are {', '.join(self.sql)}") from None

    def rows_needed(self, max_pages: int | None = None, follow: bool = False) -> int | None:
        """The most rows (in the SQL's order) the pages a call reads can use: ``Limit`` per page, and one
        more; None when any row may be needed (no Limit, every page followed without a cap, a GetItem or
        write, or a read whose order is made after the SQL: a number or binary key, :func:`key_order`).
        The pages are :func:`~blue_nb.patterns.paginate`'s: one per call with a Limit, ``max_pages`` caps."""
        req = self.request
        if req.operation not in ("query", "scan") or req.limit is None or req.start_key:
            return None
        if not req.ordered_in_sql:
            return None
        pages = max_pages if max_pages is not None else (None if follow else 1)
        return None if pages is None else req.limit * pages + 1

    def paged_statement(self, backend: str, max_pages: int | None = None, follow: bool = False) -> Statement:
        """:meth:`statement` with ``LIMIT`` :meth:`rows_needed`: what a store runs for a call that reads
        these pages (a database sorts or scans less when it knows how few rows are wanted)."""
        st = self.statement(backend)
        n = self.rows_needed(max_pages, follow)
        return st if n is None else Statement(f"{st.text} LIMIT ?", (*st.params, n))

    def show_sql(self, backend: str = "sqlite", max_pages: int | None = None, follow: bool = False) -> str:
        """The statement a store of kind ``backend`` runs for a call reading these pages, as a reader sees it."""
        return self.paged_statement(backend, max_pages, follow).show()

    def show_boto3(self, item: Mapping[str, Any] | None = None) -> str:
        """The boto3 request; a put or update is shown with ``item`` (the item the dry run priced)."""
        return show_boto3(*self.boto3_for(item))

    def boto3_for(self, item: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        if item is None or self.is_read or self.request.operation == "delete_item":
            return self.boto3
        return boto3_request(self.request, item=item)


def plan(spec: Spec, pattern: AccessPattern | str, params: Mapping[str, Any] | None = None, *,
         start: Mapping[str, Any] | None = None) -> Plan:
    """Bind ``pattern`` to ``params`` and plan it for every store and for DynamoDB; ``start``: a query's or
    scan's ExclusiveStartKey (a page's ``last_evaluated_key``), to read on from there."""
    p = spec.pattern(pattern) if isinstance(pattern, str) else pattern
    req = bind(spec, p, params)
    if start:
        if req.operation not in ("query", "scan"):
            raise QueryError(f"{p.name} is a {req.operation}: only a query or a scan starts from a key",
                             where=f"access_patterns.{p.name}", hint="leave out the start key")
        missing = [a for a in dict.fromkeys((*req.table_keys, req.pk_attr, req.sk_attr)) if a and a not in start]
        if missing:
            raise QueryError("The provided starting key is invalid: it lacks " + ", ".join(missing),
                             where=f"access_patterns.{p.name}", hint="pass a page's last_evaluated_key as it is")
        req = replace(req, start_key=dict(start))
    layout = TableLayout.of(spec)
    return Plan(spec, req, layout, {b: read_sql(layout, req, b) for b in BACKENDS},
                boto3_request(req, exclusive_start_key=req.start_key), p)
