"""Bring real data in: a DynamoDB S3 export, Blue's SQLite file, a live table or a NoSQL Workbench
model becomes a draft spec, row files that rebuild the items, and items in the local stores.

``with staged_import(source, fmt, out) as staged: load_and_check(staged, stores)`` is the import
(:func:`blue_nb.app.imports.import_data` opens the user's stores between the two). Per table:

1. stream the source (:mod:`.table_sources`) into a scratch store of raw items by key
   (:mod:`.raw_store`): incremental exports apply their inserts, updates and deletes there, and
   memory stays flat;
2. infer the draft spec in one pass over it (:mod:`.infer`);
3. write ``DIR/<domain>.yaml`` and one JSON Lines file per entity in ``DIR/<domain>/``, each row
   proven to rebuild its item (items that fit no entity go to a catch-all entity, :mod:`.infer_rows`);
4. load the items into the stores given (all or nothing, :func:`blue_nb.stores.load_items`);
5. check the draft and its items (:func:`blue_nb.rules.check_spec`); the findings are in the result.

Nothing is loaded before every table has been read, checked and written: a bad line, a manifest
count that does not match or a repeated key stops the import with the stores untouched. A
Workbench model (:mod:`.workbench`) is read whole instead, and its rows are made from its spec
(:mod:`.workbench_rows`).
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from tqdm.auto import tqdm

from blue_nb.errors import SourceError
from blue_nb.imports.infer import SpecInferrer, as_foreign
from blue_nb.imports.infer_rows import RowMaker, RowWriter
from blue_nb.imports.raw_store import Applied, RawStore
from blue_nb.imports.table_designs import description_sources, template_sources
from blue_nb.imports.table_sources import TableSource, dynamodb_sources, key_override, s3_sources, sqlite_sources
from blue_nb.imports.workbench import WorkbenchModel, WorkbenchTable, read_workbench
from blue_nb.imports.workbench_rows import SpecRows
from blue_nb.rules import Findings, check_spec
from blue_nb.spec import Spec, dump_spec
from blue_nb.stores import Store, load_items

__all__ = ["IMPORT_FORMATS", "WORKBENCH_EXTRA", "ImportResult", "StagedTable", "load_and_check", "staged_import"]

IMPORT_FORMATS = ("s3-export", "sqlite", "dynamodb", "workbench", "cloudformation", "describe-table")
WORKBENCH_EXTRA = "workbench-extra.json"     # unknown top-level keys of an imported Workbench model, as read


@dataclass
class ImportResult:
    """One imported table: the draft spec written, the rows, what was loaded, and the checks' findings."""

    domain: str
    spec_path: Path
    spec: Spec
    rows_dir: Path
    items: int = 0
    per_entity: dict[str, int] = field(default_factory=dict)
    inserted: int = 0              # incremental exports: puts of a new key
    updated: int = 0               # ... puts over an existing key
    deleted: int = 0               # ... deletes of an existing key
    unmatched: int = 0             # items given to the catch-all entity
    not_in_rows: int = 0           # items no row file can carry (they are in the stores)
    findings: Findings | None = None
    stores: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        ents = ", ".join(f"{n} {c:,}" for n, c in self.per_entity.items())
        text = f"{self.domain}: {self.items:,} items ({ents}) -> {self.spec_path}, rows in {self.rows_dir}"
        if self.inserted or self.updated or self.deleted:
            text += f"; incremental: {self.inserted:,} inserted, {self.updated:,} updated, {self.deleted:,} deleted"
        if self.stores:
            text += f"; loaded into {', '.join(self.stores)}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"domain": self.domain, "spec": str(self.spec_path), "rows": str(self.rows_dir), "items": self.items,
                "per_entity": dict(self.per_entity), "inserted": self.inserted, "updated": self.updated,
                "deleted": self.deleted, "unmatched": self.unmatched, "not_in_rows": self.not_in_rows,
                "stores": list(self.stores), "notes": list(self.notes),
                "findings": self.findings.to_dicts() if self.findings is not None else []}


@dataclass
class StagedTable:
    """One table read, inferred and written (its result so far), and its items ``(entity, item, where)``
    for the load and the checks (a call gives them all, in key order; it may be called twice)."""

    result: ImportResult
    items: Callable[[], Iterable[tuple[str, dict[str, Any], str]]]


