"""Checking the items a load put in a DuckDB file (``--duckdb``) instead of building them again from
the rows (``--data``): the same findings, heat and report, read from the store's catalog; refused,
with the reason, when the file holds items another version of the spec built."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest

from blue_nb.app.exports import export_spec
from blue_nb.app.reports import heat_report
from blue_nb.app.review import review_data
from blue_nb.app.workflows import beside_checks, check_loaded, load_data, validate
from blue_nb.errors import SourceError
from blue_nb.heat import heat_findings
from blue_nb.layout import item_shape_digest
from blue_nb.spec import load_spec, spec_from_dict
from blue_nb.stores import TableLayout, load_items, loaded_spec, open_store
from tests.test_cli import blue_nb
from tests.test_stores import SPEC as KITCHEN


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, dialogue_data, root):
    """The session's dialogue sample loaded into a DuckDB and a SQLite file."""
    d = tmp_path_factory.mktemp("loaded")
    duck, lite = d / "blue.duckdb", d / "blue.sqlite"
    load_data(root / "data/specs/dialogue.yaml", dialogue_data, duckdb=duck, sqlite=lite, progress=False)
    return duck, lite


def shown(findings) -> list[tuple]:
    """What a finding says, without its evidence (the sample keys, picked in a different order)."""
    return [(f.rule, f.severity, f.where, f.message) for f in findings]


def test_validate_on_the_loaded_store_finds_what_validate_with_data_finds(loaded, dialogue_data, root):
    spec = root / "data/specs/dialogue.yaml"
    with_data = validate(spec, dialogue_data)
    on_store = validate(spec, duckdb=loaded[0])
    assert on_store.items_checked == with_data.items_checked == 3245
    assert shown(on_store) == shown(with_data)
    assert "KEY-SORT-ORDER" in {f.rule for f in on_store}                # item findings, not the spec's alone
    assert on_store.counts == with_data.counts


def test_heat_on_the_loaded_store_equals_heat_with_data(loaded, dialogue_data, root, tmp_path):
    spec = root / "data/specs/dialogue.yaml"
    a = heat_report(spec, dialogue_data, tmp_path / "a", progress=False, figures=False)
    b = heat_report(spec, None, tmp_path / "b", duckdb=loaded[0], progress=False, figures=False)
    for key in ("partitions", "top_keys", "counts", "validate_counts", "indexes"):
        assert b[key] == a[key], key


def test_the_report_on_the_loaded_store_measures_the_same(loaded, dialogue_data, root):
    spec = root / "data/specs/dialogue.yaml"
    fa, a = review_data(spec, dialogue_data, figures=False)
    fb, b = review_data(spec, duckdb=loaded[0], figures=False)
    assert b.source == str(loaded[0]) and b.items == a.items == 3245
    assert (b.cost, b.top_keys, b.load, b.peaks, b.largest_partition) == (a.cost, a.top_keys, a.load, a.peaks,
                                                                            a.largest_partition)
    assert shown(fb) == shown(fa)


def test_against_a_version_with_the_same_items_compares_costs_on_the_store(loaded, root, tmp_path):
    spec = load_spec(root / "data/specs/dialogue.yaml")
    text = (root / "data/specs/dialogue.yaml").read_text()
    faster = tmp_path / "faster.yaml"                 # only a rate differs: the same items
    faster.write_text(text.replace("rate_per_second: 10\n", "rate_per_second: 50\n", 1))
    assert item_shape_digest(load_spec(faster)) == item_shape_digest(spec) and load_spec(faster) != spec
    _, data = review_data(faster, duckdb=loaded[0], against=spec, figures=False)
    assert data.changes.costs and not data.changes.costs_note
    padded = tmp_path / "padded.yaml"                 # another sort key: other items
    padded.write_text(text.replace("PERSP#{round}#", "PERSP#{round:03d}#"))
    assert item_shape_digest(load_spec(padded)) != item_shape_digest(spec)
    _, data = review_data(spec, duckdb=loaded[0], against=padded, figures=False)
    assert not data.changes.costs and "--data" in data.changes.costs_note


