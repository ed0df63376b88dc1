"""Key template checks on the spec alone: prefixes that match other keys, numbers whose byte
order is not their number order, placeholders that cannot be parsed back, constant keys over the
size limits. The item checks in :mod:`.data_keys` and :mod:`.data_rules` confirm them with
evidence (and replace them) when data is given."""

from __future__ import annotations

import re
from typing import Iterable

from blue_nb.rules.findings import Finding
from blue_nb.rules.keyspace import can_start_with, pattern_where
from blue_nb.rules.registry import Context, define, spec_check
from blue_nb.sizing import PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES
from blue_nb.spec import SEPARATOR, KeyTemplate, Placeholder

__all__ = ["NUMERIC_NAME", "begins_with_tail", "fixed_template", "open_prefix_hint", "probe_finding",
           "sort_key_placeholders",
           "suggested_width"]

PREFIX = define("KEY-PREFIX-COLLISION", "error",
                "a begins_with prefix or an entity's constant prefix also matches keys it should not (T1 -> T10)")
SORT = define("KEY-SORT-ORDER", "error",
              "a number in a sort key is not fixed width, so byte order differs from number order (PERSP#10 < PERSP#2)")
SEPARATOR_RULE = define("KEY-SEPARATOR-IN-VALUE", "error",
                        "placeholder values contain the separator #, or the template cannot be split back into values")
KEY_SIZE = define("KEY-SIZE", "error", "a partition key value over 2048 bytes or a sort key value over 1024 bytes")

NUMERIC_NAME = re.compile(r"(?:^|_)(?:round|seq|sequence|ts|timestamp|epoch|time|number|num|no|count|version|ver|rev|"
                          r"revision|idx|index|order|position|pos|rank|page|line|step|n)$", re.IGNORECASE)
_NUMBER_FORMATS = set("bdoxXnfFeEgG%")
_EPOCH_NAME = re.compile(r"(?:^|_)(?:ts|timestamp|epoch|time)$", re.IGNORECASE)


def sort_key_placeholders(t: KeyTemplate) -> list[Placeholder]:
    """The placeholders of a sort key template whose format does not pad to a width."""
    seen, out = set(), []
    for p in t.parts:
        if isinstance(p, Placeholder) and p.name not in seen and not p.is_fixed_width:
            seen.add(p.name)
            out.append(p)
    return out


def fixed_template(t: KeyTemplate, widths: dict[str, int]) -> str:
    """The template with the named placeholders zero-padded: PERSP#{round:03d}#{expert}#{seq:03d}."""
    return "".join(_padded(p, widths[p.name]) if isinstance(p, Placeholder) and p.name in widths
                   else str(p) for p in t.parts)


def _padded(p: Placeholder, width: int) -> str:
    """``{round:03d}``; a float format keeps its precision and type: ``{score:010.3f}``."""
    m = re.search(r"\.(\d+)([a-zA-Z%])\Z", p.fmt)
    return f"{{{p.name}:0{width}.{m.group(1)}{m.group(2)}}}" if m else f"{{{p.name}:0{width}d}}"


def suggested_width(name: str, longest: int) -> int:
    """Epoch seconds get 10 digits; other numbers one digit of headroom over the longest seen."""
    return max(10, longest) if _EPOCH_NAME.search(name) else longest + 1


def begins_with_tail(t: KeyTemplate) -> Placeholder | None:
    """The placeholder a begins_with template ends with, when it is not fixed width (T1 matches T10)."""
    last = t.parts[-1] if t.parts else None
    return last if isinstance(last, Placeholder) and not last.is_fixed_width else None


# -- KEY-PREFIX-COLLISION ------------------------------------------------------------------------
@spec_check("KEY-PREFIX-COLLISION")
def prefixes_do_not_collide(ctx: Context) -> Iterable[Finding]:
    yield from _open_ended_begins_with(ctx)
    for probe in ctx.layout.probes():
        yield probe_finding(ctx, probe)


def _open_ended_begins_with(ctx: Context) -> Iterable[Finding]:
    for i, p in enumerate(ctx.spec.access_patterns):
        kc = p.key_condition
        if not kc or kc.sk_op != "sk_begins_with" or not isinstance(kc.sk_value, str):
            continue
        t = KeyTemplate(kc.sk_value)
        tail = begins_with_tail(t)
        if tail is None:
            continue
        yield PREFIX.finding(
            pattern_where(i, p, "sk_begins_with"),
            f"{p.name}: begins_with {t.text!r} ends with {tail}, so it also matches every {tail.name} that starts "
            f"with the one asked for (T1 also returns T10, T11, ...; ann also returns anna)",
            hint=open_prefix_hint(ctx, p, t), severity="warning")


