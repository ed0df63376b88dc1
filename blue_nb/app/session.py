"""A design session: one spec, its sample data and both local stores, changed from a notebook.

Layer 3. Change a key template or a pattern with one call; the session validates the new spec,
reloads the items when keys changed, and tells its listeners (the widgets) so their findings
and results update without a restart. Each change answers with a short :class:`SpecChange`
(what changed, and which findings came and went), not the whole spec. ``fork()`` gives a widget
a session of its own, so later cells that change this one do not repaint it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from blue_nb.rules import Finding, Findings, check_spec
from blue_nb.patterns import ActionsPlan, Plan, ReadResult, WriteResult, plan
from blue_nb.spec import KeyTemplate, Spec, with_attribute, with_key, with_pattern, without_pattern
from blue_nb.stores import BACKENDS, Store, open_store
from blue_nb.app.workflows import as_spec, load_data, parameter_values

__all__ = ["DesignSession", "SpecChange", "byte_order_example"]

_COLORS = {"error": "#b00020", "warning": "#a15c00", "info": "#555"}


def _finding_key(f: Finding) -> tuple[str, str, str]:
    return f.rule, f.severity, f.where


@dataclass
class SpecChange:
    """One change of a session's spec: what changed (``before`` -> ``after``), whether the items were
    rebuilt, and the findings after it with the ones it added (``new``) and removed (``gone``)."""

    what: str
    before: Any
    after: Any
    findings: Findings
    was: str                                   # the findings' summary before the change
    new: list[Finding] = field(default_factory=list)
    gone: list[Finding] = field(default_factory=list)
    items: int | None = None                   # items rebuilt (None: the items did not change)

    def _lines(self) -> list[tuple[str, Finding | None]]:
        rebuilt = f"; {self.items:,} items rebuilt" if self.items is not None else ""
        change = f"{self.after!r}" if self.what.startswith("added ") else f"{self.before!r} -> {self.after!r}"
        lines = [(f"{self.what}: {change}{rebuilt}", None),
                 (f"findings: {self.findings.summary()} (before: {self.was})", None)]
        lines += [(f"  + new {f.severity} {f.rule} at {f.where}: {f.message}", f) for f in self.new]   # whole: never cut
        lines += [(f"  - gone {f.severity} {f.rule} at {f.where}", f) for f in self.gone]
        return lines

    def __repr__(self) -> str:
        return "\n".join(text for text, _ in self._lines())

    def _repr_html_(self) -> str:
        out = []
        for text, f in self._lines():
            style = f" style='color:{_COLORS[f.severity]}'" if f is not None and text.startswith("  +") else ""
            out.append(f"<div{style}>{html.escape(text).replace('  ', '&nbsp;&nbsp;')}</div>")
        return ("<div style='font-family:monospace;font-size:90%;overflow-wrap:break-word'>" + "".join(out)
                + "</div>")      # a long message wraps between words, in the notebook's width


def byte_order_example(spec: Spec, items: list[dict[str, Any]], attribute: str = "sk", around: int = 3,
                       like: pd.DataFrame | None = None) -> pd.DataFrame:
    """Keys, in the order a query returned them, that show byte order against number order.

    The first group of keys that agree in every placeholder but one number (``seq`` of one expert in
    one round) whose numbers come back out of order: its first ``around`` keys, then the key before
    and the key at the first place where the number drops (``…#1``, ``…#10``, ``…#11``, ... ``…#2``).
    One row per key: its position in the result (from 1), the key and its placeholder values.
    With ``like`` (a frame this function returned), the items with the same placeholder values
    instead, wherever they are now (after a change of the key template). Empty when none is found."""
    for entity_name, entity in spec.entities.items():
        text = entity.key.get(attribute)
        if text is None:
            continue
        template = KeyTemplate(text)
        rows = []
        for pos, item in enumerate(items, 1):
            values = template.parse(str(item.get(attribute, "")))
            if values:
                rows.append({"position": pos, attribute: item[attribute], **{k: _number(v) for k, v in values.items()}})
        if like is not None:
            names = [c for c in like.columns if c not in ("position", attribute, "entity")]
            wanted = {tuple(r[n] for n in names) for r in like.to_dict("records")}
            chosen = [r for r in rows if set(names) <= set(r) and tuple(r[n] for n in names) in wanted]
        else:
            chosen = _first_inversion(rows, [k for k in rows[0] if k not in ("position", attribute)] if rows else [],
                                      around)
        if chosen:
            return pd.DataFrame([{**r, "entity": entity_name} for r in chosen])
    return pd.DataFrame(columns=["position", attribute, "entity"])


def _number(text: str) -> Any:
    return int(text) if text.isdigit() else text


def _first_inversion(rows: list[dict[str, Any]], names: list[str], around: int) -> list[dict[str, Any]]:
    """The shown rows of the first group whose numbers are not ascending (the last number first)."""
    numbers = [n for n in names if all(isinstance(r[n], int) for r in rows)]
    for name in reversed(numbers):
        groups: dict[tuple, list] = {}
        for r in rows:
            groups.setdefault(tuple(r[n] for n in names if n != name), []).append(r)
        for group in groups.values():
            drop = next((i for i in range(1, len(group)) if group[i][name] < group[i - 1][name]), None)
            if drop is not None:
                return group[:around] + group[max(around, drop - 1):drop + 1]
    return []


class DesignSession:
    """``DesignSession("../data/specs/dialogue.yaml", "../data/sample/dialogue")``."""

    def __init__(self, spec: Spec | str | Path, data_dir: str | Path, *, backends: tuple[str, ...] = BACKENDS,
                 progress: bool = False):
        self.spec = as_spec(spec)
        self.data_dir = Path(data_dir)
        self.progress = progress
        self.stores: dict[str, Store] = {b: open_store(b) for b in backends}
        self._listeners: list[Callable[["DesignSession"], None]] = []
        self.version = 0
        self.changes: list[str] = []               # what was changed in memory since the spec was loaded
        self._findings: tuple[int, Findings] | None = None
        self.load_results = self.reload()

    def fork(self) -> "DesignSession":
        """A session of its own with the current spec and the same data (its own stores, no listeners):
        give one to a widget so that changes made to this session later do not repaint it."""
        other = DesignSession(self.spec, self.data_dir, backends=tuple(self.stores), progress=self.progress)
        other.changes = list(self.changes)
        return other

    @property
    def label(self) -> str:
        """The spec file, or, once changed in memory, the domain and the changes (no longer the file)."""
        if not self.changes:
            return self.spec.source_path or self.spec.domain
        n = len(self.changes)
        return f"{self.spec.domain} as changed in this session ({n} change{'s' if n > 1 else ''}, not saved)"

    # -- changes ---------------------------------------------------------------------------
    def on_change(self, callback: Callable[["DesignSession"], None]) -> None:
        """Call ``callback(session)`` after every change of the spec or the items."""
        self._listeners.append(callback)

    def reload(self):
        """(Re)build every item from the data with the current spec, into every store."""
        self.load_results = load_data(self.spec, self.data_dir, stores=list(self.stores.values()),
                                      progress=self.progress)
        return self.load_results

    def use_spec(self, spec: Spec | str | Path) -> SpecChange:
        """Switch to another spec (for example the fixed variant) and reload the items."""
        new = as_spec(spec)
        before = self.label
        self.changes = []
        return self._apply(new, reload=True, what="spec", before=before, after=new.source_path or new.domain,
                           edited=False)

    def set_key(self, entity: str, attribute: str, template: str | None) -> SpecChange:
        """Change one key template (``None`` removes it); the items are rebuilt with it."""
        before = self.spec.entities[entity].key.get(attribute) if entity in self.spec.entities else None
        return self._apply(with_key(self.spec, entity, attribute, template), reload=True,
                           what=f"entities.{entity}.key.{attribute}", before=before, after=template)

    def set_attribute(self, entity: str, attribute: str, dtype: str | None) -> SpecChange:
        """Declare (or, with ``None``, drop) a non-key attribute; the items are rebuilt."""
        before = self.spec.entities[entity].attributes.get(attribute) if entity in self.spec.entities else None
        return self._apply(with_attribute(self.spec, entity, attribute, dtype), reload=True,
                           what=f"entities.{entity}.attributes.{attribute}", before=before, after=dtype)

    def set_pattern(self, name: str, **fields: Any) -> SpecChange:
        """Add a pattern or change its fields, e.g. ``set_pattern("list_round", limit=20)``."""
        old = self._pattern_dict(name)
        if old is None:
            what, before, after = f"added access pattern {name}", None, dict(fields)
        elif len(fields) == 1:
            (key, after), = fields.items()
            what, before = f"access pattern {name}.{key}", old.get(key)
        else:
            what, before, after = f"access pattern {name}", {k: old.get(k) for k in fields}, dict(fields)
        return self._apply(with_pattern(self.spec, name, **fields), reload=False, what=what, before=before,
                           after=after)

    def remove_pattern(self, name: str) -> SpecChange:
        return self._apply(without_pattern(self.spec, name), reload=False, what=f"access pattern {name}",
                           before=self._pattern_dict(name), after=None)

    def _pattern_dict(self, name: str) -> dict[str, Any] | None:
        return next((p for p in self.spec.to_dict().get("access_patterns", []) if p["name"] == name), None)

    def _apply(self, spec: Spec, reload: bool, what: str, before: Any, after: Any, edited: bool = True) -> SpecChange:
        old = self.findings()
        if edited:
            spec.source_path = None              # no longer the file: nothing downstream may name it
            self.changes.append(what)
        self.spec = spec
        if reload:
            self.reload()
        self.version += 1
        now = self.findings()
        was = {_finding_key(f) for f in old}
        kept = {_finding_key(f) for f in now}
        change = SpecChange(what, before, after, now, old.summary(),
                            new=[f for f in now if _finding_key(f) not in was],
                            gone=[f for f in old if _finding_key(f) not in kept],
                            items=self.load_results[0].items_after if reload and self.load_results else None)
        for callback in list(self._listeners):
            callback(self)
        return change

    # -- questions -------------------------------------------------------------------------
    def plan(self, pattern: str, params: dict[str, Any] | None = None, *,
             start: dict[str, Any] | None = None) -> Plan:
        """Bind a pattern of the current spec to ``params``: the request, its SQL and its boto3 request;
        ``start``: the ExclusiveStartKey to read on from (a page's ``last_evaluated_key``)."""
        return plan(self.spec, pattern, params, start=start)

    def run_pattern(self, pattern: str | Plan, params: dict[str, Any] | None = None, *, backend: str = "sqlite",
                    max_pages: int | None = None, follow: bool = False,
                    start: dict[str, Any] | None = None) -> ReadResult | WriteResult:
        """Run a pattern (or a plan made by :meth:`plan`) on one of the session's stores
        (``follow=True``: read every page, following LastEvaluatedKey, even with a limit; ``start``: the next
        page, after a previous result's ``pages[-1].last_evaluated_key``)."""
        planned = pattern if isinstance(pattern, (Plan, ActionsPlan)) else self.plan(pattern, params, start=start)
        return self.stores[backend].run_plan(planned, max_pages=max_pages, follow=follow)

    def byte_order_example(self, pattern: str, params: dict[str, Any] | None = None, attribute: str = "sk",
                           like: pd.DataFrame | None = None) -> pd.DataFrame:
        """The keys of one pattern's result that show byte order against number order, or with ``like``
        the same items in the current design (:func:`byte_order_example`)."""
        return byte_order_example(self.spec, self.run_pattern(pattern, params).items, attribute, like=like)

    def parameter_values(self, pattern: str, limit: int = 50) -> dict[str, list[str]]:
        return parameter_values(self.stores[next(iter(self.stores))], self.spec, pattern, limit=limit)

    def items(self):
        """(entity, item) for every item of the first store."""
        store = self.stores[next(iter(self.stores))]
        return store.iter_entity_items(self.spec.table_name)

    def findings(self, with_data: bool = True) -> Findings:
        """The design checks of the current spec (over the loaded items too, unless ``with_data=False``),
        headed by :attr:`label`; computed once per version of the spec."""
        if not with_data:
            return self._labelled(check_spec(self.spec))
        if self._findings is None or self._findings[0] != self.version:
            self._findings = (self.version, self._labelled(check_spec(self.spec, items=self.items())))
        return self._findings[1]

    def _labelled(self, findings: Findings) -> Findings:
        findings.spec = self.label
        return findings

    def close(self) -> None:
        for s in self.stores.values():
            s.close()
