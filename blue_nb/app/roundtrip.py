"""Apply a design to a DynamoDB API endpoint and prove it behaves as the local stores say.

:func:`apply_spec` builds the items from the source rows into in-memory SQLite and DuckDB, creates
the table on the endpoint (the embedded moto_server unless another endpoint is given), writes every
item with BatchWriteItem, proves that the items stored there are exactly the items built (count and
an order-independent digest of every item), then runs every read pattern on all three engines with
parameters drawn from the data (:func:`blue_nb.app.compare.parameter_cases`), following
LastEvaluatedKey, and compares items, order, pages, Count, ScannedCount and read units. Transactions and
batches are compared too; their writes go to a scratch table, so the table keeps the items built.

A table blue_nb is loading is tagged ``blue-nb:state=loading`` with the spec's digest: an apply that
was interrupted half-way is resumed by running it again (puts are idempotent); any other existing
table is refused unless ``replace=True``.
"""

from __future__ import annotations

import hashlib
import os
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from blue_nb.printing import Fields
from blue_nb.app.text import table_lines
from blue_nb.app.compare import Case, action_cases, action_difference, canonical, first_difference, parameter_cases
from blue_nb.app.workflows import as_spec, data_store, located_items, source_files
from blue_nb.dynamo import (MOTO_ITEM_LIMIT, RESUME_HINT, SCRATCH_SUFFIX, BatchWriteReport, DynamoClient, Endpoint, LocalDynamo,
                            WriteInterrupted, resolve_endpoint)
from blue_nb.errors import DynamoError, QueryError, SourceError
from blue_nb.patterns import Plan, ReadResult, plan, plan_actions
from blue_nb.spec import SEGMENT_PARAMETER, AccessPattern, Spec, dumps_spec
from blue_nb.sizing import MAX_ITEM_BYTES, item_size
from blue_nb.sources.files import count_rows
from blue_nb.stores import Store, load_items, open_store

__all__ = ["DEADLINE", "ApplyInterrupted", "ApplyResult", "PatternCheck", "apply_spec", "close_endpoint", "items_digest", "open_endpoint",
           "run_on_endpoint"]

STATE_TAG, SPEC_TAG = "blue-nb:state", "blue-nb:spec-sha256"
UNKNOWN_OPERATION = "UnknownOperationException"      # an endpoint's answer to an operation it does not implement
DEADLINE = 120.0                    # seconds an endpoint may go without moving the apply forward
ENDPOINT_ENV = "AWS_ENDPOINT_URL_DYNAMODB"


@dataclass
class PatternCheck:
    """One read pattern run with one set of parameters on SQLite, DuckDB and DynamoDB."""

    pattern: str
    case: str
    params: dict[str, str]
    difference: str | None          # the first difference, None when all three agree
    note: str | None                # what the comparison let pass: an emulator gap, items whose order is open
    counts: dict[str, int]          # engine -> items returned (a write transaction's or batch's: items written)
    pages: dict[str, int]           # engine -> calls made
    rcu: dict[str, float]           # engine -> units (``unit``: read units computed by blue_nb from the items
                                    # returned, or a write transaction's or batch's write units)
    page_sizes: dict[str, list[int]] = field(default_factory=dict)   # engine -> items per call
    unit: str = "RCU"               # what ``rcu`` counts: read units, or a write transaction's "WCU"
    not_compared: str | None = None  # why the endpoint could not run it (an operation it does not implement)

    @property
    def ok(self) -> bool:
        return self.difference is None

    def cells(self) -> list[str]:
        """pattern, case, parameters, verdict: one row of :meth:`ApplyResult.lines`."""
        shown = ", ".join(f"{k}={v}" for k, v in self.params.items()) or "-"
        if self.difference:
            return [self.pattern, self.case, shown, f"MISMATCH {self.difference}"]
        if self.not_compared:
            return [self.pattern, self.case, shown, f"NOT COMPARED: {self.not_compared}"]
        model = next(iter(self.counts))                 # the first local store: DynamoDB's pages as blue_nb models them
        n = self.counts[model]
        tail = (f" (dynamodb: {self.pages['dynamodb']} call(s), {self.rcu['dynamodb']} {self.unit}; {self.note})"
                if self.note and "dynamodb" in self.pages else f" ({self.note})" if self.note else "")
        written = " written" if self.unit == "WCU" else ""
        return [self.pattern, self.case, shown, f"match: {n} item{'s' if n != 1 else ''}{written}, "
                f"{self.pages[model]} call(s), {self.rcu[model]} {self.unit}{tail}"]


