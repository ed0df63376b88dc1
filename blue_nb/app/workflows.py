"""Library functions that combine the layer-2 parts: what a notebook cell or a CLI command calls.

Layer 3: may import sources, stores and everything below.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from blue_nb.errors import BlueNbError, SourceError
from blue_nb.printing import Fields
from blue_nb.items import ItemBuilder, dumps_wire
from blue_nb.patterns import ReadResult, WriteResult, plan, row_values
from blue_nb.rules import RULES, Findings, ItemChecks, check_spec, findings_of
from blue_nb.sources.files import count_rows, find_source, iter_rows
from blue_nb.spec import Spec, dumps_spec, load_spec
from blue_nb.layout import item_shape_digest
from blue_nb.layout import StagedRows, load_time
from blue_nb.stores import (LoadInterrupted, LoadResults, Store, TableLayout, keep_checks, kept_checks, load_items,
                            loaded_spec, open_store, require_key_format)

_CHECK_CHUNK = 10_000      # loaded items fed to the design checks at a time (check_loaded)

__all__ = ["as_spec", "beside_checks", "check_loaded", "compare_stores", "data_store", "entity_summary",
           "heat_failed", "largest_items", "largest_partitions", "load_checked", "load_data", "located_items",
           "open_loaded", "open_stores", "parameter_values", "require_items_of", "run_pattern", "sample_items",
           "source_files", "spec_items", "staged_items", "validate", "validate_into", "with_heat_findings"]


def as_spec(spec: Spec | str | Path) -> Spec:
    return spec if isinstance(spec, Spec) else load_spec(spec)


def source_files(spec: Spec, data_dir: str | Path) -> dict[str, Path]:
    """Entity name -> the file holding its source rows (a dict a notebook shows as a table); every missing
    file is reported at once."""
    if not Path(data_dir).is_dir():
        raise SourceError(f"data directory {str(data_dir)!r} does not exist", where=str(data_dir),
                          hint="pass --data with a folder holding one file per entity source")
    found, missing = {}, []
    for name, entity in spec.entities.items():
        try:
            found[name] = find_source(data_dir, entity.source or name)
        except SourceError as e:
            missing.append(f"{name}: {e.msg}")
    if missing:
        raise SourceError("source files missing:\n  " + "\n  ".join(missing), where=str(data_dir),
                          hint="each entity reads data/<dir>/<source>.csv|.parquet|.jsonl; set entities.<E>.source")
    return Fields(found)


def spec_items(spec: Spec, data_dir: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(entity name, item) for every row of every entity's source file, streamed."""
    for name, item, _ in located_items(spec, data_dir):
        yield name, item


