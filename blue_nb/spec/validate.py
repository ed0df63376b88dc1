"""Semantic checks of a structurally valid spec mapping: cross references, key templates, and
the combinations the format forbids. These make a spec *invalid* (a :class:`SpecError`);
design findings about a valid spec belong to :mod:`blue_nb.rules`.
"""

from __future__ import annotations

from typing import Any

from blue_nb.errors import Problem, TemplateError
from blue_nb.spec.expressions import (ConditionSyntaxError, condition_paths, condition_values, parse_condition,
                                     parse_path, parse_update, update_values)
from blue_nb.spec.model import ACTION_LIMITS, ACTION_OPERATIONS, FILTER_VALUE_TYPES, SK_OPERATORS
from blue_nb.spec.refusals import spec_refusals
from blue_nb.spec.templates import KeyTemplate

__all__ = ["semantic_problems"]


def semantic_problems(d: dict[str, Any]) -> list[Problem]:
    """Every cross-reference and template problem of a structurally valid spec mapping."""
    table = d["table"]
    out = _table_problems(table)
    out += _entity_problems(d["entities"], table)
    out += _pattern_problems(d.get("access_patterns") or [], d["entities"], table)
    out += _generate_problems((d.get("generate") or {}).get("entities") or {}, d["entities"])
    return out


def _columns(entity: dict) -> dict[str, str]:
    """An entity's source columns -> their type: the key templates' placeholders ("key"), then attributes."""
    cols: dict[str, str] = {}
    for attr, text in entity["key"].items():
        try:
            cols.update((name, "key") for name in KeyTemplate(text).placeholders)
        except TemplateError:
            continue                                  # reported with the entity's key
    cols.update(entity.get("attributes") or {})
    return cols


def _generate_problems(gen: dict, entities: dict) -> list[Problem]:
    """What a generate: section names that the spec does not have (blue-nb sample checks the rest)."""
    out = []
    for name, g in gen.items():
        where = f"generate.entities.{name}"
        if name not in entities:
            out.append(Problem(where, f"generate names entity {name!r}, which the spec does not declare",
                               "known entities: " + ", ".join(entities)))
            continue
        if g.get("parent") is not None and g["parent"] not in entities:
            out.append(Problem(f"{where}.parent", f"parent {g['parent']!r} is not an entity",
                               "known entities: " + ", ".join(entities)))
        cols = _columns(entities[name])
        for col, f in (g.get("fields") or {}).items():
            if col not in cols:
                out.append(Problem(f"{where}.fields.{col}", f"{name} has no column {col!r} (not in its key templates "
                                   "or attributes)", "columns: " + ", ".join(cols)))
            elif "enum" in f and cols[col] not in ("S", "key"):
                kind = "a number (N)" if cols[col] == "N" else f"of type {cols[col]}"
                out.append(Problem(f"{where}.fields.{col}.enum", f"{col!r} is {kind}: an enum draws text labels",
                                   "use min/max for numbers, or declare the attribute S"))
            ref = f.get("ref")
            if ref:
                owner, _, ref_col = ref.partition(".")
                if owner not in entities or ref_col not in _columns(entities[owner]):
                    out.append(Problem(f"{where}.fields.{col}.ref", f"{ref!r} names no column of an entity",
                                       "write Entity.column, e.g. Document.doc_number"))
    return out


def _table_problems(table: dict) -> list[Problem]:
    out = []
    if table.get("billing_mode") == "PROVISIONED":
        for f in ("read_capacity", "write_capacity"):
            if not table.get(f):
                out.append(Problem(f"table.{f}", "PROVISIONED billing needs read_capacity and write_capacity",
                                   "set both, or use billing_mode: PAY_PER_REQUEST"))
    for name, idx in (table.get("indexes") or {}).items():
        where = f"table.indexes.{name}"
        if idx["type"] == "global" and not idx.get("partition_key"):
            out.append(Problem(f"{where}.partition_key", "a global index needs a partition_key"))
        if idx["type"] == "local":
            if idx.get("partition_key") not in (None, table["partition_key"]):
                out.append(Problem(f"{where}.partition_key", "a local index shares the table's partition key",
                                   "remove partition_key from the local index"))
            if not idx.get("sort_key"):
                out.append(Problem(f"{where}.sort_key", "a local index needs a sort_key"))
            if not table.get("sort_key"):
                out.append(Problem(where, "a local index needs a table with a sort key"))
    return out


