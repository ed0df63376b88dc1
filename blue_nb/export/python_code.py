"""The ``python`` export: a small, readable Python package that runs a spec's access patterns, and nothing else,
on the laptop's SQLite (ADR 0018's table) and on DynamoDB (boto3), with DynamoDB's semantics on both.

:func:`python_package` turns a checked spec into files (path -> text): a dataclass per entity typed by the
spec's DynamoDB types, key builders and parsers made from the key templates, one method per access pattern
on an access class, the design's digest and validation stamp with a start-up check, the shared runtime
(``python_runtime.txt``: values, key order, filters, updates, pages, the two backends), a ``pyproject.toml``
and tests beside the package. The generated code imports the standard library and boto3 only: each
pattern's plan (:func:`blue_nb.patterns.plan`) is written into it as data (the boto3 request without its
values, the filter, condition and update as trees), never imported from blue_nb. A transaction or a batch
is one method that sends an ``rt.Call`` of each action's pattern in one backend call (``transact_write``,
``transact_get``, ``batch_get``, ``batch_write``).

A pattern the generator cannot run the same way on both backends is refused with :class:`ExportRefused`
naming its spec path. Pure (layer 2): the fixture the tests check against (sample items and blue_nb's own
answers) is made by :mod:`blue_nb.app.python_export` and handed in as ``ctx.data``.
"""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Iterator

from blue_nb.errors import QueryError
from blue_nb.export.base import ExportContext, ExportRefused, content_hash, version
from blue_nb.layout import catalog_table_sql, main_table_sql
from blue_nb.patterns import create_table_request, plan
from blue_nb.spec import AccessPattern, Entity, KeyTemplate, Spec
from blue_nb.spec.expressions import (And, Arith, Between, Compare, Function, In, Not, Or, Path, Size, UpdateFunction,
                                      Value, parse_update)
from blue_nb.spec.templates import SEPARATOR, Placeholder

__all__ = ["PACKAGE_FILES", "package_name", "python_package", "runtime_text"]

_INT_TYPES = set("bcdoxXn")
_FLOAT_TYPES = set("eEfFgG%")
_PY_TYPES = {"S": "str", "N": "Decimal", "B": "bytes", "BOOL": "bool", "NULL": "None", "L": "list[Any]",
             "M": "dict[str, Any]", "SS": "set[str]", "NS": "set[Decimal]", "BS": "set[bytes]"}
_KEY_TYPES = {"S": "str", "N": "Decimal", "B": "bytes"}

#: the files of a package, {pkg} its import name
PACKAGE_FILES = ("pyproject.toml", "README.md", "{pkg}/__init__.py", "{pkg}/py.typed", "{pkg}/design.py",
                 "{pkg}/keys.py", "{pkg}/entities.py", "{pkg}/access.py", "{pkg}/runtime.py", "tests/fixture.json",
                 "tests/test_{pkg}.py")


def runtime_text() -> str:
    """The runtime module every generated package carries (the same text for every spec)."""
    return resources.files("blue_nb.export").joinpath("python_runtime.txt").read_text(encoding="utf-8")


def package_name(spec: Spec) -> str:
    """The import name of a spec's package: ``{domain}_access``."""
    return f"{spec.domain}_access"


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part) or "X"


