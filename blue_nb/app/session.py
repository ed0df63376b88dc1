"""A design session: one spec, its sample data and both local stores, changed from a notebook.

Layer 3. Change a key template or a pattern with one call; the session validates the new spec,
reloads the items when keys changed, and tells its listeners (the widgets) so their findings
and results update without a restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from blue_nb.rules import check_spec
from blue_nb.patterns import Plan, ReadResult, WriteResult, plan
from blue_nb.spec import Spec, with_attribute, with_key, with_pattern, without_pattern
from blue_nb.stores import BACKENDS, Store, open_store
from blue_nb.app.workflows import as_spec, load_data, parameter_values

__all__ = ["DesignSession"]


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
        self.load_results = self.reload()

    # -- changes ---------------------------------------------------------------------------
    def on_change(self, callback: Callable[["DesignSession"], None]) -> None:
        """Call ``callback(session)`` after every change of the spec or the items."""
        self._listeners.append(callback)

    def reload(self):
        """(Re)build every item from the data with the current spec, into every store."""
        self.load_results = load_data(self.spec, self.data_dir, stores=list(self.stores.values()),
                                      progress=self.progress)
        return self.load_results

    def use_spec(self, spec: Spec | str | Path) -> Spec:
        """Switch to another spec (for example the fixed variant) and reload the items."""
        return self._apply(as_spec(spec), reload=True)

    def set_key(self, entity: str, attribute: str, template: str | None) -> Spec:
        """Change one key template (``None`` removes it); the items are rebuilt with it."""
        return self._apply(with_key(self.spec, entity, attribute, template), reload=True)

    def set_attribute(self, entity: str, attribute: str, dtype: str | None) -> Spec:
        return self._apply(with_attribute(self.spec, entity, attribute, dtype), reload=True)

    def set_pattern(self, name: str, **fields: Any) -> Spec:
        """Add a pattern or change its fields, e.g. ``set_pattern("list_round", limit=20)``."""
        return self._apply(with_pattern(self.spec, name, **fields), reload=False)

    def remove_pattern(self, name: str) -> Spec:
        return self._apply(without_pattern(self.spec, name), reload=False)

    def _apply(self, spec: Spec, reload: bool) -> Spec:
        self.spec = spec
        if reload:
            self.reload()
        self.version += 1
        for callback in list(self._listeners):
            callback(self)
        return spec

    # -- questions -------------------------------------------------------------------------
    def plan(self, pattern: str, params: dict[str, Any] | None = None) -> Plan:
        """Bind a pattern of the current spec to ``params``: the request, its SQL and its boto3 request."""
        return plan(self.spec, pattern, params)

    def run_pattern(self, pattern: str | Plan, params: dict[str, Any] | None = None, *, backend: str = "sqlite",
                    max_pages: int | None = None, follow: bool = False) -> ReadResult | WriteResult:
        """Run a pattern (or a plan made by :meth:`plan`) on one of the session's stores
        (``follow=True``: read every page, following LastEvaluatedKey, even with a limit)."""
        planned = pattern if isinstance(pattern, Plan) else self.plan(pattern, params)
        return self.stores[backend].run_plan(planned, max_pages=max_pages, follow=follow)

    def parameter_values(self, pattern: str, limit: int = 50) -> dict[str, list[str]]:
        return parameter_values(self.stores[next(iter(self.stores))], self.spec, pattern, limit=limit)

    def items(self):
        """(entity, item) for every item of the first store."""
        store = self.stores[next(iter(self.stores))]
        return store.iter_entity_items(self.spec.table_name)

    def findings(self, with_data: bool = True):
        """The design checks of the current spec (over the loaded items too, unless ``with_data=False``)."""
        return check_spec(self.spec, items=self.items() if with_data else None)

    def close(self) -> None:
        for s in self.stores.values():
            s.close()
