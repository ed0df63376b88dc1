"""The draws of a spec's ``generate:`` section: distributions (counts, lengths, sizes) and the
value of one column (sequences, UUIDs, timestamps, enums, names, cardinalities, text, numbers,
binary, sets, lists, maps), each compiled once from its declaration and drawn from one
``random.Random``, so the same seed gives the same rows.

A declaration that cannot be drawn (two kinds at once, a low above its high, an enum for a
number, weights that are all 0) is a :class:`~blue_nb.errors.SpecError` naming its spec path.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import uuid
from datetime import datetime, timezone
from typing import Any, Callable

from blue_nb.errors import SpecError
from blue_nb.samples.text import END_TS, TextPool, iso_utc

__all__ = ["Distribution", "FieldDraw", "compile_distribution", "compile_field", "DIST_KINDS", "FIELD_KINDS",
           "TextSource", "looks_like_time"]

DIST_KINDS = ("fixed", "uniform", "zipf", "lognormal", "weights", "mix")
FIELD_KINDS = ("seq", "uuid", "timestamp", "enum", "name", "cardinality", "value", "dist", "ref")
_ZIPF_DEFAULT_MAX = 1000
_SPREAD = 120 * 86_400                     # where a parent's first timestamp falls, after the start
_START_TS = END_TS - 182 * 86_400            # 2025-12-01: six months before the samples' fixed "now"

_WORDS = """amber apple atlas aurora badger basil beacon birch bolt brook cedar cinder clover cobalt comet
coral dune ember falcon fern flint forge frost garnet glade harbor hazel heron indigo iris ivory jade juniper
kestrel lark lattice lumen maple meadow mesa moss nectar nova oak onyx opal orbit otter pebble pine prairie
quartz quill raven reed ridge river sage slate sparrow spruce summit thistle tide topaz tundra vale willow
wren yarrow zephyr""".split()
_LABEL_SUFFIXES = ("status", "state", "type", "kind", "role", "tier", "category", "level")
_NON_ASCII = ("café", "東京", "münchen", "são-paulo", "zürich", "kraków", "malmö", "서울", "niño", "ørsted")


def _fail(path: str, message: str, hint: str) -> SpecError:
    return SpecError(message, where=path, hint=hint)


class Distribution:
    """A compiled count/length distribution: ``draw(rng)`` gives a whole number; ``mean`` and
    ``low`` (the smallest possible draw) plan the scale."""

    def __init__(self, draw: Callable[[random.Random], float], mean: float, low: float,
                 lo: float | None = None, hi: float | None = None, first: float | list | None = None):
        self._draw, self._lo, self._hi = draw, lo, hi
        self._first = [] if first is None else list(first) if isinstance(first, list) else [first]
        self._first.reverse()                       # popped from the end, in the declared order
        self.low = max(low, lo or 0)
        self.mean = min(max(mean, self.low), hi if hi is not None else math.inf)
        self.first_extra = sum(f - self.mean for f in self._first)   # what the first draws add to the mean

    def drop_first(self) -> None:
        """Forget the first draws (a sample too small for its deliberate outlier)."""
        self._first, self.first_extra = [], 0.0

    def draw(self, rng: random.Random) -> int:
        if self._first:
            return int(self._first.pop())
        x = self._draw(rng)
        if self._lo is not None and x < self._lo:
            x = self._lo
        if self._hi is not None and x > self._hi:
            x = self._hi
        return int(round(x))


def _one_kind(decl: dict, kinds: tuple[str, ...], path: str, what: str) -> str | None:
    given = [k for k in kinds if k in decl]
    if len(given) > 1:
        raise _fail(path, f"{what} declares {' and '.join(given)}: give one", f"keep one of: {', '.join(given)}")
    return given[0] if given else None


def _zipf_table(a: float, n: int) -> list[float]:
    return list(itertools.accumulate(1.0 / k ** a for k in range(1, n + 1)))


def compile_distribution(decl: dict, path: str) -> Distribution:
    """A distribution declaration (``{fixed: 3}``, ``{uniform: [1, 9]}``, ``{zipf: 1.2, max: 5000}``,
    ``{lognormal: [400, 1.1]}``, ``{weights: [0, 5, 2]}``, ``{mix: [...]}``) compiled."""
    kind = _one_kind(decl, DIST_KINDS, path, "the distribution")
    lo, hi, first = decl.get("min"), decl.get("max"), decl.get("first")
    if lo is not None and hi is not None and lo > hi:
        raise _fail(f"{path}.min", f"min {lo:g} is above max {hi:g}", "swap them")
    if kind is None:
        if first is None or isinstance(first, list) and not first:
            raise _fail(path, "the distribution has no kind", f"give one of: {', '.join(DIST_KINDS)}")
        kind, decl = "fixed", {**decl, "fixed": first[-1] if isinstance(first, list) else first}
    if kind == "fixed":
        v = decl["fixed"]
        return Distribution(lambda rng: v, v, v, lo, hi, first)
    if kind == "uniform":
        a, b = decl["uniform"]
        if a > b:
            raise _fail(f"{path}.uniform", f"uniform [{a:g}, {b:g}]: the low is above the high", "write [low, high]")
        ia, ib = math.ceil(a), math.floor(b)
        return Distribution(lambda rng: rng.randint(ia, ib) if ia <= ib else a, (a + b) / 2, a, lo, hi, first)
    if kind == "zipf":
        n = int(hi if hi is not None else _ZIPF_DEFAULT_MAX)
        if n < 1:
            raise _fail(f"{path}.max", "a Zipf draw needs max >= 1", "e.g. {zipf: 1.2, max: 5000}")
        table = _zipf_table(decl["zipf"], n)
        total = table[-1]
        mean = sum(k ** (1 - decl["zipf"]) for k in range(1, n + 1)) / total

        def zipf(rng: random.Random) -> float:
            return bisect.bisect_left(table, rng.random() * total) + 1
        return Distribution(zipf, mean, 1, lo, hi, first)
    if kind == "lognormal":
        median, sigma = decl["lognormal"]
        return Distribution(lambda rng: median * rng.lognormvariate(0.0, sigma),
                            median * math.exp(sigma * sigma / 2), 0, lo, hi, first)
    if kind == "weights":
        w = decl["weights"]
        if sum(w) <= 0:
            raise _fail(f"{path}.weights", "every weight is 0: nothing can be drawn", "give one weight above 0")
        cum = list(itertools.accumulate(w))
        values = range(len(w))
        low = next(i for i, x in enumerate(w) if x > 0)
        return Distribution(lambda rng: rng.choices(values, cum_weights=cum)[0],
                            sum(i * x for i, x in enumerate(w)) / cum[-1], low, lo, hi, first)
    parts = [compile_distribution({k: v for k, v in p.items() if k != "weight"}, f"{path}.mix[{i}]")
             for i, p in enumerate(decl["mix"])]
    weights = [p["weight"] for p in decl["mix"]]
    if sum(weights) <= 0:
        raise _fail(f"{path}.mix", "every component has weight 0", "give one component a weight above 0")
    cum = list(itertools.accumulate(weights))
    mean = sum(w * p.mean for w, p in zip(weights, parts)) / cum[-1]
    low = min(p.low for w, p in zip(weights, parts) if w > 0)
    return Distribution(lambda rng: rng.choices(parts, cum_weights=cum)[0].draw(rng), mean, low, lo, hi, first)


class TextSource:
    """Mixed-Unicode prose (the samples' word pools) cut to any length fast: one long corpus,
    sliced at a random offset."""

    def __init__(self, rng: random.Random):
        self.rng_for_names = random.Random(rng.random())      # name lists: shuffled once per run
        pool = TextPool(rng)
        self.corpus = "".join(s + ("\n\n" if k % 7 == 6 else " ") for k, s in enumerate(pool.sentences))
        self.words = sorted({w.strip(".,!?…:;()'\"") for s in pool.sentences[:400] for w in s.split()} - {""})

    def text(self, rng: random.Random, n: int) -> str:
        """About ``n`` bytes of text (UTF-8; never more, a character cut short is dropped)."""
        corpus = self.corpus
        size = len(corpus)
        if n <= 0:
            return ""
        if n >= size:
            piece = (corpus * (n // size + 1))[:n]
        else:
            start = rng.randrange(0, size - n)
            space = corpus.find(" ", start, start + 40)      # start on a word, where one starts nearby
            start = space + 1 if 0 <= space < size - n else start
            piece = corpus[start:start + n]
        if not piece.isascii():
            piece = piece.encode("utf-8")[:n].decode("utf-8", "ignore")
        return piece.rstrip() or "x"


# ------------------------------------------------------------------------------------------ fields

class FieldDraw:
    """How one column is drawn: ``draw(rng, i, state)`` with ``i`` the row's index among its
    siblings (under one parent item) and ``state`` a dict kept across those siblings.

    ``unique`` is true when the draws under one parent never repeat (sequences, UUIDs, increasing
    timestamps), so a key ending in this column needs no check for duplicates."""

    def __init__(self, fn: Callable[[random.Random, int, dict], Any], *, unique: bool = False,
                 present: float = 1.0, first: list | None = None):
        self._fn, self.unique, self.present = fn, unique, present
        self._first = list(first or [])

    def draw(self, rng: random.Random, i: int, state: dict) -> Any:
        if self._first:
            return self._first.pop(0)
        if self.present < 1.0 and rng.random() >= self.present:
            return None
        return self._fn(rng, i, state)


def _parse_ts(text: str, path: str) -> int:
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as e:
        raise _fail(path, f"{text!r} is not an ISO 8601 time", 'e.g. "2026-01-01T00:00:00Z"') from e
    return int((dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp())


def _names(rng: random.Random, unicode_share: float) -> Callable[[random.Random, int, dict], str]:
    """Readable slugs, distinct under one parent by construction: the ``i``-th is two words picked by
    ``i`` from shuffled lists (a share of the first words in other scripts), then a number once the
    pairs run out."""
    heads = list(_WORDS)
    k = min(len(heads) - 1, round(unicode_share * len(heads)))
    heads[:k] = [_NON_ASCII[j % len(_NON_ASCII)] + ("" if j < len(_NON_ASCII) else f"{j}") for j in range(k)]
    rng.shuffle(heads)
    tails = list(_WORDS)
    rng.shuffle(tails)
    nh, nt = len(heads), len(tails)

    def name(r: random.Random, i: int, st: dict) -> str:
        n = i // (nh * nt)
        base = f"{heads[i % nh]}-{tails[(i // nh) % nt]}"
        return f"{base}-{n}" if n else base
    return name


def _cardinality(n: int, skew: float, stem: str, numeric: bool) -> Callable[[random.Random, int, dict], Any]:
    cum = _zipf_table(skew, n) if skew > 0 else None
    values = list(range(n)) if numeric else [f"{stem}-{k:0{len(str(n - 1))}d}" for k in range(n)]
    if cum is None:
        return lambda rng, i, st: values[rng.randrange(n)]
    return lambda rng, i, st: values[bisect.bisect_left(cum, rng.random() * cum[-1])]


def looks_like_time(name: str) -> bool:
    """A column whose name says it holds a time (``created_at``, ``ts``): drawn as a timestamp by default."""
    return name.endswith(("_at", "_time", "_date", "_ts")) or name in ("ts", "time", "date", "timestamp")


def compile_field(decl: dict, *, name: str, dtype: str, numeric_key: bool, path: str,
                  text: TextSource, refs: dict[str, list] | None = None) -> FieldDraw:
    """The draw of column ``name`` of declared type ``dtype`` (an attribute type, or ``"key"`` for a
    key-only column; ``numeric_key``: the template formats it as an integer, or the key type is N)."""
    kind = _one_kind(decl, FIELD_KINDS, path, f"column {name!r}")
    number = dtype == "N" or (dtype == "key" and numeric_key)
    present = decl.get("present", 1.0)
    if present > 1:
        raise _fail(f"{path}.present", f"present {present:g} is above 1", "a share: 0.8 means 80% of the items")
    if dtype == "key" and present < 1:
        raise _fail(f"{path}.present", f"{name!r} is in a key template, so every item needs it",
                    "remove present, or take the column out of the key")
    lo, hi = decl.get("min"), decl.get("max")
    if lo is not None and hi is not None and lo > hi:
        raise _fail(f"{path}.min", f"min {lo:g} is above max {hi:g}", "swap them")
    stem = name[:-3] if name.endswith("_id") else name
    fn: Callable[[random.Random, int, dict], Any]
    unique = False
    if kind == "value":
        v = decl["value"]
        fn = lambda rng, i, st: v  # noqa: E731
    elif kind == "seq":
        s = decl["seq"]
        start, width, prefix = s.get("start", 1), s.get("width", 0), s.get("prefix", "")
        if number and not prefix:
            fn = lambda rng, i, st: start + i  # noqa: E731
        else:
            fn = lambda rng, i, st: f"{prefix}{start + i:0{width}d}"  # noqa: E731
        unique = True
    elif kind == "uuid":
        if number:
            raise _fail(f"{path}.uuid", f"{name!r} is a number: a UUID is text", "use seq for numbers")
        fn = lambda rng, i, st: str(uuid.UUID(int=rng.getrandbits(128), version=4))  # noqa: E731
        unique = True
    elif kind == "timestamp":
        t = decl["timestamp"]
        start = _parse_ts(t["start"], f"{path}.timestamp.start") if "start" in t else _START_TS
        per_day = t.get("per_day", 24)
        if per_day <= 0:
            raise _fail(f"{path}.timestamp.per_day", "a rate of 0 never moves the clock", "give events per day > 0")
        epoch = t.get("format", "epoch" if number else "iso") == "epoch"
        if not epoch and number:
            raise _fail(f"{path}.timestamp.format", f"{name!r} is a number: ISO text does not fit", "use format: epoch")
        gap = 86_400.0 / per_day

        def stamp(rng: random.Random, i: int, st: dict) -> Any:
            ts = st.get("ts")
            ts = (start + int(rng.random() * _SPREAD) if ts is None    # each parent's run starts somewhere
                  else ts + 1 + int(rng.expovariate(1.0 / gap)))       # in the first 120 days, then goes up
            st["ts"] = ts
            return ts if epoch else iso_utc(ts)
        fn, unique = stamp, True
    elif kind == "enum":
        labels = decl["enum"]
        if number:
            raise _fail(f"{path}.enum", f"{name!r} is a number ({dtype}): an enum draws text labels",
                        "use min/max for numbers, or declare the attribute S")
        if dtype not in ("S", "key"):
            raise _fail(f"{path}.enum", f"{name!r} is of type {dtype}: an enum draws text labels", "declare it S")
        if sum(labels.values()) <= 0:
            raise _fail(f"{path}.enum", "every weight is 0: nothing can be drawn", "give one label a weight above 0")
        if dtype == "key" and any("#" in lab or lab == "" for lab in labels):
            raise _fail(f"{path}.enum", "a key value may not be empty or hold '#'", "rename the label")
        values, cum = list(labels), list(itertools.accumulate(labels.values()))
        fn = lambda rng, i, st: rng.choices(values, cum_weights=cum)[0]  # noqa: E731
    elif kind == "name":
        fn, unique = _names(text.rng_for_names, decl["name"].get("unicode", 0.02)), True
    elif kind == "cardinality":
        fn = _cardinality(decl["cardinality"], decl.get("skew", 0.0), stem, number)
    elif kind == "dist":
        d = compile_distribution(decl["dist"], f"{path}.dist")
        fn = lambda rng, i, st: d.draw(rng)  # noqa: E731
    elif kind == "ref":
        if refs is None or decl["ref"] not in refs:
            raise _fail(f"{path}.ref", f"{decl['ref']!r} names no column of an entity",
                        "write Entity.column, e.g. Document.doc_number")
        pool = refs[decl["ref"]]
        fn = lambda rng, i, st: pool[rng.randrange(len(pool))] if pool else None  # noqa: E731
    else:
        fn = _default(decl, name=name, dtype=dtype, number=number, path=path, text=text)
    return FieldDraw(fn, unique=unique, present=present, first=decl.get("first"))


def _default(decl: dict, *, name: str, dtype: str, number: bool, path: str,
             text: TextSource) -> Callable[[random.Random, int, dict], Any]:
    """A column with no kind: drawn by its type (and, for text, a length distribution)."""
    lo, hi = decl.get("min"), decl.get("max")
    if number:
        a, b = (lo if lo is not None else 0), (hi if hi is not None else 1000)
        places = decl.get("decimals", 0)
        if places == 0:
            ia, ib = math.ceil(a), math.floor(b)
            return lambda rng, i, st: rng.randint(ia, ib)
        return lambda rng, i, st: round(rng.uniform(a, b), places)
    if looks_like_time(name):
        return compile_field({"timestamp": {}}, name=name, dtype=dtype, numeric_key=False, path=path,
                             text=text)._fn
    if dtype == "key":
        return _cardinality(8, 0.0, name[:-3] if name.endswith("_id") else name, False)
    if dtype == "S" and "length" not in decl and name.endswith(_LABEL_SUFFIXES):
        return _cardinality(4, 1.0, name, False)     # status, type, role ...: a few labels, skewed
    length = compile_distribution(decl["length"], f"{path}.length") if "length" in decl else None
    size = compile_distribution(decl["size"], f"{path}.size") if "size" in decl else None
    if dtype == "S":
        length = length or Distribution(lambda rng: 24 * rng.lognormvariate(0.0, 0.7), 30, 1, 1, 2000)
        return lambda rng, i, st: text.text(rng, max(1, length.draw(rng)))
    if dtype == "B":
        length = length or Distribution(lambda rng: rng.randint(8, 64), 36, 8)
        return lambda rng, i, st: rng.randbytes(max(1, length.draw(rng)))
    if dtype == "BOOL":
        return lambda rng, i, st: rng.random() < 0.5
    if dtype == "NULL":
        return lambda rng, i, st: True
    size = size or Distribution(lambda rng: rng.randint(1, 4), 2.5, 1)
    words = text.words
    if "members" in decl:
        if dtype not in ("SS", "L"):
            raise _fail(f"{path}.members", f"{name!r} is of type {dtype}: members are text labels", "use it on SS or L")
        labels, weights = list(decl["members"]), list(decl["members"].values())
        if sum(weights) <= 0:
            raise _fail(f"{path}.members", "every weight is 0: nothing can be drawn", "give one a weight above 0")

        def members(rng: random.Random, i: int, st: dict) -> Any:
            k = max(1, size.draw(rng))
            drawn = rng.choices(labels, weights, k=k)
            return set(drawn) if dtype == "SS" else drawn
        return members
    if dtype == "SS":
        return lambda rng, i, st: set(rng.sample(words, min(len(words), max(1, size.draw(rng)))))
    if dtype == "NS":
        return lambda rng, i, st: set(rng.sample(range(1_000_000), max(1, size.draw(rng))))
    if dtype == "BS":
        return lambda rng, i, st: {rng.randbytes(8) for _ in range(max(1, size.draw(rng)))}
    if dtype == "L":
        return lambda rng, i, st: [rng.choice(words) if rng.random() < 0.7 else rng.randint(0, 999)
                                   for _ in range(size.draw(rng))]
    if dtype == "M":
        return lambda rng, i, st: {w: rng.randint(0, 999) if rng.random() < 0.5 else rng.choice(words)
                                   for w in rng.sample(words, min(len(words), size.draw(rng)))}
    raise _fail(path, f"no default draw for type {dtype!r}", "declare how to draw it")