def _snake(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    s = re.sub(r"[^A-Za-z0-9_]+", "_", s).strip("_").lower()
    return s or "x"


def _ident(name: str, taken: set[str]) -> str:
    """A Python identifier for ``name`` (an attribute or placeholder), not a keyword, not in ``taken``."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out or out[0].isdigit():
        out = "a_" + out
    while keyword.iskeyword(out) or out in taken or out.startswith("__"):
        out += "_"
    taken.add(out)
    return out


def _lit(value: Any) -> str:
    """A Python literal (strings as repr, tuples kept)."""
    if isinstance(value, tuple):
        inner = ", ".join(_lit(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_lit(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_lit(k)}: {_lit(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _doc(text: str) -> str:
    """``text`` as a docstring: backslashes and quotes that would end it escaped."""
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return '"""' + body + (" " if body.endswith('"') else "") + '"""'


def _wrapped(text: str, indent: int, width: int = 116) -> str:
    """A literal broken after its ", " (outside string literals) to fit ``width``."""
    if len(text) + indent <= width:
        return text
    parts, cur, quote, escaped = [], "", "", False
    for i, ch in enumerate(text):
        cur += ch
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == " " and i and text[i - 1] == ",":
            parts.append(cur)
            cur = ""
    parts.append(cur)
    out, line = [], ""
    for part in parts:
        if line and len(line) + len(part) + indent + 4 > width:
            out.append(line.rstrip())
            line = ""
        line += part
    out.append(line)
    return ("\n" + " " * (indent + 4)).join(out)


def _used(body: str, name: str) -> bool:
    """Whether ``body`` uses ``name`` (an import is written only when it is)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", body) is not None


def _module(doc: str, imports: list[tuple[str, str]], body: list[str]) -> str:
    """A module: its docstring, the imports its body uses (``(name, import line)``; name "" always), its body."""
    text = "\n".join(body)
    lines = [doc, "", "from __future__ import annotations", ""]
    std = [line for name, line in imports if (not name or _used(text, name)) and not line.startswith("from .")]
    local = [line for name, line in imports if (not name or _used(text, name)) and line.startswith("from .")]
    for group in (std, local):
        if group:
            lines += [*group, ""]
    while body and not body[0].strip():
        body = body[1:]
    if body and body[0].startswith(("def ", "class ", "@")):
        lines.append("")
    return "\n".join(lines + body).rstrip() + "\n"


# -- entities and their keys ---------------------------------------------------------------------------

@dataclass
class _Field:
    name: str             # the Python name
    source: str           # the placeholder or attribute name
    type: str             # the Python type
    required: bool
    attribute: str | None  # the item attribute it is stored in (None: a placeholder only)


@dataclass
class _EntityCode:
    entity: Entity
    cls: str
    fields: dict[str, _Field] = field(default_factory=dict)     # source name -> field
    other: str = "other_attributes"
    key_attrs: list[str] = field(default_factory=list)          # table keys first
    builders: dict[str, str] = field(default_factory=dict)      # key attribute -> builder function


def _placeholder_type(p: Placeholder) -> str:
    kind = p.fmt[-1:] if p.fmt else ""
    return "int" if kind in _INT_TYPES else "Decimal" if kind in _FLOAT_TYPES else "str"


def _entity_code(spec: Spec, e: Entity) -> _EntityCode:
    t = spec.table
    code = _EntityCode(e, _camel(e.name))
    table_keys = [a for a in (t.partition_key, t.sort_key) if a]
    code.key_attrs = [a for a in table_keys if a in e.key] + [a for a in e.key if a not in table_keys]
    taken = {"keys", "to_item", "from_item", "ENTITY", "KEY_ATTRIBUTES"}
    for attr in code.key_attrs:
        for p in e.templates[attr].parts:
            if not isinstance(p, Placeholder) or p.name in code.fields:
                continue
            typ = _PY_TYPES.get(e.attributes[p.name], "Any") if p.name in e.attributes else _placeholder_type(p)
            code.fields[p.name] = _Field(_ident(p.name, taken), p.name, typ, attr in table_keys,
                                         p.name if p.name in e.attributes else None)
    for name, typ in e.attributes.items():
        if name not in code.fields and name not in e.key:
            code.fields[name] = _Field(_ident(name, taken), name, _PY_TYPES.get(typ, "Any"), False, name)
    code.other = _ident("other_attributes", taken)
    return code


def _render_expr(t: KeyTemplate, arg: dict[str, tuple[str, str]]) -> str:
    """An f-string (or a constant) rendering ``t``; ``arg``: placeholder -> (Python expression, its type)."""
    if t.is_constant:
        return repr(t.text)
    body = []
    for p in t.parts:
        if isinstance(p, str):
            body.append(p.replace("{", "{{").replace("}", "}}").replace("\\", "\\\\").replace('"', '\\"')
                        .replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"))
            continue
        expr, typ = arg[p.name]
        kind = p.fmt[-1:] if p.fmt else ""
        conversion = ""
        if kind in _INT_TYPES:
            expr = expr if typ == "int" else f"int({expr})"
        elif kind in _FLOAT_TYPES:
            expr = expr if typ == "Decimal" else f"Decimal({expr})"
        elif p.fmt and typ != "str":
            conversion = "!s"
        elif not p.fmt and typ == "bool":
            expr = f"rt.plain({expr})"
        elif not p.fmt and typ == "bytes":
            expr = f"{expr}.decode()"
        body.append("{" + expr + conversion + (":" + p.fmt if p.fmt else "") + "}")
    return 'f"' + "".join(body) + '"'


def _key_type(spec: Spec, attr: str) -> str:
    t = spec.table
    if attr == t.partition_key:
        return t.partition_key_type
    if attr == t.sort_key:
        return t.sort_key_type
    for ix in t.indexes.values():
        if ix.partition_key == attr and ix.type == "global":
            return ix.partition_key_type
        if ix.sort_key == attr:
            return ix.sort_key_type
    return "S"


def _typed_key(expr: str, key_type: str) -> str:
    """A rendered key template as a key value of ``key_type``: a number (N) or its UTF-8 bytes (B)."""
    if key_type == "N":
        return f"rt.number({expr})"
    return f"{expr}.encode()" if key_type == "B" else expr


def _keys_module(spec: Spec, codes: dict[str, _EntityCode]) -> str:
    doc = (f'"""Key builders and parsers of {spec.domain}, made from its key templates (their padding and the '
           f'{SEPARATOR!r} separator).\n\nA builder renders a key from its values; a parser gives the values back '
           'from a key, as text, or None\nwhen the key does not fit the template."""')
    lines: list[str] = []
    for code in codes.values():
        e = code.entity
        for attr in code.key_attrs:
            t = e.templates[attr]
            fn = f"{_snake(e.name)}_{_snake(attr)}"
            code.builders[attr] = fn
            args = [(code.fields[n].name, code.fields[n].type) for n in t.placeholders]
            sig = ", ".join(f"{a}: {ty}" for a, ty in args)
            kt = _key_type(spec, attr)
            arg = {n: (code.fields[n].name, code.fields[n].type) for n in t.placeholders}
            lines += ["", f"def {fn}({sig}) -> {_KEY_TYPES.get(kt, 'str')}:",
                      f"    {_doc(f'{e.name}.{attr}: {t.text}')}",
                      f"    return {_typed_key(_render_expr(t, arg), kt)}", ""]
            if t.placeholders:
                rx = f"_{fn.upper()}"
                lines += [f"{rx} = re.compile({t.regex.pattern!r}, re.DOTALL)", "", "",
                          f"def parse_{fn}(key: str) -> dict[str, str] | None:",
                          "    " + _doc(f"The values of {t.text} in ``key``, or None."),
                          f"    m = {rx}.fullmatch(key)",
                          "    return None if m is None else {" + ", ".join(
                              f"{n!r}: m.group('g{i}')" for i, n in enumerate(t.placeholders)) + "}", ""]
    return _module(doc, [("re", "import re"), ("Decimal", "from decimal import Decimal"),
                         ("rt", "from . import runtime as rt")], lines[1:])


def _from_text(f: _Field, expr: str) -> str:
    if f.type == "int":
        return f"int({expr})"
    if f.type == "Decimal":
        return f"Decimal({expr})"
    if f.type == "bytes":
        return f"{expr}.encode()"
    return expr


def _entities_module(spec: Spec, codes: dict[str, _EntityCode]) -> str:
    doc = (f'"""The entities of {spec.domain}: one dataclass per entity, its attributes typed as DynamoDB types '
           '(S str, N Decimal,\nB bytes, BOOL bool, L list, M dict, SS/NS/BS sets). ``keys()`` builds its key '
           'attributes from the key\ntemplates; ``to_item()`` is the item; ``from_item()`` reads one back (None '
           'when its keys do not fit).\nAttributes the spec does not declare (and NULL values) ride along in '
           '``other_attributes``."""')
    out: list[str] = []
    for code in codes.values():
        e = code.entity
        fields = list(code.fields.values())
        req = [f for f in fields if f.required]
        opt = [f for f in fields if not f.required]
        out += ["", "@dataclass", f"class {code.cls}:", "    " + _doc(e.description or f"An item of entity {e.name}"), "",
                f"    ENTITY: ClassVar[str] = {e.name!r}",
                f"    KEY_ATTRIBUTES: ClassVar[tuple[str, ...]] = {_lit(tuple(code.key_attrs))}", ""]
        out += [f"    {f.name}: {f.type}" for f in req]
        out += [f"    {f.name}: {f.type} | None = None" if f.type not in ("None", "Any") else f"    {f.name}: Any = None"
                for f in opt]
        out += [f"    {code.other}: dict[str, Any] = field(default_factory=dict)", ""]
        # keys()
        out += ["    def keys(self) -> rt.Item:", '        """The key attributes: the table\'s, and each index\'s '
                'whose values are known."""']
        always = [a for a in code.key_attrs if all(code.fields[n].required for n in e.templates[a].placeholders)]
        out.append("        out: rt.Item = {" + ", ".join(
            f"{a!r}: k.{code.builders[a]}(" + ", ".join(f"self.{code.fields[n].name}" for n in e.templates[a].placeholders)
            + ")" for a in always) + "}")
        for a in code.key_attrs:
            if a in always:
                continue
            names = [code.fields[n].name for n in e.templates[a].placeholders if not code.fields[n].required]
            cond = " and ".join(f"self.{n} is not None and self.{n} != \"\"" for n in names)
            out += [f"        if {cond}:",
                    f"            out[{a!r}] = k.{code.builders[a]}(" + ", ".join(
                        f"self.{code.fields[n].name}" for n in e.templates[a].placeholders) + ")"]
        out += ["        return out", ""]
        # to_item()
        attrs = [f for f in fields if f.attribute is not None]
        out += ["    def to_item(self) -> rt.Item:", '        """The item: its keys, its attributes, the others."""',
                "        item = self.keys()"]
        for f in attrs:
            out += [f"        if self.{f.name} is not None:", f"            item[{f.attribute!r}] = self.{f.name}"]
        out += [f"        item.update(self.{code.other})", "        return item", ""]
        # from_item()
        out += ["    @classmethod", f"    def from_item(cls, item: Mapping[str, Any]) -> {code.cls} | None:",
                '        """The entity an item holds, or None when its keys do not fit this entity\'s templates."""',
                "        got: dict[str, str] = {}"]
        for a in code.key_attrs:
            t = e.templates[a]
            if not t.placeholders:
                continue
            out += [f"        if {a!r} in item:",
                    f"            values = k.parse_{code.builders[a]}(rt.key_text(item[{a!r}]))",
                    "            if values is None:", "                return None",
                    "            got = {**values, **got}   # the table's keys first; to_item() below checks they agree"]
        for f in req:
            out += [f"        if {f.source!r} not in got:", "            return None"]
        out += ["        try:", "            entity = cls("]
        for f in fields:
            parsed = _from_text(f, f"got[{f.source!r}]")
            if f.attribute is not None and f.source in code.fields and any(
                    f.source in e.templates[a].placeholders for a in code.key_attrs):
                fallback = (parsed if f.required else f"got.get({f.source!r})" if parsed == f"got[{f.source!r}]"
                            else f"({parsed} if {f.source!r} in got else None)")
                value = f"item[{f.attribute!r}] if item.get({f.attribute!r}) is not None else {fallback}"
            elif f.attribute is not None:
                value = f"item.get({f.attribute!r})"
            elif not f.required and parsed == f"got[{f.source!r}]":
                value = f"got.get({f.source!r})"
            else:
                value = parsed if f.required else f"{parsed} if {f.source!r} in got else None"
            out.append(f"                {f.name}={value},")
        known = sorted(set(code.key_attrs) | {f.attribute for f in attrs if f.attribute})
        out += [f"                {code.other}={{n: v for n, v in item.items() if n not in {_lit(tuple(known))} "
                f"or (v is None and n not in {_lit(tuple(code.key_attrs))})}},",
                "            )", "        except (ValueError, ArithmeticError):", "            return None",
                "        if rt.canonical(entity.to_item()) != rt.canonical(item):   # it must give back this item, exactly",
                "            return None", "        return entity", ""]
    out += ["", "#: every entity of the design", "AnyEntity: TypeAlias = " + " | ".join(c.cls for c in codes.values()),
            "ENTITIES: tuple[type[AnyEntity], ...] = (" + ", ".join(c.cls for c in codes.values()) + ",)", ""]
    return _module(doc, [("Mapping", "from collections.abc import Mapping"),
                         ("", "from dataclasses import dataclass, field"), ("Decimal", "from decimal import Decimal"),
                         ("", "from typing import Any, ClassVar, TypeAlias"), ("k", "from . import keys as k"),
                         ("rt", "from . import runtime as rt")], out[1:])


# -- access patterns -----------------------------------------------------------------------------------

def _tree(node: Any, prefix: str) -> Any:
    """A condition, operand or update value as the runtime's tuples (its ``:values`` named ``:{prefix}_{name}``)."""
    if isinstance(node, (And, Or)):
        return ("and" if isinstance(node, And) else "or", _tree(node.left, prefix), _tree(node.right, prefix))
    if isinstance(node, Not):
        return ("not", _tree(node.operand, prefix))
    if isinstance(node, Compare):
        return ("cmp", node.op, _tree(node.left, prefix), _tree(node.right, prefix))
    if isinstance(node, Between):
        return ("between", _tree(node.operand, prefix), _tree(node.low, prefix), _tree(node.high, prefix))
    if isinstance(node, In):
        return ("in", _tree(node.operand, prefix), tuple(_tree(o, prefix) for o in node.options))
    if isinstance(node, Function):
        return ("fn", node.name, tuple(_tree(a, prefix) for a in node.args))
    if isinstance(node, Path):
        return ("path", tuple(node.parts))
    if isinstance(node, Value):
        return ("value", f":{prefix}_{node.name}")
    if isinstance(node, Size):
        return ("size", tuple(node.path.parts))
    if isinstance(node, Arith):
        return ("arith", node.op, _tree(node.left, prefix), _tree(node.right, prefix))
    if isinstance(node, UpdateFunction):
        if node.name == "if_not_exists":
            return ("if_not_exists", tuple(node.args[0].parts), _tree(node.args[1], prefix))
        return ("list_append", _tree(node.args[0], prefix), _tree(node.args[1], prefix))
    raise TypeError(f"not an expression node: {node!r}")


def _update_tree(actions: list, prefix: str) -> tuple:
    out = []
    for a in actions:
        if a.clause == "SET":
            out.append(("SET", tuple(a.path.parts), _tree(a.value, prefix)))
        elif a.clause == "REMOVE":
            out.append(("REMOVE", tuple(a.path.parts)))
        else:
            out.append((a.clause, tuple(a.path.parts), f":{prefix}_{a.value.name}"))
    return tuple(out)


def _sample_params(p: AccessPattern) -> Iterator[dict[str, str]]:
    for value in ("1", "S"):
        yield {n: value for n in p.parameters}


def _planned(spec: Spec, p: AccessPattern, where: str):
    last: Exception | None = None
    for params in _sample_params(p):
        try:
            return plan(spec, p, params)
        except QueryError as e:
            last = e
    raise ExportRefused(f"python export refused: {p.name} cannot be planned with sample values ({last})",
                        where=where, hint="check the pattern with blue-nb query first")


@dataclass
class _Param:
    name: str      # the spec's parameter
    py: str        # the Python name
    type: str


def _param_types(p: AccessPattern) -> dict[str, str]:
    """Parameter -> its Python type: int or Decimal where a key template formats it as a number, else str."""
    out: dict[str, str] = {}
    templates: list[KeyTemplate] = []
    if p.key_condition:
        templates += [p.key_condition.pk_template, *p.key_condition.sk_templates]
    for f in (p.filter, p.condition, p.update):
        if f is not None:
            templates += [t for ts in f.value_templates().values() for t in ts]
    for t in templates:
        for part in t.parts:
            if isinstance(part, Placeholder) and part.fmt:
                out.setdefault(part.name, _placeholder_type(part))
    return {n: out.get(n, "str") for n in p.parameters}


def _value_expr(value: Any, arg: dict[str, tuple[str, str]]) -> str:
    """A filter, condition or update value as a Python expression (strings are key templates)."""
    if isinstance(value, dict):
        (tag, body), = value.items()
        if tag in ("SS", "NS", "BS"):
            inner = {"SS": "S", "NS": "N", "BS": "B"}[tag]
            return "{" + ", ".join(_value_expr({inner: b}, arg) for b in body) + "}"
        if tag in ("BOOL", "NULL"):
            return repr(bool(body)) if tag == "BOOL" else "None"
        text = _render_expr(KeyTemplate(str(body)), arg)
        return _typed_key(text, tag)
    if isinstance(value, str):
        return _render_expr(KeyTemplate(value), arg)
    if isinstance(value, bool) or value is None:
        return repr(value)
    return f"rt.number({str(value)!r})"


def _returns_parts(spec: Spec, p: AccessPattern) -> bool:
    """Whether a read returns parts of items (a projection, COUNT, an index that does not project all)."""
    index = spec.table.indexes.get(p.index)
    return bool(p.projection) or p.select in ("COUNT", "SPECIFIC_ATTRIBUTES") or (
        index is not None and index.projection != "all" and p.select != "ALL_ATTRIBUTES")


def _only_its_entities(spec: Spec, p: AccessPattern) -> bool:
    """True when no item of another entity can be in the pattern's key range (checked on the templates' literal
    text: a constant partition key that differs, a sort-key prefix that differs, an entity not in the index)."""
    pk_attr, sk_attr = spec.key_attributes(p.index)
    kc = p.key_condition
    if kc is None or p.operation == "scan":
        return len(spec.entities) == len(p.entities)
    mine = set(p.entities)
    for e in spec.entities.values():
        if e.name in mine or pk_attr not in e.key or (sk_attr and sk_attr not in e.key):
            continue
        ept = e.templates[pk_attr]
        if kc.pk_template.is_constant and ept.is_constant and kc.pk_template.text != ept.text:
            continue
        if kc.pk_template.prefix and ept.prefix and not (kc.pk_template.prefix.startswith(ept.prefix)
                                                         or ept.prefix.startswith(kc.pk_template.prefix)):
            continue
        if kc.sk_op in ("sk", "sk_begins_with") and sk_attr:
            cond, est = kc.sk_templates[0].prefix, e.templates[sk_attr].prefix
            if kc.sk_op == "sk" and kc.sk_templates[0].is_constant and e.templates[sk_attr].is_constant:
                if cond != e.templates[sk_attr].text:
                    continue
            elif cond and est and not (cond.startswith(est) or est.startswith(cond)):
                continue
        return False
    return True


def _method(spec: Spec, p: AccessPattern, codes: dict[str, _EntityCode], where: str) -> tuple[list[str], str]:
    """The access method of a pattern, and the Operation it runs (as code; "" for a transaction or a batch,
    which runs its actions' Operations)."""
    if p.is_composite:
        return _composite_method(spec, p, codes, where), ""
    planned = _planned(spec, p, where)
    req = planned.request
    if req.fetch:
        raise ExportRefused(f"python export refused: {p.name} reads local index {p.index} and fetches each item from "
                            "the table, which the embedded endpoint does not answer as DynamoDB does",
                            where=where + ".projection", hint="project what it asks for into the index")
    if not p.is_read and len(p.entities) != 1:
        raise ExportRefused(f"python export refused: {p.name} writes {len(p.entities)} entities; a write names one",
                            where=where + ".entities", hint="split the pattern into one write per entity")
    method, kwargs = planned.boto3
    static = {k: v for k, v in kwargs.items() if k not in ("TableName", "Key", "Item", "ExpressionAttributeValues",
                                                          "ExclusiveStartKey")}
    if p.operation == "update_item" and p.update is None:
        static = {k: v for k, v in static.items() if k != "UpdateExpression"}
    op_args = [f"name={p.name!r}", f"kind={p.operation!r}", f"index={None if p.index == 'table' else p.index!r}",
               f"pk={req.pk_attr!r}", f"sk={req.sk_attr!r}", f"pk_type={req.pk_type!r}", f"sk_type={req.sk_type!r}"]
    if req.sk_op and p.operation == "query":
        op_args.append(f"sk_op={req.sk_op!r}")
    if req.limit:
        op_args.append(f"limit={req.limit!r}")
    if not req.forward:
        op_args.append("forward=False")
    if req.select != "ALL_ATTRIBUTES":
        op_args.append(f"select={req.select!r}")
    if req.paths:
        op_args.append(f"paths={_lit(tuple(tuple(x.parts) for x in req.paths))}")
    if p.filter is not None:
        op_args.append(f"filter={_lit(_tree(p.filter.tree, 'f'))}")
    if p.condition is not None:
        op_args.append(f"condition={_lit(_tree(p.condition.tree, 'c'))}")
    if p.update is not None:
        op_args.append(f"update={_lit(_update_tree(parse_update(p.update.expression), 'u'))}")
    if req.return_old_on_failure:
        op_args.append("return_old_on_failure=True")
    op_args.append(f"request={_lit(static)}")
    operation = f"    {p.name!r}: rt.Operation(\n        " + ",\n        ".join(
        _wrapped(a, 8) for a in op_args) + ",\n    ),"

    # parameters
    types = _param_types(p)
    taken = {"self", "cursor", "item", "call", "values", "rt", "k", "e"}
    params = [_Param(n, _ident(n, taken), types[n]) for n in p.parameters]
    entity = codes[p.entities[0]] if p.entities else None
    arg: dict[str, tuple[str, str]] = {x.name: (x.py, x.type) for x in params}
    sig: list[str] = []
    if p.operation == "put_item" and entity is not None:       # the key's values come from the entity
        for n in p.key_condition.placeholders if p.key_condition else []:
            f = entity.fields.get(n)
            if f is not None:
                arg[n] = (f"item.{f.name}" if f.required else f"rt.required(item.{f.name}, {n!r})", f.type)
        sig.append(f"item: {entity.cls}")
        rest = [x for x in params if x.name not in entity.fields]
    else:
        rest = params
    if rest:
        sig += ([] if p.operation != "put_item" else ["*"]) + [f"{x.py}: {x.type}" for x in rest]
    kc = p.key_condition
    pk_expr = _typed_key(_render_expr(kc.pk_template, arg), req.pk_type) if kc else "None"
    sk_exprs = [_typed_key(_render_expr(t, arg), req.sk_type) for t in kc.sk_templates] if kc else []
    values: list[str] = []
    for prefix, f in (("f", p.filter), ("c", p.condition), ("u", p.update)):
        if f is not None:
            values += [f"{f':{prefix}_{n}'!r}: {_value_expr(v, arg)}" for n, v in f.values.items()]
    call = [f"OPERATIONS[{p.name!r}]", f"pk={pk_expr}"]
    if sk_exprs:
        call.append(f"sk=({', '.join(sk_exprs)},)")
    if values:
        call.append("values={" + ", ".join(values) + "}")
    doc = p.description or p.name
    where_read = f"{p.operation}" + (f" on {p.index}" if p.index != "table" else "")
    shown = ""
    if kc:
        shown = f"{kc.pk}" + (f", {kc.sk_op} {kc.sk_value}" if kc.sk_op else "")
    lines: list[str] = []
    if p.is_read:
        parts = _returns_parts(spec, p)
        if p.operation == "get_item":
            ret = "rt.Item | None" if parts else (
                " | ".join(codes[n].cls for n in p.entities) if _only_its_entities(spec, p) else "AnyEntity") + " | None"
            lines += [f"    def {p.name}(self{', ' if sig else ''}{', '.join(sig)}) -> {ret}:",
                      "        " + _doc(f"{doc} ({where_read}: {shown})."),
                      f"        page = self.backend.read(rt.Call({', '.join(call)}))",
                      "        if not page.items:", "            return None"]
            if parts:
                lines += ["        return page.items[0]", ""]
            else:
                classes = ", ".join(codes[n].cls for n in p.entities)
                got = f"_decode(page.items[0], ({classes},))"
                lines += [f"        found: {' | '.join(codes[n].cls for n in p.entities)} = {got}"
                          if _only_its_entities(spec, p) else f"        found: AnyEntity = {got}",
                          "        return found", ""]
            return lines, operation
        if parts:
            item_type = "rt.Item"
        elif _only_its_entities(spec, p):
            item_type = " | ".join(codes[n].cls for n in p.entities)
        else:
            item_type = "AnyEntity"
        call.append("start=rt.decode_cursor(cursor)")
        classes = ", ".join(codes[n].cls for n in p.entities)
        sig.append("cursor: str | None = None")
        lines += [f"    def {p.name}(self, {', '.join(_kw_cursor(sig))}) -> rt.Page[{item_type}]:",
                  "        " + _doc(f"{doc} ({where_read}: {shown or 'every item'}); ``cursor``: a page's cursor, to read on."),
                  f"        page = self.backend.read(rt.Call({', '.join(call)}))"]
        if parts:
            lines.append(f"        items: list[{item_type}] = page.items")
        else:
            lines.append(f"        items: list[{item_type}] = [_decode(i, ({classes},)) for i in page.items]")
        lines += ["        return rt.Page(items, rt.encode_cursor(page.last_key), page.count, page.scanned_count)", ""]
        return lines, operation
    assert entity is not None
    call.append(f"entity={entity.entity.name!r}")
    if p.operation == "put_item":
        call.append("item=item.to_item()")
    extra: list[str] = []
    if p.operation == "update_item" and p.update is None:       # set the entity's attributes given, and the keys they make
        attrs = [f for f in entity.fields.values() if f.attribute is not None and f.source not in arg]
        sig += ["*"] + [f"{f.name}: {f.type} | None = None" if f.type not in ("None", "Any") else f"{f.name}: Any = None"
                        for f in attrs]
        extra += ["        sets: rt.Item = {}"]
        for f in attrs:
            extra += [f"        if {f.name} is not None:", f"            sets[{f.attribute!r}] = {f.name}"]
        known = {f.source: f.name for f in attrs}
        for a in entity.key_attrs:
            if a in (req.pk_attr, req.sk_attr) or a in (spec.table.partition_key, spec.table.sort_key):
                continue
            names = entity.entity.templates[a].placeholders
            if not names or not all(n in known or n in arg for n in names):
                continue
            missing = [known[n] for n in names if n in known]
            args = ", ".join(known[n] if n in known else arg[n][0] for n in names)
            extra += [f"        if {' and '.join(f'{m} is not None' for m in missing)}:",
                      f"            sets[{a!r}] = k.{entity.builders[a]}({args})"]
        extra += ["        update, set_values = rt.set_update(sets)"]
        call.append("update=update")
        if values:
            call[call.index("values={" + ", ".join(values) + "}")] = "values={" + ", ".join(values) + ", **set_values}"
        else:
            call.append("values=set_values")
    fail = "; raises rt.ConditionFailed when its condition does not hold" if p.condition else ""
    lines += [f"    def {p.name}(self{', ' if sig else ''}{', '.join(sig)}) -> None:",
              "        " + _doc(f"{doc} ({where_read}: {shown}){fail}."), *extra,
              f"        self.backend.write(rt.Call({', '.join(call)}))", ""]
    return lines, operation


#: what a transaction or a batch returns or does, for its docstring
_COMPOSITE_DOC = {
    "transact_write_items": "all of its actions or none; raises rt.TransactionCanceled, with the reason of each "
                            "action, when one condition fails",
    "transact_get_items": "the item at each action's key, in action order, None where there is none, read as one",
    "batch_get_item": "the item at each action's key, in action order, None where there is none (UnprocessedKeys "
                      "sent again with a backoff)",
    "batch_write_item": "each put or delete (UnprocessedItems sent again with a backoff)",
}
_COMPOSITE_CALL = {"transact_write_items": "transact_write", "transact_get_items": "transact_get",
                   "batch_get_item": "batch_get", "batch_write_item": "batch_write"}


def _composite_types(spec: Spec, p: AccessPattern) -> dict[str, str]:
    """A transaction's or a batch's parameter -> its Python type: the type of the action parameter it is given
    to whole (``{x}``), else str."""
    out: dict[str, str] = {}
    for a in p.actions:
        types = _param_types(spec.pattern(a.pattern))
        for n, text in a.params.items():
            m = re.fullmatch(r"\{(\w+)\}", text)
            if m and n in types:
                out.setdefault(m.group(1), types[n])
    return {n: out.get(n, "str") for n in p.parameters}


def _puts(spec: Spec, p: AccessPattern, codes: dict[str, _EntityCode], taken: set[str]) -> dict[int, tuple[str, str]]:
    """Action index -> (the argument that gives the item it puts, its entity class)."""
    actions = [(i, spec.pattern(a.pattern)) for i, a in enumerate(p.actions)]
    puts = [(i, ap) for i, ap in actions if ap.operation == "put_item" and not p.actions[i].check]
    out: dict[int, tuple[str, str]] = {}
    for i, ap in puts:
        name = _snake(ap.entities[0])
        same = sum(1 for _, other in puts if other.entities[0] == ap.entities[0])
        out[i] = (_ident(name if same == 1 else f"{name}_{i}", taken), codes[ap.entities[0]].cls)
    return out


def _composite_method(spec: Spec, p: AccessPattern, codes: dict[str, _EntityCode], where: str) -> list[str]:
    """The method of a transaction or a batch: one backend call that sends every action's rt.Call."""
    types = _composite_types(spec, p)
    taken = {"self", "cursor", "item", "call", "values", "rt", "k", "e", "found", "sets"}
    pys = {n: _ident(n, taken) for n in p.parameters}
    comp_arg = {n: (pys[n], types[n]) for n in p.parameters}
    puts = _puts(spec, p, codes, taken)
    calls: list[str] = []
    returns: list[tuple[str, str]] = []          # a read's (return type, decoding of found[i]) per action
    for i, a in enumerate(p.actions):
        ap = spec.pattern(a.pattern)
        at = f"{where}.actions[{i}]"
        if ap.operation == "update_item" and ap.update is None:
            raise ExportRefused(f"python export refused: {p.name} calls {ap.name}, an update_item without an update "
                                "expression, whose attributes each caller gives: a transaction cannot take them",
                                where=at, hint=f"give {ap.name} an update expression, or call it on its own")
        planned = _planned(spec, ap, at)
        req = planned.request
        if p.operation == "batch_get_item" and req.paths and not all(
                any(tuple(x.parts) == (attr,) for x in req.paths) for attr in (req.pk_attr, req.sk_attr) if attr):
            raise ExportRefused(f"python export refused: {p.name} calls {ap.name}, whose projection leaves out the "
                                "table's keys: the items a BatchGetItem returns could not be told apart",
                                where=at, hint="add the table's key attributes to its projection")
        arg: dict[str, tuple[str, str]] = {}
        for n, text in a.params.items():
            m = re.fullmatch(r"\{(\w+)\}", text)
            arg[n] = comp_arg[m.group(1)] if m and m.group(1) in comp_arg else (
                _render_expr(KeyTemplate(text), comp_arg), "str")
        kc = ap.key_condition
        call = [f"OPERATIONS[{ap.name!r}]"]
        if kc:
            call.append(f"pk={_typed_key(_render_expr(kc.pk_template, arg), req.pk_type)}")
            if kc.sk_templates:
                call.append(f"sk=({', '.join(_typed_key(_render_expr(t, arg), req.sk_type) for t in kc.sk_templates)},)")
        values: list[str] = []
        for prefix, f in (("f", ap.filter), ("c", ap.condition), ("u", ap.update)):
            if f is not None and not (a.check and prefix == "u"):
                values += [f"{f':{prefix}_{n}'!r}: {_value_expr(v, arg)}" for n, v in f.values.items()]
        if values:
            call.append("values={" + ", ".join(values) + "}")
        if not ap.is_read:
            call.append(f"entity={ap.entities[0]!r}")
        if i in puts:
            call.append(f"item={puts[i][0]}.to_item()")
        if a.check:
            call.append("check=True")
        calls.append(f"            rt.Call({', '.join(call)}),")
        if ap.is_read:
            if _returns_parts(spec, ap):
                returns.append(("rt.Item | None", f"found[{i}]"))
            else:
                classes = [codes[n].cls for n in ap.entities]
                ret = " | ".join(classes) if _only_its_entities(spec, ap) else "AnyEntity"
                returns.append((f"{ret} | None", f"_maybe(found[{i}], ({', '.join(classes)},))"))
    sig = [f"{pys[n]}: {types[n]}" for n in p.parameters]
    if puts:
        sig += ["*"] + [f"{name}: {cls}" for name, cls in puts.values()]
    names = ", ".join(a.pattern + (" (ConditionCheck)" if a.check else "") for a in p.actions)
    doc = _doc(f"{p.description or p.name} ({p.operation}: {names}): {_COMPOSITE_DOC[p.operation]}.")
    backend = f"self.backend.{_COMPOSITE_CALL[p.operation]}({p.name!r}, ["
    if returns:
        ret = "tuple[" + ", ".join(r for r, _ in returns) + "]"
        return [f"    def {p.name}(self{', ' if sig else ''}{', '.join(sig)}) -> {ret}:", "        " + doc,
                f"        found = {backend}", *calls, "        ])",
                "        return (" + ", ".join(d for _, d in returns) + ("," if len(returns) == 1 else "") + ")", ""]
    return [f"    def {p.name}(self{', ' if sig else ''}{', '.join(sig)}) -> None:", "        " + doc,
            f"        {backend}", *calls, "        ])", ""]


def _isort_key(name: str) -> tuple[int, str]:
    """isort's order of imported and exported names: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2, name)


def _from_import(module: str, names: list[str]) -> str:
    """``from module import names`` in isort's order, broken one name a line when it is too long."""
    ordered = sorted(names, key=_isort_key)
    line = f"from {module} import {', '.join(ordered)}"
    if len(line) <= 120:
        return line
    return f"from {module} import (\n" + "".join(f"    {n},\n" for n in ordered) + ")"


def _kw_cursor(sig: list[str]) -> list[str]:
    """The signature with ``cursor`` keyword-only."""
    if "*" in sig:
        return sig
    return [*sig[:-1], "*", sig[-1]]


def _break_calls(lines: list[str], width: int = 120) -> list[str]:
    """Long ``rt.Call(...)`` and signature lines broken at their arguments."""
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip())
        m = re.match(r"^(\s*)(.*?\()(.*)(\)[^()]*)$", line)
        if m and line.lstrip().startswith(("def ", "page = ", "self.backend.write(", "rt.Call(", "return (")):
            head, args, tail = m.group(2), m.group(3), m.group(4)
            pieces = _split_args(args)
            out.append(" " * indent + head)
            out += [" " * (indent + 4) + _wrapped(piece, indent + 4) + "," for piece in pieces]
            out.append(" " * indent + tail)
        else:
            out.append(line)
    return out


