"""What changed between two versions of a design, for the review report's "Since the previous
version" section: keys, indexes, access patterns and entities of the specs (:func:`spec_changes`),
findings that are new or gone (:func:`findings_changes`). Costs are compared by the caller (the
prices live in :mod:`blue_nb.heat`) and handed in as rows of :class:`Changes`.

Pure: specs and findings in, plain data out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from blue_nb.printing import number
from blue_nb.rules import Finding, Findings
from blue_nb.spec import AccessPattern, Spec
from blue_nb.spec.display import pattern_condition_text

__all__ = ["Change", "Changes", "cost_reason", "findings_changes", "spec_changes"]


@dataclass(frozen=True)
class Change:
    """One difference: ``area`` (table, index, entity, key, pattern), the thing's name, what happened
    (added, removed, changed) and, for a change, the old and new value as text."""

    area: str
    name: str
    change: str
    before: str = ""
    after: str = ""


@dataclass
class Changes:
    """Everything the report says changed since ``against`` (the previous spec's file or domain)."""

    against: str
    spec: list[Change] = field(default_factory=list)
    new_findings: list[Finding] = field(default_factory=list)
    resolved_findings: list[Finding] = field(default_factory=list)
    costs: list[dict[str, Any]] = field(default_factory=list)   # {"what", "old_usd", "new_usd", "reason"}: Decimals or None
    costs_note: str = ""                                         # why there are no cost rows, if there are none
    migration: dict[str, Any] | None = None    # the items' migration as text cells (app.migrate's report_data)
    migration_note: str = ""                   # why there is no migration plan, if there is none

    @property
    def empty(self) -> bool:
        return not (self.spec or self.new_findings or self.resolved_findings
                    or any(r["old_usd"] != r["new_usd"] for r in self.costs))


def _index_text(spec: Spec, name: str) -> str:
    ix = spec.table.indexes[name]
    proj = ix.projection if isinstance(ix.projection, str) else "include " + ", ".join(ix.projection)
    keys = ix.partition_key or spec.table.partition_key
    return f"{ix.type} ({keys}{', ' + ix.sort_key if ix.sort_key else ''}), projection {proj}"


def _pattern_text(spec: Spec, p: AccessPattern) -> dict[str, str]:
    return {"operation": p.operation, "index": p.index, "key condition": pattern_condition_text(spec, p),
            "entities": ", ".join(p.entities), "rate": f"{p.rate_per_second:g}/s",
            "hot path": "yes" if p.hot else "no", "limit": str(p.limit or "-"),
            "consistent read": "yes" if p.consistent_read else "no", "keys drawn": p.key_distribution}


def _compare(area: str, name: str, old: dict[str, str], new: dict[str, str]) -> list[Change]:
    return [Change(area, f"{name} {k}" if k else name, "changed", old.get(k, ""), new.get(k, ""))
            for k in dict.fromkeys([*old, *new]) if old.get(k, "") != new.get(k, "")]


def _table(spec: Spec) -> dict[str, str]:
    t = spec.table
    return {"name": spec.table_name, "partition key": f"{t.partition_key} ({t.partition_key_type})",
            "sort key": f"{t.sort_key} ({t.sort_key_type})" if t.sort_key else "-",
            "billing mode": t.billing_mode,
            "capacity": f"{t.read_capacity} RCU / {t.write_capacity} WCU" if t.read_capacity else "-"}


def spec_changes(old: Spec, new: Spec) -> list[Change]:
    """The differences from ``old`` to ``new``: the table's keys and billing, each index, each
    entity's key templates and attributes, each access pattern; in that order."""
    out = [Change("table", c.name.strip(), c.change, c.before, c.after)
           for c in _compare("table", "", _table(old), _table(new))]
    a, b = old.table.indexes, new.table.indexes
    for name in dict.fromkeys([*a, *b]):
        if name not in b:
            out.append(Change("index", name, "removed", _index_text(old, name)))
        elif name not in a:
            out.append(Change("index", name, "added", "", _index_text(new, name)))
        elif _index_text(old, name) != _index_text(new, name):
            out.append(Change("index", name, "changed", _index_text(old, name), _index_text(new, name)))
    for name in dict.fromkeys([*old.entities, *new.entities]):
        e_old, e_new = old.entities.get(name), new.entities.get(name)
        if e_new is None:
            out.append(Change("entity", name, "removed", ", ".join(f"{k}: {v}" for k, v in e_old.key.items())))
        elif e_old is None:
            out.append(Change("entity", name, "added", "", ", ".join(f"{k}: {v}" for k, v in e_new.key.items())))
        else:
            out += _compare("key", name, dict(e_old.key), dict(e_new.key))
            out += _compare("entity", name, {"attributes": _attrs(e_old.attributes), "writer": e_old.writer or "-"},
                            {"attributes": _attrs(e_new.attributes), "writer": e_new.writer or "-"})
    p_old = {p.name: p for p in old.access_patterns}
    p_new = {p.name: p for p in new.access_patterns}
    for name in dict.fromkeys([*p_old, *p_new]):
        if name not in p_new:
            out.append(Change("pattern", name, "removed", pattern_condition_text(old, p_old[name])))
        elif name not in p_old:
            out.append(Change("pattern", name, "added", "", pattern_condition_text(new, p_new[name])))
        else:
            out += _compare("pattern", name, _pattern_text(old, p_old[name]), _pattern_text(new, p_new[name]))
    return out


def _attrs(attrs: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in attrs.items()) or "-"


def findings_changes(old: Findings, new: Findings) -> tuple[list[Finding], list[Finding]]:
    """(new findings, resolved findings): a finding is the same when its rule and place are."""
    before = {(f.rule, f.where) for f in old}
    after = {(f.rule, f.where) for f in new}
    return ([f for f in new if (f.rule, f.where) not in before], [f for f in old if (f.rule, f.where) not in after])


def _per_call(old: Any, new: Any, unit: str) -> str:
    """``16.02 -> 16.24 RCU per call``: the fewest significant digits (four at least) that tell them apart."""
    digits = next((n for n in range(4, 9) if number(float(old), significant=n) != number(float(new), significant=n)), 9)
    return f"{number(float(old), significant=digits)} -> {number(float(new), significant=digits)} {unit} per call"


def cost_reason(pattern: str, old_line: Any, new_line: Any, old: Spec, new: Spec, changes: list[Change]) -> str:
    """Why one pattern's monthly dollars changed, derived from what changed: its rate, its read and write units
    per call (and the indexes a write pays for), and the spec changes behind them (its entities' key templates
    and attributes, the index it reads, its own definition). ``old_line``/``new_line``: the pattern's bill lines
    (``rate``, ``rcu_per_call``, ``wcu_per_call``, ``writes``), None where the version has no such pattern."""
    if old_line is None or new_line is None:
        return "a new pattern" if old_line is None else "the pattern was removed"
    parts = []
    if old_line.rate != new_line.rate:
        parts.append(f"rate {float(old_line.rate):g}/s -> {float(new_line.rate):g}/s")
    if old_line.rcu_per_call != new_line.rcu_per_call:
        parts.append(_per_call(old_line.rcu_per_call, new_line.rcu_per_call, "RCU"))
    if old_line.wcu_per_call != new_line.wcu_per_call:
        parts.append(_per_call(old_line.wcu_per_call, new_line.wcu_per_call, "WCU"))
    added = [ix for ix in new_line.writes if ix not in old_line.writes]
    gone = [ix for ix in old_line.writes if ix not in new_line.writes]
    parts += [f"now writes {ix} entries" for ix in added] + [f"no longer writes {ix} entries" for ix in gone]
    if not parts:
        return ""
    p = next((x for x in new.access_patterns if x.name == pattern), None)
    entities = set(p.entities) if p else set()
    indexes = {p.index} if p else set()
    causes = []
    for c in changes:
        subject = c.name.split(" ", 1)
        if c.area == "key" and subject[0] in entities:
            longer = len(c.after) > len(c.before)
            causes.append(f"{c.name} key {'longer' if longer else 'changed'}: '{c.before}' -> '{c.after}'")
        elif c.area == "entity" and subject[0] in entities and subject[-1] == "attributes":
            causes.append(f"{subject[0]}'s attributes changed")
        elif c.area == "index" and (c.name in indexes or c.name in added or c.name in gone):
            causes.append(f"index {c.name} {c.change}" + (f" ({c.after})" if c.after else ""))
        elif c.area == "pattern" and subject[0] == pattern and not subject[-1] == "rate":
            causes.append(f"its {subject[-1]} changed" if len(subject) > 1 else "the pattern changed")
    if not causes and any(x in parts[-1] for x in ("RCU", "WCU")):
        causes.append("the items it reads or writes changed size")
    return "; ".join(parts) + (": " + "; ".join(causes) if causes else "")
