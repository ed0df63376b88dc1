"""Read and write spec files (YAML or JSON), with file:line in every error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from blue_nb.errors import Problem, SpecError
from blue_nb.spec.model import (RULE_PROFILES, SK_OPERATORS, AccessPattern, Action, Entity, Filter, Index, Join, KeyCondition,
                                Spec, Table, line_of, named_pattern_path)
from blue_nb.spec.schema import structure_problems
from blue_nb.spec.validate import semantic_problems

__all__ = ["load_spec", "loads_spec", "spec_from_dict", "dump_spec", "dumps_spec", "check_spec_dict"]


#: A spec is a few KB; 1 MB (~25,000 lines) is far beyond any real one, and PyYAML reads it in about a second.
MAX_SPEC_BYTES = 1_000_000
#: Mapping/list nesting of a spec file; a real spec nests 6 deep (access_patterns[0].key_condition.sk_between[0]).
MAX_SPEC_NESTING = 32
_SYNTAX_HINT = "fix the syntax at that line (YAML, or JSON)"


def load_spec(path: str | Path) -> Spec:
    """Read, validate and build a spec from a ``.yaml``/``.yml``/``.json`` file (UTF-8, at most 1 MB)."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_SPEC_BYTES + 1)             # never more than the limit, whatever the file is
    except OSError as e:
        raise SpecError(f"cannot read spec file: {e.strerror}", where=str(p),
                        hint="check the path; spec files end in .yaml, .yml or .json", cause=e) from e
    _check_size(len(raw), str(p))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise SpecError(f"not UTF-8 text: byte 0x{raw[e.start]:02x} at line {line}, column {col} "
                        f"(byte offset {e.start})", where=f"{p}:{line}:{col}",
                        hint="a spec is YAML or JSON text saved as UTF-8, not a binary file", cause=e) from e
    return loads_spec(text, source=str(p))


def _check_size(n: int, source: str) -> None:
    if n > MAX_SPEC_BYTES:
        raise SpecError(f"the spec file is larger than {MAX_SPEC_BYTES:,} bytes", where=source,
                        hint="a spec declares a table, its entities and access patterns in a few KB; "
                             "is this the right file?")


class _SpecLoader(yaml.SafeLoader):
    """The safe loader, composing once, that refuses aliases and nesting deeper than the limit."""

    def __init__(self, text: str, source: str):
        super().__init__(text)
        self.source, self.depth = source, 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise _syntax_error(self.source, event.start_mark, f"YAML alias *{event.anchor} is not allowed in a spec",
                                "write the value out in full: anchors and aliases (&name, *name, <<) are refused, "
                                "so that every value has one place in the file and a small file stays small")
        self.depth += 1
        try:
            if self.depth > MAX_SPEC_NESTING:
                raise _syntax_error(self.source, self.peek_event().start_mark,
                                    f"nested more than {MAX_SPEC_NESTING} levels deep",
                                    "a spec nests at most a few levels (access_patterns[0].key_condition.sk); "
                                    "check the indentation and the brackets")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as e:        # e.g. date 2024-13-45, an integer of 5,000 digits
            raise yaml.constructor.ConstructorError(None, None, f"cannot read the value {str(node.value)[:40]!r}: {e}",
                                                    node.start_mark) from e


def _where(source: str, mark: Any) -> str:
    return f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source


def _syntax_error(source: str, mark: Any, msg: str, hint: str) -> SpecError:
    return SpecError(msg, where=_where(source, mark), hint=hint)


def loads_spec(text: str, source: str = "<spec>") -> Spec:
    """Parse spec text (YAML, of which JSON is a subset) and build the validated model.

    Refused with a located :class:`SpecError`: text over 1 MB, invalid syntax, control characters,
    aliases, nesting over 32 levels, duplicate keys and keys that are not strings."""
    _check_size(len(text), source)
    text = text[1:] if text.startswith("\ufeff") else text
    loader = None
    try:
        loader = _SpecLoader(text, source)          # the reader refuses control characters here
        node = loader.get_single_node()
        lines, problems = _walk(node) if node is not None else ({}, [])
        if problems:
            n = len(problems)
            raise SpecError(f"{source}: {n} problem{'s' if n > 1 else ''} in the spec's keys",
                            problems=[Problem(f"{source}:{line} {path}".rstrip(), msg, hint)
                                      for line, path, msg, hint in problems],
                            hint="each key appears once per mapping and is a string")
        data = loader.construct_document(node) if node is not None else None
    except yaml.reader.ReaderError as e:
        line = text.count("\n", 0, e.position) + 1
        col = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
        raise SpecError(f"character {chr(e.character)!r} (U+{e.character:04X}) is not allowed in a spec"
                        if isinstance(e.character, int) else f"not valid YAML/JSON: {e.reason}",
                        where=f"{source}:{line}:{col}", hint="remove it: a spec is plain text (no NUL or control "
                        "characters)", cause=e) from e
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = " ".join(t for t in (e.context, e.problem) if t) or str(e)
        hint = ("indent with spaces, not tabs" if "'\\t'" in problem else _SYNTAX_HINT if "cannot read the value"
                not in problem else 'write a valid value, or quote it ("...") to keep it as text')
        raise SpecError(f"not valid YAML/JSON: {problem}", where=_where(source, mark), hint=hint,
                        cause=e) from e
    except yaml.YAMLError as e:
        raise SpecError(f"not valid YAML/JSON: {e}", where=source, hint=_SYNTAX_HINT, cause=e) from e
    finally:
        if loader is not None:
            loader.dispose()
    if data is None:
        raise SpecError("the spec is empty: expected a mapping with spec_version, domain, table and entities",
                        where=source, hint="start from an example such as data/specs/dialogue.yaml")
    return spec_from_dict(data, source=source, lines=lines)