def _split_args(text: str) -> list[str]:
    """Top-level comma-separated pieces of an argument list."""
    depth, cur, out, quote = 0, "", [], ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote and not cur.endswith("\\" + quote):
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _access_module(spec: Spec, codes: dict[str, _EntityCode], cls: str) -> str:
    methods: list[str] = []
    operations: list[str] = []
    for i, p in enumerate(spec.access_patterns):
        lines, op = _method(spec, p, codes, f"access_patterns[{i}] ({p.name})")
        methods += _break_calls(lines)
        if op:
            operations.append(op)
    doc = (f'"""The access patterns of {spec.domain}: one method per pattern of the spec, and no other way to read '
           'or write.\n\nReads return a :class:`runtime.Page` of entities (or of items, where a read returns parts '
           'of them)\nand its cursor; writes do the pattern\'s write, condition and update. The same calls give the '
           'same\nentities and pages on :class:`runtime.SqliteBackend` and :class:`runtime.DynamoBackend`."""')
    body = ["#: every access pattern, as the backends run it (its boto3 request without the values of a call)",
            "OPERATIONS: dict[str, rt.Operation] = {", *operations, "}", "", "",
            "def _decode(item: rt.Item, preferred: tuple[type[AnyEntity], ...]) -> Any:",
            '    """The entity an item holds: the pattern\'s entities first, then the others of the design."""',
            "    for cls in preferred + tuple(c for c in ENTITIES if c not in preferred):",
            "        found = cls.from_item(item)", "        if found is not None:", "            return found",
            "    keys = {n: item.get(n) for n in (TABLE.pk, TABLE.sk) if n}",
            "    raise rt.ItemShapeError(f\"the item {keys} fits the key templates of no entity of the design\")", "", "",
            f"class {cls}:", f'    """The access patterns of {spec.domain} on one backend (SQLite or DynamoDB)."""', "",
            "    def __init__(self, backend: rt.Backend) -> None:", "        self.backend = backend", "", *methods]
    if any(_used(line, "_maybe") for line in methods):
        at = body.index(f"class {cls}:")
        body[at:at] = ["def _maybe(item: rt.Item | None, preferred: tuple[type[AnyEntity], ...]) -> Any:",
                       '    """The entity an item holds, or None for no item."""',
                       "    return None if item is None else _decode(item, preferred)", "", ""]
    used = [c.cls for c in codes.values() if _used("\n".join(body), c.cls)]
    return _module(doc, [("Decimal", "from decimal import Decimal"), ("", "from typing import Any"),
                         ("k", "from . import keys as k"), ("", "from . import runtime as rt"),
                         ("", "from .design import TABLE"),
                         ("", _from_import(".entities", ["ENTITIES", "AnyEntity", *used]))], body)