def _template_problem(text: str, where: str) -> list[Problem]:
    try:
        KeyTemplate(text, where)
    except TemplateError as e:
        return [Problem(where, e.msg, e.hint)]
    return []


def _entity_problems(entities: dict, table: dict) -> list[Problem]:
    out = []
    index_keys = {k for i in (table.get("indexes") or {}).values() for k in (i.get("partition_key"), i.get("sort_key")) if k}
    table_keys = [k for k in (table["partition_key"], table.get("sort_key")) if k]
    for name, ent in entities.items():
        where = f"entities.{name}"
        for attr in table_keys:
            if attr not in ent["key"]:
                out.append(Problem(f"{where}.key", f"entity {name} has no template for the table key {attr!r}",
                                   f'add {attr}: "..." under key'))
        for attr, text in ent["key"].items():
            if attr not in table_keys and attr not in index_keys:
                out.append(Problem(f"{where}.key.{attr}", f"{attr!r} is not a key of the table or of any index",
                                   "key templates are for table and index key attributes; declare other values under attributes"))
            out += _template_problem(text, f"{where}.key.{attr}")
        for attr in ent.get("attributes") or {}:
            if attr in ent["key"]:
                out.append(Problem(f"{where}.attributes.{attr}", f"{attr!r} is already a key attribute",
                                   "remove it from attributes"))
    return out


def _pattern_problems(patterns: list, entities: dict, table: dict) -> list[Problem]:
    out, names = [], [p["name"] for p in patterns]
    indexes = table.get("indexes") or {}
    for i, p in enumerate(patterns):
        where = f"access_patterns[{i}]"
        if names.count(p["name"]) > 1:
            out.append(Problem(f"{where}.name", f"access pattern name {p['name']!r} is used more than once"))
        for j, e in enumerate(p["entities"]):
            if e not in entities:
                out.append(Problem(f"{where}.entities[{j}]", f"unknown entity {e!r}", "known: " + ", ".join(entities)))
        index = p.get("index", "table")
        if index != "table" and index not in indexes:
            out.append(Problem(f"{where}.index", f"unknown index {index!r}",
                               "use 'table' or one of: " + (", ".join(indexes) or "(no indexes declared)")))
        if p["operation"] in ACTION_OPERATIONS or p.get("actions"):
            out += _action_problems(p, where, {q["name"]: q for q in patterns})
            continue
        out += _key_condition_problems(p, where, table, indexes.get(index))
        if p.get("filter"):
            out += _filter_problems(p, f"{where}.filter", table, indexes.get(index))
        if p.get("condition") or p.get("return_values_on_condition_check_failure", "NONE") != "NONE":
            out += _condition_problems(p, where)
        if p.get("select") or p.get("projection"):
            out += _select_problems(p, where, indexes.get(index), index)
        if p.get("update"):
            out += _update_problems(p, f"{where}.update", table)
        if p.get("total_segments") and p["operation"] != "scan":
            out.append(Problem(f"{where}.total_segments", f"a parallel scan's TotalSegments; {p['operation']} takes "
                               "none", "use operation: scan, or remove total_segments"))
        elif p.get("total_segments") and "segment" in _dict_parameters(p):
            out.append(Problem(f"{where}.total_segments", "the parameter 'segment' gives a parallel scan's Segment; "
                               "the filter uses that name already", "rename the filter's {segment} placeholder"))
        for j, join in enumerate(p.get("joins") or []):
            if join["pattern"] not in names:
                out.append(Problem(f"{where}.joins[{j}].pattern", f"unknown access pattern {join['pattern']!r}"))
    return out


#: the operations each composite's actions may call
_ACTION_CALLS = {"transact_write_items": ("put_item", "update_item", "delete_item"),
                 "transact_get_items": ("get_item",), "batch_get_item": ("get_item",),
                 "batch_write_item": ("put_item", "delete_item")}