def located_items(spec: Spec, data_dir: str | Path) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(entity name, item, where) for every row of every entity's source file, streamed; ``where``
    is the source row ("file:line"), for the loader to name both rows of a duplicate key."""
    builder = ItemBuilder(spec)
    for name, path in source_files(spec, data_dir).items():
        for where, item in builder.located(spec.entities[name], iter_rows(path)):
            yield name, item, where


def staged_items(spec: Spec, data_dir: str | Path, created: str) -> Iterator[tuple | StagedRows]:
    """What :func:`located_items` gives, for a load: a CSV file's rows as the rows the load stages, built a column
    at a time (:func:`~blue_nb.sources.csv_stage.csv_staged_rows`, the same rows: ``created`` is the load's time)."""
    builder = ItemBuilder(spec)
    for name, path in source_files(spec, data_dir).items():
        entity = spec.entities[name]
        if path.suffix == ".csv":
            from blue_nb.sources.csv_stage import csv_staged_rows  # deferred: pyarrow, for CSV sources only

            yield from csv_staged_rows(spec, entity, path, created)
            continue
        for where, item in builder.located(entity, iter_rows(path)):
            yield name, item, where


def _total(files: dict[str, Path], progress: bool) -> int | None:
    """The rows to load, for a progress bar (a full read of the files: not without one)."""
    return sum(count_rows(p) for p in files.values()) if progress else None


def open_stores(sqlite: str | Path | None = None, duckdb: str | Path | None = None) -> list[Store]:
    """Open the store files given (SQLite first), each recovered from an interrupted load; all or none."""
    stores: list[Store] = []
    try:
        for backend, path in (("sqlite", sqlite), ("duckdb", duckdb)):
            if path:
                stores.append(open_store(backend, path))
    except BaseException:
        for s in stores:
            s.close()
        raise
    return stores


def load_data(spec: Spec | str | Path, data_dir: str | Path, *, stores: list[Store] | None = None,
              sqlite: str | Path | None = None, duckdb: str | Path | None = None, mode: str = "replace",
              progress: bool = True) -> LoadResults:
    """Turn the rows under ``data_dir`` into items and load them into the given stores in one pass.

    Pass open ``stores`` (kept open, e.g. in-memory ones in a notebook) or file paths for
    ``sqlite`` / ``duckdb`` (opened and closed here). A failure leaves every store as it was; two
    rows that make the same item key are a SourceError naming both. Each result's ``notes`` say
    what the user should hear besides: a store folder created, an interrupted load finished or
    rolled back when the store was opened. The results (a list, one per store) show as one table
    in a notebook: items before, written and after, what the load replaced, seconds.
    """
    spec = as_spec(spec)
    total = _total(source_files(spec, data_dir), progress)   # every missing file is named before a store opens
    opened = open_stores(sqlite, duckdb)
    targets = list(stores or []) + opened
    if not targets:
        raise SourceError("no store to load into", hint="give --sqlite FILE and/or --duckdb FILE")
    created = load_time()
    try:
        results = load_items(targets, spec, staged_items(spec, data_dir, created), mode=mode, total=total,
                             progress=progress, created=created)
    except BaseException:
        for s in opened:
            s.close()
        raise
    try:
        for s in opened:
            s.close()
    except KeyboardInterrupt as e:          # the load is done: the message must not say that nothing changed
        raise LoadInterrupted("interrupted after the load completed: the new items are in "
                              + " and ".join(f"{s.kind} {s.path}" for s in targets), committed=True) from e
    return results


def entity_summary(store: Store, spec: Spec | str | Path):
    """Items, bytes and sizes per entity, as a DataFrame."""
    from blue_nb.app.frames import entity_frame  # deferred: pandas, for notebook tables only

    return entity_frame(store.entity_sizes(as_spec(spec).table_name))


def largest_items(store: Store, spec: Spec | str | Path, n: int = 10):
    """The n largest items with what one read or write of each costs, as a DataFrame."""
    from blue_nb.app.frames import largest_items_frame  # deferred: pandas, for notebook tables only

    return largest_items_frame(store.largest_items(as_spec(spec).table_name, n))


def largest_partitions(store: Store, spec: Spec | str | Path, n: int = 10):
    """The n largest item collections (partition key values) by bytes, as a DataFrame."""
    from blue_nb.app.frames import partitions_frame  # deferred: pandas, for notebook tables only

    return partitions_frame(store.largest_partitions(as_spec(spec).table_name, n))


def compare_stores(stores: list[Store], spec: Spec | str | Path) -> dict[str, Any]:
    """Proof that stores hold the same items: count and a digest of every (pk, sk, data) per store
    (a dict, shown as a short table in a notebook)."""
    table = as_spec(spec).table_name
    from blue_nb.app.display import StoreComparison  # deferred: pandas, for notebook tables only

    out: dict[str, Any] = StoreComparison()
    for s in stores:
        h = hashlib.sha256()
        n = 0
        for w in s.iter_items(table, wire=True):
            h.update(dumps_wire(w).encode("utf-8") + b"\n")
            n += 1
        out[s.kind] = {"items": n, "sha256": h.hexdigest()}
    out["identical"] = len({(v["items"], v["sha256"]) for k, v in out.items()}) == 1
    return out


def sample_items(store: Store, spec: Spec | str | Path, entity: str | None = None, n: int = 10):
    """The first n items (in key order) of one entity, or of the table, as a DataFrame: key columns
    first, then each item's size and unit costs (``_size``, ``_rcu``, ``_wcu``), then the attributes."""
    spec = as_spec(spec)
    keys = [spec.table.partition_key, spec.table.sort_key,
            *[k for pair in spec.index_key_attributes().values() for k in pair]]
    items = store.iter_items(spec.table_name, entity, limit=n)
    from blue_nb.app.frames import item_table  # deferred: pandas, for notebook tables only

    return item_table(items, dict.fromkeys(k for k in keys if k))


def run_pattern(spec: Spec | str | Path, pattern: str, params: dict[str, Any] | None = None, *,
                store: Store | None = None, backend: str | None = None, path: str | Path | None = None,
                max_pages: int | None = None, follow: bool = False) -> ReadResult | WriteResult:
    """Plan one access pattern and run the plan on an open store, or on the ``backend`` file at ``path``
    (``follow=True``: read every page, following LastEvaluatedKey, even with a limit)."""
    spec = as_spec(spec)
    planned = plan(spec, pattern, params)
    if store is not None:
        return store.run_plan(planned, max_pages=max_pages, follow=follow)
    if not backend or not path:
        raise SourceError("no store to run on", hint="give --sqlite FILE or --duckdb FILE")
    with open_loaded(spec, path, backend) as s:
        return s.run_plan(planned, max_pages=max_pages, follow=follow)


def open_loaded(spec: Spec, path: str | Path, backend: str = "duckdb") -> Store:
    """Open a store file that ``blue-nb load`` filled with ``spec``'s table (it must exist and hold it)."""
    if not Path(path).is_file():
        raise SourceError(f"store file {str(path)!r} does not exist", where=str(path),
                          hint=f"create it with: blue-nb load SPEC --data DIR --{backend} {path}")
    store = open_store(backend, path)
    if not store.has_table(spec.table_name):
        store.close()
        raise SourceError(f"table {spec.table_name!r} is not in {path}", where=str(path),
                          hint=f"load it first: blue-nb load SPEC --data DIR --{backend} {path}")
    try:
        require_key_format(store, spec)
    except BaseException:
        store.close()
        raise
    return store


def check_loaded(spec: Spec, store: Store) -> Findings:
    """The design checks of the items a load put in ``store``: their keys and the sizes the load recorded,
    read once from the store's catalog in key order; nothing is built, decoded or sized again. The load
    must have used ``spec`` or a version of it that builds the same items (same table, keys, indexes and
    entities: only patterns, rates, capacity or descriptions changed); otherwise the checks would judge
    other items, and a SourceError says so.

    The findings are kept in the store beside the items (:func:`~blue_nb.stores.keep_checks`), under a digest
    of the whole spec and of this blue_nb's code: the same checks of the same items (``validate``, then the
    review report) are read back, not run again. The next load of the table drops them."""
    require_items_of(spec, store)
    key = _checks_key(spec)
    kept = kept_checks(store, spec.table_name, key)
    if kept is not None:
        got = json.loads(kept)
        return findings_of(spec, got["findings"], got["items"])
    checks = ItemChecks(spec, stored=True)
    for rows in store.key_rows(TableLayout.of(spec), _CHECK_CHUNK):
        checks.add_rows(rows)
    found = checks.findings()
    if not store.read_only:              # a store opened read-only is checked again next time
        keep_checks(store, spec.table_name, key,
                    json.dumps({"items": found.items_checked, "findings": found.to_dicts()}, ensure_ascii=False))
    return found


def _checks_key(spec: Spec) -> str:
    """What the checks' findings on a table's items depend on, besides the items: the whole spec and the code."""
    return hashlib.sha256((_code_digest() + dumps_spec(spec, "json")).encode("utf-8")).hexdigest()


@functools.cache
def _code_digest() -> str:
    """A digest of this blue_nb's own files: findings kept by another version of the code are not read back."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(f.relative_to(root).as_posix().encode("utf-8") + b"\0" + f.read_bytes())
    return h.hexdigest()


def require_items_of(spec: Spec, store: Store) -> None:
    """Refuse a store whose items of ``spec``'s table were not built with ``spec`` (or a version that builds
    the same items): a SourceError naming the file, the spec that built them and when."""
    where = str(store.path)
    again = f"load it again with this spec: blue-nb load {spec.source_path or 'SPEC'} --data DIR --{store.kind} {where}"
    if not store.has_table(spec.table_name):
        raise SourceError(f"table {spec.table_name!r} is not in {where}", where=where, hint=again)
    require_key_format(store, spec)
    rec = loaded_spec(store, spec.table_name)
    if rec is None:
        raise SourceError(f"{where} does not record which spec built its {spec.table_name!r} items (a load by an "
                          "older blue-nb)", where=where, hint=again)
    digest, by, at = rec
    if digest is None:
        raise SourceError(f"{spec.table_name!r} in {where} holds items built with several specs (an upsert load "
                          "with another version)", where=where, hint=again)
    if digest != item_shape_digest(spec):
        raise SourceError(f"the {spec.table_name!r} items in {where} were built with another version of the spec "
                          f"({by}, loaded {at}): its table, keys, indexes or entities differ from those of "
                          f"{spec.source_path or spec.domain}",
                          where=where, hint=again)


def parameter_values(store: Store, spec: Spec | str | Path, pattern: str, *, limit: int = 50,
                     scan: int = 20_000) -> dict[str, list[str]]:
    """Real values for each parameter of a pattern, most frequent first, read from the items of
    the entities it returns (at most ``scan`` items each): what the explorer's dropdowns offer."""
    spec = as_spec(spec)
    p = spec.pattern(pattern)
    if p.is_composite:
        return _action_parameter_values(store, spec, p, limit=limit, scan=scan)
    counts: dict[str, Counter] = {n: Counter() for n in p.parameters}
    for entity in p.entities:
        for item in store.iter_items(spec.table_name, entity, limit=scan):
            row = row_values(spec, entity, item)
            for name in counts:
                if name in row:
                    counts[name][row[name]] += 1
    return {name: [v for v, _ in c.most_common(limit)] for name, c in counts.items()}


