"""Bring real data in: a DynamoDB S3 export, Blue's SQLite file, a live table or a NoSQL Workbench
model becomes a draft spec, row files that rebuild the items, and items in the local stores.

``with out_folder(out) as folder, staged_import(source, fmt, folder) as staged: load_and_check(staged,
stores, folder)`` is the import (:func:`blue_nb.app.imports.import_data` opens the user's stores between
the two). Per table:

1. stream the source (:mod:`.table_sources`) into a scratch store of raw items by key
   (:mod:`.raw_store`): incremental exports apply their inserts, updates and deletes there, and
   memory stays flat;
2. infer the draft spec in one pass over it (:mod:`.infer`);
3. write ``<domain>.yaml`` and one JSON Lines file per entity in ``<domain>/``, each row proven to
   rebuild its item (items that fit no entity go to a catch-all entity, :mod:`.infer_rows`; an item
   no row can carry stops the import, named by its key), aside in
   the out folder's staging folder (:mod:`.out_folder`): ``DIR`` is not touched yet;
4. load the items of every table into the stores given, at one commit point (all tables or none,
   :func:`blue_nb.stores.load_tables`);
5. check the draft and its items (:func:`blue_nb.rules.check_spec`); the findings are in the result;
6. switch the files into ``DIR`` (:meth:`.out_folder.OutFolder.switch`), as the load committed.

Nothing is loaded before every table has been read, checked and written: a bad line, a manifest
count that does not match or a repeated key stops the import with the stores and ``DIR`` untouched. A
Workbench model (:mod:`.workbench`) is read whole instead, and its rows are made from its spec
(:mod:`.workbench_rows`).
"""

from __future__ import annotations

import json
import tempfile
import uuid
from collections import Counter
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from blue_nb.errors import SourceError
from blue_nb.imports.infer import SEPARATOR_SAMPLE, SpecInferrer, as_foreign, key_separators
from blue_nb.imports.infer_keys import canonical_key, index_candidate
from blue_nb.imports.infer_rows import RowLost, RowMaker, RowWriter, not_carried
from blue_nb.imports.out_folder import OutFolder
from blue_nb.imports.raw_store import Applied, RawStore
from blue_nb.imports.table_designs import description_sources, template_sources
from blue_nb.imports.table_sources import TableSource, dynamodb_sources, key_override, s3_sources, sqlite_sources
from blue_nb.imports.workbench import WorkbenchModel, WorkbenchTable, read_workbench
from blue_nb.imports.workbench_rows import SpecRows
from blue_nb.rules import Findings, check_spec
from blue_nb.spec import Spec, dump_spec
from blue_nb.stores import Store, load_tables