def _placeholders(value: Any) -> list[str]:
    """The parameter names in a spec value: a key template, or the strings inside lists and DynamoDB JSON."""
    if isinstance(value, str):
        try:
            return KeyTemplate(value).placeholders
        except TemplateError:
            return []
    if isinstance(value, dict):
        return [n for v in value.values() for n in _placeholders(v)]
    if isinstance(value, list):
        return [n for v in value for n in _placeholders(v)]
    return []


def _dict_parameters(p: dict) -> list[str]:
    """The parameters of a pattern mapping (as :attr:`AccessPattern.parameters` names them)."""
    found = _placeholders(p.get("key_condition") or {})
    for field in ("filter", "condition", "update"):
        found += _placeholders((p.get(field) or {}).get("values") or {})
    return list(dict.fromkeys(found))


def _action_problems(p: dict, where: str, by_name: dict[str, dict]) -> list[Problem]:
    """A transaction's or a batch's actions: what they call, DynamoDB's limits, and each call's parameters."""
    op, actions = p["operation"], p.get("actions") or []
    if op not in ACTION_OPERATIONS:
        return [Problem(f"{where}.actions", f"actions are a transaction's or a batch's; {op} takes none",
                        "use operation: " + ", ".join(ACTION_OPERATIONS))]
    out = [Problem(f"{where}.{f}", f"{op} takes no {f} (each action's pattern carries its own)",
                   f"remove {f}; put it on the pattern an action calls")
           for f in ("key_condition", "filter", "condition", "update", "select", "projection", "limit")
           if p.get(f) not in (None, [], False)]
    if not actions:
        return out + [Problem(f"{where}.actions", f"{op} needs at least one action",
                              "add actions: [{pattern: NAME, params: {...}}]")]
    if len(actions) > ACTION_LIMITS[op]:
        out.append(Problem(f"{where}.actions", f"{op} takes at most {ACTION_LIMITS[op]} actions, got {len(actions)}",
                           "split the calls over several requests"))
    for j, a in enumerate(actions):
        at = f"{where}.actions[{j}]"
        called = by_name.get(a["pattern"])
        if called is None:
            out.append(Problem(f"{at}.pattern", f"unknown access pattern {a['pattern']!r}",
                               "known: " + ", ".join(by_name)))
            continue
        allowed = ("put_item", "update_item", "delete_item") if a.get("check") else _ACTION_CALLS[op]
        if called["operation"] not in allowed:
            out.append(Problem(f"{at}.pattern", f"{op} cannot call {a['pattern']!r}, a {called['operation']}",
                               "call one of: " + ", ".join(allowed)))
            continue
        if a.get("check") and (op != "transact_write_items" or not called.get("condition")):
            out.append(Problem(f"{at}.check", "a ConditionCheck is a transact_write_items action on a pattern "
                               "with a condition", "call a write pattern that has a condition, or drop check"))
        if op == "batch_write_item" and (called.get("condition") or called.get("update")):
            out.append(Problem(f"{at}.pattern", f"BatchWriteItem takes no conditions and no updates; "
                               f"{a['pattern']!r} has a condition", "use transact_write_items"))
        first = by_name.get(actions[0]["pattern"]) or called
        if op == "batch_get_item" and (called.get("consistent_read", False), called.get("projection") or []) != (
                first.get("consistent_read", False), first.get("projection") or []):
            out.append(Problem(f"{at}.pattern", f"BatchGetItem reads a table's keys with one ConsistentRead and one "
                               f"ProjectionExpression; {a['pattern']!r} differs from {actions[0]['pattern']!r}",
                               "call get patterns with the same consistent_read and projection"))
        given, needed = a.get("params") or {}, _dict_parameters(called)
        missing = [n for n in needed if n not in given]
        if missing:
            out.append(Problem(f"{at}.params", f"{a['pattern']} needs {', '.join(missing)}",
                               "add " + ", ".join(f'{n}: "{{{n}}}"' for n in missing)))
        for n in given:
            if n not in needed:
                out.append(Problem(f"{at}.params.{n}", f"{a['pattern']} has no parameter {n!r}",
                                   "its parameters: " + (", ".join(needed) or "none")))
            else:
                out += _template_problem(given[n], f"{at}.params.{n}")
    return out


