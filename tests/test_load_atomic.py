"""One load, all stores or none: duplicate keys refused naming both source rows, store paths
checked, and the switch's recovery (rolled forward, rolled back, idempotent, itself interruptible)."""

from __future__ import annotations

from pathlib import Path

import pytest

from blue_nb.errors import SourceError, StoreError
from blue_nb.layout import item_shape_digest
from blue_nb.spec import loads_spec
from blue_nb.stores import LoadInterrupted, journal, load, load_items, open_store
from blue_nb.stores.lock import load_lock
from tests.test_stores import SPEC                       # the same small kitchen spec as the store tests

TABLE = "blue_kitchen"
STAGING = ("blue_kitchen__next", "blue_kitchen__next__items", "blue_kitchen__next__src", "blue_kitchen__next__spec")


def rows(n: int, start: int = 0, v: str = "new"):
    return [("Thing", {"pk": f"p{i}", "sk": "1", "kind": "k", "v": v}, f"things.csv:{i + 2}")
            for i in range(start, start + n)]


def content(store) -> list[tuple]:
    return store.execute(f'SELECT pk, sk, data FROM "{TABLE}" ORDER BY pk, sk')


@pytest.fixture(params=["sqlite", "duckdb"])
def store(request):
    s = open_store(request.param)
    yield s
    s.close()


@pytest.fixture
def files(tmp_path):
    """A SQLite and a DuckDB file holding 3 old items."""
    a, b = tmp_path / "a.sqlite", tmp_path / "b.duckdb"
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        load_items([s1, s2], SPEC, rows(3, v="old"), progress=False)
    return a, b


# -- duplicate keys ---------------------------------------------------------------------------

def test_duplicate_in_a_chunk_names_both_rows_and_changes_nothing(store):
    load_items([store], SPEC, rows(2, v="old"), progress=False)
    before = content(store)
    items = rows(3) + [("Thing", {"pk": "p1", "sk": "1", "kind": "k"}, "things.csv:9")]
    with pytest.raises(SourceError) as e:
        load_items([store], SPEC, items, progress=False)
    text = str(e.value)
    assert "things.csv:3" in text and "things.csv:9" in text and "'p1'" in text
    assert "make the key templates unique" in text
    assert content(store) == before
    assert not any(store.has_table(t) for t in STAGING)


def test_duplicate_across_chunks_is_found_in_the_staged_keys(store):
    n = store.chunk_size + 10
    items = rows(n) + [("Thing", {"pk": "p3", "sk": "1", "kind": "k"}, "other.jsonl:7")]
    with pytest.raises(SourceError, match=r"things.csv:5 and other.jsonl:7"):
        load_items([store], SPEC, items, progress=False)
    assert not store.has_table(TABLE) or store.count(TABLE) == 0


def test_of_several_repeats_across_chunks_the_first_in_load_order_is_named(store):
    n = store.chunk_size + 10
    items = rows(n) + [("Thing", {"pk": "p5", "sk": "1", "kind": "k"}, "other.jsonl:7"),
                       ("Thing", {"pk": "p3", "sk": "1", "kind": "k"}, "other.jsonl:8")]
    with pytest.raises(SourceError, match=r"pk 'p5'.*things.csv:7 and other.jsonl:7"):
        load_items([store], SPEC, items, progress=False)


def test_duplicate_without_a_location_names_the_items_by_position(store):
    items = [("Thing", {"pk": "a", "sk": "1", "kind": "k"}), ("Thing", {"pk": "a", "sk": "1", "kind": "k"})]
    with pytest.raises(SourceError, match="item 1 of the load and item 2 of the load"):
        load_items([store], SPEC, items, progress=False)


def test_upsert_updates_keys_already_in_the_table_but_refuses_two_rows_of_one_load(store):
    load_items([store], SPEC, rows(3, v="old"), progress=False)
    [r] = load_items([store], SPEC, rows(2, start=2), mode="upsert", progress=False)
    assert (r.items_before, r.items_written, r.items_after, r.replaced) == (3, 2, 4, 1)
    assert store.get_item(TABLE, "p2", "1")["v"] == "new" and store.get_item(TABLE, "p0", "1")["v"] == "old"
    before = content(store)
    with pytest.raises(SourceError, match="things.csv:2 and things.csv:2"):
        load_items([store], SPEC, rows(1) + rows(1), mode="upsert", progress=False)
    assert content(store) == before


