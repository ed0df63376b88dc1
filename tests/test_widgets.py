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
    assert "SELECT CAST(t.data AS BLOB) AS data, c.size" in explorer.sql.value
    assert "client.get_item" in explorer.request.value


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



def test_a_bad_value_clears_every_pane_of_the_last_answer(explorer):
    explorer.pattern.value = "list_round"
    explorer.set_params(dialogue_id="nvidia-dec", round="1")
    assert explorer.sql.value and explorer.request.value and explorer.items.value and explorer.page_table.value
    explorer.set_params(round="")
    assert explorer.result is None and explorer.plan is None
    assert explorer.sql.value == explorer.request.value == explorer.items.value == explorer.page_table.value == ""
    assert "nothing planned" in explorer.sql_title.value
    assert "fill in the round box" in explorer.cost.value and "--param" not in explorer.cost.value


def test_page_size_and_max_pages_show_each_call(explorer):
    explorer.pattern.value = "list_round"
    explorer.set_params(dialogue_id="nvidia-dec", round="1")
    assert explorer.page_table.value.count("<tr>") == 2 and "the read ended" in explorer.page_table.value
    whole = explorer.result.count
    explorer.limit.value, explorer.pages.value = 20, 3
    assert explorer.result.page_sizes == [20, 20, 20] and explorer.result.count == 60 < whole
    assert explorer.page_table.value.count("<tr>") == 4 and "stopped after 3 calls (max pages 3)" in explorer.page_table.value
    assert "Limit" in explorer.request.value and "20" in explorer.request.value
    explorer.limit.value = 0
    assert explorer.result.count == whole


def test_write_cost_names_each_index(explorer):
    explorer.pattern.value = "add_perspective"
    assert "index writes: gsi1 0 WCU" in explorer.cost.value and "{" not in explorer.cost.value


def test_a_forked_session_keeps_its_widget_on_its_own_design(session):
    ex = PatternExplorer(session.fork(), pattern="list_round", params={"dialogue_id": "nvidia-dec", "round": "1"})
    first = ex.result.items[0]["sk"]
    changed = session.fork()
    changed.set_key("Perspective", "sk", "PERSP#{round:03d}#{expert}#{seq:03d}")
    assert ex.result.items[0]["sk"] == first == "PERSP#1#ann#10" and ex.session.spec is not changed.spec
    changed.close()


def test_a_change_answers_in_a_few_lines_with_the_findings_it_moved(root):
    s = DesignSession(root / "data/specs/dialogue.yaml", root / "data/sample/dialogue")
    assert s.findings().spec.endswith("data/specs/dialogue.yaml")             # unchanged: the file
    change = s.set_key("Perspective", "sk", "PERSP#{round:03d}#{expert}#{seq:03d}")
    text = repr(change)
    assert text.splitlines()[0] == ("entities.Perspective.key.sk: 'PERSP#{round}#{expert}#{seq}' -> "
                                    "'PERSP#{round:03d}#{expert}#{seq:03d}'; 5,261 items rebuilt")
    assert [(f.rule, f.where) for f in change.new] == [("PATTERN-KEY-MISMATCH", "access_patterns[3] (list_round).key_condition.sk_begins_with"),
                                                       ("PATTERN-KEY-MISMATCH", "access_patterns[7] (add_perspective).key_condition.sk")]
    assert [(f.rule, f.where) for f in change.gone] == [("KEY-SORT-ORDER", "entities.Perspective.key.sk")]
    assert len(text.splitlines()) == 5 and "Spec(" not in text and "+ new error PATTERN-KEY-MISMATCH" in change._repr_html_()
    fixed = s.set_pattern("add_perspective", key_condition={"pk": "{dialogue_id}", "sk": "PERSP#{round:03d}#{expert}#{seq:03d}"})
    assert [f.where for f in fixed.gone] == ["access_patterns[7] (add_perspective).key_condition.sk"] and not fixed.new
    assert repr(fixed).startswith("access pattern add_perspective.key_condition: {'pk': '{dialogue_id}', 'sk': 'PERSP#{round}#")
    label = s.findings().to_text().splitlines()[0]
    assert label == "Review of dialogue as changed in this session (2 changes, not saved): 5,261 items checked"
    assert ".yaml" not in label and s.spec.source_path is None
    s.close()


def test_the_byte_order_example_shows_a_number_before_a_smaller_one(session):
    params = {"dialogue_id": "nvidia-dec", "round": "1"}
    order = session.byte_order_example("list_round", params)
    assert list(order.columns) == ["position", "sk", "round", "expert", "seq", "entity"]
    assert order["expert"].nunique() == 1 and order["position"].is_monotonic_increasing
    seqs = order["seq"].tolist()
    assert seqs == [10, 109, 132, 159, 19]            # ann's posts in round 1: 159 comes back before 19
    items = session.run_pattern("list_round", params).items
    assert [items[p - 1]["sk"] for p in order["position"]] == order["sk"].tolist()
    padded = session.fork()
    padded.set_key("Perspective", "sk", "PERSP#{round:03d}#{expert}#{seq:03d}")
    padded.set_pattern("list_round", key_condition={"pk": "{dialogue_id}", "sk_begins_with": "PERSP#{round:03d}#"})
    same = padded.byte_order_example("list_round", params, like=order)
    assert sorted(same["seq"]) == sorted(seqs) and same["seq"].is_monotonic_increasing
    assert padded.byte_order_example("list_round", params).empty
    padded.close()


