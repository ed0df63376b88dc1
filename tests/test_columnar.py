"""Vectorized sizing over Arrow columns: byte-exact against the reference walk ``item_size``."""

import json
from decimal import Context, Decimal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blue_nb.sizing.columnar as columnar
from blue_nb.sizing.columnar import item_size_column, number_text_sizes
from blue_nb.errors import ItemError
from blue_nb.sizing import MAX_ITEM_BYTES, item_size, number_size, value_size
from blue_nb.items.values import to_wire

from .arrow_tables import items_to_table, table_item_sizes
from .strategies import values as value_strategy

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def sizes(table, types):
    return item_size_column(table, types).tolist()


def one_number(text):
    """Size of the item {"n": <number text>} through the columnar path."""
    return sizes(pa.table({"n": pa.array([text], pa.string())}), {"n": "N"})[0]


# ---------------------------------------------------------------- numbers

DOC_EXAMPLES = [("1", 2), ("12", 2), ("123", 3), ("1234", 3), ("100", 2), ("1.5", 3), ("-42", 3), ("0", 1),
                ("1E125", 2), ("1" * 38, 20)]


@pytest.mark.parametrize("text, size", DOC_EXAMPLES)
def test_rules_doc_number_examples(text, size):
    assert one_number(text) == 1 + size                       # + the name "n"
    assert one_number(text) == item_size({"n": Decimal(text)})
    assert number_text_sizes(pa.array([text])).tolist() == [size]


NUMBER_TEXTS = [
    # negatives and fractions straddling the point
    "-1", "-0.5", "-12.5", "-100.25", "12.5", "0.001", "123.45", "100.25", "-123456789.987654321",
    # leading / trailing zeros in the text, signs, bare points
    "007", "1.500", "00.00100", "-0", "0.000", "-0.0", "+7", ".5", "5.", "-.5", "+0.10", "1000000000",
    "1706900000", "1706900001", "0.1", "0.01", "99.99", "10.01",
    # range ends and long texts that are still plain
    "9" * 38, "-" + "9" * 38, "1" + "0" * 125, "0." + "0" * 129 + "1", "0." + "0" * 120 + "1" * 38,
    "1" * 20 + "." + "1" * 18, "0" * 300 + "5", "5." + "0" * 300,
    # exponent forms (the exact path)
    "1E+125", "1e125", "1.5E-100", "-2.50E3", "1E-130", "-9.99E+125", "123e-2", "0E5", "1E0",
]


@pytest.mark.parametrize("text", NUMBER_TEXTS)
def test_number_texts_match_number_size(text):
    assert number_text_sizes(pa.array([text])).tolist() == [number_size(text)]
    assert one_number(text) == 1 + number_size(text)


def test_many_number_texts_in_one_column_with_nulls_and_chunks():
    texts = NUMBER_TEXTS * 30 + [None] * 7
    arr = pa.chunked_array([pa.array(texts[:500]), pa.array(texts[500:])])
    expected = [0 if t is None else number_size(t) for t in texts]
    assert number_text_sizes(arr).tolist() == expected
    assert number_text_sizes(arr.combine_chunks().slice(11, 700)).tolist() == expected[11:711]
    assert number_text_sizes(pa.array(texts, pa.large_string())).tolist() == expected


@pytest.mark.parametrize("text", ["", " 1", "1 ", "abc", "NaN", "Infinity", "1E126", "1E-131", "9" * 39,
                                  "1..2", "-", ".", "+-1", "1-", "0x10", "١٢", "1,5", "--1"])
def test_invalid_number_text_is_an_item_error_naming_column_and_row(text):
    table = pa.table({"score": pa.array(["1", "2.5", text, "3"])})
    with pytest.raises(ItemError) as err:
        item_size_column(table, {"score": "N"})
    assert err.value.where == "score (row 2)"


def test_distinct_plain_numbers_never_take_the_per_value_path(monkeypatch):
    """Distinct epoch seconds and decimals are sized fully vectorized: no number_size call at all."""
    rng = np.random.default_rng(1)
    ints = 1_706_900_000 + rng.permutation(200_000)
    fracs = [f"{v / 1000:.3f}".rstrip("0").rstrip(".") for v in rng.integers(0, 10**7, 20_000)]
    texts = [str(i) for i in ints] + fracs + ["-0.5", "0.001", "-12.500", "007"]
    expected = [number_size(t) for t in texts]

    def forbidden(*a, **k):
        raise AssertionError("per-value number_size called")

    monkeypatch.setattr(columnar, "number_size", forbidden)
    assert number_text_sizes(pa.array(texts)).tolist() == expected


