"""What a write costs: the table write and the index writes it causes (write amplification).

Pure (layer 1). Writes are dry runs: :func:`write_cost` prices replacing an item by another. A write's
ConditionExpression is evaluated on the item it meets (:func:`~blue_nb.patterns.filters.matches`; none:
an empty item, so ``attribute_not_exists`` holds): a failed one writes nothing, no index either, and still
consumes the write units of the item it met (at least 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from blue_nb.printing import Fields
from blue_nb.patterns.bind import KeyRequest
from blue_nb.errors import QueryError
from blue_nb.patterns.filters import matches
from blue_nb.patterns.updates import UpdateRefused, apply_update
from blue_nb.patterns.paging import index_entry
from blue_nb.patterns.plan import Plan
from blue_nb.sizing import MAX_ITEM_BYTES, item_size, write_units
from blue_nb.spec import Spec

__all__ = ["WriteResult", "failed_write", "observed_write", "write_cost"]


@dataclass
class WriteResult:
    """What one write of a pattern costs: the table write plus each index's writes."""

    plan: Plan
    item: dict[str, Any] | None      # the item the write puts (None for a delete)
    old_size: int | None
    new_size: int | None
    table_wcu: int
    index_wcu: dict[str, int]
    condition_passed: bool | None = None     # the write's ConditionExpression on the item it meets; None: none
    returned_old: dict[str, Any] | None = None   # what a failed condition returns (ReturnValuesOnConditionCheckFailure)
    before: dict[str, Any] | None = None         # the item the write met at its key (None: none there)

    @property
    def request(self) -> KeyRequest:
        return self.plan.request

    @property
    def wcu(self) -> int:
        return self.table_wcu + sum(self.index_wcu.values())

    def summary(self) -> dict[str, Any]:
        """The write's sizes and units (a dict; a notebook shows it as a table)."""
        out = Fields({"operation": self.request.operation, "old_size": self.old_size, "new_size": self.new_size,
                      "wcu": self.wcu, "table_wcu": self.table_wcu, "index_wcu": dict(self.index_wcu)})
        if self.condition_passed is not None:
            out["condition_passed"] = self.condition_passed
        return out


def write_cost(plan: Plan, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> WriteResult:
    """WCU of a put/update (``new`` replaces ``old``) or a delete (``new`` is None), with index writes:
    1 write for a new or removed entry, 2 when the index key changes, 1 when only projected
    attributes change, 0 when the entry is unchanged; each on its own entry size."""
    req = plan.request
    if req.condition is not None and not matches(req.condition, old or {}, req.condition_values):
        return failed_write(plan, old, new, dict(old) if old is not None and req.return_old_on_failure else None)
    if req.update:                                   # the item after the update expression, on the item it meets
        key = {req.pk_attr: req.pk_value, **({req.sk_attr: req.sk_values[0]} if req.sk_attr and req.sk_values else {})}
        try:
            new = apply_update(old, key, list(req.update), req.update_values)
        except UpdateRefused as e:
            raise QueryError(f"DynamoDB refuses {req.pattern} on this item: {e}", where=f"access_patterns.{req.pattern}"
                             ".update", hint="change the update expression or its values") from e
        if item_size(new) > MAX_ITEM_BYTES:
            raise QueryError(f"DynamoDB refuses {req.pattern}: Item size to update has exceeded the maximum allowed "
                             f"size ({item_size(new):,} bytes after the update, the limit is {MAX_ITEM_BYTES:,})",
                             where=f"access_patterns.{req.pattern}.update", hint="keep the item under 400 KB")
    return observed_write(plan, old, new, True if req.condition is not None else None)


def failed_write(plan: Plan, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
                 returned: Mapping[str, Any] | None = None) -> WriteResult:
    """A write whose condition failed on ``old``: nothing written, no index either, and still the write units of
    the item it met (at least 1); ``returned``: the item ReturnValuesOnConditionCheckFailure gives back."""
    old_size = item_size(old) if old is not None else None
    return WriteResult(plan, None, old_size, item_size(new) if new is not None else None, write_units(old_size or 0),
                       {name: 0 for name in plan.spec.table.indexes}, False,
                       dict(returned) if returned is not None else None, dict(old) if old is not None else None)


def observed_write(plan: Plan, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
                   passed: bool | None = None) -> WriteResult:
    """What a write that replaced ``old`` by ``new`` consumed, with its index writes (a delete removes ``old``
    whatever ``new`` is); ``passed``: its condition's outcome. Nothing is evaluated here: the items are what a
    store's dry run computed, or what an endpoint held at the key before and after the call."""
    spec, req = plan.spec, plan.request
    old_size = item_size(old) if old is not None else None
    new_size = item_size(new) if new is not None else None
    if req.operation == "delete_item":
        table, new = write_units(old_size or 0), None
    else:
        table = write_units(max(old_size or 0, new_size or 0))
    per_index = {}
    for name in spec.table.indexes:
        before, after = index_entry(old, spec, name), index_entry(new, spec, name)
        per_index[name] = _index_writes(spec, name, before, after)
    return WriteResult(plan, dict(new) if new is not None else None, old_size, new_size, table, per_index, passed,
                       before=dict(old) if old is not None else None)


def _index_writes(spec: Spec, name: str, before: dict | None, after: dict | None) -> int:
    if before is None and after is None:
        return 0
    if before is None or after is None:
        return write_units(item_size(before or after))
    pk_attr, sk_attr = spec.key_attributes(name)
    if before.get(pk_attr) != after.get(pk_attr) or before.get(sk_attr) != after.get(sk_attr):
        return write_units(item_size(before)) + write_units(item_size(after))
    return 0 if before == after else write_units(item_size(after))
