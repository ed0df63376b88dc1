"""The sources an import reads, one :class:`TableSource` per table: a DynamoDB S3 export folder,
Blue's SQLite file (every ``blue_*`` table, or one), or a live DynamoDB table. Each says what is
known of the table's keys and streams its changes (``(op, item, where, kind)``) once."""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from blue_nb.errors import SourceError, StoreError
from blue_nb.imports.infer import domain_name
from blue_nb.imports.infer_keys import KeyInfo, guess_keys, keys_from_describe, order_keys
from blue_nb.layout import quote_ident
from blue_nb.sources.blue_sqlite import check_columns, data_mode, decode_row, wire_key_names
from blue_nb.sources.s3_export import find_exports, iter_changes, peek_keys, window_notes
from blue_nb.stores import Store, open_store

__all__ = ["GUESS_SAMPLE", "TableSource", "dynamodb_sources", "key_override", "s3_sources", "sqlite_sources"]

GUESS_SAMPLE = 1000          # items read to guess the key of a full export that does not name it
_KEY_HINT = "give the key as key=(partition key, sort key), or on the command line --key PK,SK (PK alone: no sort key)"


@dataclass
class TableSource:
    """One table to import: its domain, real name, keys, and its changes (called once)."""

    domain: str
    table_name: str | None
    keys: KeyInfo
    label: str
    changes: Callable[[], Iterable[tuple]]
    notes: list[str] = field(default_factory=list)


def key_override(key: Any) -> KeyInfo | None:
    """``key=("PK", "SK")``, ``("PK", None)`` or ``"PK,SK"`` as KeyInfo (None when not given)."""
    if key is None:
        return None
    names = [k.strip() for k in key.split(",")] if isinstance(key, str) else list(key)
    names = [n for n in names if n] if isinstance(key, str) else names
    if not 1 <= len(names) <= 2 or not isinstance(names[0], str) or not names[0] or \
            (len(names) == 2 and names[1] is not None and (not isinstance(names[1], str) or not names[1])):
        raise SourceError(f"key {key!r} is not one or two attribute names", where="key", hint=_KEY_HINT)
    return KeyInfo(names[0], names[1] if len(names) == 2 else None, "given (key=...)")


# ---------------------------------------------------------------- S3 export


def s3_sources(source: str | Path, *, domain: str | None, key: KeyInfo | None, progress: bool) -> list[TableSource]:
    exports = find_exports(source)
    table = next((e.table_name for e in exports if e.table_name), None)
    dom = domain or domain_name(table or Path(source).resolve().name)
    if key is None:
        names = peek_keys(exports)
        if names:
            key = order_keys(names, f"from the Keys of the incremental export records ({', '.join(names)})")
        else:
            sample = (c.item for c in islice(iter_changes(exports, progress=False), GUESS_SAMPLE) if c.op == "put")
            key = guess_keys(sample, str(source))
    label = f"the S3 export of {table or source} ({', '.join(str(e) for e in exports)})"
    return [TableSource(dom, table, key, label, lambda: iter_changes(exports, progress=progress),
                        window_notes(exports))]


# ---------------------------------------------------------------- Blue's SQLite file


def _open_read_only(path: Path) -> Store:
    try:
        return open_store("sqlite", path, read_only=True)
    except StoreError as e:
        raise SourceError(f"cannot read as SQLite: {e.msg}", where=str(path),
                          hint="give a SQLite file holding blue_<domain> tables (ADR 0018)", cause=e) from e


def sqlite_sources(source: str | Path, *, domain: str | None, key: KeyInfo | None, progress: bool) -> list[TableSource]:
    path = Path(source)
    if not path.is_file():
        raise SourceError("no such SQLite file", where=str(path), hint="give the path of a .sqlite file")
    store = _open_read_only(path)
    try:
        tables = _tables(store, path, domain)
        out = []
        for table, columns in tables.items():
            extra = check_columns(str(path), table, columns)
            out.append(_sqlite_table(store, path, table, extra, key, progress))
        return out
    except StoreError as e:
        raise SourceError(f"cannot read the file: {e.msg}", where=str(path), hint=e.hint, cause=e) from e
    finally:
        store.close()