@dataclass
class ApplyResult:
    """What :func:`apply_spec` did and found."""

    table: str
    endpoint: str
    items_built: int
    items_stored: int
    digest_built: str
    digest_stored: str
    write: BatchWriteReport | None
    resumed: bool
    checks: list[PatternCheck] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)      # items the endpoint cannot store, and why

    @property
    def items_match(self) -> bool:
        return self.items_built == self.items_stored and self.digest_built == self.digest_stored

    @property
    def ok(self) -> bool:
        return self.items_match and all(c.ok for c in self.checks)

    def lines(self) -> list[str]:
        out = table_lines([c.cells() for c in self.checks])
        out += [f"left out: {why}" for why in self.left_out]
        proof = "equal" if self.items_match else "DIFFERENT"
        out.append(f"items: {self.items_built:,} built{self._left_out()}, {self.items_stored:,} stored in {self.table}; "
                   f"content digests {proof} ({self.digest_stored[:16]})")
        if any(c.unit == "WCU" for c in self.checks):
            out.append(f"write transactions and batches were sent to {self.table}{SCRATCH_SUFFIX}, a scratch table "
                       f"deleted after: {self.table} holds the items built")
        bad = sum(not c.ok for c in self.checks)
        skipped = sum(bool(c.not_compared) for c in self.checks if c.ok)
        out.append(f"{len(self.checks) - bad - skipped} of {len(self.checks)} pattern runs match on {self.endpoint}"
                   + (f"; {bad} MISMATCH" if bad else "")
                   + (f"; {skipped} not compared (an operation the endpoint does not implement)" if skipped else ""))
        return out

    def summary(self) -> dict[str, Any]:
        """The verdict in a few numbers: items built and stored, pattern runs that match."""
        return Fields({"table": self.table, "endpoint": self.endpoint, "ok": self.ok, "items built": self.items_built,
                       "items stored": self.items_stored, "items identical": self.items_match,
                       "items left out": len(self.left_out), "pattern runs": len(self.checks),
                       "pattern runs matching": sum(c.ok and not c.not_compared for c in self.checks),
                       "pattern runs not compared": sum(bool(c.not_compared) for c in self.checks),
                       "resumed": self.resumed})

    def _left_out(self) -> str:
        return f" ({len(self.left_out)} left out, see above)" if self.left_out else ""

    def frame(self):
        """One row per pattern run, for a notebook."""
        from blue_nb.app.display import DisplayTable  # deferred: pandas only when a notebook asks for the table

        return DisplayTable([{"pattern": c.pattern, "case": c.case, "params": c.params,
                              "match": c.ok and not c.not_compared, "items": c.counts.get("dynamodb"),
                              "calls": c.pages.get("dynamodb"), "units": c.rcu.get("dynamodb"), "unit": c.unit,
                              "difference or note": c.difference or c.note or
                              (f"not compared: {c.not_compared}" if c.not_compared else "")}
                             for c in self.checks], left=["pattern", "case", "params", "difference or note"])

    def pages_frame(self, pattern: str):
        """One pattern's runs: per case and engine, the calls made, the items each returned, the read units."""
        from blue_nb.app.display import DisplayTable  # deferred: pandas only when a notebook asks for the table

        return DisplayTable([{"case": c.case, "engine": e, "calls": len(sizes), "items per call": sizes,
                              "items": c.counts[e], "rcu": c.rcu[e]}
                             for c in self.checks if c.pattern == pattern for e, sizes in c.page_sizes.items()],
                     left=["case", "engine", "items per call"])

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "endpoint": self.endpoint, "ok": self.ok, "resumed": self.resumed,
                "items": {"built": self.items_built, "stored": self.items_stored, "match": self.items_match,
                          "digest": self.digest_stored, "left_out": self.left_out},
                "write": vars(self.write) if self.write else None,
                "patterns": [{"pattern": c.pattern, "case": c.case, "params": c.params, "match": c.ok and not c.not_compared,
                              "not_compared": c.not_compared,
                              "difference": c.difference, "note": c.note, "items": c.counts, "calls": c.pages,
                              "items_per_call": c.page_sizes, "rcu": c.rcu, "unit": c.unit} for c in self.checks]}


