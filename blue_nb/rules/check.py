"""Run the rules: every spec check, then (when items are given) one streaming pass of every item
check; item findings replace the spec-only guesses they confirm or refute at the same place."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

# importing the rule modules registers their rules, in this order (the report's order within a severity)
# isort: off
from blue_nb.rules import spec_rules, schema_rules, key_rules, data_rules, data_keys, data_prefix  # noqa: F401
# isort: on
from blue_nb.rules.data_rules import SAMPLES, DuplicateKeyCheck, item_label
from blue_nb.rules.findings import Finding, Findings, counted
from blue_nb.rules.key_rows import KeyRows
from blue_nb.rules.keyspace import key_string
from blue_nb.rules.registry import DATA_CHECKS, RULES, SPEC_CHECKS, Context, define, under_profile
from blue_nb.spec import Spec, load_spec

__all__ = ["ItemChecks", "check_spec", "check_specs", "findings_of"]

UNMATCHED = define("UNMATCHED-ITEM", "warning", "an item whose keys match no entity of the spec")


def _as_spec(spec: Spec | str | Path) -> Spec:
    return spec if isinstance(spec, Spec) else load_spec(spec)


def _report(spec: Spec, findings: Iterable[Finding], items: int | None) -> Findings:
    unique = list({(f.rule, f.where, f.message): f for f in under_profile(spec.rules, findings)}.values())
    return Findings(unique, spec=spec.source_path or spec.domain, items_checked=items, rule_order=list(RULES))


def findings_of(spec: Spec | str | Path, records: Iterable[dict[str, Any]], items: int | None) -> Findings:
    """A report again from its findings' :meth:`Findings.to_dicts` records (findings kept with a store):
    the same findings in the same order."""
    return _report(_as_spec(spec), [Finding(**r) for r in records], items)


def check_spec(spec: Spec | str | Path, items: Iterable[Any] | None = None) -> Findings:
    """Check one spec against ADR 0018 and DynamoDB's limits.

    ``items`` (optional) is an iterable of ``(entity name, item)`` pairs, or of bare items whose
    entity is found from their table keys; items are Python values (str, Decimal, bytes, bool,
    None, list, dict, set). They are streamed once; only counters, distinct placeholder values
    and a few sample keys are kept. (:class:`ItemChecks` takes them one at a time instead.)
    """
    spec = _as_spec(spec)
    if items is None:
        return _report(spec, _static(Context(spec, with_data=False)), None)
    checks = ItemChecks(spec)
    for entry in items:
        entity, item = (None, entry) if isinstance(entry, dict) else entry
        checks.add(entity, item)
    return checks.findings()


def _static(ctx: Context) -> list[Finding]:
    return [f for _, check in SPEC_CHECKS for f in check(ctx)]


class ItemChecks:
    """Every check of a spec, fed its items one at a time: what :func:`check_spec` does with an iterable,
    for a caller that makes the items for something else too (a loader: each item built once, loaded
    and checked). ``add(entity, item)`` (entity None: found from the table keys; ``size``: the item's
    size when known, not computed again), then ``findings()``; ``tap(entries)`` adds each
    ``(entity, item, ...)`` tuple of a stream and passes it on. ``stored=True``: the items come from a
    store, whose keys are unique, so the duplicate-key check is left out."""

    def __init__(self, spec: Spec | str | Path, *, stored: bool = False):
        self.spec = _as_spec(spec)
        self.ctx = Context(self.spec, with_data=True)
        self.static = _static(self.ctx)          # before the items, as they are meant to be
        # stored: the items come from a store, whose primary key already makes every key unique
        self.checks = [cls(self.ctx) for _, cls in DATA_CHECKS if not (stored and cls is DuplicateKeyCheck)]
        self.items, self.unmatched, self.samples = 0, 0, []
        self.source_failed = False             # tap: the stream itself raised (not what it was passed to)

    def add(self, entity: str | None, item: dict[str, Any], size: int | None = None) -> None:
        self.add_chunk([(entity, item, size)])

    def add_chunk(self, entries: list[tuple[str | None, dict[str, Any], int | None]]) -> None:
        """:meth:`add` for each ``(entity, item, size)`` of a chunk, each check run over the chunk at once
        (the same findings, fewer steps per item: the way to feed a store's millions of items)."""
        known = []
        for entity, item, size in entries:
            entity = entity if entity in self.spec.entities else self._entity_of(item)
            if entity is not None:
                known.append((entity, item, size))
        self.items += len(entries)
        for c in self.checks:
            c.add_chunk(known)

    def add_rows(self, rows: KeyRows) -> None:
        """:meth:`add_chunk` for a chunk of a loaded table read a column at a time: each check reads the key
        columns, or the rows as items (:meth:`~blue_nb.rules.registry.DataCheck.add_rows`); a row of no
        entity gets entity None."""
        strange = [i for i, e in enumerate(rows.entities) if e not in self.spec.entities]
        if strange:
            entities = list(rows.entities)
            for i in strange:
                entities[i] = self._entity_of(rows.item(i))
            rows = KeyRows(entities, rows.sizes, rows.keys, rows.whole)
        self.items += len(rows)
        for c in self.checks:
            c.add_rows(rows)

    def _entity_of(self, item: dict[str, Any]) -> str | None:
        """The entity whose key templates ``item``'s table keys match; None (counted, a few kept as samples)
        when there is no one such entity."""
        spec, t = self.spec, self.spec.table
        entity = spec.entity_for_key(key_string(item.get(t.partition_key)) or "",
                                     key_string(item.get(t.sort_key)) if t.sort_key else None)
        if entity is None:
            self.unmatched += 1
            if len(self.samples) < SAMPLES:
                self.samples.append(item_label(spec, item))
        return entity

    def tap(self, entries: Iterable[tuple]) -> Iterator[tuple]:
        it = iter(entries)
        while True:
            try:
                entry = next(it)
            except StopIteration:
                return
            except BaseException:
                self.source_failed = True
                raise
            self.add(entry[0], entry[1])
            yield entry

    def findings(self) -> Findings:
        found = [f for c in self.checks for f in c.findings()]
        if self.unmatched:
            message = (f"{counted(self.unmatched, 'item')} matching no entity's key templates (or several); "
                       "they were left out of the item checks")
            found.append(UNMATCHED.finding("entities", message, evidence=self.samples,
                                           hint="add the entity these items belong to, or fix its key templates"))
        confirmed = {(f.rule, f.where) for f in found}
        return _report(self.spec, [f for f in self.static if (f.rule, f.where) not in confirmed] + found,
                       self.items)


def check_specs(specs: Iterable[Spec | str | Path]) -> Findings:
    """ADR1 across specs: two or more specs with one domain make it several tables; an error on
    each spec after the first."""
    loaded = [_as_spec(s) for s in specs]
    out = []
    for k, spec in enumerate(loaded):
        for f in under_profile(spec.rules, spec_rules.single_table_findings(spec, loaded[:k])):
            out.append(Finding(f.rule, f.severity, f.where, f.message, f.hint, f.evidence,
                               spec=spec.source_path or spec.domain))
    names = ", ".join(s.source_path or s.domain for s in loaded)
    return Findings(out, spec=names, rule_order=list(RULES))
