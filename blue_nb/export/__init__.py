"""Exports: a spec handed over as a file, in one of the registered formats (layer 2, pure: no
boto3, DuckDB or pandas).

>>> text = export(spec, "cloudformation", now="2026-01-31T12:00:00Z")
>>> FORMATS["workbench"].suffix
'.json'

Every format checks the spec first and refuses one with errors (:class:`ExportRefused`, naming
them) unless ``force=True``, in which case the file itself says it is NOT validated. The formats:

* ``spec-yaml``, ``spec-json`` - the canonical spec plus a validation stamp (:mod:`.spec_doc`)
* ``create-table`` - the CreateTable request for the AWS CLI and boto3 (:mod:`.aws`)
* ``cloudformation``, ``cloudformation-json`` - an ``AWS::DynamoDB::Table`` template (:mod:`.aws`)
* ``workbench`` - a NoSQL Workbench data model, format 3.0, that carries the spec (:mod:`.workbench`)
* ``report-html``, ``report-md`` - the access-pattern review report (:mod:`.review`); these show a
  spec's errors rather than refuse it, and take the measured numbers as :class:`ReviewData`

Not a document, so not in :data:`FORMATS`: ``python`` (:mod:`.python_code`) writes the access patterns as a
Python package (a folder of files), exported by :func:`blue_nb.app.python_export.export_python`.

Adding a format is one :func:`register` call with a build function ``(spec, ctx) -> str``
(:mod:`.base` has :class:`ExportContext`: findings, stamp, time, the caller's ``data``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from blue_nb.errors import BlueNbError
from blue_nb.export import aws, review, spec_doc, workbench
from blue_nb.export.aws import cloudformation_template, throughputs
from blue_nb.export.base import ExportContext, ExportFormat, ExportRefused, content_hash, export_time, gated
from blue_nb.export.review import ReviewData, example_request
from blue_nb.export.review_diff import Change, Changes, cost_reason, findings_changes, spec_changes
from blue_nb.export.review_render import Image
from blue_nb.export.spec_doc import verify_stamp
from blue_nb.export.workbench import BLUE_NB_KEY, SAMPLE_ITEMS, table_model, workbench_model
from blue_nb.rules import Findings
from blue_nb.spec import Spec

__all__ = ["BLUE_NB_KEY", "FORMATS", "REPORTS", "SAMPLE_ITEMS", "Change", "Changes", "ExportContext", "ExportFormat",
           "ExportRefused", "Image", "ReviewData", "cloudformation_template", "cost_reason", "example_request", "findings_changes",
           "spec_changes", "content_hash", "export", "export_time", "gated", "register", "table_model",
           "throughputs", "verify_stamp", "workbench_model"]

#: format name -> its record; the CLI's --format choices, in this order
FORMATS: dict[str, ExportFormat] = {}


def register(name: str, suffix: str, media_type: str, build: Callable[[Spec, ExportContext], str],
             description: str = "", *, refuse: bool = True) -> ExportFormat:
    """Add a format whose document ``build(spec, ctx)`` makes; the check, the refusal (unless
    ``refuse=False``, for a report that shows the errors) and the stamp are shared."""
    fmt = ExportFormat(name, suffix, media_type, gated(name, build, refuse=refuse), description, refuse)
    FORMATS[name] = fmt
    return fmt


register("spec-yaml", ".yaml", "application/yaml", spec_doc.render_spec_yaml,
         "the spec as YAML, with a validation stamp")
register("spec-json", ".json", "application/json", spec_doc.render_spec_json,
         "the spec as JSON, with a validation stamp")
register("create-table", ".json", "application/json", aws.render_create_table,
         "the CreateTable request: aws dynamodb create-table --cli-input-json, or boto3 create_table(**request)")
register("cloudformation", ".yaml", "application/yaml", aws.render_cloudformation_yaml,
         "an AWS::DynamoDB::Table CloudFormation template (YAML)")
register("cloudformation-json", ".json", "application/json", aws.render_cloudformation_json,
         "an AWS::DynamoDB::Table CloudFormation template (JSON)")
register("workbench", ".json", "application/json", workbench.render_workbench,
         "a NoSQL Workbench data model (format 3.0) with the items; it carries the spec for blue_nb's import")
register("report-html", ".html", "text/html", review.render_report_html,
         "the access-pattern review report, one self-contained HTML file (pictures embedded); made even "
         "with errors, which it shows", refuse=False)
register("report-md", ".md", "text/markdown", review.render_report_md,
         "the review report as Markdown for a pull request (pictures as PNG files beside it)", refuse=False)


#: the review reports: they take :class:`ReviewData` and are made for a spec with errors too
REPORTS = ("report-html", "report-md")


def export(spec: Spec, fmt: str, *, findings: Findings | None = None, data: Any = None, force: bool = False,
           now: datetime | str | None = None) -> str:
    """The spec as one document in format ``fmt`` (a name of :data:`FORMATS`).

    ``findings``: the checks already run (else :func:`blue_nb.rules.check_spec` runs); ``data``: what
    the format uses besides the spec (``cloudformation``: ``{"table": (rcu, wcu), "<gsi>": (rcu, wcu)}``
    modelled peaks for PROVISIONED; ``workbench``: entity -> sample items); ``force``: export a spec
    with errors, saying so in the file; ``now``: the export time (default: the clock)."""
    record = FORMATS.get(fmt)
    if record is None:
        raise BlueNbError(f"unknown export format {fmt!r}", where="--format",
                          hint="use one of: " + ", ".join(FORMATS))
    return record.render(spec, findings=findings, data=data, force=force, now=now)
