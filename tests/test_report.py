"""The review report (report-html, report-md): one self-contained HTML file whose pictures all load
(in headless Chromium where it is installed), Markdown whose pictures are files beside it, every
number from the same models the cost and heat commands use, the boto3 requests exactly the plans',
what changed since the previous spec, and a spec with errors reported rather than refused.
"""

from __future__ import annotations

import base64
import re
import struct
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from blue_nb.app.costs import cost_whatif, design_cost
from blue_nb.app.exports import export_all, export_spec
from blue_nb.app.review import review_data
from blue_nb.app.workflows import spec_items, validate
from blue_nb.cli import cli
from blue_nb.errors import BlueNbError
from blue_nb.export import ReviewData, export
from blue_nb.patterns import plan, row_values
from blue_nb.printing import cents
from blue_nb.sizing import item_size
from blue_nb.spec import load_spec
from tests.browser import chromium_page, chromium_path

ROOT = Path(__file__).resolve().parent.parent
V1, V2 = ROOT / "data/specs/dialogue.yaml", ROOT / "data/specs/dialogue_v2.yaml"
NOW = "2026-01-31T12:00:00Z"
SECTIONS = ["glance", "changes", "table", "entities", "patterns", "findings", "heat", "cost", "reproduce"]
FIGURES = ["heat_table_rcu", "heat_table_wcu", "heat_gsi1_rcu", "heat_gsi1_wcu", "top_keys", "partition_sizes",
           "item_sizes", "attribute_sizes", "index_entry_sizes"]      # capacity waste: a table per request


class Tags(HTMLParser):
    """Every start tag with its attributes, in order."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(text: str) -> list[tuple[str, dict]]:
    p = Tags()
    p.feed(text)
    return p.tags


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def md_table(text: str, heading: str) -> list[dict[str, str]]:
    """The first table after ``heading`` in a Markdown text, as rows of column -> cell."""
    lines = text[text.index(heading):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return [dict(zip(rows[0], r)) for r in rows[2:]]


@pytest.fixture(scope="module")
def reports(dialogue_data, tmp_path_factory):
    """dialogue_v2 against dialogue, on the session's sample, as HTML and Markdown files."""
    out = tmp_path_factory.mktemp("review")
    checked = review_data(V2, dialogue_data, against=V1)            # measured once for both, as export_all does
    html = export_spec(V2, "report-html", data_dir=dialogue_data, against=V1, out=out / "review.html", now=NOW,
                       checked=checked)
    md = export_spec(V2, "report-md", data_dir=dialogue_data, against=V1, out=out / "review.md", now=NOW,
                     checked=checked)
    return html, md


@pytest.fixture(scope="module")
def measured(dialogue_data):
    return review_data(V2, dialogue_data)


# ---------------------------------------------------------------- the HTML file


@pytest.mark.slow
def test_the_html_report_is_one_file_that_fetches_nothing(reports):
    html, _ = reports
    tags = tags_of(html.text)
    names = [t for t, _ in tags]
    assert "script" not in names and "link" not in names and "iframe" not in names
    for tag, attrs in tags:
        for key in ("src", "href"):
            value = attrs.get(key) or ""
            assert not re.match(r"(https?:)?//", value), (tag, value)
    images = [a for t, a in tags if t == "img"]
    assert [a["alt"].split(":")[0] for a in images][:1] == ["Partition heat"]
    assert len(images) == len(FIGURES)
    for a in images:
        prefix = "data:image/png;base64,"
        assert a["src"].startswith(prefix)
        width, height = png_size(base64.b64decode(a["src"][len(prefix):]))
        assert width >= 400 and height >= 200
    assert [a["id"] for t, a in tags if t == "figure"] == [f"fig-{n}" for n in FIGURES]


@pytest.mark.slow
def test_the_sections_come_in_reading_order_with_the_verdict_first(reports, dialogue_data):
    html, md = reports
    ids = [a["id"] for t, a in tags_of(html.text) if t == "h2"]
    assert ids == SECTIONS
    first = next(a for t, a in tags_of(html.text) if t == "p" and "banner" in a.get("class", ""))
    assert first["class"] == "banner ok"
    counts = validate(V2, dialogue_data).summary()
    assert counts.startswith("0 errors, 0 warnings")
    assert f"> **Validated: {counts} (3,245 items checked from `{dialogue_data.name}`).**" in md.text
    assert html.validated and md.summary().startswith(f"wrote report-md to {md.path} (")


