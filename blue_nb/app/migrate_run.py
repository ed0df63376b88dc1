"""Run a migration plan on a DynamoDB table (``blue-nb migrate OLD NEW --execute``), resumably.

:func:`execute_migration` plans (:func:`blue_nb.app.migrate.plan_migration`), refuses a plan with a
blocking risk (keys that collide, items over 400 KB) unless ``force``, then on the endpoint (the embedded
moto_server unless another is given; AWS only with ``aws=True``):

1. **seed**: where the table does not exist yet, it is created with the old design and the old items, as
   ``apply OLD`` builds them (tagged ``blue-nb:migration=seeding`` until they are all written). The seed
   is not part of the migration's units.
2. **backfill**: a parallel Scan of the table; every new shape that is not there, equal, is put with
   BatchWriteItem (retries and backoff of :meth:`~blue_nb.dynamo.DynamoClient.write_items`).
3. **verify**: a Scan; a new shape missing or different is put again.
4. **delete old**: every old key the new design does not hold is deleted.
5. **prove**: a Scan; the table must equal the new design's items, and (from ``--data``) what
   ``apply NEW`` builds from the rows, item for item (count and order-independent digest).

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

from blue_nb.app.migrate import MigrationPlan, delete_units, plan_migration, put_units, scan_read_units
from blue_nb.app.text import table_lines
from blue_nb.app.workflows import located_items
from blue_nb.errors import MigrationError
from blue_nb.printing import number
from blue_nb.sizing import item_size
from blue_nb.spec import Spec

__all__ = ["MIGRATION_TAG", "MigrationInterrupted", "MigrationRun", "execute_migration"]

MIGRATION_TAG = "blue-nb:migration"
DEADLINE = 120.0


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
        return out

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "endpoint": self.endpoint, "ok": self.ok, "seeded": self.seeded,
                "resumed": self.resumed, "puts": self.puts, "deletes": self.deletes, "repaired": self.repaired,
                "consumed": self.consumed, "planned": self.plan.planned_units, "units_match": self.units_match,
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


def execute_migration(old: Spec | str | Path | None, new: Spec | str | Path, *, data_dir: str | Path | None = None,
                      duckdb: str | Path | None = None, endpoint_url: str | None = None, aws: bool = False,
                      profile: str | None = None, endpoint=None, table_prefix: str = "", force: bool = False,
                      rate: float | None = None, items: Mapping[str, int] | int | None = None,
                      segments: int = 4, workers: int = 1, progress: bool = False,
                      deadline: float = DEADLINE) -> MigrationRun:
    """Plan the migration and run it on the table (see the module); returns what it did and consumed.
    ``old=None``: the first migration, the items built from ``data_dir``'s rows written into a new table."""
    from blue_nb.app.roundtrip import items_digest, spec_digest  # deferred: boto3 only when a migration runs
    from blue_nb.dynamo import resolve_endpoint  # deferred: boto3 only when a migration runs

    plan = plan_migration(old, new, data_dir=data_dir, duckdb=duckdb, rate=rate, items=items)
    if plan.blocked and not force:
        _refuse_blocked(plan)
    if plan.new_table:
        raise MigrationError("the table's key schema changes: this migration needs a new table and a full copy, "
                             "which --execute does not run yet", where="table",
                             hint="the plan (without --execute) prices it; keep the key attributes to migrate in place")
    new_spec = plan.new
    if plan.old is not None and _globals(plan.old) != _globals(new_spec):
        raise MigrationError(f"the table's global indexes change ({', '.join(sorted(_globals(plan.old))) or 'none'} -> "
                             f"{', '.join(sorted(_globals(new_spec))) or 'none'}): --execute migrates items between "
                             "designs with the same indexes", where="table.indexes",
                             hint="create or delete the indexes first (UpdateTable); the plan prices their entries")
    with ExitStack() as stack:
        ep = endpoint or stack.enter_context(resolve_endpoint(endpoint_url, aws=aws, profile=profile))
        client = ep.client(table_prefix=table_prefix, retries=2, connect_timeout=min(5.0, deadline / 4),
                           read_timeout=min(60.0, deadline / 4))
        name = new_spec.table_name
        try:
            return _run(client, plan, ep.label, spec_digest(new_spec), data_dir, deadline, progress, segments,
                        workers, items_digest)
        except KeyboardInterrupt as e:
            raise MigrationInterrupted(f"interrupted: the migration of {client.name(name)} on {ep.label} stopped "
                                       f"part-way (its tag {MIGRATION_TAG} says where); run the same command again: "
                                       "it finishes it, without duplicates or loss") from e


