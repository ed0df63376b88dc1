"""Item sizes and capacity units: exact values from the rules doc (sections 1-3) and properties."""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from decimal import Decimal

import pytest
from tests.strategies import full_items, full_numbers, full_values
from hypothesis import given, settings
from hypothesis import strategies as st

from blue_nb.errors import ItemError
from blue_nb.sizing import (
    MAX_ITEM_BYTES,
    batch_get_read_units,
    batch_write_units,
    delete_write_units,
    fits_item_limit,
    item_costs,
    item_size,
    item_sizes,
    number_size,
    put_write_units,
    query_read_units,
    read_units,
    transact_get_read_units,
    transact_write_units,
    value_size,
    wire_item_size,
    wire_item_sizes,
    wire_value_size,
    write_units,
)
from blue_nb.items.values import item_from_wire, item_to_wire

BOOK_101 = (
    '{"Id":{"N":"101"},"Title":{"S":"Book 101 Title"},"ISBN":{"S":"111-1111111111"},'
    '"Authors":{"L":[{"S":"Author1"}]},"Price":{"N":"2"},"Dimensions":{"S":"8.5 x 11.0 x 0.5"},'
    '"PageCount":{"N":"500"},"InPublication":{"BOOL":true},"ProductCategory":{"S":"Book"}}'
)
SHIRT = {"shirt-color": {"S": "R"}, "shirt-size": {"S": "M"}}


# ---------------------------------------------------------------- AWS worked examples


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        (SHIRT, 23),  # AWS: 11+1 + 10+1
        (json.loads(BOOK_101), 137),  # AWS Labs "Book 101" item
    ],
)
def test_aws_examples(wire, expected):
    assert wire_item_size(wire) == expected
    assert item_size(item_from_wire(wire)) == expected
    assert item_sizes([item_from_wire(wire)]) == [expected]
    assert wire_item_sizes([wire]) == [expected]


def test_book_101_as_python_values():
    item = {
        "Id": Decimal("101"), "Title": "Book 101 Title", "ISBN": "111-1111111111", "Authors": ["Author1"],
        "Price": 2, "Dimensions": "8.5 x 11.0 x 0.5", "PageCount": Decimal(500), "InPublication": True,
        "ProductCategory": "Book",
    }
    assert item_size(item) == 137


# ---------------------------------------------------------------- number sizes (section 1.1)

NUMBER_CASES = [
    ("1", 2),  # doc: one pair
    ("12", 2),  # doc: units+tens form one pair
    ("123", 3),  # doc: 1 | 23
    ("1234", 3),  # doc: 12 | 34
    ("100", 2),  # doc: trailing zeros dropped -> one pair
    ("1.5", 3),  # doc: 01 | .50 straddles the point
    ("-42", 3),  # doc: +1 for negative
    ("0", 1),  # doc: zero
    ("-0", 1),  # negative zero is zero
    ("0.000", 1),  # zero written with decimals
    ("1E125", 2),  # doc: huge magnitude, one pair
    ("1" * 38, 20),  # doc: 38-digit integer -> 19 pairs
    ("9" * 38, 20),  # largest 38-digit integer
    ("-" + "9" * 38, 21),  # negative 38-digit integer
    ("1." + "1" * 37, 21),  # 38 digits straddling the point: 20 pairs -> the 21-byte max
    ("-1." + "1" * 37, 21),  # would be 22: capped at 21
    ("0." + "1" * 38, 20),  # 38 fractional digits: 19 pairs
    ("-1", 3),  # negative one
    ("-100", 3),  # negative, trailing zeros dropped
    ("-1.5", 4),  # negative and straddling
    ("12.5", 3),  # 12 | .50
    ("0.001", 2),  # .00|10 -> one pair
    ("0.01", 2),  # .01
    ("0.05", 2),  # .05
    ("0.5", 2),  # .50
    ("0.123", 3),  # .12 | 30
    ("123.45", 4),  # 01 | 23 | .45
    ("1.05", 3),  # 01 | .05
    ("10.01", 3),  # 10 | .01
    ("1000.5", 4),  # 10 | 00 | .50
    ("1000000", 2),  # 1 followed by zeros
    ("1010", 3),  # 10 | 10
    ("1E-130", 2),  # smallest magnitude
    ("9.9E+125", 2),  # 99 | 00... one pair
    ("1.5E+3", 2),  # 1500 -> 15 | 00 -> one pair
    ("00012", 2),  # leading zeros ignored
    ("+5", 2),  # explicit plus sign
    (".5", 2),  # no integer part
    ("5.", 2),  # no fractional digits
]


