"""Access patterns as boto3 client requests, as data: ``(method, kwargs)`` for a KeyRequest.

Pure: nothing here talks to an endpoint. Every attribute name in an expression goes through
ExpressionAttributeNames (so reserved words such as ``status`` never break a request) and every
value through ExpressionAttributeValues in DynamoDB JSON.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from blue_nb.items.values import item_to_wire, to_wire
from blue_nb.patterns.bind import COMPARISONS, KeyRequest
from blue_nb.spec.expressions import condition_text, path_text, update_text

__all__ = ["boto3_request", "filter_expression", "key_condition_expression"]


def key_condition_expression(req: KeyRequest) -> tuple[str, dict[str, str], dict[str, Any]]:
    """(KeyConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues) of a query."""
    names = {"#pk": req.pk_attr}
    values = {":pk": to_wire(req.pk_value)}
    expr = "#pk = :pk"
    if req.sk_op:
        names["#sk"] = req.sk_attr
        for i, v in enumerate(req.sk_values):
            values[f":sk{i}"] = to_wire(v)
        if req.sk_op == "begins_with":
            expr += " AND begins_with(#sk, :sk0)"
        elif req.sk_op == "between":
            expr += " AND #sk BETWEEN :sk0 AND :sk1"
        else:
            expr += f" AND #sk {COMPARISONS[req.sk_op].symbol} :sk0"
    return expr, names, values


def _aliases(prefix: str, taken: Mapping[str, str]) -> tuple[dict[str, str], Callable[[str], str]]:
    """A name allocator: an attribute already aliased in ``taken`` (alias -> attribute) keeps its alias,
    another gets ``prefix`` and a number; returns the new aliases (attribute -> alias) and the allocator."""
    existing = {attr: alias for alias, attr in taken.items()}
    new: dict[str, str] = {}

    def name(n: str) -> str:
        return existing.get(n) or new.setdefault(n, f"{prefix}{len(new)}")
    return new, name


def filter_expression(req: KeyRequest, taken: Mapping[str, str] | None = None, *, condition: bool = False
                      ) -> tuple[str, dict[str, str], dict[str, Any]]:
    """(FilterExpression, ExpressionAttributeNames, ExpressionAttributeValues) of a filtered read: every
    name as ``#f0``, ``#f1``... (each distinct name once; one already in ``taken``, alias -> attribute, keeps
    its alias), every value ``:name`` as ``:f_name``. ``condition=True``: a write's ConditionExpression,
    ``#c0`` and ``:c_name``."""
    tree, bound, tag = (req.condition, req.condition_values, "c") if condition else (req.filter, req.filter_values, "f")
    names, name = _aliases(f"#{tag}", taken or {})
    expr = condition_text(tree, name, lambda v: f":{tag}_{v}")
    return (expr, {alias: n for n, alias in names.items()},
            {f":{tag}_{n}": to_wire(v) for n, v in bound.items()})


