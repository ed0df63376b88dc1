"""What a transaction or a batch costs and returns: its actions' results, DynamoDB's rules over them.

Pure (layer 1). A store (or the endpoint) runs each action of an
:class:`~blue_nb.patterns.plan.ActionsPlan` as that action's own pattern (a write is a dry run) and
:func:`actions_cost` turns the results into the one call's outcome:

* **TransactWriteItems**: 2 write units per 1 KB of each item (prepare + commit), on the larger of the
  item before and after (a delete: the item it met; at least 2); a ConditionCheck costs the same on the
  item it checks. The index writes an action causes are priced at the standard rate (the transaction's
  item writes are doubled, the index entries are written once, at the commit: blue_nb's assumption, said
  here once). One failed condition cancels the whole transaction: nothing is written, the result carries
  DynamoDB's ``CancellationReasons`` (one per action, ``ConditionalCheckFailed`` where it failed) and is
  priced as its prepare phase alone: the standard units of every item (blue_nb's assumption: DynamoDB
  does not publish what a cancelled transaction consumes).
* **TransactGetItems**: 2 read units per 4 KB of each item (a missing item still 2).
* **BatchGetItem**: each item a GetItem of its own (rounded per item, eventually consistent unless asked);
  what would take the response past 16 MB comes back as ``UnprocessedKeys``, unpaid.
* **BatchWriteItem**: each put or delete its own write, with its index writes.
* At most 4 MB of items in a transaction (DynamoDB refuses more, in its words).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Mapping, Sequence, Union

from blue_nb.errors import QueryError
from blue_nb.items.values import item_to_wire
from blue_nb.patterns.paging import ReadResult
from blue_nb.patterns.plan import ActionsPlan
from blue_nb.patterns.writes import WriteResult
from blue_nb.printing import Fields
from blue_nb.sizing import BATCH_MAX_BYTES, TRANSACT_MAX_BYTES, read_units, write_units

__all__ = ["ActionResult", "ActionsResult", "actions_cost"]

ActionResult = Union[ReadResult, WriteResult]
_FAILED = {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}


@dataclass
class ActionsResult:
    """One call of a transaction or a batch: each action's result, the units of each, and DynamoDB's outcome.

    ``units[i]``: what action ``i`` consumed (read units of a get, write units of a write, its index writes
    included); ``cancelled``: a transaction one of whose conditions failed (``cancellation_reasons`` then says
    which); ``unprocessed``: the actions of a batch that came back unprocessed (indexes into the actions);
    ``after`` (a write sent to an endpoint): the item the endpoint held at each action's key after the call,
    read back; ``resent``: the calls that re-sent a batch write's UnprocessedItems until none was left."""

    plan: ActionsPlan
    results: list[ActionResult]
    units: list[float]
    index_units: list[dict[str, int]] = field(default_factory=list)
    cancelled: bool = False
    cancellation_reasons: list[dict[str, Any]] | None = None
    unprocessed: list[int] = field(default_factory=list)
    after: list[dict[str, Any] | None] | None = None   # an endpoint's: the item at each write's key after the call
    resent: int = 0                                    # calls that re-sent a batch write's UnprocessedItems

    @property
    def is_read(self) -> bool:
        return self.plan.is_read

    @property
    def rcu(self) -> float:
        return _sum(self.units) if self.plan.is_read else 0

    @property
    def wcu(self) -> int:
        return 0 if self.plan.is_read else int(_sum(self.units))

    @property
    def items(self) -> list[dict[str, Any]]:
        """The items a get returned (in the actions' order, a missing one left out); a write's, none."""
        if not self.plan.is_read:
            return []
        return [i for n, r in enumerate(self.results) if n not in self.unprocessed for i in r.items]

    def unprocessed_keys(self) -> dict[str, Any] | None:
        """BatchGetItem's ``UnprocessedKeys`` as DynamoDB returns them, or None when every key was read."""
        if not self.unprocessed:
            return None
        keys = [self.plan.boto3[1]["RequestItems"][self.plan.spec.table_name]["Keys"][i] for i in self.unprocessed]
        return {self.plan.spec.table_name: {"Keys": keys}}

    def consumed_capacity(self) -> dict[str, Any]:
        """The units as DynamoDB reports them with ReturnConsumedCapacity INDEXES (one table)."""
        table = _sum(self.units) - sum(sum(i.values()) for i in self.index_units)
        out: dict[str, Any] = {"TableName": self.plan.spec.table_name, "CapacityUnits": _sum(self.units),
                               "Table": {"CapacityUnits": table}}
        per_index: dict[str, int] = {}
        for one in self.index_units:
            for name, n in one.items():
                per_index[name] = per_index.get(name, 0) + n
        kinds: dict[str, dict[str, Any]] = {}
        for name, n in per_index.items():
            kind = "GlobalSecondaryIndexes" if self.plan.spec.table.indexes[name].type == "global" \
                else "LocalSecondaryIndexes"
            kinds.setdefault(kind, {})[name] = {"CapacityUnits": n}
        return {**out, **kinds}

    def items_after(self) -> list[dict[str, Any] | None]:
        """A write's items at each action's key after the call: an endpoint's as read back; a store's dry run's
        as DynamoDB would leave them (a put's or an update's item, none after a delete, the item as it was for a
        ConditionCheck, and every item as it was when the transaction is cancelled)."""
        if self.after is not None or self.plan.is_read:
            return list(self.after or [])
        out: list[dict[str, Any] | None] = []
        for w, check in zip(self.results, self.plan.checks):
            kept = self.cancelled or check or getattr(w, "condition_passed", None) is False
            out.append(getattr(w, "before", None) if kept else getattr(w, "item", None))
        return out

    def item_list(self) -> list[Mapping[str, Any] | None]:
        """The item each write action puts (the dry run's; None for a delete, a check or a failed condition)."""
        return [getattr(r, "item", None) for r in self.results]

    def to_json(self) -> dict[str, Any]:
        """The call as JSON: its summary, the items a get returned (DynamoDB JSON), DynamoDB's outcome."""
        out: dict[str, Any] = dict(self.summary())
        out["consumed_capacity"] = self.consumed_capacity()
        if self.plan.is_read:
            out["items"] = [item_to_wire(i) for i in self.items]
        if self.cancellation_reasons:
            out["cancellation_reasons"] = self.cancellation_reasons
        if self.unprocessed:
            out["unprocessed_keys"] = self.unprocessed_keys()
        return out

    def summary(self) -> dict[str, Any]:
        """The call's units and outcome (a dict; a notebook shows it as a table)."""
        out = Fields({"operation": self.plan.operation, "actions": len(self.results),
                      ("rcu" if self.plan.is_read else "wcu"): self.rcu if self.plan.is_read else self.wcu,
                      "units_per_action": list(self.units)})
        if self.plan.is_transaction and not self.plan.is_read:
            out["cancelled"] = self.cancelled
        if self.plan.is_read:
            out["items"] = len(self.items)
        if self.unprocessed:
            out["unprocessed"] = len(self.unprocessed)
        return out