def _action_parameter_values(store: Store, spec: Spec, p, *, limit: int, scan: int) -> dict[str, list[str]]:
    """A transaction's or a batch's parameters: each one an action passes on whole (``{expert: "{raised_by}"}``)
    takes the values of the action's own parameter; the k-th parameter fed from the same list starts k values
    further, so the first choice of each names another item (a batch refuses one item twice)."""
    out: dict[str, list[str]] = {n: [] for n in p.parameters}
    own: dict[str, dict[str, list[str]]] = {}
    fed: Counter = Counter()
    for a in p.actions:
        if a.pattern not in own:
            own[a.pattern] = parameter_values(store, spec, a.pattern, limit=limit, scan=scan)
        for its, text in a.params.items():
            outer = text[1:-1]
            if text != "{" + outer + "}" or outer not in out or out[outer]:
                continue
            values = own[a.pattern].get(its, [])
            k = fed[(a.pattern, its)] % len(values) if values else 0
            out[outer], fed[(a.pattern, its)] = values[k:] + values[:k], fed[(a.pattern, its)] + 1
    return out


def validate(spec_or_path: Spec | str | Path, data_dir: str | Path | None = None, *,
             duckdb: str | Path | None = None):
    """Check a spec against ADR 0018 and DynamoDB's limits; with ``data_dir``, the items built from its
    rows too (loaded into an in-memory DuckDB store and checked as they are built, once) and the heat
    model's findings on them; with ``duckdb`` instead, the items a load put in that DuckDB file (see
    :func:`check_loaded`). Returns :class:`blue_nb.rules.Findings`."""
    spec = as_spec(spec_or_path)
    if data_dir is None and duckdb is None:
        return check_spec(spec)
    with data_store(spec, data_dir, duckdb) as store:
        return validate_into(spec, data_dir, store)[0]