# ---------------------------------------------------------------- the numbers


@pytest.mark.slow
def test_each_pattern_row_carries_the_cost_models_numbers(reports, dialogue_data):
    _, md = reports
    cost = design_cost(V2, dialogue_data)
    spec = load_spec(V2)
    rows = {r["pattern"]: r for r in md_table(md.text, "## Access patterns")}
    assert list(rows) == [p.name for p in spec.access_patterns]
    for p in spec.access_patterns:
        c = cost.pattern(p.name)
        row = rows[p.name]
        per_call = c.rcu_per_call if p.reads_only else c.wcu_per_call         # a batch get's units are RCU
        assert row["units/call"] == (f"{float(per_call):,.2f}" if p.rate_per_second else "-")   # no rate: unpriced
        assert row["calls/s"] == f"{p.rate_per_second:g}"
        assert row["$/month"] == f"${cents(c.on_demand_usd):,}"
        assert row["hot or cold"].startswith("hot path" if p.hot else "cold")
        assert row["index"] == p.index and row["operation"] == p.operation
    totals = md_table(md.text, "\n## Cost per month")
    t = cost.totals
    assert totals[0] == {"billing": "on demand", "requests / capacity": f"${cents(t['on_demand_usd']):,}",
                         "storage": totals[0]["storage"], "total": f"${cents(t['total_on_demand_usd']):,}"}
    assert totals[1]["total"] == f"${cents(t['total_provisioned_usd']):,}"
    assert float(totals[0]["storage"].lstrip("$")) == pytest.approx(float(t["storage_usd"]), rel=0.05)   # tiny: 2 digits


@pytest.mark.slow
def test_example_keys_are_keys_of_the_data_and_requests_are_the_plans(measured, dialogue_data):
    findings, data = measured
    spec = load_spec(V2)
    keys = {(e, item["pk"], item["sk"]) for e, item in spec_items(spec, dialogue_data)}
    for entity, rows in data.examples.items():
        assert len(rows) == 3
        for row in rows:
            assert (entity, row["pk"], row["sk"]) in keys
    assert set(data.requests) == {p.name for p in spec.access_patterns}

    class Recorder:
        def __getattr__(self, method):
            return lambda **kw: (method, kw)

    for p in spec.access_patterns:
        method, kwargs = eval(data.requests[p.name], {"client": Recorder()})        # the text is a Python call
        if p.operation == "transact_write_items":      # one request of several tables' calls: each names its table
            assert [next(iter(a.values()))["TableName"] for a in kwargs["TransactItems"]] == ["blue_dialogue"] * 2
        elif p.operation == "batch_get_item":
            assert list(kwargs["RequestItems"]) == ["blue_dialogue"]
            assert len(kwargs["RequestItems"]["blue_dialogue"]["Keys"]) == 3
        else:
            assert kwargs["TableName"] == "blue_dialogue"
        if p.is_read:                                    # a read is shown on the key the pattern loads most
            hot = data.busiest[p.name]
            attr = spec.key_attributes(hot["index"])[0]
            on_hot = [plan(spec, p, {k: v for k, v in row_values(spec, p.entities[0], i).items()
                                     if k in p.parameters}).boto3
                      for e, i in spec_items(spec, dialogue_data) if e in p.entities and str(i.get(attr)) == str(hot["pk"])]
            assert (method, kwargs) in on_hot, p.name
    assert findings.items_checked == 3245


@pytest.mark.slow
def test_the_busiest_keys_and_limits_come_from_the_heat_model(measured, dialogue_data):
    _, data = measured
    assert data.top_keys[0]["pk"] == data.busiest["list_perspectives"]["pk"]
    assert data.peaks["table"]["peak_key_rcu"] >= data.top_keys[0]["rcu_per_s"]
    assert set(data.busiest) == {p.name for p in load_spec(V2).access_patterns if p.rate_per_second}
    assert [f.name for f in data.figures] == FIGURES
    per_pk: dict[str, list[int]] = {}
    for _, item in spec_items(load_spec(V2), dialogue_data):
        per_pk.setdefault(item["pk"], []).append(item_size(item))
    pk = max(per_pk, key=lambda k: sum(per_pk[k]))
    assert data.largest_partition == {"index": "table", "pk": pk, "bytes": sum(per_pk[pk]), "items": len(per_pk[pk])}