def items_digest(items) -> tuple[int, str]:
    """(count, digest) of a collection of items, independent of their order: the sum of each item's
    SHA-256 modulo 2**256 (items are unique by key, so equal digests mean equal collections)."""
    total, n = 0, 0
    for item in items:
        total = (total + int.from_bytes(hashlib.sha256(canonical(item).encode("utf-8")).digest(), "big")) % 2 ** 256
        n += 1
    return n, f"{total:064x}"


def spec_digest(spec: Spec) -> str:
    return hashlib.sha256(dumps_spec(spec, "json").encode("utf-8")).hexdigest()


def apply_spec(spec: Spec | str | Path, data_dir: str | Path | None = None, *, duckdb: str | Path | None = None,
               endpoint_url: str | None = None,
               aws: bool = False, profile: str | None = None, endpoint: Endpoint | None = None,
               table_prefix: str = "", replace: bool = False, workers: int = 1, segments: int = 4,
               progress: bool = True, deadline: float = DEADLINE) -> ApplyResult:
    """Create the table on an endpoint, write the items (built from the rows under ``data_dir``, or those a load
    put in the DuckDB file ``duckdb``), prove they arrived, and compare every read pattern.

    ``endpoint`` (an open :class:`~blue_nb.dynamo.Endpoint`) wins; else ``endpoint_url``, the environment's
    ``AWS_ENDPOINT_URL_DYNAMODB``, ``aws=True`` (with ``profile``), or the embedded moto_server, started
    for this call and stopped after it.

    ``deadline``: the seconds the endpoint may go without moving the apply forward - one call unanswered
    (its read timeout and botocore's retries fit in it), the table not yet active, or no item written
    because every call is throttled - before the apply gives up, saying how many items are written and
    that running it again resumes. Ctrl-C says the same.
    """
    spec = as_spec(spec)
    if not deadline > 0:
        raise DynamoError(f"the deadline must be a number of seconds above 0, not {deadline!r}", code="UsageError",
                          where="--deadline", hint="e.g. --deadline 120")
    with ExitStack() as stack:
        ep = endpoint or stack.enter_context(resolve_endpoint(endpoint_url, aws=aws, profile=profile))
        # one call, with botocore's two retries, answers or fails within the deadline
        client = ep.client(table_prefix=table_prefix, retries=2, connect_timeout=min(5.0, deadline / 4),
                           read_timeout=min(60.0, deadline / 4))
        stores = [stack.enter_context(open_store("sqlite")), stack.enter_context(open_store("duckdb"))]
        left_out: list[str] = []
        if duckdb is not None:
            loaded = stack.enter_context(data_store(spec, data_dir, duckdb))
            located: Any = ((entity, item, f"{duckdb}: {entity}") for entity in spec.entities
                            for item in loaded.iter_items(spec.table_name, entity))
            total = loaded.count(spec.table_name)
        elif data_dir is not None:
            files = source_files(spec, data_dir)
            located, total = located_items(spec, data_dir), sum(count_rows(f) for f in files.values())
        else:
            raise SourceError("apply needs the items: give the rows (--data DIR) or a loaded store (--duckdb FILE)",
                              hint="blue-nb load SPEC --data DIR --duckdb FILE fills a store once for every command")
        load_items(stores, spec, _storable(located, spec, ep.emulator, left_out), total=total, progress=progress)
        name = client.name(spec.table_name)
        try:
            resumed = _create(client, spec, replace, deadline)
        except KeyboardInterrupt as e:
            old = "the old table may be deleted already (--replace), and " if replace else ""
            raise ApplyInterrupted(f"interrupted while creating the table {name} on {ep.label}: {old}the new one may "
                                   "not exist yet, or exist empty and tagged as loading; run the same command again: "
                                   "it creates the table, or resumes it") from e
        local = stores[0]
        step, then = "had not begun writing: it is empty or holds an earlier apply's items", RESUME_HINT
        try:
            built, digest = items_digest(local.iter_items(spec.table_name))
            report = client.write_items(spec.table_name, local.iter_items(spec.table_name), total=built,
                                        workers=workers, progress=progress, stall=deadline)
            step = f"holds all {built:,} items written, not yet proven to have arrived"
            stored, stored_digest = items_digest(client.scan_items(spec.table_name, segments=segments,
                                                                   progress=False))
            proven = stored == built and stored_digest == digest
            if proven:
                client.tag(spec.table_name, {STATE_TAG: "complete"})
            step = (f"holds all {built:,} items, proven to be those built (tagged complete); the read patterns were "
                    "being compared" if proven else
                    f"holds {stored:,} items, NOT those built; the read patterns were being compared")
            then = "run it again with --replace to compare them" if proven else RESUME_HINT
            result = ApplyResult(name, ep.label, built, stored, digest, stored_digest, report, resumed,
                                 left_out=left_out)
            result.checks = compare_patterns(spec, stores, client, emulator=ep.emulator)
        except WriteInterrupted:
            raise
        except KeyboardInterrupt as e:
            raise ApplyInterrupted(f"interrupted: the table {name} on {ep.label} {step}; {then}") from e
        return result


