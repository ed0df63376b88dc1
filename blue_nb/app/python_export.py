"""``blue-nb export SPEC --format python -o DIR``: the spec's access patterns as a Python package of their own
(:mod:`blue_nb.export.python_code`), with tests that hold it to blue_nb's own answers.

:func:`python_fixture` makes what the generated tests check against: a few sample items of each entity (the
first rows of ``data_dir``, of the loaded DuckDB file, or, without either, of a sample drawn from the spec
with a fixed seed), loaded into an in-memory SQLite store, and for every read pattern the pages
``blue-nb query`` gives for its parameter cases (:func:`blue_nb.app.compare.parameter_cases`: the most items
read, the fewest, a key that holds nothing), for every write the item it leaves. :func:`export_python`
checks the spec, refuses one with errors unless ``force``, and writes the package folder aside and renames
it into place (a folder already there is replaced only with ``overwrite``). Layer 3.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import typing
import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from itertools import islice
from pathlib import Path
from typing import Any

from blue_nb.app.compare import parameter_cases
from blue_nb.app.exports import ExportResult, sample_items_by_entity
from blue_nb.app.workflows import as_spec, validate
from blue_nb.errors import BlueNbError, SourceError
from blue_nb.export.base import content_hash, gated
from blue_nb.export.python_code import python_package
from blue_nb.items.values import item_to_wire
from blue_nb.layout import stored_key
from blue_nb.patterns import ReadResult, plan, plan_actions
from blue_nb.patterns.bind import row_values
from blue_nb.sizing import fits_item_limit, item_size
from blue_nb.spec import Spec
from blue_nb.stores import load_items, open_store

__all__ = ["FIXTURE_ITEMS", "PackageCall", "SAMPLE_SEED", "call_package", "export_python", "python_fixture"]

#: sample items per entity the generated tests load (the first rows of each entity's source)
FIXTURE_ITEMS = 12
#: the seed of the sample drawn when no data is given (the same spec gives the same package)
SAMPLE_SEED = 7


def _sample_items(spec: Spec, data_dir: str | Path | None, duckdb: str | Path | None, n: int) -> dict[str, list[dict]]:
    """The first ``n`` items of each entity (of its first ``4 n``) that DynamoDB would take: an item past 400 KB,
    which a spec exported with ``force`` may have, is left out (neither backend can load it)."""
    if data_dir is not None or duckdb is not None:
        found = sample_items_by_entity(spec, data_dir, 4 * n, duckdb=duckdb)
    else:
        from blue_nb.samples import sample_spec  # deferred: the sample generator, only for a spec exported without data

        with tempfile.TemporaryDirectory(prefix="blue-nb-python-") as tmp:
            sample_spec(spec, scale=max(n * 4, 20), seed=SAMPLE_SEED, out_dir=tmp)
            found = sample_items_by_entity(spec, tmp, 4 * n)
    return {name: list(islice((i for i in rows if fits_item_limit(item_size(i))), n)) for name, rows in found.items()}


def _pages(result: ReadResult) -> list[dict[str, Any]]:
    out, at = [], 0
    items = result.items
    for page in result.pages:
        n = page.items if result.request.select != "COUNT" else 0
        out.append({"items": [item_to_wire(i) for i in items[at:at + n]], "count": page.items,
                    "scanned_count": page.count,
                    "last_key": item_to_wire(page.last_evaluated_key) if page.last_evaluated_key else None})
        at += n
    return out


def _key(req: Any) -> dict[str, Any]:
    return {req.pk_attr: req.pk_value, **({req.sk_attr: req.sk_values[0]} if req.sk_attr and req.sk_values else {})}


def _write_case(spec: Spec, store: Any, p: Any, items: dict[str, list[dict]]) -> dict[str, Any] | None:
    """One call of a write with what it leaves at its key, by blue_nb's dry run."""
    entity = p.entities[0]
    mine = items.get(entity) or []
    if p.operation == "put_item":
        if not mine:
            return None
        item = dict(mine[0])
        values = row_values(spec, entity, item)
        params = {n: values[n] for n in p.parameters if n in values}
        if len(params) != len(p.parameters):
            return None
        planned = plan(spec, p, params)
        item.update(_key(planned.request))
        case: dict[str, Any] = {"params": params, "item": item_to_wire(item)}
        new: dict[str, Any] | None = item
    else:
        cases = [c for c in parameter_cases(store, spec, p) if c.label != "missing key"]
        if not cases:
            return None
        params = cases[0].params
        planned = plan(spec, p, params)
        case = {"params": params}
        new = None
    req = planned.request
    key = _key(req)
    t = spec.table
    table_key = {a: key[a] for a in (t.partition_key, t.sort_key) if a}
    old = store.get_item(spec.table_name, stored_key(key[t.partition_key]),
                         stored_key(key[t.sort_key]) if t.sort_key else "")
    if p.operation == "update_item" and p.update is None:
        others = [i for i in mine if i != old] or mine
        declared = [a for a in spec.entities[entity].attributes if a not in spec.entities[entity].key]
        sets = {a: others[-1][a] for a in declared if others and others[-1].get(a) is not None} if others else {}
        after = dict(old) if old is not None else dict(table_key)
        after.update(sets)
        values = {**params, **{a: str(v) for a, v in sets.items() if isinstance(v, str)}}
        for attr, template in spec.entities[entity].templates.items():
            if attr in table_key or attr in (req.pk_attr, req.sk_attr):
                continue
            names = template.placeholders
            if names and all(n in values for n in names) and any(n in sets for n in names):
                after[attr] = template.render(values)
        case["set"] = item_to_wire(sets)
        new = after
    result = store.run_plan(planned, new_item=new)
    passed = result.condition_passed is not False
    if p.operation == "delete_item":
        after_item = None if passed else old
    else:
        after_item = (result.item if passed else old)
    case.update(key=item_to_wire(table_key), condition_passed=passed,
                after=item_to_wire(after_item) if after_item is not None else None)
    return case