@pytest.mark.parametrize("arrow_type, values", [
    (pa.int64(), [0, 1, -1, 42, -42, 100, 1706900000, 2**63 - 1, -(2**63), None]),
    (pa.uint64(), [0, 7, 2**64 - 1, None]),
    (pa.int8(), [0, -128, 127, 100]),
    (pa.decimal128(10, 3), [Decimal("12.500"), Decimal("-0.001"), Decimal("0"), Decimal("1234567.000"), None]),
    (pa.decimal128(38, 0), [Decimal("9" * 38), Decimal("-1"), Decimal("10" * 19)]),
    (pa.decimal128(5, -3), [Decimal("12345E3"), Decimal("1E3"), Decimal("0")]),
    (pa.decimal256(40, 2), [Decimal("123.45"), Decimal("-0.50")]),
])
def test_integer_and_decimal_columns_are_exact(arrow_type, values):
    table = pa.table({"n": pa.array(values, arrow_type)})
    expected = [0 if v is None else item_size({"n": Decimal(v)}) for v in values]
    assert sizes(table, {"n": "N"}) == expected


@pytest.mark.parametrize("arrow_type", [pa.float64(), pa.float32(), pa.float16()])
def test_float_columns_are_an_item_error(arrow_type):
    values = [1.5, None] if arrow_type != pa.float16() else [np.float16(1.5), None]
    for table in (pa.table({"price": pa.array(values, arrow_type)}),
                  pa.table({"price": pa.array([None, None], arrow_type)}),          # even when all absent
                  pa.table({"price": pa.array(values, arrow_type).dictionary_encode()})):
        with pytest.raises(ItemError, match="price") as err:
            item_size_column(table, {"price": "N"})
        assert "Decimal" in err.value.hint


def test_decimal_too_many_digits_is_an_item_error():
    table = pa.table({"n": pa.array([Decimal("1" * 40)], pa.decimal256(40, 0))})
    with pytest.raises(ItemError, match="significant digits"):
        item_size_column(table, {"n": "N"})


# ---------------------------------------------------------------- the AWS examples


def test_aws_shirt_example_is_23_bytes():
    items = [{"shirt-color": "R", "shirt-size": "M"}]
    types = {"shirt-color": "S", "shirt-size": "S"}
    assert table_item_sizes(items, types).tolist() == [23]
    assert sizes(pa.table({"shirt-color": ["R"], "shirt-size": ["M"]}), types) == [23]


BOOK = {"Id": Decimal(101), "Title": "Book 101 Title", "ISBN": "111-1111111111", "Authors": ["Author1"],
        "Price": Decimal(2), "Dimensions": "8.5 x 11.0 x 0.5", "PageCount": Decimal(500), "InPublication": True,
        "ProductCategory": "Book"}
BOOK_TYPES = {"Id": "N", "Title": "S", "ISBN": "S", "Authors": "L", "Price": "N", "Dimensions": "S",
              "PageCount": "N", "InPublication": "BOOL", "ProductCategory": "S"}


def test_aws_book_101_is_137_bytes():
    assert item_size(BOOK) == 137
    assert table_item_sizes([BOOK], BOOK_TYPES).tolist() == [137]
    by_hand = pa.table({
        "Id": pa.array([101]), "Title": ["Book 101 Title"], "ISBN": ["111-1111111111"],
        "Authors": ['{"L":[{"S":"Author1"}]}'], "Price": pa.array([Decimal(2)], pa.decimal128(3, 0)),
        "Dimensions": ["8.5 x 11.0 x 0.5"], "PageCount": ["500"], "InPublication": [True],
        "ProductCategory": pa.array(["Book"]).dictionary_encode(),
    })
    assert sizes(by_hand, BOOK_TYPES) == [137]
    native = by_hand.set_column(3, "Authors", pa.array([["Author1"]], pa.list_(pa.string())))
    assert sizes(native, BOOK_TYPES) == [137]