@contextmanager
def staged_import(source: str | Path, fmt: str, out_dir: str | Path, *, endpoint_url: str | None = None,
                  aws: bool = False, profile: str | None = None, domain: str | None = None, key: Any = None,
                  segments: int = 4, progress: bool = True, client: Any = None) -> Iterator[list[StagedTable]]:
    """Read ``source`` (``fmt``: s3-export, sqlite, dynamodb, workbench, cloudformation or describe-table),
    infer each table's draft
    spec and write it and its rows into ``out_dir``: the tables staged, their items still readable
    (from a scratch store in ``out_dir``, removed on exit). Nothing is loaded anywhere:
    :func:`load_and_check` does that, before the exit.

    ``source`` is an export folder, a SQLite file, a table name, a Workbench model file, a CloudFormation
    template or a table description (the last two: the table's design, without items);
    ``domain`` names the spec (of several tables: selects that one); ``key`` = ``(pk, sk)`` (or
    ``"PK,SK"``) says which attributes are the table key when the source does not;
    ``endpoint_url`` / ``aws`` / ``profile`` (or an open DynamoClient as ``client``) say where a
    live table is; ``segments`` is its Scan's parallelism.
    """
    if fmt not in IMPORT_FORMATS:
        raise SourceError(f"unknown import format {fmt!r}", where="--from",
                          hint="use one of: " + ", ".join(IMPORT_FORMATS))
    keys = key_override(key)
    out = _out_dir(out_dir)
    if fmt == "workbench":
        if keys is not None:
            raise SourceError("a Workbench model names its table's keys: key (--key) is not used", where="--key",
                              hint="leave --key out")
        yield _stage_workbench(source, out, domain=domain)
        return
    with tempfile.TemporaryDirectory(prefix=".blue-nb-import-", dir=out) as tmp, ExitStack() as stack:
        if fmt in ("cloudformation", "describe-table"):
            if keys is not None:
                raise SourceError(f"a {fmt} file names its table's keys: key (--key) is not used", where="--key",
                                  hint="leave --key out")
            tables = (template_sources(source, domain=domain) if fmt == "cloudformation"
                      else description_sources(source, domain=domain))
        elif fmt == "s3-export":
            tables = s3_sources(source, domain=domain, key=keys, progress=progress)
        elif fmt == "sqlite":
            tables = sqlite_sources(source, domain=domain, key=keys, progress=progress)
        else:
            tables = dynamodb_sources(str(source), stack=stack, domain=domain, key=keys, endpoint_url=endpoint_url,
                                      aws=aws, profile=profile, segments=segments, progress=progress, client=client)
        _distinct_domains(tables)
        staged = []
        for n, table in enumerate(tables):
            raw = RawStore(Path(tmp) / f"raw{n}.sqlite", table.keys.names)
            stack.callback(raw.close)
            applied = raw.apply(table.changes())
            staged.append(StagedTable(_draft(raw, table, applied, out, progress, foreign=fmt != "sqlite"),
                                      raw.entity_items))
        yield staged


def load_and_check(staged: list[StagedTable], stores: list[Store], *, progress: bool = True) -> list[ImportResult]:
    """Load each staged table's items into ``stores`` (all or nothing, :func:`blue_nb.stores.load_items`)
    and check its draft on them (:func:`blue_nb.rules.check_spec`); the results."""
    for table in staged:
        result = table.result
        if stores:
            load_items(stores, result.spec, _in_spec_order(result.spec, table.items()), total=result.items,
                       progress=progress)
            result.stores = [f"{s.kind}:{s.path}" for s in stores]
        result.findings = check_spec(result.spec, ((e, item) for e, item, _ in table.items()))
    return [table.result for table in staged]


def _in_spec_order(spec: Spec, items: Iterable[tuple[str, dict[str, Any], str]]) -> Iterator[tuple]:
    """Each item's attributes in the order a load of the rows gives them (key templates, then the
    declared attributes, then any others), so that the stores' digests match such a load's."""
    orders = {name: [*e.key, *e.attributes] for name, e in spec.entities.items()}
    for entity, item, where in items:
        order = orders.get(entity, [])
        ordered = {a: item[a] for a in order if a in item}
        ordered.update((a, v) for a, v in item.items() if a not in ordered)
        yield entity, ordered, where


def _out_dir(out_dir: str | Path) -> Path:
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SourceError("--out names a file, not a folder", where=str(out),
                          hint="give a folder for the spec and rows")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SourceError(f"cannot create the output folder: {e.strerror or e}", where=str(out), cause=e) from e
    return out


def _distinct_domains(tables: list[TableSource]) -> None:
    seen = Counter(t.domain for t in tables)
    twice = [d for d, n in seen.items() if n > 1]
    if twice:
        raise SourceError(f"two tables would make the spec {twice[0]}.yaml", where=twice[0],
                          hint="import them one at a time with different domains (--domain)")