_STR_TAG = "tag:yaml.org,2002:str"


def _walk(node: Any, path: str = "", out: dict[str, int] | None = None,
          problems: list | None = None) -> tuple[dict[str, int], list[tuple[int, str, str, str]]]:
    """Spec path -> 1-based line, from the composed node tree (no alias: each node once), and the
    keys that would be lost or changed when constructed: duplicates and keys that are not strings."""
    out = {} if out is None else out
    problems = [] if problems is None else problems
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for k, v in node.value:
            line = k.start_mark.line + 1
            if not isinstance(k, yaml.ScalarNode) or k.tag != _STR_TAG:
                shown = k.value if isinstance(k, yaml.ScalarNode) else "a " + k.id
                problems.append((line, path, f"key {shown[:60]!r} is not a string",
                                 f'quote it ("{shown}") if it is a name; YAML reads yes/no/on/off/null/numbers '
                                 "as other types" if isinstance(k, yaml.ScalarNode) else "keys are plain names"))
                continue
            child = f"{path}.{k.value}" if path else str(k.value)
            if k.value in seen:
                problems.append((line, child, f"duplicate key {k.value!r}, first at line {seen[k.value]}",
                                 "merge the two or rename one: the second would silently replace the first"))
                continue
            seen[k.value] = line
            out[child] = line
            _walk(v, child, out, problems)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _walk(v, f"{path}[{i}]", out, problems)
    return out, problems


def _locate(problems: list[Problem], source: str, lines: dict[str, int], data: Any = None) -> list[Problem]:
    """Each problem at its file:line, an access pattern named as well as numbered (``access_patterns[5] (list_round)``)."""
    patterns = data.get("access_patterns") if isinstance(data, dict) else None
    names = [p.get("name") if isinstance(p, dict) else None for p in patterns] if isinstance(patterns, list) else []
    located = []
    for p in problems:
        line = line_of(p.where, lines)
        where = " ".join(w for w in (f"{source}:{line}" if line else source, named_pattern_path(p.where, names)) if w)
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
                        problems=_locate(problems, source, lines or {}, data),
                        hint="see spec-format.md; the JSON Schema blue_nb/spec/spec.schema.json checks files in editors")
    spec = _build(data)
    spec.source_path = source
    spec.source_lines = dict(lines or {})
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
                          source=e.get("source"), writer=e.get("writer"), description=e.get("description", ""),
                          allow_empty=e.get("allow_empty", False))
                for n, e in d["entities"].items()}
    patterns = [_pattern(p) for p in d.get("access_patterns") or []]
    return Spec(domain=d["domain"], table=table, entities=entities, access_patterns=patterns,
                description=d.get("description", ""), spec_version=d["spec_version"],
                rules=d.get("rules", RULE_PROFILES[0]), inferred=dict(d.get("inferred") or {}),
                generate=dict(d.get("generate") or {}), stamp=dict(d["stamp"]) if d.get("stamp") else None)


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
        actions=[Action(pattern=a["pattern"], params=dict(a.get("params") or {}), check=a.get("check", False))
                 for a in p.get("actions") or []],
        total_segments=p.get("total_segments"),
        filter=Filter(expression=p["filter"]["expression"], values=dict(p["filter"].get("values") or {}))
        if p.get("filter") else None,
        select=p.get("select"), projection=list(p.get("projection") or []),
        condition=Filter(expression=p["condition"]["expression"], values=dict(p["condition"].get("values") or {}))
        if p.get("condition") else None,
        return_values_on_condition_check_failure=p.get("return_values_on_condition_check_failure", "NONE"),
        update=Filter(expression=p["update"]["expression"], values=dict(p["update"].get("values") or {}))
        if p.get("update") else None,
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
