"""What an import knows about a table's keys before it reads the items, and the guesses it makes
when it does not: :class:`KeyInfo` from DescribeTable (:func:`keys_from_describe`), from an
override, or guessed from a sample of items (:func:`guess_keys`); indexes from attribute names
that look like index keys (:func:`index_candidate`, :func:`indexes_from_names`); and the canonical
text of an item's key (:func:`canonical_key`), by which an import tells items apart."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable

from blue_nb.errors import SourceError
from blue_nb.items.values import dumps_wire, to_wire
from blue_nb.spec import Index

__all__ = ["INDEX_ATTR_RE", "KeyInfo", "canonical_key", "guess_keys", "index_candidate", "indexes_from_names",
           "is_key_value", "is_number", "keys_from_describe", "order_keys"]

INDEX_ATTR_RE = re.compile(r"(?P<base>(?P<kind>gsi|lsi)[_-]?[0-9]*)[_-]?(?P<part>pk|sk)\Z", re.IGNORECASE)
_PK_NAMES = ("pk", "PK", "Pk", "partition_key", "partitionKey", "PartitionKey", "hash_key", "HashKey")
_SK_NAMES = ("sk", "SK", "Sk", "sort_key", "sortKey", "SortKey", "range_key", "RangeKey")
_SK_LIKE = re.compile(r"(sk|sort|range)(_?key)?\Z", re.IGNORECASE)
_PK_LIKE = re.compile(r"(pk|partition|hash|id)(_?key)?\Z", re.IGNORECASE)
_KEY_TYPES = (str, bytes, Decimal)


@dataclass
class KeyInfo:
    """The table's key attribute names (and, when known, types and indexes) and how they were found."""

    partition_key: str
    sort_key: str | None
    how: str = ""
    types: dict[str, str] = field(default_factory=dict)       # attribute -> S/N/B, when the source says
    indexes: dict[str, Index] | None = None                  # the real indexes; None: infer from names
    table: dict[str, Any] = field(default_factory=dict)      # other table fields: name, billing_mode, ...

    @property
    def names(self) -> tuple[str, ...]:
        return (self.partition_key,) + ((self.sort_key,) if self.sort_key else ())


def is_key_value(value: Any) -> bool:
    """Whether a value can be a key attribute's: a non-empty string or binary, or a number."""
    return isinstance(value, _KEY_TYPES) and value not in ("", b"")


def canonical_key(item: dict[str, Any], names: tuple[str, ...]) -> str | None:
    """The canonical text of an item's key: its key attributes' DynamoDB JSON, in the order of
    ``names``; None when one of them is missing or not a key value (:func:`is_key_value`)."""
    key = {}
    for name in names:
        value = item.get(name)
        if not is_key_value(value):
            return None
        key[name] = to_wire(value)
    return dumps_wire(key)


def order_keys(names: Iterable[str], how: str) -> KeyInfo:
    """Two key names without their roles (an incremental export's ``Keys``): the sort key is the
    one named like one (sk, SortKey, ...), else the second."""
    names = list(names)
    if not 1 <= len(names) <= 2:
        raise SourceError(f"a key has one or two attributes, got {names}", hint="pass key=(partition key, sort key)")
    if len(names) == 2 and _SK_LIKE.search(names[0]) and not _SK_LIKE.search(names[1]):
        names.reverse()
    return KeyInfo(names[0], names[1] if len(names) == 2 else None, how)


def guess_keys(items: Iterable[dict[str, Any]], where: str = "") -> KeyInfo:
    """Guess the key from a sample of items: pk/sk (or PK/SK, ...) when every item has them, else the
    attributes every item has with a string, number or binary value that are named like keys."""
    common: dict[str, int] | None = None
    seen: dict[str, int] = {}                  # key-like name -> items having it
    lacking: dict[str, tuple[int, dict]] = {}  # ... -> the first item without it (its position, the item)
    n = 0
    for item in items:
        n += 1
        names = {k for k, v in item.items() if isinstance(v, (str, bytes)) or is_number(v)}
        for k in names:
            seen[k] = seen.get(k, 0) + 1
        for k in set(seen) - names:
            lacking.setdefault(k, (n, item))
        if common is not None:
            for k in set(common) - names:
                lacking.setdefault(k, (n, item))
        common = {k: 0 for k in names} if common is None else {k: 0 for k in common if k in names}
    if not n or not common:
        raise SourceError("cannot tell the table's key: no attribute is in every item" if n else "no items to read",
                          where=where, hint="pass key=(partition key, sort key) (blue-nb import --key PK,SK)")
    for pk, sk in zip(_PK_NAMES, _SK_NAMES):
        if pk in common:
            _sort_key_missing(sk, seen, lacking, n, pk, where)
            return KeyInfo(pk, sk if sk in common else None, f"guessed: every item of the first {n:,} has {pk}"
                           + (f" and {sk}" if sk in common else "") + "; pass key=(pk, sk) to override")
    pks = sorted((k for k in common if _PK_LIKE.search(k) and not INDEX_ATTR_RE.match(k)), key=len)
    sks = sorted((k for k in common if _SK_LIKE.search(k) and not INDEX_ATTR_RE.match(k)), key=len)
    if not pks:
        shown = ", ".join(sorted(common)[:8])
        raise SourceError(f"cannot tell the table's key: the attributes in every item ({shown}) "
                          "have no key-like name", where=where,
                          hint="pass key=(partition key, sort key) (blue-nb import --key PK,SK)")
    sk = sks[0] if sks else None
    return KeyInfo(pks[0], sk, f"guessed from names: every item of the first {n:,} has {pks[0]}"
                   + (f" and {sk}" if sk else "") + "; pass key=(pk, sk) to override")


