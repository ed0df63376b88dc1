"""The access-pattern explorer: choose a pattern, fill its parameters from real sample values,
choose the backend; see the SQL and the boto3 request side by side, the items and the cost.

Wiring only (layer 3): every answer comes from the library. The pattern is planned once
(:func:`blue_nb.patterns.plan`); the panes show that plan's SQL for the chosen store and its boto3
request, and the same plan is what the store runs. Tests drive it without a browser by setting
widget values and reading outputs.
"""

from __future__ import annotations

import html
import json
import time
from dataclasses import replace
from typing import Any

import ipywidgets as W

from blue_nb.app.frames import item_table
from blue_nb.errors import BlueNbError
from blue_nb.items import item_to_wire
from blue_nb.patterns import ActionsResult, Plan, ReadResult, WriteResult, plan
from blue_nb.printing import compact
from blue_nb.sizing import PAGE_BYTES
from blue_nb.spec.display import html_table

__all__ = ["PatternExplorer"]



def _pre(text: str) -> str:
    """Code as written: lines wrap between words only (never mid-word), a token wider than the pane scrolls."""
    return (f"<pre style='white-space:pre-wrap;overflow-wrap:normal;word-break:normal;overflow-x:auto;margin:0'>"
            f"{html.escape(text)}</pre>")


def _index_writes(index_wcu: dict[str, int]) -> str:
    """``gsi1 1 WCU, gsi2 0 WCU`` (``no index`` when the table has none)."""
    return ", ".join(f"{html.escape(n)} {w:,} WCU" for n, w in index_wcu.items()) or "no index"


def _pages_html(result, max_pages: int, limit: int | None) -> str:
    """One row per call: the items, bytes and read units of its page, and why the next call was (not) made."""
    filtered = result.request.filter is not None          # Count (returned) beside ScannedCount (read, paid)
    rows = [[f"{i}", *([f"{p.items:,}"] if filtered else []), f"{p.count:,}", f"{p.bytes_read:,}", f"{p.rcu:g}",
             "yes" if p.has_more else "no"] for i, p in enumerate(result.pages, 1)]
    last = result.pages[-1] if result.pages else None
    n = len(result.pages)
    calls = f"{n} call{'s' if n != 1 else ''}"
    if last is not None and last.has_more:
        why = f"stopped after {calls} (max pages {max_pages}): more items remain, the next call would start after LastEvaluatedKey"
    else:
        ends = f"Limit {limit} items or " if limit else ""
        why = f"{calls}: the read ended (no LastEvaluatedKey); a page ends at {ends}{PAGE_BYTES // 2**20} MB read"
    head = ["call", *(["Count (returned)", "ScannedCount (read)"] if filtered else ["items"]), "bytes read", "RCU",
            "LastEvaluatedKey"]
    numbers = tuple(range(len(head) - 1))               # header and cells aligned alike: numbers right
    return f"<small>{html.escape(why)}</small>" + html_table(head, rows, right=numbers)