# ---------------------------------------------------------------- the other types


def test_absent_attributes_count_nothing():
    items = [{"pk": "a", "n": Decimal(5), "b": b"xy", "ok": True, "nil": None, "l": [1]},
             {"pk": "b"},
             {"n": Decimal("-0.5"), "nil": None},
             {}]
    types = {"pk": "S", "n": "N", "b": "B", "ok": "BOOL", "nil": "NULL", "l": "L"}
    table = items_to_table(items, types)
    assert table.column("pk").null_count == 2 and table.column("nil").null_count == 2
    assert sizes(table, types) == [item_size(i) for i in items] == [3 + 3 + 3 + 3 + 4 + 7, 3, 4 + 4, 0]


def test_strings_non_ascii_and_empty():
    texts = ["", "é", "日本語", "😀", "a😀b", "Grüße", "x" * 1000, None]
    table = pa.table({"s": texts, "név": ["1"] * len(texts)})
    types = {"s": "S", "név": "S"}
    expected = [item_size({k: v for k, v in (("s", t), ("név", "1")) if v is not None}) for t in texts]
    assert sizes(table, types) == expected
    for arrow_type in (pa.large_string(), pa.string_view()):
        cast = pa.table({"s": pa.array(texts, arrow_type), "név": pa.array(["1"] * len(texts), arrow_type)})
        assert sizes(cast, types) == expected
    assert sizes(pa.table({"s": pa.array(texts).dictionary_encode(), "név": ["1"] * 8}), types) == expected


def test_binary_columns_count_raw_bytes():
    raw = [b"", b"\x00", b"\xff" * 300, None]
    expected = [0 if r is None else 1 + len(r) for r in raw]
    for arrow_type in (pa.binary(), pa.large_binary(), pa.binary_view()):
        assert sizes(pa.table({"b": pa.array(raw, arrow_type)}), {"b": "B"}) == expected
    assert sizes(pa.table({"b": pa.array([b"abcd", None], pa.binary(4))}), {"b": "B"}) == [5, 0]
    assert sizes(pa.table({"b": ["aGk=", "", None]}), {"b": "B"}) == [3, 1, 0]   # base64 text counts decoded


def test_bool_and_null_columns():
    table = pa.table({"ok": [True, False, None], "gone": pa.array([True, None, True])})
    assert sizes(table, {"ok": "BOOL", "gone": "NULL"}) == [2 + 1 + 4 + 1, 2 + 1, 4 + 1]
    assert sizes(pa.table({"x": pa.nulls(3)}), {"x": "S"}) == [0, 0, 0]


NESTED = [
    ("L", ["a", Decimal("1.5"), None, True, [b"\x00"], {"k": "v"}]),
    ("L", []),
    ("M", {"a": {"b": [Decimal(100)], "é": None}, "empty": {}}),
    ("M", {}),
    ("SS", {"x", "yy", "日本"}),
    ("NS", {Decimal("1"), Decimal("-12.5"), Decimal("1E+125")}),
    ("BS", {b"\x00\x01", b"zz"}),
]


@pytest.mark.parametrize("tag, value", NESTED)
def test_nested_columns_hold_dynamodb_json(tag, value):
    types = {"v": tag}
    items = [{"v": value}, {}]
    assert table_item_sizes(items, types).tolist() == [item_size(items[0]), 0]
    text = json.dumps(to_wire(value))
    assert sizes(pa.table({"v": [text, None]}), types) == [1 + value_size(value), 0]


