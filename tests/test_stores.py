"""SQLite and DuckDB stores: ADR 0018's exact table, identical items, every type intact,
all-or-nothing loads, re-loads that leave one copy, and indexed index keys."""

import csv
import threading
from decimal import Decimal
from itertools import islice

import pytest
from hypothesis import HealthCheck, given, settings

from blue_nb.errors import StoreError
from blue_nb.spec import loads_spec
from blue_nb.patterns import data_bytes
from blue_nb.layout import main_table_sql
from blue_nb.stores import BACKENDS, load_items, open_store
from blue_nb.stores.base import KeyConflict
from blue_nb.app.workflows import compare_stores, load_data, spec_items

from .strategies import items as item_strategy

SPEC = loads_spec("""
spec_version: 1
domain: kitchen
table:
  partition_key: pk
  sort_key: sk
  indexes:
    by_kind: {type: global, partition_key: kind, sort_key: sk}
entities:
  Thing:
    key: {pk: "{pk}", sk: "{sk}", kind: "{kind}"}
""")

EVERY_TYPE = {
    "pk": "café#東京", "sk": "THING#ünïcødé#😀", "kind": "all",
    "s": "any Unicode: ß 東京 😀 \u0000 nul", "empty": "", "esc": 'back\\slash \\x41 \\u00e9 "quoted" \t\n',
    "n38": Decimal("12345678901234567890123456789012345678"), "tiny": Decimal("1E-130"),
    "big": Decimal("9.9999999999999999999999999999999999999E+125"), "neg": Decimal("-0.001"),
    "b": bytes(range(256)), "b0": b"", "t": True, "f": False, "nul": None,
    "l": [Decimal(1), "two", [b"\x03"], {"four": None}], "m": {"a": {"b": {"c": [True]}}, "": "empty name"},
    "ss": {"a", "b", "東京"}, "ns": {Decimal("1"), Decimal("-2.5"), Decimal("1E+100")}, "bs": {b"\x00", b"\xff\xfe"},
    "deep": {"x": [[[[{"y": [Decimal(0)]}]]]]},
}


@pytest.fixture(params=BACKENDS)
def store(request):
    s = open_store(request.param)
    yield s
    s.close()


def things(items):
    return (("Thing", i) for i in items)


def test_sqlite_table_is_exactly_adr_0018():
    s = open_store("sqlite")
    load_items([s], SPEC, things([EVERY_TYPE]), progress=False)
    ddl = s.execute("SELECT sql FROM sqlite_master WHERE name = 'blue_kitchen'")[0][0]
    assert ddl == main_table_sql("blue_kitchen")
    info = s.execute("PRAGMA table_info(blue_kitchen)")
    assert [(r[1], r[2], r[3], r[5]) for r in info] == [
        ("pk", "TEXT", 1, 1), ("sk", "TEXT", 1, 2), ("data", "JSON", 1, 0), ("created_at", "TEXT", 1, 0)]


def test_duckdb_table_has_the_same_shape():
    s = open_store("duckdb")
    load_items([s], SPEC, things([EVERY_TYPE]), progress=False)
    cols = s.execute("SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                     "WHERE table_name = 'blue_kitchen' ORDER BY ordinal_position")
    assert cols == [("pk", "VARCHAR", "NO"), ("sk", "VARCHAR", "NO"), ("data", "JSON", "NO"),
                    ("created_at", "VARCHAR", "NO")]
    pk = s.execute("SELECT constraint_column_names FROM duckdb_constraints() "
                   "WHERE table_name = 'blue_kitchen' AND constraint_type = 'PRIMARY KEY'")
    assert pk == [(["pk", "sk"],)]


def test_every_type_survives(store):
    load_items([store], SPEC, things([EVERY_TYPE]), progress=False)
    assert store.get_item("blue_kitchen", EVERY_TYPE["pk"], EVERY_TYPE["sk"]) == EVERY_TYPE
    assert list(store.iter_items("blue_kitchen")) == [EVERY_TYPE]
    assert list(store.iter_entity_items("blue_kitchen")) == [("Thing", EVERY_TYPE)]
    # the stores fetch the JSON text's bytes (DuckDB would read backslash escapes in a CAST to BLOB)
    assert [r[0] for r in store.rows(f"SELECT {data_bytes(store.kind)} FROM blue_kitchen", [])] == [
        store.execute("SELECT data FROM blue_kitchen")[0][0].encode()]
    got = store.get_item("blue_kitchen", EVERY_TYPE["pk"], EVERY_TYPE["sk"])
    assert isinstance(got["n38"], Decimal) and str(got["n38"]) == "12345678901234567890123456789012345678"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=item_strategy().map(lambda i: {**i, "kind": "k"}).flatmap(
    lambda first: item_strategy().map(lambda second: [first, {**second, "kind": "k"}])))
