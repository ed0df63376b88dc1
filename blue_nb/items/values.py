"""DynamoDB value codec: Python values <-> DynamoDB JSON ("wire") values.

The Python model is what boto3's ``TypeDeserializer`` returns: ``str``, ``Decimal``, ``bytes``,
``bool``, ``None``, ``list``, ``dict`` (str keys) and sets of str / Decimal / bytes. On input
``int`` is accepted as a number, ``bytearray`` / ``memoryview`` / objects with a ``.value``
bytes attribute (boto3's ``Binary``) as binary, ``tuple`` as a list. ``float`` is rejected.

The wire model is DynamoDB JSON as in the low-level API and S3 exports: ``{"S": "x"}``,
``{"N": "12.5"}``, ``{"B": "<base64>"}``, ``{"BOOL": true}``, ``{"NULL": true}``, ``{"L": [..]}``,
``{"M": {..}}``, ``{"SS": [..]}``, ``{"NS": [..]}``, ``{"BS": [..]}``.

Nesting depth: a top-level attribute whose value is an L or M is at depth 1; each L/M inside
adds one level; depth 32 is accepted, 33 is an :class:`ItemError`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from blue_nb.errors import ItemError

__all__ = [
    "MAX_DEPTH",
    "MAX_DIGITS",
    "TYPE_TAGS",
    "as_bytes",
    "attribute_name",
    "check_str",
    "dumps_wire",
    "from_wire",
    "item_from_wire",
    "item_to_wire",
    "loads_wire",
    "number_text",
    "parse_item_line",
    "to_wire",
    "validate_number",
]

MAX_DEPTH = 32
MAX_DIGITS = 38
MIN_ADJUSTED = -130  # |x| >= 1E-130
MAX_ADJUSTED = 125  # |x| <  1E126
TYPE_TAGS = frozenset({"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"})


_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NUMBER_HINT = "write a plain decimal such as 12, -3.5 or 1.2E+7 (at most 38 significant digits)"


def _fail(msg: str, where: str, hint: str = "") -> ItemError:
    """Build an ItemError (the caller raises it, so tracebacks point at the check)."""
    return ItemError(msg, where=where, hint=hint)


# ---------------------------------------------------------------- numbers


def _parse_number_text(text: str, where: str) -> Decimal:
    """Parse a number string exactly, rejecting anything DynamoDB would reject syntactically."""
    if not _NUMBER_RE.fullmatch(text):
        raise _fail(f"{text!r} is not a valid DynamoDB number", where, _NUMBER_HINT)
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # exponent too large for the decimal module
        raise _fail(f"number {text!r} is out of range", where, _NUMBER_HINT) from exc


def _check_decimal(d: Decimal, shown: str, where: str) -> None:
    """Check a Decimal is finite, has <= 38 significant digits and is within DynamoDB's range."""
    if not d.is_finite():
        raise _fail(f"number {shown} is not finite: NaN and Infinity are not allowed", where, _NUMBER_HINT)
    if d.is_zero():
        return
    digits = d.as_tuple().digits
    trailing = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    if len(digits) - trailing > MAX_DIGITS:
        raise _fail(f"number {shown} has {len(digits) - trailing} significant digits (max {MAX_DIGITS})",
                    where, "round it to 38 significant digits or store it as a string")
    if not MIN_ADJUSTED <= d.adjusted() <= MAX_ADJUSTED:
        raise _fail(f"number {shown} is out of range: DynamoDB needs 1E-130 <= |x| < 1E+126 (or 0)",
                    where, "store it as a string, or rescale it")


def validate_number(value: str | int | Decimal, where: str = "") -> Decimal:
    """Return ``value`` as an exact Decimal, or raise ItemError if DynamoDB would reject it."""
    if isinstance(value, bool):
        raise _fail(f"{value!r} is a bool, not a number", where, "use a BOOL value, or 1/0")
    if isinstance(value, float):
        raise _fail(f"float {value!r} is not allowed", where, "use decimal.Decimal (e.g. Decimal('0.1')), never float")
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, int):
        try:
            d = Decimal(value)
        except (ValueError, InvalidOperation) as exc:
            raise _fail("integer is too large for DynamoDB", where, _NUMBER_HINT) from exc
    elif isinstance(value, str):
        d = _parse_number_text(value, where)
    else:
        raise _fail(f"{value!r} ({type(value).__name__}) is not a number", where, "use str, int or Decimal")
    _check_decimal(d, repr(value) if not isinstance(value, Decimal) else repr(str(value)), where)
    return d


