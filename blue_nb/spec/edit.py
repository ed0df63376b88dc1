"""Change a spec from Python (in a notebook): each function returns a new, validated Spec.

A change goes through the same validation as a spec file, so a notebook cannot build a spec
that the file format would reject.
"""

from __future__ import annotations

import copy
from typing import Any

from blue_nb.errors import SpecError
from blue_nb.spec.io import spec_from_dict
from blue_nb.spec.model import Spec

__all__ = ["with_key", "with_attribute", "with_pattern", "without_pattern", "with_entity"]


def _rebuild(spec: Spec, d: dict[str, Any], what: str) -> Spec:
    try:
        new = spec_from_dict(d, source=f"{spec.source_path or spec.domain} ({what})")
    except SpecError as e:
        raise SpecError(f"cannot {what}", problems=e.problems, hint=e.hint) from e
    new.source_path = spec.source_path
    return new


def _entity(d: dict[str, Any], entity: str) -> dict[str, Any]:
    if entity not in d["entities"]:
        raise SpecError(f"no entity named {entity!r}", where="entities",
                        hint="known entities: " + ", ".join(d["entities"]))
    return d["entities"][entity]


def with_key(spec: Spec, entity: str, attribute: str, template: str | None) -> Spec:
    """Set (or, with None, remove) the key template of ``entity.attribute``."""
    d = copy.deepcopy(spec.to_dict())
    keys = _entity(d, entity)["key"]
    if template is None:
        keys.pop(attribute, None)
    else:
        keys[attribute] = template
    return _rebuild(spec, d, f"set entities.{entity}.key.{attribute}")


def with_attribute(spec: Spec, entity: str, attribute: str, dtype: str | None) -> Spec:
    """Declare (or, with None, drop) a non-key attribute of an entity."""
    d = copy.deepcopy(spec.to_dict())
    attrs = _entity(d, entity).setdefault("attributes", {})
    if dtype is None:
        attrs.pop(attribute, None)
    else:
        attrs[attribute] = dtype
    return _rebuild(spec, d, f"set entities.{entity}.attributes.{attribute}")


def with_entity(spec: Spec, name: str, **fields: Any) -> Spec:
    """Add or replace an entity: ``with_entity(spec, "Note", source="notes", key={...}, attributes={...})``."""
    d = copy.deepcopy(spec.to_dict())
    d["entities"][name] = fields
    return _rebuild(spec, d, f"set entities.{name}")


def with_pattern(spec: Spec, name: str, **fields: Any) -> Spec:
    """Add a pattern, or change fields of an existing one (fields as in the spec file)."""
    d = copy.deepcopy(spec.to_dict())
    patterns = d.setdefault("access_patterns", [])
    for p in patterns:
        if p["name"] == name:
            p.update(fields)
            break
    else:
        patterns.append({"name": name, **fields})
    return _rebuild(spec, d, f"set access pattern {name}")


def without_pattern(spec: Spec, name: str) -> Spec:
    d = copy.deepcopy(spec.to_dict())
    before = len(d.get("access_patterns", []))
    d["access_patterns"] = [p for p in d.get("access_patterns", []) if p["name"] != name]
    if len(d["access_patterns"]) == before:
        raise SpecError(f"no access pattern named {name!r}", where="access_patterns")
    return _rebuild(spec, d, f"remove access pattern {name}")