# -- design, package, tests ----------------------------------------------------------------------------

def _design_module(spec: Spec, ctx: ExportContext) -> str:
    t = spec.table
    indexes = []
    for name, ix in t.indexes.items():
        pk = t.partition_key if ix.type == "local" else ix.partition_key
        pkt = t.partition_key_type if ix.type == "local" else ix.partition_key_type
        proj = None if ix.projection == "all" else () if ix.projection == "keys_only" else tuple(ix.projection)
        indexes.append(f"        rt.Index({name!r}, {ix.type!r}, {pk!r}, {ix.sort_key!r}, {pkt!r}, {ix.sort_key_type!r}, "
                       f"{_lit(proj)}),")
    stamp = ctx.stamp(spec)
    ddl = [main_table_sql(spec.table_name), *catalog_table_sql(spec.table_name, list(t.indexes))]
    create = json.dumps(create_table_request(spec), indent=4, ensure_ascii=False, sort_keys=False)
    create = create.replace("true", "True").replace("false", "False").replace("null", "None")
    return "\n".join([
        f'"""The design this module was generated from: {spec.domain}, its table, and the stamp of its review.\n\n'
        "A service calls :func:`check_design` at start-up with the digest it was reviewed with, and stops when the\n"
        'module it runs is another design, or one exported without validation."""', "",
        "from __future__ import annotations", "", "from typing import Any", "", "from . import runtime as rt", "",
        f"DOMAIN = {spec.domain!r}",
        "#: sha256 of the spec's canonical JSON (without its stamp): blue_nb's content hash of the design",
        f"DIGEST = {content_hash(spec)!r}",
        "#: the validation stamp of the export: blue_nb version, whether validated, the findings per severity",
        f"STAMP: dict[str, Any] = {_lit(stamp)}", "",
        "#: the table: keys, indexes, and the CreateTable request that makes it on DynamoDB",
        "TABLE = rt.Table(", f"    name={spec.table_name!r},", f"    pk={t.partition_key!r},", f"    sk={t.sort_key!r},",
        f"    pk_type={t.partition_key_type!r},", f"    sk_type={t.sort_key_type!r},",
        "    indexes=(" + ("" if indexes else "),"), *(indexes + (["    )," ] if indexes else [])),
        "    create_table=" + create.replace("\n", "\n    ") + ",",
        "    sqlite_ddl=(", *[f"        {_lit(statement)}," for statement in ddl], "    ),", ")", "", "",
        "class DesignMismatch(rt.AccessError):", '    """The module is not the design the service was reviewed with."""',
        "", "",
        "def check_design(expected_digest: str | None = None, *, require_validated: bool = True) -> dict[str, Any]:",
        '    """Check at start-up that this module is the reviewed design: its digest is ``expected_digest`` (when',
        "    given) and it was exported validated (unless ``require_validated`` is False). Returns the stamp;",
        '    raises :class:`DesignMismatch` saying what differs."""',
        "    if expected_digest is not None and expected_digest != DIGEST:",
        "        raise DesignMismatch(f\"this module is design {DIGEST[:12]}..., not the reviewed {expected_digest[:12]}...:"
        " export the reviewed spec again\")",
        "    if require_validated and not STAMP.get(\"validated\"):",
        "        raise DesignMismatch(f\"this module was exported without validation: {STAMP.get('note', '')}\")",
        "    return dict(STAMP)", ""])