def test_random_items_survive_both_stores(batch):
    batch = list({(i["pk"], i["sk"]): i for i in batch}.values())        # DynamoDB keeps one item per key
    for backend in BACKENDS:
        with open_store(backend) as s:
            load_items([s], SPEC, things(batch), progress=False)
            for item in batch:
                assert s.get_item("blue_kitchen", item["pk"], item["sk"]) == item


def test_sample_loads_identically_into_both(dialogue_spec, dialogue_data):
    stores = [open_store(b) for b in BACKENDS]
    results = load_data(dialogue_spec, dialogue_data, stores=stores, progress=False)
    rows = {p.stem: sum(1 for _ in csv.reader(open(p, encoding="utf-8", newline="")))      # records: a text
            for p in dialogue_data.glob("*.csv")}                                        # may hold line breaks
    assert results[0].items_written == results[1].items_written == results[0].items_after > 1000
    assert results[0].per_entity["Expert"] == stores[1].count("blue_dialogue", "Expert")
    proof = compare_stores(stores, dialogue_spec)
    assert proof["identical"] and proof["sqlite"]["items"] == results[0].items_after
    assert stores[0].entity_counts("blue_dialogue") == stores[1].entity_counts("blue_dialogue")
    assert rows["dialogues"] - 1 == stores[0].count("blue_dialogue", "Dialogue")


def test_key_order_is_utf8_byte_order(store):
    keys = ["PERSP#2", "PERSP#10", "a", "Z", "é", "東", "😀", "\u007f"]
    load_items([store], SPEC, things({"pk": "p", "sk": k, "kind": "k"} for k in keys), progress=False)
    got = [i["sk"] for i in store.iter_items("blue_kitchen")]
    assert got == sorted(keys, key=lambda k: k.encode("utf-8"))
    assert got.index("PERSP#10") < got.index("PERSP#2")


def test_every_item_in_key_order_whatever_the_batch(store):
    keys = [f"p{i % 7}#{i}" for i in range(40)]
    load_items([store], SPEC, things({"pk": k.split("#")[0], "sk": k, "kind": "k" if i % 3 else "z"}
                                     for i, k in enumerate(keys)), progress=False)
    want = sorted(((k.split("#")[0], k) for k in keys), key=lambda x: (x[0].encode(), x[1].encode()))
    for batch in (1, 3, 40, 41, 1000):                  # one query, streamed batch rows at a time
        assert [(i["pk"], i["sk"]) for i in store.iter_items("blue_kitchen", batch=batch)] == want, batch
    assert [i["sk"] for i in store.iter_items("blue_kitchen", batch=2, limit=3)] == [w[1] for w in want[:3]]
    assert list(store.iter_items("blue_kitchen", limit=0)) == []
    kinds = [i["kind"] for i in store.iter_items("blue_kitchen", "Thing", batch=4)]
    assert len(kinds) == 40 and kinds.count("z") == 14
    assert list(store.iter_items("blue_kitchen", "Other")) == []
    pairs = list(store.iter_entity_items("blue_kitchen", batch=3))   # the table and its catalog side by side
    assert [(e, (i["pk"], i["sk"])) for e, i in pairs] == [("Thing", w) for w in want]
    store.execute('DELETE FROM "blue_kitchen__items" WHERE sk = ?', [want[5][1]])
    with pytest.raises(StoreError, match="catalog of 'blue_kitchen' does not match the table at key") as e:
        list(store.iter_entity_items("blue_kitchen"))
    assert "load the data again" in e.value.hint


