"""Run a migration plan on a DynamoDB table (``blue-nb migrate OLD NEW --execute``), resumably.

:func:`execute_migration` plans (:func:`blue_nb.app.migrate.plan_migration`), refuses a plan with a
blocking risk (keys that collide, items over 400 KB) unless ``force``, then on the endpoint (the embedded
moto_server unless another is given; AWS only with ``aws=True``):

1. **seed**: where the table does not exist yet, it is created with the old design and the old items, as
   ``apply OLD`` builds them (tagged ``blue-nb:migration=seeding`` until they are all written). The seed
   is not part of the migration's units.
2. **backfill**: a parallel Scan of the table; where the global indexes change, one UpdateTable per index
   (a removed or changed index deleted, an added or changed one created, each waited for until ACTIVE:
   DynamoDB backfills a created index from the items already there); then every new shape that is not
   there, equal, is put with BatchWriteItem (retries and backoff of
   :meth:`~blue_nb.dynamo.DynamoClient.write_items`).
3. **verify**: a Scan; a new shape missing or different is put again.
4. **delete old**: every old key the new design does not hold is deleted.
5. **prove**: a Scan; the table must equal the new design's items, and (from ``--data``) what
   ``apply NEW`` builds from the rows, item for item (count and order-independent digest).

A change of the table's key schema (its key attributes or their types, or a local index) is a copy: a new
table (``<table>-v2``, or ``new_table``) created with the new design, the old table Scanned and each new
shape put into the new one, verified and proven there; the switch (the application pointed at the new
table) is the team's, and the old table is deleted only when ``delete_old_table`` says so, once the proof
holds.

Every step is idempotent and decided from what the table holds, so a migration killed at any point and
started again finishes, without duplicates (an item is its key) or loss (the new shapes are rebuilt from
the source, never from a half-written table). The table's tag ``blue-nb:migration`` says where it is.
Units are counted by blue_nb as the plan counts them (:func:`~blue_nb.app.migrate.put_units`,
:func:`~blue_nb.app.migrate.delete_units`, :func:`~blue_nb.app.migrate.scan_read_units`): an
uninterrupted run consumes exactly the planned units; a resumed one, what was left, plus its Scans.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from blue_nb.app.migrate import (MigrationPlan, delete_units, index_backfill_units, plan_migration, put_units,
                                 scan_read_units)
from blue_nb.app.text import table_lines
from blue_nb.app.workflows import located_items
from blue_nb.errors import MigrationError
from blue_nb.patterns import global_index_updates
from blue_nb.printing import number
from blue_nb.sizing import item_size
from blue_nb.spec import Spec

__all__ = ["COPY_TAG", "MIGRATION_TAG", "MigrationInterrupted", "MigrationRun", "execute_migration", "new_table_name"]

MIGRATION_TAG = "blue-nb:migration"
COPY_TAG = "blue-nb:copy-of"                  # on the new table of a key schema change: the table it copies
DEADLINE = 120.0
INDEX_WAIT = 3600.0                           # seconds a global index may take to be created or deleted


@dataclass
class MigrationRun:
    """What :func:`execute_migration` did: the plan, the units per step it consumed, the proof."""

    plan: MigrationPlan
    table: str
    endpoint: str
    seeded: int                               # old items written to create the starting table (0: it existed)
    resumed: bool                             # the table was left by an interrupted migration
    consumed: dict[str, dict[str, float]] = field(default_factory=dict)   # step -> {"rcu", "wcu"}
    puts: int = 0
    deletes: int = 0
    repaired: int = 0                         # new shapes the verify step put again
    stored: int = 0
    expected: int = 0
    digest_stored: str = ""
    digest_expected: str = ""
    digest_apply: str | None = None           # what apply NEW builds from the rows (None: from --duckdb)
    forced: bool = False
    copied_from: str = ""                     # a key schema change: the old table, copied into ``table``
    old_table_deleted: bool = False
    indexes_deleted: list[str] = field(default_factory=list)
    indexes_created: list[str] = field(default_factory=list)

    @property
    def items_match(self) -> bool:
        return (self.stored == self.expected and self.digest_stored == self.digest_expected
                and self.digest_apply in (None, self.digest_expected))

    @property
    def units(self) -> dict[str, float]:
        return {u: sum(s.get(u, 0) for s in self.consumed.values()) for u in ("rcu", "wcu")}

    @property
    def units_match(self) -> bool:
        return self.units == self.plan.planned_units

    @property
    def ok(self) -> bool:
        return self.items_match

    def lines(self) -> list[str]:
        planned = {s.name: s for s in self.plan.steps}
        rows = [["step", "planned RCU", "consumed RCU", "planned WCU", "consumed WCU"]]
        for name, used in self.consumed.items():
            s = planned[name]
            rows.append([name, number(s.rcu, None), number(used["rcu"], None), number(s.wcu, 0),
                         number(used["wcu"], 0)])
        p, u = self.plan.planned_units, self.units
        rows.append(["total", number(p["rcu"], None), number(u["rcu"], None), number(p["wcu"], 0),
                     number(u["wcu"], 0)])
        out = []
        if self.seeded:
            out.append(f"seeded {self.table} with the old design's {self.seeded:,} items (as apply OLD builds it)")
        if self.resumed:
            out.append(f"{self.table}: resumed an interrupted migration")
        if self.copied_from:
            out.append(f"the key schema changes: {self.copied_from} copied into the new table {self.table}")
        if self.indexes_deleted or self.indexes_created:
            out.append("global indexes (one UpdateTable each, waited for until ACTIVE): "
                       + ", ".join([*(f"deleted {n}" for n in self.indexes_deleted),
                                    *(f"created {n} (DynamoDB backfilled it)" for n in self.indexes_created)]))
        out.append(f"put {self.puts:,} new shapes, deleted {self.deletes:,} old items"
                   + (f", put {self.repaired:,} again at the verify step" if self.repaired else "")
                   + (" (forced past the blocking risks)" if self.forced else ""))
        out += table_lines(rows)
        verdict = "equal" if self.units_match else "DIFFERENT (a resumed run does only what was left)"
        out.append(f"units: consumed {verdict} to planned")
        proof = "equal" if self.items_match else "DIFFERENT"
        apply = (" and to what apply NEW builds from the rows" if self.digest_apply is not None else "")
        out.append(f"items: {self.stored:,} stored in {self.table} on {self.endpoint}, {self.expected:,} in the new "
                   f"design; content digests {proof}{apply} ({self.digest_stored[:16]})")
        if self.copied_from and self.old_table_deleted:
            out.append(f"switch: the old table {self.copied_from} is deleted; the application uses {self.table}")
        elif self.copied_from:
            out.append(f"switch: point the application's reads and writes at {self.table}; the old table "
                       f"{self.copied_from} is kept (delete it with --delete-old-table once nothing uses it)")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "endpoint": self.endpoint, "ok": self.ok, "seeded": self.seeded,
                "resumed": self.resumed, "puts": self.puts, "deletes": self.deletes, "repaired": self.repaired,
                "consumed": self.consumed, "planned": self.plan.planned_units, "units_match": self.units_match,
                "copied_from": self.copied_from or None, "old_table_deleted": self.old_table_deleted,
                "indexes_deleted": self.indexes_deleted, "indexes_created": self.indexes_created,
                "items": {"stored": self.stored, "expected": self.expected, "match": self.items_match,
                          "digest": self.digest_stored, "apply_digest": self.digest_apply}}


def _refuse_blocked(plan: MigrationPlan) -> None:
    lines = []
    for r in plan.risks:
        if r.blocks:
            lines += r.lines()
    raise MigrationError("the migration is not executed: " + "\n  ".join(lines), where="migrate --execute",
                         hint="change the new design so that no two items share a key and every item fits 400 KB; "
                              "or give --force to run it as planned (the colliding items are lost)")


def new_table_name(plan: MigrationPlan, given: str | None = None) -> str:
    """The table a key schema change copies into: ``given``, else ``<table>-v2``."""
    return given or f"{plan.new.table_name}-v2"


def execute_migration(old: Spec | str | Path | None, new: Spec | str | Path, *, data_dir: str | Path | None = None,
                      duckdb: str | Path | None = None, endpoint_url: str | None = None, aws: bool = False,
                      profile: str | None = None, endpoint=None, table_prefix: str = "", force: bool = False,
                      rate: float | None = None, items: Mapping[str, int] | int | None = None,
                      segments: int = 4, workers: int = 1, progress: bool = False,
                      deadline: float = DEADLINE, new_table: str | None = None,
                      delete_old_table: bool = False) -> MigrationRun:
    """Plan the migration and run it on the table (see the module); returns what it did and consumed.
    ``old=None``: the first migration, the items built from ``data_dir``'s rows written into a new table.
    ``new_table``: the table a key schema change copies into (default ``<table>-v2``); ``delete_old_table``:
    delete the old table once the copy is proven (never without it)."""
    from blue_nb.app.roundtrip import items_digest, spec_digest  # deferred: boto3 only when a migration runs
    from blue_nb.dynamo import resolve_endpoint  # deferred: boto3 only when a migration runs

    plan = plan_migration(old, new, data_dir=data_dir, duckdb=duckdb, rate=rate, items=items)
    if plan.blocked and not force:
        _refuse_blocked(plan)
    if (new_table or delete_old_table) and not plan.new_table:
        raise MigrationError("--new-table and --delete-old-table are for a change of the table's key schema, which "
                             "needs a new table and a full copy; this change keeps the table's keys and migrates "
                             "its items in place", where="--new-table" if new_table else "--delete-old-table",
                             hint="leave them out")
    copy_into = new_table_name(plan, new_table) if plan.new_table else None
    if copy_into == plan.new.table_name:
        raise MigrationError(f"--new-table {new_table!r} is the table the items are copied from", where="--new-table",
                             hint=f"name another table, e.g. --new-table {plan.new.table_name}-v2")
    with ExitStack() as stack:
        ep = endpoint or stack.enter_context(resolve_endpoint(endpoint_url, aws=aws, profile=profile))
        client = ep.client(table_prefix=table_prefix, retries=2, connect_timeout=min(5.0, deadline / 4),
                           read_timeout=min(60.0, deadline / 4))
        name = copy_into or plan.new.table_name
        client.name(name)                     # a --new-table DynamoDB refuses, before anything is done
        run = _Run(client, plan, ep.label, spec_digest(plan.new), data_dir, deadline, progress, segments, workers,
                   items_digest)
        try:
            return run.copy(copy_into, delete_old_table) if copy_into else run.in_place()
        except KeyboardInterrupt as e:
            raise MigrationInterrupted(f"interrupted: the migration of {client.name(name)} on {ep.label} stopped "
                                       f"part-way (its tag {MIGRATION_TAG} says where); run the same command again: "
                                       "it finishes it, without duplicates or loss") from e


class MigrationInterrupted(KeyboardInterrupt):
    """Ctrl-C during a migration once the endpoint was touched: ``message`` says so and how to finish it."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class _Run:
    """One execution on one endpoint: the steps (see the module), each decided from what the tables hold."""

    def __init__(self, client, plan: MigrationPlan, label: str, digest: str, data_dir, deadline: float,
                 progress: bool, segments: int, workers: int, items_digest) -> None:
        self.client, self.plan, self.label, self.data_dir = client, plan, label, data_dir
        self.target = f"to:{digest[:32]}"
        self.deadline, self.progress, self.segments, self.workers = deadline, progress, segments, workers
        self.items_digest = items_digest

    def in_place(self) -> MigrationRun:
        """The migration of the items within their table (the same key schema)."""
        client, plan, new = self.client, self.plan, self.plan.new
        name = new.table_name
        seeded, resumed = _seed(client, plan, self.deadline, self.progress)
        resumed = resumed or client.tags(name).get(MIGRATION_TAG, "").startswith(("backfill", "deleting"))
        _check_keys(client, new, name)
        run = MigrationRun(plan, client.name(name), self.label, seeded, resumed, forced=plan.blocked)
        client.tag(name, {MIGRATION_TAG: "backfill " + self.target})
        present, rcu = self._scan(new, name)
        index_wcu = self._indexes(run, name, present)
        run.puts, wcu = self._put_missing(run, name, present)
        run.consumed["2 backfill"] = {"rcu": rcu, "wcu": index_wcu + wcu}
        present = self._verify(run, name)
        client.tag(name, {MIGRATION_TAG: "deleting " + self.target})
        self._delete_old(run, name, present)
        self._prove(run, name)
        if run.items_match:
            client.tag(name, {MIGRATION_TAG: "complete " + self.target})
        return run

    def copy(self, into: str, delete_old: bool) -> MigrationRun:
        """A key schema change: the old table's items copied, in the new shape, into the new table ``into``."""
        client, plan, new = self.client, self.plan, self.plan.new
        source = new.table_name
        if not client.table_exists(source) and client.table_exists(into):
            tags = client.tags(into)
            if tags.get(COPY_TAG) == client.name(source) and tags.get(MIGRATION_TAG, "").startswith("complete"):
                # done before, the old table deleted as asked: the copy is proven again, nothing seeded
                run = MigrationRun(plan, client.name(into), self.label, 0, False, forced=plan.blocked,
                                   copied_from=client.name(source), old_table_deleted=True)
                self._prove(run, into)
                return run
        seeded, resumed = _seed(client, plan, self.deadline, self.progress)
        _check_keys(client, plan.old, source)
        exists = client.table_exists(into)
        if exists:
            tags = client.tags(into)
            if tags.get(COPY_TAG) != client.name(source):
                raise MigrationError(f"table {client.name(into)!r} already exists and is not blue_nb's copy of "
                                     f"{client.name(source)!r}", where=client.name(into),
                                     hint="name another table for the copy with --new-table")
            resumed = resumed or tags.get(MIGRATION_TAG, "").startswith(("backfill", "deleting"))
            _check_keys(client, new, into)
        else:
            client.create_table(new, name=into, timeout=self.deadline,
                                tags={MIGRATION_TAG: "backfill " + self.target, COPY_TAG: client.name(source)})
        run = MigrationRun(plan, client.name(into), self.label, seeded, resumed, forced=plan.blocked,
                           copied_from=client.name(source))
        client.tag(into, {MIGRATION_TAG: "backfill " + self.target})
        client.tag(source, {MIGRATION_TAG: f"copying into {client.name(into)}"})
        _, rcu = self._scan(plan.old, source)                     # the Scan of the old items
        present, more = self._scan(new, into) if exists else ({}, 0.0)   # a resumed copy: what it holds
        run.puts, wcu = self._put_missing(run, into, present)
        run.consumed["2 backfill"] = {"rcu": rcu + more, "wcu": wcu}
        self._verify(run, into)
        client.tag(into, {MIGRATION_TAG: "deleting " + self.target})
        run.consumed["6 delete old"] = {"rcu": 0, "wcu": 0}        # the old table is deleted whole, or kept
        self._prove(run, into)
        if run.items_match:
            client.tag(into, {MIGRATION_TAG: "complete " + self.target})
            if delete_old:
                client.delete_table(source, timeout=self.deadline)
                run.old_table_deleted = True
            else:
                client.tag(source, {MIGRATION_TAG: f"copied into {client.name(into)}"})
        return run

    def _scan(self, spec: Spec, table: str) -> tuple[dict[tuple, dict], float]:
        keys = tuple(a for a in spec.key_attributes() if a)
        items = self.client.scan_items(table, segments=self.segments, progress=self.progress)
        present = {_key(i, keys): i for i in items}
        return present, scan_read_units([item_size(i) for i in present.values()])

    def _indexes(self, run: MigrationRun, table: str, present: dict[tuple, dict]) -> int:
        """The global indexes made the new design's, one UpdateTable at a time; the write units DynamoDB
        spends backfilling the created ones from the items ``present``."""
        client, new = self.client, self.plan.new
        wait = max(self.deadline, INDEX_WAIT)
        client.wait_active(table, wait)               # an index an interrupted run was creating or deleting
        run.indexes_deleted, run.indexes_created = global_index_updates(new, client.describe(table))
        for index in run.indexes_deleted:
            client.delete_index(table, index, timeout=wait)
        units = 0
        for index in run.indexes_created:
            client.create_index(new, index, table=table, timeout=wait)
            units += sum(index_backfill_units(new, [index], item) for item in present.values())
        left = global_index_updates(new, client.describe(table))
        if left[0] or left[1]:
            raise MigrationError(f"the global indexes of {client.name(table)} are not the new design's after the "
                                 f"UpdateTable calls (still to delete: {', '.join(left[0]) or 'none'}; to create: "
                                 f"{', '.join(left[1]) or 'none'})", where=client.name(table),
                                 hint="look at the table with describe-table, then run the same command again")
        return units

    def _put_missing(self, run: MigrationRun, table: str, present: dict[tuple, dict]) -> tuple[int, int]:
        """Put every new shape not in ``present`` as it is; (items put, their write units)."""
        new = self.plan.new
        todo = [(present.get(c.new_key), c.new) for c in run.plan.changes
                if c.new is not None and present.get(c.new_key) != c.new]
        if todo:
            self.client.write_items(table, [after for _, after in todo], total=len(todo), progress=False,
                                    stall=self.deadline, workers=self.workers)
        for before, after in todo:
            present[_key(after, tuple(a for a in new.key_attributes() if a))] = after
        return len(todo), sum(put_units(new, before, after) for before, after in todo)

    def _verify(self, run: MigrationRun, table: str) -> dict[tuple, dict]:
        seen, rcu = self._scan(self.plan.new, table)
        run.repaired, wcu = self._put_missing(run, table, seen)
        run.consumed["3 verify"] = {"rcu": rcu, "wcu": wcu}
        return seen

    def _delete_old(self, run: MigrationRun, table: str, present: dict) -> None:
        new = self.plan.new
        new_keys = {c.new_key for c in run.plan.changes if c.new is not None}
        gone = [present[c.old_key] for c in run.plan.changes
                if c.old is not None and c.old_key not in new_keys and c.old_key in present]
        keys = tuple(a for a in new.key_attributes() if a)
        if gone:
            self.client.delete_keys(table, [{a: i[a] for a in keys} for i in gone], stall=self.deadline)
        run.deletes = len(gone)
        run.consumed["6 delete old"] = {"rcu": 0, "wcu": sum(delete_units(new, i) for i in gone)}

    def _prove(self, run: MigrationRun, table: str) -> None:
        new, items_digest = self.plan.new, self.items_digest
        stored, rcu = self._scan(new, table)
        run.consumed["7 prove"] = {"rcu": rcu, "wcu": 0}
        run.stored, run.digest_stored = items_digest(stored.values())
        run.expected, run.digest_expected = items_digest(c.new for c in run.plan.changes if c.new is not None)
        if self.data_dir is not None:
            _, run.digest_apply = items_digest(item for _, item, _ in located_items(new, self.data_dir))