@pytest.mark.parametrize(("text", "expected"), NUMBER_CASES)
def test_number_size_table(text, expected):
    assert number_size(text) == expected
    assert number_size(Decimal(text)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (7, 2),  # int
        (-7, 3),  # negative int
        (10**37, 2),  # 1 followed by 37 zeros
        (Decimal("1.50"), 3),  # trailing zero in a Decimal does not count
        (Decimal("-0.000"), 1),  # negative zero Decimal
    ],
)
def test_number_size_types(value, expected):
    assert number_size(value) == expected


@pytest.mark.parametrize(
    "bad",
    ["NaN", "Infinity", "-Infinity", " 1", "1 ", "1_000", "", "abc", "1e", "1E-131", "1E+126", "1" * 39, 1.5, True],
)
def test_number_size_rejects(bad):
    with pytest.raises(ItemError) as err:
        number_size(bad)
    assert repr(bad) in str(err.value) or repr(str(bad)) in str(err.value)


def reference_number_size(text: str) -> int:
    """Independent implementation of the digit-pair rule, written from the rule text."""
    d = Decimal(text)
    if d == 0:
        return 1
    sign, digits, exp = d.as_tuple()
    plain = "".join(map(str, digits))
    # expand into integer-part and fraction-part digit strings
    if exp >= 0:
        int_part, frac_part = plain + "0" * exp, ""
    else:
        width = max(len(plain), -exp)
        padded = plain.rjust(width, "0")
        int_part, frac_part = padded[: len(padded) + exp], padded[len(padded) + exp :]
    int_part = int_part.lstrip("0")
    if len(int_part) % 2:
        int_part = "0" + int_part
    if len(frac_part) % 2:
        frac_part += "0"
    pairs = [int_part[i : i + 2] for i in range(0, len(int_part), 2)]
    pairs += [frac_part[i : i + 2] for i in range(0, len(frac_part), 2)]
    nonzero = [i for i, p in enumerate(pairs) if p != "00"]
    size = 1 + (nonzero[-1] - nonzero[0] + 1) + (1 if sign else 0)
    return min(size, 21)


numbers = full_numbers


@settings(deadline=None)
@given(numbers)
def test_number_size_matches_reference(d):
    assert number_size(str(d)) == reference_number_size(str(d))
    assert number_size(d) == reference_number_size(str(d))


@settings(deadline=None)
@given(st.integers(min_value=-(10**38) + 1, max_value=10**38 - 1))
def test_number_size_ints_match_reference(n):
    assert number_size(n) == reference_number_size(str(n))


# ---------------------------------------------------------------- value sizes (section 1)

B10 = b"\xff" * 10
VALUE_CASES = [
    ("", {"S": ""}, 0),  # empty string
    ("abc", {"S": "abc"}, 3),  # ASCII
    ("日本", {"S": "日本"}, 6),  # 3 bytes per CJK char
    ("é😀", {"S": "é😀"}, 6),  # 2 + 4 bytes
    (True, {"BOOL": True}, 1),  # BOOL
    (None, {"NULL": True}, 1),  # NULL
    (b"", {"B": ""}, 0),  # empty binary
    (B10, {"B": base64.b64encode(B10).decode()}, 10),  # raw length, not the 16 base64 chars
    (b"\x00\x01", {"B": "AAE="}, 2),  # padded base64
    ([], {"L": []}, 3),  # empty list
    ({}, {"M": {}}, 3),  # empty map
    (["ab", Decimal(1)], {"L": [{"S": "ab"}, {"N": "1"}]}, 9),  # 3 + (1+2) + (1+2)
    ({"k": "v"}, {"M": {"k": {"S": "v"}}}, 6),  # 3 + (1 + 1 + 1)
    ({"kk": {"x": True}}, {"M": {"kk": {"M": {"x": {"BOOL": True}}}}}, 12),  # nested key names count
    ([[], {}], {"L": [{"L": []}, {"M": {}}]}, 11),  # 3 + (1+3) + (1+3)
    ({"a", "bb"}, {"SS": ["a", "bb"]}, 3),  # set: no overhead
    ({1, 100, Decimal("1.5")}, {"NS": ["1", "100", "1.5"]}, 7),  # 2 + 2 + 3
    ({b"\x00", b"abc"}, {"BS": ["AA==", "YWJj"]}, 4),  # raw bytes 1 + 3
]