def test_loading_twice_leaves_one_copy(store, dialogue_spec, dialogue_data):
    first = load_data(dialogue_spec, dialogue_data, stores=[store], progress=False)[0]
    before = compare_stores([store], dialogue_spec)[store.kind]
    again = load_data(dialogue_spec, dialogue_data, stores=[store], progress=False)[0]
    assert again.items_after == first.items_after
    assert compare_stores([store], dialogue_spec)[store.kind] == before
    upsert = load_data(dialogue_spec, dialogue_data, stores=[store], mode="upsert", progress=False)[0]
    assert upsert.items_after == first.items_after and upsert.replaced == first.items_written


def test_upsert_keeps_other_items_and_replace_mirrors(store):
    load_items([store], SPEC, things([{"pk": "a", "sk": "1", "kind": "k", "v": "old"}]), progress=False)
    load_items([store], SPEC, things([{"pk": "b", "sk": "1", "kind": "k"}, {"pk": "a", "sk": "1", "kind": "k", "v": "new"}]),
               mode="upsert", progress=False)
    assert store.count("blue_kitchen") == 2 and store.get_item("blue_kitchen", "a", "1")["v"] == "new"
    load_items([store], SPEC, things([{"pk": "c", "sk": "1", "kind": "k"}]), progress=False)
    assert [i["pk"] for i in store.iter_items("blue_kitchen")] == ["c"]


class Boom(Exception):
    pass


@pytest.mark.parametrize("error", [Boom, KeyboardInterrupt])
def test_failed_load_leaves_the_store_as_it_was(store, error):
    load_items([store], SPEC, things([{"pk": "keep", "sk": "1", "kind": "k"}]), progress=False)
    before = compare_stores([store], SPEC)[store.kind]

    def items():
        for n in range(store.chunk_size * 2 + 10):       # several chunks are written before the failure
            yield "Thing", {"pk": f"p{n}", "sk": "1", "kind": "k"}
        raise error()

    with pytest.raises(error):
        load_items([store], SPEC, items(), progress=False)
    assert compare_stores([store], SPEC)[store.kind] == before
    assert store.count("blue_kitchen__items") == 1


def test_failure_in_one_store_rolls_back_both(dialogue_spec):
    good, bad = open_store("sqlite"), open_store("duckdb")
    load_items([good, bad], SPEC, things([{"pk": "keep", "sk": "1", "kind": "k"}]), progress=False)
    calls = []

    def failing(original):                 # whichever insert the load uses (DuckDB stages a replace with plain ones)
        def insert(table, columns, rows):
            calls.append(table)
            if len(calls) > 2:
                raise StoreError("disk full")
            return original(table, columns, rows)
        return insert

    bad.insert_rows, bad.insert_new = failing(bad.insert_rows), failing(bad.insert_new)
    items = ({"pk": f"p{n}", "sk": "1", "kind": "k"} for n in range(12_000))
    with pytest.raises(StoreError, match="disk full"):
        load_items([good, bad], SPEC, things(items), progress=False)
    assert good.count("blue_kitchen") == 1 and bad.count("blue_kitchen") == 1


