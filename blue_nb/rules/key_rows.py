"""A chunk of a loaded table's items as the design checks read them: a column per key attribute.

The checks of a loaded store need, per item, its entity, the size its load recorded and the values of
the key attributes of the table and its indexes; read from the catalog a column at a time, they need no
dict per item. An item whose key values are not all strings (a number, binary) is kept whole, decoded,
so every value keeps its DynamoDB type.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

__all__ = ["KeyRows"]


@dataclass
class KeyRows:
    """``entities`` and ``sizes`` per item, ``keys``: attribute -> its value per item (None: the item has none),
    ``whole``: row -> the decoded item, for the rows whose key values are not all strings."""

    entities: list[str | None]
    sizes: list[int | None]
    keys: dict[str, list[Any]]
    whole: dict[int, dict[str, Any]] = field(default_factory=dict)
    _found: dict = field(default_factory=dict, repr=False)     # template -> (keys, its lines_found of them)
    _by: dict | None = field(default=None, repr=False)          # by_entity, once made

    def __len__(self) -> int:
        return len(self.entities)

    def item(self, i: int) -> dict[str, Any]:
        """Row ``i`` as an item of its key attributes (or the whole item)."""
        got = self.whole.get(i)
        return got if got is not None else {a: col[i] for a, col in self.keys.items() if col[i] is not None}

    def entries(self) -> list[tuple[str | None, dict[str, Any], int | None]]:
        """``(entity, item, size)`` of every row."""
        return [(e, self.item(i), s) for i, (e, s) in enumerate(zip(self.entities, self.sizes))]

    def by_entity(self) -> dict[str | None, list[int]]:
        """entity -> its rows, in order (made once for the chunk)."""
        if self._by is None:
            self._by = defaultdict(list)
            for i, e in enumerate(self.entities):
                self._by[e].append(i)
        return self._by

    def lines_found(self, t: Any, keys: list[str]) -> list | bool:
        """``t.lines_found(keys)`` (:class:`~blue_nb.spec.KeyTemplate`), remembered for the chunk: the checks go
        over the same keys of an entity in turn, and each would run the same regex over them."""
        got = self._found.get(t)
        if got is None or got[0] != keys:
            got = self._found[t] = (keys, t.lines_found(keys))
        return got[1]

    def values(self, attr: str, rows: list[int]) -> list[Any]:
        """The value of ``attr`` in each of ``rows`` (None where there is none); a whole item's as it is."""
        col = self.keys.get(attr)
        out = [col[i] for i in rows] if col is not None else [None] * len(rows)
        if self.whole:
            for n, i in enumerate(rows):
                if i in self.whole:
                    out[n] = self.whole[i].get(attr)
        return out
