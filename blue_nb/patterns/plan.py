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

from blue_nb.errors import QueryError, TemplateError
from blue_nb.patterns.bind import KeyRequest, bind
from blue_nb.patterns.boto3_request import boto3_request
from blue_nb.layout import TableLayout
from blue_nb.patterns.sql import Statement, read_sql
from blue_nb.spec import AccessPattern, KeyTemplate, Spec

__all__ = ["ACTION_KINDS", "ActionsPlan", "BACKENDS", "Plan", "plan", "plan_actions", "show_boto3"]

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
        if req.operation not in ("query", "scan") or req.limit is None or req.start_key or req.total_segments:
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
    scan's ExclusiveStartKey (a page's ``last_evaluated_key``), to read on from there. A transaction or a
    batch is planned by :func:`plan_actions` (an :class:`ActionsPlan`)."""
    p = spec.pattern(pattern) if isinstance(pattern, str) else pattern
    if p.is_composite:
        if start:
            raise QueryError(f"{p.name} is a {p.operation}: only a query or a scan starts from a key",
                             where=f"access_patterns.{p.name}", hint="leave out the start key")
        return plan_actions(spec, p, params)  # type: ignore[return-value]
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


#: each composite operation's name for its actions in the boto3 request (a transaction's items; a batch's requests)
ACTION_KINDS = {"put_item": "Put", "update_item": "Update", "delete_item": "Delete", "get_item": "Get"}
#: DynamoDB's words when one request names an item twice
_DUPLICATE = {"transact_write_items": "Transaction request cannot include multiple operations on one item",
              "transact_get_items": "Transaction request cannot include multiple operations on one item",
              "batch_get_item": "Provided list of item keys contains duplicates",
              "batch_write_item": "Provided list of item keys contains duplicates"}


@dataclass(frozen=True, eq=False)
class ActionsPlan:
    """One call of a transaction or a batch (TransactWriteItems, TransactGetItems, BatchGetItem,
    BatchWriteItem): the :class:`Plan` of each action, in order, and the one boto3 request that sends them.

    A store runs every action's statement in one SQL transaction (``BEGIN`` .. ``COMMIT``), so the actions
    see one state of the table; ``checks[i]``: action ``i`` is a ConditionCheck (its key and condition only).
    """

    spec: Spec
    pattern: AccessPattern
    plans: tuple[Plan, ...]
    checks: tuple[bool, ...]

    @property
    def operation(self) -> str:
        return self.pattern.operation

    @property
    def is_read(self) -> bool:
        """A TransactGetItems or a BatchGetItem."""
        return self.operation in ("transact_get_items", "batch_get_item")

    @property
    def is_transaction(self) -> bool:
        return self.operation.startswith("transact_")

    def statements(self, backend: str) -> list[Statement]:
        """The statement of each action, in order, for a store of kind ``backend``."""
        return [p.statement(backend) for p in self.plans]

    def show_sql(self, backend: str = "sqlite", max_pages: int | None = None, follow: bool = False) -> str:
        """Every action's statement, as a reader sees it, inside the one SQL transaction a store runs."""
        body = "\n".join(f"-- action {i}: {p.request.pattern}" + (" (ConditionCheck)" if c else "") + "\n"
                         + st.show() for i, (p, c, st) in enumerate(zip(self.plans, self.checks,
                                                                          self.statements(backend))))
        return f"BEGIN;\n{body}\nCOMMIT;"

    @property
    def boto3(self) -> tuple[str, dict[str, Any]]:
        return self.boto3_for()

    def show_boto3(self, items: list[Mapping[str, Any] | None] | None = None) -> str:
        """The boto3 request; each put or update shown with its item in ``items`` (the dry run's)."""
        return show_boto3(*self.boto3_for(items))

    def boto3_for(self, items: list[Mapping[str, Any] | None] | None = None) -> tuple[str, dict[str, Any]]:
        """The boto3 request that sends every action at once; ``items[i]``: the item action ``i`` puts."""
        calls = [p.boto3_for(items[i] if items else None)[1] for i, p in enumerate(self.plans)]
        op, table = self.operation, self.spec.table_name
        if op == "transact_write_items":
            out = []
            for p, check, kw in zip(self.plans, self.checks, calls):
                if check:
                    kw = {k: v for k, v in kw.items() if k in ("TableName", "Key", "ConditionExpression",
                          "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure")}
                    kw["ExpressionAttributeNames"] = {a: n for a, n in kw.get("ExpressionAttributeNames", {}).items()
                                                      if a in kw["ConditionExpression"]}
                    kw["ExpressionAttributeValues"] = {a: v for a, v in kw.get("ExpressionAttributeValues", {}).items()
                                                       if a in kw["ConditionExpression"]}
                    out.append({"ConditionCheck": {k: v for k, v in kw.items() if v != {}}})
                else:
                    out.append({ACTION_KINDS[p.request.operation]: kw})
            return op, {"TransactItems": out, "ReturnConsumedCapacity": "INDEXES"}
        if op == "transact_get_items":
            return op, {"TransactItems": [{"Get": {k: v for k, v in kw.items() if k != "ConsistentRead"}}
                                          for kw in calls], "ReturnConsumedCapacity": "INDEXES"}
        if op == "batch_get_item":
            first = {k: v for k, v in calls[0].items() if k not in ("TableName", "Key")}
            return op, {"RequestItems": {table: {"Keys": [kw["Key"] for kw in calls], **first}},
                        "ReturnConsumedCapacity": "INDEXES"}
        return op, {"RequestItems": {table: [{"PutRequest": {"Item": kw["Item"]}} if "Item" in kw
                                             else {"DeleteRequest": {"Key": kw["Key"]}} for kw in calls]},
                    "ReturnConsumedCapacity": "INDEXES"}


