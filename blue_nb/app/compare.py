"""The same pattern on three engines: which parameters to try, and where two results first differ.

:func:`parameter_cases` draws a read pattern's parameters from the items in a local store: the
partition with the most matching items, the one with the fewest, and a key that holds nothing.
:func:`first_difference` compares two :class:`~blue_nb.patterns.ReadResult` page by page: the
items and their order, each page's ScannedCount, its Count (after a filter) and whether it carries a
LastEvaluatedKey, the totals
(Count, ScannedCount) and the read units. Differences that an emulator is known to produce (and
DynamoDB does not) are named as such, never hidden: see :data:`MOTO_PAGE_CUT` and
:data:`MOTO_NO_TRAILING_PAGE`. Where DynamoDB leaves the order open (a Scan across partitions, items with
equal index keys) the items are compared as a set, and the note says so (:func:`unordered_runs`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from itertools import chain, islice
from typing import Any, Iterator, Mapping

from blue_nb.errors import BlueNbError
from blue_nb.items import item_to_wire
from blue_nb.patterns import ActionsResult, ReadResult, bind, plan, row_values
from blue_nb.spec import AccessPattern, Action, KeyTemplate, Spec
from blue_nb.stores import Store

__all__ = ["Case", "action_cases", "action_difference", "canonical", "MOTO_NO_TRAILING_PAGE", "MOTO_PAGE_CUT", "first_difference", "parameter_cases",
           "unordered_runs"]

#: moto's pages stop before the item that would take them past 1,000,000 bytes of its own size
#: estimate; DynamoDB's stop after the item that reaches 1 MB (1,048,576 bytes)
MOTO_PAGE_CUT = 1_000_000
MOTO_NO_TRAILING_PAGE = ("moto returns no LastEvaluatedKey when a page ends at Limit with nothing left, so it "
                         "makes no final empty call; DynamoDB does, and blue_nb counts it")
MISSING = "blue-nb-missing-key"


@dataclass(frozen=True)
class Case:
    """One set of parameters to run a pattern with, and why it was chosen."""

    label: str                       # "most items read", "fewest items read", "missing key", "whole table"
    params: dict[str, str]
    items: int                       # the items a read with these parameters matches in the local store


def parameter_cases(store: Store, spec: Spec, p: AccessPattern) -> list[Case]:
    """The parameters whose read returns the most items ("most items read": the partition holding the most
    items of the pattern's entities, not the largest partition) and the fewest ("fewest items read"); and a
    key that holds nothing. ``Case.items`` is what a read with those parameters matches.

    A sort-key condition's value that no attribute names (``sk_gte: "{amount}"``) takes the item's own sort key
    read back through the template, so the read finds that item; a ``sk_between`` spans its partition: the
    smallest sort key to the largest. A value outside the key the data cannot give (a filter's ``{flag}``) is
    ``1``."""
    if not p.parameters:
        return [Case("whole table", {}, store.count(spec.table_name))]
    kc = p.key_condition
    sk_attr = spec.key_attributes(p.index or "table")[1] if kc is not None and kc.sk_templates else None
    keys = _key_names(p)
    groups: dict[Any, Counter] = {}                      # bound partition key -> parameter sets -> items
    sort_keys: dict[tuple, Any] = {}                     # parameter set -> the sort key of an item that gave it
    for entity in p.entities:
        for item in store.iter_items(spec.table_name, entity):
            row = row_values(spec, entity, item)
            if sk_attr is not None and isinstance(item.get(sk_attr), (str, Decimal)):
                for template in kc.sk_templates:  # type: ignore[union-attr]
                    for name, value in (template.parse(str(item[sk_attr])) or {}).items():
                        row.setdefault(name, value)
            if not all(n in row for n in keys):
                continue
            params = tuple(row.get(n, "1") for n in p.parameters)
            try:
                pk = bind(spec, p, dict(zip(p.parameters, params))).pk_value
            except BlueNbError:
                continue
            groups.setdefault(pk, Counter())[params] += 1
            if sk_attr is not None and sk_attr in item:
                sort_keys.setdefault(params, item[sk_attr])
    if not groups:
        return [_missing(spec, p, {n: MISSING for n in p.parameters})]
    if kc is not None and kc.sk_op == "sk_between" and sort_keys:
        groups = {pk: _spans(p, counter, sort_keys, kc.sk_templates) for pk, counter in groups.items()}
    ranked = sorted(groups.items(), key=lambda kv: (-sum(kv[1].values()), str(kv[0])))
    (big_pk, big), (small_pk, small) = ranked[0], ranked[-1]
    (big_params, big_n), = big.most_common(1)
    small_params, small_n = min(small.items(), key=lambda kv: (kv[1], kv[0]))
    cases = [Case("most items read", dict(zip(p.parameters, big_params)), big_n)]
    if small_pk != big_pk:
        cases.append(Case("fewest items read", dict(zip(p.parameters, small_params)), small_n))
    missing = _missing(spec, p, cases[0].params)
    if missing.params != cases[0].params:                # a scan has no key to miss
        cases.append(missing)
    return cases


def _spans(p: AccessPattern, counter: Counter, sort_keys: Mapping[tuple, Any],
           templates: list[KeyTemplate]) -> Counter:
    """One partition's parameter sets of a ``sk_between`` merged into one per set of the other parameters: the
    low bound's values from the item with the smallest sort key, the high bound's from the largest."""
    low, high = (set(t.placeholders) for t in templates)
    spans: dict[tuple, list] = {}
    for params, n in counter.items():
        rest = tuple(None if name in low | high else v for name, v in zip(p.parameters, params))
        span = spans.setdefault(rest, [params, params, 0])
        if params in sort_keys and span[0] in sort_keys:
            if sort_keys[params] < sort_keys[span[0]]:
                span[0] = params
            if sort_keys[params] > sort_keys[span[1]]:
                span[1] = params
        span[2] += n
    out: Counter = Counter()
    for rest, (lo, hi, n) in spans.items():
        out[tuple(lo[i] if name in low else hi[i] if name in high else rest[i]
                  for i, name in enumerate(p.parameters))] += n
    return out


def action_cases(store: Store, spec: Spec, p: AccessPattern) -> list[Case]:
    """A transaction's or a batch's parameters, one action at a time, each action's values read back through its
    templates into the enclosing pattern's parameters (the first action to give a parameter sets it):

    * "from the data": each action takes the first of its own pattern's cases drawn from the data
      (:func:`parameter_cases`), else the first item of the data, that agrees with the parameters set so far and
      names an item no earlier action names (so three gets of one dialogue's experts name three experts);
    * "missing key": each action its own pattern's "missing key" case.

    An action that finds no such item takes a key of its own that holds nothing (``blue-nb-missing-key-2``).
    A parameter nothing gives (a condition's value) is ``1``; a set DynamoDB would refuse is left out."""
    cases = []
    for label in ("from the data", "missing key"):
        params: dict[str, str] = {}
        keys: set[tuple] = set()
        for i, a in enumerate(p.actions):
            callee = spec.pattern(a.pattern)
            own = parameter_cases(store, spec, callee)
            if label == "missing key":
                found: Any = [own[-1].params]
            else:
                found = chain((c.params for c in own if c.label != "missing key"), _rows(store, spec, callee))
            for outer in chain((_outer(a, sub, label) for sub in found), _fresh(spec, a, params, i)):
                if any(params.get(n, v) != v for n, v in outer.items()):
                    continue                                   # disagrees with an earlier action
                key = _action_key(spec, a, {**outer, **params})
                if key is not None and key not in keys:
                    keys.add(key)
                    params.update(outer)
                    break
        params = {n: params.get(n, "1") for n in p.parameters}
        try:
            plan(spec, p, params)
        except BlueNbError:
            continue
        cases.append(Case(label, params, 0))
    return cases


def _rows(store: Store, spec: Spec, p: AccessPattern, limit: int = 100_000) -> Iterator[dict[str, str]]:
    """The parameters of ``p`` each stored item of its entities gives (its first ``limit`` items)."""
    keys = _key_names(p)
    for entity in p.entities:
        for item in islice(store.iter_items(spec.table_name, entity), limit):
            row = row_values(spec, entity, item)
            if all(n in row for n in keys):
                yield {n: row[n] for n in p.parameters if n in row}


def _outer(action: Action, sub: Mapping[str, str], label: str) -> dict[str, str]:
    """The enclosing pattern's parameters an action's own parameters ``sub`` give, read back through its templates."""
    out: dict[str, str] = {}
    for name, text in action.params.items():
        for outer, value in (KeyTemplate(text).parse(sub.get(name, "")) or {}).items():
            if value != MISSING or label == "missing key":
                out.setdefault(outer, value)
    return out


def _key_names(p: AccessPattern) -> set[str]:
    return set(p.key_condition.placeholders) if p.key_condition else set()


def _fresh(spec: Spec, action: Action, params: Mapping[str, str], i: int) -> Iterator[dict[str, str]]:
    """Values for the parameters of the action's key not set yet that name a key no item has (text, else a
    number)."""
    keys = _key_names(spec.pattern(action.pattern))
    names = [n for inner, text in action.params.items() if inner in keys
             for n in KeyTemplate(text).placeholders if n not in params]
    for value in (f"{MISSING}-{i}", str(999_999_900 + i)):
        yield dict.fromkeys(names, value)


def _action_key(spec: Spec, action: Action, params: Mapping[str, str]) -> tuple | None:
    """The key an action names with ``params`` (a parameter nothing gives: ``1``); None when it cannot be bound."""
    try:
        sub = {n: KeyTemplate(text).render({**dict.fromkeys(KeyTemplate(text).placeholders, "1"), **params})
               for n, text in action.params.items()}
        req = bind(spec, spec.pattern(action.pattern), sub)
    except BlueNbError:
        return None
    return req.pk_value, tuple(req.sk_values or ())


def action_difference(local: ActionsResult, remote: ActionsResult, names: tuple[str, str]) -> str | None:
    """Where two runs of a transaction or a batch first differ: the outcome (cancelled, and each action's
    CancellationReason code and the item it returns), the items returned, a write's item at each action's key
    after the call (:meth:`~blue_nb.patterns.ActionsResult.items_after`), the units of each action."""
    def codes(r: ActionsResult) -> list[str]:
        return [c.get("Code", "None") for c in r.cancellation_reasons or []]

    def returned(r: ActionsResult) -> list[str | None]:
        return [json.dumps(c["Item"], sort_keys=True) if "Item" in c else None for c in r.cancellation_reasons or []]

    a, b = names
    if local.cancelled != remote.cancelled or codes(local) != codes(remote):
        return f"cancellation reasons {a}: {codes(local) or 'committed'}, {b}: {codes(remote) or 'committed'}"
    if returned(local) != returned(remote):
        n = next(i for i, (x, y) in enumerate(zip(returned(local), returned(remote))) if x != y)
        return f"the item action {n}'s failed condition returns differs ({a}: {returned(local)[n]}, {b}: {returned(remote)[n]})"
    mine, theirs = sorted(map(canonical, local.items)), sorted(map(canonical, remote.items))
    if mine != theirs:
        return f"items returned {a}: {len(mine)}, {b}: {len(theirs)} (or their contents differ)"
    if not local.is_read:
        after = [[canonical(i) if i is not None else None for i in r.items_after()] for r in (local, remote)]
        for n, (x, y) in enumerate(zip(*after)):
            if x != y:
                key = local.plan.plans[n].request
                where = ", ".join(f"{k}={v!s}" for k, v in ((key.pk_attr, key.pk_value),
                                                             (key.sk_attr, (key.sk_values or [None])[0])) if k)
                return (f"the item at action {n}'s key ({where}) after the call: {a} {_shown(x)}, "
                        f"{b} {_shown(y)}")
    if list(local.units) != list(remote.units):
        return f"units per action {a}: {list(local.units)}, {b}: {list(remote.units)}"
    if local.unprocessed != remote.unprocessed:
        return f"unprocessed actions {a}: {local.unprocessed}, {b}: {remote.unprocessed}"
    return None


def _shown(item: str | None, width: int = 160) -> str:
    if item is None:
        return "none"
    return item if len(item) <= width else item[:width - 3] + "..."


def _missing(spec: Spec, p: AccessPattern, params: dict[str, str]) -> Case:
    """``params`` with every value of the partition key's template replaced by one that matches nothing (and a
    value the data could not give, ``blue-nb-missing-key`` where a number belongs, by ``0``)."""
    pk_names = set(p.key_condition.pk_template.placeholders) if p.key_condition else set()
    for value in (MISSING, "999999999"):                 # a formatted number placeholder needs a number
        for other in (None, "0"):
            out = {n: (value if n in pk_names else other if other and v == MISSING else v) for n, v in params.items()}
            try:
                bind(spec, p, out)
                return Case("missing key", out, 0)
            except BlueNbError:
                continue
    return Case("missing key", {n: MISSING for n in params}, 0)


def canonical(item: dict[str, Any]) -> str:
    """An item as text that is equal exactly when the items are: DynamoDB JSON, attributes sorted."""
    return json.dumps(item_to_wire(item), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _key(item: dict[str, Any], result: ReadResult) -> str:
    req = result.request
    return ", ".join(f"{a}={item.get(a)!s}" for a in (req.pk_attr, req.sk_attr) if a)


def unordered_runs(result: ReadResult) -> list[tuple[int, int]]:
    """(start, end) of each run of items, in ``result``'s order, whose order DynamoDB leaves open: a Scan's
    items (its order across partitions is not defined) and, in an index query, the items with equal index
    keys. Runs of one item are left out."""
    req, n = result.request, len(result.items)
    if req.operation == "scan":
        return [(0, n)] if n > 1 else []
    if req.operation != "query" or req.index == "table":
        return []
    runs, start = [], 0
    key = [canonical({"k": i.get(req.sk_attr)}) if req.sk_attr else "" for i in result.items]
    for i in range(1, n + 1):
        if i == n or key[i] != key[start]:
            if i - start > 1:
                runs.append((start, i))
            start = i
    return runs


def _order_open_note(runs: list[tuple[int, int]], result: ReadResult) -> str | None:
    """What the comparison said of the items whose order is open (None: there were none)."""
    n = sum(b - a for a, b in runs)
    if not n:
        return None
    if result.request.operation == "scan":
        return f"the scan's {n} items compared as a set (DynamoDB leaves a Scan's order across partitions open)"
    return (f"{n} items with equal index keys compared as a set, in {len(runs)} group(s) (DynamoDB leaves "
            "their order open)")


def first_difference(local: ReadResult, remote: ReadResult, *, names: tuple[str, str],
                     emulator: str | None = None) -> tuple[str | None, str | None]:
    """(difference, note): the first way ``remote`` differs from ``local`` (None when they agree), and a
    note naming what the comparison let pass (None when nothing): an emulator gap that explains a
    page-boundary difference, and the items whose order DynamoDB leaves open (:func:`unordered_runs`),
    which are compared as a set: the same items in the same positions of the result, in any order among
    themselves."""
    a, b = names
    wa, wb = [canonical(i) for i in local.items], [canonical(i) for i in remote.items]
    runs = unordered_runs(local)
    for start, end in runs:                    # an open run: the same items, ordered as the local store orders
        if sorted(wa[start:end]) == sorted(wb[start:end]):
            wb[start:end] = wa[start:end]
    for n, (x, y) in enumerate(zip(wa, wb)):
        if x != y:
            ka, kb = _key(local.items[n], local), _key(remote.items[n], remote)
            if ka != kb:
                return f"item {n + 1}: {a} has {ka}, {b} has {kb}", None
            return f"item {n + 1} ({ka}): the attributes differ: {a} {x[:200]} / {b} {y[:200]}", None
    if len(wa) != len(wb):
        return f"Count: {a} {len(wa)} items, {b} {len(wb)}", None
    notes = [x for x in (_order_open_note(runs, local),) if x]
    pa = [(p.count, p.last_evaluated_key is not None) for p in local.pages]
    pb = [(p.count, p.last_evaluated_key is not None) for p in remote.pages]
    if pa == pb and [p.items for p in local.pages] != [p.items for p in remote.pages]:
        return (f"Count per page (after the filter): {a} {[p.items for p in local.pages]}, "
                f"{b} {[p.items for p in remote.pages]}", None)
    if pa != pb:
        gap = _emulator_gap(local, remote, emulator)
        if gap is None:
            return (f"pages: {a} {_show(pa)}, {b} {_show(pb)} (items per page; + = carries LastEvaluatedKey)",
                    None)
        return None, "; ".join([gap, *notes])
    if local.scanned_count != remote.scanned_count:
        return f"ScannedCount: {a} {local.scanned_count}, {b} {remote.scanned_count}", None
    if local.rcu != remote.rcu:
        return f"read units: {a} {local.rcu}, {b} {remote.rcu}", None
    return None, "; ".join(notes) or None


def _show(pages: list[tuple[int, bool]]) -> str:
    return "[" + ", ".join(f"{n}{'+' if more else ''}" for n, more in pages) + "]"


def _emulator_gap(local: ReadResult, remote: ReadResult, emulator: str | None) -> str | None:
    """The known moto gap that explains why the pages differ although the items agree, or None."""
    if emulator != "moto":
        return None
    lp, rp = local.pages, remote.pages
    if (len(lp) == len(rp) + 1 and lp[-1].count == 0 and lp[-2].last_evaluated_key is not None
            and rp[-1].last_evaluated_key is None
            and [p.count for p in lp[:-1]] == [p.count for p in rp]):
        return MOTO_NO_TRAILING_PAGE
    if (len(rp) == len(lp) + 1 and rp[-1].count == 0 and rp[-2].last_evaluated_key is not None
            and lp[-1].last_evaluated_key is None and lp[-1].bytes_read >= MOTO_PAGE_CUT // 2
            and [p.count for p in lp] == [p.count for p in rp[:-1]]):
        return (f"moto ended a page of {lp[-1].bytes_read:,} bytes with LastEvaluatedKey where DynamoDB's read ran "
                "out (its own size estimate of these items reached its cut), so it made one more, empty, call; "
                "items and order agree")
    for x, y in zip(lp, rp):
        if x.count != y.count:
            if y.count < x.count and x.bytes_read >= MOTO_PAGE_CUT:
                return (f"moto cut a page at {y.count} items where DynamoDB reads {x.count} "
                        f"({x.bytes_read:,} bytes: moto stops before {MOTO_PAGE_CUT:,} bytes of its own size "
                        "estimate, DynamoDB after the item that reaches 1 MB); items and order agree")
            return None
    return None