def number_text(d: Decimal) -> str:
    """DynamoDB's canonical text of a valid number, as it returns it: written out in full, with no
    exponent, no leading or trailing zero and no sign on zero (``"1.5"`` for ``1.50``, ``"100"`` for
    ``1E+2``, ``"0"`` for ``-0``; ``1E+125`` is a 1 and 125 zeros). Two numbers are equal exactly when
    their texts are, so this text is also how a number key is stored and compared.

    Exact for any number :func:`validate_number` accepts, however it was written (``1`` and a thousand
    zeros after the point included): the digits are trimmed, never rounded."""
    if d.is_zero():
        return "0"
    sign, digits, exp = d.as_tuple()
    written = "".join(map(str, digits))
    kept = written.rstrip("0")
    exp += len(written) - len(kept)                   # value = int(text) * 10 ** exp
    text = kept.lstrip("0")
    point = len(text) + exp                           # digits before the decimal point
    if exp >= 0:
        body = text + "0" * exp
    elif point > 0:
        body = f"{text[:point]}.{text[point:]}"
    else:
        body = f"0.{'0' * -point}{text}"
    return "-" + body if sign else body


# ---------------------------------------------------------------- scalars


def as_bytes(value: Any) -> bytes | None:
    """Return the raw bytes of a binary-like value (bytes, bytearray, memoryview, ``.value``), else None."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    inner = getattr(value, "value", None)
    if isinstance(inner, (bytes, bytearray)) and not isinstance(value, (str, int, Decimal)):
        return bytes(inner)
    return None


def check_str(s: str, where: str = "") -> str:
    """``s`` itself when it is valid Unicode, else an :class:`ItemError` at ``where`` (a lone surrogate
    cannot be UTF-8 encoded, so DynamoDB cannot store it): the check of every S value, set element and
    name."""
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _fail(f"string {s!r} is not valid Unicode (lone surrogate)", where,
                        "decode your input with the right encoding") from exc
    return s


def _b64decode(text: Any, where: str) -> bytes:
    """Decode a base64 B value (raw bytes are accepted as they are)."""
    raw = as_bytes(text)
    if raw is not None:
        return raw
    if not isinstance(text, str):
        raise _fail(f"binary value {text!r} must be a base64 string", where, 'write {"B": "<base64>"}')
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _fail(f"binary value {text[:60]!r} is not valid base64", where,
                    "use standard base64 with padding") from exc


# ---------------------------------------------------------------- Python -> wire


def _set_to_wire(value: set | frozenset, where: str) -> dict:
    """Encode a set as SS, NS or BS with a deterministic (DynamoDB sort) order."""
    if not value:
        raise _fail("empty set: DynamoDB does not store empty sets", where, "omit the attribute or use an empty list")
    items = list(value)
    if all(isinstance(v, str) for v in items):
        return {"SS": sorted((check_str(v, where) for v in items), key=lambda s: s.encode("utf-8"))}
    if all(isinstance(v, (int, Decimal)) and not isinstance(v, bool) for v in items):
        nums = sorted(validate_number(v, where) for v in items)
        return {"NS": [number_text(d) for d in nums]}
    raws = [as_bytes(v) for v in items]
    if all(r is not None for r in raws):
        return {"BS": [base64.b64encode(r).decode("ascii") for r in sorted(raws)]}
    shown = sorted({type(v).__name__ for v in items})
    raise _fail(f"set mixes or holds unsupported types {shown}", where,
                "a set must hold only str, only numbers (int/Decimal) or only bytes")


def _encode(value: Any, where: str, depth: int) -> dict:
    """Encode one Python value; ``depth`` is the L/M depth of the enclosing container."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, str):
        return {"S": check_str(value, where)}
    if isinstance(value, (int, Decimal, float)):
        return {"N": number_text(validate_number(value, where))}
    raw = as_bytes(value)
    if raw is not None:
        return {"B": base64.b64encode(raw).decode("ascii")}
    if isinstance(value, (list, tuple, Mapping)):
        if depth >= MAX_DEPTH:
            raise _fail(f"nesting deeper than {MAX_DEPTH} levels of lists/maps", where, "flatten the value")
        if isinstance(value, Mapping):
            return {"M": {_key(k, where): _encode(v, _child(where, k), depth + 1) for k, v in value.items()}}
        return {"L": [_encode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]}
    if isinstance(value, (set, frozenset)):
        return _set_to_wire(value, where)
    raise _fail(f"{type(value).__name__} value {value!r:.80} is not a DynamoDB type", where,
                "use str, Decimal, bytes, bool, None, list, dict or a set")


