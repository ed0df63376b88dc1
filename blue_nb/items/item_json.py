"""An item's DynamoDB JSON text written in one pass (what the loader stores for every item), and read
back in one pass (what the stores return for every item they read)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import orjson

from blue_nb.errors import ItemError
from blue_nb.items.values import (attribute_name, check_str, dumps_wire, from_wire, item_from_wire, item_to_wire,
                                  loads_wire, number_text, to_wire, validate_number)

__all__ = ["dumps_item", "quoted", "stored_item"]

_fast_loads = orjson.loads
_plain_number = re.compile(r"-?[0-9]{1,18}(?:\.[0-9]{1,18})?").fullmatch     # Decimal(text) is validate_number(text)

_quoted = quoted = json.encoder.encode_basestring     # what json.dumps(ensure_ascii=False) writes a str as (C)


def dumps_item(item: Mapping[str, Any]) -> str:
    """``dumps_wire(item_to_wire(item))``, the same text and the same errors, written without the wire
    dict in between: the loader writes every item this way. Top-level strings, numbers, booleans and
    nulls are written here; anything else (binary, sets, lists, maps) by :func:`~blue_nb.items.values.to_wire`."""
    if type(item) is not dict:
        return dumps_wire(item_to_wire(item))
    parts = []
    for k, v in item.items():
        if type(k) is not str or not k or not k.isascii() or len(k) > 65_536:
            attribute_name(k)                                   # the reference check: raises, or passes a valid name
        t = type(v)
        if t is str:
            if not v.isascii():
                check_str(v, k)
            parts.append(f'{_quoted(k)}:{{"S":{_quoted(v)}}}')
        elif t is int or t is Decimal:
            parts.append(f'{_quoted(k)}:{{"N":"{number_text(validate_number(v, k))}"}}')
        elif t is bool:
            parts.append(f'{_quoted(k)}:{{"BOOL":{"true" if v else "false"}}}')
        elif v is None:
            parts.append(f'{_quoted(k)}:{{"NULL":true}}')
        else:
            parts.append(f"{_quoted(k)}:{dumps_wire(to_wire(v, k))}")
    return "{" + ",".join(parts) + "}"


def stored_item(text: str | bytes) -> dict[str, Any]:
    """``item_from_wire(loads_wire(text))`` for the JSON text :func:`dumps_item` wrote into a store (a str,
    or its UTF-8 bytes as the stores fetch it): the same item, the same errors, read in one pass. orjson
    parses the text (it refuses a lone surrogate, so every string it returns is valid Unicode); top-level
    strings, booleans and short plain numbers are taken as they are, anything else goes through the full
    decoder. Whatever orjson refuses, and any item with a fault, is read again by the reference itself, so
    an error names the fault as the reference does (orjson reads ``NaN`` not at all and a 30-digit JSON
    number as a float; the reference refuses the one and keeps the other's digits)."""
    try:
        wire = _fast_loads(text)
        if type(wire) is dict:
            return _from_wire(wire)
    except (ValueError, ItemError):                      # orjson.JSONDecodeError is a ValueError
        pass
    return item_from_wire(loads_wire(text))


def _from_wire(wire: dict[str, Any]) -> dict[str, Any]:
    """The item of a wire dict orjson parsed (see :func:`stored_item`)."""
    out: dict[str, Any] = {}
    for k, v in wire.items():
        if type(v) is dict and len(v) == 1 and k and k.isascii() and len(k) <= 65_536:
            ((tag, body),) = v.items()
            if tag == "S" and type(body) is str:
                out[k] = body
                continue
            if tag == "N" and type(body) is str and _plain_number(body):
                out[k] = Decimal(body)                            # at most 36 digits, well inside the range
                continue
            if tag == "BOOL" and type(body) is bool:
                out[k] = body
                continue
            out[k] = from_wire(v, k)
            continue
        name = attribute_name(k)                                           # the name is checked first, as item_from_wire does
        out[name] = from_wire(v, k)
    return out