def _sum(units: Sequence[float]) -> float:
    total = sum(Decimal(str(u)) for u in units)
    return int(total) if total == int(total) else float(total)


def _size(r: ActionResult) -> int:
    return sum(p.bytes_read for p in r.pages) if isinstance(r, ReadResult) else 0


def actions_cost(plan: ActionsPlan, results: Sequence[ActionResult]) -> ActionsResult:
    """The outcome and units of one call of ``plan`` from the result of each of its actions, in order (a read
    action's :class:`ReadResult`, a write action's dry-run :class:`WriteResult`)."""
    results = list(results)
    if plan.is_read:
        return _reads(plan, results)
    writes: list[WriteResult] = results  # type: ignore[assignment]
    if not plan.is_transaction:          # BatchWriteItem: each write on its own
        return ActionsResult(plan, results, [w.wcu for w in writes], [dict(w.index_wcu) for w in writes])
    total = sum(max(w.old_size or 0, w.new_size or 0) for w in writes)
    if total > TRANSACT_MAX_BYTES:
        raise QueryError(f"DynamoDB refuses {plan.pattern.name}: Transaction size has exceeded the maximum "
                         f"allowed size ({total:,} bytes of items; the limit is {TRANSACT_MAX_BYTES:,})",
                         where=f"access_patterns.{plan.pattern.name}.actions", hint="split the transaction")
    failed = [w.condition_passed is False for w in writes]
    if any(failed):
        reasons = []
        for w, bad in zip(writes, failed):
            reason = dict(_FAILED) if bad else {"Code": "None"}
            if bad and w.returned_old is not None:
                reason["Item"] = item_to_wire(w.returned_old)
            reasons.append(reason)
        units = [w.table_wcu for w in writes]      # the prepare phase: each item's standard write units
        return ActionsResult(plan, results, units, [{} for _ in writes], True, reasons)
    units, index = [], []
    for w, check in zip(writes, plan.checks):
        if check:                        # a ConditionCheck writes nothing: 2 units per 1 KB of the item it checks
            units.append(write_units(w.old_size or 0, transactional=True))
            index.append({})
            continue
        idx = {n: u for n, u in w.index_wcu.items() if u}
        units.append(2 * w.table_wcu + sum(idx.values()))      # the item's write doubled; its index writes once
        index.append(idx)
    return ActionsResult(plan, results, units, index)


def _reads(plan: ActionsPlan, results: list[ActionResult]) -> ActionsResult:
    units: list[float] = []
    unprocessed: list[int] = []
    returned = 0
    for i, r in enumerate(results):
        size = _size(r)
        if plan.operation == "batch_get_item" and returned + size > BATCH_MAX_BYTES:
            unprocessed.append(i)        # past 16 MB of response: DynamoDB returns it as an UnprocessedKey
            units.append(0)
            continue
        returned += size
        mode = "transactional" if plan.is_transaction else r.request.read_mode
        units.append(read_units(size, mode))
    return ActionsResult(plan, results, units, [{} for _ in results], unprocessed=unprocessed)