def _key_condition_problems(p: dict, where: str, table: dict, index: dict | None) -> list[Problem]:
    op, kc = p["operation"], p.get("key_condition")
    out = []
    if op == "scan":
        if kc:
            out.append(Problem(f"{where}.key_condition", "a scan takes no key condition", "use operation: query"))
        return out
    if not kc:
        return [Problem(f"{where}.key_condition", f"{op} needs a key_condition with at least pk")]
    sk_ops = [k for k in SK_OPERATORS if k in kc]
    if len(sk_ops) > 1:
        out.append(Problem(f"{where}.key_condition", f"at most one sort-key condition, got {', '.join(sk_ops)}"))
    has_sk = bool(index.get("sort_key") if index else table.get("sort_key"))
    if op != "query":
        if index is not None:
            out.append(Problem(f"{where}.index", f"{op} works on the table only; only query and scan read an index"))
        if has_sk and sk_ops != ["sk"]:
            out.append(Problem(f"{where}.key_condition", f"{op} needs the full key: pk and sk equality"))
    if sk_ops and not has_sk:
        out.append(Problem(f"{where}.key_condition.{sk_ops[0]}", "the table or index has no sort key"))
    if index is not None and index.get("type", "global") == "global" and p.get("consistent_read"):
        out.append(Problem(f"{where}.consistent_read", "a global secondary index is read eventually consistent only",
                           "set consistent_read: false (DynamoDB answers true with a ValidationException)"))
    bad_template = False
    for k, v in kc.items():
        for n, text in enumerate(v if isinstance(v, list) else [v]):
            found = _template_problem(text, f"{where}.key_condition.{k}" + (f"[{n}]" if isinstance(v, list) else ""))
            bad_template = bad_template or bool(found)
            out += found
    if not bad_template and len(sk_ops) <= 1 and not (sk_ops and not has_sk):
        out += _refused(p, where, table, index, sk_ops[0] if sk_ops else None)
    return out


def _refused(p: dict, where: str, table: dict, index: dict | None, sk_op: str | None) -> list[Problem]:
    """The key condition DynamoDB would refuse whatever the parameters (:func:`~blue_nb.spec.refusals.spec_refusals`)."""
    kc = p["key_condition"]
    local = index is not None and index.get("type") == "local"
    keys = index if index is not None and not local else table
    pk_attr = keys.get("partition_key") or table["partition_key"]
    pk_type = keys.get("partition_key_type", "S") if not local else table.get("partition_key_type", "S")
    src = index if index is not None else table
    sk_attr, sk_type = src.get("sort_key"), src.get("sort_key_type", "S")
    sk_texts = [] if sk_op is None else (kc[sk_op] if isinstance(kc[sk_op], list) else [kc[sk_op]])
    templates = [KeyTemplate(t) for t in [kc["pk"], *sk_texts]]
    found = spec_refusals(operation=p["operation"], pk_attr=pk_attr, pk_type=pk_type, sk_attr=sk_attr,
                          sk_type=sk_type, sk_op=sk_op, pk=_literal(templates[0]), sk=[_literal(t) for t in templates[1:]],
                          literal=[not t.placeholders for t in templates])
    if found is None:
        return []
    return [Problem(f"{where}.key_condition" + (f".{sk_op}" if sk_op else ""),
                    f"DynamoDB refuses this key condition: {found.text}", found.hint)]


def _literal(template: KeyTemplate) -> str:
    """The text of a template without placeholders ("" for one with them: its value comes with the parameters)."""
    return "" if template.placeholders else template.render({})


def _condition_problems(p: dict, where: str) -> list[Problem]:
    """A condition on a read, or one that does not parse or whose values do not match its ``:names``."""
    if p["operation"] not in ("put_item", "update_item", "delete_item"):
        field = "condition" if p.get("condition") else "return_values_on_condition_check_failure"
        return [Problem(f"{where}.{field}", f"a ConditionExpression is a write's; {p['operation']} takes none",
                        "use filter on a query or scan")]
    if not p.get("condition"):
        return [Problem(f"{where}.return_values_on_condition_check_failure", "ALL_OLD returns the item when the "
                        "condition fails: the pattern has no condition", "add a condition, or remove it")]
    return _expression_problems(p["condition"], f"{where}.condition", "ConditionExpression")[1]