def test_loads_stream(store):
    pulled = []

    def items():
        for n in range(store.chunk_size * 6):
            pulled.append(n)
            yield "Thing", {"pk": f"p{n}", "sk": "1", "kind": "k"}

    seen = []

    def spy(original):
        def insert(table, columns, rows):
            seen.append(len(pulled))
            return original(table, columns, rows)
        return insert

    store.insert_rows, store.insert_new = spy(store.insert_rows), spy(store.insert_new)
    load_items([store], SPEC, items(), progress=False)
    # the first chunk is written before the rest is read: the next chunk waits, and one more is being made
    assert seen[0] <= store.chunk_size * 3
    assert store.count("blue_kitchen") == store.chunk_size * 6


def test_index_keys_are_indexed_and_sparse():
    s = open_store("sqlite")
    load_items([s], SPEC, things([{"pk": "a", "sk": "1", "kind": "k"}, {"pk": "b", "sk": "2"}]), progress=False)
    assert s.execute('SELECT pk, "by_kind__pk", "by_kind__sk" FROM blue_kitchen__items ORDER BY pk') == [
        ("a", "k", "1"), ("b", None, None)]
    plan = s.execute('EXPLAIN QUERY PLAN SELECT pk, sk FROM blue_kitchen__items WHERE "by_kind__pk" = ? '
                     'ORDER BY "by_kind__sk"', ("k",))
    assert "USING INDEX blue_kitchen__by_kind" in " ".join(r[-1] for r in plan)
    d = open_store("duckdb")
    load_items([d], SPEC, things([{"pk": "a", "sk": "1", "kind": "k"}]), progress=False)
    assert d.execute("SELECT index_name FROM duckdb_indexes() WHERE table_name = 'blue_kitchen__items'") == [
        ("blue_kitchen__by_kind",)]


def test_catalog_is_rebuilt_when_indexes_change(store):
    load_items([store], SPEC, things([{"pk": "a", "sk": "1", "kind": "k"}]), progress=False)
    plain = loads_spec("spec_version: 1\ndomain: kitchen\ntable: {partition_key: pk, sort_key: sk}\n"
                       "entities: {Thing: {key: {pk: '{pk}', sk: '{sk}'}}}\n")
    load_items([store], plain, things([{"pk": "a", "sk": "1"}]), progress=False)
    assert store.table_columns("blue_kitchen__items") == ["pk", "sk", "entity", "size"]


def test_sizes_in_the_catalog_are_exact(store):
    item = {"pk": "p", "sk": "s", "kind": "k", "shirt-color": "R"}
    load_items([store], SPEC, things([item]), progress=False)
    # pk(2+1) + sk(2+1) + kind(4+1) + shirt-color(11+1) = 23
    assert store.largest_items("blue_kitchen", 1) == [("p", "s", "Thing", 23)]
    assert store.largest_partitions("blue_kitchen", 1) == [("p", 1, 23)]


def test_foreign_table_is_refused(store):
    store.execute("CREATE TABLE blue_kitchen (id INTEGER)")
    with pytest.raises(StoreError, match="not ADR 0018"):
        load_items([store], SPEC, things([{"pk": "a", "sk": "1"}]), progress=False)


def test_unknown_backend():
    with pytest.raises(StoreError, match="unknown backend 'mysql'"):
        open_store("mysql")


def test_spec_items_streams_the_sample(dialogue_spec, dialogue_data):
    first = list(islice(spec_items(dialogue_spec, dialogue_data), 3))
    assert [e for e, _ in first] == ["Dialogue"] * 3
    assert all(i["sk"] == "META" and i["gsi1pk"].startswith("STATUS#") for _, i in first)