# ---------------------------------------------------------------- what changed


@pytest.mark.slow
def test_against_the_previous_spec_lists_keys_patterns_findings_and_costs(reports, dialogue_data):
    _, md = reports
    changes = md_table(md.text, "## Since the previous version")
    assert [(c["what"], c["name"]) for c in changes] == [
        ("key", "Perspective sk"), ("key", "TensionEvent pk"), ("key", "TensionEvent sk"),
        ("pattern", "list_round key condition"), ("pattern", "tension_history key condition"),
        ("pattern", "add_perspective key condition"), ("pattern", "record_tension_event key condition")]
    assert changes[0]["before"] == "`PERSP#{round}#{expert}#{seq}`"
    assert changes[0]["after"] == "`PERSP#{round:03d}#{expert}#{seq:03d}`"
    found = md_table(md.text, "### Findings")
    assert {(f["rule"], f[""]) for f in found} == {("ADR4-SINGLE-WRITER", "resolved"),
                                                    ("KEY-PREFIX-COLLISION", "resolved"),
                                                    ("KEY-SORT-ORDER", "resolved")}
    whatif = cost_whatif(V1, V2, dialogue_data)
    costs = {r[""]: r for r in md_table(md.text, "### Cost per month")}
    old, new = whatif.old.totals["total_on_demand_usd"], whatif.new.totals["total_on_demand_usd"]
    assert costs["total on demand"]["before"] == f"${cents(old):,}"
    assert costs["total on demand"]["after"] == f"${cents(new):,}"
    assert costs["total on demand"]["change"] == f"+${cents(new - old):,}"
    # each pattern's change says why, from what changed: its units per call and the key template behind them
    diff = whatif.diff.set_index(["kind", "name"])
    moved = [n for (k, n), r in diff.iterrows() if k == "pattern" and r["usd_diff"] != 0]
    assert moved and all(costs[n]["why"] for n in moved)
    assert all(costs[n]["why"] == "" and costs[n]["change"] == "—" for (k, n), r in diff.iterrows()
               if k == "pattern" and r["usd_diff"] == 0)                             # no change: a dash, no reason
    why = costs["list_perspectives"]["why"]
    assert re.match(r"[\d.]+ -> [\d.]+ RCU per call: Perspective sk key longer: ", why), why
    assert "'PERSP#{round:03d}#{expert}#{seq:03d}'" in why


def test_capacity_not_used_is_measured_per_call_and_agrees_with_the_cost(reports, measured):
    """Waste per request with the items a call really reads (never one item per request), priced from the same
    read dollars as the patterns' cost."""
    from blue_nb.sizing import READ_UNIT_BYTES

    spec, (_, data) = load_spec(V2), measured
    md = reports[1].text
    rows = {r["pattern"]: r for r in md_table(md, "### Capacity paid for but not used")}
    costs = {r["pattern"]: r for r in data.cost["patterns"]}
    reads = [p for p in spec.access_patterns if p.reads_only]                 # batch gets too
    assert set(rows) == {p.name for p in reads}
    for p in reads:
        per_call = data.reads[p.name]
        paid = costs[p.name]["rcu_per_call"] * READ_UNIT_BYTES * (1 if p.consistent_read else 2)
        assert per_call["bytes_per_call"] <= paid + 1e-6                          # never more read than paid for
        unused = 1 - per_call["bytes_per_call"] / paid
        assert rows[p.name]["not used"] == f"{unused:.0%}"
        dollars = float(rows[p.name]["$/month not used"].lstrip("$").replace(",", ""))
        assert dollars == pytest.approx(unused * costs[p.name]["on_demand_read_usd"], rel=0.01, abs=0.01)
    many = max(reads, key=lambda p: data.reads[p.name]["items_per_call"])
    assert data.reads[many.name]["items_per_call"] > 10 and int(rows[many.name]["not used"].rstrip("%")) < 50