def _key(k: Any, where: str) -> str:
    """Check a map key is a valid str."""
    if not isinstance(k, str):
        raise _fail(f"map key {k!r} is not a str", where, "DynamoDB map keys and attribute names are strings")
    return check_str(k, where)


def _child(where: str, key: str) -> str:
    """Path of a map entry: ``meta.enabled``."""
    return f"{where}.{key}" if where else key


def to_wire(value: Any, where: str = "") -> dict:
    """Encode one Python value as a DynamoDB JSON value (``{"S": "x"}``, ``{"N": "1.5"}``, ...)."""
    return _encode(value, where, 0)


def item_to_wire(item: Mapping[str, Any]) -> dict:
    """Encode a whole item (a top-level map of attribute name -> value)."""
    if not isinstance(item, Mapping):
        raise _fail(f"an item must be a dict, got {type(item).__name__}", "", "pass a dict of attribute -> value")
    return {attribute_name(k): _encode(v, k, 0) for k, v in item.items()}


def attribute_name(k: Any, where: str = "") -> str:
    """``k`` itself when it is a valid top-level attribute name (a valid Unicode str of 1 byte to 64 KB),
    else an :class:`ItemError` naming it at ``where``."""
    k = _key(k, where)
    if not k or len(k.encode("utf-8")) > 65_536:
        raise _fail(f"attribute name {k[:60]!r} must be 1 byte to 64 KB long", f"{where} {k[:60]}".strip(),
                    "rename the attribute")
    return k


# ---------------------------------------------------------------- wire -> Python


def _wire_set(tag: str, body: Any, where: str) -> set:
    """Decode SS / NS / BS; sets must be non-empty lists without duplicates."""
    if not isinstance(body, list) or not body:
        raise _fail(f"{tag} must be a non-empty list, got {body!r:.80}", where,
                    "omit the attribute instead of an empty set")
    if tag == "SS":
        bad = [v for v in body if not isinstance(v, str)]
        if bad:
            raise _fail(f"SS element {bad[0]!r} is not a string", where)
        out: set = {check_str(v, where) for v in body}
    elif tag == "NS":
        bad = [v for v in body if not isinstance(v, str)]
        if bad:
            raise _fail(f"NS element {bad[0]!r} must be a number string", where,
                        'write numbers as strings: ["1", "2.5"]')
        out = {validate_number(v, where) for v in body}
    else:
        out = {_b64decode(v, where) for v in body}
    if len(out) != len(body):
        seen: set = set()
        dup = next(v for v in body if (k := validate_number(v) if tag == "NS" else v) in seen or seen.add(k))
        raise _fail(f"{tag} has a duplicate member {dup!r:.80}" + (" (numerically equal)" if tag == "NS" else ""),
                    where, "a set cannot repeat a value (DynamoDB rejects the request): remove the repeat")
    return out


def _decode(wire: Any, where: str, depth: int) -> Any:
    """Decode one wire value; ``depth`` is the L/M depth of the enclosing container."""
    if not isinstance(wire, Mapping) or len(wire) != 1:
        raise _fail(f"a value must be an object with exactly one type key, got {wire!r:.80}", where,
                    'write e.g. {"S": "text"} or {"N": "12"}')
    ((tag, body),) = wire.items()
    if tag == "S":
        if not isinstance(body, str):
            raise _fail(f"S value {body!r:.80} is not a string", where)
        return check_str(body, where)
    if tag == "N":
        if not isinstance(body, str):
            raise _fail(f"N value {body!r:.80} must be a string", where, 'write numbers as strings: {"N": "12.5"}')
        return validate_number(body, where)
    if tag == "B":
        return _b64decode(body, where)
    if tag in ("BOOL", "NULL"):
        if not isinstance(body, bool) or (tag == "NULL" and body is not True):
            raise _fail(f"{tag} value {body!r:.80} is invalid", where, f'write {{"{tag}": true}}')
        return body if tag == "BOOL" else None
    if tag in ("L", "M"):
        return _decode_container(tag, body, where, depth + 1)
    if tag in ("SS", "NS", "BS"):
        return _wire_set(tag, body, where)
    raise _fail(f"unknown type key {tag!r}", where, f"use one of {sorted(TYPE_TAGS)}")


