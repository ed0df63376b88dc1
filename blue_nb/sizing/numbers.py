"""Storage size of a DynamoDB number (rules doc section 1.1, the base-100 digit-pair rule).

Take |n| without leading/trailing zeros, split its digits into pairs aligned on the decimal
point; size = 1 + (pairs from the most to the least significant non-zero pair) + (1 if
negative), at most 21; zero is 1. Exact: plain decimal strings are handled with string
arithmetic, everything else through ``decimal.Decimal`` (never float). Invalid numbers (NaN,
more than 38 significant digits, out of range, floats, bad syntax) raise :class:`ItemError`.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

from blue_nb.errors import ItemError
from blue_nb.items.values import MAX_ADJUSTED, MAX_DIGITS, MIN_ADJUSTED, validate_number

__all__ = ["MAX_NUMBER_BYTES", "number_size", "text_number_size"]

MAX_NUMBER_BYTES = 21


def _digits_size(digits: str, exp: int, negative: bool, text: str) -> int:
    """Size of ``(-1)**negative * int(digits) * 10**exp`` where ``digits`` are ASCII digits."""
    stripped = digits.lstrip("0")
    if not stripped:
        return 1
    core = stripped.rstrip("0")
    hi = exp + len(stripped) - 1  # power of ten of the most significant non-zero digit
    lo = hi - len(core) + 1  # power of ten of the least significant non-zero digit
    if len(core) > MAX_DIGITS or not MIN_ADJUSTED <= hi <= MAX_ADJUSTED:
        validate_number(text)  # raises the precise ItemError
    pairs = hi // 2 - lo // 2 + 1
    return min(1 + pairs + negative, MAX_NUMBER_BYTES)


def _exponent(text: str) -> int | None:
    """The int value of an exponent like ``+25`` or ``-3``, or None if malformed."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if digits and digits.isdigit() and digits.isascii():
        return int(text)
    return None


def _general_size(text: str) -> int:
    """Size of any number text: sign, plain or fractional mantissa, optional exponent."""
    negative = text.startswith("-")
    body = text[1:] if negative or text.startswith("+") else text
    mantissa, mark, exp_text = body.replace("e", "E", 1).partition("E")
    exp = _exponent(exp_text) if mark else 0
    head, _, tail = mantissa.partition(".")
    joined = head + tail
    if exp is None or not joined or not joined.isdigit() or not joined.isascii():
        validate_number(text)  # raises the precise ItemError
        raise ItemError(f"{text!r} is not a valid DynamoDB number")  # pragma: no cover
    return _digits_size(joined, exp - len(tail), negative, text)


def text_number_size(text: str) -> int:
    """Size of a number given as text, uncached and exact; never goes through float."""
    if text.isdigit() and text.isascii():
        n = len(text)
        if n <= MAX_DIGITS and text[0] != "0":  # positive integer, no leading zero: the common case
            return 2 + (n - 1) // 2 - (n - len(text.rstrip("0"))) // 2
    head, dot, tail = text.partition(".")
    if dot and tail.isdigit() and tail.isascii():  # plain fraction such as 12.5 or -0.001
        negative = head.startswith("-")
        digits = (head[1:] if negative or head.startswith("+") else head) + tail
        if digits.isdigit() and digits.isascii():
            return _digits_size(digits, -len(tail), negative, text)
    return _general_size(text)


_text_size = lru_cache(maxsize=1 << 16)(text_number_size)


def _key(n: str | int | Decimal) -> str:
    """Text form of a number for the size cache; rejects floats, bools and non-numbers."""
    if isinstance(n, str):
        return n
    if isinstance(n, (bool, float)) or not isinstance(n, (int, Decimal)):
        validate_number(n)  # raises the precise ItemError
    if isinstance(n, Decimal):
        if not n.is_finite():
            validate_number(n)
        return str(n)
    try:
        return str(n)
    except ValueError:  # int too large to print
        return str(validate_number(n))


def number_size(n: str | int | Decimal, where: str = "") -> int:
    """Bytes DynamoDB counts for number ``n`` (1..21): ``1`` -> 2, ``123`` -> 3, ``-42`` -> 3, ``0`` -> 1."""
    try:
        return _text_size(_key(n))
    except ItemError as exc:
        if not where:
            raise
        raise ItemError(exc.msg, where=where, hint=exc.hint) from exc
