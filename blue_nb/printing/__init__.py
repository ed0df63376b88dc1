"""How a value prints, said once: one helper each for money, bytes, numbers and short labels (layer 0,
standard library only), so that a table, a figure and a report show the same value the same way.

* :func:`usd` - dollars, one rule wherever money is shown: ``$1,234.57`` to the cent, rounded half up as a
  bill shows it (:func:`cents`); a non-zero amount under half a cent to two significant digits (``$0.0023``,
  ``$0.000041``: the storage of a sample is tiny, and never shows as ``$0.0000``); ``-$2.50``, ``+$2.50`` when
  ``signed``, and ``—`` for a change of exactly nothing; ``-`` for no amount.
* :func:`human_bytes` - sizes in binary units (1 KB = 1024 bytes) with three significant digits:
  ``512 B``, ``1 KB``, ``1.5 KB``, ``1.18 MB``, ``400 KB``, ``10 GB``.
* :func:`number` - thousands separators and a fixed number of decimals (``1,234.50``); whole numbers
  print whole; ``signed`` shows ``+``; ``trim`` drops trailing zeros (``860.31``, ``2``); ``digits=None``
  gives as many decimals as the size needs (``1,234``, ``12.3``, ``0.12``); ``significant=n``
  rounds to ``n`` significant digits (``1.25``, ``0.0625``, ``12.5``), whole from ``10**(n-1)``.
* :func:`per_second` - capacity units per second, one rounding wherever a rate is shown (the heat map's peaks,
  the review's busiest key): one decimal, a trailing zero dropped (``5.5``, ``4,184``, ``3,732.6``).
* :func:`short` - a label cut to a width in terminal columns (a CJK character takes two, a
  combining mark none) with an ellipsis; :func:`display_width` - the columns a text takes.
* :func:`compact` - any item value on one short line, as a table cell or a query's output shows it
  (``{title: "x", n: 3}``, ``<binary 1,234 B>``), cut to :data:`COMPACT_WIDTH` columns.
* :func:`binary_label` - binary as what it is and its size, never its bytes: ``<jpeg 12.3 KB>``, ``<binary 13 B>``.
* :class:`Fields` - a dict of a few facts (a ``summary()``) that a notebook shows as a two-column table
  (:func:`fields_html`), its repr still the dict's; :func:`value_text` - one fact as a person reads it.
"""

from __future__ import annotations

import math
import unicodedata
from decimal import ROUND_HALF_UP, Decimal
from html import escape
from typing import Any, Mapping

__all__ = ["BYTE_UNITS", "COMPACT_WIDTH", "ELLIPSIS", "NO_CHANGE", "NO_VALUE", "Fields", "binary_label", "cents", "compact",
           "display_width", "fields_html", "human_bytes", "number", "per_second", "short", "usd", "value_text"]

NO_VALUE = "-"                 # what usd and number print for None
NO_CHANGE = "—"                # what usd prints for a signed change of exactly zero
ELLIPSIS = "…"                 # the end of a cut label: one column
BYTE_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")
COMPACT_WIDTH = 48             # columns a text, map or list cell shows before it is cut with "…"
_CENT = Decimal("0.01")


# -- money --------------------------------------------------------------------------------------
def cents(d: Decimal) -> Decimal:
    """Rounded to the cent, half up (as a bill shows it)."""
    return d.quantize(_CENT, rounding=ROUND_HALF_UP)


def usd(amount: Decimal | float | int | None, signed: bool = False) -> str:
    """Dollars to the cent, rounded half up (``$1,234.57``); a non-zero amount under half a cent to two
    significant digits (``$0.0023``); negative as ``-$2.50``, and ``+$2.50`` when ``signed`` (a change: ``—``
    when it is exactly zero); ``-`` for None.

    A float is taken as the decimal it prints as (``0.125`` is 0.125, not the binary number just below),
    so a float and the Decimal it came from print alike."""
    if amount is None:
        return NO_VALUE
    d = amount if isinstance(amount, Decimal) else Decimal(repr(amount) if isinstance(amount, float) else amount)
    if signed and d == 0:
        return NO_CHANGE
    sign = "-" if d < 0 else "+" if signed and d > 0 else ""
    d = abs(d)
    if d and d < _CENT / 2:
        places = Decimal(1).scaleb(d.adjusted() - 1)                  # two significant digits
        return f"{sign}${d.quantize(places, rounding=ROUND_HALF_UP):f}"
    return f"{sign}${cents(d):,}"


# -- bytes --------------------------------------------------------------------------------------
def human_bytes(n: float) -> str:
    """``1536 -> '1.5 KB'``, ``10 * 2**30 -> '10 GB'``: binary units (1 KB = 1024 bytes), whole from 100
    of a unit and when whole, else three significant digits."""
    n, i = float(n), 0
    while abs(n) >= 1024 and i < len(BYTE_UNITS) - 1:
        n, i = n / 1024, i + 1
    text = f"{n:.0f}" if abs(n) >= 100 or n == round(n) else f"{n:.3g}"
    return f"{text} {BYTE_UNITS[i]}"


#: the first bytes of a few file kinds a binary attribute often holds -> the kind's name
_MAGIC = ((b"\xff\xd8\xff", "jpeg"), (b"\x89PNG\r\n\x1a\n", "png"), (b"GIF8", "gif"), (b"%PDF", "pdf"),
          (b"\x1f\x8b", "gzip"), (b"PK\x03\x04", "zip"))