def _storable(located, spec: Spec, emulator: str | None, left_out: list[str]):
    """The (entity, item, where) the endpoint can store; the others are named in ``left_out`` (and left
    out of the local stores too, so that the comparison compares like with like)."""
    pk, sk = spec.key_attributes()
    for entity, item, where in located:
        size = item_size(item)
        why = (f"over DynamoDB's item limit of {MAX_ITEM_BYTES:,} bytes (validate reports it as ITEM-SIZE)"
               if size > MAX_ITEM_BYTES else
               f"over moto's own limit of {MOTO_ITEM_LIMIT:,} bytes (DynamoDB takes it: a moto gap)"
               if emulator == "moto" and size > MOTO_ITEM_LIMIT else None)
        if why:
            key = ", ".join(f"{a}={item.get(a)!s}" for a in (pk, sk) if a)
            left_out.append(f"{key} ({where}): {size:,} bytes, {why}")
        else:
            yield entity, item, where


class ApplyInterrupted(KeyboardInterrupt):
    """Ctrl-C during an apply once the endpoint was changed: ``message`` says what is there and how to resume."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _create(client: DynamoClient, spec: Spec, replace: bool, deadline: float = DEADLINE) -> bool:
    """Create the table; True when an interrupted apply of this same spec is resumed instead."""
    tags = {STATE_TAG: "loading", SPEC_TAG: spec_digest(spec)}
    if not replace and client.table_exists(spec.table_name):
        have = client.tags(spec.table_name)
        if have.get(STATE_TAG) == "loading" and have.get(SPEC_TAG) == tags[SPEC_TAG]:
            return True
        raise DynamoError(f"table {client.name(spec.table_name)!r} already exists", code="TableExists",
                          where=client.name(spec.table_name),
                          hint="give --replace to delete and recreate it, or --table-prefix to use another name")
    client.create_table(spec, replace=replace, tags=tags, timeout=deadline)
    return False


def compare_patterns(spec: Spec, stores: list[Store], client: DynamoClient, *,
                     emulator: str | None = None) -> list[PatternCheck]:
    """Every read pattern, with each of its parameter cases, on the local stores and on DynamoDB; and every
    transaction and batch (:func:`_check_actions`; the writes on a scratch table, created for them and deleted
    after, so that the table holds the items built)."""
    checks = []
    with ExitStack() as stack:
        scratch = (stack.enter_context(client.scratch_table(spec))
                   if any(p.is_composite and not p.reads_only for p in spec.access_patterns) else None)
        for p in spec.access_patterns:
            if p.is_composite:
                for case in action_cases(stores[0], spec, p):
                    try:
                        checks.append(_check_actions(spec, p.name, case, stores, client, scratch))
                    except DynamoError as e:
                        if e.code != UNKNOWN_OPERATION:
                            raise
                        checks.append(PatternCheck(p.name, case.label, case.params, None, None, {}, {}, {},
                                                   not_compared=f"{client.label} does not implement "
                                                                f"{_operation_name(p.operation)}"))
                continue
            if p.total_segments:
                checks.append(_check_segments(spec, p, stores, client))
                continue
            if not p.is_read:
                continue
            for case in parameter_cases(stores[0], spec, p):
                checks.append(_check(spec, p.name, case, stores, client, emulator))
    return checks


def _operation_name(operation: str) -> str:
    """``transact_write_items`` -> ``TransactWriteItems``."""
    return "".join(w.capitalize() for w in operation.split("_"))


def _check(spec: Spec, pattern: str, case: Case, stores: list[Store], client: DynamoClient,
           emulator: str | None) -> PatternCheck:
    planned = plan(spec, pattern, case.params)
    results = {s.kind: s.run_plan(planned, follow=True) for s in stores}
    results["dynamodb"] = client.run_plan(planned, follow=True)
    difference = note = None
    base = results[stores[0].kind]
    for name, other in results.items():
        if other is base:
            continue
        diff, gap = first_difference(base, other, names=(stores[0].kind, name),
                                     emulator=emulator if name == "dynamodb" else None)
        if diff:
            difference = f"{name}: {diff}"
            break
        note = note or gap
    return PatternCheck(pattern, case.label, case.params, difference, note,
                        {k: r.count for k, r in results.items()}, {k: len(r.pages) for k, r in results.items()},
                        {k: r.rcu for k, r in results.items()}, {k: r.page_sizes for k, r in results.items()})


def _check_segments(spec: Spec, p: AccessPattern, stores: list[Store], client: DynamoClient) -> PatternCheck:
    """A parallel scan on each engine: every segment read to its end; together they must be the whole scan, each
    item in one segment only (the invariant every split keeps: DynamoDB's, the endpoint's and blue_nb's differ
    in which items a segment holds, so segments are not compared one by one)."""
    engines: dict[str, Any] = {s.kind: s for s in stores}
    engines["dynamodb"] = client
    whole_pattern = replace(p, total_segments=None, limit=None)
    counts, calls, units, difference = {}, {}, {}, None
    union: dict[str, list[str]] = {}
    for name, engine in engines.items():
        got, pages, rcu = [], 0, 0.0
        for segment in range(p.total_segments or 1):
            r = engine.run_plan(plan(spec, p, {SEGMENT_PARAMETER: str(segment)}), follow=True)
            got += [canonical(i) for i in r.items]
            pages, rcu = pages + len(r.pages), rcu + r.rcu
        whole = sorted(canonical(i) for i in engine.run_plan(plan(spec, whole_pattern, {}), follow=True).items)
        counts[name], calls[name], units[name], union[name] = len(got), pages, rcu, sorted(got)
        if difference is None and len(set(got)) < len(got):
            difference = f"{name}: {len(got) - len(set(got))} item(s) read by two segments"
        elif difference is None and sorted(got) != whole:
            difference = f"{name}: the segments read {len(got)} items, the whole scan {len(whole)}"
    if difference is None and len({tuple(u) for u in union.values()}) > 1:
        difference = "the segments' items differ between engines: " + ", ".join(f"{k} {len(v)}" for k, v in union.items())
    return PatternCheck(p.name, f"all {p.total_segments} segments", {}, difference,
                        "segments compared as their union (each engine splits the hash space its own way)",
                        counts, calls, units)


def _check_actions(spec: Spec, pattern: str, case: Case, stores: list[Store], client: DynamoClient,
                   scratch: str | None) -> PatternCheck:
    """A transaction or a batch on the stores (one SQL transaction each, a dry run) and on the endpoint: a get
    sent as it is; a write sent for real to the ``scratch`` table, which first holds the items the stores hold
    at the actions' keys, then is read back: the outcome, each action's units and the items after the call must
    be those the stores' dry run gives."""
    planned = plan_actions(spec, pattern, case.params)
    results = {s.kind: s.run_actions(planned) for s in stores}
    base = results[stores[0].kind]
    if planned.is_read:
        # a key the stores' model leaves unprocessed (past 16 MB of response) is left so on the endpoint too;
        # UnprocessedKeys the endpoint returns otherwise (throttling) are sent again
        results["dynamodb"] = client.run_actions(planned, base.item_list(), retry_unprocessed=not base.unprocessed)
    else:
        assert scratch is not None, "compare_patterns makes a scratch table for every spec with a composite write"
        client.put_at(scratch, planned.plans,
                      [getattr(r, "before", None) for r in base.results])
        results["dynamodb"] = client.send_actions(planned, base.item_list(), table=scratch)
    difference = None
    for name, other in results.items():
        if other is not base:
            diff = action_difference(base, other, (stores[0].kind, name))
            if diff:
                difference = f"{name}: {diff}"
                break
    remote = results["dynamodb"]
    notes = []
    if base.cancelled:
        notes.append("cancelled: " + ", ".join(c["Code"] for c in base.cancellation_reasons or []))
    if remote.resent:
        notes.append(f"the endpoint left {'keys' if planned.is_read else 'items'} unprocessed: "
                     f"{remote.resent} call(s) re-sent them")
    counts = {k: len(r.items) if planned.is_read else 0 if r.cancelled else planned.checks.count(False)
              for k, r in results.items()}
    return PatternCheck(pattern, case.label, case.params, difference, "; ".join(notes) or None, counts,
                        {k: 1 for k in results}, {k: (r.rcu if r.is_read else r.wcu) for k, r in results.items()}, {},
                        "RCU" if planned.is_read else "WCU")


