"""What-if sizing: dropping or renaming attributes, with exact sizes and units before and after."""

import pytest

from blue_nb.errors import SpecError
from blue_nb.spec import loads_spec
from blue_nb.stores import load_items, open_store
from blue_nb.app.whatif import nearest_rank, short_names, size_whatif

SPEC = loads_spec("""
spec_version: 1
domain: docs
table: {partition_key: pk, sort_key: sk}
entities:
  Doc:
    key: {pk: "{realm}", sk: "DOC#{n}"}
    attributes: {title: S, content: S}
""")


@pytest.fixture
def store():
    s = open_store("sqlite")
    items = [("Doc", {"pk": "r", "sk": f"DOC#{n}", "title": "t" * 10, "content": "c" * 5000}) for n in range(4)]
    load_items([s], SPEC, items, progress=False)
    return s


def test_dropping_content(store):
    f = size_whatif(store, SPEC, "Doc", drop=["content"])
    assert list(f.columns) == ["now", "without content", "change", "meaning"]
    # pk 2+1, sk 2+5, title 5+10 = 25 bytes; content adds 7 + 5,000
    assert f.loc["max_bytes", "now"] == 25 + 5007 and f.loc["max_bytes", "without content"] == 25
    assert f.loc["rcu_per_read", "now"] == 2 and f.loc["rcu_per_read", "without content"] == 1
    assert f.loc["wcu_per_write", "now"] == 5 and f.loc["wcu_per_write", "without content"] == 1
    assert f.loc["bytes", "change"] == -4 * 5007 and f.loc["storage_bytes", "change"] == -4 * 5007
    assert f.loc["storage_bytes", "now"] == 4 * (5032 + 100)
    assert f.loc["items", "change"] == 0 and f.loc["items_over_400KB", "now"] == 0


def test_items_over_the_limit_are_counted_before_and_after_and_the_change_is_signed():
    s = open_store("sqlite")
    items = [("Doc", {"pk": "r", "sk": f"DOC#{n}", "content": "c" * size}) for n, size in enumerate((100, 409_600, 500_000))]
    load_items([s], SPEC, items, progress=False)
    f = size_whatif(s, SPEC, "Doc", drop=["content"])
    assert (f.loc["items_over_400KB", "now"], f.loc["items_over_400KB", "without content"]) == (2, 0)
    assert f.loc["items_over_400KB", "change"] == -2
    html = f._repr_html_()
    assert ">-2<" in html and ">+0<" not in html and ">0<" in html       # items: unchanged shows 0, not +0


def test_percentiles_are_real_item_sizes_like_the_stores_median():
    """An even count: the median is the lower middle item (the stores' and the heat report's p50),
    never the average of the two middle ones."""
    s = open_store("sqlite")
    items = [("Doc", {"pk": "r", "sk": f"DOC#{n}", "content": "c" * size}) for n, size in enumerate((10, 20, 30, 1000))]
    load_items([s], SPEC, items, progress=False)
    f = size_whatif(s, SPEC, "Doc", drop=["content"])
    median = s.entity_sizes(SPEC.table_name)["Doc"][2]
    assert f.loc["p50_bytes", "now"] == median == 3 + 7 + 7 + 20          # pk 2+1, sk 2+5 (DOC#1), content 7+20
    assert f.loc["p95_bytes", "now"] == f.loc["max_bytes", "now"] == 3 + 7 + 7 + 1000
    assert nearest_rank([1, 2, 3, 4], 0.5) == 2 and nearest_rank([1, 2, 3], 0.5) == 2
    assert nearest_rank(list(range(1, 101)), 0.95) == 95 and nearest_rank([7], 0.95) == 7


def test_shorter_names(store):
    names = short_names(["title", "content"])
    assert names == {"title": "t", "content": "c"}
    f = size_whatif(store, SPEC, "Doc", rename=names)
    assert f.loc["bytes", "change"] == -4 * ((5 - 1) + (7 - 1))
    assert list(f.columns) == ["now", "2 shorter names", "change", "meaning"]


def test_short_names_stay_unique():
    assert short_names(["status", "size", "s", "created_at", "content"], keep=["s"]) == {
        "status": "st", "size": "si", "created_at": "ca", "content": "c"}


def test_bad_requests(store):
    with pytest.raises(SpecError, match="key attributes"):
        size_whatif(store, SPEC, "Doc", drop=["sk"])
    with pytest.raises(SpecError, match="no entity named 'Nope'"):
        size_whatif(store, SPEC, "Nope")
