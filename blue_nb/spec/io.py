"""Read and write spec files (YAML or JSON), with file:line in every error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from blue_nb.errors import Problem, SpecError
from blue_nb.spec.model import (SK_OPERATORS, AccessPattern, Entity, Index, Join, KeyCondition, Spec, Table)
from blue_nb.spec.schema import structure_problems
from blue_nb.spec.validate import semantic_problems

__all__ = ["load_spec", "loads_spec", "spec_from_dict", "dump_spec", "dumps_spec", "check_spec_dict"]


def load_spec(path: str | Path) -> Spec:
    """Read, validate and build a spec from a ``.yaml``/``.yml``/``.json`` file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(f"cannot read spec file: {e.strerror}", where=str(p),
                        hint="check the path; spec files end in .yaml, .yml or .json", cause=e) from e
    return loads_spec(text, source=str(p))


def loads_spec(text: str, source: str = "<spec>") -> Spec:
    """Parse spec text (YAML, of which JSON is a subset) and build the validated model."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        raise SpecError(f"not valid YAML/JSON: {getattr(e, 'problem', e)}", where=where,
                        hint="fix the syntax at that line", cause=e) from e
    return spec_from_dict(data, source=source, lines=_line_map(node))


def _line_map(node: Any, path: str = "", out: dict[str, int] | None = None) -> dict[str, int]:
    """Spec path -> 1-based line, from a composed YAML node tree."""
    out = {} if out is None else out
    if node is None:
        return out
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            child = f"{path}.{k.value}" if path else str(k.value)
            out[child] = k.start_mark.line + 1
            _line_map(v, child, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _line_map(v, f"{path}[{i}]", out)
    return out


def _line_of(path: str, lines: dict[str, int]) -> int | None:
    """The line of a spec path, or of its nearest ancestor that the file has."""
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None


def _locate(problems: list[Problem], source: str, lines: dict[str, int]) -> list[Problem]:
    located = []
    for p in problems:
        line = _line_of(p.where, lines)
        where = f"{source}:{line} {p.where}" if line else f"{source} {p.where}"
        located.append(Problem(where, p.message, p.hint))
    return located


def check_spec_dict(data: Any) -> list[Problem]:
    """Every problem of a spec mapping (structure first; semantics once the structure is sound)."""
    problems = structure_problems(data)
    return problems or semantic_problems(data)


def spec_from_dict(data: Any, source: str = "<spec>", lines: dict[str, int] | None = None) -> Spec:
    """Validate a spec mapping and build the model; every problem is reported at once."""
    problems = check_spec_dict(data)
    if problems:
        n = len(problems)
        raise SpecError(f"{source}: {n} problem{'s' if n > 1 else ''} in the spec",
                        problems=_locate(problems, source, lines or {}),
                        hint="see spec-format.md; the JSON Schema blue_nb/spec/spec.schema.json checks files in editors")
    spec = _build(data)
    spec.source_path = source
    return spec


def _build(d: dict[str, Any]) -> Spec:
    t = d["table"]
    indexes = {n: Index(name=n, type=i["type"], partition_key=i.get("partition_key"), sort_key=i.get("sort_key"),
                        projection=i.get("projection", "all"), partition_key_type=i.get("partition_key_type", "S"),
                        sort_key_type=i.get("sort_key_type", "S"))
               for n, i in (t.get("indexes") or {}).items()}
    table = Table(partition_key=t["partition_key"], sort_key=t.get("sort_key"), name=t.get("name"),
                  partition_key_type=t.get("partition_key_type", "S"), sort_key_type=t.get("sort_key_type", "S"),
                  billing_mode=t.get("billing_mode", "PAY_PER_REQUEST"), read_capacity=t.get("read_capacity"),
                  write_capacity=t.get("write_capacity"), indexes=indexes)
    entities = {n: Entity(name=n, key=dict(e["key"]), attributes=dict(e.get("attributes") or {}),
                          source=e.get("source"), writer=e.get("writer"), description=e.get("description", ""))
                for n, e in d["entities"].items()}
    patterns = [_pattern(p) for p in d.get("access_patterns") or []]
    return Spec(domain=d["domain"], table=table, entities=entities, access_patterns=patterns,
                description=d.get("description", ""), spec_version=d["spec_version"])


def _pattern(p: dict[str, Any]) -> AccessPattern:
    kc = p.get("key_condition")
    cond = None
    if kc:
        op = next((k for k in SK_OPERATORS if k in kc), None)
        cond = KeyCondition(pk=kc["pk"], sk_op=op, sk_value=kc.get(op) if op else None)
    return AccessPattern(
        name=p["name"], operation=p["operation"], entities=list(p["entities"]),
        description=p.get("description", ""), index=p.get("index", "table"), key_condition=cond,
        consistent_read=p.get("consistent_read", False), limit=p.get("limit"),
        scan_forward=p.get("scan_forward", True), hot=p.get("hot", False),
        rate_per_second=p.get("rate_per_second", 0), key_distribution=p.get("key_distribution", "uniform"),
        joins=[Join(pattern=j["pattern"], params=dict(j.get("params") or {})) for j in p.get("joins") or []],
    )


def dumps_spec(spec: Spec, fmt: str = "yaml") -> str:
    """The spec as YAML or JSON text, fields in the contract's order."""
    d = spec.to_dict()
    if fmt == "json":
        return json.dumps(d, indent=2, ensure_ascii=False) + "\n"
    if fmt == "yaml":
        return yaml.safe_dump(d, sort_keys=False, allow_unicode=True, width=100)
    raise SpecError(f"unknown spec format {fmt!r}", hint="use 'yaml' or 'json'")


def dump_spec(spec: Spec, path: str | Path) -> Path:
    """Write the spec; the file's suffix (.json, or .yaml/.yml) chooses the format."""
    p = Path(path)
    p.write_text(dumps_spec(spec, "json" if p.suffix == ".json" else "yaml"), encoding="utf-8")
    return p
