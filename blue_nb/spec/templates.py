"""Key templates: ``PERSP#{round:03d}#{expert}#{seq}``.

``{name}`` inserts the value of column ``name`` of a source row, ``{name:fmt}`` applies a Python
format spec, everything else is literal and ``#`` separates the parts of a composite key
(ADR 0018, principle 5). A template renders a row into a key and parses a key back into values.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cached_property
from operator import itemgetter
from typing import Any, Mapping

from blue_nb.errors import TemplateError

__all__ = ["KeyTemplate", "Placeholder", "SEPARATOR"]

SEPARATOR = "#"
_NO_SEPARATOR = "[^#]*"             # a placeholder's value between separators
_NO_SEPARATOR_LINE = "[^#\n]*"      # ... within one line of keys joined by line breaks
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT_TYPES = set("bcdoxXn")
_FLOAT_TYPES = set("eEfFgG%")
_FORMAT_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[+\- ])?z?#?(?P<zero>0)?(?P<width>\d+)?"
                          r"(?P<grouping>[,_])?(?:\.(?P<precision>\d+))?(?P<type>[a-zA-Z%])?\Z")


@dataclass(frozen=True)
class Placeholder:
    """One ``{name:fmt}`` of a template."""

    name: str
    fmt: str = ""

    @property
    def is_integer(self) -> bool:
        return bool(self.fmt) and self.fmt[-1] in _INT_TYPES

    @property
    def is_fixed_width(self) -> bool:
        """True when the format pads numbers to a width on the left (``03d``, ``>8``), so byte order
        is numeric order; a left-aligned or centred width (``<8``, ``^8``) is not."""
        m = _FORMAT_SPEC.match(self.fmt)
        return bool(m and m.group("width") and m.group("align") not in ("<", "^"))

    def format(self, value: Any, where: str = "") -> str:
        if not self.fmt:
            return _plain(value)
        try:
            return format(_coerce(value, self.fmt), self.fmt)
        except (ValueError, TypeError, InvalidOperation) as e:
            raise TemplateError(
                f"value {value!r} of {{{self.name}}} does not fit the format spec {self.fmt!r}",
                where=where, hint="fix the value in the source data or the format spec in the template", cause=e,
            ) from e

    def __str__(self) -> str:
        return "{" + self.name + (":" + self.fmt if self.fmt else "") + "}"


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        raise TypeError("floats are not allowed in keys")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8")
    return str(value)


def _coerce(value: Any, fmt: str) -> Any:
    kind = fmt[-1]
    if kind in _INT_TYPES:
        if isinstance(value, str):
            return int(value.strip())
        if isinstance(value, Decimal):
            if value != value.to_integral_value():
                raise ValueError("not an integer")
            return int(value)
        return value
    if kind in _FLOAT_TYPES:
        return Decimal(str(value).strip()) if isinstance(value, (str, int)) else value
    return _plain(value) if kind == "s" or not kind.isalpha() else value


def _check_format(field: str, fmt: str, text: str, where: str) -> None:
    """Refuse a format spec Python cannot apply (``03q``, ``+5s``) when the template is read, not at the
    first row: it is tried on the value 0 as a row would give it."""
    try:
        format(_coerce("0", fmt), fmt)
    except (ValueError, TypeError, InvalidOperation) as e:
        raise TemplateError(f"invalid format spec {fmt!r} in {{{field}:{fmt}}} of {text!r}: {e}", where=where,
                            hint="use a Python format spec such as 03d (zero-padded integer), >8 (right-aligned), "
                                 ".2f (two decimals), or none: {" + field + "}", cause=e) from e


class KeyTemplate:
    """A parsed key template; immutable (it only remembers the last key it split, as a cache)."""

    def __init__(self, text: str, where: str = ""):
        if not isinstance(text, str) or text == "":
            raise TemplateError(f"a key template must be a non-empty string, got {text!r}", where=where,
                                hint='write a template such as "EXPERT#{expert}" or a constant such as "META"')
        self.text = text
        self.where = where
        self.parts: tuple[str | Placeholder, ...] = tuple(self._split(text, where))
        self._last: tuple[str, Any] | None = None             # split's last key and its answer

    @staticmethod
    def _split(text: str, where: str):
        try:
            pieces = list(string.Formatter().parse(text))
        except ValueError as e:
            raise TemplateError(f"malformed key template {text!r}: {e}", where=where,
                                hint="placeholders look like {name} or {name:03d}; write {{ and }} for literal braces",
                                cause=e) from e
        for literal, field, fmt, conversion in pieces:
            if literal:
                yield literal
            if field is None:
                continue
            if conversion or not _IDENT.match(field):
                raise TemplateError(f"bad placeholder {{{field}{'!' + conversion if conversion else ''}}} in {text!r}",
                                    where=where, hint="a placeholder names one column: {name} or {name:fmt}")
            if fmt and "{" in fmt:
                raise TemplateError(f"nested placeholder in the format spec of {{{field}}} in {text!r}", where=where)
            if fmt:
                _check_format(field, fmt, text, where)
            yield Placeholder(field, fmt or "")

    # -- properties --------------------------------------------------------------------------
    @cached_property
    def placeholders(self) -> tuple[str, ...]:
        """Placeholder names in order of appearance, without repeats."""
        seen: dict[str, None] = {}
        for p in self.parts:
            if isinstance(p, Placeholder):
                seen.setdefault(p.name)
        return tuple(seen)

    @property
    def is_constant(self) -> bool:
        return not self.placeholders

    @cached_property
    def prefix(self) -> str:
        """The literal text before the first placeholder (the whole key for a constant)."""
        first = self.parts[0] if self.parts else ""
        return first if isinstance(first, str) else ""

    @cached_property
    def type_prefix(self) -> str:
        """``TYPE`` of ``TYPE#...``: the first separator-delimited segment when it is literal."""
        head = self.prefix.split(SEPARATOR, 1)[0]
        return head if (SEPARATOR in self.prefix or self.is_constant) else ""

    # -- render / parse ----------------------------------------------------------------------
    def render(self, row: Mapping[str, Any], where: str = "") -> str:
        """Row -> key. A missing or empty placeholder value is a TemplateError."""
        missing = self.missing(row)
        if missing:
            raise TemplateError(
                f"key template {self.text!r} needs {', '.join(missing)}, missing from the row",
                where=where or self.where, hint="add the column to the source data or change the template",
            )
        return "".join(p if isinstance(p, str) else p.format(row[p.name], where or self.where) for p in self.parts)

    def render_plain(self, row: Mapping[str, Any]) -> str | None:
        """:meth:`render` for the common row, where every placeholder holds a non-empty str and has no
        format spec (text read from CSV or JSON): the same key, faster. None for any other row; then
        :meth:`render` gives the key or the error."""
        if self._plain_parts is None:
            return None
        out = []
        for text, is_name in self._plain_parts:
            if is_name:
                text = row.get(text)
                if text.__class__ is not str or not text:
                    return None
            out.append(text)
        return "".join(out)

    @cached_property
    def _plain_parts(self) -> tuple[tuple[str, bool], ...] | None:
        """(literal text, False) and (placeholder name, True) in order; None when a placeholder has a format
        spec (no row renders plainly then)."""
        if any(not isinstance(p, str) and p.fmt for p in self.parts):
            return None
        return tuple((p, False) if isinstance(p, str) else (p.name, True) for p in self.parts)

    def render_optional(self, row: Mapping[str, Any], where: str = "") -> str | None:
        """Like :meth:`render`, but ``None`` when a placeholder has no value (sparse index keys)."""
        return None if self.missing(row) else self.render(row, where)

    def missing(self, row: Mapping[str, Any]) -> list[str]:
        return [n for n in self.placeholders if row.get(n) is None or row.get(n) == ""]

    @cached_property
    def _regex(self) -> re.Pattern:
        return self._pattern(clean=False)

    @cached_property
    def _clean(self) -> re.Pattern:
        return self._pattern(clean=True)

    @cached_property
    def _clean_lines(self) -> re.Pattern:
        return self._pattern(clean=True, lines=True)

    def _pattern(self, *, clean: bool, lines: bool = False) -> re.Pattern:
        """The key regex; ``clean``: every placeholder matches ``[^#]*``, so a key that matches holds the
        separator only in the template's literal text; ``lines``: that, for each line of a text."""
        out, groups, opened = [], {}, []
        for i, p in enumerate(self.parts):
            if isinstance(p, str):
                out.append(re.escape(p))
            elif p.name in groups:
                out.append(f"(?P={groups[p.name]})")
            else:
                groups[p.name] = f"g{len(groups)}"
                nxt = self.parts[i + 1] if i + 1 < len(self.parts) else None
                bounded = nxt is None or (isinstance(nxt, str) and nxt.startswith(SEPARATOR))
                if not bounded:
                    opened.append(p.name)
                body = (_NO_SEPARATOR_LINE if lines else _NO_SEPARATOR) if bounded or clean else ".*?"
                out.append(f"(?P<{groups[p.name]}>{body})")
        self._groups, self._open = groups, tuple(opened)
        if lines:
            return re.compile("^" + "".join(out) + "$", re.MULTILINE)
        return re.compile("".join(out) + r"\Z", re.DOTALL)

    @property
    def regex(self) -> re.Pattern:
        """The regex a key of this template matches (DOTALL, anchored at the end): each placeholder a group named
        ``g0``, ``g1``... in the order of :attr:`placeholders`, a repeated one a back-reference to its first."""
        return self._regex

    def parse(self, key: str) -> dict[str, str] | None:
        """Key -> placeholder values (as the strings in the key), or None when it does not match."""
        got = self.split(key)
        return None if got is None else dict(got[0])

    @cached_property
    def open_values(self) -> tuple[str, ...]:
        """The placeholders whose parsed value may hold the separator: those not followed by it (or by the
        end of the key). The others match ``[^#]*``, so a value of theirs never holds one."""
        self._regex                                          # noqa: B018 - builds self._open
        return self._open

    def split(self, key: str) -> tuple[dict[str, str], dict[str, int]] | None:
        """:meth:`parse`, and where each placeholder's value starts in the key (its first occurrence); None
        when the key does not match. The last key split is remembered, since the checks of one item split
        its key in turn: the dicts returned are shared, for reading only."""
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        m = self._regex.match(key)
        got = None if m is None else ({name: m.group(g) for name, g in self._groups.items()},
                                      {name: m.start(g) for name, g in self._groups.items()})
        self._last = (key, got)
        return got

    def round_trips(self, key: str) -> bool:
        """True when ``key`` parses and renders back to itself."""
        values = self.parse(key)
        if values is None:
            return False
        try:
            return self.render(values) == key
        except TemplateError:
            return False

    def values_at(self, key: str, names: list[str]) -> list[tuple[str, int]] | None:
        """For each of ``names``: its value in ``key`` and where that value starts (:meth:`split` for a few
        placeholders, without its dicts); None when the key does not match."""
        m = self._regex.match(key)
        if m is None:
            return None
        groups = self._groups
        return [(m.group(groups[n]), m.start(groups[n])) for n in names]

    def splits_cleanly(self, key: str) -> bool:
        """True when ``key`` parses and no placeholder value holds the separator: then every ``#`` of the key
        is one of the template's own (a match of :attr:`_clean`, a regex, no values built). False does not say
        the key fails: :meth:`split` tells."""
        return self._clean.match(key) is not None

    def all_split_cleanly(self, keys: list[str], found: list | None = None) -> bool:
        """:meth:`splits_cleanly` for every key of a list, in one pass of the regex over the keys joined by line
        breaks (a key that holds one is matched alone); ``found``: :meth:`lines_found` of the keys, if known."""
        found = self.lines_found(keys) if found is None else found
        if found is False:
            return all(self.splits_cleanly(k) for k in keys)
        return len(found) == len(keys)

    def lines_found(self, keys: list[str]) -> list | bool:
        """The matches of the clean regex in the keys joined by line breaks (False when a key holds a line break):
        what :meth:`all_split_cleanly` and :meth:`clean_values` read."""
        text = "\n".join(keys)
        return self._clean_lines.findall(text) if text.count("\n") == max(len(keys) - 1, 0) else False

    def clean_values(self, keys: list[str], names: list[str], found: list | None = None) -> list[list[str]] | None:
        """For each of ``names``: its value in every key, in one regex pass over the keys joined by line breaks;
        None unless every key splits cleanly (:meth:`all_split_cleanly`: then these are :meth:`values_at`'s);
        ``found``: :meth:`lines_found` of the keys, if known."""
        found = self.lines_found(keys) if found is None else found
        if found is False or len(found) != len(keys):
            return None
        rx = self._clean_lines
        if rx.groups == 1:
            return [found for _ in names]
        return [list(map(itemgetter(rx.groupindex[self._groups[n]] - 1), found)) for n in names]

    def clean_starts(self, found: list, name: str) -> list[int]:
        """Where ``name``'s value starts in each key of :meth:`lines_found` (keys that all split cleanly): the
        template's text before it and the values of the placeholders before it, by their lengths."""
        fixed, before = 0, []
        for p in self.parts:
            if isinstance(p, str):
                fixed += len(p)
            elif p.name == name:
                break
            else:
                before.append(self._clean_lines.groupindex[self._groups[p.name]] - 1)
        lengths = [map(len, map(itemgetter(g), found)) for g in before]
        if not lengths:
            return [fixed] * len(found)
        return list(map(fixed.__add__, lengths[0] if len(lengths) == 1 else map(sum, zip(*lengths))))

    def matches(self, key: str) -> bool:
        return self._regex.match(key) is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyTemplate) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"KeyTemplate({self.text!r})"

    def __str__(self) -> str:
        return self.text