def test_upsert_recomputes_the_catalog_when_the_indexes_changed(store):
    plain = loads_spec("spec_version: 1\ndomain: kitchen\ntable: {partition_key: pk, sort_key: sk}\n"
                       "entities: {Thing: {key: {pk: '{pk}', sk: '{sk}'}}}\n")
    load_items([store], plain, rows(3, v="old"), progress=False)
    store.chunk_size = 2                                     # the old items are copied in two chunks
    load_items([store], SPEC, rows(1, start=5), mode="upsert", progress=False)
    cat = store.execute('SELECT pk, entity, "by_kind__pk" FROM blue_kitchen__items ORDER BY pk')
    assert cat == [("p0", "Thing", "k"), ("p1", "Thing", "k"), ("p2", "Thing", "k"), ("p5", "Thing", "k")]
    assert journal.loaded_digest(store, TABLE) is None            # a mix of items of two specs: no spec built them all
    load_items([store], SPEC, rows(2), progress=False)
    assert journal.loaded_digest(store, TABLE) == item_shape_digest(SPEC)
    load_items([store], SPEC, rows(1, start=7), mode="upsert", progress=False)
    assert journal.loaded_digest(store, TABLE) == item_shape_digest(SPEC)     # an upsert with the same spec keeps it


# -- store paths ------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["sqlite", "duckdb"])
def test_a_store_below_a_file_is_refused(tmp_path, backend):
    (tmp_path / "f").write_text("x")
    with pytest.raises(StoreError, match="is a file, not a folder") as e:
        open_store(backend, tmp_path / "f" / "sub" / "s.db")
    assert e.value.hint and str(tmp_path / "f" / "sub" / "s.db") in str(e.value)


def test_a_store_path_that_is_a_folder_is_refused(tmp_path):
    with pytest.raises(StoreError, match="is a folder, not a file"):
        open_store("sqlite", tmp_path)


def test_a_missing_folder_is_created_and_said(tmp_path):
    with open_store("duckdb", tmp_path / "a" / "b" / "s.duckdb") as s:
        assert s.created_folder == str(tmp_path / "a" / "b")
        [r] = load_items([s], SPEC, rows(1), progress=False)
        assert r.notes == [f"created folder {tmp_path / 'a' / 'b'}"]
    with open_store("duckdb", tmp_path / "a" / "b" / "s.duckdb") as s:
        assert s.created_folder is None


# -- the switch and its recovery --------------------------------------------------------------

def fail_on(monkeypatch, where: str, exc: BaseException, after: int = 0):
    """Make journal.<where> raise ``exc`` once, after ``after`` successful calls."""
    original, calls = getattr(journal, where), []

    def failing(*a, **kw):
        calls.append(a)
        if len(calls) == after + 1:
            raise exc
        return original(*a, **kw)
    monkeypatch.setattr(journal, where, failing)


def test_an_interrupt_before_the_commit_point_changes_nothing(files):
    a, b = files
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        before = content(s1), content(s2)

        def items():
            yield from rows(10)
            raise KeyboardInterrupt
        with pytest.raises(LoadInterrupted) as e:
            load_items([s1, s2], SPEC, items(), progress=False)
        assert not e.value.committed and "nothing was changed" in e.value.message
        assert (content(s1), content(s2)) == before
        assert not any(s.has_table(t) for s in (s1, s2) for t in STAGING)


def test_interrupted_after_the_commit_point_rolls_forward_when_reopened(files, monkeypatch):
    a, b = files
    fail_on(monkeypatch, "finish", KeyboardInterrupt())
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        with pytest.raises(LoadInterrupted) as e:
            load_items([s1, s2], SPEC, rows(5), progress=False)
        assert e.value.committed
        assert "new items are in SQLite" in e.value.message and "DuckDB" in e.value.message
        assert "finishes the switch when next opened" in e.value.message
        assert s1.count(TABLE) == 5 and s2.count(TABLE) == 3          # DuckDB not switched yet
    monkeypatch.undo()
    with open_store("duckdb", b) as s2, open_store("sqlite", a) as s1:
        assert any("finished the switch" in n for n in s2.recovered)
        assert content(s1) == content(s2) and s2.count(TABLE) == 5
        assert not any(s2.has_table(t) for t in STAGING)
        assert journal.loaded_spec(s1, TABLE) == journal.loaded_spec(s2, TABLE)      # the record came with the switch
        assert journal.loaded_digest(s2, TABLE) == item_shape_digest(SPEC)
        assert s2.execute('SELECT index_name FROM duckdb_indexes() WHERE table_name = ?', (f"{TABLE}__items",)) == [
            (f"{TABLE}__by_kind",)]
    with open_store("duckdb", b) as s2:
        assert s2.recovered == ()                                    # idempotent: nothing left to do