def _seed(client, plan: MigrationPlan, deadline: float, progress: bool) -> tuple[int, bool]:
    """Create the table with the old design and its items where it does not exist (or finish that);
    (items seeded, whether an interrupted seed was resumed)."""
    name = plan.new.table_name
    exists = client.table_exists(name)
    state = client.tags(name).get(MIGRATION_TAG, "") if exists else ""
    if plan.old is None:                      # the first migration: a new table of the new design
        if not exists:
            client.create_table(plan.new, tags={MIGRATION_TAG: "seeded"}, timeout=deadline)
        elif not state:
            raise MigrationError(f"table {client.name(name)!r} already exists and no migration of blue_nb made it",
                                 where=client.name(name), hint="give --table-prefix to write a table of another name")
        return 0, False
    if exists and not state.startswith("seeding"):
        return 0, False
    if not exists:
        client.create_table(plan.old, tags={MIGRATION_TAG: "seeding"}, timeout=deadline)
    old_items = [c.old for c in plan.changes if c.old is not None]
    client.write_items(name, old_items, total=len(old_items), progress=progress, stall=deadline)
    client.tag(name, {MIGRATION_TAG: "seeded"})
    return len(old_items), exists


def _check_keys(client, spec: Spec, table: str) -> None:
    """The table's key attributes must be the design's (else it holds another design's items)."""
    keys = tuple(a for a in spec.key_attributes() if a)
    have = client.key_attributes(table)
    if have != keys:
        raise MigrationError(f"the table's key ({', '.join(have)}) is not the design's ({', '.join(keys)}): it holds "
                             "another design's items", where=client.name(table),
                             hint="give --table-prefix for another table name")


def _key(item: Mapping[str, Any], keys: tuple[str, ...]) -> tuple:
    return tuple(item.get(a) for a in keys)
