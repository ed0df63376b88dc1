"""Table designs without items: a CloudFormation template (each ``AWS::DynamoDB::Table`` and
``AWS::DynamoDB::GlobalTable`` resource) or a table's description (the JSON ``aws dynamodb
describe-table`` prints, or DescribeTable's ``Table``) as :class:`~.table_sources.TableSource` s with
no items: the import drafts a spec of the table's keys, indexes (global and local, with their
projections) and billing, under the DynamoDB rule profile, to which data can be added later.

A template is YAML or JSON; its short-form functions (``!Ref``, ``!Sub``, ``!GetAtt`` ...) are read as
their long form. A ``Ref`` to a template parameter takes the parameter's ``Default``; a value no
default gives (a table name made by ``!Sub``, a capacity from a ``!Ref`` without default) is replaced,
with a note: the resource's logical id for a name, 1 for a capacity.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from blue_nb.errors import SourceError
from blue_nb.imports.infer import domain_name
from blue_nb.imports.infer_keys import keys_from_describe
from blue_nb.imports.table_sources import TableSource

__all__ = ["MAX_DESIGN_BYTES", "TABLE_TYPES", "description_sources", "template_sources"]

TABLE_TYPES = ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
MAX_DESIGN_BYTES = 10_000_000          # templates are at most 1 MB (CloudFormation's own limit); descriptions KBs


class _TemplateLoader(yaml.SafeLoader):
    """YAML of a CloudFormation template: ``!Name value`` is ``{"Fn::Name": value}`` (``!Ref``: ``{"Ref": ...}``)."""


def _function(loader: _TemplateLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}": value}


_TemplateLoader.add_multi_constructor("!", _function)


def _read(path: str | Path, what: str) -> tuple[Path, str]:
    p = Path(path)
    if not p.is_file():
        raise SourceError(f"no such {what}", where=str(p), hint=f"give the path of the {what}")
    with p.open("rb") as f:
        raw = f.read(MAX_DESIGN_BYTES + 1)
    if len(raw) > MAX_DESIGN_BYTES:
        raise SourceError(f"the file is larger than {MAX_DESIGN_BYTES:,} bytes", where=str(p),
                          hint=f"is this a {what}?")
    try:
        return p, raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SourceError("not UTF-8 text", where=str(p), hint=f"a {what} is JSON or YAML text", cause=e) from e


def template_sources(path: str | Path, *, domain: str | None = None) -> list[TableSource]:
    """One source (no items) per DynamoDB table resource of the template; ``domain`` names the spec of a
    one-table template, or picks that table of several."""
    p, text = _read(path, "CloudFormation template")
    try:
        doc = yaml.load(text, Loader=_TemplateLoader)        # JSON is YAML too
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{p}:{mark.line + 1}:{mark.column + 1}" if mark else str(p)
        raise SourceError(f"not a readable template: {getattr(e, 'problem', None) or e}", where=where,
                          hint="a CloudFormation template is JSON or YAML", cause=e) from e
    resources = doc.get("Resources") if isinstance(doc, dict) else None
    if not isinstance(resources, dict):
        raise SourceError("not a CloudFormation template: no Resources mapping", where=str(p),
                          hint="give a template with AWS::DynamoDB::Table or AWS::DynamoDB::GlobalTable resources")
    params = {k: v.get("Default") for k, v in (doc.get("Parameters") or {}).items() if isinstance(v, dict)}
    found = []
    for logical, res in resources.items():
        if not isinstance(res, dict) or res.get("Type") not in TABLE_TYPES:
            continue
        where = f"{p}: Resources.{logical}"
        props = res.get("Properties")
        if not isinstance(props, dict):
            raise SourceError("the table resource has no Properties", where=where,
                              hint="a table needs KeySchema and AttributeDefinitions")
        notes: list[str] = []
        desc = _description(logical, props, res["Type"], params, where, notes)
        found.append(_source(desc, f"{res['Type']} {logical} of {p.name}", domain, where, notes))
    if not found:
        raise SourceError(f"the template has no {' or '.join(TABLE_TYPES)} resource", where=str(p),
                          hint="give a template that declares a DynamoDB table")
    return _pick(found, domain, str(p))


def description_sources(path: str | Path, *, domain: str | None = None) -> list[TableSource]:
    """The source (no items) of a table description: ``aws dynamodb describe-table`` output, or its ``Table``."""
    p, text = _read(path, "table description")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise SourceError(f"not valid JSON: {e.msg}", where=f"{p}:{e.lineno}:{e.colno}",
                          hint="save the output of aws dynamodb describe-table --table-name NAME", cause=e) from e
    table = doc.get("Table", doc) if isinstance(doc, dict) else None
    if not isinstance(table, dict) or not isinstance(table.get("KeySchema"), list):
        raise SourceError("not a table description: no Table.KeySchema", where=str(p),
                          hint="save the output of aws dynamodb describe-table --table-name NAME")
    name = table.get("TableName") if isinstance(table.get("TableName"), str) else p.stem
    return [_source({**table, "TableName": name}, f"the description of {name} in {p.name}", domain, str(p), [])]


def _source(desc: dict[str, Any], label: str, domain: str | None, where: str, notes: list[str]) -> TableSource:
    try:
        keys = keys_from_describe(desc)
    except (KeyError, TypeError, ValueError) as e:
        raise SourceError(f"the table's keys or indexes are not complete ({type(e).__name__}: {e})", where=where,
                          hint="KeySchema, AttributeDefinitions and each index's IndexName, KeySchema and "
                               "Projection are needed") from e
    missing = [a for a in (keys.partition_key, keys.sort_key) if a and a not in keys.types]
    if missing:
        raise SourceError(f"key attribute {missing[0]!r} has no AttributeDefinitions entry", where=where,
                          hint="every key attribute of the table and its indexes needs its type (S, N or B)")
    name = desc["TableName"]
    keys.how = f"from {label}"
    return TableSource(domain or domain_name(name), name, keys, label, lambda: iter(()), notes)


def _pick(found: list[TableSource], domain: str | None, where: str) -> list[TableSource]:
    if domain is None or len(found) == 1:
        return found
    picked = [t for t in found if domain_name(t.table_name or "") == domain]
    if not picked:
        raise SourceError(f"no table of domain {domain!r} in the template (its tables: "
                          f"{', '.join(str(t.table_name) for t in found)})", where=where,
                          hint="give the domain of one of its tables, or none to import them all")
    return picked


def _resolved(value: Any, params: dict[str, Any]) -> Any:
    if isinstance(value, dict) and set(value) == {"Ref"} and params.get(value["Ref"]) is not None:
        return params[value["Ref"]]
    return value


def _capacity(value: Any, params: dict[str, Any], what: str, notes: list[str]) -> int:
    value = _resolved(value, params)
    try:
        n = int(value)
    except (TypeError, ValueError):
        notes.append(f"{what} is {json.dumps(value, default=str)[:60]}, not a number the template gives: 1 assumed")
        return 1
    return max(n, 1)


def _description(logical: str, props: dict[str, Any], kind: str, params: dict[str, Any], where: str,
                 notes: list[str]) -> dict[str, Any]:
    """DescribeTable's shape of a table resource's Properties."""
    name = _resolved(props.get("TableName"), params)
    if not isinstance(name, str) or not name:
        if name is not None:
            notes.append(f"the table name is {json.dumps(name, default=str)[:60]}, made when the stack is created: "
                         f"named after the resource, {logical}")
        name = logical
    desc: dict[str, Any] = {"TableName": name}
    for field in ("KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if field in props:
            desc[field] = props[field]
    if not isinstance(desc.get("KeySchema"), list) or not isinstance(desc.get("AttributeDefinitions"), list):
        raise SourceError("the table has no KeySchema or AttributeDefinitions list", where=f"{where}.Properties",
                          hint="a table resource declares both")
    mode = _resolved(props.get("BillingMode"), params) or "PROVISIONED"      # CloudFormation's default
    desc["BillingModeSummary"] = {"BillingMode": mode}
    if mode == "PROVISIONED":
        if kind == "AWS::DynamoDB::Table":
            thr = props.get("ProvisionedThroughput") or {}
            read, write = thr.get("ReadCapacityUnits"), thr.get("WriteCapacityUnits")
        else:                                             # a global table: write settings, each replica's reads
            write = _seed((props.get("WriteProvisionedThroughputSettings") or {}), "WriteCapacityAutoScalingSettings")
            replicas = [r for r in props.get("Replicas") or [] if isinstance(r, dict)]
            rps = (replicas[0].get("ReadProvisionedThroughputSettings") or {}) if replicas else {}
            read = rps.get("ReadCapacityUnits", _seed(rps, "ReadCapacityAutoScalingSettings"))
        desc["ProvisionedThroughput"] = {"ReadCapacityUnits": _capacity(read, params, "the read capacity", notes),
                                         "WriteCapacityUnits": _capacity(write, params, "the write capacity", notes)}
    return desc


def _seed(settings: dict[str, Any], auto: str) -> Any:
    scaling = settings.get(auto) if isinstance(settings, dict) else None
    if isinstance(scaling, dict):
        return scaling.get("SeedCapacity", scaling.get("MinCapacity"))
    return None