def data_store(spec: Spec, data_dir: str | Path | None, duckdb: str | Path | None) -> Store:
    """The DuckDB store that the checks with data work in: the loaded file ``duckdb``, or a new in-memory
    one for the items of ``data_dir`` (one of the two, not both). The file must hold items built with
    ``spec`` (:func:`require_items_of`)."""
    if data_dir is not None and duckdb is not None:
        raise SourceError("give the rows (--data) or a loaded store (--duckdb), not both",
                          hint="--duckdb checks the items a blue-nb load put there; --data builds them from the rows")
    if duckdb is None:
        return open_store("duckdb")
    store = open_loaded(spec, duckdb)
    try:
        require_items_of(spec, store)
    except BaseException:
        store.close()
        raise
    return store


def validate_into(spec: Spec, data_dir: str | Path | None, store: Store, *,
                  items: Iterable[tuple[str, dict[str, Any], str]] | None = None
                  ) -> tuple[Findings, BlueNbError | None]:
    """:func:`validate` with data, into ``store`` (a DuckDB store), where the items stay for more (cost,
    pictures): (the findings, the load's error or None). ``data_dir`` None: the items already in
    ``store`` (:func:`check_loaded`). ``items``: :func:`located_items` of ``data_dir``, as the caller
    streams them (to keep them for more work of its own), instead of a new build."""
    def heat(on: Store) -> list:
        try:
            from blue_nb.app.filter_waste import filter_findings  # deferred: with the heat model's checks
            from blue_nb.heat import heat_findings  # deferred: numpy and pandas, for checks with data only

            return heat_findings(spec, on) + filter_findings(spec, on)
        except BlueNbError as e:
            return [heat_failed(e)]

    if data_dir is None:
        findings, extra = beside_checks(spec, store, heat)
        return with_heat_findings(findings, extra), None
    findings, failed = load_checked(spec, data_dir, store, items=items)
    return with_heat_findings(findings, [heat_failed(failed)] if failed else heat(store)), failed