class PatternExplorer:
    """``PatternExplorer(session, pattern="list_round", params={"round": "1"})``; displays itself.
    ``result`` holds the last answer. Give it a session of its own (``session.fork()``) to keep it
    showing the design of the cell it is in while later cells change the session."""

    def __init__(self, session, *, pattern: str | None = None, params: dict[str, Any] | None = None,
                 max_rows: int = 25):
        self.session = session
        self.max_rows = max_rows
        self.plan: Plan | None = None      # what the store ran last: its SQL and boto3 request are shown
        self.result: Any = None
        self.error: str = ""
        self.elapsed_ms = 0.0
        self.pattern = W.Dropdown(description="pattern", layout=W.Layout(width="360px"))
        self.backend = W.ToggleButtons(options=list(session.stores), description="backend",
                                       style={"description_width": "initial", "button_width": "auto"})
        self.pages = W.BoundedIntText(value=1, min=1, max=1000, description="max pages",
                                      layout=W.Layout(width="170px"), style={"description_width": "initial"})
        self.limit = W.BoundedIntText(value=0, min=0, max=10000, description="page size (0: the pattern's)",
                                      layout=W.Layout(width="250px"), style={"description_width": "initial"})
        self.next_page = W.Button(description="next page", disabled=True, tooltip="read on from the last page's "
                                  "LastEvaluatedKey (passed as ExclusiveStartKey)", layout=W.Layout(width="120px"))
        self.start: dict[str, Any] | None = None     # the ExclusiveStartKey of the answer shown (None: the first page)
        self.page_table = W.HTML()
        self.params = W.VBox()
        self.sql = W.HTML()
        self.request = W.HTML()
        self.cost = W.HTML()
        self.items = W.HTML()
        self.findings = W.HTML()
        self._param_widgets: dict[str, W.Combobox] = {}
        self._quiet = False
        self.sql_title = W.HTML()
        plans = W.HBox([W.VBox([self.sql_title, self.sql], layout=W.Layout(width="50%")),
                        W.VBox([W.HTML("<b>boto3 request</b>"), self.request], layout=W.Layout(width="50%"))])
        self.widget = W.VBox([W.HBox([self.pattern, self.backend]), W.HBox([self.limit, self.pages, self.next_page]),
                              self.params,
                              plans, self.cost, self.page_table, self.items, W.HTML("<b>Findings</b>"), self.findings])
        for w, name in ((self.pattern, "pattern"), (self.sql, "sql"), (self.request, "request"), (self.items, "items"),
                        (self.next_page, "next-page"), (self.widget, "explorer")):
            w.add_class(f"blue-nb-{name}")           # stable names for a browser test (and user CSS)
        for w in (self.pattern,):
            w.observe(lambda _: self._pattern_changed(), names="value")
        for w in (self.backend, self.pages, self.limit):
            w.observe(lambda _: self._from_first_page(), names="value")
        self.next_page.on_click(lambda _: self.read_next_page())
        session.on_change(lambda _: self.refresh())
        self._quiet = True
        self.refresh()
        if pattern is not None:
            self.pattern.value = pattern
        self._quiet = False
        self._pattern_changed()
        if params:
            self.set_params(**params)

    # -- wiring ----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the session's spec: pattern list, findings, then run again."""
        names = [p.name for p in self.session.spec.access_patterns]
        current = self.pattern.value
        self._quiet = True
        self.pattern.options = names
        self.pattern.value = current if current in names else (names[0] if names else None)
        self._quiet = False
        self._show_findings()
        self._pattern_changed()

    def _pattern_changed(self) -> None:
        if self._quiet or self.pattern.value is None:
            return
        values = self.session.parameter_values(self.pattern.value)
        old = {n: w.value for n, w in self._param_widgets.items()}
        self._param_widgets = {}
        for name, options in values.items():
            w = W.Combobox(options=options, value=old.get(name) or (options[0] if options else ""),
                           description=name, ensure_option=False, layout=W.Layout(width="360px"))
            w.observe(lambda _: self._from_first_page(), names="value")
            self._param_widgets[name] = w
        self.params.children = list(self._param_widgets.values())
        self._from_first_page()

    def set_params(self, **params: str) -> None:
        """Set several parameters and run once (the tests and notebooks use it)."""
        self._quiet = True
        for name, value in params.items():
            self._param_widgets[name].value = str(value)
        self._quiet = False
        self._from_first_page()

    def _from_first_page(self) -> None:
        """A change of pattern, parameters, store or paging: read from the first page again."""
        self.start = None
        self.update()

    def read_next_page(self) -> None:
        """The "next page" button: run the pattern again from the last page's LastEvaluatedKey (its
        ExclusiveStartKey), as a caller reading on does; nothing when the last answer has no next page."""
        key = self._last_evaluated_key()
        if key is None:
            return
        self.start = key
        self.update()

    def _last_evaluated_key(self) -> dict[str, Any] | None:
        r = self.result
        return r.pages[-1].last_evaluated_key if isinstance(r, ReadResult) and r.pages else None

    @property
    def param_values(self) -> dict[str, str]:
        return {n: w.value for n, w in self._param_widgets.items()}

    # -- answers ---------------------------------------------------------------------------
    def update(self) -> None:
        """Plan the chosen pattern with the current parameters, show the plan and run it. On an error
        every pane of the previous answer is cleared, so nothing stale is left beside it."""
        if self._quiet or self.pattern.value is None:
            return
        start = time.perf_counter()
        self.plan, self.result, self.error = None, None, ""
        try:
            missing = [n for n, v in self.param_values.items() if not str(v).strip()]
            if missing:
                boxes = ", ".join(missing)
                self._show_error(f"pattern {self.pattern.value!r} needs {boxes}",
                                 f"fill in the {boxes} box{'es' if len(missing) > 1 else ''}: pick a value from "
                                 "its list (values of the sample) or type one")
                return
            self.plan = plan(self.session.spec, self._pattern(), self.param_values, start=self.start)
            self.result = self.session.run_pattern(self.plan, backend=self.backend.value, max_pages=self.pages.value)
        except BlueNbError as e:
            self.plan = None
            self._show_error(e.msg, e.hint, e.where)
            return
        finally:
            self.elapsed_ms = (time.perf_counter() - start) * 1000
            self.next_page.disabled = self._last_evaluated_key() is None
        what = ("every action's statement, in one SQL transaction" if not isinstance(self.plan, Plan) else
                "the read of the item this dry-run write replaces" if not self.plan.is_read else "what the store runs")
        self.sql_title.value = f"<b>SQL on {self.backend.value}</b> ({what})"
        self.sql.value = _pre(self.plan.show_sql(self.backend.value, self.pages.value))
        self.request.value = _pre(self.plan.show_boto3())
        self._show_result()

    def _pattern(self):
        """The chosen pattern, with the page size control's Limit when it is set."""
        p = self.session.spec.pattern(self.pattern.value)
        return replace(p, limit=self.limit.value) if self.limit.value and p.is_read else p

    def _show_error(self, msg: str, hint: str = "", where: str = "") -> None:
        """The error in place of the answer; the SQL, request, pages and items of the last answer go."""
        self.error = msg + (f" ({where})" if where else "") + (f"; {hint}" if hint else "")
        self.sql_title.value = "<b>SQL</b> <i>(nothing planned: see the error below)</i>"
        self.sql.value = self.request.value = ""
        self.cost.value = f"<span style='color:#b00'>{html.escape(self.error)}</span>"
        self.items.value = self.page_table.value = ""

    def _show_result(self) -> None:
        r = self.result
        s = r.summary()
        if isinstance(r, ActionsResult):            # a transaction or a batch: one call, its units per action
            self.request.value = _pre(self.plan.show_boto3(r.item_list()))
            unit = "RCU" if r.is_read else "WCU"
            outcome = (" · <b>cancelled</b> (TransactionCanceledException: " + html.escape(", ".join(
                c["Code"] for c in r.cancellation_reasons or [])) + ")") if r.cancelled else ""
            self.cost.value = (f"<b>{s['operation']}</b> of {s['actions']} actions: <b>{s[unit.lower()]:g} {unit}</b>"
                               f" (per action {', '.join(f'{u:g}' for u in r.units)}){outcome} · "
                               f"{self.elapsed_ms:.0f} ms")
            self.page_table.value = ""
            self.items.value = item_table(r.items[: self.max_rows], self._key_names())._repr_html_() if r.items else ""
            return
        if isinstance(r, WriteResult):
            self.request.value = _pre(self.plan.show_boto3(r.item))
            self.cost.value = (f"<b>{s['operation']}</b> (dry run): <b>{s['wcu']} WCU</b> = table {s['table_wcu']} WCU"
                               f" + index writes: {_index_writes(s['index_wcu'])}; item {s['old_size'] or 0:,} → "
                               f"{s['new_size'] or 0:,} bytes · {self.elapsed_ms:.0f} ms")
            self.items.value = self.page_table.value = ""
            return
        after = (f" · read on after <code>{html.escape(compact(self.start, 80))}</code>" if self.start else "")
        self.cost.value = (f"<b>{s['count']}</b> items · {s['pages']} page(s) · {s['bytes_read']:,} bytes read · "
                           f"<b>{s['rcu']:g} RCU</b> ({r.request.read_mode}) · {self.elapsed_ms:.0f} ms{after}")
        self.page_table.value = _pages_html(r, self.pages.value, r.request.limit)
        more = f"<i>first {self.max_rows} of {r.count}</i>" if r.count > self.max_rows else ""
        self.items.value = item_table(r.items[: self.max_rows], self._key_names())._repr_html_() + more

    def _key_names(self) -> list[str]:
        """The key attributes, which an items table shows first, left and on one line (long text wraps)."""
        spec = self.session.spec
        keys = [spec.table.partition_key, spec.table.sort_key,
                *[k for pair in spec.index_key_attributes().values() for k in pair]]
        return [k for k in keys if k]

    def _show_findings(self) -> None:
        try:
            findings = self.session.findings()
        except BlueNbError as e:
            self.findings.value = _pre(str(e))
            return
        self.findings.value = findings._repr_html_()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def item_json(self, n: int = 0) -> str:
        """One result item as DynamoDB JSON."""
        return json.dumps(item_to_wire(self.result.items[n]), ensure_ascii=False)