def binary_label(b: bytes | bytearray | memoryview) -> str:
    """Binary as a label, never its bytes: the kind its first bytes name (jpeg, png, gif, pdf, gzip, zip; else
    ``binary``) and its size by :func:`human_bytes` (``<jpeg 12.3 KB>``, ``<binary 13 B>``)."""
    head = bytes(b[:8])
    kind = next((name for magic, name in _MAGIC if head.startswith(magic)), "binary")
    return f"<{kind} {human_bytes(len(b))}>"


# -- numbers ------------------------------------------------------------------------------------
def number(v: Any, digits: int | None = 2, *, signed: bool = False, trim: bool = False,
           significant: int | None = None) -> str:
    """A number with thousands separators: an int as it is (``3,255,674``), anything else to ``digits``
    decimals (``860.31``; Decimals round as Python formats them); ``-`` for None, ``True``/``False`` for bools.

    ``signed``: ``+`` before a positive number, and zero is ``0``. ``trim``: no trailing zeros
    (``2.50 -> 2.5``, ``2.00 -> 2``, ``-0.00 -> 0``). ``digits=None``: as many decimals as the size
    needs: ``0`` is ``0``, none from 100 (``1,234``), one from 1 (``12.3``), two below (``0.12``).
    ``significant=n``: whole numbers and anything from ``10**(n-1)`` whole (``1,234``), else ``n``
    significant digits (``12.5``, ``1.25``, ``0.0625``)."""
    if v is None:
        return NO_VALUE
    if isinstance(v, bool):
        return str(v)
    if trim and isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        v = int(v)
    if signed and v == 0:
        return "0"
    sign = "+" if signed else ""
    if isinstance(v, int):
        return f"{v:{sign},}"
    if significant is not None:
        whole = v == round(v) or abs(v) >= 10 ** (significant - 1)
        return f"{v:{sign},.0f}" if whole else f"{v:{sign},.{significant}g}"
    if digits is None:
        if v == 0:
            return "0"
        digits = 0 if abs(v) >= 100 else 1 if abs(v) >= 1 else 2
    text = f"{v:{sign},.{digits}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "+0") else text
    return text


def per_second(v: float | int) -> str:
    """Units per second as every picture and report shows them: one decimal, no trailing zero (``5.5``, ``4,184``)."""
    return number(float(v), 1, trim=True)


# -- short labels -------------------------------------------------------------------------------
def _columns(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: an East Asian wide character two, a combining mark none."""
    return sum(map(_columns, text))


def short(text: Any, width: int) -> str:
    """``text`` as it is (never escaped), cut to ``width`` columns (:func:`display_width`) with an ellipsis
    that takes the last column."""
    text = str(text)
    if display_width(text) <= width:
        return text
    kept, used = [], 1
    for ch in text:
        if used + _columns(ch) > width:
            break
        kept.append(ch)
        used += _columns(ch)
    return "".join(kept) + ELLIPSIS


# -- an item value on one line ------------------------------------------------------------------
def compact(v: Any, width: int = COMPACT_WIDTH) -> str:
    """One short line for any item value, cut to ``width`` columns; missing values are empty."""
    return short(_compact(v), width)


def _compact(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, float) and math.isnan(v):
        return ""
    if isinstance(v, (bytes, bytearray)):
        return binary_label(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_inner(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_inner(x) for x in v) + "]"
    if isinstance(v, (set, frozenset)):
        return "{" + ", ".join(sorted(_inner(x) for x in v)) + "}"
    if isinstance(v, (int, float)):
        return number(v, trim=True)
    return str(v)


def _inner(v: Any) -> str:
    """A value inside a map or list: strings quoted, so ``"3"`` and ``3`` differ."""
    return f'"{v}"' if isinstance(v, str) else _compact(v)


# -- a few facts --------------------------------------------------------------------------------

def value_text(v: Any) -> str:
    """One fact as a person reads it: numbers with separators (floats trimmed), yes/no, a map as
    ``key: value`` pairs and a list joined by commas on one line, binary as :func:`binary_label`, a path or anything else as its text."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float, Decimal)):
        return number(v, trim=True)
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {value_text(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple, set, frozenset)):
        return ", ".join(value_text(x) for x in v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return binary_label(v)
    return NO_VALUE if v is None else str(v)


def fields_html(facts: Mapping[str, Any], caption: str = "") -> str:
    """``facts`` as a two-column HTML table (name, value), values by :func:`value_text`, wrapped where long."""
    cell = "text-align:left;vertical-align:top;padding:1px 8px 1px 0"
    rows = "".join(f"<tr><th style='{cell}'>{escape(str(k))}</th>"
                   f"<td style='{cell};overflow-wrap:anywhere'>{escape(value_text(v))}</td></tr>"
                   for k, v in facts.items())
    cap = f"<caption style='text-align:left;caption-side:top'><b>{escape(caption)}</b></caption>" if caption else ""
    return f"<table style='border-collapse:collapse;font-size:12px;margin:2px 0 8px 0'>{cap}{rows}</table>"


class Fields(dict):
    """A dict of a few facts (what a ``summary()`` returns): code, tests and JSON read it as the dict it is
    (its repr too), a notebook shows it as a two-column table (:func:`fields_html`)."""

    def _repr_html_(self) -> str:
        return fields_html(self)
