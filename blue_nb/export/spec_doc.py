"""``spec-yaml`` and ``spec-json``: the canonical spec, plus its validation stamp.

The body is exactly what :func:`blue_nb.spec.dumps_spec` writes (the contract's key order), and the
stamp is one more top-level field, ``stamp``, last: the spec model declares it (optional, like
``inferred``), :func:`blue_nb.spec.load_spec` keeps it on ``Spec.stamp`` outside equality, and
:meth:`Spec.to_dict` leaves it out, so ``loads_spec(export) == spec`` and a re-saved spec drops a stamp
that no longer describes it. The YAML file also opens with a comment block that says the same for a
person. :func:`verify_stamp` recomputes the content hash of a loaded spec and compares.
"""

from __future__ import annotations

import json

import yaml

from blue_nb.export.base import ExportContext, content_hash, version
from blue_nb.spec import Spec, dumps_spec

__all__ = ["render_spec_json", "render_spec_yaml", "verify_stamp"]


def _comment(spec: Spec, ctx: ExportContext) -> str:
    checked = ("spec only" if ctx.findings.items_checked is None
               else f"{ctx.findings.items_checked:,} items checked")
    state = (f"validated ({checked}): {ctx.counts_text()}" if ctx.validated
             else f"{ctx.not_validated()}; checks ({checked}): {ctx.counts_text()}")
    lines = [f"blue_nb {version()} export of spec {spec.domain} (table {spec.table_name}) at {ctx.timestamp}",
             state,
             f"content sha256 {content_hash(spec)} (the stamp at the end; blue_nb.export.verify_stamp checks it)"]
    return "".join(f"# {line}\n" for line in lines)


def render_spec_yaml(spec: Spec, ctx: ExportContext) -> str:
    """The spec as YAML (dumps_spec's text), a leading comment block, and the ``stamp`` field last."""
    stamp = yaml.safe_dump({"stamp": ctx.stamp(spec)}, sort_keys=False, allow_unicode=True, width=100)
    return _comment(spec, ctx) + dumps_spec(spec, "yaml") + stamp


def render_spec_json(spec: Spec, ctx: ExportContext) -> str:
    """The spec as JSON (dumps_spec's key order) with the ``stamp`` field last."""
    return json.dumps({**spec.to_dict(), "stamp": ctx.stamp(spec)}, indent=2, ensure_ascii=False) + "\n"


def verify_stamp(spec: Spec) -> bool:
    """True when a loaded spec carries a stamp whose content hash is the hash of the spec as loaded
    (the file was not changed since the export); False without a stamp or when they differ."""
    return bool(spec.stamp) and spec.stamp.get("content_sha256") == content_hash(spec)