def _composite_params(spec: Spec, p: Any, items: dict[str, list[dict]], at: int) -> tuple[dict[str, str], dict]:
    """A transaction's or a batch's parameters drawn from the sample: action ``i`` names item ``at + i`` of
    its pattern's entity (a parameter given whole to an action, ``{x}``, takes that item's value); and the
    item each put writes, by action index."""
    params: dict[str, str] = {}
    puts: dict[int, dict] = {}
    for i, a in enumerate(p.actions):
        ap = spec.pattern(a.pattern)
        mine = items.get(ap.entities[0]) or []
        if not mine:
            continue
        item = mine[(at + i) % len(mine)]
        values = row_values(spec, ap.entities[0], item)
        for n, text in a.params.items():
            m = re.fullmatch(r"\{(\w+)\}", text)
            if m and n in values:
                params.setdefault(m.group(1), values[n])
        if ap.operation == "put_item" and not a.check:
            puts[i] = dict(item)
            entity = spec.entities[ap.entities[0]]
            in_keys = {n for t in entity.templates.values() for n in t.placeholders} | set(entity.key)
            text = next((n for n, typ in entity.attributes.items() if typ == "S" and n not in in_keys), None)
            if text is not None:                          # the put writes something the item did not hold
                puts[i][text] = f"written by {p.name}"
    for name in p.parameters:
        params.setdefault(name, "1")
    return params, puts


def _composite_case(spec: Spec, store: Any, p: Any, params: dict[str, str], puts: dict[int, dict]
                    ) -> dict[str, Any] | None:
    """blue_nb's answer for one call of a transaction or a batch, by each action's own plan on ``store``: the
    items a read returns, or what a write leaves at each action's key (a cancelled transaction: what was
    there) and the reason of each action; None when DynamoDB would refuse the call."""
    try:
        planned = plan_actions(spec, p, params)
    except BlueNbError:
        return None
    t = spec.table
    case: dict[str, Any] = {"params": params}
    if planned.is_read:
        found = []
        for one in planned.plans:
            got = store.run_plan(one).items
            found.append(item_to_wire(got[0]) if got else None)
        case["items"] = found
        return case
    reasons, olds, news, met = [], [], [], []
    for i, (one, check) in enumerate(zip(planned.plans, planned.checks)):
        key = _key(one.request)
        if i in puts and any(str(puts[i].get(a)) != str(v) for a, v in key.items()):
            return None                                   # the sample item is not at the key the action names
        old = store.get_item(spec.table_name, stored_key(key[t.partition_key]),
                             stored_key(key[t.sort_key]) if t.sort_key else "")
        result = store.run_plan(one, new_item=puts.get(i))
        passed = result.condition_passed is not False
        reasons.append("None" if passed else "ConditionalCheckFailed")
        met.append(old if not passed and one.request.return_old_on_failure else None)
        olds.append((key, old))
        news.append(old if check else None if one.request.operation == "delete_item" else result.item)
    cancelled = any(r != "None" for r in reasons)
    case.update(puts={str(i): item_to_wire(item) for i, item in puts.items()},
                reasons=reasons if cancelled else None,
                met=[None if m is None else item_to_wire(m) for m in met] if cancelled else None,
                after=[{"key": item_to_wire({a: key[a] for a in (t.partition_key, t.sort_key) if a}),
                        "item": (None if after is None else item_to_wire(after))}
                       for (key, old), new in zip(olds, news) for after in [old if cancelled else new]])
    return case


