"""The key conditions DynamoDB refuses, and its words for each: stated once, for the spec and for a bound request.

A Query's or GetItem's key condition is refused by DynamoDB with a ValidationException when

* ``begins_with`` is given a sort key of type N (it takes S and B only);
* ``BETWEEN``'s lower bound is above its upper bound (in the key's order: S by UTF-8 bytes, N by value,
  B by bytes);
* a key value is empty (an empty string or empty binary);
* a partition key value is longer than 2,048 bytes, or a sort key value longer than 1,024 bytes (S and B;
  a number's size is bounded by its 38 digits).

The spec format itself leaves no room for the other refusals: the partition key takes equality only (no
``begins_with``, no range), a condition names one sort key once, a GetItem or write names the whole key,
and a global index's read is eventually consistent (:mod:`blue_nb.spec.validate`).

The spec decides a refusal alone when the sort key's type rules out the operator, or when the values are
literals (no placeholder); it is then refused when the spec is read (:func:`spec_refusals`). Otherwise the
parameters decide it, and :func:`~blue_nb.patterns.bind.bind` refuses the request (:func:`refusal`).

Pure: the values are given typed (``str`` for S, ``Decimal`` for N, ``bytes`` for B), with the text each is
shown as in DynamoDB's message (its wire text).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple, Sequence

__all__ = ["KEY_VALUE_BYTES", "Refusal", "refusal", "spec_refusals"]


class Refusal(NamedTuple):
    """A key condition DynamoDB refuses: its ValidationException message, and how to write it so it is taken."""

    text: str
    hint: str

#: the longest partition key and sort key values, in bytes (S: UTF-8, B: raw)
KEY_VALUE_BYTES = {"partition": 2048, "sort": 1024}

_BEGINS_WITH_N = ("Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                  "operator or function: begins_with, operand type: {type}")
_BETWEEN = ("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or "
            "equal to lower bound; lower bound operand: AttributeValue: {{{type}:{lo}}}, upper bound operand: "
            "AttributeValue: {{{type}:{hi}}}")
_EMPTY = ("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
          "empty {what} value. Key: {attr}")
_HINTS = {"begins_with": "begins_with takes S and B sort keys; on a number use BETWEEN or a range (sk_gte, sk_lt)",
          "between": "give BETWEEN its bounds low first: sk_between: [low, high]",
          "empty": "give the key a value: an empty string or binary is no key value",
          "size": "shorten the key value: at most 2,048 bytes for a partition key, 1,024 for a sort key"}
_TOO_LONG = {"partition": "One or more parameter values were invalid: Size of hashkey has exceeded the maximum "
                          "size limit of2048 bytes",
             "sort": "One or more parameter values were invalid: Aggregated size of all range keys has exceeded "
                     "the size limit of 1024 bytes"}


def _order(value: Any) -> Any:
    """A key value in its type's order (S by UTF-8 bytes, N by value, B by bytes)."""
    return value.encode("utf-8") if isinstance(value, str) else value


def _value_refusal(value: Any, typ: str, attr: str, which: str) -> Refusal | None:
    if typ == "N":
        return None
    size = len(value.encode("utf-8")) if isinstance(value, str) else len(value)
    if size == 0:
        return Refusal(_EMPTY.format(what="string" if typ == "S" else "binary", attr=attr), _HINTS["empty"])
    if size > KEY_VALUE_BYTES[which]:
        return Refusal(_TOO_LONG[which], _HINTS["size"])
    return None


def refusal(*, pk_attr: str, pk_type: str, pk_value: Any, sk_attr: str | None, sk_type: str, sk_op: str | None,
            sk_values: Sequence[Any], shown: Sequence[str] = ()) -> Refusal | None:
    """DynamoDB's ValidationException message for a key condition (None: DynamoDB takes it). ``sk_op`` is one
    of ``eq begins_with between lt lte gt gte``; ``shown`` the wire text of each sort-key value (for BETWEEN)."""
    if sk_op == "begins_with" and sk_type == "N":
        return Refusal(_BEGINS_WITH_N.format(type=sk_type), _HINTS["begins_with"])
    if sk_op == "between" and _order(sk_values[0]) > _order(sk_values[1]):     # the expression is checked first
        lo, hi = (list(shown) or [str(v) for v in sk_values])[:2]
        return Refusal(_BETWEEN.format(type=sk_type, lo=lo, hi=hi), _HINTS["between"])
    found = _value_refusal(pk_value, pk_type, pk_attr, "partition")
    if found:
        return found
    for v in sk_values:
        if sk_op != "begins_with":                    # begins_with(sk, "") matches every sort key
            found = _value_refusal(v, sk_type, sk_attr or "", "sort")
        elif sk_type != "N" and len(v.encode("utf-8") if isinstance(v, str) else v) > KEY_VALUE_BYTES["sort"]:
            found = Refusal(_TOO_LONG["sort"], _HINTS["size"])
        if found:
            return found
    return None


def _literal(text: str, typ: str) -> Any:
    """A literal template's value of type ``typ`` (None: not a valid number, which the binding names)."""
    if typ == "N":
        try:
            d = Decimal(text)
        except InvalidOperation:
            return None
        return d if d.is_finite() else None
    return text if typ == "S" else text.encode("utf-8")


def spec_refusals(*, operation: str, pk_attr: str, pk_type: str, sk_attr: str | None, sk_type: str,
                  sk_op: str | None, pk: str, sk: Sequence[str], literal: Sequence[bool]) -> Refusal | None:
    """The refusal the spec alone decides for a pattern's key condition: its operator for the sort key's type,
    or its values when every template is a literal (``literal``: per template, pk first). ``sk_op`` is the
    spec's (``sk_begins_with`` ...)."""
    if operation == "scan":
        return None
    op = {"sk": "eq"}.get(sk_op or "", (sk_op or "").removeprefix("sk_")) or None
    if op == "begins_with" and sk_type == "N":
        return Refusal(_BEGINS_WITH_N.format(type=sk_type), _HINTS["begins_with"])
    if not all(literal):
        return None
    pk_value, sk_values = _literal(pk, pk_type), [_literal(t, sk_type) for t in sk]
    if pk_value is None or None in sk_values:
        return None
    return refusal(pk_attr=pk_attr, pk_type=pk_type, pk_value=pk_value, sk_attr=sk_attr, sk_type=sk_type, sk_op=op,
                   sk_values=sk_values, shown=list(sk))
