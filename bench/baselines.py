"""The naive baselines ``make bench`` measures the product against, each the obvious way to get the
same answer (the SQLite one lives in :mod:`.naive_load`, the only bench module that may import sqlite3):

- sizes: boto3's ``TypeSerializer`` turns each item into DynamoDB JSON, and a per-item Python walk
  over that wire form adds up the bytes (:func:`naive_sizes`);
- heat: the modelled calls expanded into a request log, one row per request, joined to the units
  each call puts on each partition and summed with a pandas groupby per (second, index, key)
  (:func:`expand_requests`, :func:`naive_timeline`).

Both must give exactly the product's numbers; :mod:`.stages` checks that on every run."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from blue_nb.dynamo.wire import boto3_wire_item

__all__ = ["expand_requests", "naive_item_size", "naive_sizes", "naive_timeline", "wire_value_size"]

_TIMELINE = ["second", "index", "pk", "rcu", "wcu"]


def _number_size(text: str) -> int:
    """The digit-pair rule on a number's text, through Decimal (the obvious way)."""
    sign, digits, exp = Decimal(text).normalize().as_tuple()
    if not any(digits):
        return 1
    high, low = len(digits) - 1 + exp, exp                 # powers of ten of the first and last digit
    return min(1 + (high // 2 - low // 2 + 1) + sign, 21)


def wire_value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one DynamoDB JSON value as boto3 writes it (``{"S": ...}``, ``{"L": [...]}``...)."""
    (tag, v), = value.items()
    if tag == "S":
        return len(v.encode("utf-8"))
    if tag == "N":
        return _number_size(v)
    if tag == "B":
        return len(bytes(v))
    if tag in ("BOOL", "NULL"):
        return 1
    if tag == "L":
        return 3 + sum(1 + wire_value_size(x) for x in v)
    if tag == "M":
        return 3 + sum(len(k.encode("utf-8")) + 1 + wire_value_size(x) for k, x in v.items())
    if tag == "SS":
        return sum(len(x.encode("utf-8")) for x in v)
    if tag == "NS":
        return sum(_number_size(x) for x in v)
    if tag == "BS":
        return sum(len(bytes(x)) for x in v)
    raise TypeError(f"unknown DynamoDB type {tag!r}")


def naive_item_size(item: Mapping[str, Any]) -> int:
    """One item: serialized by boto3, then walked attribute by attribute."""
    wire = boto3_wire_item(item)
    return sum(len(name.encode("utf-8")) + wire_value_size(v) for name, v in wire.items())


def naive_sizes(items: Iterable[Mapping[str, Any]]) -> list[int]:
    """The naive size of every item, one at a time."""
    return [naive_item_size(i) for i in items]


def expand_requests(calls: pd.DataFrame) -> pd.DataFrame:
    """The modelled calls ``(second, pid, cid, k)`` (``k`` calls of candidate ``cid`` of pattern ``pid``
    in that second) as a request log: one row per request. ``k`` must be whole (it is while no pattern
    draws more than the model's ``MAX_DRAWS`` calls)."""
    k = calls["k"].to_numpy()
    whole = np.rint(k).astype(np.int64)
    if not np.array_equal(whole, k):
        raise ValueError("the modelled calls are not whole numbers: too many requests per pattern to expand")
    return calls.loc[calls.index.repeat(whole), ["second", "pid", "cid"]].reset_index(drop=True)


def naive_timeline(requests: pd.DataFrame, effects: pd.DataFrame) -> pd.DataFrame:
    """Units per (second, index, key): every request joined to the units its call puts on each partition
    (``effects``: pid, cid, idx, pk, rcu, wcu), then a groupby sum; ordered as the product's timeline."""
    rows = requests.merge(effects[["pid", "cid", "idx", "pk", "rcu", "wcu"]], on=["pid", "cid"])
    out = rows.groupby(["second", "idx", "pk"], as_index=False, sort=True)[["rcu", "wcu"]].sum()
    out = out.rename(columns={"idx": "index"})[_TIMELINE]
    out["second"] = out["second"].astype("int64")
    return out