def _composite_cases(spec: Spec, store: Any, p: Any, items: dict[str, list[dict]]) -> list[dict[str, Any]]:
    """The cases of a transaction or a batch: for a read, one that finds its items and one that misses the
    last action's; for a write, one that is carried out and, for a transaction, one that is cancelled."""
    out: dict[Any, dict[str, Any]] = {}
    n = max((len(v) for v in items.values()), default=0)
    for at in range(max(n, 1)):
        params, puts = _composite_params(spec, p, items, at)
        case = _composite_case(spec, store, p, params, puts)
        if case is None:
            continue
        if "items" in case:
            last = set(p.actions[-1].placeholders) - {x for a in p.actions[:-1] for x in a.placeholders}
            out.setdefault("found", {"label": "items of the sample", **case})
            if last and "missing" not in out:
                missing = _composite_case(spec, store, p, {k: ("999999" if k in last else v) for k, v in params.items()},
                                          {})
                if missing is not None:
                    out["missing"] = {"label": "the last action's key holds nothing", **missing}
        else:
            label = "cancelled" if case["reasons"] else "carried out"
            out.setdefault(label, {"label": label, **case})
        if len(out) == 2:
            break
    return [out[k] for k in ("found", "missing", "carried out", "cancelled") if k in out]


def python_fixture(spec: Spec | str | Path, data_dir: str | Path | None = None, *, duckdb: str | Path | None = None,
                   per_entity: int = FIXTURE_ITEMS) -> dict[str, Any]:
    """What the generated tests check against: the sample items, and blue_nb's answers for every pattern."""
    spec = as_spec(spec)
    items = _sample_items(spec, data_dir, duckdb, per_entity)
    loaded = [(name, item) for name, rows in items.items() for item in rows]
    reads: dict[str, list] = {}
    writes: dict[str, Any] = {}
    composites: dict[str, list] = {}
    with open_store("sqlite", ":memory:") as store:
        load_items([store], spec, loaded, progress=False)
        for p in spec.access_patterns:
            if p.is_read:
                reads[p.name] = []
                for label, params in [(c.label, c.params) for c in parameter_cases(store, spec, p)]:
                    try:
                        result = store.run_plan(plan(spec, p, params), follow=True)
                    except BlueNbError:                 # a case DynamoDB refuses: not one to compare
                        continue
                    reads[p.name].append({"label": label, "params": params, "pages": _pages(result)})
            elif p.is_composite:
                composites[p.name] = _composite_cases(spec, store, p, items)
            else:
                case = _write_case(spec, store, p, items)
                if case is not None:
                    writes[p.name] = case
    out = {"digest": content_hash(spec), "items": [item_to_wire(i) for _, i in loaded], "reads": reads,
           "writes": writes}
    if any(p.is_composite for p in spec.access_patterns):
        out["composites"] = composites
    return out


def export_python(spec: Spec | str | Path, out: str | Path, *, data_dir: str | Path | None = None,
                  duckdb: str | Path | None = None, force: bool = False, now: datetime | str | None = None,
                  overwrite: bool = False, per_entity: int = FIXTURE_ITEMS) -> ExportResult:
    """Check ``spec`` and write its Python package into the folder ``out`` (module docstring); the result's
    ``files`` are the files written, its ``text`` all of them."""
    spec = as_spec(spec)
    target = Path(out)
    if str(out) == "-":
        raise BlueNbError("the python export is a folder, not one document", where="-o",
                          hint="give -o DIR, a folder to write the package into")
    if target.exists() and not target.is_dir():
        raise SourceError("-o names a file; the python export writes a folder", where=str(target),
                          hint="give a folder to -o")
    if target.is_dir() and any(target.iterdir()) and not overwrite:
        raise SourceError("the folder is already there and not empty; nothing was written", where=str(target),
                          hint="add --force to replace it, or give -o another folder")
    for given, what in ((spec.source_path, "the spec being exported"), (data_dir, "the rows read (--data)"),
                        (duckdb, "the DuckDB file read (--duckdb)")):
        path = Path(given).resolve() if given else None
        if path is not None and (path == target.resolve() or target.resolve() in path.parents):
            raise SourceError(f"-o would write over {what}: an export never overwrites its own inputs",
                              where=str(target), hint="give -o another folder")
    findings = validate(spec, data_dir, duckdb=duckdb)
    build = gated("python", python_package)                   # checks, refuses errors unless force, stamps
    if findings.has_errors and not force:
        build(spec, findings=findings, force=False, now=now)  # raises ExportRefused naming the errors
    fixture = python_fixture(spec, data_dir, duckdb=duckdb, per_entity=per_entity)
    files: dict[str, str] = build(spec, findings=findings, data=fixture, force=force, now=now)
    written = _write_folder(files, target)
    return ExportResult("python", "".join(files.values()), target, findings, spec.source_path or spec.domain,
                        files=written)