@pytest.mark.parametrize(("value", "wire", "expected"), VALUE_CASES)
def test_value_sizes(value, wire, expected):
    assert value_size(value) == expected
    assert wire_value_size(wire) == expected
    assert item_size({"a": value}) == 1 + expected
    assert wire_item_size({"a": wire}) == 1 + expected


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"é": "日本"}, 8),  # names are UTF-8 bytes too
        ({"n": None, "t": True}, 4),  # 1+1 + 1+1
        ({"pk": "USER#1", "sk": "A", "n": Decimal("-1.5")}, 2 + 6 + 2 + 1 + 1 + 4),  # mixed
        ({"m": {"a": {"b": {"c": []}}}}, 1 + 3 + 1 + 1 + 3 + 1 + 1 + 3 + 1 + 1 + 3),  # deep maps
        ({}, 0),  # empty item
    ],
)
def test_item_size_table(item, expected):
    assert item_size(item) == expected
    assert wire_item_size(item_to_wire(item)) == expected
    assert item_sizes([item]) == [expected]


def test_item_limit_boundary():
    fits = {"d": "x" * (MAX_ITEM_BYTES - 1)}  # 1-byte name + 409,599 bytes = 409,600
    too_big = {"d": "x" * MAX_ITEM_BYTES}  # 409,601
    assert item_size(fits) == 409_600 and fits_item_limit(item_size(fits)) is True
    assert item_size(too_big) == 409_601 and fits_item_limit(item_size(too_big)) is False


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (1.5, "float"),  # floats are rejected everywhere
        (Decimal("NaN"), "NaN"),  # not finite
        (object(), "object"),  # not a DynamoDB type
        ({"a", 1}, "set"),  # mixed set
        ("\ud800", "surrogate"),  # not encodable as UTF-8
    ],
)
def test_value_size_errors(value, fragment):
    with pytest.raises(ItemError) as err:
        item_size({"attr": value})
    assert fragment in str(err.value) and err.value.where == "attr"
    with pytest.raises(ItemError):
        item_sizes([{"attr": "ok"}, {"attr": value}])


def test_nesting_limit():
    value: list = []
    for _ in range(31):
        value = [value]  # 32 levels
    assert value_size(value) == 3 + 31 * 4
    with pytest.raises(ItemError, match="32 levels"):
        value_size([value])


@pytest.mark.parametrize(
    "wire",
    [{"S": 1}, {"X": "1"}, {"S": "a", "N": "1"}, {"B": "!!!"}, {"L": {}}, {"SS": "abc"}, {"N": "abc"}],
)
def test_wire_value_size_errors(wire):
    with pytest.raises(ItemError):
        wire_item_size({"a": wire})
    with pytest.raises(ItemError):
        wire_item_sizes([{"a": {"S": "x"}}, {"a": wire}])


# ---------------------------------------------------------------- capacity (section 2)


