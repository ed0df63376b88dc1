"""DynamoDB value codec: exact wire forms, validation errors and round trips (rules doc 1.1, 3, 5)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from tests.strategies import full_items, full_numbers
from hypothesis import given, settings
from hypothesis import strategies as st

from blue_nb.errors import ItemError
from blue_nb.items.item_json import dumps_item, stored_item
from blue_nb.items.values import (
    dumps_wire,
    from_wire,
    item_from_wire,
    item_to_wire,
    loads_wire,
    number_text,
    parse_item_line,
    to_wire,
    validate_number,
)


class Binary:
    """Stand-in for boto3's Binary: raw bytes in ``.value``."""

    def __init__(self, value: bytes):
        self.value = value


# ---------------------------------------------------------------- Python -> wire

TO_WIRE = [
    ("x", {"S": "x"}),  # string
    ("", {"S": ""}),  # empty string is allowed outside keys
    ("é日😀", {"S": "é日😀"}),  # Unicode kept as is
    (Decimal("12.5"), {"N": "12.5"}),  # Decimal
    (12, {"N": "12"}),  # int accepted
    (-7, {"N": "-7"}),  # negative int
    (Decimal("1.50"), {"N": "1.5"}),  # trailing zeros normalized
    (Decimal("100"), {"N": "100"}),  # integers stay plain
    (Decimal("1E+2"), {"N": "100"}),  # exponent input, plain output
    (Decimal("-0"), {"N": "0"}),  # negative zero
    (Decimal("0.001"), {"N": "0.001"}),  # small fraction stays plain
    (Decimal("1E+125"), {"N": "1" + "0" * 125}),  # written out in full, as DynamoDB returns it
    (Decimal("1E-130"), {"N": "0." + "0" * 129 + "1"}),  # smallest magnitude, in full too
    (Decimal("-9.99E+125"), {"N": "-999" + "0" * 123}),
    (Decimal("1" + "0" * 100), {"N": "1" + "0" * 100}),  # 101 digits written: no rounding trap
    (Decimal("1." + "0" * 1000), {"N": "1"}),  # a thousand trailing zeros are trimmed, not rounded
    (Decimal("9" * 38), {"N": "9" * 38}),  # 38 digits
    (True, {"BOOL": True}),  # bool before int
    (False, {"BOOL": False}),
    (None, {"NULL": True}),
    (b"\x00\xff", {"B": "AP8="}),  # base64
    (b"", {"B": ""}),  # empty binary
    (bytearray(b"ab"), {"B": "YWI="}),  # bytearray
    (memoryview(b"ab"), {"B": "YWI="}),  # memoryview
    ([], {"L": []}),  # empty list
    ({}, {"M": {}}),  # empty map
    (["a", 1, None], {"L": [{"S": "a"}, {"N": "1"}, {"NULL": True}]}),  # list
    (("a",), {"L": [{"S": "a"}]}),  # tuple as list
    ({"k": {"n": True}}, {"M": {"k": {"M": {"n": {"BOOL": True}}}}}),  # nested map
    ({"é", "z", "Z", "a"}, {"SS": ["Z", "a", "z", "é"]}),  # SS sorted by UTF-8 bytes
    ({"\uffff", "\U0001f600"}, {"SS": ["\uffff", "\U0001f600"]}),  # UTF-8 order, not UTF-16
    ({Decimal(10), 2, Decimal("-1.5")}, {"NS": ["-1.5", "2", "10"]}),  # NS sorted numerically
    (frozenset({b"\x01", b"\x00\xff", b"\xff"}), {"BS": ["AP8=", "AQ==", "/w=="]}),  # BS by unsigned bytes
]


@pytest.mark.parametrize(("value", "wire"), TO_WIRE)
def test_to_wire(value, wire):
    assert to_wire(value) == wire


def test_binary_like_object():
    assert to_wire(Binary(b"\x01")) == {"B": "AQ=="}
    assert to_wire({Binary(b"\x02"), Binary(b"\x01")}) == {"BS": ["AQ==", "Ag=="]}


# ---------------------------------------------------------------- wire -> Python

FROM_WIRE = [
    ({"S": "x"}, "x"),
    ({"N": "12.5"}, Decimal("12.5")),
    ({"N": "-0.001"}, Decimal("-0.001")),
    ({"N": "1E+125"}, Decimal("1E+125")),
    ({"B": "AP8="}, b"\x00\xff"),
    ({"B": ""}, b""),
    ({"BOOL": False}, False),
    ({"NULL": True}, None),
    ({"L": [{"S": "a"}, {"L": []}]}, ["a", []]),
    ({"M": {"": {"N": "1"}}}, {"": Decimal(1)}),  # empty nested key
    ({"SS": ["b", "a"]}, {"a", "b"}),
    ({"NS": ["1", "2.5"]}, {Decimal(1), Decimal("2.5")}),
    ({"BS": ["AQ==", "Ag=="]}, {b"\x01", b"\x02"}),
]