def beside_checks(spec: Spec, store: Store, work: Callable[[Store], Any]) -> tuple[Findings, Any]:
    """:func:`check_loaded` on ``store`` and, at the same time, ``work`` (the heat model) on a twin of it in
    another thread: the checks are Python, the model runs in DuckDB, which leaves Python's lock to the
    checks, so on two cores the two take the time of the longer. A store without twins runs them in turn.
    Returns (the findings, what ``work`` returned); an error of either is raised here."""
    twin = getattr(store, "twin", None)
    if twin is None:
        return check_loaded(spec, store), work(store)
    other = twin()
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="blue-nb-heat") as pool:
            done = pool.submit(work, other)
            try:
                findings = check_loaded(spec, store)
            except BaseException:
                other.interrupt()               # do not wait for the model when the checks failed (or Ctrl-C)
                raise
            return findings, done.result()
    finally:
        other.close()


def load_checked(spec: Spec, data_dir: str | Path | None, store: Store, *, progress: bool = False,
                 items: Iterable[tuple[str, dict[str, Any], str]] | None = None
                 ) -> tuple[Findings, BlueNbError | None]:
    """Load the items of the rows under ``data_dir`` into ``store`` and run the item checks on them as they
    are built: each item is built once for both. Returns (the spec and item findings, the load's error or
    None). A load that fails (two rows with one key, say) leaves the store as it was, and the checks still
    see every item, so they can say what is wrong with the data; a bad source row raises as in a load.
    ``data_dir`` None: nothing to load, the items already in ``store`` are checked (:func:`check_loaded`).
    ``items``: :func:`located_items` of ``data_dir`` as the caller streams them (see :func:`validate_into`)."""
    if data_dir is None:
        return check_loaded(spec, store), None
    total = _total(source_files(spec, data_dir), progress)
    checks = ItemChecks(spec)
    items = checks.tap(located_items(spec, data_dir) if items is None else items)
    try:
        load_items([store], spec, items, total=total, progress=progress)
    except BlueNbError as e:
        if checks.source_failed:
            raise
        for _ in items:                      # the rest of the items, for the checks
            pass
        return checks.findings(), e
    return checks.findings(), None


def heat_failed(e: BlueNbError):
    """The HEAT-MODEL finding: the partition heat model did not run, and why."""
    return RULES["HEAT-MODEL"].finding("access_patterns", f"the partition heat model did not run: {e.msg}", hint=e.hint)


def with_heat_findings(findings: Findings, extra) -> Findings:
    """``findings`` plus the heat model's; ITEM-SIZE-NEAR-LIMIT is left out where ITEM-SIZE already
    reports the entity."""
    have = {(f.rule, f.where) for f in findings}
    extra = [f for f in extra if not (f.rule == "ITEM-SIZE-NEAR-LIMIT" and ("ITEM-SIZE", f.where) in have)]
    return Findings([*findings, *extra], spec=findings.spec, items_checked=findings.items_checked,
                    rule_order=list(RULES))