def test_a_store_loaded_with_other_items_is_refused_with_the_reason(loaded, root, tmp_path):
    text = (root / "data/specs/dialogue.yaml").read_text()
    padded = tmp_path / "padded.yaml"
    padded.write_text(text.replace("PERSP#{round}#", "PERSP#{round:03d}#"))
    with pytest.raises(SourceError) as e:
        validate(padded, duckdb=loaded[0])
    assert "built with another version of the spec" in e.value.msg and str(loaded[0]) in e.value.where
    assert "dialogue.yaml, loaded 20" in e.value.msg and e.value.msg.endswith(f"differ from those of {padded}")
    assert f"blue-nb load {padded} --data DIR --duckdb {loaded[0]}" in e.value.hint
    r = blue_nb("validate", padded, "--duckdb", loaded[0])
    assert r.returncode == 2 and "another version of the spec" in r.stderr and "Traceback" not in r.stderr
    for args in (["heat", padded, "--duckdb", loaded[0], "--out", tmp_path / "h"],
                 ["export", padded, "--format", "report-md", "--duckdb", loaded[0], "-o", tmp_path / "r.md"]):
        r = blue_nb(*args)
        assert r.returncode == 2 and "another version of the spec" in r.stderr, args
    assert not (tmp_path / "r.md").exists()


@pytest.mark.parametrize("args, message", [
    (["validate", "{spec}", "--data", "{data}", "--duckdb", "{duck}"], "not both"),
    (["heat", "{spec}", "--out", "{tmp}/h"], "give --data DIR"),
    (["validate", "{spec}", "--duckdb", "{tmp}/none.duckdb"], "does not exist"),
])
def test_bad_choices_of_items_exit_2(loaded, dialogue_data, root, tmp_path, args, message):
    fill = {"spec": root / "data/specs/dialogue.yaml", "data": dialogue_data, "duck": loaded[0], "tmp": tmp_path}
    r = blue_nb(*[a.format(**fill) for a in args])
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_store_without_a_record_of_its_spec_is_refused(tmp_path):
    path = tmp_path / "k.duckdb"
    with open_store("duckdb", path) as s:
        load_items([s], KITCHEN, [("Thing", {"pk": "p", "sk": "1", "kind": "k"})], progress=False)
        assert loaded_spec(s, "blue_kitchen")[0] == item_shape_digest(KITCHEN)
        s.execute('DROP TABLE "blue_kitchen__spec"')                      # as a load by an older blue-nb left it
    with pytest.raises(SourceError, match="does not record which spec"):
        validate(KITCHEN, duckdb=path)


@pytest.mark.parametrize("backend", ["sqlite", "duckdb"])
def test_key_items_keep_each_key_value_and_its_type(backend):
    items = [{"pk": "p1", "sk": "1", "kind": Decimal("5"), "v": "x" * 50},
             {"pk": "p2", "sk": "2", "kind": b"\x00\xffk"},
             {"pk": "p3", "sk": "3", "kind": "k", "n": Decimal("7")},
             {"pk": "p4", "sk": "4"}]                                       # no kind: not in the index
    with open_store(backend) as s:
        load_items([s], KITCHEN, [("Thing", i) for i in items], progress=False)
        got = list(s.iter_key_items(TableLayout.of(KITCHEN)))
        sizes = [r[0] for r in s.execute('SELECT size FROM "blue_kitchen__items" ORDER BY pk, sk')]
    keys = [{k: v for k, v in i.items() if k in ("pk", "sk", "kind")} for i in items]
    assert [(e, {k: v for k, v in i.items() if k in ("pk", "sk", "kind")}) for e, i, _ in got] == [
        ("Thing", k) for k in keys]
    assert [size for *_, size in got] == sizes and sizes[0] > 50


def test_the_spec_record_is_not_a_table_of_blue(loaded):
    with open_store("sqlite", loaded[1]) as s:
        assert list(s.blue_tables()) == ["blue_dialogue"] and s.has_table("blue_dialogue__spec")


