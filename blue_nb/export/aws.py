"""``create-table`` and ``cloudformation``: the table for AWS.

* ``create-table``: the CreateTable request of :func:`blue_nb.patterns.create_table_request`, as JSON
  that works both as ``aws dynamodb create-table --cli-input-json file://x.json`` and as boto3's
  ``create_table(**json.load(f))``. Nothing but CreateTable input keys: a validated spec gives exactly
  the request; a forced export of a spec with errors adds the one place the request has for a word,
  ``Tags``, with ``blue_nb:validated`` = ``false ...`` naming the rules.
* ``cloudformation`` / ``cloudformation-json``: an ``AWS::DynamoDB::Table`` template (keys, attribute
  definitions, indexes with their projections, billing mode, provisioned throughput per table and GSI,
  point-in-time recovery and deletion protection on, Retain policies) with the table's name and ARN
  as outputs; ``Description`` says who exported it, whether it was validated and where the
  throughput numbers come from.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import yaml

from blue_nb.errors import BlueNbError
from blue_nb.export.base import ExportContext, stamp_text
from blue_nb.patterns import create_table_request
from blue_nb.patterns.create_table import (GLOBAL_SECONDARY_INDEXES, INDEX_NAME, LOCAL_SECONDARY_INDEXES,
                                           PROVISIONED, PROVISIONED_THROUGHPUT, READ_CAPACITY_UNITS,
                                           WRITE_CAPACITY_UNITS)
from blue_nb.spec import Spec

__all__ = ["TABLE_RESOURCE", "cloudformation_template", "render_cloudformation_json", "render_cloudformation_yaml",
           "render_create_table", "throughputs"]

TABLE_RESOURCE = "Table"                  # the template's logical id of the table
MAX_DESCRIPTION = 1024                    # CloudFormation's limit on a template's Description
_TAG_CHARS = re.compile(r"[^\w\s.:/=+\-@]", re.UNICODE)   # what a DynamoDB tag value may not hold


def _tag_value(text: str) -> str:
    return re.sub(r"\s+", " ", _TAG_CHARS.sub(" ", text)).strip()[:256]


def render_create_table(spec: Spec, ctx: ExportContext) -> str:
    """The CreateTable request as JSON (plus a ``blue_nb:validated`` tag when forced past errors)."""
    request = create_table_request(spec)
    if not ctx.validated:
        request["Tags"] = [{"Key": "blue_nb:validated",
                            "Value": _tag_value("false: " + ctx.not_validated().removeprefix("NOT VALIDATED: "))}]
    return json.dumps(request, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- CloudFormation


def _units(value: Any, where: str) -> int:
    """A modelled peak as whole capacity units: rounded up, at least 1."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x) or x < 0:
        raise BlueNbError(f"capacity {value!r} for {where} is not a number of units", where=where,
                          hint="give (read units, write units) per table or index, e.g. {'table': (120, 40)}")
    return max(1, math.ceil(x))


def throughputs(spec: Spec, peaks: Mapping[str, Any] | None = None) -> tuple[dict[str, dict[str, int]], str]:
    """Provisioned throughput per ``table`` and per GSI, and a sentence saying where the numbers come
    from: ``peaks`` (``{"table": (rcu, wcu), "gsi1": (rcu, wcu)}``, modelled peaks given by the caller,
    rounded up) where given, else the spec's read_capacity / write_capacity."""
    gsis = [n for n, ix in spec.table.indexes.items() if ix.type == "global"]
    peaks = dict(peaks or {})
    unknown = [k for k in peaks if k != "table" and k not in gsis]
    if unknown:
        raise BlueNbError(f"capacity given for {', '.join(map(repr, unknown))}, which is not the table or a GSI",
                          where="data", hint="name 'table' or one of: " + (", ".join(gsis) or "(no GSI)"))
    out, modelled = {}, []
    for name in ["table", *gsis]:
        if name in peaks:
            rcu, wcu = peaks[name]
            out[name] = {READ_CAPACITY_UNITS: _units(rcu, name), WRITE_CAPACITY_UNITS: _units(wcu, name)}
            modelled.append(name)
        else:
            out[name] = {READ_CAPACITY_UNITS: int(spec.table.read_capacity or 1),
                         WRITE_CAPACITY_UNITS: int(spec.table.write_capacity or 1)}
    shown = "; ".join(f"{n} {t[READ_CAPACITY_UNITS]} RCU / {t[WRITE_CAPACITY_UNITS]} WCU" for n, t in out.items())
    if not modelled:
        why = "from the spec's read_capacity / write_capacity"
    elif len(modelled) == len(out):
        why = "from the modelled peak traffic (rounded up)"
    else:
        why = (f"of {', '.join(modelled)} from the modelled peak traffic (rounded up), of the others from the "
               "spec's read_capacity / write_capacity")
    return out, f"Provisioned throughput {why}: {shown}."


def cloudformation_template(spec: Spec, ctx: ExportContext, *, peaks: Mapping[str, Any] | None = None,
                            point_in_time_recovery: bool = True, deletion_protection: bool = True) -> dict[str, Any]:
    """The template as a mapping (what both renderings write)."""
    request = create_table_request(spec)
    props: dict[str, Any] = {k: v for k, v in request.items() if k not in (PROVISIONED_THROUGHPUT,)}
    billing = "Billing: on demand (PAY_PER_REQUEST)."
    if request["BillingMode"] == PROVISIONED:
        units, billing = throughputs(spec, peaks)
        props[PROVISIONED_THROUGHPUT] = units["table"]
        for gsi in props.get(GLOBAL_SECONDARY_INDEXES, []):
            gsi[PROVISIONED_THROUGHPUT] = units[gsi[INDEX_NAME]]
    order = ["TableName", "AttributeDefinitions", "KeySchema", "BillingMode", PROVISIONED_THROUGHPUT,
             GLOBAL_SECONDARY_INDEXES, LOCAL_SECONDARY_INDEXES]
    props = {k: props[k] for k in order if k in props}
    props["PointInTimeRecoverySpecification"] = {"PointInTimeRecoveryEnabled": point_in_time_recovery}
    props["DeletionProtectionEnabled"] = deletion_protection
    what = f"DynamoDB table {spec.table_name} of the blue_nb spec {spec.domain}"
    if spec.description:
        what += f": {spec.description.rstrip('.')}"
    tail = f". {stamp_text(spec, ctx)} {billing}"
    room = MAX_DESCRIPTION - len(tail)
    description = (what if len(what) <= room else what[: max(room - 3, 0)] + "...") + tail
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": description[:MAX_DESCRIPTION],
        "Resources": {TABLE_RESOURCE: {"Type": "AWS::DynamoDB::Table", "DeletionPolicy": "Retain",
                                       "UpdateReplacePolicy": "Retain", "Properties": props}},
        "Outputs": {
            "TableName": {"Description": "The table's name", "Value": {"Ref": TABLE_RESOURCE}},
            "TableArn": {"Description": "The table's ARN", "Value": {"Fn::GetAtt": [TABLE_RESOURCE, "Arn"]}},
        },
    }


def render_cloudformation_yaml(spec: Spec, ctx: ExportContext) -> str:
    """The template as YAML (long-form intrinsic functions: no CloudFormation tags needed)."""
    return yaml.safe_dump(cloudformation_template(spec, ctx, peaks=ctx.data), sort_keys=False, allow_unicode=True,
                          width=100)


def render_cloudformation_json(spec: Spec, ctx: ExportContext) -> str:
    """The template as JSON."""
    return json.dumps(cloudformation_template(spec, ctx, peaks=ctx.data), indent=2, ensure_ascii=False) + "\n"
