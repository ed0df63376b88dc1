"""An item's DynamoDB JSON text written in one pass: what the loader stores for every item."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from blue_nb.items.values import (_check_str, _encode, _name, dumps_wire, item_to_wire, number_text,
                                  validate_number)

__all__ = ["dumps_item"]

_quoted = json.encoder.encode_basestring          # what json.dumps(ensure_ascii=False) writes a str as (C)


def dumps_item(item: Mapping[str, Any]) -> str:
    """``dumps_wire(item_to_wire(item))``, the same text and the same errors, written without the wire
    dict in between: the loader writes every item this way. Top-level strings, numbers, booleans and
    nulls are written here; anything else (binary, sets, lists, maps) by :func:`to_wire`."""
    if type(item) is not dict:
        return dumps_wire(item_to_wire(item))
    parts = []
    for k, v in item.items():
        if type(k) is not str or not k or not k.isascii() or len(k) > 65_536:
            _name(k)                                   # the reference check: raises, or passes a valid name
        t = type(v)
        if t is str:
            if not v.isascii():
                _check_str(v, k)
            parts.append(f'{_quoted(k)}:{{"S":{_quoted(v)}}}')
        elif t is int or t is Decimal:
            parts.append(f'{_quoted(k)}:{{"N":"{number_text(validate_number(v, k))}"}}')
        elif t is bool:
            parts.append(f'{_quoted(k)}:{{"BOOL":{"true" if v else "false"}}}')
        elif v is None:
            parts.append(f'{_quoted(k)}:{{"NULL":true}}')
        else:
            parts.append(f"{_quoted(k)}:{dumps_wire(_encode(v, k, 0))}")
    return "{" + ",".join(parts) + "}"