@pytest.mark.parametrize(("wire", "value"), FROM_WIRE)
def test_from_wire(wire, value):
    got = from_wire(wire)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("wire", "fragment"),
    [
        ({}, "exactly one type key"),  # no type
        ({"S": "a", "N": "1"}, "exactly one type key"),  # two types
        ({"X": "1"}, "unknown type key 'X'"),
        ({"S": 1}, "S value 1"),
        ({"N": 12}, "N value 12 must be a string"),
        ({"N": "abc"}, "'abc'"),
        ({"N": "NaN"}, "'NaN'"),
        ({"B": "!!"}, "'!!' is not valid base64"),
        ({"BOOL": "true"}, "BOOL value 'true'"),
        ({"NULL": False}, "NULL value False"),
        ({"L": {}}, "L value {}"),
        ({"M": []}, "M value []"),
        ({"SS": []}, "SS must be a non-empty list"),
        ({"NS": []}, "NS must be a non-empty list"),
        ({"NS": ["1", "1.0"]}, "duplicate member"),
        ({"NS": [1]}, "NS element 1"),
        ({"SS": ["a", 1]}, "SS element 1"),
        ("S", "exactly one type key"),
    ],
)
def test_from_wire_errors(wire, fragment):
    with pytest.raises(ItemError) as err:
        from_wire(wire, "attr")
    assert fragment in str(err.value) and err.value.where == "attr"


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12.5", Decimal("12.5")),
        ("-0", Decimal("-0")),
        ("1E-130", Decimal("1E-130")),  # lower bound included
        ("-1E-130", Decimal("-1E-130")),
        ("9.9999999999999999999999999999999999999E+125", Decimal("9.9999999999999999999999999999999999999E+125")),
        ("1" * 38, Decimal("1" * 38)),  # 38 significant digits
        ("0." + "0" * 50 + "1", Decimal("1E-51")),  # leading zeros are not significant
        ("1" + "0" * 50, Decimal("1E+50")),  # trailing zeros are not significant
        (".5", Decimal("0.5")),
        ("+5", Decimal(5)),
        (7, Decimal(7)),
        (Decimal("3.14"), Decimal("3.14")),
    ],
)
def test_validate_number_accepts(value, expected):
    got = validate_number(value)
    assert got == expected and isinstance(got, Decimal)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("NaN", "'NaN'"),
        (Decimal("NaN"), "'NaN'"),
        ("Infinity", "'Infinity'"),
        ("-Infinity", "'-Infinity'"),
        (Decimal("Infinity"), "'Infinity'"),
        (" 1", "' 1'"),  # whitespace
        ("1 ", "'1 '"),
        ("1_000", "'1_000'"),  # Python-only syntax
        ("١", "'١'"),  # non-ASCII digit
        ("", "''"),
        ("1E-131", "'1E-131'"),  # too small
        ("1E+126", "'1E+126'"),  # too large
        (10**126, "1" + "0" * 126),  # int too large
        ("1" * 39, "'" + "1" * 39 + "'"),  # 39 significant digits
        ("1e99999999999999999999", "'1e99999999999999999999'"),  # beyond the decimal module
        (1.5, "float 1.5"),  # floats rejected
        (True, "True"),  # bool is not a number
        ([1], "[1]"),
    ],
)
def test_validate_number_rejects(value, shown):
    with pytest.raises(ItemError) as err:
        validate_number(value, "price")
    assert shown in str(err.value) and err.value.where == "price" and err.value.hint


def test_float_message_says_use_decimal():
    with pytest.raises(ItemError, match="Decimal"):
        item_to_wire({"price": 1.5})


# ---------------------------------------------------------------- item level errors and paths