def _pyproject(spec: Spec, pkg: str) -> str:
    return "\n".join([
        "[build-system]", 'requires = ["setuptools>=61"]', 'build-backend = "setuptools.build_meta"', "",
        "[project]", f'name = "{pkg.replace("_", "-")}"', f'version = "{version()}"',
        f'description = "Access patterns of the {spec.domain} design, on SQLite and DynamoDB (generated by blue_nb)"',
        'requires-python = ">=3.10"', 'dependencies = ["boto3>=1.26"]', "",
        "[project.optional-dependencies]", 'test = ["pytest>=7"]', "",
        "[tool.setuptools]", f'packages = ["{pkg}"]', "", "[tool.setuptools.package-data]", f'{pkg} = ["py.typed"]', "",
        "[tool.mypy]", "strict = true", "", "[[tool.mypy.overrides]]", 'module = ["boto3", "boto3.*", "botocore.*"]',
        "ignore_missing_imports = true", "", "[tool.ruff]", "line-length = 120", "",
        "[tool.pytest.ini_options]", 'testpaths = ["tests"]', ""])


def _readme(spec: Spec, pkg: str, cls: str) -> str:
    reading = ("transact_get_items", "batch_get_item")
    reads = [p.name for p in spec.access_patterns if p.is_read or p.operation in reading]
    writes = [p.name for p in spec.access_patterns if not (p.is_read or p.operation in reading)]
    return "\n".join([
        f"# {pkg}", "", f"The access patterns of the `{spec.domain}` design, generated by blue_nb {version()} from the "
        "reviewed spec. Do not edit: export the spec again.", "",
        "```python", f"from {pkg} import {cls}, SqliteBackend, DynamoBackend, TABLE, check_design", "",
        "check_design(\"<the digest you reviewed>\")", f"db = {cls}(SqliteBackend(TABLE, \"blue.sqlite\"))",
        f"aws = {cls}(DynamoBackend(TABLE, endpoint_url=\"http://localhost:8000\"))", "```", "",
        f"Reads: {', '.join(reads) or 'none'}. Writes: {', '.join(writes) or 'none'}.", "",
        "`pip install .` installs it (boto3 is its one dependency); `pytest` runs its tests on SQLite, and on "
        "DynamoDB when `BLUE_ACCESS_ENDPOINT_URL` names an endpoint.", ""])