def _sort_key_missing(sk: str, seen: dict[str, int], lacking: dict[str, tuple[int, dict]], n: int, pk: str,
                      where: str) -> None:
    """An attribute named as a sort key that most items have but some lack: those items are bad, not the
    table without a sort key (which would make every item of a partition one key)."""
    have = seen.get(sk, 0)
    if not have or have == n or have * 2 < n or sk not in lacking:
        return
    at, item = lacking[sk]
    key = item.get(pk)
    raise SourceError(f"item {at:,} of the source ({pk}={key!r:.80}) has no {sk}, which {have:,} of the first {n:,} "
                      f"items have: an item without its sort key", where=where,
                      hint=f"fix or remove that item; or, if the table has no sort key, pass --key {pk}")


def is_number(v: Any) -> bool:
    """A number as items hold it: an int or a Decimal, never a bool."""
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def keys_from_describe(table: dict[str, Any]) -> KeyInfo:
    """KeyInfo from a DescribeTable ``Table``: key names and types, the real indexes, billing."""
    types = {a["AttributeName"]: a["AttributeType"] for a in table.get("AttributeDefinitions", [])}
    pk, sk = _key_schema(table.get("KeySchema", []))
    if pk is None:
        raise SourceError("DescribeTable gave no partition key", where=str(table.get("TableName", "")))
    indexes = {}
    for kind, entries in (("global", table.get("GlobalSecondaryIndexes") or []),
                          ("local", table.get("LocalSecondaryIndexes") or [])):
        for ix in entries:
            ipk, isk = _key_schema(ix.get("KeySchema", []))
            proj = ix.get("Projection") or {}
            ptype = proj.get("ProjectionType", "ALL")
            projection: str | list[str] = ("all" if ptype == "ALL" else "keys_only" if ptype == "KEYS_ONLY"
                                           else list(proj.get("NonKeyAttributes") or []) or "keys_only")
            indexes[ix["IndexName"]] = Index(ix["IndexName"], kind, ipk if kind == "global" else None, isk, projection,
                                             types.get(ipk, "S") if kind == "global" else "S", types.get(isk, "S"))
    info = KeyInfo(pk, sk, f"from DescribeTable of {table.get('TableName')}", types, indexes)
    billing = (table.get("BillingModeSummary") or {}).get("BillingMode")
    thr = table.get("ProvisionedThroughput") or {}
    if billing == "PROVISIONED" or (billing is None and thr.get("ReadCapacityUnits")):
        info.table.update(billing_mode="PROVISIONED", read_capacity=max(int(thr.get("ReadCapacityUnits") or 1), 1),
                          write_capacity=max(int(thr.get("WriteCapacityUnits") or 1), 1))
    return info


def _key_schema(schema: list[dict[str, str]]) -> tuple[str | None, str | None]:
    pk = next((k["AttributeName"] for k in schema if k.get("KeyType") == "HASH"), None)
    sk = next((k["AttributeName"] for k in schema if k.get("KeyType") == "RANGE"), None)
    return pk, sk


def index_candidate(name: str) -> tuple[str, str, str] | None:
    """(index name, global|local, pk|sk) when an attribute is named like an index key (gsi1pk, GSI1SK, lsi1sk)."""
    m = INDEX_ATTR_RE.match(name)
    if not m:
        return None
    base = m.group("base").rstrip("_-")
    return base, "global" if m.group("kind").lower() == "gsi" else "local", m.group("part").lower()


def indexes_from_names(seen: Iterable[str], types: dict[str, str],
                       has_sort_key: bool) -> tuple[dict[str, Index], list[str]]:
    """Indexes from the index-like attribute names seen (a GSI needs its pk, an LSI its sk and a
    table sort key), with the key types seen; and notes about names left as plain attributes."""
    found: dict[str, dict[str, str]] = {}
    kinds: dict[str, str] = {}
    for name in sorted(seen):
        cand = index_candidate(name)
        if cand:
            base, kind, part = cand
            found.setdefault(base, {}).setdefault(part, name)
            kinds[base] = kind
    indexes, notes = {}, []
    for base, parts in found.items():
        kind = kinds[base]
        if kind == "global" and "pk" not in parts:
            notes.append(f"{parts['sk']} looks like an index sort key, but no {base}pk was seen: kept as an attribute")
            continue
        if kind == "local" and ("sk" not in parts or not has_sort_key):
            notes.append(f"{', '.join(parts.values())} looks like a local index key, but a local index needs a sort "
                         "key (and a table with one): kept as an attribute")
            continue
        if len(base) < 3:
            continue
        pk, sk = (parts.get("pk"), parts.get("sk")) if kind == "global" else (None, parts["sk"])
        indexes[base] = Index(base, kind, pk, sk, "all", types.get(pk, "S") if pk else "S",
                              types.get(sk, "S") if sk else "S")
    return indexes, notes
