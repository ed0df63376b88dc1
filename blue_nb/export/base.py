"""What every export format shares: the format record, the refusal of a spec with errors, the
validation stamp (version, time, findings, content hash) and the clock.

A format is a :class:`ExportFormat` whose ``render(spec, *, findings=None, data=None, force=False,
now=None) -> str`` returns one text document. Formats write only their document: every one of them
is made by a *build* function ``build(spec, ctx) -> str`` wrapped by :func:`gated`, which checks the
spec first (:func:`blue_nb.rules.check_spec` when no ``findings`` are given), refuses a spec with
errors (:class:`ExportRefused`) unless ``force``, and hands the build an :class:`ExportContext`
with the findings, the stamp and the time, so that a forced export can say in the file that it is
not validated.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from blue_nb import __version__
from blue_nb.errors import BlueNbError
from blue_nb.rules import Findings, check_spec
from blue_nb.spec import Spec

__all__ = ["ExportContext", "ExportFormat", "ExportRefused", "content_hash", "export_time", "gated", "stamp_text",
           "version"]

FORCE_HINT = "fix them, or --force (the file then says it is NOT validated)"


class ExportRefused(BlueNbError):
    """The spec has errors: an export would hand over a design the checks refuse."""

    def __init__(self, msg: str, *, errors: list[str] | None = None, **kw):
        self.errors = list(errors or [])
        super().__init__(msg, **kw)


@dataclass(frozen=True)
class ExportFormat:
    """One export format: its name (``--format``), file suffix, media type and renderer."""

    name: str
    suffix: str
    media_type: str
    render: Callable[..., str]
    description: str = ""
    refuses_errors: bool = True          # False: a report, made for a spec with errors too


def version() -> str:
    """blue_nb's version, as the stamps give it."""
    return __version__


def export_time(now: datetime | str | None = None) -> datetime:
    """``now`` as an aware UTC datetime to the second: a datetime (naive is read as UTC), an ISO 8601
    text, or None for the clock. Tests and golden files pass a fixed one."""
    if now is None:
        now = datetime.now(timezone.utc)
    elif isinstance(now, str):
        try:
            now = datetime.fromisoformat(now.replace("Z", "+00:00"))
        except ValueError as e:
            raise BlueNbError(f"cannot read the export time {now!r}", where="now",
                              hint="give an ISO 8601 time such as 2026-01-31T12:00:00Z", cause=e) from e
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    return now.astimezone(timezone.utc).replace(microsecond=0)


def content_hash(spec: Spec) -> str:
    """sha256 of the spec's canonical JSON (its mapping without the stamp, keys sorted, no spaces, UTF-8):
    the same for the YAML and the JSON export, and recomputable from a loaded spec."""
    text = json.dumps(spec.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ExportContext:
    """What a build function gets besides the spec."""

    findings: Findings
    now: datetime
    force: bool = False
    data: Any = None

    @property
    def validated(self) -> bool:
        """True when the checks found no error (a forced export of a spec with errors is not validated)."""
        return not self.findings.has_errors

    @property
    def timestamp(self) -> str:
        """The export time, UTC ISO 8601 (``2026-01-31T12:00:00Z``)."""
        return self.now.strftime("%Y-%m-%dT%H:%M:%SZ")

    def error_rules(self) -> list[str]:
        """The rules of the error findings, each once, in the report's order."""
        return list(dict.fromkeys(f.rule for f in self.findings.errors))

    def not_validated(self) -> str:
        """``NOT VALIDATED: exported with --force despite 1 error (ADR4-SINGLE-WRITER)``; '' when validated."""
        if self.validated:
            return ""
        n = len(self.findings.errors)
        return (f"NOT VALIDATED: exported with --force despite {n} error{'s' if n != 1 else ''} "
                f"({', '.join(self.error_rules())})")

    def counts_text(self) -> str:
        """``1 error, 2 warnings, 4 notes``."""
        return self.findings.summary()

    def stamp(self, spec: Spec) -> dict[str, Any]:
        """The validation stamp: version, time, whether validated, findings per severity, items
        checked (None: the spec alone), the content hash; and a note when not validated."""
        out: dict[str, Any] = {"blue_nb": version(), "exported_at": self.timestamp, "validated": self.validated,
                               "findings": dict(self.findings.counts), "items_checked": self.findings.items_checked,
                               "content_sha256": content_hash(spec)}
        if not self.validated:
            out["note"] = self.not_validated()
        return out


def stamp_text(spec: Spec, ctx: ExportContext) -> str:
    """One sentence for a description field: who exported what, when, and whether it was validated."""
    head = f"Exported by blue_nb {version()} from spec {spec.domain} at {ctx.timestamp}"
    checked = "" if ctx.findings.items_checked is None else f", {ctx.findings.items_checked:,} items checked"
    if ctx.validated:
        return f"{head}; validated: {ctx.counts_text()}{checked}."
    return f"{head}; {ctx.not_validated()}{checked}."


def _refusal(spec: Spec, findings: Findings, fmt: str) -> ExportRefused:
    errors = [f"{f.rule} at {f.where}: {f.message}" for f in findings.errors]
    n = len(errors)
    return ExportRefused(f"{fmt} export refused: the spec has {n} error{'s' if n != 1 else ''}:\n  - "
                         + "\n  - ".join(errors), where=spec.source_path or spec.domain, hint=FORCE_HINT,
                         errors=errors)


def gated(fmt: str, build: Callable[[Spec, ExportContext], str], *, refuse: bool = True) -> Callable[..., str]:
    """The ``render`` of a format: check the spec (unless ``findings`` are given), refuse errors
    unless ``force`` (or ``refuse=False``: a review report shows the errors instead), then build the
    document with an :class:`ExportContext`."""

    @functools.wraps(build)
    def render(spec: Spec, *, findings: Findings | None = None, data: Any = None, force: bool = False,
               now: datetime | str | None = None) -> str:
        found = findings if findings is not None else check_spec(spec)
        if found.has_errors and refuse and not force:
            raise _refusal(spec, found, fmt)
        return build(spec, ExportContext(found, export_time(now), force, data))

    return render
