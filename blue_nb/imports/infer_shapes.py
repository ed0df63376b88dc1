"""Key shapes for spec inference: counters over the parts of key values, and the key templates
they suggest.

A key value such as ``PERSP#0#muffin#1`` is split at its separator into parts: ``#``, or the one of
:data:`SEPARATORS` the values use (:func:`key_separator` for many values, :func:`value_separator` for
one: ``User:UserA``, ``ORDER|2024|17``, ``a/b/c``, ``cust_12``). For each key attribute of
an entity, :class:`KeyStats` counts the part counts seen and, per position, a :class:`PartStats`:
how many values were digits, zero-padded and of which width, whether the part was always the
same, a bounded sample of distinct values, and which attributes of the same item held the same
text. :func:`decide_shape` turns those counters into a :class:`KeyShape` (a constant, one whole
value, or a literal prefix plus placeholders) whose placeholder names are chosen later by the
inferrer. Everything here is counters: memory does not grow with the number of items.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CONST_RE", "KeyShape", "KeyStats", "PartStats", "SAMPLE_VALUES", "SEP", "SEPARATORS", "TAG_RE", "Slot",
           "decide_shape", "identifier", "key_separator", "shape_text", "template_text", "value_separator"]

SEP = "#"
TAG_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}\Z")      # a type prefix: PERSP, user, v2.order
CONST_RE = re.compile(r"[A-Z][A-Z0-9_]{0,63}\Z")             # a whole constant key: META, PROFILE
SAMPLE_VALUES = 1000          # distinct values kept per key part (to name it after another entity's key)
MAX_SHAPES = 8                # distinct part counts tracked per key attribute
NEARLY_ALL = 0.95             # a part "equals an attribute" when it does in this share of the items
SEPARATORS = ("#", ":", "|", "/", "_")        # what key values use between their parts, in order of preference


def key_separator(values: list[str]) -> str:
    """The separator key values use between their parts (``USER#1``, ``User:UserA``, ``org|7``): ``#`` when
    any value holds it, else the one of :data:`SEPARATORS` after a type-like head in most values."""
    if not values or any("#" in v for v in values):
        return "#"
    best, hits = "#", 0
    for sep in SEPARATORS[1:]:
        n = sum(1 for v in values if sep in v and TAG_RE.match(v.split(sep, 1)[0]))
        if n > hits and n * 2 >= len(values):
            best, hits = sep, n
    return best


def value_separator(value: str, preferred: str = SEP) -> str | None:
    """The separator of one key value: ``preferred`` (the attribute's, :func:`key_separator`) when the value
    holds it; else ``#``, ``:``, ``|`` or ``/`` after a type-like head (``ORDER|2024|17`` -> ``|``), so that
    one attribute may hold values of several separators; None when it has no parts. ``_`` is a separator only
    as an attribute's (most of its values ``cust_12``): alone it is as often part of a name (``META_DATA``)."""
    if preferred in value:
        return preferred
    for sep in SEPARATORS[:-1]:
        if sep in value and (sep == SEP or TAG_RE.match(value.split(sep, 1)[0])):
            return sep
    return None


def template_text(value: Any) -> str | None:
    """The text of one key value as a key template renders it (str as is, numbers in DynamoDB's text);
    None for binary. (An item's whole key as one text, its identity, is :func:`~.infer_keys.canonical_key`.)"""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return None
    return str(value)


def identifier(text: str, fallback: str = "value") -> str:
    """A placeholder name from free text: ``user-id`` -> ``user_id``, ``2fa`` -> ``p_2fa``."""
    name = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_").lower()
    if not name:
        return fallback
    return name if re.match(r"[A-Za-z_]", name) else f"p_{name}"


class PartStats:
    """Counters over one position of a key's parts."""

    __slots__ = ("n", "digits", "padded", "widths", "empty", "first", "constant", "values", "overflow", "matches")

    def __init__(self) -> None:
        self.n = self.digits = self.padded = self.empty = 0
        self.widths: Counter[int] = Counter()
        self.first: str | None = None
        self.constant = True
        self.values: set[str] = set()
        self.overflow = False
        self.matches: Counter[str] = Counter()

    def add(self, text: str, by_text: dict[str, list[str]]) -> None:
        self.n += 1
        if self.first is None:
            self.first = text
        elif text != self.first:
            self.constant = False
        if not text:
            self.empty += 1
        elif text.isascii() and text.isdigit():
            self.digits += 1
            if len(text) > 1 and text[0] == "0":
                self.padded += 1
            if len(self.widths) < 64:
                self.widths[len(text)] += 1
        if not self.overflow:
            self.values.add(text)
            if len(self.values) > SAMPLE_VALUES:
                self.overflow = True
                self.values = set()
        for name in by_text.get(text, ()):
            self.matches[name] += 1

    @property
    def all_digits(self) -> bool:
        return self.n > 0 and self.digits == self.n

    @property
    def fixed_width(self) -> int | None:
        """The width of zero-padded numbers when (nearly) every value is digits of one width and some
        start with 0; the few others then do not fit the template (and go to the catch-all entity)."""
        if not self.padded or not self.widths:
            return None
        width, hits = self.widths.most_common(1)[0]
        return width if hits >= NEARLY_ALL * self.n and width > 1 else None

    def kind(self) -> str:
        return "<int>" if self.all_digits else "<text>"


class KeyStats:
    """Counters over one key attribute's values within one entity, split at ``sep``."""

    def __init__(self, sep: str = SEP) -> None:
        self.sep = sep
        self.present = 0
        self.types: Counter[str] = Counter()
        self.counts: Counter[int] = Counter()
        self.parts: dict[int, list[PartStats]] = {}
        self.whole = PartStats()            # the value as one part (for keys that are not split)

    def add(self, value: Any, by_text: dict[str, list[str]]) -> None:
        self.present += 1
        tag = "S" if isinstance(value, str) else "B" if isinstance(value, bytes) else "N"
        self.types[tag] += 1
        text = template_text(value)
        if text is None:
            return
        self.whole.add(text, by_text)
        if tag != "S":
            return
        parts = text.split(self.sep)
        stats = self.parts.get(len(parts))
        if stats is None:
            if len(self.parts) >= MAX_SHAPES:
                return
            stats = self.parts[len(parts)] = [PartStats() for _ in parts]
        self.counts[len(parts)] += 1
        for part, st in zip(parts, stats):
            st.add(part, by_text)

    @property
    def key_type(self) -> str:
        return self.types.most_common(1)[0][0] if self.types else "S"


@dataclass
class Slot:
    """One placeholder of a shape: its position, stats, the name chosen and why."""

    position: int
    stats: PartStats
    name: str = ""
    fmt: str = ""
    why: str = ""
    from_attribute: bool = False


@dataclass
class KeyShape:
    """How one key attribute's values are built: ``const`` (one literal value), ``whole`` (one
    placeholder holding the whole value) or ``parts`` (literal parts and placeholders joined by ``sep``)."""

    kind: str
    count: int                                   # items whose value has this shape
    present: int                                 # items that have the attribute at all
    literal: dict[int, str] = field(default_factory=dict)     # position -> literal part
    slots: list[Slot] = field(default_factory=list)
    const: str | None = None
    width: int = 1                               # number of parts
    sep: str = SEP                               # what joins the parts

    def template(self) -> str:
        if self.kind == "const":
            return self.const or ""
        out = []
        slots = {s.position: s for s in self.slots}
        for i in range(self.width):
            if i in self.literal:
                out.append(self.literal[i].replace("{", "{{").replace("}", "}}"))
            else:
                s = slots[i]
                out.append("{" + s.name + (":" + s.fmt if s.fmt else "") + "}")
        return self.sep.join(out)


def decide_shape(stats: KeyStats, *, tag: str | None = None, const_ok: bool = False,
                 literal_head: bool = True) -> KeyShape:
    """The shape that fits most values: ``tag`` is a known literal first part (the entity's sort-key
    prefix); ``const_ok`` lets a value that never changes (and looks like META) be a constant;
    ``literal_head`` lets a first part that never changes and looks like a type tag be literal."""
    if stats.key_type != "S" or not stats.counts:
        return KeyShape("whole", stats.whole.n, stats.present, slots=[Slot(0, stats.whole)])
    width, count = stats.counts.most_common(1)[0]
    parts = stats.parts[width]
    if width == 1:
        only = parts[0]
        if const_ok and only.constant and count == stats.present and only.first and CONST_RE.match(only.first):
            return KeyShape("const", count, stats.present, const=only.first)
        return KeyShape("whole", count, stats.present, slots=[Slot(0, only)])
    literal: dict[int, str] = {}
    head = parts[0]
    if tag is not None and head.constant and head.first == tag:
        literal[0] = tag
    elif literal_head and head.constant and head.first and TAG_RE.match(head.first) and not head.all_digits:
        literal[0] = head.first
    slots = [Slot(i, p) for i, p in enumerate(parts) if i not in literal]
    for s in slots:
        w = s.stats.fixed_width
        if w:
            s.fmt = f"0{w}d"
    return KeyShape("parts", count, stats.present, literal=literal, slots=slots, width=width, sep=stats.sep)


def shape_text(shape: KeyShape) -> str:
    """``PERSP#<int>#<text>#<int>``: how the values looked, for the ``inferred`` notes."""
    if shape.kind == "const":
        return shape.const or ""
    slots = {s.position: s for s in shape.slots}
    return shape.sep.join(shape.literal[i] if i in shape.literal else slots[i].stats.kind()
                          for i in range(shape.width))