def plan_actions(spec: Spec, pattern: AccessPattern | str, params: Mapping[str, Any] | None = None) -> ActionsPlan:
    """Plan a transaction's or a batch's actions with ``params`` (each action's parameters are key templates
    over them); an item named twice is refused in DynamoDB's words."""
    p = spec.pattern(pattern) if isinstance(pattern, str) else pattern
    where = f"access_patterns.{p.name}"
    params = {k: v for k, v in (params or {}).items() if v is not None and v != ""}
    unknown = [n for n in params if n not in p.parameters]
    missing = [n for n in p.parameters if n not in params]
    if unknown or missing:
        raise QueryError(f"pattern {p.name!r} " + (f"has no parameter {', '.join(map(repr, unknown))}" if unknown
                                                   else f"needs {', '.join(missing)}"), where=where,
                         hint="its parameters: " + (", ".join(p.parameters) or "none"))
    plans, seen = [], {}
    for i, a in enumerate(p.actions):
        at = f"{where}.actions[{i}].params"
        try:
            sub = {n: KeyTemplate(text, where=f"{at}.{n}").render(params, f"{at}.{n}") for n, text in a.params.items()}
        except TemplateError as e:
            raise QueryError(e.msg, where=e.where, hint=e.hint, cause=e) from e
        one = plan(spec, a.pattern, sub)
        req = one.request
        key = (req.pk_value, req.sk_values[0] if req.sk_attr and req.sk_values else None)
        if key in seen:
            shown = ", ".join(f"{n}={v!r}" for n, v in zip((req.pk_attr, req.sk_attr), key) if n)
            raise QueryError(f"DynamoDB refuses {p.name}: {_DUPLICATE[p.operation]} (actions {seen[key]} and {i} "
                             f"both name {shown})", where=f"{where}.actions[{i}]",
                             hint="give each action its own item: one action per item in a request")
        seen[key] = i
        plans.append(one)
    return ActionsPlan(spec, p, tuple(plans), tuple(a.check for a in p.actions))