def _expression_problems(f: dict, where: str, kind: str) -> tuple[object, list[Problem]]:
    """(the parsed tree or None, the problems) of a filter or condition: its syntax, its values."""
    out: list[Problem] = []
    try:
        tree = parse_condition(f["expression"])
    except ConditionSyntaxError as e:
        text = f["expression"]
        return None, [Problem(f"{where}.expression", f"Invalid {kind}: {e.msg} at character {e.at + 1} "
                              f"(after {text[max(0, e.at - 30):e.at]!r})",
                              "write DynamoDB's condition syntax: names bare (status, a.b[0]), values :name, "
                              "AND OR NOT, = <> < <= > >=, BETWEEN, IN, and the functions")]
    out += _expression_value_problems(f.get("values") or {}, condition_values(tree), where)
    return tree, out


def _expression_value_problems(values: dict, used, where: str) -> list[Problem]:
    """The ``:values`` an expression uses against those ``values`` declares: each used one declared, each
    declared one used (DynamoDB's words for an unused one), and each value's own problems."""
    out = []
    for name in used:
        if name not in values:
            out.append(Problem(f"{where}.values", f"the expression uses :{name}, which values does not declare",
                               f"add {name}: ... under values"))
    for name, v in values.items():
        if name not in used:
            out.append(Problem(f"{where}.values.{name}", f"Value provided in ExpressionAttributeValues unused in "
                               f"expressions: keys: {{:{name}}}", f"use :{name} in the expression, or remove it"))
        out += _filter_value_problems(v, f"{where}.values.{name}")
    return out


def _filter_problems(p: dict, where: str, table: dict, index: dict | None) -> list[Problem]:
    """A filter that does not parse, whose values do not match its ``:names``, or that DynamoDB refuses."""
    if p["operation"] not in ("query", "scan"):
        return [Problem(where, f"a filter is a Query's or a Scan's; {p['operation']} takes none",
                        "remove filter, or make the pattern a query")]
    tree, out = _expression_problems(p["filter"], where, "FilterExpression")
    if tree is None:
        return out
    if p["operation"] == "query":
        local = index is not None and index.get("type") == "local"
        keys = {(index or {}).get("partition_key") if index is not None and not local else table["partition_key"],
                (index or table).get("sort_key")}
        for path in condition_paths(tree):
            if path.name in keys:
                out.append(Problem(f"{where}.expression", "Filter Expression can only contain non-primary key "
                                   f"attributes: Primary key attribute: {path.name}",
                                   f"a query's key attribute belongs in its key_condition, not its filter"))
                break
    return out


def _filter_value_problems(v, where: str) -> list[Problem]:
    if not isinstance(v, dict):
        return _template_problem(v, where) if isinstance(v, str) else []
    if len(v) != 1:
        return [Problem(where, f"a typed value is one type and its value, got {len(v)} keys",
                        "write e.g. {N: '{min}'} or {SS: ['a', 'b']}")]
    (tag, body), = v.items()
    want = {"S": str, "N": str, "B": str, "BOOL": bool, "NULL": bool, "SS": list, "NS": list, "BS": list}[tag]
    if tag not in FILTER_VALUE_TYPES or not isinstance(body, want) or (tag == "NULL" and body is not True):
        return [Problem(f"{where}.{tag}", f"a {tag} value is " + {str: "a string", bool: "true or false",
                                                                  list: "a list of strings"}[want]
                        + (" (true)" if tag == "NULL" else ""))]
    if tag in ("SS", "NS", "BS") and (not body or len(set(body)) != len(body)):
        return [Problem(f"{where}.{tag}", "a set holds at least one value, each once")]
    texts = [body] if isinstance(body, str) else body if isinstance(body, list) else []
    return [pr for i, t in enumerate(texts) for pr in _template_problem(t, f"{where}.{tag}" + (
        f"[{i}]" if isinstance(body, list) else ""))]


