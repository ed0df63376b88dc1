"""Hand a design over: :func:`export_spec` (``blue-nb export``) checks the spec, gathers what the
format takes from the data, renders it with :mod:`blue_nb.export` and writes the file.

Without ``data_dir`` the checks are the spec's alone (:func:`blue_nb.rules.check_spec`); with it,
:func:`blue_nb.app.workflows.validate` checks the items built from the rows too, and

* ``workbench`` gets every item of every entity, or with ``sample`` the first ``sample`` rows of each
  entity's source file (the result says how many of how many);
* ``cloudformation`` of a PROVISIONED table gets the modelled peaks: the partition heat model
  (:func:`blue_nb.heat.partition_heat` on an in-memory DuckDB copy of the items) gives the highest
  per-second RCU and WCU of the table and of each GSI, which become its provisioned throughput
  (rounded up); where the model does not run, the spec's capacities stay, and the result says so.

With ``duckdb`` instead of ``data_dir`` the same comes from the items a ``blue-nb load`` put in that
DuckDB file, which must have been built with this spec (or a version of it that builds the same items).

Layer 3.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import Any

from blue_nb.app.workflows import as_spec, data_store, load_data, source_files, validate
from blue_nb.errors import BlueNbError, SourceError
from blue_nb.export import (
    FORMATS,
    REPORTS,
    ReviewData,
    export,
    export_time,
)
from blue_nb.items import ItemBuilder
from blue_nb.rules import RULES, Findings
from blue_nb.sources.files import iter_rows
from blue_nb.spec import Spec
from blue_nb.printing import number

__all__ = ["FILE_NAMES", "ExportResult", "export_all", "export_spec", "modelled_peaks", "sample_items_by_entity"]

_CFN = ("cloudformation", "cloudformation-json")


@dataclass
class ExportResult:
    """What :func:`export_spec` made: the document, where it went, and the checks behind it."""

    format: str
    text: str
    path: Path | None                   # None: not written (out None, or "-" for stdout)
    findings: Findings
    spec: str
    sample_items: int = 0               # workbench: items written into the facets
    total_items: int = 0                # workbench: the items there are (more than sample_items when sampled)
    capacity: str = ""                  # cloudformation, PROVISIONED: where the throughput numbers come from
    notes: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)   # report-md: the pictures written beside it

    def __repr__(self) -> str:
        return f"ExportResult({self.summary()})"

    def row(self) -> dict[str, Any]:
        """One line of a table of exports: format, file, bytes, validated, findings."""
        return {"format": self.format, "file": self.path.name if self.path else "-",
                "bytes": len(self.text.encode("utf-8")), "validated": self.validated,
                "findings": self.findings.summary()}

    def _repr_html_(self) -> str:
        """A report shows itself in a notebook (in a frame, so its style stays its own); other formats as text."""
        import html  # deferred: only a notebook displays a result

        if self.format == "report-html":
            return (f'<iframe srcdoc="{html.escape(self.text)}" style="width:100%;height:900px;border:1px solid '
                    f'#ddd" sandbox=""></iframe><p>{html.escape(self.summary())}</p>')
        return f"<p>{html.escape(self.summary())}</p><pre>{html.escape(self.text[:20000])}</pre>"

    @property
    def validated(self) -> bool:
        return not self.findings.has_errors

    def summary(self) -> str:
        """``wrote cloudformation to out/t.yaml (2,345 bytes): validated (spec only): 0 errors, ...``."""
        where = f"to {self.path}" if self.path else "to stdout"
        checked = ("spec only" if self.findings.items_checked is None
                   else f"{self.findings.items_checked:,} items checked")
        state = (f"validated ({checked}): {self.findings.summary()}" if self.validated else
                 f"NOT VALIDATED ({checked}): {self.findings.summary()}, exported with --force")
        text = f"wrote {self.format} {where} ({len(self.text.encode('utf-8')):,} bytes): {state}"
        if self.format in REPORTS:
            state = (f"validated ({checked}): {self.findings.summary()}" if self.validated
                     else f"NOT VALIDATED ({checked}): {self.findings.summary()}")
            text = f"wrote {self.format} {where} ({len(self.text.encode('utf-8')):,} bytes): {state}"
        if self.sample_items and self.sample_items < self.total_items:
            text += f"; {self.sample_items:,} of {self.total_items:,} items (a sample)"
        elif self.sample_items:
            text += f"; {self.sample_items:,} items"
        if self.files and self.format == "python":
            text += f"; {len(self.files)} files"
        elif self.files:
            text += f"; {len(self.files)} pictures in {self.files[0].parent}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "path": str(self.path) if self.path else None, "spec": self.spec,
                "bytes": len(self.text.encode("utf-8")), "validated": self.validated, "counts": self.findings.counts,
                "items_checked": self.findings.items_checked, "sample_items": self.sample_items,
                "total_items": self.total_items,
                "capacity": self.capacity, "notes": list(self.notes), "files": [str(f) for f in self.files]}


def sample_items_by_entity(spec: Spec, data_dir: str | Path | None, n: int | None = None, *,
                           duckdb: str | Path | None = None) -> dict[str, list[dict]]:
    """Entity -> its items (``n``: its first ``n``), built from the rows of its source file (or, with ``duckdb``,
    in key order from those a load put in that file)."""
    if data_dir is None:
        with data_store(spec, None, duckdb) as store:
            return {name: list(store.iter_items(spec.table_name, name, limit=n)) for name in spec.entities}
    builder = ItemBuilder(spec)
    return {name: list(islice(builder.items(spec.entities[name], iter_rows(path)), n))
            for name, path in source_files(spec, data_dir).items()}


def modelled_peaks(spec: Spec, data_dir: str | Path | None, *,
                   duckdb: str | Path | None = None) -> dict[str, tuple[float, float]]:
    """``{"table": (rcu, wcu), "<gsi>": (rcu, wcu)}``: the highest units per second the heat model
    gives the table and each GSI on the items of ``data_dir`` (or of the loaded file ``duckdb``),
    summed over keys, per second."""
    with data_store(spec, data_dir, duckdb) as store:
        if data_dir is not None:
            load_data(spec, data_dir, stores=[store], progress=False)
        from blue_nb.heat import partition_heat  # deferred: numpy and pandas, for PROVISIONED templates only

        report = partition_heat(spec, store)
    gsis = {n for n, ix in spec.table.indexes.items() if ix.type == "global"}
    timeline = report.timeline
    if not len(timeline):
        return {}
    per_second = timeline.groupby(["index", "second"])[["rcu", "wcu"]].sum().groupby(level="index").max()
    return {str(ix): (float(row["rcu"]), float(row["wcu"])) for ix, row in per_second.iterrows()
            if ix == "table" or ix in gsis}


def export_spec(spec: Spec | str | Path, fmt: str, *, data_dir: str | Path | None = None,
                duckdb: str | Path | None = None, force: bool = False,
                out: str | Path | None = None, now: datetime | str | None = None,
                against: Spec | str | Path | None = None, prices: Any = None,
                checked: tuple[Findings, ReviewData | None] | None = None, overwrite: bool = True,
                sample: int | None = None) -> ExportResult:
    """Check ``spec`` and export it as ``fmt`` (a name of :data:`blue_nb.export.FORMATS`).

    ``data_dir``: rows to check the items too, and to give the format sample items or modelled peaks
    (module docstring); ``duckdb``: instead of the rows, a DuckDB file a load filled with them;
    ``force``: export a spec with errors, the file saying it is NOT validated;
    ``out``: the file to write (parent folders are created), ``"-"`` or None to write none (the CLI
    prints ``result.text`` then); ``now``: the export time (ISO 8601 text or datetime; default the clock).
    A spec with errors is refused with :class:`blue_nb.export.ExportRefused` (nothing written), except
    by the review reports (``report-html``, ``report-md``), which show the errors; they take
    ``against`` (the previous spec: what changed) and ``prices`` (a price file for the cost section).
    ``checked``: ``(findings, review data)`` already computed for this spec and data (``export_all``
    checks once for every format); the review data may be None for a document format. ``sample``: the
    Workbench model gets that many items per entity instead of all of them (the result says how many of how many).

    The export never writes over its own inputs (the spec, ``against``, ``prices``, the DuckDB file, a
    source file under ``data_dir``): such an ``out`` is refused before any work. An existing file
    is replaced only with ``overwrite`` (the CLI passes ``--force``). The file (and a report-md's
    pictures folder) is written aside and renamed into place, so a failed export leaves nothing
    behind and the file that was there stays as it was."""
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int) or sample < 1):
        raise BlueNbError(f"--sample must be a whole number of items per entity, 1 or more, not {sample!r}",
                          where="--sample", hint="leave --sample out to carry every item")
    if fmt not in FORMATS:
        raise BlueNbError(f"unknown export format {fmt!r}", where="--format", hint="use one of: " + ", ".join(FORMATS))
    if fmt not in REPORTS and (against is not None or prices is not None):
        raise BlueNbError("--against and --prices are for the review reports", where="--format",
                          hint="use --format report-html or report-md, or leave them out")
    spec = as_spec(spec)
    when = export_time(now)                                   # a bad --now fails before any work
    target = _target(out, fmt, overwrite, _inputs(spec, data_dir, duckdb, against, prices))
    if fmt in REPORTS:
        review = checked if checked is not None and checked[1] is not None else None
        from blue_nb.app.review import review_data  # deferred: matplotlib, for the reports only

        return _report(spec, fmt, target, when, review or review_data(spec, data_dir, duckdb=duckdb, against=against,
                                                                   prices=prices))
    with_data = data_dir is not None or duckdb is not None
    findings = checked[0] if checked is not None else validate(spec, data_dir, duckdb=duckdb)
    data: Any = None
    notes: list[str] = []
    capacity = ""
    provisioned = fmt in _CFN and spec.table.billing_mode == "PROVISIONED"
    if with_data and provisioned:
        data, capacity = _peaks(spec, data_dir, duckdb, notes)
        if data:
            findings = _without_table_capacity(findings, notes)
    if with_data and fmt == "workbench" and not (findings.has_errors and not force):
        data = sample_items_by_entity(spec, data_dir, sample, duckdb=duckdb)
    if provisioned and not capacity:
        capacity = "the spec's read_capacity / write_capacity"
    text = export(spec, fmt, findings=findings, data=data, force=force, now=when)
    path = _write(text, target)
    n = sum(len(v) for v in data.values()) if fmt == "workbench" and data else 0
    total = (findings.items_checked or n) if sample is not None else n
    return ExportResult(fmt, text, path, findings, spec.source_path or spec.domain, n, total, capacity, notes)


#: format -> the file it is written to by :func:`export_all` ({domain} is the spec's domain)
FILE_NAMES = {"spec-yaml": "{domain}.spec.yaml", "spec-json": "{domain}.spec.json",
              "create-table": "{domain}.create-table.json", "cloudformation": "{domain}.cloudformation.yaml",
              "cloudformation-json": "{domain}.cloudformation.json", "workbench": "{domain}.workbench.json",
              "report-html": "{domain}.review.html", "report-md": "{domain}.review.md"}


def export_all(spec: Spec | str | Path, out_dir: str | Path, *, data_dir: str | Path | None = None,
               duckdb: str | Path | None = None, formats: list[str] | None = None,
               against: Spec | str | Path | None = None, force: bool = False,
               now: datetime | str | None = None, overwrite: bool = True,
               sample: int | None = None) -> dict[str, ExportResult]:
    """Export ``spec`` in every format (or ``formats``) to ``out_dir``, named as :data:`FILE_NAMES`, the
    spec and its items checked once for them all; ``against`` goes to the review reports, ``sample`` to
    the Workbench model; ``overwrite``: replace files already there (as :func:`export_spec`). Format -> its
    :class:`ExportResult`."""
    spec = as_spec(spec)
    out = Path(out_dir)
    chosen = list(FORMATS) if formats is None else list(formats)
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown:
        raise BlueNbError(f"unknown export format {unknown[0]!r}", where="formats", hint="use: " + ", ".join(FORMATS))
    if any(f in REPORTS for f in chosen):            # the review's checks are validate's: one run serves all
        from blue_nb.app.review import review_data  # deferred: matplotlib, for the reports only

        checked: tuple = review_data(spec, data_dir, duckdb=duckdb, against=against)
    else:
        checked = (validate(spec, data_dir, duckdb=duckdb), None)
    return {fmt: export_spec(spec, fmt, data_dir=data_dir, duckdb=duckdb, force=force, now=now, checked=checked,
                             overwrite=overwrite,
                             out=out / FILE_NAMES.get(fmt, "{domain}." + fmt + FORMATS[fmt].suffix).format(
                                 domain=spec.domain),
                             against=against if fmt in REPORTS else None, sample=sample)
            for fmt in chosen}


def _report(spec: Spec, fmt: str, out: Path | None, when: datetime,
            review: tuple[Findings, ReviewData]) -> ExportResult:
    findings, data = review
    pictures = _pictures_folder(out)
    if fmt == "report-md" and pictures is not None and data.figures:
        data = replace(data, figure_dir=pictures.name)
    text = export(spec, fmt, findings=findings, data=data, now=when)
    if fmt == "report-md" and data.figure_dir:
        files = _write_with_pictures(text, out, data, pictures)
    else:
        files = []
        _write(text, out)
    return ExportResult(fmt, text, out, findings, spec.source_path or spec.domain, files=files)


def _pictures_folder(out: Path | None) -> Path | None:
    return out.with_name(out.stem + "_files") if out is not None else None


def _inputs(spec: Spec, data_dir: str | Path | None, duckdb: str | Path | None, against: Any,
            prices: Any) -> dict[Path, str]:
    """The files an export reads: resolved path -> what it is (an export must not write over them)."""
    found: dict[Path, str] = {}
    named = [(spec.source_path, "the spec being exported"), (duckdb, "the DuckDB file read (--duckdb)"),
             (against.source_path if isinstance(against, Spec) else against, "the previous spec (--against)"),
             (prices if isinstance(prices, (str, Path)) else None, "the price file (--prices)")]
    for path, what in named:
        if path is not None:
            found.setdefault(Path(path).resolve(), what)
    if data_dir is not None and Path(data_dir).is_dir():
        for name, entity in spec.entities.items():
            for f in Path(data_dir).glob(f"{entity.source or name}.*"):
                found.setdefault(f.resolve(), f"a source file of the rows (--data), {name}'s")
    return found


def _target(out: str | Path | None, fmt: str, overwrite: bool, inputs: dict[Path, str]) -> Path | None:
    """The file to write (None: stdout), refused before any work when it is one of the export's own
    inputs, a folder, or (without ``overwrite``) a file already there."""
    if out is None or str(out) == "-":
        return None
    path = Path(out)
    written = [path] + ([_pictures_folder(path)] if fmt == "report-md" else [])
    for w in written:
        hit = inputs.get(w.resolve())
        inside = [what for p, what in inputs.items() if w != path and w.resolve() in p.parents]
        if hit or inside:
            raise SourceError(f"-o would write over {hit or inside[0]}: an export never overwrites its own inputs",
                              where=str(w), hint="give another file to -o")
    if path.is_dir():
        raise SourceError("-o names a folder, not a file", where=str(path), hint="give the file to write")
    pictures = written[1] if len(written) > 1 else None
    if pictures is not None and pictures.exists() and not pictures.is_dir():
        raise SourceError("the report's pictures folder is a file: the Markdown would link to nothing",
                          where=str(pictures), hint=f"move that file away, or give -o another name")
    if not overwrite:
        there = [w for w in written if w.exists()]
        if there:
            raise SourceError(f"{'the file' if there[0] == path else 'the pictures folder'} is already there; "
                              "nothing was written", where=str(there[0]),
                              hint="add --force to replace it, or give -o another name")
    return path


def _write_with_pictures(text: str, out: Path, data: ReviewData, folder: Path) -> list[Path]:
    """The report's PNGs in ``folder`` (the Markdown links to them there) and the Markdown itself, both
    written aside and renamed in: a picture the design no longer has does not stay, and a failure
    leaves what was there."""
    made = _parents(out)
    try:
        new = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        new.chmod(0o777 & ~_umask())
    except OSError as e:
        _remove_dirs(made)
        raise SourceError(f"cannot write the report's pictures: {e.strerror or e}", where=str(folder), cause=e) from e
    old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
    tmp = None
    try:
        for f in data.figures:
            (new / f"{f.name}.png").write_bytes(f.png)
        tmp = _aside(text, out)
        if folder.exists():
            folder.rename(old)
        new.rename(folder)
        os.replace(tmp, out)
    except BaseException as e:
        shutil.rmtree(new, ignore_errors=True)
        if tmp is not None and tmp.exists():
            tmp.unlink()
        if old.exists() and not folder.exists():
            old.rename(folder)
        _remove_dirs(made)
        if isinstance(e, OSError):
            raise SourceError(f"cannot write the report and its pictures: {e.strerror or e}", where=str(folder),
                              cause=e) from e
        raise
    shutil.rmtree(old, ignore_errors=True)
    return [folder / f"{f.name}.png" for f in data.figures]


def _peaks(spec: Spec, data_dir: str | Path | None, duckdb: str | Path | None,
           notes: list[str]) -> tuple[dict | None, str]:
    try:
        peaks = modelled_peaks(spec, data_dir, duckdb=duckdb)
    except BlueNbError as e:
        notes.append(f"the partition heat model did not run ({e.msg}): the spec's capacities are used")
        return None, ""
    if not peaks:
        notes.append("the heat model gave no traffic: the spec's capacities are used")
        return None, ""
    shown = ", ".join(f"{ix} {number(float(r), 1)} RCU/s / {number(float(w), 1)} WCU/s" for ix, (r, w) in peaks.items())
    return peaks, f"the modelled peaks: {shown} (rounded up to whole units)"


def _without_table_capacity(findings: Findings, notes: list[str]) -> Findings:
    """The findings that hold for a template provisioning the modelled peaks: TABLE-CAPACITY (the
    spec's capacity against the modelled load) does not, since the template provisions at least the peak."""
    kept = [f for f in findings if f.rule != "TABLE-CAPACITY"]
    if len(kept) == len(findings):
        return findings
    notes.append(f"{len(findings) - len(kept)} TABLE-CAPACITY finding(s) about the spec's read_capacity / "
                 "write_capacity do not apply to the template, which provisions the modelled peaks; set them in the "
                 "spec too")
    return Findings(kept, spec=findings.spec, items_checked=findings.items_checked, rule_order=list(RULES))


def _write(text: str, path: Path | None) -> Path | None:
    """Write ``text`` to ``path`` aside and rename it in (None: nothing written)."""
    if path is None:
        return None
    made = _parents(path)
    tmp = None
    try:
        tmp = _aside(text, path)
        os.replace(tmp, path)
    except BaseException as e:
        if tmp is not None and tmp.exists():
            tmp.unlink()
        _remove_dirs(made)
        if isinstance(e, OSError):
            raise SourceError(f"cannot write the export: {e.strerror or e}", where=str(path), cause=e) from e
        raise
    return path


def _parents(path: Path) -> list[Path]:
    """Create the missing parent folders of ``path``; those created, deepest first."""
    made = [p for p in path.parents if not p.exists()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _remove_dirs(made)
        raise SourceError(f"cannot create the folder to write to: {e.strerror or e}", where=str(path.parent),
                          cause=e) from e
    return made


def _remove_dirs(made: list[Path]) -> None:
    for p in made:
        try:
            p.rmdir()
        except OSError:
            pass


def _aside(text: str, path: Path) -> Path:
    """``text`` written to a new file beside ``path`` (removed again if the write fails)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())               # as a file opened for writing would be
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