@pytest.mark.parametrize(
    ("size", "mode", "expected"),
    [
        (0, "strong", 1),  # missing item: still the minimum
        (0, "eventual", 0.5),
        (0, "transactional", 2),
        (1, "strong", 1),
        (4096, "strong", 1),  # exactly 4 KB
        (4097, "strong", 2),  # one byte over
        (4096, "eventual", 0.5),
        (4097, "eventual", 1),
        (4096, "transactional", 2),
        (4097, "transactional", 4),
        (8192, "strong", 2),  # doc: 8 KB item
        (8192, "eventual", 1),
        (8192, "transactional", 4),
        (20 * 1024, "strong", 5),  # doc: 20 KB item -> 600 reads/s per 3000 RCU partition
        (409_600, "strong", 100),  # largest item
    ],
)
def test_read_units(size, mode, expected):
    got = read_units(size, mode)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("size", "transactional", "expected"),
    [
        (0, False, 1),  # deleting a missing item costs 1
        (1, False, 1),
        (1024, False, 1),  # exactly 1 KB
        (1025, False, 2),  # one byte over
        (1024, True, 2),
        (1025, True, 4),
        (409_600, False, 400),
    ],
)
def test_write_units(size, transactional, expected):
    assert write_units(size, transactional) == expected


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        # doc: 8 KB item -> 2 / 1 / 4 RCU; 8 / 16 WCU
        (8192, {"size": 8192, "rcu_strong": 2, "rcu_eventual": 1, "rcu_transactional": 4,
                "wcu": 8, "wcu_transactional": 16}),
        # missing item: the minimum everywhere; 0.5 stays a float
        (0, {"size": 0, "rcu_strong": 1, "rcu_eventual": 0.5, "rcu_transactional": 2,
             "wcu": 1, "wcu_transactional": 2}),
        # one byte over 1 KB: 2 WCU, still one 4 KB read
        (1025, {"size": 1025, "rcu_strong": 1, "rcu_eventual": 0.5, "rcu_transactional": 2,
                "wcu": 2, "wcu_transactional": 4}),
    ],
)
def test_item_costs(size, expected):
    got = item_costs(size)
    assert got == expected
    assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}  # 1 not 1.0


QUERY_10 = [4178] * 9 + [4177]  # 10 items totalling 41,779 B = 40.8 KB


@pytest.mark.parametrize(
    ("sizes", "mode", "expected"),
    [
        (QUERY_10, "strong", 11),  # doc: 40.8 KB -> 44 KB -> 11 RCU
        (QUERY_10, "eventual", 5.5),  # doc: 5.5 eventual
        ([64] * 1500, "strong", 24),  # doc: 1500 x 64 B = 96,000 B -> 24 RCU
        ([2000] * 8, "eventual", 2),  # doc: GSI query 8 x 2000 B -> 16 KB -> 2 RCU eventual
        ([], "strong", 1),  # nothing matched: still the minimum
        ([], "eventual", 0.5),
        ([100] * 3, "strong", 1),  # small items share one 4 KB unit
    ],
)
def test_query_read_units(sizes, mode, expected):
    assert sum(QUERY_10) == 41_779
    got = query_read_units(sizes, mode)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("sizes", "mode", "expected"),
    [
        ([1536, 6656], "strong", 3),  # doc: 1.5 KB + 6.5 KB -> 4 KB + 8 KB
        ([1536, 6656], "eventual", 1.5),
        ([0, 0], "strong", 2),  # two missing keys
        ([100] * 3, "strong", 3),  # each rounded separately (a query would cost 1)
    ],
)
def test_batch_get_read_units(sizes, mode, expected):
    assert batch_get_read_units(sizes, mode) == expected


@pytest.mark.parametrize(
    ("func", "args", "expected"),
    [
        (batch_write_units, ([500, 3584],), 5),  # doc: 500 B + 3.5 KB -> 1 + 4
        (transact_write_units, ([500] * 3,), 6),  # doc: 3 x 500 B in a transaction
        (transact_get_read_units, ([4096, 4097],), 6),  # 2 + 4
        (put_write_units, (None, 500), 1),  # new item
        (put_write_units, (3000, 500), 3),  # the larger old image counts
        (put_write_units, (500, 3000), 3),
        (delete_write_units, (None,), 1),  # deleting a missing item
        (delete_write_units, (2048,), 2),
    ],
)
def test_write_operations(func, args, expected):
    assert func(*args) == expected


