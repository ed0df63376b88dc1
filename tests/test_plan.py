"""A pattern is planned once: the plan holds the bound request, the statement each store runs and
the boto3 request; the stores execute exactly that statement and the explorer shows exactly it."""

import html
from decimal import Decimal

import pytest

from blue_nb import DesignSession, PatternExplorer
from blue_nb.patterns import (BACKENDS, COMPARISONS, Plan, ReadResult, Statement, WriteResult, data_bytes, plan,
                              read_sql)
from blue_nb.spec import load_spec

DOMAINS = {"dialogue": "dialogue", "document": "document"}


def recording(store):
    """Wrap a store's statement methods so that every statement it runs is recorded."""
    ran: list[tuple[str, list]] = []
    for name in ("execute", "rows"):
        method = getattr(store, name)

        def wrapper(sql, params=(), *args, _method=method, **kw):
            ran.append((sql, list(params)))
            return _method(sql, params, *args, **kw)

        setattr(store, name, wrapper)
    return ran


@pytest.fixture(scope="module", params=sorted(DOMAINS))
def session(request, root):
    s = DesignSession(root / f"data/specs/{request.param}.yaml", root / f"data/sample/{DOMAINS[request.param]}")
    s.ran = {b: recording(st) for b, st in s.stores.items()}
    yield s
    s.close()


def pre(text: str) -> str:
    return (f"<pre style='white-space:pre-wrap;overflow-wrap:normal;word-break:normal;overflow-x:auto;margin:0'>"   # never mid-word
            f"{html.escape(text)}</pre>")


def test_the_explorer_shows_what_the_store_ran_for_every_pattern_and_store(session):
    explorer = PatternExplorer(session)
    for backend in BACKENDS:
        explorer.backend.value = backend
        for pattern in session.spec.access_patterns:
            explorer.pattern.value = pattern.name
            session.ran[backend].clear()
            explorer.update()
            assert explorer.error == "", (pattern.name, explorer.error)
            if pattern.is_composite:             # one SQL transaction of its actions' statements (test_widgets)
                assert explorer.sql.value.count("BEGIN;") == 1 and explorer.result.plan is explorer.plan
                assert len(explorer.result.units) == len(pattern.actions)
                continue
            data = data_bytes(backend, "t.data")
            (sql, params), *rest = [r for r in session.ran[backend] if r[0].startswith(f"SELECT {data}")]
            assert not rest, f"{pattern.name} ran more than its plan's statement: {rest}"
            shown = Statement(sql, tuple(params)).show()
            assert explorer.sql.value == pre(shown), pattern.name
            assert explorer.plan.paged_statement(backend, explorer.pages.value) == Statement(sql, tuple(params))
            result = explorer.result
            assert result.plan is explorer.plan                      # the result carries the plan that ran
            if pattern.operation in ("get_item", "query", "scan"):
                assert isinstance(result, ReadResult) and not isinstance(result, WriteResult)
                assert explorer.request.value == pre(explorer.plan.show_boto3())
            else:
                assert isinstance(result, WriteResult) and not isinstance(result, ReadResult)
                # a write's statement reads the item at the key; the request shown is the write of the priced item
                assert " WHERE t.pk = ? AND t.sk = ?" in sql and "ORDER BY" not in sql
                method = explorer.plan.boto3[0]
                assert method == pattern.operation and f"client.{method}(" in explorer.request.value
                if pattern.operation == "put_item":
                    assert explorer.request.value == pre(explorer.plan.show_boto3(result.item))
                    assert "\n    Item={" in explorer.request.value          # the priced item, as a keyword argument


def test_a_plan_is_the_same_for_every_caller(root):
    spec = load_spec(root / "data/specs/dialogue.yaml")
    a = plan(spec, "list_round", {"dialogue_id": "nvidia-dec", "round": "1"})
    b = plan(spec, "list_round", {"dialogue_id": "nvidia-dec", "round": "1"})
    assert isinstance(a, Plan) and a.sql == b.sql and a.boto3 == b.boto3 and a.request == b.request
    assert a.sql == {kind: read_sql(a.layout, a.request, kind) for kind in BACKENDS}
    assert a.statement("sqlite").params == ("nvidia-dec", "PERSP#1#", "PERSP#1$")
    assert a.boto3[0] == "query" and a.boto3[1]["KeyConditionExpression"] == "#pk = :pk AND begins_with(#sk, :sk0)"
    with pytest.raises(ValueError, match="no SQL planned for a 'postgres' store"):
        a.statement("postgres")