def open_prefix_hint(ctx: Context, p, t: KeyTemplate) -> str:
    """End the prefix with the separator, unless the keys end right after it: then use equality."""
    space = ctx.layout.space(p.index)
    closed = KeyTemplate(t.text + SEPARATOR)
    ends = [n for n in p.entities if n in ctx.spec.entities and space.sk_attr in ctx.spec.entities[n].key
            and not can_start_with(ctx.spec.entities[n].templates[space.sk_attr], closed)]
    if ends:
        return (f"{', '.join(ends)} keys end with {t.parts[-1]}: look them up with sk equality "
                f"(sk: {t.text!r}) instead of begins_with")
    return f"end the prefix with the separator: {closed.text!r}"


def probe_finding(ctx: Context, probe, count: int = 0, evidence: Iterable[str] = ()) -> Finding:
    """The finding of a prefix probe; with ``count`` (items seen matching it) when data was given."""
    targets = ", ".join(sorted(probe.targets))
    examples = "; ".join(f"{n}: {ctx.spec.entities[n].key[probe.space.sk_attr]!r}" for n in sorted(probe.targets))
    ends_open = not probe.prefix.endswith(SEPARATOR)
    if probe.where.startswith("access_patterns"):
        hint = (f"end the prefix with the separator ({probe.prefix + SEPARATOR!r})" if ends_open
                else "make the prefix longer so only the intended entities match, or list them in entities")
        severity = None
    else:
        hint = ("end the TYPE with the separator so one type is never the start of another (EXPERT# vs EXPERTISE#)"
                if ends_open else "give the entities distinct TYPE prefixes, or list both in the patterns that "
                "read this prefix if they are one item collection")
        severity = None if ends_open else "warning"
    seen = f"; {count:,} such item{'s' if count != 1 else ''} in the data" if count else ""
    return PREFIX.finding(probe.where, f"{probe.owner} also matches {targets} keys ({examples}){seen}",
                          hint=hint, severity=severity, evidence=evidence)


# -- KEY-SORT-ORDER (without data; the item check decides when data is given) --------------------
@spec_check("KEY-SORT-ORDER")
def numbers_sort_as_numbers(ctx: Context) -> Iterable[Finding]:
    if ctx.with_data:
        return
    for space, e, t, where in ctx.layout.sort_key_templates():
        ints = [p for p in sort_key_placeholders(t) if p.fmt and p.fmt[-1] in _NUMBER_FORMATS]
        named = [p for p in sort_key_placeholders(t) if not p.fmt and NUMERIC_NAME.search(p.name)]
        if ints:
            fix = fixed_template(t, {p.name: suggested_width(p.name, 2) if p.is_integer else 10 for p in ints})
            yield SORT.finding(where, f"{e.name}: {', '.join(map(str, ints))} in {t.text!r} formats a number without "
                               "a width, so 10 sorts before 2",
                               hint=f"pad it to a fixed width: {fix!r} (a width that fits the largest value)",
                               severity="warning")
        elif named:
            fix = fixed_template(t, {p.name: suggested_width(p.name, 2) for p in named})
            yield SORT.finding(where, f"{e.name}: {', '.join(map(str, named))} in {t.text!r} "
                               f"look{'s' * (len(named) == 1)} like numbers or times; unless every value has the "
                               "same number of digits, byte order is not number order",
                               hint=f"check with --data; if they are numbers, pad them: {fix!r}", severity="info")


# -- KEY-SEPARATOR-IN-VALUE (template side) ------------------------------------------------------
@spec_check("KEY-SEPARATOR-IN-VALUE")
def templates_parse_back(ctx: Context) -> Iterable[Finding]:
    for e in ctx.spec.entities.values():
        for attr, t in e.templates.items():
            glued = _glued(t)
            if glued:
                yield SEPARATOR_RULE.finding(
                    f"entities.{e.name}.key.{attr}",
                    f"{e.name}: in {t.text!r}, {glued} is not followed by the separator, so keys cannot be split "
                    "back into values reliably", hint=f"put {SEPARATOR} after every placeholder but the last",
                    severity="warning")


def _glued(t: KeyTemplate) -> str:
    for i, p in enumerate(t.parts[:-1]):
        nxt = t.parts[i + 1]
        if isinstance(p, Placeholder) and (isinstance(nxt, Placeholder) or not nxt.startswith(SEPARATOR)):
            return str(p)
    return ""


# -- KEY-SIZE (constant parts) -------------------------------------------------------------------
@spec_check("KEY-SIZE")
def constant_keys_fit(ctx: Context) -> Iterable[Finding]:
    for space in ctx.layout.spaces.values():
        for attr, limit in ((space.pk_attr, PARTITION_KEY_MAX_BYTES), (space.sk_attr, SORT_KEY_MAX_BYTES)):
            for e in ctx.layout.members(space) if attr else ():
                n = sum(len(p.encode("utf-8")) for p in e.templates[attr].parts if isinstance(p, str))
                if n > limit:
                    yield KEY_SIZE.finding(f"entities.{e.name}.key.{attr}", f"the literal text of {e.name}'s {attr} "
                                           f"template alone is {n:,} bytes; DynamoDB takes at most {limit:,}",
                                           hint="shorten the literal parts of the template")