__all__ = ["IMPORT_FORMATS", "WORKBENCH_EXTRA", "ImportInterrupted", "ImportResult", "StagedTable", "load_and_check",
           "staged_import"]

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
    not_in_rows: int = 0           # items no row file carries: always 0 (such an item stops the import)
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
def staged_import(source: str | Path, fmt: str, folder: OutFolder, *, endpoint_url: str | None = None,
                  aws: bool = False, profile: str | None = None, domain: str | None = None, key: Any = None,
                  segments: int = 4, progress: bool = True, client: Any = None) -> Iterator[list[StagedTable]]:
    """Read ``source`` (``fmt``: s3-export, sqlite, dynamodb, workbench, cloudformation or describe-table),
    infer each table's draft spec and write it and its rows aside, into ``folder.next`` (the results name
    where they will be once switched in): the tables staged, their items still readable (from a scratch
    store in the folder's scratch space, removed on exit). Nothing is loaded anywhere and the out folder is
    not touched: :func:`load_and_check` does both, before the exit.

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
    out = folder
    if fmt == "workbench":
        if keys is not None:
            raise SourceError("a Workbench model names its table's keys: key (--key) is not used", where="--key",
                              hint="leave --key out")
        yield _stage_workbench(source, out, domain=domain)
        return
    with tempfile.TemporaryDirectory(prefix="raw-", dir=folder.scratch) as tmp, ExitStack() as stack:
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


def load_and_check(staged: list[StagedTable], stores: list[Store], folder: OutFolder, *,
                   progress: bool = True) -> list[ImportResult]:
    """Load every staged table's items into ``stores`` at one commit point (all tables or none,
    :func:`blue_nb.stores.load_tables`), check each draft on its items (:func:`blue_nb.rules.check_spec`),
    then switch the files into the out folder with the load (:mod:`.out_folder`); the results.

    Ctrl-C says truly what the stores and the folder hold: :class:`ImportInterrupted`."""
    commit = next((s for s in stores if not s.in_memory), None)
    load_ids = [uuid.uuid4().hex if stores else None for _ in staged]
    promise = [([t.result.spec_path.name, t.result.rows_dir.name], lid, commit.ref if commit and lid else None)
               for t, lid in zip(staged, load_ids)]
    domains = ", ".join(t.result.domain for t in staged)
    loaded = False
    try:
        if stores:                       # before the load: the files follow its commit
            folder.promise(promise)
            try:
                load_tables(stores, [(t.result.spec, _in_spec_order(t.result.spec, t.items()), t.result.items, lid)
                                     for t, lid in zip(staged, load_ids)], progress=progress)
            except KeyboardInterrupt as e:
                committed = bool(getattr(e, "committed", False))
                said = getattr(e, "message", "") or "interrupted"
                raise ImportInterrupted(f"{domains}: {said}; " + (
                    f"its spec and rows are switched into {folder.path}" if committed
                    else f"{folder.path} is as it was for {domains}")) from e
            for t in staged:
                t.result.stores = [f"{s.kind}:{s.path}" for s in stores]
            loaded = True
        for t in staged:
            t.result.findings = check_spec(t.result.spec, ((e, item) for e, item, _ in t.items()))
        if not stores:                   # no load to follow: this is the commit point
            folder.promise(promise)
            loaded = True
        folder.switch()
    except KeyboardInterrupt as e:
        if isinstance(e, ImportInterrupted) or not loaded:
            raise
        raise ImportInterrupted(f"interrupted: {domains} imported (the items in the stores given, the spec and rows "
                                f"switched into {folder.path}); the checks' findings were not printed: run blue-nb "
                                "validate on the spec") from e
    except OSError as e:
        raise SourceError(f"cannot switch the import's files into the folder: {e.strerror or e}",
                          where=str(folder.path), hint="import again into this folder: it finishes the switch first",
                          cause=e) from e
    return [table.result for table in staged]


class ImportInterrupted(KeyboardInterrupt):
    """Ctrl-C during an import's loads; ``message`` says truly what the stores and the out folder hold."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _in_spec_order(spec: Spec, items: Iterable[tuple[str, dict[str, Any], str]]) -> Iterator[tuple]:
    """Each item's attributes in the order a load of the rows gives them (key templates, then the
    declared attributes, then any others), so that the stores' digests match such a load's."""
    orders = {name: [*e.key, *e.attributes] for name, e in spec.entities.items()}
    for entity, item, where in items:
        order = orders.get(entity, [])
        ordered = {a: item[a] for a in order if a in item}
        ordered.update((a, v) for a, v in item.items() if a not in ordered)
        yield entity, ordered, where


def _distinct_domains(tables: list[TableSource]) -> None:
    seen = Counter(t.domain for t in tables)
    twice = [d for d, n in seen.items() if n > 1]
    if twice:
        raise SourceError(f"two tables would make the spec {twice[0]}.yaml", where=twice[0],
                          hint="import them one at a time with different domains (--domain)")


def _draft(raw: RawStore, table: TableSource, applied: Applied, out: OutFolder, progress: bool, *,
           foreign: bool = True) -> ImportResult:
    """Infer the spec, write it and the row files, record each item's entity; the result so far. ``foreign``:
    a design made elsewhere (not Blue's own SQLite), drafted under the DynamoDB rule profile."""
    total = raw.count()
    seps = key_separators((item for _, item, _ in raw.items()), _key_attributes(raw, table), SEPARATOR_SAMPLE)
    inferrer = SpecInferrer(table.domain, table.keys, source=table.label, table_name=table.table_name,
                            by_type=foreign, separators=seps)
    for _, item, _ in _bar(raw.items(), total, f"infer {table.domain}", progress):
        inferrer.add(item)
    draft = inferrer.draft()
    maker = RowMaker(draft)
    rows_dir = out.next / table.domain
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
        moved = []
        for k, item, where in raw.items_of(draft.catch_all):
            entity, text = maker.catch_all_row(item, k, where)
            writer.sources.setdefault(entity, draft.plans[entity].source)
            writer.write(entity, text)
            if entity != draft.catch_all:
                moved.append((k, entity))
                counts[draft.catch_all] -= 1
                counts[entity] += 1
        raw.assign(moved)
    spec = draft.spec(dict(counts), dict(writer.counts))
    if foreign:
        spec = as_foreign(spec)
    writer.write_empty(spec.entities)
    dump_spec(spec, out.next / f"{table.domain}.yaml")
    spec_path, rows_dir = out.path / f"{table.domain}.yaml", out.path / table.domain
    notes = list(table.notes) + draft.notes + _row_notes(maker, draft.catch_all)
    if not counts:
        notes.append("the source holds no items: the draft has the table's keys and indexes, and no entities")
    if applied.absent_deletes:
        notes.append(f"{applied.absent_deletes:,} deletes of keys that were not there (already gone)")
    if applied.absent_updates:
        notes.append(f"{applied.absent_updates:,} updates of keys that were not there (their record has an OldImage): "
                     "the history has a gap - an export before them is missing - so the items may not be the "
                     "table's; their new images are kept, not counted as inserts")
    return ImportResult(table.domain, spec_path, spec, rows_dir, sum(counts.values()),
                        {e: counts[e] for e in spec.entities if counts.get(e)}, applied.inserted, applied.updated,
                        applied.deleted, maker.unmatched, 0, notes=notes)