def test_killed_before_the_commit_point_rolls_back_when_reopened(files, monkeypatch):
    a, b = files
    fail_on(monkeypatch, "swap_in", KeyboardInterrupt())             # the commit store's swap is interrupted...
    monkeypatch.setattr(load, "_discard", lambda *a: None)            # ...and the process dies: no clean-up
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        with pytest.raises(KeyboardInterrupt):
            load_items([s1, s2], SPEC, rows(5), progress=False)
        assert journal.pending(s2) and s2.has_table(STAGING[0])
    monkeypatch.undo()
    with open_store("duckdb", b) as s2, open_store("sqlite", a) as s1:
        assert any("rolled back" in n for n in s2.recovered)
        assert s1.count(TABLE) == s2.count(TABLE) == 3 and content(s1) == content(s2)
        assert not s2.has_table(STAGING[0])


def test_recovery_interrupted_itself_finishes_next_time(files, monkeypatch):
    a, b = files
    fail_on(monkeypatch, "finish", KeyboardInterrupt())
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        with pytest.raises(LoadInterrupted):
            load_items([s1, s2], SPEC, rows(5), progress=False)
    fail_on(monkeypatch, "record", KeyboardInterrupt())               # recovery stops inside its transaction
    with pytest.raises(KeyboardInterrupt):
        open_store("duckdb", b)
    monkeypatch.undo()
    with open_store("duckdb", b) as s2:
        assert any("finished the switch" in n for n in s2.recovered) and s2.count(TABLE) == 5


def test_a_commit_store_that_is_gone_is_presumed_not_committed(files, monkeypatch):
    a, b = files
    fail_on(monkeypatch, "swap_in", KeyboardInterrupt())
    monkeypatch.setattr(load, "_discard", lambda *a: None)
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        with pytest.raises(KeyboardInterrupt):
            load_items([s1, s2], SPEC, rows(5), progress=False)
    monkeypatch.undo()
    a.unlink()
    with open_store("duckdb", b) as s2:
        assert any("rolled back" in n for n in s2.recovered) and s2.count(TABLE) == 3


def test_an_error_after_the_commit_point_says_the_load_committed(files, monkeypatch):
    a, b = files
    fail_on(monkeypatch, "finish", StoreError("disk full"))
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        with pytest.raises(StoreError, match="the load committed.*disk full.*finishes the switch when next opened"):
            load_items([s1, s2], SPEC, rows(5), progress=False)
    monkeypatch.undo()
    with open_store("duckdb", b) as s2:
        assert s2.count(TABLE) == 5


def test_in_memory_stores_are_finished_even_when_interrupted_after_the_commit_point(tmp_path, monkeypatch):
    a = tmp_path / "a.sqlite"
    fail_on(monkeypatch, "finish", KeyboardInterrupt(), after=0)
    with open_store("sqlite", a) as s1, open_store("duckdb") as mem:
        with pytest.raises(LoadInterrupted) as e:
            load_items([mem, s1], SPEC, rows(4), progress=False)
        assert e.value.committed and s1.count(TABLE) == 4
        # the first finish (the interrupted one) is retried for the in-memory store
        assert "still hold" not in e.value.message


def test_a_pending_load_that_cannot_be_decided_blocks_the_next_load(files, monkeypatch):
    a, b = files
    fail_on(monkeypatch, "finish", KeyboardInterrupt())
    with open_store("sqlite", a) as s1, open_store("duckdb", b) as s2:
        with pytest.raises(LoadInterrupted):
            load_items([s1, s2], SPEC, rows(5), progress=False)
    monkeypatch.undo()
    monkeypatch.setattr(journal, "decide", lambda *a: None)          # the commit store cannot be read now
    with open_store("duckdb", b) as s2:
        assert any("still pending" in n for n in s2.recovered)
        with pytest.raises(StoreError, match="still pending"):
            load_items([s2], SPEC, rows(1), progress=False)
        assert s2.count(TABLE) == 3


# -- one load at a time ------------------------------------------------------------------------

def test_a_second_load_of_a_file_is_refused_while_one_runs(files):
    """Loads stage into tables of fixed names: a second load of the same file must not start
    while the first holds it (here the first is held at its staging; the lock is the OS's)."""
    a, _ = files
    with open_store("sqlite", a) as running, open_store("sqlite", a) as second:
        before = content(second)
        with load_lock([running]):
            with pytest.raises(StoreError, match="another load is writing to this store") as e:
                load_items([second], SPEC, rows(5), progress=False)
            assert e.value.where == str(a) and "wait for it to finish" in e.value.hint
        assert content(second) == before                          # nothing of the refused load landed
        load_items([second], SPEC, rows(5), progress=False)       # the lock is gone with the first load
        assert len(content(second)) == 5
    assert not Path(str(a) + ".lock").exists()                   # and no empty .lock file stays beside the store