def test_nested_columns_hold_arrow_values():
    table = pa.table({
        "l": pa.array([[1, 2], [], None], pa.list_(pa.int64())),
        "m": pa.array([[("a", "x")], [], None], pa.map_(pa.string(), pa.string())),
        "st": pa.array([{"a": 1, "b": None}, {"a": None, "b": "zz"}, None],
                       pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "ss": pa.array([["x", "yy"], ["z"], None], pa.list_(pa.string())),
        "ns": pa.array([[1, 20], [Decimal(3)], None], pa.list_(pa.decimal128(5, 0))),
        "bs": pa.array([[b"a"], [b"bc", b"d"], None], pa.list_(pa.binary())),
    })
    types = {"l": "L", "m": "M", "st": "M", "ss": "SS", "ns": "NS", "bs": "BS"}
    expected = [
        item_size({"l": [Decimal(1), Decimal(2)], "m": {"a": "x"}, "st": {"a": Decimal(1)}, "ss": {"x", "yy"},
                   "ns": {Decimal(1), Decimal(20)}, "bs": {b"a"}}),
        item_size({"l": [], "m": {}, "st": {"b": "zz"}, "ss": {"z"}, "ns": {Decimal(3)}, "bs": {b"bc", b"d"}}),
        0,
    ]
    assert sizes(table, types) == expected


@pytest.mark.parametrize("tag, cell, match", [
    ("L", '{"M": {}}', "not a L value"),
    ("M", "not json", "invalid JSON"),
    ("SS", '{"SS": []}', "non-empty"),
    ("NS", '{"NS": ["1", "1"]}', "duplicate member"),
    ("L", '{"L": [{"N": "1.5.5"}]}', "not a valid DynamoDB number"),
])
def test_bad_nested_cells_are_item_errors(tag, cell, match):
    table = pa.table({"v": [json.dumps({tag: [] if tag == "L" else {}}) if tag in ("L", "M") else None, cell]})
    with pytest.raises(ItemError, match=match) as err:
        item_size_column(table, {"v": tag})
    assert err.value.where.startswith("v (row 1)")


def test_bad_arrow_set_cells():
    with pytest.raises(ItemError, match="duplicates"):
        item_size_column(pa.table({"s": pa.array([["a", "a"]])}), {"s": "SS"})
    with pytest.raises(ItemError, match="non-empty"):
        item_size_column(pa.table({"s": pa.array([[]], pa.list_(pa.string()))}), {"s": "SS"})


# ---------------------------------------------------------------- limits, tables, errors


def test_400_kb_boundary_is_exact():
    for target in (MAX_ITEM_BYTES, MAX_ITEM_BYTES + 1):
        k = target - (3 + 3 + 4 + 4)                            # pk, sk, "body" + its bytes, n = 12.5
        item = {"pk": "p", "sk": "s", "body": "é" * (k // 2) + "x" * (k % 2), "n": Decimal("12.5")}
        assert item_size(item) == target
        got = table_item_sizes([item], {"pk": "S", "sk": "S", "body": "S", "n": "N"})
        assert got.tolist() == [target]
        assert (got <= MAX_ITEM_BYTES).tolist() == [target == MAX_ITEM_BYTES]


def test_chunked_and_sliced_tables():
    items = [{"pk": f"p{i}", "n": Decimal(i) / 8, "s": "é" * (i % 5)} for i in range(3000)]
    items[7] = {"pk": "only"}
    types = {"pk": "S", "n": "N", "s": "S"}
    table = items_to_table(items, types)
    expected = [item_size(i) for i in items]
    chunked = pa.concat_tables([table.slice(0, 1000), table.slice(1000, 1), table.slice(1001)])
    assert chunked.column("pk").num_chunks == 3
    assert sizes(chunked, types) == expected
    assert sizes(table.slice(5, 100), types) == expected[5:105]
    assert sizes(table.slice(0, 0), types) == []


def test_table_errors():
    with pytest.raises(ItemError, match="has no type"):
        item_size_column(pa.table({"a": ["x"], "b": ["y"]}), {"a": "S"})
    with pytest.raises(ItemError, match="unknown type"):
        item_size_column(pa.table({"a": ["x"]}), {"a": "STRING"})
    with pytest.raises(ItemError, match="duplicate"):
        item_size_column(pa.Table.from_arrays([pa.array(["x"]), pa.array(["y"])], names=["a", "a"]), {"a": "S"})
    with pytest.raises(ItemError, match="S attributes need a string column"):
        item_size_column(pa.table({"a": [1]}), {"a": "S"})
    with pytest.raises(ItemError, match="BOOL"):
        item_size_column(pa.table({"a": ["true"]}), {"a": "BOOL"})


def test_items_to_table_errors():
    with pytest.raises(ItemError, match="no type"):
        items_to_table([{"a": "x", "extra": "y"}], {"a": "S"})
    with pytest.raises(ItemError, match="float") as err:
        items_to_table([{"n": Decimal(1)}, {"n": 1.5}], {"n": "N"})
    assert err.value.where == "n (row 1)"
    with pytest.raises(ItemError, match="does not fit type S"):
        items_to_table([{"s": Decimal(1)}], {"s": "S"})
    with pytest.raises(ItemError, match="does not fit type S"):
        items_to_table([{"s": "a"}, {"s": None}], {"s": "S"})         # None is NULL, not an absent S
    with pytest.raises(ItemError, match="does not fit type NULL"):
        items_to_table([{"z": 0}], {"z": "NULL"})
    with pytest.raises(ItemError, match="does not fit type L"):
        items_to_table([{"v": {"a": 1}}], {"v": "L"})
    with pytest.raises(ItemError, match="unknown type"):
        items_to_table([], {"v": "X"})


def test_items_to_table_writes_canonical_numbers():
    items = [{"n": v} for v in (Decimal("12.500"), Decimal("-0"), Decimal("1E+3"), 7, Decimal("0.0010"),
                                 Decimal("1.5E-100"), 10**37)]
    assert items_to_table(items, {"n": "N"}).column("n").to_pylist() == [
        "12.5", "0", "1000", "7", "0.001", "0." + "0" * 99 + "15", "1" + "0" * 37]


def test_items_without_attributes():
    assert table_item_sizes([{}, {}], {}).tolist() == [0, 0]
    assert table_item_sizes([], {"a": "S"}).tolist() == []


# ---------------------------------------------------------------- properties


@st.composite
def numbers(draw):
    """Valid DynamoDB numbers: up to 38 significant digits, 1E-130 <= |x| < 1E126, or zero."""
    if draw(st.integers(0, 20)) == 0:
        return Decimal(0)
    digits = draw(st.one_of(st.integers(1, 10**38 - 1), st.integers(1, 10**6)))
    adjusted = draw(st.integers(-130, 125))
    sign = draw(st.sampled_from([1, -1]))
    return Decimal(sign * digits).scaleb(adjusted - (len(str(digits)) - 1), context=Context(prec=50))


def number_texts(d: Decimal) -> st.SearchStrategy:
    """Ways to write ``d``: str(), plain, zero-padded, exponent with lowercase e."""
    plain = format(d, "f")
    sign, body = ("-", plain[1:]) if plain.startswith("-") else ("", plain)
    padded = sign + "00" + body + ("00" if "." in body else ".00")
    sign_e, digits, exp = d.as_tuple()
    mantissa = "".join(map(str, digits)) or "0"
    return st.sampled_from([str(d), plain, padded, ("-" if sign_e else "") + f"{mantissa}e{exp}"])


NAMES = st.text(min_size=1, max_size=8)
FLAT = {"S": st.text(max_size=30), "N": numbers(), "B": st.binary(max_size=30), "BOOL": st.booleans(),
        "NULL": st.none()}


@st.composite
def flat_tables(draw):
    types = draw(st.dictionaries(NAMES, st.sampled_from(sorted(FLAT)), min_size=1, max_size=6))
    items = []
    for _ in range(draw(st.integers(1, 25))):
        items.append({name: draw(FLAT[tag]) for name, tag in types.items() if draw(st.integers(0, 3))})
    return types, items


@FAST
@given(flat_tables())
def test_property_flat_items_match_item_size(case):
    types, items = case
    assert item_size_column(items_to_table(items, types), types).tolist() == [item_size(i) for i in items]


@FAST
@given(st.lists(numbers().flatmap(number_texts), min_size=1, max_size=40))
def test_property_number_texts_match_number_size(texts):
    assert number_text_sizes(pa.array(texts)).tolist() == [number_size(t) for t in texts]


@settings(max_examples=60, deadline=None)
@given(st.lists(value_strategy.filter(lambda v: isinstance(v, (list, dict, set))), min_size=1, max_size=5))
def test_property_nested_values_match_value_size(vals):
    tag = next(iter(to_wire(vals[0])))
    vals = [v for v in vals if next(iter(to_wire(v))) == tag]
    items = [{"v": v} for v in vals]
    assert table_item_sizes(items, {"v": tag}).tolist() == [item_size(i) for i in items]