@pytest.mark.parametrize(
    ("item", "where", "fragment"),
    [
        ({"tags": ["a", 1.5]}, "tags[1]", "float"),
        ({"meta": {"enabled": set()}}, "meta.enabled", "empty set"),
        ({"s": frozenset()}, "s", "empty set"),
        ({"s": {"a", 1}}, "s", "set mixes"),
        ({"s": {True}}, "s", "set"),
        ({"s": "\ud800"}, "s", "surrogate"),
        ({"x": object()}, "x", "not a DynamoDB type"),
        ({"m": {1: "a"}}, "m", "map key 1"),
        ({"": "a"}, "", "1 byte to 64 KB"),
        ({"n": Decimal("1E+126")}, "n", "out of range"),
    ],
)
def test_item_to_wire_errors(item, where, fragment):
    with pytest.raises(ItemError) as err:
        item_to_wire(item)
    assert err.value.where == where and fragment in str(err.value)


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_nesting_32_levels():
    deep = {"d": _nested(32)}
    wire = item_to_wire(deep)
    assert item_from_wire(wire) == deep
    with pytest.raises(ItemError, match="32 levels"):
        item_to_wire({"d": _nested(33)})
    too_deep = {"d": {"L": [wire["d"]]}}
    with pytest.raises(ItemError, match="32 levels"):
        item_from_wire(too_deep)


def test_self_referencing_value_is_an_item_error():
    loop: list = []
    loop.append(loop)
    with pytest.raises(ItemError):
        to_wire(loop)


# ---------------------------------------------------------------- JSON text


def test_dumps_wire_compact_utf8():
    assert dumps_wire({"a": {"S": "é"}, "n": {"N": "1"}}) == '{"a":{"S":"é"},"n":{"N":"1"}}'


def test_loads_wire_never_floats():
    assert loads_wire('{"a": 1.5}') == {"a": Decimal("1.5")}
    with pytest.raises(ItemError, match="NaN"):
        loads_wire('{"a": NaN}', "f.jsonl:2")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"Item": {"pk": {"S": "a"}}}', {"pk": {"S": "a"}}),  # S3 export line
        ('{"pk": {"S": "a"}, "n": {"N": "1"}}', {"pk": {"S": "a"}, "n": {"N": "1"}}),  # bare item
        ('{"Item": {"S": "x"}}', {"Item": {"S": "x"}}),  # a bare item with an attribute named Item
        ('  {"Item": {}}\n', {}),  # surrounding whitespace
        (b'{"pk": {"S": "\xc3\xa9"}}', {"pk": {"S": "é"}}),  # bytes line
    ],
)
def test_parse_item_line(line, expected):
    assert parse_item_line(line) == expected


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ('{"pk": {"S": "a"}', "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ("", "empty line"),
        ('{"pk": "a"}', "not a DynamoDB JSON item"),
        ('{"pk": {"Q": "a"}}', "items.jsonl:3 pk: unknown type key 'Q'"),
        # every value is checked, with the line and the attribute path
        ('{"pk": {"SS": []}}', "items.jsonl:3 pk: SS must be a non-empty list"),
        ('{"pk": {"SS": ["x", "x"]}}', "items.jsonl:3 pk: SS has a duplicate member 'x'"),
        ('{"pk": {"NS": ["1", "1.0"]}}', "NS has a duplicate member '1.0' (numerically equal)"),
        ('{"pk": {"BS": ["AA==", "AA=="]}}', "BS has a duplicate member"),
        ('{"pk": {"BOOL": "yes"}}', "items.jsonl:3 pk: BOOL value 'yes' is invalid"),
        ('{"pk": {"NULL": false}}', "NULL value False is invalid"),
        ('{"pk": {"N": 12}}', "N value 12 must be a string"),
        ('{"pk": {"M": {"a": {"L": [{"N": "1e999"}]}}}}', "items.jsonl:3 pk.a[0]: number '1e999' is out of range"),
        ('{"pk": {"S": "a"}, "pk": {"S": "b"}}', "duplicate key 'pk'"),
        ('{"pk": {"M": {"a": {"S": "a"}, "a": {"S": "b"}}}}', "duplicate key 'a'"),
        ('{"": {"S": "a"}}', "must be 1 byte to 64 KB long"),
        ('{"pk": ' + '{"L": [' * 40 + '{"S": "x"}' + ']}' * 40 + '}', "nesting deeper than 32"),
        ('[' * 100_000 + ']' * 100_000, "nested too deeply"),
    ],
)
def test_parse_item_line_errors(line, fragment):
    with pytest.raises(ItemError) as err:
        parse_item_line(line, "items.jsonl:3")
    assert err.value.where.startswith("items.jsonl:3") and fragment in str(err.value)


# ---------------------------------------------------------------- round trips