def _tables(store: Store, path: Path, domain: str | None) -> dict[str, list[str]]:
    tables = store.blue_tables()
    if domain is not None:
        name = f"blue_{domain}"
        if name not in tables:
            have = f"its blue_ tables: {', '.join(tables)}" if tables else "it has no blue_ table"
            raise SourceError(f"no table {name!r} in the file ({have})", where=f"{path}:{name}",
                              hint="give the domain of one of its tables, or none to import them all")
        return {name: tables[name]}
    if not tables:
        others = [r[0] for r in store.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        raise SourceError("no blue_<domain> table in the file" + (f" (its tables: {', '.join(others[:10])})"
                          if others else " (it has no tables)"), where=str(path),
                          hint="Blue's tables are named blue_<domain>, with columns (pk, sk, data, created_at)")
    return tables


def _sqlite_table(store: Store, path: Path, table: str, extra: list[str], key: KeyInfo | None,
                  progress: bool) -> TableSource:
    t = quote_ident(table)
    has_sk = bool(store.execute(f"SELECT count(*) FROM {t} WHERE sk <> ''")[0][0])
    mode = data_mode(r[0] for r in store.execute(f"SELECT data FROM {t} ORDER BY pk, sk LIMIT 100"))
    notes = [f"{table}: data read as {'DynamoDB JSON' if mode == 'wire' else 'plain JSON (no sets or binary)'}; "
             "created_at is the row's load time, not an attribute (kept only when data holds it)"]
    if extra:
        notes.append(f"{table}: columns {', '.join(extra)} are not ADR 0018's and were not read")
    if key is None and mode == "wire":
        first = store.execute(f"SELECT pk, sk, data FROM {t} ORDER BY pk, sk LIMIT 1")
        names = wire_key_names(decode_row(*first[0], f"{path}:{table} pk={first[0][0]!r:.80} sk={first[0][1]!r:.80}",
                                          "wire", ("pk", "sk")), *first[0][:2]) \
            if first else ("pk", "sk" if has_sk else None)
        key = KeyInfo(names[0], names[1] if has_sk else None, f"the attributes holding the pk/sk columns of {table}")
    elif key is None:
        key = KeyInfo("pk", "sk" if has_sk else None, f"the pk/sk columns of ADR 0018's table {table}")
    total = store.count(table)

    def changes() -> Iterator[tuple]:
        reader = _open_read_only(path)
        from tqdm.auto import tqdm  # deferred: tqdm.auto loads asyncio, ~0.1 s of every command's start
        bar = tqdm(total=total, desc=f"read {table}", unit="row", unit_scale=True, mininterval=0.5,
                   disable=not progress)
        try:
            for pk, sk, data in reader.rows(f"SELECT pk, sk, data FROM {t} ORDER BY pk, sk", [], 2_000):
                where = f"{path}:{table} pk={pk!r:.80} sk={sk!r:.80}"
                yield "put", decode_row(pk, sk, data, where, mode, (key.partition_key, key.sort_key)), where, "item"
                bar.update(1)
        finally:
            bar.close()
            reader.close()

    return TableSource(domain_name(table), table, key, f"{path}:{table}", changes, notes)


# ---------------------------------------------------------------- a live table


def dynamodb_sources(table: str, *, stack: ExitStack, domain: str | None, key: KeyInfo | None,
                     endpoint_url: str | None, aws: bool, profile: str | None, segments: int, progress: bool,
                     client: Any = None) -> list[TableSource]:
    if client is None:
        if not (endpoint_url or aws or os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")):
            raise SourceError(f"where is table {table!r}? A live-table import needs an endpoint", where=table,
                              hint="give --endpoint-url URL (a local DynamoDB) or --aws (with --profile NAME)")
        from blue_nb.dynamo import resolve_endpoint  # deferred: boto3 loads only for a live-table import

        endpoint = stack.enter_context(resolve_endpoint(endpoint_url, aws=aws, profile=profile))
        client = endpoint.client()
    desc = client.describe(table)
    info = keys_from_describe(desc)
    if key is not None:
        key.types, key.indexes, key.table = info.types, info.indexes, info.table
        info = key
    total = desc.get("ItemCount")

    def changes() -> Iterator[tuple]:
        for n, item in enumerate(client.scan_items(table, segments=segments, progress=progress, total=total), 1):
            yield "put", item, f"dynamodb:{table} item {n:,}", "item"

    real = desc.get("TableName", table)
    return [TableSource(domain or domain_name(real), real, info, f"the DynamoDB table {real}", changes,
                        [f"{real}: read with a parallel Scan in {segments} segments (items written meanwhile may "
                         "be missed or seen)"])]
