"""Issue 27, "nothing dropped without an error": generated items of every DynamoDB type (nested lists and
maps holding B, BS, NS, SS, NULL, BOOL, empty strings, 38-digit numbers) through an S3 export (DynamoDB
JSON: the only format exports are read in) and a live table on the embedded endpoint. Either every item
is in the rows and a load of the draft rebuilds them bit for bit (the stores' digests equal), or the
import stops with an error naming the key of an item that JSON rows truly cannot hold, and nothing is
written."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blue_nb.app.imports import import_data
from blue_nb.app.workflows import load_data
from blue_nb.errors import SourceError
from blue_nb.imports.infer import ATTR_NAME
from blue_nb.imports.infer_keys import canonical_key
from blue_nb.spec import spec_from_dict
from tests.strategies import names, numbers, sets, values
from tests.test_import import digest, full_lines, store_wire, wire_set, write_export

DIGITS_38 = st.integers(min_value=10**37, max_value=10**38 - 1).map(Decimal)
#: what the issue names, on top of the strategies' values: empty strings and 38-digit numbers, nested
edge = st.recursive(st.one_of(st.just(""), DIGITS_38, numbers(), st.none(), st.booleans()),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
                    max_leaves=6)
#: values a JSON row holds (binary and sets only at the top), with the same nesting of everything else
plain = st.recursive(st.one_of(st.text(max_size=20), DIGITS_38, numbers(), st.none(), st.booleans()),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
                     max_leaves=10)
top = st.one_of(plain, st.binary(min_size=1, max_size=20), sets)
_shared = st.sampled_from(["a", "b", "total"])        # names most items share: their types clash across items
plain_names = st.one_of(_shared, _shared, _shared, st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=12))
keys = st.one_of(st.text(min_size=1, max_size=12), st.sampled_from(["USER#u1", "User:UserA", "ORDER|2024|17",
                                                                    "a/b/c", "cust_12", "META"]))


@st.composite
def item_lists(draw, carried_only: bool = False) -> list[dict]:
    out, seen = [], set()
    attrs = (st.dictionaries(plain_names.filter(lambda n: n not in ("pk", "sk")), top, max_size=5) if carried_only
             else st.dictionaries(names.filter(lambda n: n not in ("pk", "sk")), values | edge, max_size=5))
    for _ in range(draw(st.integers(min_value=1, max_value=12))):
        item = draw(attrs)
        item["pk"], item["sk"] = draw(keys), draw(keys)
        if (item["pk"], item["sk"]) not in seen:
            seen.add((item["pk"], item["sk"]))
            out.append(item)
    return out


def _nested_binary_or_set(value, top: bool = True) -> bool:
    if isinstance(value, (bytes, set, frozenset)):
        return not top
    if isinstance(value, dict):
        return any(_nested_binary_or_set(v, False) for v in value.values())
    if isinstance(value, list):
        return any(_nested_binary_or_set(v, False) for v in value)
    return False


def carriable(item: dict) -> bool:
    """What a JSON row can hold exactly (infer_rows' module docstring), decided apart from the product."""
    return all(k in ("pk", "sk") or (ATTR_NAME.match(k) and v != b"" and not _nested_binary_or_set(v))
               for k, v in item.items())


def _check(tmp_path: Path, items: list[dict], **source) -> None:
    out, store = tmp_path / "out", tmp_path / "s.sqlite"
    bad = {canonical_key(i, ("pk", "sk")) for i in items if not carriable(i)}
    try:
        [r] = import_data(out_dir=out, sqlite=store, progress=False, key="pk,sk", **source)
    except SourceError as e:
        assert bad, f"an import of items that rows can carry failed: {e}"
        assert any(k in e.msg for k in bad) and "no row can carry the item" in e.msg and e.hint
        assert not store.exists() and not (out / "gen.yaml").exists()
        return
    table = r.spec.table_name
    assert not bad, f"items no row can carry were imported: {bad}"
    assert r.items == len(items) and r.not_in_rows == 0
    assert store_wire(store, "sqlite", table) == wire_set(items)
    load_data(r.spec_path, r.rows_dir, sqlite=tmp_path / "again.sqlite", progress=False)
    assert store_wire(tmp_path / "again.sqlite", "sqlite", table) == wire_set(items)      # bit for bit
    assert digest(tmp_path / "again.sqlite", r.spec) == digest(store, r.spec)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(items=item_lists(), n=st.integers(min_value=0, max_value=10**9))
def test_every_generated_item_of_an_s3_export_is_in_the_rows_or_the_import_names_it(tmp_path, items, n):
    case = tmp_path / f"c{n}-{len(items)}-{id(items)}"
    write_export(case / "exp", "01767225600000-a1b2c3d4", [full_lines(items)], table="blue_gen")
    _check(case, items, source=case / "exp", fmt="s3-export")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(items=item_lists(carried_only=True), n=st.integers(min_value=0, max_value=10**9))
def test_generated_items_a_row_can_hold_all_come_back_bit_for_bit(tmp_path, items, n):
    """The success path, always: types clashing across items, mixed separators, 38 digits, empty strings."""
    assert all(carriable(i) for i in items)
    case = tmp_path / f"c{n}-{len(items)}-{id(items)}"
    write_export(case / "exp", "01767225600000-a1b2c3d4", [full_lines(items)], table="blue_gen")
    _check(case, items, source=case / "exp", fmt="s3-export")


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(items=st.one_of(item_lists(), item_lists(carried_only=True)), n=st.integers(min_value=0, max_value=10**9))
def test_every_generated_item_of_a_live_table_is_in_the_rows_or_the_import_names_it(tmp_path, dynamo_client,
                                                                                     items, n):
    spec = spec_from_dict({"spec_version": 1, "domain": "gen", "table": {"partition_key": "pk", "sort_key": "sk"},
                           "entities": {"Any": {"key": {"pk": "{pk}", "sk": "{sk}"}, "attributes": {}}},
                           "access_patterns": []}, source="<test>")
    dynamo_client.create_table(spec, replace=True)
    dynamo_client.write_items(spec.table_name, items, progress=False)
    case = tmp_path / f"c{n}-{len(items)}-{id(items)}"
    _check(case, items, source=spec.table_name, fmt="dynamodb", domain="gen", client=dynamo_client)
