"""Derived facts about a spec's keys that several rules share: the key spaces (the table and each
index), which entities live in each, template shapes, and the prefix probes (a prefix and the
items of other entities it wrongly matches)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from blue_nb.spec import SEPARATOR, AccessPattern, Entity, KeyTemplate, Placeholder, Spec, pattern_path

__all__ = ["KeySpace", "Layout", "Probe", "can_start_with", "key_string", "pattern_where", "placeholders_of",
           "prefix_regex", "render_parts", "shape"]


@dataclass(frozen=True)
class KeySpace:
    """The table or one index: its key attributes and the partition space it reads."""

    index: str                 # "table" or the index name
    pk_attr: str
    sk_attr: str | None
    pk_type: str = "S"
    sk_type: str = "S"
    partition_space: str = "table"   # "table" for the table and its LSIs, the GSI name otherwise

    @property
    def label(self) -> str:
        return "the table" if self.index == "table" else f"index {self.index}"


@dataclass(frozen=True)
class Probe:
    """A key prefix (from a begins_with or an entity's constant prefix) that also matches the
    sort keys of ``targets``, entities it should not return."""

    where: str
    space: KeySpace
    prefix: str
    targets: frozenset[str]
    owner: str                 # what uses the prefix: "begins_with 'EXPERT' of list_experts"
    regex: re.Pattern          # matches the start of a wrongly matched key


def shape(t: KeyTemplate, names: bool = False) -> tuple:
    """The template as literals and ``{:fmt}`` slots (with names when ``names``): what decides
    whether two templates render the same keys."""
    return tuple(p if isinstance(p, str) else ("{", p.name if names else "", p.fmt) for p in t.parts)


def placeholders_of(t: KeyTemplate) -> list[Placeholder]:
    """The placeholders in order of appearance, first occurrence of each name."""
    seen, out = set(), []
    for p in t.parts:
        if isinstance(p, Placeholder) and p.name not in seen:
            seen.add(p.name)
            out.append(p)
    return out


def render_parts(t: KeyTemplate, values: dict[str, str]) -> str:
    """Render with values that are already key text (as :meth:`KeyTemplate.parse` returns them)."""
    return "".join(p if isinstance(p, str) else values.get(p.name, str(p)) for p in t.parts)


def key_string(value: Any) -> str | None:
    """A key attribute's value as text (bytes decoded), or None for numbers and missing values."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return None


def pattern_where(i: int, p: AccessPattern, op: str | None = None) -> str:
    """The spec path of pattern ``p`` (number ``i``), named (:func:`blue_nb.spec.pattern_path`); with ``op``, its key
    condition's sort-key operator."""
    base = pattern_path(i, p.name)
    return f"{base}.key_condition.{op}" if op else base


class Layout:
    """The spec's key spaces and the entities in each."""

    def __init__(self, spec: Spec):
        self.spec = spec
        t = spec.table
        self.spaces: dict[str, KeySpace] = {"table": KeySpace("table", t.partition_key, t.sort_key,
                                                                t.partition_key_type, t.sort_key_type)}
        for name, idx in t.indexes.items():
            pk, sk = spec.key_attributes(name)
            local = idx.type == "local"
            self.spaces[name] = KeySpace(name, pk, sk, t.partition_key_type if local else idx.partition_key_type,
                                         idx.sort_key_type, "table" if local else name)

    def space(self, index: str | None) -> KeySpace:
        return self.spaces[index or "table"]

    def members(self, space: KeySpace) -> list[Entity]:
        """Entities whose items are in this key space (they have templates for its keys)."""
        return [e for e in self.spec.entities.values()
                if space.pk_attr in e.key and (space.sk_attr is None or space.sk_attr in e.key)]

    def sort_key_templates(self):
        """(space, entity, sort key template, where) for every entity in a space with a sort key."""
        for space in self.spaces.values():
            if not space.sk_attr:
                continue
            for e in self.members(space):
                if space.index != "table" and space.sk_attr == self.spec.table.sort_key:
                    continue      # an LSI on the table's own sort key: already seen
                yield space, e, e.templates[space.sk_attr], f"entities.{e.name}.key.{space.sk_attr}"

    def neighbours(self, space: KeySpace, entity: Entity) -> list[Entity]:
        """Other entities of the space whose partition key template has the same shape, so their
        items can share a partition with this entity's."""
        mine = shape(entity.templates[space.pk_attr])
        return [e for e in self.members(space)
                if e.name != entity.name and shape(e.templates[space.pk_attr]) == mine]

    # -- prefix probes ---------------------------------------------------------------------
    def probes(self) -> list[Probe]:
        """Every begins_with, and every entity's constant prefix, that matches sort keys of
        entities it should not."""
        return self._pattern_probes() + self._entity_probes()

    def _pattern_probes(self) -> list[Probe]:
        out = []
        for i, p in enumerate(self.spec.access_patterns):
            kc, space = p.key_condition, self.space(p.index)
            if not kc or kc.sk_op != "sk_begins_with" or not isinstance(kc.sk_value, str) or not space.sk_attr:
                continue
            tmpl = KeyTemplate(kc.sk_value)
            returned = [self.spec.entities[r] for r in p.entities
                        if r in self.spec.entities and space.pk_attr in self.spec.entities[r].key]
            targets = {e.name for r in returned for e in self.neighbours(space, r)
                       if e.name not in p.entities and can_start_with(e.templates[space.sk_attr], tmpl)}
            if targets:
                out.append(Probe(pattern_where(i, p, "sk_begins_with"), space, tmpl.text, frozenset(targets),
                                 f"begins_with {tmpl.text!r} of {p.name}", prefix_regex(tmpl)))
        return out

    def _entity_probes(self) -> list[Probe]:
        out = []
        for space, e, tmpl, where in self.sort_key_templates():
            if tmpl.is_constant or not tmpl.prefix:
                continue
            targets = {o.name for o in self.neighbours(space, e)
                       if o.templates[space.sk_attr].prefix.startswith(tmpl.prefix)}
            if targets:
                out.append(Probe(where, space, tmpl.prefix, frozenset(targets), f"the {e.name} prefix {tmpl.prefix!r}",
                                 re.compile(re.escape(tmpl.prefix))))
        return out


def _segments(t: KeyTemplate) -> list[str | None]:
    """The template split at the separator; a segment with a placeholder is None (any text)."""
    segs: list[str | None] = [""]
    for part in t.parts:
        if isinstance(part, Placeholder):
            segs[-1] = None
            continue
        pieces = part.split(SEPARATOR)
        if segs[-1] is not None:
            segs[-1] += pieces[0]
        segs += pieces[1:]
    return segs


def can_start_with(b: KeyTemplate, t: KeyTemplate) -> bool:
    """Can some key of template ``b`` start with some rendering of template ``t``? Decided
    segment by segment (a segment with a placeholder matches anything)."""
    bs, ts = _segments(b), _segments(t)
    if len(ts) > len(bs):
        return False
    for i, seg in enumerate(ts):
        other = bs[i]
        if seg is None or other is None:
            continue
        if i == len(ts) - 1:
            return other.startswith(seg)
        if seg != other:
            return False
    return True


def prefix_regex(t: KeyTemplate) -> re.Pattern:
    """Matches the start of any key that begins with a rendering of ``t``."""
    return re.compile("".join(re.escape(p) if isinstance(p, str) else "[^#]*" for p in t.parts), re.DOTALL)