@pytest.mark.parametrize(("func", "args"), [(read_units, (-1,)), (read_units, (1, "strongly")), (write_units, (1.5,))])
def test_capacity_rejects_bad_arguments(func, args):
    with pytest.raises(ItemError):
        func(*args)


# ---------------------------------------------------------------- batch sizing


def test_batch_mixed_groups_and_fallbacks():
    items = [
        {"pk": "A", "sk": "1", "n": 5},
        {"pk": "A", "sk": "1", "n": Decimal("5.5")},  # int and Decimal in one column
        {"pk": "A", "sk": None, "n": 5},  # a None in a str column
        {"pk": "A", "sX": "1", "n": 5},  # same count and first name, other names
        {"sk": "1", "pk": "A", "n": 5},  # same names, other order
        {"pk": "é", "sk": "ü", "n": -5},  # non-ASCII, negative number
        {"pk": "A", "sk": ["x"], "n": {1}},  # nested values
        {"pk": b"\x00", "sk": True, "n": 12345678901234567890},  # other types
        {},  # empty item
        defaultdict(int, {"pk": "A"}),  # not a plain dict
    ]
    assert item_sizes(items) == [item_size(i) for i in items]
    wire = [item_to_wire(i) for i in items]
    assert wire_item_sizes(wire) == [wire_item_size(w) for w in wire]


def test_batch_many_items_across_chunks():
    items = [
        {"pk": f"USER#{i % 7}", "sk": f"ORDER#{i:06d}", "ts": 1_700_000_000 + i, "price": Decimal(i) / 100,
         "paid": bool(i % 2), "note": None, "name": "Zoë" if i % 3 else "Bob", "ver": Decimal(i % 3) * 10}
        if i % 5 else {"pk": f"USER#{i}", "kind": "profile", "n": -i, "zero": Decimal("0.000")}
        for i in range(5000)
    ]
    expected = [item_size(i) for i in items]
    assert item_sizes(items) == expected
    assert item_sizes(iter(items)) == expected  # any iterable
    wire = [item_to_wire(i) for i in items]
    assert wire_item_sizes(wire) == [wire_item_size(w) for w in wire] == expected


def test_batch_wire_odd_values():
    items = [
        {"a": {"N": "007"}, "b": {"S": "x"}},  # leading zeros in a number text
        {"a": {"N": "1E+2"}, "b": {"S": "y"}},  # exponent form
        {"a": {"N": "-0.5"}, "b": {"B": "AAE="}},  # negative fraction, binary
        {"a": {"N": "12"}, "b": {"NULL": True}},
        {"a": {"N": "12"}, "b": {"BOOL": False}},
    ]
    assert wire_item_sizes(items) == [wire_item_size(w) for w in items] == [5, 5, 7, 5, 5]


# ---------------------------------------------------------------- property tests

texts = st.text(max_size=20)
items_st = full_items
values = full_values


@settings(deadline=None)
@given(items_st)
def test_python_and_wire_sizes_agree(item):
    wire = item_to_wire(item)
    assert item_size(item) == wire_item_size(wire) == wire_item_size(json.loads(json.dumps(wire)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([("pk", "sk", "n"), ("pk", "data"), ("a",)]), min_size=1, max_size=40), st.data())
def test_batch_sizes_equal_item_sizes(schemas, data):
    items = [{k: data.draw(values) for k in names} for names in schemas]
    assert item_sizes(items) == [item_size(i) for i in items]
    wire = [item_to_wire(i) for i in items]
    assert wire_item_sizes(wire) == [wire_item_size(w) for w in wire]


@settings(deadline=None)
@given(st.lists(items_st, max_size=20))
def test_batch_sizes_equal_item_sizes_random_items(items):
    assert item_sizes(items) == [item_size(i) for i in items]


@settings(deadline=None)
@given(st.dictionaries(st.text(min_size=1), st.text()))
def test_string_only_items(item):
    expected = sum(len(k.encode()) + len(v.encode()) for k, v in item.items())
    assert item_size(item) == expected
    assert item_sizes([item, item]) == [expected, expected]