def _add_condition(kw: dict[str, Any], req: KeyRequest) -> dict[str, Any]:
    """A write's request with its ConditionExpression (and ReturnValuesOnConditionCheckFailure)."""
    if req.condition is None:
        return kw
    expr, names, values = filter_expression(req, kw.get("ExpressionAttributeNames"), condition=True)
    kw["ConditionExpression"] = expr
    if names or kw.get("ExpressionAttributeNames"):
        kw["ExpressionAttributeNames"] = {**kw.get("ExpressionAttributeNames", {}), **names}
    if values:
        kw["ExpressionAttributeValues"] = {**kw.get("ExpressionAttributeValues", {}), **values}
    if req.return_old_on_failure:
        kw["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return kw


def _add_filter(kw: dict[str, Any], req: KeyRequest) -> None:
    expr, names, values = filter_expression(req, kw.get("ExpressionAttributeNames"))
    kw["FilterExpression"] = expr
    kw["ExpressionAttributeNames"] = {**kw.get("ExpressionAttributeNames", {}), **names}
    if values:
        kw["ExpressionAttributeValues"] = {**kw.get("ExpressionAttributeValues", {}), **values}


def _add_projection(kw: dict[str, Any], req: KeyRequest) -> None:
    """Select (when it is not the read's default) and ProjectionExpression (its names as ``#p0``...)."""
    default = "ALL_ATTRIBUTES" if req.index == "table" else "ALL_PROJECTED_ATTRIBUTES"
    if req.select not in (default, "SPECIFIC_ATTRIBUTES") and kw.get("TableName") and "Key" not in kw:
        kw["Select"] = req.select
    if not req.paths:
        return
    names, name = _aliases("#p", kw.get("ExpressionAttributeNames", {}))
    kw["ProjectionExpression"] = ", ".join(path_text(p, name) for p in req.paths)
    kw["ExpressionAttributeNames"] = {**kw.get("ExpressionAttributeNames", {}), **{a: n for n, a in names.items()}}


def _key(req: KeyRequest) -> dict[str, Any]:
    key = {req.pk_attr: to_wire(req.pk_value)}
    if req.sk_attr and req.sk_values:
        key[req.sk_attr] = to_wire(req.sk_values[0])
    return key


def boto3_request(req: KeyRequest, *, item: Mapping[str, Any] | None = None,
                  exclusive_start_key: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """The boto3 ``client`` method and keyword arguments that run this request.

    Writes need the ``item`` to write (put) or the attributes to set (update).
    """
    kw: dict[str, Any] = {"TableName": req.table}
    op = req.operation
    if op == "get_item":
        out = {**kw, "Key": _key(req), "ConsistentRead": req.consistent}
        _add_projection(out, req)
        return op, out
    if op in ("query", "scan"):
        if req.index != "table":
            kw["IndexName"] = req.index
        if op == "query":
            expr, names, values = key_condition_expression(req)
            kw.update(KeyConditionExpression=expr, ExpressionAttributeNames=names,
                      ExpressionAttributeValues=values, ScanIndexForward=req.forward)
        if req.filter is not None:
            _add_filter(kw, req)
        _add_projection(kw, req)
        kw["ConsistentRead"] = req.consistent and req.index_type != "global"
        if req.limit:
            kw["Limit"] = req.limit
        if req.total_segments:
            kw.update(Segment=req.segment, TotalSegments=req.total_segments)
        if exclusive_start_key:
            kw["ExclusiveStartKey"] = item_to_wire(exclusive_start_key)
        return op, kw
    if op == "delete_item":
        return op, _add_condition({**kw, "Key": _key(req)}, req)
    if op == "put_item":
        body = dict(item or {})
        body[req.pk_attr] = req.pk_value
        if req.sk_attr and req.sk_values:
            body[req.sk_attr] = req.sk_values[0]
        return op, _add_condition({**kw, "Item": item_to_wire(body)}, req)
    if req.update:                                   # the pattern's own UpdateExpression
        names, name = _aliases("#u", {})
        expr = update_text(list(req.update), name, lambda v: f":u_{v}")
        out = {**kw, "Key": _key(req), "UpdateExpression": expr}
        if names:
            out["ExpressionAttributeNames"] = {alias: n for n, alias in names.items()}
        if req.update_values:
            out["ExpressionAttributeValues"] = {f":u_{n}": to_wire(v) for n, v in req.update_values.items()}
        return op, _add_condition(out, req)
    attrs = {k: v for k, v in (item or {}).items() if k not in (req.pk_attr, req.sk_attr)}
    names = {f"#a{i}": k for i, k in enumerate(attrs)}
    values = {f":v{i}": to_wire(v) for i, v in enumerate(attrs.values())}
    update = "SET " + ", ".join(f"#a{i} = :v{i}" for i in range(len(attrs))) if attrs else None
    out = {**kw, "Key": _key(req)}
    if update:
        out.update(UpdateExpression=update, ExpressionAttributeNames=names, ExpressionAttributeValues=values)
    return op, _add_condition(out, req)