def _init_module(spec: Spec, pkg: str, cls: str, codes: dict[str, _EntityCode]) -> str:
    names = [c.cls for c in codes.values()]
    kinds = {p.operation for p in spec.access_patterns}
    errors = (["TransactionCanceled"] if "transact_write_items" in kinds else []) + (
        ["Unprocessed"] if kinds & {"batch_get_item", "batch_write_item"} else [])
    exported = sorted([cls, "OPERATIONS", "TABLE", "DIGEST", "STAMP", "DesignMismatch", "check_design", "AnyEntity",
                       "ENTITIES", "Page", "SqliteBackend", "DynamoBackend", "ConditionFailed", "ValidationError",
                       *errors, *names], key=_isort_key)
    return "\n".join([
        f'"""The {spec.domain} design\'s access patterns, on SQLite and DynamoDB (generated by blue_nb; do not edit)."""',
        "", "from __future__ import annotations", "",
        _from_import(".access", ["OPERATIONS", cls]),
        "from .design import DIGEST, STAMP, TABLE, DesignMismatch, check_design",
        _from_import(".entities", ["ENTITIES", "AnyEntity", *names]),
        _from_import(".runtime", ["ConditionFailed", "DynamoBackend", "Page", "SqliteBackend", "ValidationError",
                                  *errors]), "",
        "__all__ = [" + ", ".join(repr(n) for n in exported) + "]", ""])