def test_duckdb_memory_is_bounded_and_spills_to_a_folder_of_its_own(monkeypatch):
    """400 MB unless BLUE_NB_DUCKDB_MEMORY says otherwise; an in-memory store spills to its own folder, removed on
    close; a size DuckDB cannot read is refused by name before anything opens."""
    import os
    store = open_store("duckdb")
    limit, spill = store.execute("SELECT current_setting('memory_limit'), current_setting('temp_directory')")[0]
    assert limit == "381.4 MiB" and os.path.isdir(spill) and os.path.basename(spill).startswith("blue-nb-duckdb-")
    store.close()
    assert not os.path.exists(spill)
    monkeypatch.setenv("BLUE_NB_DUCKDB_MEMORY", "1GB")
    store = open_store("duckdb")
    assert store.execute("SELECT current_setting('memory_limit')")[0][0] == "953.6 MiB"
    store.close()
    monkeypatch.setenv("BLUE_NB_DUCKDB_MEMORY", "lots")
    with pytest.raises(StoreError, match="BLUE_NB_DUCKDB_MEMORY='lots' is not a memory size") as e:
        open_store("duckdb")
    assert "512MB" in e.value.hint
    monkeypatch.setenv("BLUE_NB_DUCKDB_MEMORY", "20MB")                   # a query that needs more says what to set
    store = open_store("duckdb")
    big = "SELECT string_agg(repeat('x', 1000), ',') FROM range(60000) GROUP BY range % 30000 ORDER BY 1"
    for run in (lambda: store.execute(big), lambda: list(store.rows(big, [], 10))):
        with pytest.raises(StoreError, match="Out of Memory") as e:
            run()
        assert e.value.hint.startswith("DuckDB may hold 20MB here (BLUE_NB_DUCKDB_MEMORY); set it higher")
    store.close()


@pytest.mark.parametrize("kind", ["sqlite", "duckdb"])
def test_rows_given_a_column_at_a_time_arrive_as_rows_with_nan_as_null(kind):
    import numpy as np
    import pandas as pd

    store = open_store(kind)
    store.execute("CREATE TABLE t (a BIGINT PRIMARY KEY, b DOUBLE, c TEXT)")
    store.insert_columns("t", {"a": np.arange(3, dtype=np.int64), "b": pd.Series([1.5, np.nan, 2.0]),
                               "c": ["x", None, "z"]})
    assert [tuple(r) for r in store.execute("SELECT a, b, c FROM t ORDER BY a")] == \
        [(0, 1.5, "x"), (1, None, None), (2, 2.0, "z")]
    with pytest.raises(KeyConflict):                 # new rows only: a key already there is refused
        store.insert_columns("t", {"a": np.array([2]), "b": [0.0], "c": ["again"]})
    store.close()


def test_only_a_duckdb_store_has_analytics_and_a_session_drops_its_tables():
    """The analytics capability is the store's to offer (no check of its class elsewhere): SQLite says to use
    DuckDB; a DuckDB session's tables, uploads and numpy columns go when it closes."""
    import numpy as np
    import pandas as pd

    from blue_nb.stores.analytics import Sql, frame, param

    with open_store("sqlite") as s, pytest.raises(StoreError, match="DuckDB store") as e:
        s.analytics()
    assert 'open_store("duckdb")' in e.value.hint
    with open_store("duckdb") as store:
        scratch = store.analytics()
        nums = scratch.create_as("nums", "SELECT range AS n FROM range(5) WHERE range >= ?", [1])
        up = scratch.upload("up", {"word": "TEXT"}, [("a",), ("b",)])
        df = scratch.upload_frame("df", pd.DataFrame({"x": [1.5, np.nan]}), {"x": "DOUBLE"})
        col = scratch.column(f"SELECT n FROM {nums} ORDER BY n")
        assert isinstance(col, np.ndarray) and col.tolist() == [1, 2, 3, 4]
        assert scratch.execute(Sql.format("SELECT count(*) FROM {t} WHERE n > {v}", t=nums, v=param(2))) == [(2,)]
        assert frame(store, f"SELECT rid, word FROM {up} ORDER BY rid", ["rid", "word"]).values.tolist() == \
            [[0, "a"], [1, "b"]]
        assert scratch.execute(f"SELECT count(*) FROM {df} WHERE x IS NULL") == [(1,)]
        assert len(scratch.tables) == 3 and store.analytics().tables == []     # each session names its own
        scratch.close()
        assert store.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary") == [(0,)]