def open_endpoint(where: str | None = None, *, profile: str | None = None) -> Endpoint:
    """An endpoint that stays open, for a notebook: ``None`` is ``$AWS_ENDPOINT_URL_DYNAMODB`` or else
    the embedded moto_server (stopped by :func:`close_endpoint` or when the kernel exits); ``"aws"`` is
    real AWS (with ``profile``); anything else is an endpoint URL."""
    if where is None and not os.environ.get(ENDPOINT_ENV):
        return Endpoint.embedded(LocalDynamo().start())         # LocalDynamo stops itself at exit
    aws = where == "aws"
    with resolve_endpoint(None if aws else where, aws=aws, profile=profile) as ep:
        return ep                                               # a URL or AWS: nothing to stop


def close_endpoint(endpoint: Endpoint) -> None:
    """Stop the embedded server behind ``endpoint`` (nothing to do for any other endpoint)."""
    if endpoint.local is not None:
        endpoint.local.stop()


def run_on_endpoint(spec: Spec | str | Path, pattern: str, params: dict[str, str] | None = None, *,
                    endpoint_url: str | None = None, aws: bool = False, profile: str | None = None,
                    endpoint: Endpoint | None = None, table_prefix: str = "", max_pages: int | None = None,
                    follow: bool = False) -> ReadResult:
    """Run one read pattern on a DynamoDB endpoint, paged as on the local stores: a pattern with a
    ``limit`` reads one page unless ``follow``; read units are computed from the items returned."""
    spec = as_spec(spec)
    planned = plan(spec, pattern, params)
    if not planned.is_read and spec.pattern(pattern).operation != "transact_write_items":
        raise QueryError(f"pattern {pattern!r} is a {spec.pattern(pattern).operation}: on a DynamoDB endpoint blue_nb "
                         "runs reads only", where=f"access_patterns.{pattern}",
                         hint="price a write as a dry run on a local store (--sqlite FILE or --duckdb FILE); "
                              "blue-nb apply writes the items")
    if endpoint is None and not (endpoint_url or aws or os.environ.get(ENDPOINT_ENV)):
        raise QueryError("no DynamoDB endpoint to run on", where="--backend dynamodb",
                         hint="give --endpoint-url URL (DynamoDB Local, a moto_server) or --aws; an embedded "
                              "endpoint would start empty")
    with ExitStack() as stack:
        ep = endpoint or stack.enter_context(resolve_endpoint(endpoint_url, aws=aws, profile=profile))
        client = ep.client(table_prefix=table_prefix)
        if not isinstance(planned, Plan):              # a transaction or a batch: one request
            return client.run_actions(planned)
        return client.run_plan(planned, follow=follow or not planned.request.limit, max_pages=max_pages)