def test_one_money_format_in_the_report(reports):
    """Every amount by printing.usd: cents from half a cent, two significant digits under it, never $0.0000."""
    md = reports[1].text
    amounts = re.findall(r"[+-]?\$[\d,]+\.\d+", md)
    assert amounts and not re.search(r"\$0\.0+(?![\d])", md.replace("$0.00 ", ""))    # nothing non-zero shown as zero
    for a in amounts:
        whole, decimals = a.lstrip("+-$").replace(",", "").split(".")
        assert len(decimals) == 2 or (whole == "0" and len(decimals.lstrip("0")) == 2), a


def test_the_same_spec_against_itself_changed_nothing():
    spec = load_spec(V2)
    findings, data = review_data(spec, against=V2)
    text = export(spec, "report-md", findings=findings, data=data, now=NOW)
    assert "Nothing changed: same keys, indexes, patterns, findings and costs." in text


# ---------------------------------------------------------------- a spec with errors, the spec alone


def test_a_spec_with_errors_is_reported_with_its_errors_not_refused():
    text = export(load_spec(V1), "report-html", now=NOW)
    assert '<p class="banner bad">NOT VALIDATED: 1 error (ADR4-SINGLE-WRITER); 1 error, 1 warning, 4 notes' in text
    section = text[text.index('id="findings-error"'):text.index('id="findings-warning"')]
    assert "<b>ADR4-SINGLE-WRITER</b> at <code>entities.TensionEvent.writer</code>" in section
    assert "Fix: " in section
    md = export(load_spec(V1), "report-md", now=NOW)
    assert md.count("\n> **NOT VALIDATED") == 1


def test_the_spec_alone_says_what_needs_data_and_draws_nothing():
    text = export(load_spec(V2), "report-md", now=NOW)
    assert "Example keys come from the data: pass --data." in text
    assert "Heat and sizes are measured on data: pass --data." in text
    assert "pass --data." in text[text.index("## Cost per month"):]
    assert "![" not in text and "data:image" not in text
    assert 'ExpressionAttributeValues={":pk": {"S": "<dialogue_id>"}' in text   # requests with placeholders


def test_text_from_the_spec_is_escaped_in_html_and_in_markdown_tables():
    spec = load_spec(V2).with_changes(description="<script>alert(1)</script> a | b")
    html = export(spec, "report-html", now=NOW)
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; a | b" in html
    assert "script" not in [t for t, _ in tags_of(html)]
    md = export(spec, "report-md", data=ReviewData(), now=NOW)
    assert md_table(md, "## Entities")[0]["entity"] == "Dialogue"


# ---------------------------------------------------------------- Markdown pictures, the command line


@pytest.mark.slow
def test_markdown_links_its_pictures_written_beside_it(reports):
    _, md = reports
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md.text)
    assert links == [f"review_files/{n}.png" for n in FIGURES]
    for link in links:
        png_size((md.path.parent / link).read_bytes())
    assert sorted(p.name for p in md.files) == sorted(f"{n}.png" for n in FIGURES)
    assert "data:image" not in md.text
    assert re.search(r"\|\n\*", md.text) is None            # a caption never glues onto a table as a row


def test_a_stale_picture_is_removed_when_the_markdown_is_made_again(tmp_path, dialogue_data):
    folder = tmp_path / "review_files"
    folder.mkdir()
    (folder / "heat_old_index_rcu.png").write_bytes(b"old")
    result = export_spec(V2, "report-md", data_dir=dialogue_data, out=tmp_path / "review.md", now=NOW)
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in result.files)
    assert "heat_old_index_rcu.png" not in {p.name for p in folder.iterdir()}


def test_the_command_writes_a_report_and_refuses_bad_options_with_exit_2(tmp_path):
    run = CliRunner().invoke
    out = tmp_path / "r.md"
    r = run(cli, ["export", str(V1), "--format", "report-md", "-o", str(out), "--now", NOW])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"wrote report-md to {out} (") and "NOT VALIDATED (spec only): 1 error" in r.stdout
    r = run(cli, ["export", str(V2), "--format", "cloudformation", "--against", str(V1), "-o", str(tmp_path / "x")])
    assert r.exit_code == 2 and "--against and --prices are for the review reports" in r.stderr
    r = run(cli, ["export", str(V2), "--format", "report-html", "--against", str(tmp_path / "nope.yaml"),
                  "-o", str(tmp_path / "y.html")])
    assert r.exit_code == 2 and "Traceback" not in r.output and "nope.yaml" in r.stderr
    assert not (tmp_path / "y.html").exists()


