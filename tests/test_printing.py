"""How a value prints (blue_nb.printing): money, bytes, numbers and short labels, with the exact strings a
table, a figure and a report show, rounding boundaries included."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from blue_nb.printing import (Fields, binary_label, cents, display_width, fields_html, human_bytes, number, per_second, short,
                              usd, value_text)


# -- money --------------------------------------------------------------------------------------
@pytest.mark.parametrize("amount, text", [
    (D("0"), "$0.00"), (0, "$0.00"), (0.0, "$0.00"), (D("-0"), "$0.00"),
    (D("98.55"), "$98.55"), (D("1234567.891"), "$1,234,567.89"), (D("484.63"), "$484.63"),
    (D("0.125"), "$0.13"), (D("2.675"), "$2.68"), (D("0.135"), "$0.14"),     # half up, as a bill rounds
    (0.125, "$0.13"), (2.675, "$2.68"),                  # a float as the decimal it prints as (2.675, not 2.67499...)
    (D("0.005"), "$0.01"), (D("0.00499"), "$0.0050"),    # half a cent is a cent; under it, two significant digits
    (D("0.0049999"), "$0.0050"), (D("0.00005"), "$0.000050"), (D("0.00004"), "$0.000040"),   # never $0.0000
    (D("0.00002977438271045684814453125"), "$0.000030"), (0.0003725, "$0.00037"), (D("0.0023"), "$0.0023"),
    (D("-2.5"), "-$2.50"), (D("-0.004"), "-$0.0040"), (D("-0.005"), "-$0.01"),
    (None, "-"),
])
def test_usd(amount, text):
    assert usd(amount) == text


@pytest.mark.parametrize("amount, text", [(D("4.305"), "+$4.31"), (D("-4.305"), "-$4.31"), (D("0"), "—"),
                                          (D("0.00001"), "+$0.000010"), (D("-0.00001"), "-$0.000010"), (None, "-")])
def test_usd_signed(amount, text):
    assert usd(amount, signed=True) == text


def test_cents_rounds_half_up():
    assert [cents(D(x)) for x in ("0.125", "0.124999", "-0.125", "48.20922977")] == \
        [D("0.13"), D("0.12"), D("-0.13"), D("48.21")]


# -- bytes --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n, text", [
    (0, "0 B"), (1, "1 B"), (99.5, "99.5 B"), (512, "512 B"), (1000, "1000 B"), (1023, "1023 B"),
    (1024, "1 KB"), (1536, "1.5 KB"), (1100, "1.07 KB"), (10 * 1024 + 512, "10.5 KB"),
    (99.95 * 1024, "100 KB"), (343_757, "336 KB"), (409_600, "400 KB"), (1_048_575, "1024 KB"),
    (1_048_576, "1 MB"), (1_234_567, "1.18 MB"), (1_792_000, "1.71 MB"), (10 * 2**30, "10 GB"),
    (12 * 2**30, "12 GB"), (2**50, "1 PB"), (3 * 2**60, "3072 PB"),
])
def test_human_bytes(n, text):
    assert human_bytes(n) == text


# -- numbers ------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, kw, text", [
    ((3255674,), {}, "3,255,674"), ((3,), {}, "3"), ((3.0,), {}, "3.00"), ((860.308153,), {}, "860.31"),
    ((0.005,), {}, "0.01"), ((0.125,), {}, "0.12"), ((2.675,), {}, "2.67"),   # floats round as Python formats them
    ((D("2.675"),), {}, "2.68"), ((D("0.125"),), {}, "0.12"),                  # Decimals: half even
    ((1234.5, 1), {}, "1,234.5"), ((974.34, 1), {}, "974.3"), ((1234.5, 0), {}, "1,234"),
    ((-0.001,), {}, "-0.00"), ((None,), {}, "-"), ((True,), {}, "True"),
])
def test_number_fixed_digits(args, kw, text):
    assert number(*args, **kw) == text


@pytest.mark.parametrize("v, signed, text", [
    (860.308153, False, "860.31"), (3255674, False, "3,255,674"), (2.0, False, "2"), (2.5, False, "2.5"),
    (1e15, False, "1,000,000,000,000,000"), (0.001, False, "0"), (-0.001, False, "0"), (-3.0, True, "-3"),
    (0, True, "0"), (0.0, True, "0"), (0.001, True, "0"), (2.5, True, "+2.5"), (3, True, "+3"),
])
def test_number_trimmed(v, signed, text):
    assert number(v, trim=True, signed=signed) == text


@pytest.mark.parametrize("v, text", [
    (0, "0"), (0.0, "0"), (0.004, "0.00"), (0.125, "0.12"), (0.999, "1.00"), (1.0, "1.0"), (5.55, "5.5"),
    (99.94, "99.9"), (99.96, "100.0"), (100.0, "100"), (1234.5, "1,234"), (3756.4, "3,756"), (-2.25, "-2.2"),
])
def test_number_digits_by_size(v, text):
    assert number(v, None) == text


@pytest.mark.parametrize("v, text", [
    (0.0, "0"), (2.0, "2"), (12.5, "12.5"), (1.25, "1.25"), (0.0625, "0.0625"), (0.5, "0.5"), (1.2345, "1.23"),
    (9.996, "10"), (99.94, "99.9"), (100.4, "100"), (1234.5, "1,234"), (1e-05, "1e-05"),
])
def test_number_significant_digits(v, text):
    assert number(v, significant=3) == text


# -- short labels -------------------------------------------------------------------------------
@pytest.mark.parametrize("text, width, cut", [
    ("abcdef", 6, "abcdef"), ("abcdefg", 6, "abcde…"), ("x" * 100, 48, "x" * 47 + "…"),
    ("東" * 20, 10, "東東東東…"), ("東京-launch", 28, "東京-launch"), ("a東京", 4, "a東…"), ("東京x", 4, "東…"),
    ("e\u0301" * 5, 5, "e\u0301" * 5), ("e\u0301" * 10, 4, "e\u0301" * 3 + "…"),   # a combining mark takes no column
    (12345, 3, "12…"), ("", 1, ""),
])
def test_short(text, width, cut):
    assert short(text, width) == cut
    assert display_width(cut) <= width


def test_display_width():
    assert [display_width(t) for t in ("", "abc", "東京", "東京-launch", "e\u0301", "Ｆ")] == [0, 3, 4, 11, 1, 2]


def test_a_few_facts_show_as_a_table_and_stay_a_dict():
    """summary() dicts: code, JSON and the repr read the dict; a notebook shows names and readable values."""
    from pathlib import Path

    facts = Fields({"items": 5000, "ok": True, "rcu": 1.50, "index_wcu": {"gsi1": 2}, "path": Path("data/x.yaml"),
                    "price": D("417"), "none": None, "tags": ["a", "b"], "<b>": "<i>"})
    assert facts == dict(facts) and repr(facts) == repr(dict(facts))
    assert [value_text(v) for v in facts.values()] == ["5,000", "yes", "1.5", "gsi1: 2", "data/x.yaml", "417", "-",
                                                       "a, b", "<i>"]
    html = facts._repr_html_()
    assert "<th" in html and "5,000" in html and "&lt;b&gt;" in html and "&lt;i&gt;" in html and "<i>" not in html
    assert "PosixPath" not in html and "Decimal" not in html and "<caption" in fields_html(facts, "a title")


@pytest.mark.parametrize("v, text", [(5.5, "5.5"), (5.54, "5.5"), (6.0, "6"), (4184.0, "4,184"), (3732.64, "3,732.6"),
                                     (0.04, "0"), (0.05, "0.1")])
def test_per_second_is_one_rounding_for_a_rate(v, text):
    assert per_second(v) == text


@pytest.mark.parametrize("b, text", [(b"\xff\xd8\xff\xe0" + bytes(9), "<jpeg 13 B>"), (b"\x89PNG\r\n\x1a\n" + bytes(12_592), "<png 12.3 KB>"),
                                     (b"\x00\x01\x02", "<binary 3 B>"), (b"", "<binary 0 B>"), (b"%PDF-1.7", "<pdf 8 B>")])
def test_binary_is_its_kind_and_size_never_its_bytes(b, text):
    assert binary_label(b) == text and value_text(b) == text