def _draft(raw: RawStore, table: TableSource, applied: Applied, out: Path, progress: bool, *,
           foreign: bool = True) -> ImportResult:
    """Infer the spec, write it and the row files, record each item's entity; the result so far. ``foreign``:
    a design made elsewhere (not Blue's own SQLite), drafted under the DynamoDB rule profile."""
    inferrer = SpecInferrer(table.domain, table.keys, source=table.label, table_name=table.table_name,
                            by_type=foreign)
    total = raw.count()
    for _, item, _ in _bar(raw.items(), total, f"infer {table.domain}", progress):
        inferrer.add(item)
    draft = inferrer.draft()
    maker = RowMaker(draft)
    rows_dir = out / table.domain
    counts: Counter[str] = Counter()
    with RowWriter(rows_dir, {e: p.source for e, p in draft.plans.items()}) as writer:
        def assigned():
            for k, item, _ in _bar(raw.items(), total, f"rows of {table.domain}", progress):
                entity, text = maker.assign(item)
                counts[entity] += 1
                if text is not None:
                    writer.write(entity, text)
                yield k, entity
        raw.assign(assigned())
        maker.settle()
        for item in raw.items_of(draft.catch_all):
            text = maker.catch_all_row(item)
            if text is not None:
                writer.write(draft.catch_all, text)
    spec = draft.spec(dict(counts), dict(writer.counts))
    if foreign:
        spec = as_foreign(spec)
    writer.write_empty(spec.entities)
    spec_path = dump_spec(spec, out / f"{table.domain}.yaml")
    notes = list(table.notes) + draft.notes + _row_notes(maker, draft.catch_all)
    if not counts:
        notes.append("the source holds no items: the draft has the table's keys and indexes, and no entities")
    if applied.absent_deletes:
        notes.append(f"{applied.absent_deletes:,} deletes of keys that were not there (already gone)")
    return ImportResult(table.domain, spec_path, spec, rows_dir, sum(counts.values()),
                        {e: counts[e] for e in spec.entities if counts.get(e)}, applied.inserted, applied.updated,
                        applied.deleted, maker.unmatched, sum(maker.lost.values()), notes=notes)


def _bar(items: Iterable, total: int, desc: str, progress: bool) -> Iterator:
    """``items`` with a progress bar (tqdm.auto: terminal or notebook) when ``progress``."""
    if not progress:
        yield from items
        return
    with tqdm(total=total, desc=desc, unit="item", unit_scale=True, mininterval=0.5) as bar:
        for x in items:
            yield x
            bar.update(1)


def _row_notes(maker: RowMaker, catch_all: str) -> list[str]:
    notes = []
    if maker.unmatched:
        misfits = ", ".join(f"{e} {n:,}" for e, n in maker.misfits.most_common())
        notes.append(f"{maker.unmatched:,} items fit no entity's templates and are in the catch-all entity {catch_all}"
                     + (f" (misfits of: {misfits})" if misfits else ""))
    return notes + _lost_notes(maker.lost)


def _lost_notes(lost: Counter[str]) -> list[str]:
    """One note per reason why items cannot be written as rows (most items first)."""
    return [f"{n:,} items cannot be written as rows ({reason}): they are in the stores, but a load of the rows "
            "leaves them out" for reason, n in lost.most_common()]


# ---------------------------------------------------------------- a NoSQL Workbench model


def _stage_workbench(source: str | Path, out: Path, *, domain: str | None) -> list[StagedTable]:
    """Every table of the model, its spec and rows written; the model's unknown keys written beside them."""
    model = read_workbench(source, domain=domain)
    staged = [StagedTable(_workbench_draft(table, model, out), _items_of(table)) for table in model.tables]
    if model.extra:
        path = out / WORKBENCH_EXTRA
        path.write_text(json.dumps(model.extra, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        for table in staged:
            table.result.notes.append(f"the model's unknown keys ({', '.join(model.extra)}) are kept as "
                                      f"read in {path}; the spec has no place for them, so an export does not "
                                      "carry them")
    return staged


def _items_of(table: WorkbenchTable) -> Callable[[], list[tuple[str, dict[str, Any], str]]]:
    return lambda: table.items


def _workbench_draft(table: WorkbenchTable, model: WorkbenchModel, out: Path) -> ImportResult:
    """Write one table's spec and its rows (one JSON Lines file per entity source)."""
    spec = table.spec
    rows_dir = out / spec.domain
    maker = SpecRows(spec)
    counts: Counter[str] = Counter(e for e, _, _ in table.items)
    with RowWriter(rows_dir, {n: e.source or n for n, e in spec.entities.items()}) as writer:
        for entity, item, _ in table.items:
            text = maker.row(entity, item)
            if text is not None:
                writer.write(entity, text)
    if table.items:
        writer.write_empty(spec.entities)
    spec_path = dump_spec(spec, out / f"{spec.domain}.yaml")
    notes = [f"{model.source}: NoSQL Workbench model {model.name!r}, format {model.version or 'none (2019)'}",
             *model.notes, *table.notes]
    notes += _lost_notes(maker.lost)
    empty = [n for n, e in spec.entities.items() if not counts.get(n) and not e.allow_empty]
    if not table.items:
        notes.append("the model holds no sample items: the spec only, no rows")
    elif empty:
        notes.append(f"no sample items for {', '.join(empty)}: their row files are empty (a load of the rows needs "
                     "rows there, or allow_empty: true)")
    return ImportResult(spec.domain, spec_path, spec, rows_dir, len(table.items),
                        {e: counts[e] for e in spec.entities if counts.get(e)}, unmatched=table.unmatched,
                        not_in_rows=sum(maker.lost.values()), notes=notes)
