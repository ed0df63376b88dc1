"""The per-second model's fast paths (blue_nb.heat.seconds) against the plain numpy they replaced
(tests/heat_oracle.py): the same calls, the same sums, bit for bit, on generated weights and rates; and a
slider's memo gives the calls a fresh draw gives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blue_nb.heat.seconds as seconds
from blue_nb.heat.rankings import pattern_lists
from blue_nb.heat.seconds import CallUnits, Calls, DrawMemo, draw_calls, draw_parts
from tests.heat_oracle import numpy_draw_calls, numpy_per_second, sorted_pattern_lists

# weights as designs make them: equal (uniform), Zipf-like tails over many decades, zeros, a lone candidate
WEIGHTS = st.one_of(
    st.integers(1, 400).map(lambda n: np.ones(n)),
    st.tuples(st.integers(1, 3000), st.floats(0.1, 3.0)).map(lambda a: np.arange(1, a[0] + 1, dtype=float) ** -a[1]),
    st.lists(st.sampled_from([0.0, 1e-12, 0.25, 1.0, 3.0, 1e6]), min_size=1, max_size=60)
    .filter(lambda w: sum(w) > 0).map(np.array),
)
RATES = st.sampled_from([0.0, 0.3, 2.0, 45.0, 700.0, 9000.0])


def _same_calls(got: Calls, want: tuple) -> None:
    for name, a, b in zip(("second", "pattern", "pos", "k"), (got.second, got.pattern, got.pos, got.k), want):
        np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), err_msg=name)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(RATES, WEIGHTS), min_size=1, max_size=4), st.integers(1, 40), st.integers(0, 2**31))
def test_the_draw_equals_the_plain_numpy_draw(patterns, n_seconds, seed):
    rates, weights = zip(*patterns)
    _same_calls(draw_calls(rates, weights, n_seconds, seed), numpy_draw_calls(rates, weights, n_seconds, seed))


@pytest.mark.parametrize("rate", [5_000.0, 60_000.0])
def test_more_calls_than_draws_and_the_multinomial_equal_the_plain_numpy_draw(monkeypatch, rate):
    """Above MAX_DRAWS a draw stands for several calls (k not whole); above FEW_CALLS over few candidates
    a second is one multinomial."""
    monkeypatch.setattr(seconds, "MAX_DRAWS", 10_000)
    monkeypatch.setattr(seconds, "FEW_CALLS", 100_000)
    monkeypatch.setattr("tests.heat_oracle.MAX_DRAWS", 10_000)
    monkeypatch.setattr("tests.heat_oracle.FEW_CALLS", 100_000)
    weights = [np.arange(1, 20_001, dtype=float) ** -1.2, np.ones(50)]
    got = draw_calls([rate, rate], weights, 30, 7)
    assert got.k.max() > 1 and not np.all(got.k == np.round(got.k))        # the draws stand for several calls
    _same_calls(got, numpy_draw_calls([rate, rate], weights, 30, 7))


def test_a_memo_redraws_only_what_moved_and_gives_a_fresh_draws_calls():
    rng = np.random.default_rng(3)
    shapes = {"uniform": lambda n: np.ones(n), "zipf": lambda n: np.arange(1, n + 1, dtype=float) ** -1.5}
    sizes = [3000, 40, 800, 5]
    rates, kinds = [120.0, 30.0, 900.0, 2.0], ["uniform", "zipf", "zipf", "uniform"]
    memo, drawn = DrawMemo(), []
    draw_parts(rates, [shapes[k](n) for k, n in zip(kinds, sizes)], 20, 18, settings=list(kinds), memo=memo)
    real = seconds._draw_pattern
    for step in range(40):
        j = int(rng.integers(len(rates)))
        if rng.random() < 0.5:
            rates[j] = float(rng.choice([0.0, 1.0, 50.0, 400.0, 3000.0]))
        else:
            kinds[j] = "zipf" if kinds[j] == "uniform" else "uniform"
        weights = [shapes[k](n) for k, n in zip(kinds, sizes)]
        drawn.clear()
        seconds._draw_pattern = lambda *a, **k: (drawn.append(a[1]), real(*a, **k))[1]
        try:
            parts = draw_parts(rates, weights, 20, 18, settings=list(kinds), memo=memo)
        finally:
            seconds._draw_pattern = real
        _same_calls(Calls.joined(parts), numpy_draw_calls(rates, weights, 20, 18))
        assert drawn[:1] in ([], [j]) and all(i >= j for i in drawn), (step, j, drawn)   # nothing before the move


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 6), st.integers(1, 50), st.integers(0, 2**31), st.booleans())
def test_units_per_second_equal_the_plain_numpy_sum(patterns, n_seconds, seed, whole):
    rng = np.random.default_rng(seed)
    n_cand, partitions = 200, 500
    n_eff = rng.integers(0, 4, n_cand)                    # 0 to 3 partitions per candidate (0: unknown)
    key = np.repeat(np.arange(n_cand), n_eff)
    units = CallUnits(key, rng.integers(0, partitions, len(key)), rng.choice([0.5, 1.0, 1.5, 0.0], len(key)),
                      rng.choice([0.0, 1.0, 2.0], len(key)), partitions)
    parts = []
    for j in range(patterns):
        n = int(rng.integers(0, 300))
        k = rng.integers(1, 5, n).astype(float) * (1.0 if whole else 2.37)
        parts.append(Calls(np.sort(rng.integers(0, n_seconds, n)), np.full(n, j), rng.integers(0, 40, n), k))
    offsets = [40 * j for j in range(patterns)]
    joined = Calls.joined(parts)
    keys = np.asarray(offsets)[joined.pattern.astype(int)] + joined.pos if len(joined) else joined.pos
    want = numpy_per_second(units, joined.second, keys, joined.k)
    for got in (units.per_second(joined.second, keys, joined.k), units.per_second_of(parts, offsets),
                units.per_second_of(parts, offsets)):            # the second time from the rows it kept
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 16), st.integers(1, 60), st.integers(0, 2**31))
def test_each_keys_patterns_rank_as_a_stable_sort_ranks_them(k, n, seed):
    rng = np.random.default_rng(seed)
    units = rng.choice([0.0, 0.0, 0.5, 1.0, 1.0, 3.0, 7.25], size=(k, n))     # zeros and ties
    names = [f"p{c:02d}" for c in range(k)]
    codes, texts = pattern_lists(units, names)
    assert [texts[c] for c in codes] == sorted_pattern_lists(units, names)