@pytest.fixture(scope="module")
def heat_report(root):
    from blue_nb import load_data, load_spec, open_store, partition_heat

    spec = load_spec(root / "data/specs/dialogue.yaml")
    with open_store("duckdb") as store:
        load_data(spec, root / "data/sample/dialogue", stores=[store], progress=False)
        yield partition_heat(spec, store, seconds=20, rate_model=True)


def test_heat_sliders_read_in_plain_numbers_and_redraw_while_dragging(heat_report):
    from blue_nb.widgets import HeatExplorer
    from blue_nb.widgets.heat import rate_label

    ex = HeatExplorer(heat_report)
    slider = ex.rate_sliders["list_perspectives"]
    assert slider.continuous_update and not slider.readout and (slider.min, slider.max) == (0, 4)   # 1 .. 10,000
    assert ex.rate_labels["list_perspectives"].value == "<b>60</b>"
    slider.value = 10 ** 3.56                                     # where a drag lands
    assert ex.rate_labels["list_perspectives"].value == "<b>3,631</b>" and ex.result.rates["list_perspectives"] == slider.value
    assert [rate_label(x) for x in (10_000, 363.078, 2.5, 0.05)] == ["10,000", "363", "2.5", "0.05"]
    assert ex.heatmap_figure.get_dpi() == 110 and ex.heatmap.rows == len(ex.result.key_ranges["table"])


def test_heat_severity_rises_with_the_overload_and_says_how_many_times(heat_report):
    from blue_nb.widgets import HeatExplorer

    warm = HeatExplorer(heat_report, rates={"list_perspectives": 130.0})          # 1.2x: a split could help
    assert warm.rate_sliders["list_perspectives"].value == 130.0 and warm.rate_labels["list_perspectives"].value == "<b>130</b>"
    (f,) = warm.findings.by_rule("HOT-PARTITION")
    assert f.severity == "warning" and "(1.2x the partition's 3,000 RCU/s: over the limit)" in f.message
    hot = heat_report.rate_model.evaluate({"list_perspectives": 1400.0})           # 12x
    first = hot.findings.by_rule("HOT-PARTITION")[0]
    assert first.severity == "error" and "'nvidia-dec'" in first.message and "(12x the partition's 3,000 RCU/s" in first.message
    assert "%" not in first.message.split("(", 1)[1].split(")")[0]


def test_a_spec_changes_new_findings_are_shown_whole_never_cut_mid_word():
    from blue_nb.app.session import SpecChange
    from blue_nb.rules import Finding, Findings

    message = ("sort key template PERSP#{round}#{expert}#{seq} orders seq 10 before seq 2 because numbers are "
               "compared as text; pad them: {seq:03d}")
    f = Finding("NUMERIC-SORT-KEY", "warning", "entities.Perspective.key.sk", message)
    change = SpecChange("set_key Perspective.sk", "A", "B", Findings([f]), "0 errors", new=[f])
    assert message in repr(change) and "…" not in repr(change)
    html = change._repr_html_()
    assert "orders seq 10 before seq 2 because numbers are compared as text; pad them: {seq:03d}" in html
    assert "overflow-wrap:break-word" in html


def test_a_transaction_shows_its_sql_transaction_request_and_units(root):
    from blue_nb.spec import AccessPattern, Action, load_spec

    spec = load_spec(root / "data/specs/dialogue.yaml")
    spec.access_patterns.append(AccessPattern(
        "perspective_and_status", "transact_write_items", ["Perspective", "Dialogue"], actions=[
            Action("add_perspective", {n: "{" + n + "}" for n in ("dialogue_id", "round", "expert", "seq")}),
            Action("set_dialogue_status", {"dialogue_id": "{dialogue_id}"})]))
    s = DesignSession(spec, root / "data/sample/dialogue")
    try:
        ex = PatternExplorer(s, pattern="perspective_and_status",
                             params={"dialogue_id": "nvidia-dec", "round": "9", "expert": "x", "seq": "1"})
        assert ex.sql.value.count("BEGIN;") == 1 and "-- action 1: set_dialogue_status" in ex.sql.value
        assert "client.transact_write_items(" in ex.request.value and "&quot;Put&quot;" in ex.request.value
        units = ex.result.units
        assert units[0] == 2 * ex.result.results[0].table_wcu + sum(ex.result.results[0].index_wcu.values())
        assert f"<b>transact_write_items</b> of 2 actions: <b>{sum(units):g} WCU</b>" in ex.cost.value
    finally:
        s.close()


def test_next_page_reads_on_from_the_last_evaluated_key(explorer):
    explorer.pattern.value = "list_perspectives"
    explorer.set_params(dialogue_id="nvidia-dec")
    explorer.limit.value = 2
    first = explorer.result
    key = first.pages[-1].last_evaluated_key
    assert first.count == 2 and key is not None and not explorer.next_page.disabled
    explorer.next_page.click()
    second = explorer.result
    assert explorer.start == key and "ExclusiveStartKey" in explorer.request.value
    assert second.count == 2 and [i["sk"] for i in second.items] > [i["sk"] for i in first.items]
    assert "read on after" in explorer.cost.value
    seen = [i["sk"] for i in first.items + second.items]
    while not explorer.next_page.disabled:              # page on to the end: every item once, in order
        explorer.next_page.click()
        seen += [i["sk"] for i in explorer.result.items]
    whole = explorer.session.run_pattern("list_perspectives", {"dialogue_id": "nvidia-dec"}, follow=True)
    assert seen == [i["sk"] for i in whole.items]
    explorer.limit.value = 3                             # any change reads from the first page again
    assert explorer.start is None and explorer.result.count == 3
