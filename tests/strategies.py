"""Hypothesis strategies for DynamoDB values and items (Python values, as boto3 returns them)."""

from decimal import Context, Decimal

from hypothesis import strategies as st

names = st.text(min_size=1, max_size=12)


@st.composite
def numbers(draw) -> Decimal:
    """Valid DynamoDB numbers: up to 38 significant digits, exponent within range."""
    digits = draw(st.integers(min_value=0, max_value=10**38 - 1))
    if digits == 0:
        return Decimal(0)
    exp = draw(st.integers(min_value=-120, max_value=80))
    sign = draw(st.sampled_from([1, -1]))
    return Decimal(sign * digits).scaleb(exp, context=Context(prec=50))     # never round to 28 digits


scalars = st.one_of(
    st.text(max_size=40),
    numbers(),
    st.binary(max_size=40),
    st.booleans(),
    st.none(),
)
sets = st.one_of(
    st.frozensets(st.text(max_size=10), min_size=1, max_size=5).map(set),
    st.frozensets(numbers(), min_size=1, max_size=5).map(set),
    st.frozensets(st.binary(max_size=10), min_size=1, max_size=5).map(set),
)
values = st.recursive(
    st.one_of(scalars, sets),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(names, children, max_size=4)),
    max_leaves=12,
)


@st.composite
def items(draw, key_attrs=("pk", "sk")) -> dict:
    """An item with string keys and any other attributes."""
    item = draw(st.dictionaries(names.filter(lambda n: n not in key_attrs), values, max_size=6))
    for k in key_attrs:
        item[k] = draw(st.text(min_size=1, max_size=20))
    return item


# Full-range numbers (any exponent DynamoDB accepts, 38 digits) and items of every type, as the
# sizing and codec property tests use them.
full_numbers = st.builds(
    lambda digits, shift, neg: Decimal(f"{'-' if neg else ''}{digits}E{shift - len(str(digits)) + 1}"),
    st.integers(min_value=0, max_value=10**38 - 1),
    st.integers(min_value=-130, max_value=125),
    st.booleans(),
)
_texts = st.text(max_size=20)
full_values = st.recursive(
    st.one_of(_texts, full_numbers, st.binary(max_size=20), st.booleans(), st.none(),
              st.frozensets(_texts, min_size=1, max_size=4), st.frozensets(full_numbers, min_size=1, max_size=4),
              st.frozensets(st.binary(max_size=8), min_size=1, max_size=4)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_texts, inner, max_size=4), max_leaves=12,
)
full_items = st.dictionaries(st.text(min_size=1, max_size=10), full_values, max_size=8)