def test_a_call_asks_the_store_for_no_more_rows_than_its_pages_can_use(root):
    from dataclasses import replace

    from blue_nb.spec import loads_spec

    spec = load_spec(root / "data/specs/dialogue.yaml")
    by_status = plan(spec, "dialogues_by_status", {"status": "open"})            # Limit 50
    assert by_status.request.limit == 50 and by_status.rows_needed() == 51
    assert by_status.rows_needed(max_pages=3) == 151 and by_status.rows_needed(follow=True) is None
    assert by_status.rows_needed(max_pages=2, follow=True) == 101
    st = by_status.paged_statement("duckdb")
    assert st.text == by_status.statement("duckdb").text + " LIMIT ?" and st.params[-1] == 51
    assert by_status.show_sql("duckdb") == st.show()
    unlimited = plan(spec, "list_perspectives", {"dialogue_id": "nvidia-dec"})
    assert unlimited.request.limit is None and unlimited.paged_statement("sqlite") == unlimited.statement("sqlite")
    limited = plan(spec, replace(spec.pattern("list_perspectives"), limit=7), {"dialogue_id": "nvidia-dec"})
    assert limited.rows_needed() == 8
    assert plan(spec, "get_dialogue", {"dialogue_id": "nvidia-dec"}).rows_needed() is None
    numbered = loads_spec("spec_version: 1\ndomain: n\ntable: {partition_key: pk, sort_key: sk, sort_key_type: N}\n"
                          "entities: {E: {key: {pk: '{pk}', sk: '{sk}'}}}\n"
                          "access_patterns: [{name: q, operation: query, entities: [E], limit: 5, "
                          "key_condition: {pk: '{pk}'}}]\n")
    assert plan(numbered, "q", {"pk": "a"}).rows_needed() is None        # ordered by number after the SQL


def test_put_item_plans_the_read_of_the_item_it_replaces(root):
    spec = load_spec(root / "data/specs/dialogue.yaml")
    p = plan(spec, "add_perspective", {"dialogue_id": "d", "round": "1", "expert": "ann", "seq": "2"})
    assert p.statement("sqlite").text.endswith("WHERE t.pk = ? AND t.sk = ?")      # not a query of the partition
    assert p.statement("sqlite").params == ("d", "PERSP#1#ann#2")
    method, kw = p.boto3_for({"label": "x", "n": Decimal("1.5")})
    assert method == "put_item" and kw["Item"]["label"] == {"S": "x"} and kw["Item"]["sk"] == {"S": "PERSP#1#ann#2"}


@pytest.mark.parametrize("op, symbol, yes, no", [
    ("eq", "=", (b"a", b"a"), (b"a", b"b")), ("lt", "<", (b"a", b"b"), (b"b", b"a")),
    ("lte", "<=", (b"a", b"a"), (b"b", b"a")), ("gt", ">", (b"b", b"a"), (b"a", b"b")),
    ("gte", ">=", (b"a", b"a"), (b"a", b"b")),
])
def test_one_comparison_table(op, symbol, yes, no):
    """The SQL, the boto3 expression and the local filter read the same table."""
    c = COMPARISONS[op]
    assert c.symbol == symbol and c.test(*yes) and not c.test(*no)


def test_a_bad_parameter_leaves_no_stale_plan_on_screen(session):
    explorer = PatternExplorer(session)
    explorer.pattern.value = session.spec.access_patterns[0].name
    assert explorer.sql.value and explorer.request.value and explorer.error == ""
    bad = next(p for p in session.spec.access_patterns if p.parameters)
    explorer.pattern.value = bad.name
    explorer.set_params(**{n: "" for n in bad.parameters})            # every parameter missing
    assert explorer.error and explorer.plan is None and explorer.result is None
    assert explorer.sql.value == explorer.request.value == ""


def test_query_show_plan_prints_the_statement_the_store_ran(root, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from blue_nb.cli import cli
    from blue_nb.stores import Store

    monkeypatch.chdir(root)
    db = tmp_path / "d.sqlite"
    runner = CliRunner()
    assert runner.invoke(cli, ["load", "data/specs/dialogue.yaml", "--data", "data/sample/dialogue", "--sqlite",
                               str(db), "--no-progress"]).exit_code == 0
    ran = []
    original = Store.run_plan
    monkeypatch.setattr(Store, "run_plan", lambda self, p, **kw: ran.append(p) or original(self, p, **kw))
    r = runner.invoke(cli, ["query", "data/specs/dialogue.yaml", "list_round", "--param", "dialogue_id=nvidia-dec",
                            "--param", "round=1", "--sqlite", str(db), "--show-plan", "--format", "json"])
    assert r.exit_code == 0, r.output
    (p,) = ran
    assert r.stderr == f"-- sqlite:\n{p.show_sql('sqlite')}\n-- boto3:\n{p.show_boto3()}\n"
    assert r.stdout.startswith('{"items": [')                                   # stdout keeps the JSON contract


def test_a_batchs_parameters_offer_its_actions_values_each_starting_on_another(root):
    s = DesignSession(root / "data/specs/dialogue.yaml", root / "data/sample/dialogue")
    try:
        batch, experts = s.parameter_values("tension_experts"), s.parameter_values("get_expert")
        assert batch["dialogue_id"] == experts["dialogue_id"]
        lists = [batch[n] for n in ("raised_by", "answered_by", "resolved_by")]
        assert all(sorted(v) == sorted(experts["expert"]) for v in lists)
        assert [v[0] for v in lists] == experts["expert"][:3]          # three items, not one three times
    finally:
        s.close()