def strict_equal(a, b) -> bool:
    """Equality that also compares types (so True != Decimal(1)) and Decimal values exactly."""
    if isinstance(a, (set, frozenset)) and isinstance(b, (set, frozenset)):
        return {(type(x), x) for x in a} == {(type(x), x) for x in b}
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(map(strict_equal, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return a == b


numbers = full_numbers
texts = st.text(max_size=20)
items = full_items


@settings(deadline=None)
@given(items)
def test_round_trip_python_wire_python(item):
    wire = item_to_wire(item)
    assert strict_equal(item_from_wire(wire), item)
    assert item_to_wire(item_from_wire(wire)) == wire  # the wire form is canonical


@settings(deadline=None)
@given(items)
def test_round_trip_through_json_text(item):
    text = dumps_wire(item_to_wire(item))
    assert strict_equal(item_from_wire(loads_wire(text)), item)
    assert strict_equal(item_from_wire(parse_item_line(json.dumps({"Item": json.loads(text)}))), item)


_anything = st.one_of(st.integers(min_value=-10**40, max_value=10**40), st.floats(allow_nan=True), st.text(max_size=4),
                      st.sampled_from(["\ud800", "x\udfff", 1.5, object(), {1: "x"}, set(), ["\ud800"]]))


@settings(deadline=None, max_examples=300)
@given(st.one_of(items, st.dictionaries(st.one_of(st.text(max_size=3), st.sampled_from(["", 7, "\ud800", "k" * 65_537])),
                                        st.one_of(_anything, st.sampled_from([True, False, None, Decimal("1E+130")])),
                                        max_size=4)))
def test_the_loader_writes_an_item_as_the_wire_codec_does(item):
    """dumps_item (the loader's fast writer) = dumps_wire(item_to_wire(...)): the same text, or the same error."""
    same_answer(lambda i: dumps_wire(item_to_wire(i)), dumps_item, item)


def same_answer(reference, fast, value, equal=lambda a, b: a == b) -> None:
    """``fast(value)`` gives what ``reference(value)`` gives: an equal answer, or an ItemError with the same text."""
    try:
        want = reference(value)
    except ItemError as e:
        with pytest.raises(ItemError) as got:
            fast(value)
        assert str(got.value) == str(e)
        return
    assert equal(fast(value), want)


_wire_values = st.one_of(st.sampled_from([{"S": "x"}, {"S": "caf\u00e9"}, {"S": "\ud800"}, {"S": 5}, {"N": "007"},
                                          {"N": "-0"}, {"N": "1E+400"}, {"N": "NaN"}, {"N": ""}, {"N": 5},
                                          {"BOOL": 1}, {"NULL": False}, {"S": "a", "N": "1"}, {}, []]),
                         st.dictionaries(st.sampled_from(["S", "N", "BOOL", "NULL", "X"]),
                                         st.one_of(st.text(max_size=4), st.booleans(), st.integers(),
                                                   st.floats(allow_nan=False)), max_size=2))


@settings(deadline=None, max_examples=300)
@given(st.one_of(items.map(dumps_item),
                 st.dictionaries(st.sampled_from(["a", "", "\ud800", "é"]), _wire_values, max_size=3).map(json.dumps),
                 st.sampled_from(["[]", "{", '{"a": {"S": "x"}', "7", '"x"',
                                  # where orjson (the fast parser) and the json module part ways
                                  '{"a": {"N": 123456789012345678901234567890}}', '{"a": {"L": [1e400]}}',
                                  '{"a": {"S": "\\ud800"}}', '{"a": {"N": NaN}}', '{"a": {"S": "x"}, "a": {"N": "1"}}',
                                  '{"a": {"M": {"b": {"N": 12345678901234567890123}}}}'])))
def test_the_stores_read_an_item_as_the_wire_codec_does(text):
    """stored_item (the stores' fast reader) = item_from_wire(loads_wire(...)): the same item, or the same error."""
    same_answer(lambda t: item_from_wire(loads_wire(t)), stored_item, text, strict_equal)


@settings(deadline=None)
@given(numbers)
def test_numbers_round_trip_exactly(d):
    (text,) = to_wire(d).values()
    back = from_wire({"N": text})
    assert back == d  # numerically exact
    assert str(back.normalize()) == str(d.normalize()) or d.is_zero()  # same digits, same exponent
    assert "E" not in text and not text.endswith(".") and (text == "0" or text.lstrip("-")[0] != "0"
                                                              or text.lstrip("-").startswith("0."))
    assert "." not in text or not text.endswith("0")  # DynamoDB's canonical text: in full, nothing to trim
    assert number_text(validate_number(text)) == text


@given(st.binary())
def test_binary_round_trip(raw):
    assert from_wire(to_wire(raw)) == raw