def _write_folder(files: dict[str, str], target: Path) -> list[Path]:
    """The files written into a new folder beside ``target`` and renamed into place (a failure leaves what was there)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    old = target.with_name(f".{target.name}.old")
    try:
        for rel, text in files.items():
            path = new / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
        if target.exists():
            target.rename(old)
        new.rename(target)
    except BaseException as e:
        shutil.rmtree(new, ignore_errors=True)
        if old.exists() and not target.exists():
            old.rename(target)
        if isinstance(e, OSError):
            raise SourceError(f"cannot write the package: {e.strerror or e}", where=str(target), cause=e) from e
        raise
    shutil.rmtree(old, ignore_errors=True)
    mask = os.umask(0o022)                             # the folder as mkdir would have made it (mkdtemp's is 0700)
    os.umask(mask)
    target.chmod(0o777 & ~mask)
    return [target / rel for rel in files]


@dataclass
class PackageCall:
    """One pattern called through a generated package on both of its backends, with the parameters of its first
    test case: what each returned (as items)."""

    pattern: str
    params: dict[str, Any]
    sqlite: list[dict[str, Any]]
    dynamodb: list[dict[str, Any]]

    @property
    def same(self) -> bool:
        """Whether both backends returned the same items in the same order."""
        return [item_to_wire(i) for i in self.sqlite] == [item_to_wire(i) for i in self.dynamodb]

    def row(self) -> dict[str, Any]:
        """One line of a table: the pattern, its parameters, the items on each backend, whether they agree."""
        return {"pattern": self.pattern, "params": ", ".join(f"{k}={v}" for k, v in self.params.items()),
                "sqlite": len(self.sqlite), "dynamodb": len(self.dynamodb), "same": self.same}


def _typed(method: Any, params: dict[str, str]) -> dict[str, Any]:
    """The test case's parameters (text) as the method's typed parameters (int, Decimal or str)."""
    hints = typing.get_type_hints(method)
    out: dict[str, Any] = {}
    for name, value in params.items():
        py = next((p for p in hints if p == name or p.rstrip("_") == name), name)
        kind = hints.get(py, str)
        out[py] = int(value) if kind is int else Decimal(value) if kind is Decimal else value
    return out


def call_package(folder: str | Path, patterns: list[str], endpoint: Any) -> list[PackageCall]:
    """Import the package an :func:`export_python` wrote into ``folder``, load its test items into a SQLite
    backend and into a table of its own on ``endpoint`` (a :class:`blue_nb.dynamo.Endpoint`, e.g.
    :func:`blue_nb.app.roundtrip.open_endpoint`'s), and call each of ``patterns`` (read patterns) through its
    access class on both, with the parameters of the pattern's first test case."""
    folder = Path(folder)
    name = next(p.name for p in sorted(folder.iterdir()) if (p / "access.py").is_file())
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]                           # a package exported again is imported again
    sys.path.insert(0, str(folder))
    try:
        package = importlib.import_module(name)
        rt = importlib.import_module(f"{name}.runtime")
    finally:
        sys.path.remove(str(folder))
    fixture = json.loads((folder / "tests" / "fixture.json").read_text(encoding="utf-8"))
    items = [rt.item_from_wire(i) for i in fixture["items"]]
    remote = rt.DynamoBackend(package.TABLE, endpoint_url=endpoint.url, region_name=endpoint.region,
                              table_name=f"blue_nb_{uuid.uuid4().hex[:8]}_{package.TABLE.name}",
                              **dict(endpoint.credentials or {}))
    backends = {"sqlite": rt.SqliteBackend(package.TABLE), "dynamodb": remote}
    accesses = {}
    for kind, backend in backends.items():
        backend.create_table()
        backend.put_items(items)
        accesses[kind] = next(getattr(package, n) for n in package.__all__ if n.endswith("Access"))(backend)
    out = []
    for pattern in patterns:
        case = (fixture["reads"].get(pattern) or [{"params": {}}])[0]
        got: dict[str, list[dict[str, Any]]] = {}
        for kind, access in accesses.items():
            method = getattr(access, pattern)
            answer = method(**_typed(method, case["params"]))
            found = answer.items if isinstance(answer, rt.Page) else [] if answer is None else [answer]
            got[kind] = [x if isinstance(x, dict) else x.to_item() for x in found]
        out.append(PackageCall(pattern, dict(case["params"]), got["sqlite"], got["dynamodb"]))
    return out