def _bar(items: Iterable, total: int, desc: str, progress: bool) -> Iterator:
    """``items`` with a progress bar (tqdm.auto: terminal or notebook) when ``progress``."""
    if not progress:
        yield from items
        return
    from tqdm.auto import tqdm  # deferred: tqdm.auto loads asyncio, ~0.1 s of every command's start
    with tqdm(total=total, desc=desc, unit="item", unit_scale=True, mininterval=0.5) as bar:
        for x in items:
            yield x
            bar.update(1)


def _row_notes(maker: RowMaker, catch_all: str) -> list[str]:
    notes = []
    if maker.unmatched:
        misfits = ", ".join(f"{e} {n:,}" for e, n in maker.misfits.most_common())
        more = maker.others[1:]
        notes.append(f"{maker.unmatched:,} items fit no entity's templates and are in the catch-all entity {catch_all}"
                     + (f" (and {', '.join(more)}: the same keys, other attribute types)" if more else "")
                     + (f" (misfits of: {misfits})" if misfits else ""))
    return notes


def _key_attributes(raw: RawStore, table: TableSource) -> list[str]:
    """The key attributes whose separator the import decides: the table's, and its indexes' (from
    DescribeTable, else the attributes of the first items named like index keys)."""
    names = list(table.keys.names)
    if table.keys.indexes is not None:
        extra = {a for ix in table.keys.indexes.values() for a in (ix.partition_key, ix.sort_key) if a}
    else:
        extra = set()
        for n, (_, item, _) in enumerate(raw.items()):
            extra.update(a for a in item if index_candidate(a) is not None)
            if n >= 1000:
                break
    return names + sorted(extra - set(names))


# ---------------------------------------------------------------- a NoSQL Workbench model


def _stage_workbench(source: str | Path, out: OutFolder, *, domain: str | None) -> list[StagedTable]:
    """Every table of the model, its spec and rows written; the model's unknown keys written beside them."""
    model = read_workbench(source, domain=domain)
    staged = [StagedTable(_workbench_draft(table, model, out), _items_of(table)) for table in model.tables]
    if model.extra:
        path = out.path / WORKBENCH_EXTRA
        (out.next / WORKBENCH_EXTRA).write_text(json.dumps(model.extra, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        for table in staged:
            table.result.notes.append(f"the model's unknown keys ({', '.join(model.extra)}) are kept as "
                                      f"read in {path}; the spec has no place for them, so an export does not "
                                      "carry them")
    return staged


def _items_of(table: WorkbenchTable) -> Callable[[], list[tuple[str, dict[str, Any], str]]]:
    return lambda: table.items


def _workbench_draft(table: WorkbenchTable, model: WorkbenchModel, out: OutFolder) -> ImportResult:
    """Write one table's spec and its rows (one JSON Lines file per entity source)."""
    spec = table.spec
    rows_dir = out.next / spec.domain
    maker = SpecRows(spec)
    counts: Counter[str] = Counter(e for e, _, _ in table.items)
    with RowWriter(rows_dir, {n: e.source or n for n, e in spec.entities.items()}) as writer:
        for entity, item, where in table.items:
            try:
                writer.write(entity, maker.make(entity, item))
            except RowLost as e:           # the model's spec places only items its rows carry: never, but said
                t = spec.table
                key = canonical_key(item, tuple(a for a in (t.partition_key, t.sort_key) if a))
                raise not_carried(key or where, str(e), where) from None
    if table.items:
        writer.write_empty(spec.entities)
    dump_spec(spec, out.next / f"{spec.domain}.yaml")
    spec_path, rows_dir = out.path / f"{spec.domain}.yaml", out.path / spec.domain
    notes = [f"{model.source}: NoSQL Workbench model {model.name!r}, format {model.version or 'none (2019)'}",
             *model.notes, *table.notes]
    empty = [n for n, e in spec.entities.items() if not counts.get(n) and not e.allow_empty]
    if not table.items:
        notes.append("the model holds no sample items: the spec only, no rows")
    elif empty:
        notes.append(f"no sample items for {', '.join(empty)}: their row files are empty (a load of the rows needs "
                     "rows there, or allow_empty: true)")
    return ImportResult(spec.domain, spec_path, spec, rows_dir, len(table.items),
                        {e: counts[e] for e in spec.entities if counts.get(e)}, unmatched=table.unmatched,
                        not_in_rows=0, notes=notes)