def test_a_spec_that_only_changes_patterns_builds_the_same_items():
    d = KITCHEN.to_dict()
    d["description"], d["entities"]["Thing"]["description"] = "the same items, described", "a thing"
    d["table"].update(billing_mode="PROVISIONED", read_capacity=5, write_capacity=5)
    assert item_shape_digest(spec_from_dict(d)) == item_shape_digest(KITCHEN)
    d["entities"]["Thing"]["key"]["kind"] = "KIND#{kind}"
    assert item_shape_digest(spec_from_dict(d)) != item_shape_digest(KITCHEN)


def test_export_formats_take_the_loaded_store(loaded, dialogue_data, root):
    spec = root / "data/specs/dialogue.yaml"
    a = export_spec(spec, "workbench", data_dir=dialogue_data, force=True)
    b = export_spec(spec, "workbench", duckdb=loaded[0], force=True)
    assert b.sample_items == a.sample_items > 0 and b.findings.counts == a.findings.counts


def test_the_checks_and_the_model_run_side_by_side(loaded, root):
    """beside_checks: the item checks in this thread, the heat model on a twin connection in another; the
    same findings as one after the other, and a failure of the checks stops the model and is raised."""
    spec = load_spec(root / "data/specs/dialogue.yaml")
    store = open_store("duckdb", loaded[0])
    try:
        threads = []

        def model(on):
            threads.append((threading.current_thread().name, on is not store))
            return heat_findings(spec, on)

        findings, heat = beside_checks(spec, store, model)
        assert threads == [(threads[0][0], True)] and threads[0][0].startswith("blue-nb-heat")
        assert shown(findings) == shown(check_loaded(spec, store)) and shown(heat) == shown(heat_findings(spec, store))
        broken = load_spec(root / "data/specs/dialogue.yaml")
        broken.entities.clear()                          # no entity the items match: refused before any check runs
        with pytest.raises(SourceError):
            beside_checks(broken, store, model)
        assert store.count(spec.table_name) == 3245      # the store's own connection is still good
    finally:
        store.close()


def test_the_checks_findings_are_kept_with_the_items_until_the_next_load(tmp_path, root, dialogue_data, monkeypatch):
    """check_loaded keeps its findings in the store under the spec and the code: the same checks of the same items
    are read back (the checks do not run), another spec or code runs them again, and a new load drops them."""
    import blue_nb.app.workflows as wf
    from blue_nb.rules import ItemChecks
    from blue_nb.stores.duckdb import DuckDBStore

    spec_path = root / "data/specs/dialogue.yaml"
    duck = tmp_path / "blue.duckdb"
    load_data(spec_path, dialogue_data, duckdb=duck, progress=False)
    spec = load_spec(spec_path)
    ran = []
    add_rows = ItemChecks.add_rows
    monkeypatch.setattr(ItemChecks, "add_rows", lambda self, rows: (ran.append(len(rows)), add_rows(self, rows)))
    with open_store("duckdb", duck) as s:
        first = check_loaded(spec, s)
        assert sum(ran) == 3245 and s.count("blue_dialogue__checks") == 1
        ran.clear()
        again = check_loaded(spec, s)
    assert ran == [] and again.to_text() == first.to_text() and again.items_checked == 3245
    assert [f.evidence for f in again] == [f.evidence for f in first] and "KEY-SORT-ORDER" in again.rule_ids

    other = load_spec(spec_path)
    other.access_patterns[0].rate_per_second = (other.access_patterns[0].rate_per_second or 0) + 7
    with DuckDBStore(duck, read_only=True) as s:                      # read-only: checked, nothing kept
        check_loaded(other, s)
        assert sum(ran) == 3245 and s.count("blue_dialogue__checks") == 1
    ran.clear()
    with open_store("duckdb", duck) as s:
        check_loaded(other, s)
        assert sum(ran) == 3245 and s.count("blue_dialogue__checks") == 2        # one per spec version
    ran.clear()
    monkeypatch.setattr(wf, "_code_digest", lambda: "another blue_nb")
    with open_store("duckdb", duck) as s:
        check_loaded(spec, s)
    assert sum(ran) == 3245
    monkeypatch.undo()

    load_data(spec_path, dialogue_data, duckdb=duck, progress=False)
    with open_store("duckdb", duck) as s:
        assert not s.has_table("blue_dialogue__checks")                    # the new items are checked anew