def test_duckdb_finds_key_values_that_are_not_strings_as_the_json_test_does():
    """DuckDB screens the stored text with a regular expression first: the same keys as the exact JSON test."""
    from blue_nb.stores.base import Store

    odd = "a.b-c"
    rows = [("a", '{"pk":{"S":"a"},"sk":{"S":"1"}}'),
            ("b", '{"pk":{"S":"b"},"sk":{"N":"1"}}'),
            ("c", '{"pk":{"S":"c"},"sk":{"S":"x"},"m":{"M":{"sk":{"N":"1"}}}}'),       # nested: not a key
            ("d", '{"pk":{"S":"d"},"sk":{"SS":["x"]}}'),
            ("e", '{"pk":{"S":"e"},"sk":{"S":"S"},"a.b-c":{"B":"AA=="}}'),
            ("f", '{"pk":{"S":"f"},"sk":{"S":"N"},"a.b-c":{"S":"x"}}'),
            ("g", '{"pk":{"S":"g"},"sk":{"NULL":true}}')]
    for kind in ("sqlite", "duckdb"):
        store = open_store(kind)
        store.execute(main_table_sql("t"))
        store.insert_rows("t", ["pk", "sk", "data", "created_at"], [(k, "s", d, "now") for k, d in rows])
        want = {(k, "s") for k in "bdeg"}
        assert store._not_strings("t", ["pk", "sk", odd]) == Store._not_strings(store, "t", ["pk", "sk", odd]) == want
        store.close()


def test_ahead_makes_the_items_in_a_thread_of_their_own_in_order_with_errors_in_place():
    from blue_nb.stores.stage import Ahead
    made_in = []

    def source(n, fail_at=None):
        for i in range(n):
            made_in.append(threading.current_thread().name)
            if i == fail_at:
                raise ValueError(f"bad item {i}")
            yield i

    with Ahead(source(50)) as it:
        assert list(it) == list(range(50))
    assert set(made_in) == {"blue-nb-load-chunks"}
    got = []
    with pytest.raises(ValueError, match="bad item 7"):
        with Ahead(source(50, fail_at=7)) as it:
            for x in it:
                got.append(x)
    assert got == list(range(7))                        # every item before the error, then the error


def test_leaving_ahead_early_stops_its_thread_and_the_source_reads_on():
    from blue_nb.stores.stage import Ahead
    rows = iter(range(100))

    def chunks():                                       # like the load's chunks over a source the caller keeps
        for x in rows:
            yield x

    with Ahead(chunks()) as it:
        assert next(it) == 0
    assert not any(t.name == "blue-nb-load-chunks" for t in threading.enumerate())
    rest = list(rows)                                   # no "generator already executing": the thread is done
    assert rest and rest == list(range(100 - len(rest), 100)) and len(rest) >= 100 - 4


def test_spill_folders_of_processes_that_are_gone_are_removed(tmp_path, monkeypatch):
    """A killed process leaves its in-memory store's spill folder; the next in-memory store removes the folders
    of processes that no longer run, and keeps those of living ones."""
    import os
    import subprocess
    import sys
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / f"blue-nb-duckdb-{gone.stdout.strip()}-abc"
    living = tmp_path / f"blue-nb-duckdb-{os.getppid()}-def"
    other = tmp_path / "blue-nb-duckdb-notapid"
    for d in (dead, living, other):
        d.mkdir()
        (d / "spilled.tmp").write_bytes(b"x")
    store = open_store("duckdb")
    spill = store.execute("SELECT current_setting('temp_directory')")[0][0]
    assert not dead.exists() and living.exists() and other.exists()
    assert os.path.basename(spill).startswith(f"blue-nb-duckdb-{os.getpid()}-")
    assert os.path.dirname(spill) == str(tmp_path)
    store.close()