class MigrationInterrupted(KeyboardInterrupt):
    """Ctrl-C during a migration once the endpoint was touched: ``message`` says so and how to finish it."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _run(client, plan: MigrationPlan, label: str, digest: str, data_dir, deadline: float, progress: bool,
         segments: int, workers: int, items_digest) -> MigrationRun:
    """The steps on the table (see the module)."""
    new_spec, name, target = plan.new, plan.new.table_name, f"to:{digest[:32]}"
    seeded, resumed = _seed(client, plan, deadline, progress, segments)
    tags = client.tags(name)
    resumed = resumed or tags.get(MIGRATION_TAG, "").startswith(("backfill", "deleting"))
    _check_indexes(client, new_spec)
    run = MigrationRun(plan, client.name(name), label, seeded, resumed, forced=plan.blocked)
    client.tag(name, {MIGRATION_TAG: "backfill " + target})
    present = _backfill(client, run, new_spec, segments, progress, deadline, workers)
    _verify(client, run, new_spec, present, segments, progress, deadline)
    client.tag(name, {MIGRATION_TAG: "deleting " + target})
    _delete_old(client, run, new_spec, present, deadline)
    _prove(client, run, new_spec, data_dir, segments, items_digest)
    if run.items_match:
        client.tag(name, {MIGRATION_TAG: "complete " + target})
    return run


def _seed(client, plan: MigrationPlan, deadline: float, progress: bool, segments: int) -> tuple[int, bool]:
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


def _globals(spec: Spec) -> set[str]:
    return {n for n, i in spec.table.indexes.items() if i.type == "global"}


def _check_indexes(client, new: Spec) -> None:
    keys = tuple(a for a in new.key_attributes() if a)
    if client.key_attributes(new.table_name) != keys:
        raise MigrationError(f"the table's key ({', '.join(client.key_attributes(new.table_name))}) is not the "
                             f"designs' ({', '.join(keys)}): it holds another design's items",
                             where=client.name(new.table_name), hint="give --table-prefix for another table name")
    have = {i["IndexName"] for i in client.describe(new.table_name).get("GlobalSecondaryIndexes", [])}
    want = _globals(new)
    if have != want:
        raise MigrationError(f"the table's global indexes ({', '.join(sorted(have)) or 'none'}) are not the new "
                             f"design's ({', '.join(sorted(want)) or 'none'}): --execute migrates items between "
                             "designs with the same indexes", where=client.name(new.table_name),
                             hint="create or delete the indexes first (UpdateTable); the plan prices their entries")


def _key(item: Mapping[str, Any], keys: tuple[str, ...]) -> tuple:
    return tuple(item.get(a) for a in keys)


def _scan(client, spec: Spec, segments: int, progress: bool) -> tuple[dict[tuple, dict], float]:
    keys = tuple(a for a in spec.key_attributes() if a)
    present = {_key(i, keys): i for i in client.scan_items(spec.table_name, segments=segments, progress=progress)}
    return present, scan_read_units([item_size(i) for i in present.values()])


def _put_missing(client, run: MigrationRun, new: Spec, present: dict[tuple, dict], deadline: float,
                 workers: int = 1) -> tuple[int, int]:
    """Put every new shape not in ``present`` as it is; (items put, their write units)."""
    todo = [(present.get(c.new_key), c.new) for c in run.plan.changes
            if c.new is not None and present.get(c.new_key) != c.new]
    if todo:
        client.write_items(new.table_name, [after for _, after in todo], total=len(todo), progress=False,
                           stall=deadline, workers=workers)
    for before, after in todo:
        present[_key(after, tuple(a for a in new.key_attributes() if a))] = after
    return len(todo), sum(put_units(new, before, after) for before, after in todo)


def _backfill(client, run: MigrationRun, new: Spec, segments: int, progress: bool, deadline: float,
              workers: int) -> dict[tuple, dict]:
    present, rcu = _scan(client, new, segments, progress)
    run.puts, wcu = _put_missing(client, run, new, present, deadline, workers)
    run.consumed["2 backfill"] = {"rcu": rcu, "wcu": wcu}
    return present


def _verify(client, run: MigrationRun, new: Spec, present: dict, segments: int, progress: bool,
            deadline: float) -> None:
    seen, rcu = _scan(client, new, segments, progress)
    run.repaired, wcu = _put_missing(client, run, new, seen, deadline)
    present.clear()
    present.update(seen)
    run.consumed["3 verify"] = {"rcu": rcu, "wcu": wcu}


def _delete_old(client, run: MigrationRun, new: Spec, present: dict, deadline: float) -> None:
    new_keys = {c.new_key for c in run.plan.changes if c.new is not None}
    gone = [present[c.old_key] for c in run.plan.changes
            if c.old is not None and c.old_key not in new_keys and c.old_key in present]
    keys = tuple(a for a in new.key_attributes() if a)
    if gone:
        client.delete_keys(new.table_name, [{a: i[a] for a in keys} for i in gone], stall=deadline)
    run.deletes = len(gone)
    run.consumed["6 delete old"] = {"rcu": 0, "wcu": sum(delete_units(new, i) for i in gone)}


def _prove(client, run: MigrationRun, new: Spec, data_dir, segments: int, items_digest) -> None:
    stored, rcu = _scan(client, new, segments, False)
    run.consumed["7 prove"] = {"rcu": rcu, "wcu": 0}
    run.stored, run.digest_stored = items_digest(stored.values())
    run.expected, run.digest_expected = items_digest(c.new for c in run.plan.changes if c.new is not None)
    if data_dir is not None:
        _, run.digest_apply = items_digest(item for _, item, _ in located_items(new, data_dir))