def _test_module(spec: Spec, pkg: str, cls: str, codes: dict[str, _EntityCode], fixture: dict[str, Any]) -> str:
    out = [f'"""Every access pattern of {spec.domain} on both backends: the sample items loaded, each read checked '
           "page by page\nagainst blue_nb's own `query` answers (on DynamoDB: the same items in the same order), each "
           'write\nchecked against the item blue_nb says it leaves. DynamoDB runs when BLUE_ACCESS_ENDPOINT_URL names an '
           'endpoint."""', "",
           "from __future__ import annotations", "", "import json", "import os", "import uuid",
           "from collections.abc import Callable, Iterator", "from decimal import Decimal", "from pathlib import Path",
           "from typing import Any", "",
           "import pytest", "", _from_import(pkg, ["DIGEST", "TABLE", "check_design",
                                                     *([cls] if spec.access_patterns else [])]),
           f"from {pkg} import entities as e", f"from {pkg} import runtime as rt", "",
           "FIXTURE = json.loads((Path(__file__).parent / \"fixture.json\").read_text(encoding=\"utf-8\"))",
           "ITEMS = [rt.item_from_wire(i) for i in FIXTURE[\"items\"]]", "ENDPOINT = os.environ.get(\"BLUE_ACCESS_ENDPOINT_URL\")",
           "", "",
           "def _backend(kind: str) -> rt.SqliteBackend | rt.DynamoBackend:",
           "    backend: rt.SqliteBackend | rt.DynamoBackend",
           "    if kind == \"sqlite\":", "        backend = rt.SqliteBackend(TABLE)", "    else:",
           "        if not ENDPOINT:", "            pytest.skip(\"set BLUE_ACCESS_ENDPOINT_URL to run on DynamoDB\")",
           "        backend = rt.DynamoBackend(TABLE, endpoint_url=ENDPOINT, table_name=f\"t{uuid.uuid4().hex[:10]}_{TABLE.name}\")",
           "    backend.create_table()", "    backend.put_items(ITEMS)", "    return backend", "", "",
           "@pytest.fixture(scope=\"module\", params=[\"sqlite\", \"dynamodb\"])",
           "def loaded(request: pytest.FixtureRequest) -> rt.SqliteBackend | rt.DynamoBackend:",
           '    """A backend with the sample items, for the reads (which leave it as it is)."""',
           "    return _backend(request.param)", "", "",
           "@pytest.fixture(params=[\"sqlite\", \"dynamodb\"])",
           "def fresh(request: pytest.FixtureRequest) -> rt.SqliteBackend | rt.DynamoBackend:",
           '    """A backend of its own with the sample items, for one write."""', "    return _backend(request.param)", "", "",
           "def _item(x: Any) -> rt.Item:", "    return x if isinstance(x, dict) else dict(x.to_item())", "", "",
           "def _pages(read: Callable[[str | None], rt.Page[Any]]) -> Iterator[rt.Page[Any]]:",
           "    cursor: str | None = None", "    for _ in range(10_000):", "        page = read(cursor)",
           "        yield page", "        cursor = page.cursor", "        if cursor is None:", "            return",
           "    raise AssertionError(\"more than 10,000 pages\")", "", "",
           "def _check_read(backend: rt.SqliteBackend | rt.DynamoBackend, pages: list[rt.Page[Any]], case: dict[str, Any]) -> None:",
           "    want = case[\"pages\"]",
           "    got_items = [rt.canonical(_item(i)) for p in pages for i in p.items]",
           "    want_items = [rt.canonical(rt.item_from_wire(i)) for p in want for i in p[\"items\"]]",
           "    assert got_items == want_items, case[\"params\"]",
           "    assert sum(p.count for p in pages) == sum(p[\"count\"] for p in want), case[\"params\"]",
           "    if isinstance(backend, rt.SqliteBackend):                # DynamoDB's pages, exactly as blue_nb cuts them",
           "        assert [len(p.items) for p in pages] == [len(p[\"items\"]) for p in want]",
           "        assert [p.scanned_count for p in pages] == [p[\"scanned_count\"] for p in want]",
           "        assert [p.cursor for p in pages] == [rt.encode_cursor(rt.item_from_wire(p[\"last_key\"])) "
           "if p[\"last_key\"] else None for p in want]", "", "",
           "def test_the_design_is_the_one_exported() -> None:",
           "    assert check_design(FIXTURE[\"digest\"], require_validated=False)[\"content_sha256\"] == DIGEST", ""]
    for p in spec.access_patterns:
        types = _param_types(p)
        taken = {"self", "cursor", "item", "call", "values", "rt", "k", "e"}
        pys = {n: _ident(n, taken) for n in p.parameters}

        def args(names: list[str], pys: dict[str, str] = pys, types: dict[str, str] = types) -> str:
            return ", ".join(f"{pys[n]}={types[n]}(params[{n!r}])" for n in names)

        if p.is_read:
            cases = fixture["reads"].get(p.name, [])
            out += ["", f"def test_{p.name}(loaded: rt.SqliteBackend | rt.DynamoBackend) -> None:",
                    f"    access = {cls}(loaded)", f"    for case in FIXTURE[\"reads\"][{p.name!r}]:"]
            if p.operation == "get_item":
                out += ["        params = case[\"params\"]" if p.parameters else "        params: dict[str, Any] = {}",
                        f"        found = access.{p.name}({args(p.parameters)})",
                        "        page = rt.Page([found] if found is not None else [], None, int(found is not None), "
                        "int(found is not None))", "        _check_read(loaded, [page], case)"]
            else:
                a = args(p.parameters)
                out += ["", "        def read(cursor: str | None, params: dict[str, Any] = case[\"params\"]) -> rt.Page[Any]:",
                        f"            return access.{p.name}({a + ', ' if a else ''}cursor=cursor)", "",
                        "        _check_read(loaded, list(_pages(read)), case)"]
            out.append(f"    assert len(FIXTURE[\"reads\"][{p.name!r}]) == {len(cases)}")
            continue
        if p.is_composite:
            out += _composite_test(spec, p, cls, codes, fixture)
            continue
        entity = codes[p.entities[0]]
        if p.name not in fixture["writes"]:
            out += ["", f"def test_{p.name}() -> None:",
                    f"    pytest.skip(\"the sample has no item for {p.name} to write\")"]
            continue
        out += ["", f"def test_{p.name}(fresh: rt.SqliteBackend | rt.DynamoBackend) -> None:",
                f"    case = FIXTURE[\"writes\"][{p.name!r}]", f"    access = {cls}(fresh)"]
        if p.operation == "put_item":
            rest = [n for n in p.parameters if n not in entity.fields]
            out += ["    params = case[\"params\"]"] if rest else []
            out += [f"    item = e.{entity.cls}.from_item(rt.item_from_wire(case[\"item\"]))", "    assert item is not None",
                    "", "    def call() -> None:",
                    f"        access.{p.name}(item{', ' if rest else ''}{args(rest)})"]
        elif p.operation == "update_item" and p.update is None:
            out += ["    params = case[\"params\"]"] if p.parameters else []
            out += ["    sets = {n: rt.from_wire(v) for n, v in case[\"set\"].items()}", "", "    def call() -> None:",
                    f"        access.{p.name}({args(p.parameters)}{', ' if p.parameters else ''}**sets)"]
        else:
            out += ["    params = case[\"params\"]"] if p.parameters else []
            out += ["", "    def call() -> None:", f"        access.{p.name}({args(p.parameters)})"]
        out += ["", "    try:", "        call()", "        passed = True", "    except rt.ConditionFailed:",
                "        passed = False",
                "    assert passed == case[\"condition_passed\"]",
                "    after = fresh.get_raw(rt.item_from_wire(case[\"key\"]))",
                "    want = rt.item_from_wire(case[\"after\"]) if case[\"after\"] is not None else None",
                "    assert (rt.canonical(after) if after is not None else None) == "
                "(rt.canonical(want) if want is not None else None)"]
    body = "\n".join(out[out.index("import pytest"):])
    optional = {"from decimal import Decimal": r"\bDecimal\(", f"from {pkg} import entities as e": r"\be\.[A-Z]",
                "from collections.abc import Callable, Iterator": r"\bCallable\b"}
    out = [line for line in out if line not in optional or re.search(optional[line], body)]
    return "\n".join(_break_calls(out)).rstrip() + "\n"