def test_a_duckdb_file_has_small_row_groups_and_spills_beside_it(tmp_path):
    """A store file is written in row groups of ROW_GROUP_SIZE rows (a read of one partition scans fewer rows),
    read back the same read-only, and spills to a folder beside it, as DuckDB does for a file."""
    from blue_nb.stores.duckdb import ROW_GROUP_SIZE, DuckDBStore
    path = tmp_path / "x.duckdb"
    with open_store("duckdb", path) as s:
        s.execute("CREATE TABLE t AS SELECT range AS i FROM range(40000)")
        s.execute("CHECKPOINT")
        groups = s.execute("SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('t')")[0][0]
        assert ROW_GROUP_SIZE == 16_384 and groups == 3
        assert s.execute("SELECT current_setting('temp_directory')")[0][0] == f"{path}.tmp"
        assert s.twin().execute("SELECT count(*) FROM t") == [(40000,)]           # a cursor reads the file too
    with DuckDBStore(path, read_only=True) as s:
        assert s.execute("SELECT sum(i) FROM t") == [(sum(range(40000)),)]


def test_a_duckdb_file_checkpoints_while_a_load_writes(tmp_path, monkeypatch):
    """A store file takes a checkpoint after each CHECKPOINT_ROWS rows a commit brought (so a load's key index is
    written out, not held in memory); an in-memory store never does; the items are all there either way."""
    from blue_nb.stores import duckdb as duck_mod
    monkeypatch.setattr(duck_mod, "CHECKPOINT_ROWS", 3000)
    items = [("Thing", {"pk": f"p{n}", "sk": "1", "kind": "k"}) for n in range(duck_mod.DuckDBStore.chunk_size * 2)]
    for path in (tmp_path / "x.duckdb", ":memory:"):
        with open_store("duckdb", path) as s:
            seen = []
            execute = s.execute
            s.execute = lambda sql, params=(): (seen.append(sql), execute(sql, params))[1]
            load_items([s], SPEC, items, progress=False)
            assert s.count("blue_kitchen") == len(items)
        # each staged chunk (items, catalog and source rows) passes 3,000 rows: one checkpoint per chunk
        assert seen.count("CHECKPOINT") == (2 if path != ":memory:" else 0), path


def test_a_sqlite_file_is_not_read_as_a_duckdb_store(tmp_path):
    """A store file is opened as DuckDB's own kind only: another database (a SQLite file given as --duckdb) is
    refused by name, and DuckDB fetches no extension to read it (no network)."""
    path = tmp_path / "blue.sqlite"
    with open_store("sqlite", path) as s:
        s.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="not a valid DuckDB database file") as e:
        open_store("duckdb", path)
    assert "extension" not in str(e.value) and str(path) in str(e.value)


class _InterruptedConnection:
    """A DuckDB connection whose statements end as DuckDB ends one that Ctrl-C stopped while it scanned a
    registered Arrow chunk: ``RuntimeError: Query interrupted`` (seen in a load's staging)."""

    def __init__(self, real):
        self.real = real

    def execute(self, *_a, **_k):
        raise RuntimeError("Query interrupted")

    def register(self, *_a, **_k):
        return None

    unregister = register

    def cursor(self):
        return self


def test_duckdb_query_interrupted_is_an_interrupt_not_an_error():
    with open_store("duckdb") as store:
        store.execute("CREATE TABLE t (a TEXT)")
        real = store.con
        store.con = _InterruptedConnection(real)
        try:
            for act in (lambda: store.execute("SELECT 1"), lambda: store.insert_rows("t", ["a"], [("x",)]),
                        lambda: list(store.rows("SELECT 1", [], 10))):
                with pytest.raises(KeyboardInterrupt):
                    act()
        finally:
            store.con = real
        assert store.execute("SELECT count(*) FROM t") == [(0,)]