# ---------------------------------------------------------------- in a browser


@pytest.mark.slow
@pytest.mark.skipif(chromium_path() is None, reason="no Chromium installed: the structural tests above stand in")
def test_the_html_report_renders_in_chromium_with_every_picture(reports):
    html, _ = reports
    with chromium_page() as page:
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(html.path.resolve().as_uri())
        page.wait_for_load_state("load")
        state = page.evaluate("""() => ({
            images: document.images.length,
            broken: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).length,
            widths: Array.from(document.images).map(i => i.getBoundingClientRect().width),
            headings: Array.from(document.querySelectorAll('h2')).map(h => h.id),
            overflow: document.documentElement.scrollWidth > window.innerWidth + 1,
        })""")
    assert state["images"] == len(FIGURES) and state["broken"] == 0
    assert min(state["widths"]) > 300                      # drawn, not collapsed
    assert state["headings"] == SECTIONS
    assert not state["overflow"]                           # nothing wider than the window
    assert requests == [html.path.resolve().as_uri()]      # the file itself, nothing else


@pytest.mark.slow
def test_export_all_checks_once_and_writes_what_each_export_writes(tmp_path, dialogue_data):
    results = export_all(V2, tmp_path, data_dir=dialogue_data, now=NOW, formats=["spec-yaml", "workbench", "report-md"])
    assert {f: r.path.name for f, r in results.items()} == {
        "spec-yaml": "dialogue.spec.yaml", "workbench": "dialogue.workbench.json",
        "report-md": "dialogue.review.md"}
    for fmt in ("spec-yaml", "workbench"):                 # the shared checks give the same files as one export each
        assert results[fmt].text == export_spec(V2, fmt, data_dir=dialogue_data, now=NOW).text
    assert {r.findings.summary() for r in results.values()} == {validate(V2, dialogue_data).summary()}
    assert (tmp_path / "dialogue.review_files" / "top_keys.png").is_file()
    with pytest.raises(BlueNbError, match="unknown export format 'pdf'"):
        export_all(V2, tmp_path, formats=["pdf"])


def test_the_entry_sizes_picture_takes_the_table_items_as_a_category():
    """The table's items join the index entries as index "table", a categorical (a byte per item, not a string):
    every size kept, each row of the picture counting its own."""
    import pandas as pd
    from blue_nb import plots
    from blue_nb.app.reports import _with_table
    sizes = pd.DataFrame({"entity": ["A", "B", "A"], "size": [100, 2000, 300]})
    entries = pd.DataFrame({"index": ["gsi1", "gsi2", "gsi1"], "size": [10, 20, 30]})
    got = _with_table(sizes, entries)
    assert list(got["index"].cat.categories) == ["table", "gsi1", "gsi2"]
    assert list(got["index"].astype(str)) == ["table"] * 3 + ["gsi1", "gsi2", "gsi1"]
    assert list(got["size"]) == [100, 2000, 300, 10, 20, 30]
    fig = plots.index_entry_sizes(got)
    labels = [t.get_text().splitlines()[:2] for t in fig.axes[0].get_yticklabels()]
    assert [lab[0] for lab in labels] == ["table", "gsi1", "gsi2"]
    assert [lab[1].split(" · ")[0] for lab in labels] == ["3 items", "2 entries", "1 entry"]


@pytest.mark.slow
def test_the_report_gives_headroom_a_caveat_and_paths_that_work_from_the_project_folder(reports, monkeypatch):
    """Headroom of the busiest key, what the numbers rest on, and the command to remake the report with paths
    relative to the project folder, whichever folder it was made from (a notebook runs in notebooks/)."""
    from blue_nb.export.review import project_folder, shown_path

    md = reports[1].text
    assert "headroom, table" in md and "x the traffic (+" in md
    assert "the shipped samples are generated" in md and "From the project folder" in md
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root / "notebooks")
    assert project_folder() == root
    assert shown_path("../data/specs/dialogue.yaml") == "data/specs/dialogue.yaml"
    assert shown_path(str(root / "data/sample/dialogue")) == "data/sample/dialogue"
    assert shown_path("/elsewhere/spec.yaml") == "spec.yaml"
