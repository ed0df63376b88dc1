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
    ("true", "NULL", None), (True, "NULL", None), ("null", "NULL", None),
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
    ("x", "NULL", "not null"),                                  # a NULL attribute is written true, nothing else
    ({"a": 1}, "S", "expected a string, got a map"),            # no str() of a map, list or bool into an S
    (True, "S", "expected a string, got a boolean"),
    ("[]", "SS", "empty SS set"),
    ('["novel", "classic", "novel"]', "SS", "'novel' twice"),
    (["1", "1.0"], "NS", "equal numbers"),
    (["aGk=", "aGk="], "BS", "twice"),
    ('[1, "a"]', "SS", "not a string"),
    ("aGk", "B", "not base64"),                                 # unpadded
    (5, "B", "expected base64"),
    ('{"a": 1, "a": 2}', "M", "appears twice"),                 # a repeated key would silently replace the first
    ('[NaN]', "L", "NaN"),
    ("[" + "1" * 500 + "]", "L", "500 characters"),
    ("[" * 40 + "]" * 40, "L", "nested deeper than 32"),
    ("[" * 5000 + "]" * 5000, "L", "nested deeper"),            # past Python's recursion limit: no RecursionError
    ([[1.5, float("nan")]], "L", "NaN"),                        # numbers inside lists are checked too
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
        b.build(dialogue_spec.entities["Expert"], {"dialogue_id": "d"}, where="experts.csv:9")
    assert e.value.where == "experts.csv:9"
    assert "needs expert" in e.value.msg and "no 'expert' column" in e.value.msg and "Expert" in e.value.msg


@pytest.mark.parametrize("value, state", [("", "empty"), (None, "null")])
def test_empty_table_key_value_is_empty_not_missing(dialogue_spec, value, state):
    b = ItemBuilder(dialogue_spec)
    with pytest.raises(SourceError) as e:
        b.build(dialogue_spec.entities["Expert"], {"dialogue_id": "d", "expert": value}, where="experts.csv:9")
    assert e.value.where == "experts.csv:9 expert"
    assert f"which is {state} in this row" in e.value.msg and "missing" not in e.value.msg
    assert "give every Expert row a value for expert" in e.value.hint


def test_no_rows_is_an_error_unless_the_entity_allows_it(dialogue_spec):
    b = ItemBuilder(dialogue_spec)
    expert = dialogue_spec.entities["Expert"]
    with pytest.raises(SourceError) as e:
        list(b.items(expert, iter([])))
    assert "holds no rows" in e.value.msg and "allow_empty: true" in e.value.hint
    expert.allow_empty = True
    try:
        assert list(b.items(expert, iter([]))) == []
    finally:
        expert.allow_empty = False


def test_bad_attribute_names_row_and_column(dialogue_spec):
    b = ItemBuilder(dialogue_spec)
    with pytest.raises(SourceError) as e:
        b.build(dialogue_spec.entities["Expert"], {"dialogue_id": "d", "expert": "m", "score": "high"},
                where="experts.csv:4")
    assert e.value.where == "experts.csv:4 score"
    assert "'high'" in str(e.value)