def _path_pair_problem(one: tuple, two: tuple) -> str | None:
    """DynamoDB's words for two projection paths that overlap (one holds the other) or conflict."""
    for a, b in zip(one, two):
        if isinstance(a, int) != isinstance(b, int):
            kind = "conflict"
            break
        if a != b:
            return None
    else:
        kind = "overlap"

    def shown(parts: tuple) -> str:
        return "[" + ", ".join(f"[{x}]" if isinstance(x, int) else x for x in parts) + "]"
    return (f"Invalid ProjectionExpression: Two document paths {kind} with each other; must remove or rewrite one "
            f"of these paths; path one: {shown(one)}, path two: {shown(two)}")


def _select_problems(p: dict, where: str, index: dict | None, index_name: str) -> list[Problem]:
    """A select or projection on a write, a select that does not fit the read, paths that do not parse or overlap."""
    op, select, paths = p["operation"], p.get("select"), p.get("projection") or []
    if op not in ("get_item", "query", "scan"):
        return [Problem(f"{where}.{'select' if select else 'projection'}", f"{op} returns no items: select and "
                        "projection are a read's", "remove them")]
    out = []
    if select and op == "get_item":
        out.append(Problem(f"{where}.select", "GetItem takes no Select", "use projection to choose attributes"))
    if select == "SPECIFIC_ATTRIBUTES" and not paths:
        out.append(Problem(f"{where}.select", "SPECIFIC_ATTRIBUTES needs the attributes: a projection",
                           "add projection: [attribute, ...]"))
    if select and select != "SPECIFIC_ATTRIBUTES" and paths:
        out.append(Problem(f"{where}.projection", f"a projection goes with select SPECIFIC_ATTRIBUTES, not {select}",
                           "remove select (a projection implies SPECIFIC_ATTRIBUTES) or the projection"))
    if select == "ALL_PROJECTED_ATTRIBUTES" and index is None:
        out.append(Problem(f"{where}.select", "ALL_PROJECTED_ATTRIBUTES reads an index; this pattern reads the table",
                           "use ALL_ATTRIBUTES, or read an index"))
    if (select == "ALL_ATTRIBUTES" and index is not None and index.get("type", "global") == "global"
            and index.get("projection", "all") != "all"):
        out.append(Problem(f"{where}.select", "One or more parameter values were invalid: Select type ALL_ATTRIBUTES "
                           f"is not supported for global secondary index {index_name} because its projection type "
                           "is not ALL", "a global index cannot fetch from the table: select what it projects, or "
                           "project all"))
    parsed = []
    for i, text in enumerate(paths):
        try:
            parsed.append(parse_path(text).parts)
        except ConditionSyntaxError as e:
            out.append(Problem(f"{where}.projection[{i}]", f"Invalid ProjectionExpression: {e.msg} at character "
                               f"{e.at + 1} of {text!r}", "write a document path: a, a.b, a[0]"))
    for i, one in enumerate(parsed):
        for two in parsed[i + 1:]:
            found = _path_pair_problem(one, two)
            if found:
                out.append(Problem(f"{where}.projection", found))
                return out
    return out


def _update_problems(p: dict, where: str, table: dict) -> list[Problem]:
    """An update on another operation, one that does not parse, that changes a key, or whose values do not match."""
    if p["operation"] != "update_item":
        return [Problem(where, f"an UpdateExpression is an update_item's; {p['operation']} takes none",
                        "make the pattern an update_item, or remove update")]
    u = p["update"]
    try:
        actions = parse_update(u["expression"])
    except ConditionSyntaxError as e:
        text = u["expression"]
        return [Problem(f"{where}.expression", f"Invalid UpdateExpression: {e.msg} at character {e.at + 1} "
                        f"(after {text[max(0, e.at - 30):e.at]!r})",
                        "write DynamoDB's update syntax: SET a = :v, n = n + :one REMOVE b ADD c :n DELETE s :x")]
    out = []
    keys = {table["partition_key"], table.get("sort_key")}
    for a in actions:
        if a.path.name in keys:
            out.append(Problem(f"{where}.expression", f"Cannot update attribute {a.path.name}. This attribute is "
                               "part of the key", "a key is the item's identity: write a new item instead"))
    return out + _expression_value_problems(u.get("values") or {}, update_values(actions), where)