def _decode_container(tag: str, body: Any, where: str, depth: int) -> list | dict:
    """Decode the body of an L or M value at ``depth``."""
    if depth > MAX_DEPTH:
        raise _fail(f"nesting deeper than {MAX_DEPTH} levels of lists/maps", where, "flatten the value")
    if tag == "L":
        if not isinstance(body, list):
            raise _fail(f"L value {body!r:.80} is not a list", where)
        return [_decode(v, f"{where}[{i}]", depth) for i, v in enumerate(body)]
    if not isinstance(body, Mapping):
        raise _fail(f"M value {body!r:.80} is not an object", where)
    return {_key(k, where): _decode(v, _child(where, k), depth) for k, v in body.items()}


def from_wire(wire: Mapping[str, Any], where: str = "") -> Any:
    """Decode one DynamoDB JSON value to the Python model (B -> bytes, N -> Decimal, sets -> set)."""
    return _decode(wire, where, 0)


def item_from_wire(wire_item: Mapping[str, Any], where: str = "") -> dict:
    """Decode a whole wire item (attribute name -> wire value), checking every value; ``where``
    (``file:line``) prefixes the attribute path in errors."""
    if not isinstance(wire_item, Mapping):
        raise _fail(f"a wire item must be an object, got {type(wire_item).__name__}", where)
    if where:
        return {attribute_name(k, where): _decode(v, f"{where} {k}", 0) for k, v in wire_item.items()}
    return {attribute_name(k): _decode(v, k, 0) for k, v in wire_item.items()}


# ---------------------------------------------------------------- JSON text


def dumps_wire(wire_item: Mapping[str, Any]) -> str:
    """Compact JSON text of a wire item (UTF-8 kept as is)."""
    return json.dumps(wire_item, ensure_ascii=False, separators=(",", ":"))


def _no_constant(name: str) -> Any:
    """json hook: NaN / Infinity literals are not JSON values DynamoDB accepts."""
    raise ValueError(f"{name} is not allowed")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """json hook: a repeated key would silently replace the first."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"duplicate key {dup!r:.80}: the second would silently replace the first")
    return out


def loads_wire(text: str | bytes, where: str = "", strict: bool = False) -> dict:
    """Parse JSON text into a wire object; JSON numbers become Decimal, never float. ``strict``
    refuses repeated keys (input from people; the stores read back their own data without it)."""
    try:
        data = json.loads(text, parse_float=Decimal, parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys if strict else None)
    except RecursionError as exc:
        raise _fail(f"JSON nested too deeply (DynamoDB allows {MAX_DEPTH} levels)", where, "flatten the value") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise _fail(f"invalid JSON: {exc}", where, "each line must be one JSON object") from exc
    if not isinstance(data, dict):
        raise _fail(f"expected a JSON object, got {type(data).__name__}", where, "each line must be one JSON object")
    return data


def _looks_like_item(obj: Any) -> bool:
    """True if ``obj`` has the shape of a wire item: name -> one-key object with a known type tag."""
    return isinstance(obj, dict) and all(
        isinstance(v, dict) and len(v) == 1 and next(iter(v)) in TYPE_TAGS for v in obj.values()
    )


def parse_item_line(line: str | bytes, where: str = "") -> dict:
    """Parse one line of DynamoDB JSON (a bare wire item or an export ``{"Item": {...}}``) and check
    every value as DynamoDB would (types, numbers, sets, nesting, names; no repeated keys)."""
    if not line.strip():
        raise _fail("empty line", where, "remove blank lines or skip them")
    data = loads_wire(line, where, strict=True)
    item = data["Item"] if len(data) == 1 and "Item" in data and _looks_like_item(data["Item"]) else data
    if not all(isinstance(v, dict) for v in item.values()):
        raise _fail(f"not a DynamoDB JSON item: {str(line)[:80]!r}", where,
                    'write {"Item": {"name": {"S": "x"}}} or {"name": {"S": "x"}}')
    item_from_wire(item, where)
    return item
