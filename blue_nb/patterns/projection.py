"""ProjectionExpression and Select: what a read returns of each item, and whether it goes back to the table.

Pure (layer 1). A pattern's ``select`` and ``projection`` (document paths, :mod:`blue_nb.spec.expressions`)
resolve, as DynamoDB resolves them, to one Select (:func:`resolve_select`): ``ALL_ATTRIBUTES`` (a table's
default), ``ALL_PROJECTED_ATTRIBUTES`` (an index's default), ``SPECIFIC_ATTRIBUTES`` (a projection) or
``COUNT`` (no items, only Count). :func:`needs_fetch` says whether a read of a local index fetches
the items from the table (it asks for attributes the index does not hold); a global index never
does. :func:`project_paths` keeps the paths of an item as DynamoDB returns them: a path that leads
nowhere is left out, nested maps keep only the keys asked for, list elements asked for keep their
order and close up.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from blue_nb.spec.expressions import Path

__all__ = ["index_attributes", "needs_fetch", "project_paths", "resolve_select"]


def resolve_select(select: str | None, on_index: bool, projection: Iterable[Path]) -> str:
    """The Select a read makes: the one given, else SPECIFIC_ATTRIBUTES with a projection, else the default
    of a table (ALL_ATTRIBUTES) or of an index (ALL_PROJECTED_ATTRIBUTES)."""
    if select:
        return select
    if list(projection):
        return "SPECIFIC_ATTRIBUTES"
    return "ALL_PROJECTED_ATTRIBUTES" if on_index else "ALL_ATTRIBUTES"


def index_attributes(keys: Iterable[str | None], projection: Any) -> set[str] | None:
    """The attributes an index entry holds (its keys, the table's keys, the projected ones); None: all."""
    if projection == "all":
        return None
    held = {k for k in keys if k}
    if projection != "keys_only":
        held |= set(projection)
    return held


def needs_fetch(index_type: str, select: str, paths: Iterable[Path], held: set[str] | None) -> bool:
    """Whether a read fetches each item from the table: on a local index that does not project all, when
    it selects ALL_ATTRIBUTES or names an attribute the index does not hold."""
    if index_type != "local" or held is None:
        return False
    return select == "ALL_ATTRIBUTES" or (select == "SPECIFIC_ATTRIBUTES" and any(p.name not in held for p in paths))


def _get(node: Any, parts: tuple) -> Any:
    for part in parts:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return _NOTHING
        elif not isinstance(node, dict) or part not in node:
            return _NOTHING
        node = node[part]
    return node


_NOTHING = object()


def project_paths(item: Mapping[str, Any], paths: Iterable[Path]) -> dict[str, Any]:
    """The parts of ``item`` that ``paths`` name, shaped as DynamoDB returns them."""
    out: dict[str, Any] = {}
    lists: dict[int, dict[int, Any]] = {}          # id of an output list -> its elements by source index
    made: list[Any] = [out]                        # the containers made here (kept alive: their ids stay theirs)
    for path in paths:
        value = _get(item, path.parts)
        if value is _NOTHING:
            continue
        node: Any = out
        source: Any = item
        for i, part in enumerate(path.parts):
            last = i == len(path.parts) - 1
            source = source[part]
            if isinstance(part, int):
                slots = lists.setdefault(id(node), {})
                if last:
                    slots[part] = source
                else:
                    if part not in slots:
                        slots[part] = [] if isinstance(source, list) else {}
                        made.append(slots[part])
                    node = slots[part]
            else:
                if last:
                    node[part] = source
                else:
                    if part not in node:
                        node[part] = [] if isinstance(source, list) else {}
                        made.append(node[part])
                    node = node[part]
    return _close(out, lists, {id(m) for m in made})


def _close(node: Any, lists: dict[int, dict[int, Any]], made: set[int]) -> Any:
    """Fill each list made here with its elements in source order (the list closes up), recursively; the
    item's own values are left as they are."""
    if id(node) not in made:
        return node
    if isinstance(node, list):
        slots = lists.get(id(node), {})
        node[:] = [_close(slots[k], lists, made) for k in sorted(slots)]
        return node
    for k, v in node.items():
        node[k] = _close(v, lists, made)
    return node