def _composite_test(spec: Spec, p: AccessPattern, cls: str, codes: dict[str, _EntityCode],
                    fixture: dict[str, Any]) -> list[str]:
    """The test of a transaction or a batch: each of its cases on a backend of its own, the items a read
    returns or what a write leaves at each action's key (and a cancelled transaction's reasons)."""
    cases = fixture.get("composites", {}).get(p.name, [])
    if not cases:
        return ["", f"def test_{p.name}() -> None:",
                f"    pytest.skip(\"the sample has no items for {p.name}\")"]
    types = _composite_types(spec, p)
    taken = {"self", "cursor", "item", "call", "values", "rt", "k", "e", "found", "sets"}
    pys = {n: _ident(n, taken) for n in p.parameters}
    puts = _puts(spec, p, codes, taken)
    args = [f"{pys[n]}={types[n]}(params[{n!r}])" for n in p.parameters]
    out = ["", "@pytest.mark.parametrize(\"kind\", [\"sqlite\", \"dynamodb\"])", f"def test_{p.name}(kind: str) -> None:",
           f"    for case in FIXTURE[\"composites\"][{p.name!r}]:            # each case on a backend of its own",
           "        backend = _backend(kind)", f"        access = {cls}(backend)", "        params = case[\"params\"]"]
    for i, (name, entity_cls) in puts.items():
        out += [f"        {name} = e.{entity_cls}.from_item(rt.item_from_wire(case[\"puts\"][{str(i)!r}]))",
                f"        assert {name} is not None"]
    args += [f"{name}={name}" for name, _ in puts.values()]
    call = f"access.{p.name}({', '.join(args)})"
    if p.operation in ("transact_get_items", "batch_get_item"):
        out += [f"        found = {call}",
                "        got = [None if x is None else rt.canonical(_item(x)) for x in found]",
                "        assert got == [None if x is None else rt.canonical(rt.item_from_wire(x)) for x in case[\"items\"]]"]
    else:
        if p.operation == "transact_write_items":
            out += ["        reasons: list[str] | None = None", "        met: list[str | None] | None = None",
                    "        try:", f"            {call}",
                    "        except rt.TransactionCanceled as cancelled:     # nothing written; the reason of each action",
                    "            reasons = cancelled.reasons",
                    "            met = [None if x is None else rt.canonical(x) for x in cancelled.items]",
                    "        assert reasons == case[\"reasons\"], case[\"label\"]",
                    "        assert met == (None if case[\"met\"] is None else [None if x is None else "
                    "rt.canonical(rt.item_from_wire(x)) for x in case[\"met\"]])"]
        else:
            out += [f"        {call}"]
        out += ["        for want in case[\"after\"]:",
                "            after = backend.get_raw(rt.item_from_wire(want[\"key\"]))",
                "            expected = rt.item_from_wire(want[\"item\"]) if want[\"item\"] is not None else None",
                "            assert (rt.canonical(after) if after is not None else None) == "
                "(rt.canonical(expected) if expected is not None else None)"]
    out.append(f"    assert len(FIXTURE[\"composites\"][{p.name!r}]) == {len(cases)}")
    return out


def python_package(spec: Spec, ctx: ExportContext) -> dict[str, str]:
    """The package's files, path -> text (the same spec and fixture give the same bytes). ``ctx.data``: the
    fixture the generated tests check against (:mod:`blue_nb.app.python_export`), or None for none."""
    pkg = package_name(spec)
    cls = _camel(spec.domain) + "Access"
    codes = {name: _entity_code(spec, e) for name, e in spec.entities.items()}
    fixture = ctx.data or {"digest": content_hash(spec), "items": [], "reads": {}, "writes": {}}
    keys_text = _keys_module(spec, codes)          # names each entity's builders
    files = {
        "pyproject.toml": _pyproject(spec, pkg),
        "README.md": _readme(spec, pkg, cls),
        f"{pkg}/__init__.py": _init_module(spec, pkg, cls, codes),
        f"{pkg}/py.typed": "",
        f"{pkg}/design.py": _design_module(spec, ctx),
        f"{pkg}/keys.py": keys_text,
        f"{pkg}/entities.py": _entities_module(spec, codes),
        f"{pkg}/access.py": _access_module(spec, codes, cls),
        f"{pkg}/runtime.py": runtime_text(),
        "tests/fixture.json": json.dumps(fixture, indent=1, ensure_ascii=False, sort_keys=True) + "\n",
        "tests/test_" + pkg + ".py": _test_module(spec, pkg, cls, codes, fixture),
    }
    return files
