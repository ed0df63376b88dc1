"""What-if sizing: dropping or renaming attributes, with exact sizes and units before and after."""

import pytest

from blue_nb.errors import SpecError
from blue_nb.spec import loads_spec
from blue_nb.stores import load_items, open_store
from blue_nb.app.whatif import short_names, size_whatif

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
    # pk 2+1, sk 2+5, title 5+10 = 25 bytes; content adds 7 + 5,000
    assert f.loc["now", "max"] == 25 + 5007 and f.loc["without content", "max"] == 25
    assert f.loc["now", "rcu_per_read"] == 2 and f.loc["without content", "rcu_per_read"] == 1
    assert f.loc["now", "wcu_per_write"] == 5 and f.loc["without content", "wcu_per_write"] == 1
    assert f.loc["saving", "bytes"] == 4 * 5007 and f.loc["saving", "storage_bytes"] == 4 * 5007
    assert f.loc["now", "storage_bytes"] == 4 * (5032 + 100)


def test_shorter_names(store):
    names = short_names(["title", "content"])
    assert names == {"title": "t", "content": "c"}
    f = size_whatif(store, SPEC, "Doc", rename=names)
    assert f.loc["saving", "bytes"] == 4 * ((5 - 1) + (7 - 1))


def test_short_names_stay_unique():
    assert short_names(["status", "size", "s", "created_at", "content"], keep=["s"]) == {
        "status": "st", "size": "si", "created_at": "ca", "content": "c"}


def test_bad_requests(store):
    with pytest.raises(SpecError, match="key attributes"):
        size_whatif(store, SPEC, "Doc", drop=["sk"])
    with pytest.raises(SpecError, match="no entity named 'Nope'"):
        size_whatif(store, SPEC, "Nope")