@settings(deadline=None)
@given(st.lists(st.from_regex(r"[0-9]{0,42}(\.[0-9]{0,42})?", fullmatch=True), min_size=1, max_size=40))
def test_batch_plain_number_texts(texts):
    wire = [{"n": {"N": t}} for t in texts]
    try:
        expected = [wire_item_size(w) for w in wire]
    except ItemError:
        with pytest.raises(ItemError):
            wire_item_sizes(wire)
        return
    assert wire_item_sizes(wire) == expected


# ---------------------------------------------------------------- the batch path vs the reference

import blue_nb.sizing.columnar as columnar  # noqa: E402 - the kernel's threshold is patched below


def _reference(items):
    """``[item_size(i) for i in items]``, or the ItemError it raises (as comparable fields)."""
    try:
        return [item_size(i) for i in items]
    except ItemError as exc:
        return ("error", str(exc), exc.where, exc.hint)


def _product(items, kernel_min):
    """``item_sizes(items)`` with number columns taken by the numpy kernel from ``kernel_min`` values
    (0: every number column; 10**9: none, each number by number_size)."""
    saved = columnar._KERNEL_MIN
    columnar._KERNEL_MIN = kernel_min
    try:
        return item_sizes(items)
    except ItemError as exc:
        return ("error", str(exc), exc.where, exc.hint)
    finally:
        columnar._KERNEL_MIN = saved


def _schema_items(data, schemas):
    return [{k: data.draw(values) for k in names} for names in schemas]


BAD_VALUES = [1.5, Decimal("NaN"), Decimal("Infinity"), Decimal("1E+126"), Decimal("1" * 39), 10**40, object(),
              {"a", 1}, "\ud800", {"k": 0.5}, [Decimal("-1E-131")], True, None, b"x", 7]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([("pk", "sk", "n"), ("pk", "data"), ("a",), ()]), min_size=1, max_size=40),
       st.sampled_from([0, 1, 10**9]), st.data())
def test_product_item_sizes_equal_reference_with_and_without_the_kernel(schemas, kernel_min, data):
    """Full-range values, shared schemas (many items per group) and random items, numbers by the kernel or not."""
    items = _schema_items(data, schemas) + data.draw(st.lists(full_items, max_size=10))
    items = data.draw(st.permutations(items))
    assert _product(items, kernel_min) == _reference(items)


@settings(max_examples=80, deadline=None)
@given(st.lists(full_items, min_size=1, max_size=12), st.sampled_from(BAD_VALUES), st.data())
def test_product_item_sizes_invalid_values_raise_the_reference_error(items, bad, data):
    """One value (valid or not) planted anywhere: both paths give the reference sizes or error."""
    row = data.draw(st.integers(0, len(items) - 1))
    items[row] = {**items[row], data.draw(st.sampled_from(["pk", "n", "x"])): bad}
    for kernel_min in (0, 10**9):
        assert _product(items, kernel_min) == _reference(items)


def test_product_item_sizes_numbers_by_the_kernel_on_big_batches(monkeypatch):
    """A dialogue-like batch: its number columns go to the numpy kernel (short ones to number_size), byte-exact."""
    calls = []
    real = columnar._number_chunk
    monkeypatch.setattr(columnar, "_number_chunk", lambda arr, *a: calls.append(len(arr)) or real(arr, *a))
    n = 2 * columnar._CHUNK + 7
    items = [{"pk": f"P#{i % 9}", "sk": f"S#{i}", "t": "é" * (i % 4), "n": Decimal(i - n) / 8, "big": 2**70 + i,
              "ok": bool(i % 2), "b": b"\x00" * (i % 3), "l": [i]} if i % 5 else {"pk": "x", "z": None}
             for i in range(n)]
    assert item_sizes(items) == [item_size(i) for i in items]
    assert len(calls) == 4                       # n and big in each full chunk; the last 7 items: number_size
    calls.clear()
    short = items[:columnar._KERNEL_MIN]
    assert item_sizes(short) == [item_size(i) for i in short] and calls == []        # short columns: number_size
    wire = [item_to_wire(i) for i in items]
    assert wire_item_sizes(wire) == [wire_item_size(w) for w in wire] and len(calls) == 4
