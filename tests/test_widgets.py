"""The access-pattern explorer, driven without a browser: set widget values, read the outputs."""

import pytest

from blue_nb.app.session import DesignSession
from blue_nb.widgets import PatternExplorer


@pytest.fixture(scope="module")
def session(root):
    s = DesignSession(root / "data/specs/dialogue.yaml", root / "data/sample/dialogue")
    yield s
    s.close()


@pytest.fixture
def explorer(session):
    return PatternExplorer(session)


def test_starts_on_the_first_pattern_with_real_values(explorer, session):
    assert explorer.pattern.options == tuple(p.name for p in session.spec.access_patterns)
    assert explorer.pattern.value == "get_dialogue"
    value = explorer.param_values["dialogue_id"]
    assert value in session.parameter_values("get_dialogue")["dialogue_id"]
    assert explorer.result.count == 1 and explorer.result.items[0]["pk"] == value
    assert "SELECT t.data, c.size" in explorer.sql.value and "client.get_item" in explorer.request.value


def test_choose_pattern_params_and_backend(explorer):
    explorer.pattern.value = "list_round"
    assert set(explorer.param_values) == {"dialogue_id", "round"}
    explorer.set_params(dialogue_id="nvidia-dec", round="1")
    sqlite = explorer.result
    assert sqlite.count > 0 and all(i["sk"].startswith("PERSP#1#") for i in sqlite.items)
    assert "begins_with(#sk, :sk0)" in explorer.request.value and "PERSP#1#" in explorer.request.value
    assert f"<b>{sqlite.count}</b> items" in explorer.cost.value and "RCU" in explorer.cost.value
    assert explorer.items.value.count("<tr") == min(sqlite.count, explorer.max_rows) + 1     # header + rows
    explorer.backend.value = "duckdb"
    assert explorer.result.items == sqlite.items and explorer.result.summary() == sqlite.summary()


def test_missing_parameter_is_shown_not_raised(explorer):
    explorer.pattern.value = "tension_history"
    explorer.set_params(tension_id="")
    assert explorer.result is None and "needs tension_id" in explorer.cost.value


def test_write_pattern_shows_its_cost(explorer):
    explorer.pattern.value = "add_perspective"
    assert "WCU" in explorer.cost.value and "dry run" in explorer.cost.value


def test_pages(explorer):
    explorer.pattern.value = "list_perspectives"
    explorer.set_params(dialogue_id="nvidia-dec")
    one = explorer.result
    explorer.pages.value = 50
    assert len(explorer.result.pages) >= len(one.pages) and explorer.result.count >= one.count


def test_spec_changes_update_findings_and_results(root):
    s = DesignSession(root / "data/specs/dialogue.yaml", root / "data/sample/dialogue")
    ex = PatternExplorer(s)
    assert "KEY-SORT-ORDER" in ex.findings.value
    ex.pattern.value = "list_round"
    ex.set_params(dialogue_id="nvidia-dec", round="1")
    assert ex.result.items[0]["sk"].startswith("PERSP#1#")
    s.set_key("Perspective", "sk", "PERSP#{round:03d}#{expert}#{seq:03d}")
    s.set_pattern("list_round", key_condition={"pk": "{dialogue_id}", "sk_begins_with": "PERSP#{round:03d}#"})
    assert ex.pattern.value == "list_round"                        # the selection survives the change
    assert ex.result.items[0]["sk"].startswith("PERSP#001#")       # items rebuilt with the new template
    s.set_pattern("newest_tensions", operation="query", entities=["Tension"], scan_forward=False, limit=5,
                  key_condition={"pk": "{dialogue_id}", "sk_begins_with": "TENSION#"})
    assert "newest_tensions" in ex.pattern.options
    ex.pattern.value = "newest_tensions"
    ex.set_params(dialogue_id="nvidia-dec")
    assert ex.result.count == 5
    sks = [i["sk"] for i in ex.result.items]
    assert sks == sorted(sks, reverse=True)
    s.close()

