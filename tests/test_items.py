"""Rows -> items: key templates applied, sparse index keys, attribute types converted."""

from decimal import Decimal

import pytest

from blue_nb.errors import SourceError
from blue_nb.items.build import MISSING, ItemBuilder, coerce_attribute


@pytest.mark.parametrize("value, dtype, expected", [
    ("hello", "S", "hello"),                                    # strings as they are
    ("", "S", ""),                                              # empty S is allowed for non-key attributes
    (42, "S", "42"),
    ("87.125", "N", Decimal("87.125")),                         # numbers as Decimal, never float
    ("12345678901234567890123456789012345678", "N", Decimal("12345678901234567890123456789012345678")),
    (7, "N", Decimal(7)),
    ("", "N", MISSING),                                         # an empty CSV cell is an absent attribute
    (None, "S", MISSING),
    ("aGk=", "B", b"hi"),                                       # base64 in files
    (b"\x00\xff", "B", b"\x00\xff"),
    ("true", "BOOL", True), ("0", "BOOL", False), (False, "BOOL", False),
    ("x", "NULL", None),
    ('[1, "a", [true]]', "L", [Decimal(1), "a", [True]]),       # CSV cells hold JSON
    ('{"a": {"b": 1.5}}', "M", {"a": {"b": Decimal("1.5")}}),
    ({"a": 1}, "M", {"a": Decimal(1)}),
    ('["b", "a"]', "SS", {"a", "b"}),
    (["x"], "SS", {"x"}),
    ("solo", "SS", {"solo"}),                                   # a bare string is a one-element set
    ('["1", "2.50"]', "NS", {Decimal(1), Decimal("2.50")}),
    (["aGk=", "AA=="], "BS", {b"hi", b"\x00"}),
])
def test_coerce_attribute(value, dtype, expected):
    got = coerce_attribute(value, dtype)
    assert got is expected if expected is MISSING or expected is None else got == expected
    if isinstance(expected, Decimal):
        assert isinstance(got, Decimal)


@pytest.mark.parametrize("value, dtype, message", [
    ("abc", "N", "abc"),
    ("NaN", "N", "NaN"),
    ("1E+126", "N", "1E\\+126"),
    ("not base64!", "B", "not base64"),
    ("maybe", "BOOL", "not a boolean"),
    ("[1,", "L", "not JSON"),
    ("[1]", "M", "expected a map"),
])
def test_coerce_attribute_errors(value, dtype, message):
    with pytest.raises(Exception, match=message):
        coerce_attribute(value, dtype, where="f.csv:3 col")


def test_build_dialogue_items(dialogue_spec):
    b = ItemBuilder(dialogue_spec)
    e = dialogue_spec.entities
    row = {"dialogue_id": "nvidia-dec", "title": "Pricing", "status": "open", "created_at": "2026-01-15T09:30:00Z",
           "unrelated": "dropped"}
    assert b.build(e["Dialogue"], row) == {
        "pk": "nvidia-dec", "sk": "META", "gsi1pk": "STATUS#open", "gsi1sk": "2026-01-15T09:30:00Z",
        "title": "Pricing", "status": "open", "created_at": "2026-01-15T09:30:00Z"}
    row = {"dialogue_id": "nvidia-dec", "round": "0", "expert": "muffin", "seq": "1", "label": "l",
           "content": "c", "status": "draft"}
    assert b.build(e["Perspective"], row)["sk"] == "PERSP#0#muffin#1"


def test_sparse_index_key(dialogue_spec):
    b = ItemBuilder(dialogue_spec)
    row = {"dialogue_id": "d", "title": "t", "status": "", "created_at": "2026-01-01"}
    item = b.build(dialogue_spec.entities["Dialogue"], row)
    assert "gsi1pk" not in item and "gsi1sk" in item                     # no status: not in STATUS# index


def test_missing_table_key_value_names_row(dialogue_spec):
    b = ItemBuilder(dialogue_spec)
    with pytest.raises(SourceError) as e:
        b.build(dialogue_spec.entities["Expert"], {"dialogue_id": "d", "expert": ""}, where="experts.csv:9")
    assert e.value.where == "experts.csv:9"
    assert "needs expert" in e.value.msg and "Expert" in e.value.msg


def test_bad_attribute_names_row_and_column(dialogue_spec):
    b = ItemBuilder(dialogue_spec)
    with pytest.raises(SourceError) as e:
        b.build(dialogue_spec.entities["Expert"], {"dialogue_id": "d", "expert": "m", "score": "high"},
                where="experts.csv:4")
    assert e.value.where == "experts.csv:4 score"
    assert "'high'" in str(e.value)
